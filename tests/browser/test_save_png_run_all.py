"""In a real browser: display a diagram in one cell, call ``save_png`` in the next,
Run All — the request waits in the widget's state until the view renders, and the PNG is written.

Under Run All the second cell runs before the view of the first exists, so a request sent as a
message would be lost (it raised "needs a displayed view" before). The file on disk is checked to
be a PNG of the figure's size at the asked scale.
"""

from __future__ import annotations

import io

import pytest
from labdriver import LabPage, Notebook, check_each_test, module_page, wait_for_file, write_code_notebook
from PIL import Image

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-save-png-run-all.ipynb"
DISPLAY = """\
import campaign_widget as cw
w = cw.Workload([cw.Phase("A", duration=3, compute_util=0.7, memory_util=0.25),
                 cw.Phase("B", duration=10, compute_util=0.2, memory_util=0.9, after=["A"])])
diagram = cw.CampaignDiagram(w, tiles=4, pipeline=True)
diagram"""
SAVE = """\
export = diagram.save_png({path!r}, scale=2)
export"""


class RunAllPage:
    def __init__(self, lab: LabPage, nb: Notebook, target):
        self.lab, self.page, self.nb, self.target = lab, lab.page, nb, target
        self.failed = False


def _open(lab: LabPage, jupyter_lab) -> RunAllPage:
    target = jupyter_lab.root_dir / "run-all-figure.png"
    write_code_notebook(jupyter_lab.root_dir, NOTEBOOK, [DISPLAY, SAVE.format(path=str(target))])
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    nb.run_all()
    nb.wait_all_executed(timeout=120_000)
    return RunAllPage(lab, nb, target)


@pytest.fixture(scope="module")
def run_all_page(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("save-png-run-all"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(run_all_page, request):
    yield from check_each_test(run_all_page, request)


def test_run_all_writes_the_png_of_the_next_cell(run_all_page):
    state = run_all_page
    errors = state.nb.error_outputs()
    assert not errors, f"Run All showed errors: {errors}"
    data = wait_for_file(state.target, 30, "save_png under Run All")
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), "the file is not a PNG"
    canvas = state.page.locator("canvas.cw-plot").first
    canvas.scroll_into_view_if_needed()
    css_width = canvas.evaluate("c => c.getBoundingClientRect().width")
    width, height = Image.open(io.BytesIO(data)).size
    # the figure at scale 2: twice the plot's CSS width (within a few px of rounding), taller than wide/4
    assert abs(width - 2 * css_width) <= 4, (width, css_width)
    assert height > width / 4
    state.lab.screenshot("save-png-run-all", full_page=False)
