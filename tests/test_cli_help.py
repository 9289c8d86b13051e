"""The command's help lists what the code's tables hold (file formats, machine and transformer presets), and
its reader flags, declared by one table, reach the reader as their keywords."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from campaign_widget.cli import main
from campaign_widget.errors import CampaignWidgetError, InputError, OutputClosed, UsageError
from campaign_widget.io import formats
from campaign_widget.model.presets import MACHINES
from campaign_widget.model.transformer import presets as transformer_presets


def help_text(capsys, monkeypatch, command: str) -> str:
    monkeypatch.setenv("COLUMNS", "10000")  # one line per option: nothing wrapped inside a list
    assert main([command, "--help"]) == 0
    return capsys.readouterr().out


def listed(text: str, option: str) -> list[str]:
    """The comma-separated names in parentheses on ``option``'s help line."""
    line = next(line for line in text.splitlines() if line.lstrip().startswith(option))
    return re.search(r"\(([^()]*)\)", line).group(1).split(", ")


@pytest.mark.parametrize("command", ["render", "summary"])
def test_help_lists_every_file_format_and_machine_preset(capsys, monkeypatch, command):
    text = help_text(capsys, monkeypatch, command)
    assert listed(text, "FILE") == [f.name for f in formats()]
    assert listed(text, "--machine PRESET") == list(MACHINES)


def test_help_lists_every_transformer_preset(capsys, monkeypatch):
    text = help_text(capsys, monkeypatch, "summary")
    assert listed(text, "--transformer CONFIG") == transformer_presets()


def test_help_follows_the_presets_table(capsys, monkeypatch):
    monkeypatch.setitem(MACHINES, "made-up-machine", MACHINES["h100-sxm"])
    assert listed(help_text(capsys, monkeypatch, "render"), "--machine PRESET")[-1] == "made-up-machine"


def test_the_command_line_errors_are_of_the_family():
    for error in (UsageError, InputError, OutputClosed):
        assert issubclass(error, CampaignWidgetError)


def test_a_reader_option_error_keeps_exit_status_2_though_usage_errors_are_value_errors(capsys):
    # UsageError is a ValueError now: the loader, which turns ValueErrors into bad input (1), must let it through
    assert main(["summary", str(Path(__file__).parent / "data" / "figure-8.yaml"), "--clock", "1G"]) == 2
    assert "--clock is for Timeloop stats" in capsys.readouterr().err


def test_python_m_runs_the_command():
    done = subprocess.run(
        [sys.executable, "-m", "campaign_widget.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0 and done.stdout.startswith("campaign-widget ")


def test_every_reader_flag_reaches_the_reader_as_its_keyword(monkeypatch, capsys):
    from campaign_widget.cli import _loading
    from campaign_widget.cli._reader_flags import READER_OPTIONS
    from campaign_widget.errors import WorkloadError

    given = {}

    def reader(path, **options):
        given.update(options)
        raise WorkloadError("read no further")

    monkeypatch.setattr(_loading, "load", reader)
    argv = ["--clock", "1G", "--param", "N=4", "--param", "M=2", "--categories", "kernel", "--counters", "c.csv"]
    assert main(["summary", str(Path(__file__).parent / "data" / "figure-8.yaml"), *argv]) == 1
    assert {o.keyword: given[o.keyword] for o in READER_OPTIONS} == {
        "clock": 1e9,
        "params": {"N": 4, "M": 2},
        "categories": ("kernel",),
        "counters": "c.csv",
    }
    assert "read no further" in capsys.readouterr().err
