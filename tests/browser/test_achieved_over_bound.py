"""In a real browser: a measured timeline stacked over its analytical bound (the paper's
Figure 12) — the measured panel shows the idle gap where nothing ran, the bound panel does not, and
the readout names the per-phase gap.

The timeline is made from measured intervals with a known idle gap (9 ms to 10 ms: nothing runs); in
the pixels, the measured panel's plot column inside the gap holds no phase colour, while the column
of a busy instant does.
"""

from __future__ import annotations

import json

import pytest
from labdriver import LabPage, Notebook, check_each_test, module_page, read_canvas, write_code_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-achieved.ipynb"
CELL = """\
import campaign_widget as cw
w = cw.Workload([cw.Phase("A", ops=2e9, bytes=1e8), cw.Phase("B", ops=1e8, bytes=4e8, after=["A"])],
                machine=cw.Machine(1e12, 1e11, time_unit="s"))
timeline = cw.Schedule.from_intervals(w, phase=["A", "B", "A", "B"], start=[0, 0.004, 0.010, 0.020],
                                      end=[0.003, 0.009, 0.014, 0.027], lane=[0, 0, 0, 0])
stack = cw.StackedDiagrams({"measured": timeline, "bound": w})
print("COLORS", json.dumps(list(stack.diagrams["measured"].phase_colors)))
stack"""


class AchievedPage:
    def __init__(self, lab: LabPage, nb: Notebook, colors):
        self.lab, self.page, self.nb, self.colors = lab, lab.page, nb, colors
        self.failed = False


def _open(lab: LabPage, jupyter_lab) -> AchievedPage:
    write_code_notebook(jupyter_lab.root_dir, NOTEBOOK, ["import json\n" + CELL])
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    nb.run_all()
    nb.wait_all_executed(timeout=120_000)
    out = lab.page.locator(".jp-Notebook .jp-CodeCell").first.locator(".jp-OutputArea").inner_text()
    colors = json.loads(out.split("COLORS", 1)[1].strip().splitlines()[0])
    canvases = lab.page.locator("canvas.cw-plot")
    canvases.nth(1).wait_for(state="attached", timeout=60_000)
    for i in range(2):
        lab.page.wait_for_function("c => +c.dataset.draws > 0", arg=canvases.nth(i).element_handle(), timeout=60_000)
    return AchievedPage(lab, nb, colors)


@pytest.fixture(scope="module")
def achieved_page(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("achieved"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(achieved_page, request):
    yield from check_each_test(achieved_page, request)


def _phase_pixels(shot, colors, t):
    x = shot.css_x(t)
    return sum(len(shot.column_hits(c, x)) for c in colors)


def test_the_measured_panel_shows_its_idle_gap_over_the_bound(achieved_page):
    state = achieved_page
    canvases = state.page.locator("canvas.cw-plot")
    canvases.nth(0).scroll_into_view_if_needed()
    measured, bound = read_canvas(canvases.nth(0)), read_canvas(canvases.nth(1))
    assert _phase_pixels(measured, state.colors, 0.0095) == 0, "something is drawn in the idle gap (9-10 ms)"
    assert _phase_pixels(measured, state.colors, 0.012) > 0, "phase A's second interval (10-14 ms) is not drawn"
    assert _phase_pixels(bound, state.colors, 0.001) > 0, "the bound panel draws nothing"
    readout = state.page.locator(".jp-OutputArea").first.inner_text()
    assert "measured over the bound" in readout and "B +8" in readout, readout
    state.lab.screenshot("achieved-over-bound", full_page=False)
