"""Many intervals: with 10^5 tile intervals the view merges what falls below a pixel,
stays responsive to the wheel, and zooming brings the detail back."""

from __future__ import annotations

import pytest
from labdriver import LabPage, Notebook, check_each_test, module_page, read_canvas, write_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-many-intervals.ipynb"
RENDER_TIMEOUT_MS = 60_000
# Two phases, 50,000 tiles each, pipelined: 10^5 tile intervals, almost all narrower than a pixel.
DIAGRAM_CELL = (
    "import campaign_widget as cw\n"
    "w = cw.Workload([cw.Phase('A', duration=3, compute_util=.7, memory_util=.1),\n"
    "                 cw.Phase('B', duration=10, compute_util=.2, memory_util=.9, after=['A'])])\n"
    "big = cw.CampaignDiagram(w, tiles=50_000, pipeline=True, policy='dilate+throttle')\n"
    "print('PIECES', big.scene['n'])\n"
    "big"
)


class ManyIntervals:
    def __init__(self, lab: LabPage, nb: Notebook, pieces: int):
        self.lab, self.page, self.nb, self.pieces = lab, lab.page, nb, pieces
        self.canvas = self.page.locator(".cw-root canvas.cw-plot").first
        self.failed = False

    def drawn(self) -> tuple[int, bool]:
        return int(self.canvas.get_attribute("data-pieces-drawn")), self.canvas.get_attribute(
            "data-aggregated"
        ) == "true"


def _open(lab: LabPage, jupyter_lab) -> ManyIntervals:
    write_notebook(jupyter_lab.root_dir, NOTEBOOK, "# Browser test: many intervals")
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    out = nb.run_cell(nb.append_code_cell(DIAGRAM_CELL), timeout=120)
    assert "Traceback" not in out, f"the diagram cell failed:\n{out}"
    pieces = int(out.split("PIECES", 1)[1].split()[0])
    assert pieces >= 100_000, f"the workload should make at least 10^5 pieces, made {pieces}"
    state = ManyIntervals(lab, nb, pieces)
    state.canvas.wait_for(state="attached", timeout=RENDER_TIMEOUT_MS)
    state.canvas.scroll_into_view_if_needed()
    lab.page.wait_for_function(
        "c => c.dataset.piecesDrawn !== undefined && +c.dataset.t1 > 0",
        arg=state.canvas.element_handle(),
        timeout=RENDER_TIMEOUT_MS,
    )
    lab.errors.assert_clean(when="while drawing 10^5 intervals")
    return state


@pytest.fixture(scope="module")
def many(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("many"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(many, request):
    yield from check_each_test(many, request)


def zoom_in(many: ManyIntervals, shot, target: float) -> None:
    """Wheel notches around the plot's middle until the visible span is below ``target``."""
    page, canvas = many.page, many.canvas
    page.mouse.move(
        shot.view_x + (shot.plot_left + shot.plot_right) / 2, shot.view_y + (shot.plot_top + shot.plot_bottom) / 2
    )
    for _ in range(20):  # each notch waits for its redraw, as a person's wheel would
        before = canvas.get_attribute("data-t1")
        page.mouse.wheel(0, -400)
        page.wait_for_function("([c, t1]) => c.dataset.t1 !== t1", arg=[canvas.element_handle(), before], timeout=5_000)
        if float(canvas.get_attribute("data-t1")) - float(canvas.get_attribute("data-t0")) < target:
            break


def test_sub_pixel_pieces_are_merged_and_zooming_brings_them_back(many):
    page, canvas = many.page, many.canvas
    drawn_full, aggregated_full = many.drawn()
    shot = read_canvas(canvas)
    width_px = shot.plot_right - shot.plot_left
    assert aggregated_full, "10^5 pieces at full view should be merged per pixel column"
    assert drawn_full < many.pieces / 10, f"drew {drawn_full} of {many.pieces} pieces at full view"
    assert drawn_full <= 4 * width_px * 2, f"drew {drawn_full} pieces for a {width_px:.0f}-px-wide plot"
    many.lab.screenshot("01-full-view", full_page=False)

    zoom_in(many, shot, (shot.t1 - shot.t0) / 1000)
    zoomed = read_canvas(canvas)
    drawn_zoomed, aggregated_zoomed = many.drawn()
    visible_share = (zoomed.t1 - zoomed.t0) / (shot.t1 - shot.t0)
    assert not aggregated_zoomed, (
        f"zoomed to {visible_share:.2e} of the time axis, the view still merges ({drawn_zoomed} pieces drawn)"
    )
    assert 0 < drawn_zoomed < many.pieces * visible_share * 10 + 50, (
        f"{drawn_zoomed} pieces drawn for {visible_share:.2e} of the axis"
    )
    many.lab.screenshot("02-zoomed-in", full_page=False)

    # Double-click resets to the merged full view.
    page.mouse.dblclick(
        shot.view_x + (shot.plot_left + shot.plot_right) / 2, shot.view_y + (shot.plot_top + shot.plot_bottom) / 2
    )
    page.wait_for_function(
        "([c, t1]) => Math.abs(+c.dataset.t1 - t1) < 1e-9 * t1 && +c.dataset.t0 === 0",
        arg=[canvas.element_handle(), shot.t1],
        timeout=10_000,
    )
    assert many.drawn() == (drawn_full, True)


def _kernel_numbers(many: ManyIntervals, code: str) -> list[float]:
    out = many.nb.run_cell(many.nb.append_code_cell(code), timeout=120)
    assert "Traceback" not in out, out
    return [float(v) for v in out.split("NUMBERS", 1)[1].split()]


def test_above_the_detail_limit_the_kernel_sends_the_window_it_is_asked_for(many):
    """Kernel-side aggregation (scene_pixels.py): above LOD_ABOVE pieces the view is sent its window
    merged to pixel columns; a zoom writes time_window and the kernel sends that window in detail."""
    canvas = many.canvas
    draws = int(canvas.get_attribute("data-draws"))
    try:
        sent, total = _kernel_numbers(
            many,
            (
                "import campaign_widget.views.diagram as cwm\n"
                "cwm.LOD_ABOVE = 20_000\n"
                "big.time_window = []\n"
                "big.tiles = 50_001\n"
                "print('NUMBERS', big.scene['n'], len(big._scene))"
            ),
        )
        assert total >= 100_000 and sent < total / 10, f"sent {sent:.0f} of {total:.0f} pieces at full view"
        many.page.wait_for_function(
            "([c, n]) => +c.dataset.draws > n", arg=[canvas.element_handle(), draws], timeout=30_000
        )
        canvas.scroll_into_view_if_needed()  # running the cell scrolled the notebook to it
        shot = read_canvas(canvas)
        zoom_in(many, shot, (shot.t1 - shot.t0) / 1000)
        many.page.wait_for_timeout(1_000)  # the view writes its window at most every 200 ms
        t0, t1, n, inside = _kernel_numbers(
            many,
            (
                "import numpy as np\n"
                "t0, t1 = big.time_window\n"
                "s = big._scene\n"
                "print('NUMBERS', t0, t1, big.scene['n'], int(np.count_nonzero((s.x1 > t0) & (s.x0 < t1))))"
            ),
        )
        assert n == inside > 0, f"the kernel sent {n:.0f} pieces for the window holding {inside:.0f}"
        zoomed = read_canvas(canvas)
        assert zoomed.t0 >= t0 - 1e-9 * total and zoomed.t1 <= t1 + 1e-9 * total  # the view shows inside it
        many.page.wait_for_function(
            "c => c.dataset.aggregated === 'false' && +c.dataset.piecesDrawn > 0",
            arg=canvas.element_handle(),
            timeout=10_000,
        )
        many.lab.screenshot("03-kernel-window-detail", full_page=False)
    finally:
        many.nb.run_cell(many.nb.append_code_cell("cwm.LOD_ABOVE = 200_000\nbig.time_window = []"), timeout=60)
