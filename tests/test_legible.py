"""Issue 29's legibility classes whose rule lives in Python: what a colour scale means, where the dataflow
layout puts its nodes, where labels go, which colours phases get (the browser side is in
tests/browser/test_legible_browser.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import campaign_widget as cw
from campaign_widget.figures import dataflow as df

MACHINE = cw.Machine(peak_compute=1e12, peak_bandwidth=1e11)


def _mixed() -> cw.Workload:
    """A memory-bound phase (little work on many bytes), a compute-dense one, one in between: their
    durations are milliseconds."""
    return cw.Workload(
        [
            # measured durations: the stream runs at a tenth of its roof, the GEMM near its own
            cw.Phase("stream", ops=1e6, reads={"x": 4e8}, writes={"y": 4e8}, duration=8e-2),
            cw.Phase("middle", ops=4e9, reads={"y": 4e7}, writes={"z": 4e7}, duration=8e-3),
            cw.Phase("gemm", ops=8e9, reads={"z": 1e6}, writes={"out": 1e6}, duration=9e-3),
        ],
        machine=MACHINE,
    )


def _redness(rgb) -> float:
    r, g, _ = (int(c) for c in rgb)
    return r - g


# -- 7. a colour scale that means what it says ----------------------------------------------------


@pytest.mark.parametrize("overlay", df.OVERLAYS)
def test_under_every_overlay_red_marks_the_problem(overlay):
    w = _mixed()
    g = df.dataflow_graph(w)
    sc = df.scale(w, g, overlay, "linear")
    t = w.table()
    if overlay == "bytes":
        worst, best = int(np.nanargmax(sc.values)), int(np.nanargmin(np.where(sc.values > 0, sc.values, np.nan)))
    else:
        # the problem: the memory-bound phase (lowest intensity, lowest efficiency), the most ops or time
        values = np.asarray(t[overlay], float)
        low_is_bad = overlay in ("intensity", "efficiency")
        worst = int(np.argmin(values) if low_is_bad else np.argmax(values))
        best = int(np.argmax(values) if low_is_bad else np.argmin(values))
    assert _redness(sc.rgb[worst]) > 100, f"{overlay}: the problem {sc.rgb[worst]} is not red"
    assert _redness(sc.rgb[best]) < -100, f"{overlay}: the harmless end {sc.rgb[best]} is not green"
    # the colour bar runs the same way as the colours drawn
    bar_hi_red = _redness(_hex(sc.legend["stops"][-1])) > 0
    worst_at_hi = sc.s[worst] > sc.s[best]
    assert bar_hi_red == worst_at_hi, f"{overlay}: the colour bar runs against the colours drawn"


def test_reverse_flips_from_the_problem_direction():
    w = _mixed()
    g = df.dataflow_graph(w)
    plain, flipped = df.scale(w, g, "intensity", "linear"), df.scale(w, g, "intensity", "linear", reverse=True)
    assert _redness(plain.rgb[0]) > 100 and _redness(flipped.rgb[0]) < -100


def _hex(colour: str):
    return [int(colour[i : i + 2], 16) for i in (1, 3, 5)]


def _unit_of(label: str) -> str:
    """The unit after the number of a tick label ("> 0 ms" → "ms", "2.5 MB" → "MB", "50%" → "%")."""
    m = re.search(r"[\d.]+(?:e[+-]?\d+)?\s*(.*)$", label)
    assert m, label
    return m.group(1).strip()


@pytest.mark.parametrize("overlay", df.OVERLAYS)
@pytest.mark.parametrize("scaling", ["median", "linear", "log", "hist"])
def test_a_colour_bar_title_names_the_unit_of_the_numbers_under_it(overlay, scaling):
    w = _mixed()
    g = df.dataflow_graph(w)
    leg = df.scale(w, g, overlay, scaling).legend
    m = re.match(r"^(\w+)(?: \(([^)]*)\))?:", leg["title"])
    assert m, leg["title"]
    title_unit = m.group(2) or ""
    units = {_unit_of(label) for _, label in leg["ticks"]}
    if title_unit or overlay == "efficiency":
        assert units == {title_unit}, f"{leg['title']!r} over the ticks {leg['ticks']}"
    else:  # a bar over decades: every tick says its own unit
        assert all(units) and not any(u.startswith("µ ") or " " in u for u in units), leg["ticks"]
    assert "(s)" not in leg["title"] or all(_unit_of(label) == "s" for _, label in leg["ticks"])


def test_a_bar_over_decades_writes_each_tick_in_its_own_unit():
    w = _mixed()
    leg = df.scale(w, df.dataflow_graph(w), "ops", "log").legend  # 1 M … 8 G
    labels = [label for _, label in leg["ticks"]]
    assert leg["title"].startswith("ops:") and labels[0].endswith(" MFLOP") and labels[-1].endswith(" GFLOP"), leg


def test_duration_in_milliseconds_is_titled_in_milliseconds():
    w = _mixed()
    leg = df.scale(w, df.dataflow_graph(w), "duration", "median").legend
    assert leg["title"].startswith("duration (ms)"), leg["title"]


def test_every_roofline_says_what_its_point_areas_mean():
    from campaign_widget.static_figure import roofline_panel_for
    from campaign_widget.static_figure.roofline_plot import draw_roofline

    w = _mixed()
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        draw_roofline(ax, roofline_panel_for(w))
        static = ax.get_xlabel()
    finally:
        plt.close(fig)
    from campaign_widget.views.roofline_canvas import RooflinePlot

    explorer = cw.Explorer(w)
    canvas = RooflinePlot(cw.CampaignDiagram(w))
    shown = {
        "static": static,
        "RooflineView": explorer.roofline._x_axis.label,
        "RooflinePlot": canvas.units.get("x_label", ""),
    }
    for where, text in shown.items():
        assert "area" in text and "makespan" in text, f"{where}: the x title {text!r} leaves point sizes unexplained"


# -- 12. phase colours: distinct to the eye, and following the name ----------------------------------


def test_phase_colours_stay_distinct_to_the_eye_up_to_the_palette_size():
    from campaign_widget.figures.colour_distance import closest_pair
    from campaign_widget.figures.phase_colours import phase_colors
    from campaign_widget.formatting import LEGEND_MAX_ENTRIES

    for n in (12, 18, LEGEND_MAX_ENTRIES, 30, 36):
        colours = phase_colors([f"phase {k}" for k in range(n)])
        assert len(set(colours)) == n, f"{n} phases: two share a colour"
        d, i, j = closest_pair(colours)
        # ΔE00 ≈ 2 is a just-noticeable difference side by side; a legend's swatches are apart
        assert d >= 13, f"{n} phases: {colours[i]} and {colours[j]} differ by ΔE00 {d:.1f} only"


def test_the_same_phase_name_has_the_same_colour_in_two_workloads_of_a_notebook():
    from campaign_widget.figures.phase_colours import phase_colors

    h100 = cw.Machine(peak_compute=1e15, peak_bandwidth=3e12)
    prefill = cw.Workload.from_transformer("llama-3-8b", batch=1, seq=512, stage="prefill", machine=h100)
    decode = cw.Workload.from_transformer("llama-3-8b", batch=8, seq=512, stage="decode", machine=h100)
    flash = cw.Workload.from_transformer("llama-3-8b", batch=1, seq=512, machine=h100, flash_attention=True)
    mixtral = cw.Workload.from_transformer("mixtral-8x7b", batch=1, seq=512, stage="decode", machine=h100)
    seen: dict[str, set] = {}
    for w in (prefill, decode, flash, mixtral):
        for name, colour in zip(w.names, cw.CampaignDiagram(w).phase_colors):
            seen.setdefault(name, set()).add(colour)
    differ = {name: c for name, c in seen.items() if len(c) > 1}
    assert not differ, f"names coloured differently in two workloads: {differ}"
    # and a workload that lists the same phases in another order colours them alike
    assert phase_colors(["c", "a", "b"]) == [phase_colors(["a", "b", "c"])[k] for k in (2, 0, 1)]


# -- 8. dataflow layout: no two nodes overlap -----------------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _overlapping(layout, names) -> list[tuple[str, str]]:
    x0, x1 = layout.x - layout.width / 2, layout.x + layout.width / 2
    y0, y1 = layout.y - layout.height / 2, layout.y + layout.height / 2
    out = []
    for i in range(len(layout.x)):
        hit = (x0[i] < x1) & (x0 < x1[i]) & (y0[i] < y1) & (y0 < y1[i])
        hit[: i + 1] = False
        out += [(names[i], names[j]) for j in np.flatnonzero(hit)]
    return out


@st.composite
def _random_dataflow(draw) -> cw.Workload:
    """Phases in order, each reading inputs or earlier phases' outputs (fan-in and fan-out of any
    width, several writes, shared reads) and writing tensors of its own."""
    n = draw(st.integers(1, 18))
    phases, produced = [], []
    for p in range(n):
        k_reads = draw(st.integers(0, 4))
        reads = {}
        for _ in range(k_reads):
            if produced and draw(st.booleans()):
                reads[draw(st.sampled_from(produced))] = 1e6
            else:
                reads[f"in{draw(st.integers(0, 5))}"] = 1e6
        writes = {f"t{p}_{j}": 1e6 for j in range(draw(st.integers(1, 3)))}
        produced += list(writes)
        phases.append(cw.Phase(f"p{p}", ops=1e9, reads=reads, writes=writes))
    return cw.Workload(phases, machine=MACHINE)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_random_dataflow())
def test_no_two_dataflow_nodes_overlap_whatever_the_graph(workload):
    g = df.dataflow_graph(workload)
    assert not _overlapping(df.layered_layout(g), g.names)


@pytest.mark.parametrize(
    "model, options",
    [
        ("llama-3-8b", dict(stage="decode")),
        ("llama-3-8b", dict(stage="prefill")),
        ("llama-3-8b", dict(stage="prefill", flash_attention=True)),
        ("mixtral-8x7b", dict(stage="decode")),
        ("mixtral-8x7b", dict(stage="prefill")),
    ],
)
def test_no_two_nodes_of_a_transformer_dataflow_overlap(model, options):
    w = cw.Workload.from_transformer(model, batch=1, seq=256, machine=MACHINE, **options)
    g = df.dataflow_graph(w)
    assert not _overlapping(df.layered_layout(g), g.names)


def _contrast(a: np.ndarray, b: np.ndarray) -> float:
    """WCAG contrast ratio of two uint8 colours (from the WCAG 2 definition, not the package's code)."""

    def luminance(c):
        c = np.asarray(c, float) / 255.0
        return float(np.dot(np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4), [0.2126, 0.7152, 0.0722]))

    la, lb = luminance(a), luminance(b)
    return float((max(la, lb) + 0.05) / (min(la, lb) + 0.05))


def test_every_colour_of_the_default_scale_reads_on_both_themes():
    import json
    from pathlib import Path

    from campaign_widget.figures.colour_scale import rgb

    theme = json.loads((Path(cw.__file__).parent / "theme.json").read_text(encoding="utf-8"))
    backgrounds = {
        name: np.array(_hex(theme[key]["background"]), float) for name, key in (("light", "theme"), ("dark", "dark"))
    }
    for s, colour in zip(np.linspace(0, 1, 41), rgb(np.linspace(0, 1, 41)).astype(float)):
        for name, bg in backgrounds.items():
            assert _contrast(colour, bg) >= 3, f"s = {s:.3f}: {colour} on the {name} background {bg}"


# -- 13. the docs: examples read as a user types them ---------------------------------------------


def test_fenced_examples_drop_doctest_directives():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "docs" / "_build"))
    import doctest_fences

    text = "Use it:\n\n    >>> view = View(w)   # doctest: +SKIP\n    >>> view.x  # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE\n    1\n"
    fenced = doctest_fences.fence_doctests(text)
    assert "doctest:" not in fenced and ">>> view = View(w)\n" in fenced and ">>> view.x\n" in fenced


def test_roofline_legend_dots_read_on_the_dark_theme():
    import json
    from pathlib import Path

    theme = json.loads((Path(cw.__file__).parent / "theme.json").read_text(encoding="utf-8"))
    dark = np.array(_hex(theme["dark"]["background"]), float)
    w = cw.Workload([cw.Phase(f"k{i}", ops=1e9 * (i + 1), bytes=1e8) for i in range(36)], machine=MACHINE)
    explorer = cw.Explorer(w)
    marks = [entry.children[0] for entry in explorer.roofline.legend.children if hasattr(entry, "children")]
    assert len(marks) >= 36
    for mark in marks:
        colour = mark.style.text_color
        if colour.startswith("#"):
            ratio = _contrast(np.array(_hex(colour), float), dark)
            assert ratio >= 2.5, f"the legend dot {mark.value} in {colour} is {ratio:.2f}:1 on the dark background"


# -- 10. collisions ----------------------------------------------------------------------------------


def _group_label_boxes(workload, schedule):
    from campaign_widget.static_figure import panel_for, render_figure

    r = render_figure([panel_for(workload, schedule)], width=8, dpi=100)
    r.figure.canvas.draw()
    renderer = r.figure.canvas.get_renderer()
    texts = [t for ax in r.figure.axes for t in ax.texts if t.get_gid() == "cw-group-label"]
    return [(t.get_text(), t.get_window_extent(renderer)) for t in texts]


def test_group_band_labels_of_pipelined_groups_do_not_overlap():
    m = cw.Machine(peak_compute=1e12, peak_bandwidth=1e11)
    w = cw.Workload(
        [
            cw.Phase("a1", ops=1e11, reads={"x": 1e9}, writes={"h": 1e8}),
            cw.Phase("a2", ops=1e11, reads={"h": 1e8}, writes={"y": 1e8}),
            cw.Phase("b1", ops=1e11, reads={"u": 1e9}, writes={"g": 1e8}),
            cw.Phase("b2", ops=1e11, reads={"g": 1e8}, writes={"z": 1e8}),
        ],
        machine=m,
    ).fuse({"prefill.attention": ["a1", "a2"], "decode.attention": ["b1", "b2"]})
    boxes = _group_label_boxes(w, w.schedule(tiles=4, pipeline=True, policy="none"))  # the two groups run together
    assert boxes, "no group label drawn"
    for k, (name, a) in enumerate(boxes):
        for other, b in boxes[k + 1 :]:
            assert a.x1 <= b.x0 or b.x1 <= a.x0, f"the labels {name!r} and {other!r} overlap: {a} and {b}"


def test_a_short_sweep_colour_bar_keeps_its_labels_apart():
    from workloads import two_phases

    from campaign_widget.static_figure import render_sweep_heatmap

    w = two_phases(machine=cw.presets.machine("h100-sxm"), scale=1e-3)
    # two rows: the bar is as short as the plot, about 70 px
    result = cw.sweep(w, progress=False, tiles=[1, 2, 4, 8, 16, 32], pipeline=[True, False])
    fig = render_sweep_heatmap(result, x="tiles", y="pipeline", width=5, dpi=100)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    bar = fig.axes[-1]
    boxes = [t.get_window_extent(renderer) for t in bar.get_yticklabels() if t.get_text()]
    assert len(boxes) >= 2
    for a, b in zip(boxes, boxes[1:]):
        assert a.y1 <= b.y0 or b.y1 <= a.y0, f"colour-bar labels touch: {a} and {b}"


def test_hierarchical_roofline_slope_labels_meet_neither_each_other_nor_the_points():
    import math

    from campaign_widget.cache import Cache, predicted_level_bytes
    from campaign_widget.static_figure import panel_for, render_figure, roofline_panel_for

    # notebook 10's machine and its three loop orders of one GEMM
    h = cw.Machine(peak_compute=67e12, levels={"L1": 33e12, "L2": 5.5e12, "HBM": 3.35e12})
    gemm = cw.Workload.from_einsums(
        {"gemm": "C[i,j] = A[i,k] * B[k,j]"}, {"i": 64, "j": 64, "k": 64}, machine=h, element_bytes=4
    )
    caches = [Cache(lines=32, ways=4), Cache(lines=256, ways=8)]
    served = {o: predicted_level_bytes(gemm, "gemm", caches, loop_order=o) for o in ("ijk", "jki", "ikj")}
    v = cw.Workload([cw.Phase(o, ops=float(gemm.arrays.ops[0]), bytes=dict(b)) for o, b in served.items()], machine=h)
    r = render_figure([panel_for(v, v.schedule())], roofline=roofline_panel_for(v), width=9, dpi=100)
    r.figure.canvas.draw()
    renderer = r.figure.canvas.get_renderer()
    ax = r.roofline_axes
    labels = [(a.get_gid(), a.get_window_extent(renderer)) for a in ax.texts + ax.artists]
    labels = [(gid, box) for gid, box in labels if str(gid).startswith("roof-label-")]
    assert len(labels) == 3, labels
    for k, (a, box) in enumerate(labels):
        for b, other in labels[k + 1 :]:
            assert not box.overlaps(other), f"{a} lies on {b}"
    for collection in ax.collections:
        if collection.get_gid() != "phase-points":
            continue
        centres = ax.transData.transform(collection.get_offsets())
        for (cx, cy), area in zip(centres, np.broadcast_to(collection.get_sizes(), (len(centres),))):
            radius = math.sqrt(area) / 2 * r.figure.dpi / 72
            for gid, box in labels:
                assert not (
                    box.x0 < cx + radius and cx - radius < box.x1 and box.y0 < cy + radius and cy - radius < box.y1
                ), f"{gid} lies on a phase's point at ({cx:.0f}, {cy:.0f})"
