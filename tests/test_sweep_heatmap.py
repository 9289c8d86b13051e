"""SweepView without a browser: bad arguments, the grid it draws, what a click opens.
The real-browser test is tests/browser/test_sweep_view.py."""

import numpy as np
import pytest

import campaign_widget as cw
from campaign_widget import Phase, Workload


def two_phases():
    return Workload(
        [
            Phase("A", duration=3, compute_util=0.7, memory_util=0.6),
            Phase("B", duration=10, compute_util=0.2, memory_util=0.9, after=["A"]),
        ]
    )


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
