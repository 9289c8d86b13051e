"""The hierarchical roofline (docs/memory-hierarchy.md#the-hierarchical-roofline), drawn: one roof per memory level, per phase one point per
known level joined by a thin line, marker shape per level, levels chosen or toggled; in the static
figure (matplotlib artists, pixels) and in the live bqplot view (its marks' data, hover, checkboxes).
Expectations come from the model (``Workload.table()``'s ``intensity_<level>`` columns)."""

import numpy as np
import pytest
from matplotlib.figure import Figure
from PIL import Image

import campaign_widget as cw
from campaign_widget.errors import WorkloadError
from campaign_widget.static_figure import draw_roofline, panel_for, render_figure, roofline_panel_for
from campaign_widget.views.explorer import Explorer

LEVELS = {"L1": 200.0, "L2": 40.0, "DRAM": 10.0}
P = 100.0


def hierarchy() -> cw.Workload:
    """A phase known at every level, one with L1 unknown, one known at DRAM only; below their roofs."""
    machine = cw.Machine(peak_compute=P, levels=LEVELS)
    return cw.Workload(
        [
            cw.Phase("A", ops=300, bytes={"L1": 900, "L2": 200, "DRAM": 20}, duration=8),
            cw.Phase("B", ops=200, bytes={"L2": 40, "DRAM": 60}, after=["A"], duration=9),
            cw.Phase("C", ops=50, bytes=100, after=["B"], duration=20),
        ],
        machine=machine,
    )


def one_level() -> cw.Workload:
    machine = cw.Machine(peak_compute=P, peak_bandwidth=10.0)
    return cw.Workload(
        [cw.Phase("A", ops=300, bytes=20), cw.Phase("B", ops=10, bytes=60, after=["A"])], machine=machine
    )


def known(w) -> dict[str, np.ndarray]:
    """Per level, the phases with a point there (the model's intensity is not NaN)."""
    table = w.table()
    return {level: np.flatnonzero(~np.isnan(table[f"intensity_{level}"])) for level in LEVELS}


def lines_by_gid(ax, gid):
    return [line for line in ax.get_lines() if line.get_gid() == gid]


def collections_by_gid(ax, gid):
    return [c for c in ax.collections if c.get_gid() == gid]


# -- the static figure ------------------------------------------------------------------------------


def test_the_panel_carries_every_levels_intensity():
    w = hierarchy()
    rp = roofline_panel_for(w, {"schedule": w.schedule()})
    table = w.table()
    assert rp.hierarchical and rp.level_names == ("L1", "L2", "DRAM") and rp.shown_levels == rp.level_names
    expected = np.column_stack([table[f"intensity_{level}"] for level in LEVELS])
    np.testing.assert_array_equal(np.isnan(rp.level_intensity), np.isnan(expected))
    np.testing.assert_allclose(rp.level_intensity[~np.isnan(expected)], expected[~np.isnan(expected)])
    np.testing.assert_allclose(rp.intensity, table["intensity"])  # the farthest level's, as on one level


def test_static_plot_has_one_roof_per_level_and_one_point_per_known_level(tmp_path):
    w = hierarchy()
    rendered = render_figure([panel_for(w, w.schedule())], roofline=roofline_panel_for(w), dpi=100)
    ax = rendered.roofline_axes
    roofs = lines_by_gid(ax, "roof")
    assert [r.get_label() for r in roofs] == list(LEVELS)
    for roof, bandwidth in zip(roofs, LEVELS.values()):
        xs, ys = np.asarray(roof.get_xdata()), np.asarray(roof.get_ydata())
        np.testing.assert_allclose(ys, np.minimum(P, bandwidth * xs))
        assert P / bandwidth in xs  # its ridge
    assert len(lines_by_gid(ax, "ridge-point")) == 3
    texts = [t.get_text() for t in ax.texts]
    assert {"L1 200 B/s", "L2 40 B/s", "DRAM 10 B/s"} <= set(texts), texts
    points = {c.get_label(): c for c in collections_by_gid(ax, "phase-points")}
    table, where = w.table(), known(w)
    assert list(points) == list(LEVELS)
    for level, collection in points.items():
        offsets = np.asarray(collection.get_offsets())
        assert len(offsets) == where[level].size
        np.testing.assert_allclose(sorted(offsets[:, 0]), sorted(table[f"intensity_{level}"][where[level]]))
    # a thin line per phase with two or more points, in the phase's colour, through its points
    (lines,) = collections_by_gid(ax, "phase-level-lines")
    segments = lines.get_segments()
    with_two = [i for i in range(len(w.names)) if sum(i in where[level] for level in LEVELS) >= 2]
    assert len(segments) == len(with_two) == 2
    colors = panel_for(w, w.schedule()).colors
    np.testing.assert_allclose(lines.get_colors()[:, :3], [_rgb01(colors[i]) for i in with_two], atol=1e-6)
    a_oi = [table[f"intensity_{level}"][0] for level in LEVELS]
    np.testing.assert_allclose(segments[0][:, 0], a_oi)
    # the legend explains the marker shapes, one per level, all different
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == list(LEVELS)
    markers = [h.get_marker() for h in legend.legend_handles]
    assert len(set(markers)) == 3 and markers[-1] == "o"  # the farthest level keeps today's circle

    img = np.asarray(Image.open(rendered.save(tmp_path / "levels.png")).convert("RGB"), dtype=float)
    for level, collection in points.items():
        for (x, y), face in zip(collection.get_offsets(), collection.get_facecolors()):
            col, row = rendered.pixel(ax, x, y)
            r, c = int(round(row)), int(round(col))
            near = img[r - 2 : r + 3, c - 2 : c + 3].reshape(-1, 3)
            want = 255 * (0.9 * face[:3] + 0.1)  # alpha 0.9 over white
            assert np.any(np.all(np.abs(near - want) <= 30, axis=1)), f"{level} point at ({x}, {y}) not drawn"


def _rgb01(color: str):
    return [int(color[k : k + 2], 16) / 255 for k in (1, 3, 5)]


def test_levels_argument_chooses_what_is_drawn():
    w = hierarchy()
    rp = roofline_panel_for(w, levels=["L2", "DRAM"])
    assert rp.shown_levels == ("L2", "DRAM")
    ax = render_figure([], roofline=rp, dpi=80).roofline_axes
    assert [r.get_label() for r in lines_by_gid(ax, "roof")] == ["L2", "DRAM"]
    assert [c.get_label() for c in collections_by_gid(ax, "phase-points")] == ["L2", "DRAM"]
    assert "L1 200 B/s" not in [t.get_text() for t in ax.texts]
    # draw_roofline's levels= overrides the panel's choice; one level draws no joining lines
    fig = Figure(figsize=(5, 4), dpi=80)
    ax = fig.add_axes([0.15, 0.15, 0.8, 0.8])
    draw_roofline(ax, roofline_panel_for(w), levels="L1")
    assert [r.get_label() for r in lines_by_gid(ax, "roof")] == ["L1"]
    (l1,) = collections_by_gid(ax, "phase-points")
    assert len(l1.get_offsets()) == known(w)["L1"].size == 1
    assert not collections_by_gid(ax, "phase-level-lines")
    with pytest.raises(WorkloadError, match="L3"):
        roofline_panel_for(w, levels=["L3"])
    with pytest.raises(WorkloadError, match="name at least one"):
        roofline_panel_for(w, levels=[])
    with pytest.raises(ValueError, match="L3"):
        draw_roofline(ax, roofline_panel_for(w), levels=["L3"])


def test_a_one_level_machine_draws_as_before():
    w = one_level()
    rp = roofline_panel_for(w)
    assert not rp.hierarchical
    ax = render_figure([], roofline=rp, dpi=80).roofline_axes
    assert len(lines_by_gid(ax, "roof")) == 1 and len(collections_by_gid(ax, "phase-points")) == 1
    assert ax.get_legend() is None and not collections_by_gid(ax, "phase-level-lines")
    assert "ridge 10 FLOP/B" in [t.get_text() for t in ax.texts]


# -- the live view --------------------------------------------------------------------------------


def test_bqplot_marks_hold_one_roof_per_level_and_the_known_points():
    w = hierarchy()
    explorer = Explorer(w)
    view = explorer.roofline
    x_lo, x_hi = view._x.min, view._x.max
    np.testing.assert_allclose(view.roof.x, [[x_lo, P / bw, x_hi] for bw in LEVELS.values()])
    np.testing.assert_allclose(view.roof.y, [[bw * x_lo, P, P] for bw in LEVELS.values()])
    # each roof named above its ridge; ridges within 2.5× of the previous one's go on the upper row
    assert list(view.roof_labels.text) == list(LEVELS) and not view.roof_labels_high.visible
    np.testing.assert_allclose(view.roof_labels.x, [P / bw for bw in LEVELS.values()])
    assert view.roof.colors == ["var(--jp-content-font-color1, #333333)"]  # the theme's text colour
    np.testing.assert_allclose(view.ridge.x, [P / bw for bw in LEVELS.values()])
    table, where = w.table(), known(w)
    colors = list(explorer.diagram.phase_colors)
    assert list(view.level_points) == list(LEVELS)
    for level, scatter in view.level_points.items():
        idx = where[level]
        np.testing.assert_allclose(scatter.x, table[f"intensity_{level}"][idx])
        np.testing.assert_allclose(scatter.y, table["ops"][idx] / table["duration"][idx])
        assert list(scatter.colors) == [colors[i] for i in idx] and list(scatter.names) == [w.names[i] for i in idx]
        assert scatter in view.figure.marks and scatter.visible
    assert len({s.marker for s in view.level_points.values()}) == 3 and view.level_points["DRAM"].marker == "circle"
    assert view.points not in view.figure.marks  # the one-level scatter gives way to the levels'
    # one line per phase with two or more points, in its colour, through its points nearest first
    assert list(view.level_lines.colors) == [colors[0], colors[1]]
    np.testing.assert_allclose(view.level_lines.x[0], [table[f"intensity_{level}"][0] for level in LEVELS])
    # the legend: a checkbox per level naming its shape
    assert [b.description for b in view.level_boxes.values()] == ["▲ L1", "■ L2", "● DRAM"]
    assert all(box in view.legend.children for box in view.level_boxes.values())


def test_names_of_close_ridges_take_two_rows():
    machine = cw.Machine(peak_compute=P, levels={"L1": 200, "L2": 40, "DRAM": 20})
    view = Explorer(cw.Workload([cw.Phase("A", ops=300, bytes={"L2": 200, "DRAM": 20})], machine=machine)).roofline
    assert list(view.roof_labels.text) == ["L1", "L2"] and list(view.roof_labels_high.text) == ["DRAM"]
    np.testing.assert_allclose(view.roof_labels_high.x, [P / 20])


def test_unticking_a_level_hides_its_points_and_roof():
    w = hierarchy()
    view = Explorer(w).roofline
    view.level_boxes["L1"].value = False
    assert view.shown_levels == ["L2", "DRAM"]
    assert not view.level_points["L1"].visible and view.level_points["L2"].visible
    assert list(view.roof_labels.text) == ["L2", "DRAM"] and not view.roof_labels_high.visible
    assert len(view.roof.x) == 2
    assert len(view.level_lines.x[0]) == 2  # phase A's line now joins its L2 and DRAM points only
    view.shown_levels = ["L1", "L2", "DRAM"]
    assert view.level_boxes["L1"].value and view.level_points["L1"].visible
    panel = view.panel()
    assert panel.shown_levels == ("L1", "L2", "DRAM")
    view.shown_levels = ["DRAM"]
    assert view.panel().shown_levels == ("DRAM",) and not view.level_lines.visible


def test_hovering_any_of_a_phases_points_highlights_the_phase():
    w = hierarchy()
    explorer = Explorer(w)
    view = explorer.roofline
    view.level_points["L1"].hovered_point = 0  # phase A's only L1 point
    assert explorer.diagram.hovered_phase == 0
    assert view.level_points["L2"].hovered_point == 0 and view.level_points["DRAM"].hovered_point == 0
    assert view.details[0].value.startswith("A: OI ") and "(L1)" in view.details[0].value
    assert view.details[2].value.startswith("L2-bound")  # A's bounding resource by name
    assert list(view.level_lines.opacities) == [1.0, 0.3]
    view.level_points["L1"].hovered_point = None
    assert explorer.diagram.hovered_phase is None
    explorer.diagram.hovered_phase = 2  # phase C: known at DRAM only
    assert view.level_points["L1"].hovered_point is None and view.level_points["L2"].hovered_point is None
    assert view.level_points["DRAM"].hovered_point == 2
    assert view.details[0].value == "C: OI 0.5 (DRAM)"


def test_a_one_level_view_keeps_todays_marks_and_link():
    view = Explorer(one_level()).roofline
    assert view.points in view.figure.marks and not view.level_points and not view.level_boxes
    assert view.roof_labels not in view.figure.marks and view.level_lines not in view.figure.marks
    assert view.ridge_label in view.figure.marks
    assert view._link is not None  # the browser-side link of today
    assert np.ndim(view.roof.x) == 1
