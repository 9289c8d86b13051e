"""The dataflow graph (``DataflowView``) as PNG, SVG or PDF with no browser: the same layout, colours,
edge widths, dashes and colour bar as ``js/dataflow/draw.js`` at zoom 1 (one world unit = one CSS px).

matplotlib's object API and Agg only; user text (node names) is drawn literally (no mathtext).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import EllipseCollection, LineCollection, PolyCollection
from matplotlib.figure import Figure

from ..atomic import atomic_write
from .style import FORMATS, PX_PER_INCH

PT_PER_PX = 72.0 / PX_PER_INCH
LEGEND_HEIGHT = 54.0  # CSS px, as js/dataflow/draw.js
PHASE_OUTLINE = "#3c4043"
TENSOR_OUTLINE = "#7d8a97"
MAX_LABELS = 600
EDGE_LABEL_ZOOM = 0.9  # js/dataflow/draw.js LOD.edgeLabels: bytes written on edges at this scale or above
EDGE_LABEL_GREY = "#555555"
PREDICTED_TEXT = "#1f3f8f"  # js/dataflow/draw.js PREDICTED_TEXT, on a pale box (LABEL_BOX)
_SAMPLES = 16  # points per edge curve


def edge_segments(layout, graph) -> tuple[np.ndarray, np.ndarray]:
    """Every segment of every edge as (s, 4, 2) Bézier control points (as js/dataflow ``traceEdge``:
    leaving and arriving horizontally) and the edge each belongs to."""
    x, y, w = layout.x, layout.y, layout.width
    src, dst = graph.src, graph.dst
    counts = np.diff(layout.route_offsets)
    n_points = counts + 2
    owner = np.repeat(np.arange(graph.n_edges), n_points)
    first = np.concatenate([[0], np.cumsum(n_points)[:-1]])
    px = np.empty(int(n_points.sum()))
    py = np.empty_like(px)
    px[first], py[first] = x[src] + w[src] / 2, y[src]
    last = first + n_points - 1
    px[last], py[last] = x[dst] - w[dst] / 2, y[dst]
    inner = np.ones(px.size, bool)
    inner[first] = inner[last] = False
    px[inner], py[inner] = layout.route_x, layout.route_y
    start = np.ones(px.size, bool)
    start[last] = False  # a segment starts at every point but an edge's last
    a = np.flatnonzero(start)
    ax, ay, bx, by = px[a], py[a], px[a + 1], py[a + 1]
    dx = np.maximum(24.0, (bx - ax) / 2)
    controls = np.stack(
        [np.stack([ax, ay], -1), np.stack([ax + dx, ay], -1), np.stack([bx - dx, by], -1), np.stack([bx, by], -1)],
        axis=1,
    )
    return controls, owner[a]


def _sampled(curves: np.ndarray) -> np.ndarray:
    t = np.linspace(0.0, 1.0, _SAMPLES)[None, :, None]
    p0, p1, p2, p3 = (curves[:, i, None, :] for i in range(4))
    u = 1 - t
    return u**3 * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t**3 * p3


def _format(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(
            f"cannot write a figure to {str(path)!r}: unknown suffix {Path(path).suffix!r}; "
            f"use one of {', '.join(FORMATS)}"
        )
    return FORMATS[suffix]


def render_dataflow(graph, layout, style: dict, legend: dict, *, max_width: float = 40.0):
    """(figure, graph axes): the whole graph at zoom 1, or scaled down to ``max_width`` inches."""
    x0, y0, x1, y1 = layout.bounds
    pad = 16.0
    world_w, world_h = (x1 - x0) + 2 * pad, (y1 - y0) + 2 * pad
    scale = min(1.0, max_width * PX_PER_INCH / world_w)
    width_px = max(world_w * scale, 480.0)
    graph_h = world_h * scale
    height_px = graph_h + LEGEND_HEIGHT
    fig = Figure(figsize=(width_px / PX_PER_INCH, height_px / PX_PER_INCH), facecolor="#ffffff")
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, world_w * scale / width_px, graph_h / height_px))
    ax.set_axis_off()
    ax.set_xlim(x0 - pad, x1 + pad)
    ax.set_ylim(y1 + pad, y0 - pad)  # y grows downwards, as on the canvas

    x, y, w, h = layout.x, layout.y, layout.width, layout.height
    lw = lambda px: px * scale * PT_PER_PX  # noqa: E731  CSS px at this scale → points
    if graph.n_edges:
        curves, owner = edge_segments(layout, graph)
        styles = np.where(graph.fused, "dashed", np.where(graph.edge_kind == 2, "dotted", "solid"))
        colours = style["edge_rgb"] / 255.0
        # one polyline per edge: its segments' samples joined
        per_edge = _sampled(curves)
        if len(curves) == graph.n_edges:
            lines = list(per_edge)
        else:  # segments are in edge order: split at each edge's first
            bounds = np.cumsum(np.bincount(owner, minlength=graph.n_edges))[:-1]
            lines = [part.reshape(-1, 2) for part in np.split(per_edge, bounds)]
        ax.add_collection(
            LineCollection(
                lines,
                colors=colours,
                linewidths=lw(style["edge_width"]),
                linestyles=list(styles),
                capstyle="butt",
                zorder=1,
            )
        )
        tip = np.column_stack([x[graph.dst] - w[graph.dst] / 2, y[graph.dst]])
        size = 7.0
        heads = np.stack([tip, tip + [-size, -size * 0.55], tip + [-size, size * 0.55]], axis=1)
        ax.add_collection(PolyCollection(heads, facecolors=colours, edgecolors="none", zorder=2))
    phase = graph.kind == 0
    fills = style["node_rgb"] / 255.0
    if phase.any():
        left, top = x[phase] - w[phase] / 2, y[phase] - h[phase] / 2
        boxes = np.stack(
            [
                np.stack([left, top], -1),
                np.stack([left + w[phase], top], -1),
                np.stack([left + w[phase], top + h[phase]], -1),
                np.stack([left, top + h[phase]], -1),
            ],
            1,
        )
        ax.add_collection(
            PolyCollection(
                boxes, facecolors=fills[phase], edgecolors=PHASE_OUTLINE, linewidths=max(lw(1.0), 0.3), zorder=3
            )
        )
    for dashed in (False, True):
        sel = (graph.kind == 1) & (graph.fused_tensor == dashed)
        if sel.any():
            ax.add_collection(
                EllipseCollection(
                    w[sel],
                    h[sel],
                    np.zeros(int(sel.sum())),
                    units="xy",
                    offsets=np.column_stack([x[sel], y[sel]]),
                    offset_transform=ax.transData,
                    facecolors=fills[sel],
                    edgecolors=TENSOR_OUTLINE,
                    linewidths=lw(1.0),
                    linestyles="dashed" if dashed else "solid",
                    zorder=3,
                )
            )
    labels = 0
    if graph.n_nodes <= MAX_LABELS and scale >= 0.3:
        font_px = max(8, min(12, round(28 * scale)))
        for i in range(graph.n_nodes):
            max_chars = int((w[i] * scale - 6) // (0.58 * font_px))
            if max_chars < 2:
                continue
            name = str(graph.names[i])
            if len(name) > max_chars:
                name = name[: max_chars - 1] + "…"
            ax.text(
                x[i],
                y[i],
                name,
                ha="center",
                va="center",
                fontsize=font_px * PT_PER_PX,
                color="#1f1f1f",
                parse_math=False,
                zorder=4,
                clip_on=True,
            )
            labels += 1
        if scale >= EDGE_LABEL_ZOOM:
            _draw_edge_labels(ax, graph, layout, scale, MAX_LABELS - labels)
    _draw_legend(fig, legend, width_px, height_px)
    return fig, ax


def edge_label_positions(graph, layout) -> np.ndarray:
    """(n_edges, 2) world position of each edge's label: the middle of its first segment (from the
    source's right side to its first bend, or to the target's left side), as js/dataflow/draw.js."""
    x, y, w = layout.x, layout.y, layout.width
    src, dst = graph.src, graph.dst
    ax, ay = x[src] + w[src] / 2, y[src]
    bent = np.diff(layout.route_offsets) > 0
    first = np.minimum(layout.route_offsets[:-1], max(layout.route_x.size - 1, 0))
    bx = np.where(bent, layout.route_x[first] if layout.route_x.size else 0.0, x[dst] - w[dst] / 2)
    by = np.where(bent, layout.route_y[first] if layout.route_y.size else 0.0, y[dst])
    return np.column_stack([(ax + bx) / 2, (ay + by) / 2])


def _draw_edge_labels(ax, graph, layout, scale: float, room: int) -> None:
    """The bytes on each edge ("4.19 MB"; "4.19 MB → 1.05 MB predicted" where a cache model predicts
    its phase's traffic), 7 px above the first segment's middle, as the view draws them at zoom ≥ 0.9."""
    texts = graph.edge_labels()
    predicted = graph.predicted
    at = edge_label_positions(graph, layout)
    for e in range(graph.n_edges):
        if room <= 0:
            break
        if not texts[e]:
            continue
        box = (
            {"boxstyle": "square,pad=0.15", "facecolor": "#ffffff", "alpha": 0.85, "edgecolor": "none"}
            if predicted[e]
            else None
        )
        ax.text(
            at[e, 0],
            at[e, 1] - 7 / scale,
            texts[e],
            ha="center",
            va="center",
            fontsize=10 * PT_PER_PX,
            color=PREDICTED_TEXT if predicted[e] else EDGE_LABEL_GREY,
            parse_math=False,
            zorder=5,
            clip_on=True,
            bbox=box,
        )
        room -= 1


def _draw_legend(fig, legend: dict, width_px: float, height_px: float):
    """The colour bar strip at the top, laid out in CSS px like js/dataflow/draw.js ``drawLegend``."""
    ax = fig.add_axes((0, 1 - LEGEND_HEIGHT / height_px, 1, LEGEND_HEIGHT / height_px))
    ax.set_axis_off()
    ax.set_xlim(0, width_px)
    ax.set_ylim(LEGEND_HEIGHT, 0)
    text = dict(parse_math=False, color="#222222")
    ax.text(8, 4, str(legend.get("title", "")), ha="left", va="top", fontsize=12 * PT_PER_PX, **text)
    stops = list(legend.get("stops", []))
    bar_left, bar_top, bar_h = 8.0, 22.0, 10.0
    bar_w = min(320.0, max(120.0, width_px - 220.0))
    if stops:
        step = bar_w / len(stops)
        cells = [
            [
                (bar_left + i * step, bar_top),
                (bar_left + (i + 1) * step, bar_top),
                (bar_left + (i + 1) * step, bar_top + bar_h),
                (bar_left + i * step, bar_top + bar_h),
            ]
            for i in range(len(stops))
        ]
        ax.add_collection(PolyCollection(cells, facecolors=stops, edgecolors="none"))
    ax.add_collection(
        PolyCollection(
            [
                [
                    (bar_left, bar_top),
                    (bar_left + bar_w, bar_top),
                    (bar_left + bar_w, bar_top + bar_h),
                    (bar_left, bar_top + bar_h),
                ]
            ],
            facecolors="none",
            edgecolors="#666666",
            linewidths=PT_PER_PX,
        )
    )
    for k, (s, label) in enumerate(legend.get("ticks", [])):
        tx = bar_left + float(s) * bar_w
        ha = "left" if k == 0 and float(s) <= 0.02 else "right" if float(s) >= 0.98 else "center"
        ax.text(tx, bar_top + bar_h + 4, str(label), ha=ha, va="top", fontsize=10 * PT_PER_PX, **text)
    gx = bar_left + bar_w + 18
    ax.add_collection(
        PolyCollection(
            [[(gx, bar_top), (gx + 14, bar_top), (gx + 14, bar_top + bar_h), (gx, bar_top + bar_h)]],
            facecolors=legend.get("nan_color", "#c8c8c8"),
            edgecolors="#666666",
            linewidths=PT_PER_PX,
        )
    )
    missing = int(legend.get("missing", 0))
    ax.text(
        gx + 20,
        bar_top,
        f"no value or ≤ 0{f' ({missing})' if missing else ''}",
        ha="left",
        va="top",
        fontsize=10 * PT_PER_PX,
        **text,
    )


def save_dataflow(path, graph, layout, style: dict, legend: dict, *, dpi: float = 150, max_width: float = 40.0) -> Path:
    """Render and write ``path`` (PNG, SVG or PDF by suffix) atomically; returns the path."""
    fmt = _format(path)
    fig, _ = render_dataflow(graph, layout, style, legend, max_width=max_width)
    meta = {"png": {"Software": None}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}[fmt]
    with atomic_write(path, "wb") as handle:
        fig.savefig(handle, format=fmt, dpi=dpi, facecolor="#ffffff", metadata=meta)
    return Path(path)
