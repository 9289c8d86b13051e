"""The sweep heatmap's one owner (``sweep_grid``) and its canvas view (``SweepHeatmap``) without a
browser: the canvas view, the static heatmap and the bqplot ``SweepView`` draw the same cells in the
same colours with the same unit labels; the view's selects, hover and click; bad input refused; and
``SweepView`` in marimo (the heatmap over the clicked configuration's diagram, linked in the kernel).
The real-browser test is tests/browser/test_marimo_sweep.py."""

import importlib
import time

import numpy as np
import pytest
from workloads import two_phases

import campaign_widget as cw
from campaign_widget.figures.sweep_grid import PENDING_COLOR, YES_COLOR, no_color, sweep_grid
from campaign_widget.views.buffers import arrays_to_json
from campaign_widget.views.sweep_canvas import SweepHeatmap


@pytest.fixture(scope="module")
def result():
    w = two_phases(machine=cw.presets.machine("h100-sxm"), scale=1e-3)
    return cw.sweep(
        w,
        progress=False,
        tiles=[1, 2, 4, 8],
        pipeline=[True],
        policy=["none", "throttle"],
        peak_bandwidth=[1e11, 4e11, 1.6e12],
    )


def hexes(rgb):
    return {f"#{r:02x}{g:02x}{b:02x}" for r, g, b in np.asarray(rgb).reshape(-1, 3).tolist()}


def test_the_synced_grid_is_the_shared_functions(result):
    plot = SweepHeatmap(result, x="tiles", y="peak_bandwidth")
    g = sweep_grid(result, x="tiles", y="peak_bandwidth", positions=plot.positions)
    assert np.array_equal(plot.grid["rgb"], g.rgb("light")) and np.array_equal(plot.grid["rgb_dark"], g.rgb("dark"))
    assert np.array_equal(plot.grid["indices"], g.indices)
    assert plot.grid["y_labels"] == g.y_labels == ["100 GB/s", "400 GB/s", "1.6 TB/s"]  # ticks with units
    assert [label for _, label in plot.grid["ticks"]] == [label for _, label in g.ticks]
    assert all(label.endswith(" ms") for _, label in g.ticks), g.ticks
    for s, (value, _) in zip((s for s, _ in plot.grid["ticks"]), g.ticks):  # each tick where its value is
        assert s == pytest.approx((value - g.lo) / (g.hi - g.lo))
    # the best configuration is marked where it is on the grid, and it starts at the best's positions
    best = result.best()
    assert tuple(plot.grid["best_cell"]) == tuple(np.argwhere(g.indices == best)[0]) == g.best_cell
    assert "best" in plot.grid["best_line"] and " ms" in plot.grid["best_line"]
    # every array travels as a binary buffer
    wire = arrays_to_json(plot.grid)
    assert all(isinstance(wire[k]["buffer"], memoryview) for k in ("rgb", "rgb_dark", "indices", "have", "bar_rgb"))


def test_the_colours_are_the_colour_rule_of_the_static_heatmap_and_the_bqplot_view(result):
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    from campaign_widget.static_figure.heatmap import render_sweep_heatmap

    g = sweep_grid(result, x="tiles", y="peak_bandwidth")
    # viridis over [min, max] as matplotlib reads it (the static heatmap's rule before it drew from here)
    want = np.rint(np.asarray(colormaps["viridis"](Normalize(g.lo, g.hi)(g.values)))[..., :3] * 255).astype(np.uint8)
    assert np.array_equal(g.rgb(), want)
    fig = render_sweep_heatmap(result, x="tiles", y="peak_bandwidth", dpi=50)
    (image,) = fig.axes[0].get_images()
    assert np.array_equal(image.get_array(), g.rgb())
    view = cw.SweepView(result, x="tiles", y="peak_bandwidth")  # the bqplot view colours the same cells
    assert np.array_equal(view.indices(), g.indices) and np.array_equal(view.heatmap.color, g.values)


def test_a_boolean_column_is_two_named_colours_and_pending_cells_are_grey():
    r = cw.sweep(two_phases(), progress=False, tiles=[1, 2, 4, 8], pipeline=[True], policy=["none", "throttle"])
    g = sweep_grid(r, x="tiles", y="policy", color="feasible")
    assert g.boolean and [label for _, label in g.ticks] == ["no", "yes"]
    assert hexes(g.rgb("light")) == {YES_COLOR, no_color("light")}
    assert hexes(g.rgb("dark")) == {YES_COLOR, no_color("dark")} and no_color("dark") != no_color("light")
    plot = SweepHeatmap(r, x="tiles", y="policy", color="feasible")
    assert plot.grid["swatches"]["dark"] == [["no", no_color("dark")], ["yes", YES_COLOR]]
    r._have[0] = False  # as a result still filling in
    try:
        g = sweep_grid(r, x="tiles", y="policy", color="makespan")
        assert hexes(g.rgb()[g.indices == 0]) == {PENDING_COLOR}
        assert PENDING_COLOR not in hexes(g.rgb()[g.indices != 0])
        plot = SweepHeatmap(r, x="tiles", y="policy")
        plot.set_state({"selected": 0})  # a click on a cell not computed yet is refused
        assert plot.selected is None
    finally:
        r._have[0] = True


def test_a_click_selects_and_the_hover_words_the_row(result):
    plot = SweepHeatmap(result, x="tiles", y="peak_bandwidth")
    i = int(plot.grid["indices"][1, 2])
    plot.set_state({"selected": i})  # as the view writes a click
    assert plot.selected == i and plot.cell_of(i) == (1, 2)
    plot.set_state({"hovered": i})
    rows = dict(map(tuple, plot.hovered_rows[1:]))
    assert plot.hovered_rows[0][0] == f"configuration #{i}"
    assert rows["tiles"] == "4" and rows["peak_bandwidth"] == "400 GB/s" and rows["makespan"].endswith(" ms")
    plot.set_state({"hovered": None})
    assert plot.hovered_rows == []
    # the view's selects: another colour column, another position of an other axis
    plot.set_state({"color": "feasible"})
    assert plot.grid["boolean"] and plot.grid["ticks"] == [[0.0, "no"], [1.0, "yes"]]
    other = 1 - plot.positions["policy"]
    plot.set_state({"positions": {"pipeline": 0, "policy": other}})
    assert plot.positions["policy"] == other
    assert all(
        result.configuration(int(k))["policy"] == result.axes["policy"][other] for k in plot.grid["indices"].flat
    )


def test_bad_input_is_refused(result):
    with pytest.raises(ValueError, match="x='tile' is not an axis of this sweep; axes: tiles, pipeline"):
        SweepHeatmap(result, x="tile", y="policy")
    with pytest.raises(ValueError, match="x and y are both 'tiles'"):
        SweepHeatmap(result, x="tiles", y="tiles")
    with pytest.raises(ValueError, match="color='speed' is not a result column"):
        SweepHeatmap(result, x="tiles", y="policy", color="speed")
    with pytest.raises(ValueError, match=r"positions\['policy'\]=5 must be an index 0 … 1"):
        SweepHeatmap(result, x="tiles", y="peak_bandwidth", positions={"policy": 5})
    with pytest.raises(ValueError, match="positions names 'tiles', not one of the other axes"):
        SweepHeatmap(result, x="tiles", y="peak_bandwidth", positions={"tiles": 0})
    with pytest.raises(TypeError, match="SweepHeatmap takes a SweepResult"):
        SweepHeatmap({"makespan": [1]}, x="tiles", y="policy")
    with pytest.raises(TypeError):
        SweepHeatmap(result, x="tiles", y="policy", colour="makespan")
    plot = SweepHeatmap(result, x="tiles", y="peak_bandwidth")
    before = (plot.color, dict(plot.positions), plot.selected)
    for bad in ({"color": "speed"}, {"positions": {"policy": 9}}, {"selected": len(result)}, {"selected": -1}):
        plot.set_state(bad)  # the view is sent the stored values back; nothing changes
    assert (plot.color, dict(plot.positions), plot.selected) == before
    plot.set_state({"grid": {}})  # computed in the kernel: not the view's to write
    assert plot.grid["y_labels"] == ["100 GB/s", "400 GB/s", "1.6 TB/s"]


# -- SweepView in marimo -----------------------------------------------------------------------------


@pytest.fixture
def marimo():
    mo = pytest.importorskip("marimo")
    importlib.import_module("marimo._output.formatting").get_formatter(object())
    return mo


def test_sweep_view_displays_in_marimo_as_the_heatmap_over_the_clicked_diagram(marimo, result):
    view = cw.SweepView(result, x="tiles", y="peak_bandwidth")
    html = view._display_()
    plot, diagram = view.sweep_plot, view.sweep_diagram
    assert html.text.count("<marimo-anywidget") == 2
    assert plot._model_id in html.text and diagram._model_id in html.text
    assert view.heatmap.model_id not in html.text  # the bqplot heatmap needs ipywidgets' front end
    best = result.best()
    assert plot.selected == best and diagram.makespan == result.row(best)["makespan"]
    for i in (0, 5, 13, len(result) - 1):  # a click re-points the diagram below at that configuration
        plot.set_state({"selected": i})
        assert diagram.makespan == pytest.approx(result.row(i)["makespan"], rel=1e-12)
        assert diagram.title.startswith(f"configuration #{i}:") and view.selected_index == i
    assert view._display_().text.count("<marimo-anywidget") == 2 and view.sweep_plot is plot  # made once


def test_the_heatmaps_selects_and_the_views_dropdowns_are_one_value(marimo, result):
    view = cw.SweepView(result, x="tiles", y="peak_bandwidth")
    view._display_()
    plot = view.sweep_plot
    other = 1 - view.dropdowns["policy"].value
    plot.set_state({"positions": {"pipeline": 0, "policy": other}})
    assert view.dropdowns["policy"].value == other
    view.dropdowns["policy"].value = 1 - other
    assert plot.positions["policy"] == 1 - other
    view.color_dropdown.value = "feasible"
    assert plot.color == "feasible" and plot.grid["boolean"]
    plot.set_state({"color": "speedup"})
    assert view.color_dropdown.value == "speedup"


def test_a_live_result_is_redrawn_as_it_fills_in():
    r = cw.start_sweep(two_phases(), tiles=range(1, 13), pipeline=[True], policy=["none", "throttle"])
    plot = SweepHeatmap(r, x="tiles", y="policy")
    r.wait(60)
    deadline = time.monotonic() + 60  # the result says done, then calls its listeners on the sweep's thread
    while not plot.status.endswith("(done)") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert r.done and plot.status == f"{len(r)} / {len(r)} configurations (done)"
    g = sweep_grid(r, x="tiles", y="policy", positions=plot.positions)
    assert np.array_equal(plot.grid["rgb"], g.rgb()) and PENDING_COLOR not in hexes(plot.grid["rgb"])
    assert plot.grid["best_cell"] == list(g.best_cell)
