"""SweepView without a browser: bad arguments, the grid it draws, what a click opens.
The real-browser test is tests/browser/test_sweep_view.py."""

import html
import re

import numpy as np
import pytest
from workloads import two_phases

import campaign_widget as cw
from campaign_widget.formatting import format_reading, js_number_key
from campaign_widget.static_figure.style import text_width_px
from campaign_widget.views.sweep import _TITLE_PX, _TOOLTIP_CHARS, BOOLEAN_COLORS, OUTLINE


@pytest.fixture(scope="module")
def result():
    return cw.sweep(
        two_phases(), progress=False, tiles=[1, 2, 4, 8], pipeline=[True], policy=list(cw.POLICIES), depth=[1, 2]
    )


def test_bad_arguments_are_named(result):
    with pytest.raises(ValueError, match="x='tile' is not an axis of this sweep; axes: tiles, pipeline, policy, depth"):
        cw.SweepView(result, x="tile", y="policy")
    with pytest.raises(ValueError, match="x and y are both 'tiles'"):
        cw.SweepView(result, x="tiles", y="tiles")
    with pytest.raises(ValueError, match="color='speed' is not a result column; columns: makespan, speedup"):
        cw.SweepView(result, x="tiles", y="policy", color="speed")
    zipped = cw.sweep(two_phases(), progress=False, zip=True, tiles=[1, 2], depth=[1, 2])
    with pytest.raises(ValueError, match="zip=True"):
        cw.SweepView(zipped, x="tiles", y="depth")
    with pytest.raises(TypeError, match="SweepView takes a SweepResult"):
        cw.SweepView({"makespan": [1]}, x="tiles", y="policy")


def test_the_grid_is_the_slice_at_the_dropdowns(result):
    view = cw.SweepView(result, x="tiles", y="policy")
    best = result.configuration(result.best())
    assert view.dropdowns["depth"].value == [1, 2].index(best["depth"])  # starts at the best configuration
    for depth_index, depth in enumerate([1, 2]):
        view.dropdowns["depth"].value = depth_index
        for r, policy in enumerate(cw.POLICIES):
            for c, tiles in enumerate([1, 2, 4, 8]):
                want = two_phases().schedule(tiles=tiles, pipeline=True, policy=policy, depth=depth).makespan
                assert view.heatmap.color[r, c] == want
    view.color_dropdown.value = "feasible"
    assert set(np.unique(view.heatmap.color)) == {0.0, 1.0}


def test_a_click_opens_the_configurations_diagram(result):
    view = cw.SweepView(result, x="tiles", y="policy")
    view._on_click(view.heatmap, {"event": "element_click", "data": {"rowNum": 0, "columnNum": 2}})
    cfg = result.configuration(view.selected_index)
    assert cfg["tiles"] == 4 and cfg["policy"] == "none"
    want = two_phases().schedule(tiles=4, pipeline=True, policy="none", depth=cfg["depth"]).makespan
    assert view.diagram.makespan == want
    assert view.diagram_box.children == (view.diagram,)
    view._on_hover(view.heatmap, {"event": "hover", "data": {"rowNum": 0, "columnNum": 2}})
    assert f"makespan {format_reading(want, 's')}" in view.hover_readout.value
    assert "feasible no" in view.hover_readout.value
    # the tooltip: the same row in lines no wider than the figure
    body = re.search(r"<div[^>]*>(.*)</div>", view.hover_tooltip.value).group(1)
    lines = [html.unescape(line) for line in body.split("<br>")]
    assert lines == view.describe_lines(view.selected_index)
    assert lines[0] == f"configuration #{view.selected_index}" and any("feasible no" in s for s in lines), lines
    assert max(len(s) for s in lines) <= _TOOLTIP_CHARS and sum(bool(s) for s in lines) >= 4, lines
    # an infeasible configuration (policy none oversubscribes memory) is faster than nothing (issue 29)
    assert "infeasible" in view.describe(view.selected_index) and " faster" not in view.describe(view.selected_index)


def _px(text_px: str) -> float:
    assert text_px.endswith("px"), text_px
    return float(text_px[:-2])


def test_the_live_heatmap_reads_in_units_with_its_titles_beside_the_ticks(bandwidth_sweep):
    view = cw.SweepView(bandwidth_sweep, x="tiles", y="peak_bandwidth")
    x_axis, y_axis, bar = view.figure.axes
    assert list(y_axis.scale.domain) == ["100 GB/s", "400 GB/s", "1.6 TB/s"]  # not 1e+11 … 1.6e+12
    assert list(x_axis.scale.domain) == ["1", "2", "4", "8"]
    # the y title's baseline is beyond the widest tick label (bqplot: 6 px tick + 3 px padding), and the
    # left margin holds its glyphs too
    widest = max(text_width_px(s, 12) for s in y_axis.scale.domain)
    offset = _px(y_axis.label_offset)
    assert offset >= 9 + widest + 4, (offset, widest)
    assert view.figure.fig_margin["left"] >= offset + 0.75 * _TITLE_PX
    assert _px(x_axis.label_offset) >= 9 + 12 + 0.75 * _TITLE_PX  # below the x tick labels
    # the colour bar: ticks chosen here, each labelled with its unit, keyed as the browser writes the number
    values = list(bar.tick_values)
    assert len(values) >= 2 and set(bar.tick_labels) == {js_number_key(v) for v in values}
    labels = [bar.tick_labels[js_number_key(v)] for v in values]
    assert all(label.endswith(" ms") for label in labels), labels
    # bqplot puts the bar's labels from half the right margin + 9 px: the margin holds the widest
    right = view.figure.fig_margin["right"]
    assert right / 2 + 9 + max(text_width_px(s, 12) for s in labels) <= right, (right, labels)
    # title, axis titles and ticks in the page's text colour, not bqplot's dark-theme orange
    assert "--jp-content-font-color" in view.figure.title_style["fill"]
    for axis in (x_axis, y_axis):
        assert "--jp-content-font-color" in axis.label_color and "--jp-content-font-color" in axis.tick_style["fill"]
    assert view.figure.title == "makespan over tiles × peak_bandwidth"
    assert "makespan" in view.best_label.value and " ms" in view.best_label.value


def test_the_live_heatmap_shows_a_boolean_column_as_two_named_colours(bandwidth_sweep):
    view = cw.SweepView(bandwidth_sweep, x="tiles", y="peak_bandwidth")
    view.color_dropdown.value = "feasible"
    scale, bar = view.heatmap.scales["color"], view.color_axis
    assert (scale.min, scale.max) == (-0.5, 1.5)  # no and yes each in the middle of its half
    colors = list(scale.colors)
    half = len(colors) // 2
    assert colors[:half] == [BOOLEAN_COLORS[0]] * half and colors[half:] == [BOOLEAN_COLORS[1]] * half
    assert list(bar.tick_values) == [0.0, 1.0] and bar.tick_labels == {"0": "no", "1": "yes"}
    view.color_dropdown.value = "makespan"  # back to a continuous scale and numbers
    assert list(scale.colors) == [] and all(s.endswith(" ms") for s in bar.tick_labels.values())


def test_the_live_heatmap_outlines_the_clicked_cell(result):
    view = cw.SweepView(result, x="tiles", y="policy")
    assert not view.selection_outline.visible
    view._on_click(view.heatmap, {"event": "element_click", "data": {"rowNum": 1, "columnNum": 3}})
    assert view.selection_outline.visible and [list(c) for c in view.selection_outline.selected] == [[1, 3]]
    assert view.selection_outline.selected_style["stroke"] == OUTLINE
    # the outline lets the mouse through to the heatmap below
    assert view.selection_outline.selected_style["pointer-events"] == "none"
    assert view.selection_outline.unselected_style["pointer-events"] == "none"
    depth = view.dropdowns["depth"]
    depth.value = 1 - depth.value  # another slice: the clicked configuration is not in it
    assert not view.selection_outline.visible
    depth.value = 1 - depth.value
    assert view.selection_outline.visible


@pytest.mark.parametrize(
    "value, js",
    [(1e11, "100000000000"), (1.6e12, "1600000000000"), (1e21, "1e+21"), (2.5e-7, "2.5e-7"), (1e-6, "0.000001")]
    + [(0.0021, "0.0021"), (-3.25, "-3.25"), (0.1 + 0.2, "0.30000000000000004"), (0.0, "0"), (1.5e22, "1.5e+22")],
)
def test_js_number_key_is_javascripts_string_of_the_number(value, js):
    assert js_number_key(value) == js


# -- the static heatmap (static_figure/heatmap.py) ---------------------------------------------------


@pytest.fixture(scope="module")
def bandwidth_sweep():
    w = two_phases(machine=cw.presets.machine("h100-sxm"), scale=1e-3)
    return cw.sweep(
        w,
        progress=False,
        tiles=[1, 2, 4, 8],
        pipeline=[True],
        policy=["none", "throttle"],
        peak_bandwidth=[1e11, 4e11, 1.6e12],
    )


def _texts_inside(fig):
    from matplotlib.text import Text

    fig.canvas.draw()
    out = []
    for t in fig.findobj(Text):
        if t.get_visible() and t.get_text():
            b = t.get_window_extent()
            if b.x0 < -0.5 or b.y0 < -0.5 or b.x1 > fig.bbox.width + 0.5 or b.y1 > fig.bbox.height + 0.5:
                out.append(t.get_text())
    return out


@pytest.mark.parametrize("width", [3.5, 6.0])
def test_the_static_heatmap_reads_in_units_and_keeps_its_text_apart_and_inside(bandwidth_sweep, width):
    from campaign_widget.static_figure.heatmap import render_sweep_heatmap

    fig = render_sweep_heatmap(bandwidth_sweep, x="tiles", y="peak_bandwidth", width=width, dpi=100)
    ax, bar = fig.axes
    assert [t.get_text() for t in ax.get_yticklabels()] == ["100 GB/s", "400 GB/s", "1.6 TB/s"]
    assert not _texts_inside(fig)
    ticks = [t.get_window_extent() for t in ax.get_yticklabels()]
    assert ax.yaxis.label.get_window_extent().x1 <= min(b.x0 for b in ticks)  # the title beside, not over
    labels = [t.get_text() for t in bar.get_yticklabels()]
    assert labels and all(label.endswith(" ms") for label in labels), labels  # with the unit
    assert any(t.get_gid() == "cw-best" and "makespan" in t.get_text() and " ms" in t.get_text() for t in fig.texts)


def test_a_boolean_colour_is_two_named_colours_and_a_chosen_cell_is_outlined(bandwidth_sweep, tmp_path):
    from campaign_widget.static_figure.heatmap import render_sweep_heatmap, save_sweep_heatmap

    r = bandwidth_sweep
    chosen = int(np.flatnonzero((r["tiles"] == 2) & (r["policy"] == r.row(r.best())["policy"]))[0])
    fig = render_sweep_heatmap(r, x="tiles", y="peak_bandwidth", color="feasible", selected=chosen)
    ax, bar = fig.axes
    assert [t.get_text() for t in bar.get_yticklabels()] == ["no", "yes"]
    (outline,) = [p for p in ax.patches if p.get_gid() == "selected"]
    assert outline.get_xy() == (1 - 0.5, list(r.axes["peak_bandwidth"]).index(r.row(chosen)["peak_bandwidth"]) - 0.5)
    assert save_sweep_heatmap(tmp_path / "h.pdf", r, x="tiles", y="policy", theme="dark").read_bytes()[:5] == b"%PDF-"
    with pytest.raises(ValueError, match="x='tile' is not an axis"):
        render_sweep_heatmap(r, x="tile", y="policy")
