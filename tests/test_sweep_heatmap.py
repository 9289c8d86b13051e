"""SweepView without a browser: bad arguments, the grid it draws, what a click opens.
The real-browser test is tests/browser/test_sweep_view.py."""

import numpy as np
import pytest
from workloads import two_phases

import campaign_widget as cw


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
    assert f"makespan {want:.4g}" in view.hover_readout.value and "feasible False" in view.hover_readout.value


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
