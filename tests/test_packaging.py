"""The built wheel ships the bundled front end."""

import subprocess
import sys
import zipfile


def test_wheel_contains_the_built_view(tmp_path):
    root = __import__("pathlib").Path(__file__).parent.parent
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path), str(root)],
                   check=True, capture_output=True)
    wheel = next(tmp_path.glob("campaign_widget-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "campaign_widget/static/widget.js" in names
    assert "campaign_widget/widget.py" in names
    bundle = zipfile.ZipFile(wheel).read("campaign_widget/static/widget.js")
    assert b"render" in bundle and len(bundle) > 1000
