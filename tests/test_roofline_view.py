"""The bqplot roofline beside the diagram, without a browser: roofs, points, peaks and hover."""

import numpy as np
import pytest

from campaign_widget import Ceiling, Explorer, Machine, Phase, Workload

P, BW = 200e9, 50e9


@pytest.fixture
def kernels():
    m = Machine(peak_compute=P, peak_bandwidth=BW, ceilings=(Ceiling("no FMA", compute=P / 2),))
    return Workload(
        [Phase("saxpy", ops=2e9, bytes=24e9), Phase("gemm", ops=400e9, bytes=12.5e9, after=["saxpy"])], machine=m
    )


def test_roofs_ridge_points_and_aggregate(kernels):
    view = Explorer(kernels).roofline
    lo, ridge, hi = view.roof.x
    assert ridge == 4 and view.roof.y[1] == P and view.roof.y[2] == P
    assert view.roof.y[0] == pytest.approx(BW * lo)
    np.testing.assert_allclose(view.points.x, [1 / 12, 32])
    np.testing.assert_allclose(view.points.y, [2e9 / 0.48, 200e9])
    assert view.points.size[1] > view.points.size[0]  # gemm takes longer: bigger point
    assert "size" in view.points.scales  # without a size scale bqplot draws every point at default_size
    np.testing.assert_allclose(view.points.size[1], 2.0 / 2.48)  # area ∝ share of the makespan
    assert view.aggregate.x[0] == pytest.approx(402e9 / 36.5e9)
    assert view.ceilings.visible and list(view.ceiling_labels.text) == ["no FMA"]
    assert np.atleast_2d(view.ceilings.y)[0][1] == P / 2


def test_peaks_move_the_roofline(kernels):
    explorer = Explorer(kernels)
    explorer.diagram.peak_bandwidth = 4 * BW
    assert explorer.roofline.roof.x[1] == pytest.approx(1.0)
    np.testing.assert_allclose(explorer.roofline.points.y[0], 2e9 / (24e9 / (4 * BW)))


def test_hovering_a_phase_shows_its_roofline_details(kernels):
    explorer = Explorer(kernels)
    explorer.diagram.hovered_phase = 0
    text = " | ".join(label.value for label in explorer.roofline.details)
    assert "saxpy" in text and "memory-bound" in text and "Near roof: only fix is raise OI" in text
    explorer.diagram.hovered_phase = None
    explorer.roofline.points.hovered_point = 1
    assert "gemm" in explorer.roofline.details[0].value
    assert "compute-bound" in explorer.roofline.details[2].value


def test_colours_match_between_the_two_views(kernels):
    explorer = Explorer(kernels)
    assert list(explorer.roofline.points.colors) == explorer.diagram.phase_colors


def test_explorer_is_the_workload_rich_display(kernels):
    from IPython.core.interactiveshell import InteractiveShell

    import campaign_widget

    shell = InteractiveShell.instance()
    campaign_widget._register_display()  # done at import inside a kernel; this test imported it before the shell
    bundle, _ = shell.display_formatter.format(kernels)
    from ipywidgets.widgets.widget import _instances

    shown = _instances[bundle["application/vnd.jupyter.widget-view+json"]["model_id"]]
    assert isinstance(shown, Explorer)
    assert shown.diagram.workload.names == kernels.names


def test_the_schedule_readout_names_its_regime_and_efficiency(kernels):
    view = Explorer(kernels).roofline
    assert view.readout[0].value.startswith("schedule: OI 11")
    efficiency = (402e9 / 2.48) / P  # all ops over the makespan, against the flat roof (OI 11 > ridge 4)
    assert view.readout[1].value == f"{efficiency:.0%} of the compute roof (200 GFLOP/s), compute-bound"


def test_zero_ops_or_bytes_draw_at_the_axis_edges():
    # a CPU trace of element-wise ops has no FLOPs; its default display must draw
    from campaign_widget import Machine, Phase, Workload

    m = Machine(peak_compute=1e12, peak_bandwidth=1e11)
    only_bytes = Explorer(
        Workload([Phase("copy", ops=0, bytes=1e9), Phase("fill", ops=0, bytes=2e9, after=["copy"])], machine=m)
    ).roofline
    assert list(only_bytes.points.x) == [only_bytes._x.min] * 2  # OI 0 at the left edge
    assert np.isfinite([only_bytes._x.min, only_bytes._x.max, only_bytes._y.min, only_bytes._y.max]).all()
    mixed = Explorer(
        Workload([Phase("alu", ops=1e9, bytes=0), Phase("copy", ops=0, bytes=1e9, after=["alu"])], machine=m)
    ).roofline
    assert list(mixed.points.x) == [mixed._x.max, mixed._x.min]  # OI ∞ right, OI 0 left


def test_ceiling_names_sit_off_their_lines_inside_the_frame():
    m = Machine(
        peak_compute=1e12,
        peak_bandwidth=1e11,
        ceilings=(Ceiling("FP64 (non-tensor)", compute=2.5e11), Ceiling("PCIe (host link)", bandwidth=2e10)),
    )
    w = Workload(
        [Phase("q_proj", ops=2e9, bytes=8e9), Phase("at_ridge", ops=4e11, bytes=4e10, after=["q_proj"])], machine=m
    )
    view = Explorer(w).roofline
    flat, slope = view.ceiling_labels, view.ceiling_slope_labels
    # the compute ceiling's name: above its flat part (bqplot centres a label on y: up by more than half
    # its 11 px), ending a little inside the right edge
    assert list(flat.text) == ["FP64 (non-tensor)"] and flat.visible
    assert list(flat.x) == [view._x.max] and list(flat.y) == [2.5e11]
    assert flat.align == "end" and flat.x_offset < 0 and flat.y_offset <= -(flat.default_size / 2 + 3)
    # the bandwidth ceiling's name: under its slope (which rises away to the right), inside the frame
    assert list(slope.text) == ["PCIe (host link)"] and slope.visible
    x, y = float(slope.x[0]), float(slope.y[0])
    assert view._x.min < x < 1e12 / 2e10 and y == pytest.approx(2e10 * x) and y > view._y.min
    assert slope.align == "start" and slope.y_offset >= slope.default_size / 2 + 3


def test_the_ridge_label_is_drawn_over_and_clear_of_the_points(kernels):
    view = Explorer(kernels).roofline
    marks = list(view.figure.marks)
    assert marks.index(view.ridge_label) > max(marks.index(view.points), marks.index(view.aggregate))
    largest_radius = (view.points.default_size / np.pi) ** 0.5  # bqplot's marker size is an area in px²
    assert -view.ridge_label.y_offset >= largest_radius + view.ridge_label.default_size / 2


def test_legend_entries_are_set_apart_and_tall_enough_for_underscores(kernels):
    view = Explorer(kernels).roofline
    entries = [e for e in view.legend.children if len(getattr(e, "children", ())) == 2]
    assert [e.children[1].value for e in entries] == ["saxpy", "gemm", "schedule"]
    for entry in entries:
        mark, name = entry.children
        # no box shorter than JupyterLab's line height: it would cut "_" below the baseline
        assert mark.layout.height is None and name.layout.height is None
        gap_after = float(entry.layout.margin.split()[1].removesuffix("px"))
        own_gap = float(mark.layout.margin.split()[1].removesuffix("px"))
        assert gap_after >= 12 and gap_after >= 3 * own_gap, (entry.layout.margin, mark.layout.margin)


def test_title_axis_titles_and_ticks_take_the_pages_text_colour(kernels):
    view = Explorer(kernels).roofline
    assert "--jp-content-font-color" in view.figure.title_style["fill"]
    for axis in view.figure.axes:
        assert "--jp-content-font-color" in axis.label_color and "--jp-content-font-color" in axis.tick_style["fill"]


def test_hover_details_read_through_the_formatter(kernels):
    explorer = Explorer(kernels)
    explorer.diagram.hovered_phase = 0
    details = [label.value for label in explorer.roofline.details]
    assert details[0] == "saxpy: OI 0.0833 FLOP/B"  # the unit of the x axis, 3 significant digits
    assert details[2] == "memory-bound, efficiency 100%"
