"""SweepView of a transformer's decode sweep over batch × kv_len in real JupyterLab + headless Chromium:
the configurations whose footprint is more than the machine's 80 GB are outlined in the warning red in
the pixels bqplot drew, the others are not, every cell keeps its own colour under the outline, and the
line under the best one says what the outline means (docs/views/sweep-view.md#configurations-that-do-not-fit).

Which configurations do not fit comes from ``cw.transformer.footprint`` asked here, never from the view.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from labdriver import check_each_test, hex_rgb, module_page, open_with_cell
from PIL import Image

import campaign_widget as cw
from campaign_widget.figures.sweep_grid import no_color

pytestmark = pytest.mark.browser

NOTEBOOK = "browser-test-sweep-unfit.ipynb"
TIMEOUT_MS = 30_000
BATCHES, KV_LENS = [1, 16, 64, 128], [512, 8192, 32768]
MACHINE = dict(peak_compute=989.5e12, peak_bandwidth=3.35e12, capacity=80e9)
# No blank lines: labdriver's read-back of the typed cell doubles them.
CELL = f"""import campaign_widget as cw
m = cw.Machine(**{MACHINE!r})
w = cw.Workload.from_transformer("llama-2-7b", batch=8, seq=1024, stage="decode", kv_len=4096, machine=m)
result = cw.sweep(w, progress=False, batch={BATCHES!r}, kv_len={KV_LENS!r})
cw.SweepView(result, x="batch", y="kv_len")"""
SAMPLES = 24  # points along each edge
MAIN_CELLS = "(root) => [...root.querySelector('g.heatmaprow').parentNode.querySelectorAll('rect.heatmapcell')]"


def unfit() -> np.ndarray:
    """Rows kv_len, columns batch."""
    return np.array(
        [
            [
                not cw.transformer.footprint(
                    "llama-2-7b", batch=b, seq=1024, kv_len=k, stage="decode", machine=cw.Machine(**MACHINE)
                ).fits
                for b in BATCHES
            ]
            for k in KV_LENS
        ]
    )


class Page:
    def __init__(self, lab):
        self.lab, self.page, self.failed = lab, lab.page, False
        self.view = self.page.locator(".cw-sweep").first

    def cell(self, row: int, col: int):
        return self.view.locator("g.heatmaprow").nth(row).locator("rect.heatmapcell").nth(col)

    def edge_and_inside(self, row: int, col: int) -> tuple[np.ndarray, np.ndarray]:
        """RGB along the four edges just inside the cell (their middle halves), and inside it (left of its
        centre, where the best configuration's ◆ is not)."""
        self.cell(row, col).scroll_into_view_if_needed()
        self.page.mouse.move(2, 2)
        self.page.wait_for_timeout(300)
        box = self.cell(row, col).bounding_box()
        shot = np.asarray(Image.open(io.BytesIO(self.page.screenshot())).convert("RGB"), dtype=np.int16)
        scale = shot.shape[1] / self.page.viewport_size["width"]
        x0, y0, w, h = box["x"], box["y"], box["width"], box["height"]
        inset = 0.75
        along = np.linspace(0.25, 0.75, SAMPLES)
        points = [(x0 + w * a, y0 + inset) for a in along] + [(x0 + w * a, y0 + h - inset) for a in along]
        points += [(x0 + inset, y0 + h * a) for a in along] + [(x0 + w - inset, y0 + h * a) for a in along]
        edges = np.array([shot[int(y * scale), int(x * scale)] for x, y in points])
        return edges, shot[int((y0 + h / 2) * scale), int((x0 + w * 0.15) * scale)]


def _open(lab, jupyter_lab) -> Page:
    open_with_cell(lab, jupyter_lab, NOTEBOOK, "# Browser test: what does not fit", CELL, what="the sweep", timeout=90)
    state = Page(lab)
    lab.page.wait_for_function(
        f"() => document.querySelector('.cw-sweep g.heatmaprow') && "
        f"({MAIN_CELLS})(document.querySelector('.cw-sweep')).length === {len(BATCHES) * len(KV_LENS)}",
        timeout=TIMEOUT_MS,
    )
    lab.errors.assert_clean(when="while drawing the sweep heatmap")
    return state


@pytest.fixture(scope="module")
def unfit_page(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("sweep-unfit"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(unfit_page, request):
    yield from check_each_test(unfit_page, request)


def _neighbours(boxes: dict, row: int, col: int) -> list:
    """The cells across the top, bottom, left and right edges of (row, col) on screen (None: the plot's
    edge), found by where the cells are drawn."""
    x, y, w, h = (boxes[row, col][k] for k in ("x", "y", "width", "height"))
    near = lambda a, b: abs(a - b) < 2  # noqa: E731

    def across(dx: float, dy: float):
        return next((rc for rc, b in boxes.items() if near(b["x"], x + dx * w) and near(b["y"], y + dy * h)), None)

    return [across(0, -1), across(0, 1), across(-1, 0), across(1, 0)]


def test_the_cells_that_do_not_fit_are_outlined_red_and_only_those(unfit_page):
    s = unfit_page
    expected = unfit()
    assert expected.any() and not expected.all()
    red = np.array(hex_rgb(no_color("light")))
    s.lab.screenshot("sweep-unfit", full_page=False)
    boxes = {rc: s.cell(*rc).bounding_box() for rc in np.ndindex(expected.shape)}
    for row, col in np.ndindex(expected.shape):
        edges, inside = s.edge_and_inside(row, col)
        where = f"kv_len {KV_LENS[row]}, batch {BATCHES[col]}"
        # an edge is red when this cell or the one across it does not fit (both outlines run along it)
        for k, (name, other) in enumerate(zip(("top", "bottom", "left", "right"), _neighbours(boxes, row, col))):
            share = float((np.abs(edges[k * SAMPLES : (k + 1) * SAMPLES] - red).max(axis=1) <= 60).mean())
            if expected[row, col] or (other is not None and expected[other]):
                assert share >= 0.3, f"{where}: its {name} edge should be outlined red, is red at {share:.0%}"
            else:
                assert share <= 0.1, f"{where}: its {name} edge should not be red, is red at {share:.0%}"
        assert np.abs(inside - red).max() > 60, f"{where}: the outline covers the cell's own colour"


def test_the_line_under_the_heatmap_says_what_the_outline_means(unfit_page):
    text = unfit_page.view.locator(".cw-sweep-unfit").inner_text()
    assert "does not fit in 80 GB of memory" in text and "outlined red" in text, text
