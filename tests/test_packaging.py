"""The built wheel ships the bundled front end, and that bundle is a loadable anywidget module."""

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parent.parent


def test_wheel_contains_the_built_view(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    wheel = zipfile.ZipFile(next(tmp_path.glob("campaign_widget-*.whl")))
    names = set(wheel.namelist())
    for module in (
        "campaign_widget/views/diagram.py",
        "campaign_widget/io/__init__.py",
        "campaign_widget/model/expr.py",
    ):
        assert module in names
    bundles = sorted(n for n in names if n.startswith("campaign_widget/static/") and n.endswith(".js"))
    assert "campaign_widget/static/widget.js" in bundles
    assert "campaign_widget/static/dataflow.js" in bundles
    assert "campaign_widget/static/host.js" in bundles  # the to_html page's host, inlined by html_export
    # each view's bundle is an ES module whose default export has render({model, el}), as anywidget loads it
    node = shutil.which("node")
    assert node, "node is needed to build the view (see README)"
    for name in bundles:
        if name.endswith("/host.js"):
            continue
        path = tmp_path / Path(name).name
        path.write_bytes(wheel.read(name))
        probe = (
            f"import({json.dumps(path.as_uri())}).then(m => "
            "console.log(JSON.stringify(Object.keys(m.default || {}))))"
        )
        out = subprocess.run([node, "--input-type=module", "-e", probe], check=True, capture_output=True, text=True)
        assert "render" in json.loads(out.stdout.strip().splitlines()[-1]), f"{name} exports no render()"


def test_every_bundle_the_build_writes_is_one_the_wheel_hook_ensures():
    # A bundle missing from skip-if-exists/ensured-targets is silently not rebuilt (or not checked)
    # in a checkout whose static/ already holds the others.
    import re

    build = json.loads((ROOT / "package.json").read_text())["scripts"]["build"]
    written = {f"campaign_widget/static/{name}.js" for name in re.findall(r"(\w+)=js/\S+\.js", build)}
    assert written, build
    pyproject = (ROOT / "pyproject.toml").read_text()  # tomllib is 3.11+; these are one-line lists
    for key in ("ensured-targets", "skip-if-exists"):
        (listed,) = re.findall(rf"^{key} = (\[.*\])$", pyproject, flags=re.M)
        assert set(json.loads(listed)) == written, key
