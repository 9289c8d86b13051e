"""The README's two commands stay true: CI runs the test command word for word."""

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent


def _commands():
    return re.findall(r"```\n(.+?)\n```", (ROOT / "README.md").read_text(encoding="utf-8"))


def test_readme_first_screen_has_two_commands_and_ci_runs_the_test_one():
    setup, tests = _commands()[:2]
    assert "jupyterlab" in setup and "notebooks/01-campaign-basics.ipynb" in setup
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci_lines[-1] == tests
