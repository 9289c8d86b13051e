"""The static figure's geometry matches the browser's (js/test/geometry.test.js): compute ticks follow
the compute lines and never the pipes, the spine frames the plot, group labels keep their room, and
the dashed tail has background-coloured gaps."""

import numpy as np
from workloads import theme_color

from campaign_widget import Machine, Phase, Workload
from campaign_widget.figures.scene import build_scene
from campaign_widget.static_figure import panel_for, render_figure
from campaign_widget.static_figure.campaign import GROUP_LABEL_ROOM, axes_size_px, compute_top

MACHINE = Machine(peak_compute=60e12, peak_bandwidth=2e12)


def _compute_bound() -> Workload:
    # its compute line at 1.0, its pipe above it up to 1.25
    return Workload([Phase("GEMM", ops=60e12, bytes=0.2e12)], machine=MACHINE)


def _artists(ax, gid):
    return [a for a in ax.get_children() if getattr(a, "get_gid", lambda: None)() == gid]


def test_absolute_axis_ends_at_the_machines_peak_not_above_the_pipes():
    w = _compute_bound()
    scene = build_scene(w.schedule())
    assert float(scene.line_y.max()) == 1.0 and scene.y_max > 1.2
    assert compute_top(scene) == 1.0
    ax = render_figure([panel_for(w, w.schedule(), y_axis="absolute", plot_height=320)]).campaign_axes[0]
    ticks = [float(v) for v in ax.get_yticks()]
    assert max(ticks) == 1.0, ticks
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == "60 TFLOP/s" and "70 TFLOP/s" not in labels, labels


def test_an_oversubscribed_line_still_takes_the_ticks_above_one():
    w = Workload(
        [
            Phase("A", duration=3, compute_util=0.9, memory_util=0.3),
            Phase("B", duration=10, compute_util=0.9, memory_util=0.5, after=["A"]),
        ]
    )
    scene = build_scene(w.schedule(tiles=4, pipeline=True, policy="none"))
    assert compute_top(scene) == float(scene.line_y.max()) > 1.5


def test_the_spine_frames_the_plot_so_the_pipe_is_inside_it():
    w = _compute_bound()
    ax = render_figure([panel_for(w, w.schedule())]).campaign_axes[0]
    low, high = ax.spines["left"].get_bounds()
    assert low == 0.0 and high == ax.get_ylim()[1] >= build_scene(w.schedule()).y_max


def test_group_labels_have_the_top_of_the_plot_to_themselves():
    sizes = {"m": 4096, "n": 4096, "k": 4096}
    einsums = {"A": "T[m,n] = X[m,k] * W[k,n]", "B": "Y[m,n] = T[m,n] * V[m,n]"}
    w = Workload.from_einsums(einsums, sizes, machine=MACHINE).fuse({"block": ["A", "B"]})
    panel = panel_for(w, w.schedule(), plot_height=200)
    ax = render_figure([panel]).campaign_axes[0]
    _, height_px = axes_size_px(ax)
    top = ax.get_ylim()[1]
    free_px = (top - panel.scene.y_max) / top * height_px
    assert free_px >= GROUP_LABEL_ROOM - 1e-6, free_px
    unfused = _compute_bound()
    plain = render_figure([panel_for(unfused, unfused.schedule(), plot_height=200)]).campaign_axes[0]
    assert plain.get_ylim()[1] < top


def test_the_dashed_tail_is_drawn_over_a_line_in_the_background_colour():
    background = theme_color("background")
    w = Workload(
        [
            Phase("A", duration=3, compute_util=0.7, memory_util=0.6),
            Phase("B", duration=10, compute_util=0.2, memory_util=0.9, after=["A"]),
        ]
    )
    schedule = w.schedule(tiles=4, pipeline=True, policy="dilate+throttle")
    ax = render_figure([panel_for(w, schedule)]).campaign_axes[0]
    (gaps,) = _artists(ax, "dash-gaps")
    assert gaps.get_edgecolor()[:3] == tuple(int(background[i : i + 2], 16) / 255 for i in (1, 3, 5))
    scene = build_scene(schedule)
    tails = int(np.count_nonzero(scene.dash_from < scene.x1))
    assert tails > 0 and len(gaps.get_path().vertices) == 2 * tails
