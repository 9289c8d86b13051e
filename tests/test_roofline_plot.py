"""The canvas roofline (``RooflinePlot``) without a browser: its synced geometry is roofline.py's
numbers (and the bqplot roofline's), it follows the diagram's peaks, parameters and hover, and its
arrays travel as binary buffers. The view draws these numbers only (js/roofline/draw.js)."""

import numpy as np
import pytest
import traitlets as t

import campaign_widget as cw
from campaign_widget.figures.roofline import roofline_geometry
from campaign_widget.model.roofline import level_roofline, schedule_roofline, workload_roofline
from campaign_widget.views.buffers import from_payload
from campaign_widget.views.roofline_canvas import RooflinePlot

P, BW = 200e9, 50e9


@pytest.fixture
def kernels():
    m = cw.Machine(peak_compute=P, peak_bandwidth=BW, ceilings=(cw.Ceiling("no FMA", compute=P / 2),))
    return cw.Workload(
        [cw.Phase("saxpy", ops=2e9, bytes=24e9), cw.Phase("gemm", ops=400e9, bytes=12.5e9, after=["saxpy"])], machine=m
    )


def hierarchy():
    machine = cw.Machine(peak_compute=100.0, levels={"L1": 200.0, "L2": 40.0, "DRAM": 10.0})
    return cw.Workload(
        [
            cw.Phase("A", ops=300, bytes={"L1": 900, "L2": 200, "DRAM": 20}, duration=8),
            cw.Phase("B", ops=200, bytes={"L2": 40, "DRAM": 60}, after=["A"], duration=9),
        ],
        machine=machine,
    )


def test_geometry_is_the_roofline_model(kernels):
    diagram = cw.CampaignDiagram(kernels)
    g = RooflinePlot(diagram).geometry
    phases = workload_roofline(kernels)
    total = schedule_roofline(kernels, diagram.schedule)
    x_lo, x_hi, y_lo, y_hi = phases.axis_limits(total.intensity)
    assert g["x_range"] == pytest.approx([x_lo, x_hi]) and g["y_range"] == pytest.approx([y_lo, y_hi])
    np.testing.assert_allclose(g["roof_x"], [x_lo, P / BW, x_hi])
    np.testing.assert_allclose(g["roof_y"], [BW * x_lo, P, P])
    np.testing.assert_allclose(g["ridge_x"], [4.0])
    np.testing.assert_allclose(g["phase_x"], [1 / 12, 32])
    np.testing.assert_allclose(g["phase_y"], [2e9 / 0.48, 200e9])
    np.testing.assert_allclose(g["share"], kernels.arrays.duration / diagram.makespan)
    assert g["aggregate"] == pytest.approx([402e9 / 36.5e9, total.achieved[0]])
    assert g["ceilings"] == [
        {"name": "no FMA", "x": pytest.approx([x_lo, 2.0, x_hi]), "y": pytest.approx([BW * x_lo, P / 2, P / 2])}
    ]
    assert g["x_ticks"] == [0.1, 1.0, 10.0, 100.0] and not g["hierarchical"]


def test_the_canvas_and_the_bqplot_roofline_draw_the_same_numbers(kernels):
    explorer = cw.Explorer(kernels)
    view, g = explorer.roofline, RooflinePlot(explorer.diagram).geometry
    np.testing.assert_allclose(view.roof.x, g["roof_x"])
    np.testing.assert_allclose(view.roof.y, g["roof_y"])
    np.testing.assert_allclose(view.points.x, g["phase_x"])
    np.testing.assert_allclose(view.points.y, g["phase_y"])
    assert [view._x.min, view._x.max] == pytest.approx(g["x_range"])
    assert [view._y.min, view._y.max] == pytest.approx(g["y_range"])
    assert [view.aggregate.x[0], view.aggregate.y[0]] == pytest.approx(g["aggregate"])
    assert list(view._x_axis.tick_values) == g["x_ticks"] and list(view._y_axis.tick_values) == g["y_ticks"]


def test_it_follows_the_diagrams_peaks_and_params(kernels):
    diagram = cw.CampaignDiagram(kernels)
    plot = RooflinePlot(diagram)
    diagram.peak_bandwidth = 2 * BW
    np.testing.assert_allclose(plot.geometry["ridge_x"], [P / (2 * BW)])
    assert plot.geometry["roof_x"][1] == pytest.approx(2.0)
    assert plot.readout_lines[0].startswith("schedule: OI")
    parametric = cw.Workload.from_einsums(
        {"up": "H[b,f] = X[b,d] * W1[d,f]"},
        {"b": "B", "d": "D", "f": "4*D"},
        params={"B": 2, "D": 32},
        machine=cw.Machine(peak_compute=1e12, peak_bandwidth=1e10),
    )
    diagram = cw.CampaignDiagram(parametric)
    plot = RooflinePlot(diagram)
    diagram.params = {"B": 64, "D": 32}
    expected = roofline_geometry(diagram.workload, diagram.schedule)
    np.testing.assert_allclose(plot.geometry["phase_x"], expected.phase_x)
    np.testing.assert_allclose(plot.geometry["phase_y"], expected.phase_y)


def test_hover_is_one_value_with_the_diagram(kernels):
    diagram = cw.CampaignDiagram(kernels)
    plot = RooflinePlot(diagram)
    diagram.hovered_phase = 1
    assert plot.hovered_phase == 1
    plot.set_state({"hovered_phase": 0})  # as the view writes it
    assert diagram.hovered_phase == 0
    plot.set_state({"hovered_phase": None})
    assert diagram.hovered_phase is None and plot.hovered_details == []
    plot.set_state({"hovered_phase": 0})
    assert "saxpy" in plot.hovered_details[0]  # worded for the hovered phase
    diagram.hovered_phase = 1
    assert "gemm" in plot.hovered_details[0] and "compute-bound" in plot.hovered_details[2]
    diagram.peak_compute = P / 4  # a new schedule: the hovered phase is worded again
    assert plot.hovered_details[1] == "achieved 50 GFLOP/s, bound 50 GFLOP/s"


def test_the_view_may_not_write_the_geometry(kernels):
    plot = RooflinePlot(cw.CampaignDiagram(kernels))
    before = plot.geometry["roof_x"].copy()
    plot.set_state({"geometry": {"roof_x": [1, 2, 3]}})
    np.testing.assert_array_equal(plot.geometry["roof_x"], before)


def test_hierarchy_points_per_level_and_every_level_shown():
    w = hierarchy()
    diagram = cw.CampaignDiagram(w)
    plot = RooflinePlot(diagram)
    g, h = plot.geometry, level_roofline(w)
    assert g["hierarchical"] and g["levels"] == ["L1", "L2", "DRAM"] and plot.shown_levels == g["levels"]
    np.testing.assert_allclose(g["ridge_x"], [100 / 200, 100 / 40, 100 / 10])
    level_x = g["level_x"].reshape(2, 3)
    np.testing.assert_allclose(level_x, h.intensity)  # NaN where a level is unknown, as in the model
    assert np.isnan(level_x[1, 0])
    np.testing.assert_allclose(g["level_y"], h.achieved)
    diagram.hovered_phase = 0
    assert "(L1)" in plot.hovered_details[0] and "(DRAM)" in plot.hovered_details[0]


def test_arrays_travel_as_binary_buffers(kernels):
    plot = RooflinePlot(cw.CampaignDiagram(kernels))
    state = plot.get_state()["geometry"]
    assert isinstance(state["phase_x"]["buffer"], memoryview) and state["phase_x"]["dtype"] == "float64"
    np.testing.assert_allclose(from_payload(state["phase_x"]), [1 / 12, 32])
    assert state["x_range"] == pytest.approx(plot.geometry["x_range"])


def test_unknown_arguments_are_refused(kernels):
    with pytest.raises(TypeError, match="tresh"):
        RooflinePlot(cw.CampaignDiagram(kernels), tresh=0.5)
    with pytest.raises(t.TraitError):
        RooflinePlot(cw.CampaignDiagram(kernels), threshold=2.0)


def test_the_view_shows_only_the_machines_levels():
    plot = RooflinePlot(cw.CampaignDiagram(hierarchy()))
    plot.set_state({"shown_levels": ["L2"]})  # a level box unticked in the legend
    assert plot.shown_levels == ["L2"]
    plot.set_state({"shown_levels": ["L3"]})
    assert plot.shown_levels == ["L2"]


@pytest.mark.parametrize("make", ["kernels", "hierarchy"])
def test_both_rooflines_say_a_hovered_phase_in_the_same_words(make, request):
    w = request.getfixturevalue("kernels") if make == "kernels" else hierarchy()
    diagram = cw.CampaignDiagram(w)
    plot, view = RooflinePlot(diagram), cw.RooflineView(diagram)
    for phase in range(len(w.names)):
        diagram.hovered_phase = phase
        assert [label.value for label in view.details] == list(plot.hovered_details)
        assert plot.hovered_details[0].startswith(f"{w.names[phase]}: OI ")
    if make == "kernels":
        assert plot.hovered_details[0].endswith("FLOP/B")  # the intensity with its unit
