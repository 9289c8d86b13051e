"""A sweep's view in marimo, in a real browser: ``marimo run tests/data/marimo_sweep.py`` shows the
``SweepView`` as the canvas heatmap (``SweepHeatmap``) over the clicked configuration's diagram.

The heatmap draws each cell in the colour the kernel computed (``sweep_grid``); hovering a cell shows
its row in a tooltip; clicking a cell outlines it and re-points the diagram below at that
configuration (its makespan in the diagram's readout); the heatmap's own select moves the other
axis. Expectations come from the app's own result, run in-process by marimo.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest
import test_marimo
from test_marimo import _pixels, _wait_drawn

pytest.importorskip("marimo", reason="marimo is in the test extra: pip install -e '.[test]'")

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "tests" / "data" / "marimo_sweep.py"
HEATMAP = "canvas.cw-sweep-canvas"
DIAGRAM = "canvas.cw-plot:not(.cw-sweep-canvas)"
page_for = test_marimo.page_for  # the marimo app fixture: `marimo run`, headless Chromium


@pytest.fixture(scope="module")
def app_model():
    sys.path.insert(0, str(APP.parent))
    try:
        import marimo_sweep
    finally:
        sys.path.remove(str(APP.parent))
    _, defs = marimo_sweep.app.run()
    return defs


def _cell_point(data, row: int, col: int, fx: float = 0.5, fy: float = 0.5):
    """CSS px in the canvas of a point of cell (row, col): row 0 at the bottom."""
    left, right = float(data["plotLeft"]), float(data["plotRight"])
    top, bottom = float(data["plotTop"]), float(data["plotBottom"])
    nx, ny = int(data["columns"]), int(data["rows"])
    w, h = (right - left) / nx, (bottom - top) / ny
    return left + (col + fx) * w, bottom - (row + 1) * h + fy * h


def _wait_for(check, what: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_the_heatmap_draws_the_kernels_colours_and_a_click_opens_the_cells_diagram(page_for, app_model):
    from campaign_widget.figures.sweep_grid import sweep_grid
    from campaign_widget.formatting import format_quantity

    lab = page_for(APP)
    page = lab.page
    (heatmap,) = _wait_drawn(page, HEATMAP)
    (diagram,) = _wait_drawn(page, DIAGRAM)
    result, view = app_model["result"], app_model["view"]
    grid = sweep_grid(result, x="tiles", y="peak_bandwidth", positions={n: d.value for n, d in view.dropdowns.items()})
    image, data, css_width = _pixels(heatmap)
    lab.screenshot("drawn")
    assert (int(data["rows"]), int(data["columns"])) == grid.values.shape
    assert data["bestCell"] == ",".join(map(str, grid.best_cell))
    scale = image.width / css_width
    rgb = grid.rgb("dark" if data["theme"] == "dark" else "light")
    for row in range(grid.values.shape[0]):
        for col in range(grid.values.shape[1]):
            x, y = _cell_point(data, row, col, 0.25, 0.25)  # off the best cell's diamond and any outline
            got = image.getpixel((int(x * scale), int(y * scale)))[:3]
            assert np.abs(np.array(got, int) - rgb[row, col].astype(int)).max() <= 2, (row, col, got, rgb[row, col])

    # hover: the cell's row in the tooltip
    row, col = next(
        (r, c) for r in range(grid.values.shape[0]) for c in range(grid.values.shape[1]) if (r, c) != grid.best_cell
    )
    i = int(grid.indices[row, col])
    heatmap.scroll_into_view_if_needed()
    box = heatmap.bounding_box()
    x, y = _cell_point(data, row, col)
    page.mouse.move(box["x"] + x, box["y"] + y)
    tooltip = page.locator(".cw-sweep-plot .cw-tooltip").first
    _wait_for(lambda: tooltip.is_visible() and f"configuration #{i}" in tooltip.inner_text(), "no tooltip of the cell")
    assert "makespan" in tooltip.inner_text()

    # click: outlined, and the diagram below draws that configuration (its makespan in the readout)
    readout = page.locator(".cw-root", has=page.locator(DIAGRAM)).locator(".cw-readout").first
    before = readout.inner_text()
    makespan = result.row(i)["makespan"]
    assert makespan != result.row(grid.best)["makespan"]
    want = format_quantity(makespan, result.workload.machine.time_unit, 6)
    page.mouse.click(box["x"] + x, box["y"] + y)
    _wait_for(lambda: heatmap.get_attribute("data-selected-cell") == f"{row},{col}", "the clicked cell is not outlined")
    _wait_for(lambda: want in readout.inner_text(), f"the diagram does not show {want!r}: {readout.inner_text()!r}")
    assert readout.inner_text() != before
    lab.screenshot("clicked")


def test_the_heatmaps_own_select_moves_the_other_axis(page_for, app_model):
    from campaign_widget.figures.sweep_grid import sweep_grid

    lab = page_for(APP)
    page = lab.page
    (heatmap,) = _wait_drawn(page, HEATMAP)
    before, _, _ = _pixels(heatmap)
    select = page.locator("select.cw-sweep-axis-policy")
    chosen = 1 - int(select.input_value())
    select.select_option(str(chosen))
    deadline = time.monotonic() + 30
    while (drawn := _pixels(heatmap))[0].tobytes() == before.tobytes():
        assert time.monotonic() < deadline, "choosing another policy did not redraw the heatmap"
        time.sleep(0.25)
    image, data, css_width = drawn
    view = app_model["view"]
    positions = {**{n: d.value for n, d in view.dropdowns.items()}, "policy": chosen}
    rgb = sweep_grid(app_model["result"], x="tiles", y="peak_bandwidth", positions=positions).rgb(data["theme"])
    scale = image.width / css_width
    for row in range(rgb.shape[0]):
        for col in range(rgb.shape[1]):
            x, y = _cell_point(data, row, col, 0.25, 0.25)
            got = np.array(image.getpixel((int(x * scale), int(y * scale)))[:3], int)
            assert np.abs(got - rgb[row, col].astype(int)).max() <= 2, (row, col, got, rgb[row, col])
