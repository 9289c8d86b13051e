"""The dataflow graph (``DataflowView``) as PNG, SVG or PDF with no browser: the same layout, colours,
edge widths, dashes and colour bar as ``js/dataflow/draw.js`` at zoom 1 (one world unit = one CSS px).

matplotlib's object API and Agg only; user text (node names) is drawn literally (no mathtext).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import EllipseCollection, LineCollection, PolyCollection
from matplotlib.figure import Figure

from ..atomic import atomic_write
from ..errors import FigureError
from .style import PX_PER_INCH, THEME, check_canvas, figure_format, fit_text, text_width_px, use_theme, write_figure

PT_PER_PX = 72.0 / PX_PER_INCH
LEGEND_HEIGHT = 54.0  # CSS px, as js/dataflow/draw.js
PHASE_OUTLINE = "#3c4043"
TENSOR_OUTLINE = "#7d8a97"
MAX_LABELS = 600
EDGE_LABEL_ZOOM = 0.9  # the page's zoom from which edges carry their bytes (the live view folds and labels at fit)
NODE_TEXT = "#1f1f1f"  # on the node's fill colour, in either theme
EDGE_LABEL_GREY = "#555555"  # js/dataflow/draw.js, the bytes on an edge (light theme; dark: the muted text)
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


PAGE_WIDTH = 10.0  # in: a landscape page's text width; wider graphs fold into rows
MAX_ROWS = 4  # a graph too long for this many rows at zoom 1 is scaled down to fit them
ROW_GAP = 12.0  # CSS px between the rows of a folded graph


def _fold_cuts(layout, lo: float, hi: float, row_width: float) -> np.ndarray:
    """World x positions from ``lo`` to ``hi`` where the rows of a folded graph begin and end:
    each row as wide as fits ``row_width``, cut in a gap between node columns (no box is cut)
    where there is one."""
    left = np.asarray(layout.x - layout.width / 2, float)
    right = np.asarray(layout.x + layout.width / 2, float)
    order = np.argsort(left)
    reach = np.maximum.accumulate(right[order]) if order.size else np.zeros(0)
    gaps = np.flatnonzero(left[order][1:] > reach[:-1])
    candidates = (reach[gaps] + left[order][gaps + 1]) / 2
    cuts = [lo]
    while hi - cuts[-1] > row_width * (1 + 1e-9):
        inside = candidates[(candidates > cuts[-1]) & (candidates <= cuts[-1] + row_width)]
        cuts.append(float(inside.max()) if inside.size else cuts[-1] + row_width)
    return np.array([*cuts, hi])


def render_dataflow(
    graph, layout, style: dict, legend: dict, *, max_width: float | None = PAGE_WIDTH, theme: str = "light"
):
    """(figure, first row's axes): the graph at zoom 1 (one world unit = one CSS px, as the view),
    folded into rows of at most ``max_width`` inches (``None``: one row, any width) and scaled
    down only when it needs more than ``MAX_ROWS`` rows; edge labels that would overprint a
    heavier edge's label or a node are left out. ``theme``: ``"light"`` or ``"dark"``."""
    with use_theme(theme):
        return _render_dataflow(graph, layout, style, legend, max_width)


def _render_dataflow(graph, layout, style, legend, max_width):
    x0, y0, x1, y1 = layout.bounds
    pad = 16.0
    lo, hi = x0 - pad, x1 + pad
    world_w, world_h = hi - lo, (y1 - y0) + 2 * pad
    page_px = math.inf if max_width is None else float(max_width) * PX_PER_INCH
    if not page_px > 0:
        raise FigureError(f"max_width={max_width!r} must be a number of inches > 0 (or None)")
    scale = min(1.0, page_px * MAX_ROWS / world_w)
    cuts = _fold_cuts(layout, lo, hi, page_px / scale)
    rows = len(cuts) - 1
    width_px = max(float(np.max(np.diff(cuts))) * scale, 480.0)
    row_h = world_h * scale
    height_px = LEGEND_HEIGHT + rows * row_h + (rows - 1) * ROW_GAP
    fig = Figure(figsize=(width_px / PX_PER_INCH, height_px / PX_PER_INCH), facecolor=THEME["background"])
    FigureCanvasAgg(fig)
    axes = []
    for k in range(rows):
        top = LEGEND_HEIGHT + k * (row_h + ROW_GAP)
        seg = (cuts[k + 1] - cuts[k]) * scale
        ax = fig.add_axes((0, 1 - (top + row_h) / height_px, seg / width_px, row_h / height_px))
        ax.set_axis_off()
        ax.set_xlim(cuts[k], cuts[k + 1])
        ax.set_ylim(y1 + pad, y0 - pad)  # y grows downwards, as on the canvas
        axes.append(ax)
    labels = _node_label_texts(graph, layout, scale)
    for ax in axes:
        _draw_graph(ax, graph, layout, style, scale, labels)
    if scale >= EDGE_LABEL_ZOOM * 0.5:
        edge_labels = _edge_labels_that_fit(graph, layout, scale, labels, MAX_LABELS - len(labels))
        for e, (x, y) in edge_labels:
            k = int(np.clip(np.searchsorted(cuts, x, side="right") - 1, 0, rows - 1))
            _draw_edge_label(axes[k], graph, e, x, y)
    draw_legend(fig, legend, width_px, height_px)
    return fig, axes[0]


def _node_label_texts(graph, layout, scale: float) -> dict[int, tuple[str, int]]:
    """{node: (name shortened to its box, font px)}: the names drawn inside their boxes."""
    out: dict[int, tuple[str, int]] = {}
    if graph.n_nodes > MAX_LABELS or scale < 0.3:
        return out
    font_px = max(8, min(12, round(28 * scale)))
    for i in range(graph.n_nodes):
        full = str(graph.names[i])
        name = fit_text(full, layout.width[i] * scale - 6, font_px)
        if name == full or len(name) >= 3:  # a name, or enough of one to tell it (never a lone "…")
            out[i] = (name, font_px)
    return out


def _draw_graph(ax, graph, layout, style: dict, scale: float, labels: dict) -> None:
    """Edges, arrow heads, boxes, ellipses and node names of the whole graph onto ``ax``."""
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
    for i, (name, font_px) in labels.items():
        ax.text(
            x[i],
            y[i],
            name,
            ha="center",
            va="center",
            fontsize=font_px * PT_PER_PX,
            color=NODE_TEXT,
            parse_math=False,
            zorder=4,
            clip_on=True,
        )


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


EDGE_LABEL_PX = 10  # font size of the bytes on an edge, CSS px


def _edge_labels_that_fit(graph, layout, scale: float, nodes: dict, room: int) -> list[tuple[int, tuple]]:
    """[(edge, (x, y))]: the edges whose bytes are written, heaviest first, each 7 px above its
    first segment's middle (js/dataflow/draw.js), left out where it would overprint a label
    already placed or a node's box."""
    texts = graph.edge_labels()
    at = edge_label_positions(graph, layout)
    heavy = np.nan_to_num(np.asarray(graph.bytes, float), nan=-1.0)
    x, y, w, h = layout.x, layout.y, layout.width, layout.height
    taken = [(x[i] - w[i] / 2, y[i] - h[i] / 2, x[i] + w[i] / 2, y[i] + h[i] / 2) for i in range(graph.n_nodes)]
    placed = []
    half_h = (EDGE_LABEL_PX * 0.7) / scale
    for e in np.lexsort((np.arange(graph.n_edges), -heavy)):
        if len(placed) >= room:
            break
        if not texts[e]:
            continue
        cx, cy = float(at[e, 0]), float(at[e, 1] - 7 / scale)
        half_w = (text_width_px(texts[e], EDGE_LABEL_PX) / 2 + 2) / scale
        box = (cx - half_w, cy - half_h, cx + half_w, cy + half_h)
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in taken):
            continue
        taken.append(box)
        placed.append((int(e), (cx, cy)))
    return placed


def _draw_edge_label(ax, graph, e: int, x: float, y: float) -> None:
    """The bytes on edge ``e`` ("4.19 MB"; "4.19 MB → 1.05 MB predicted" where a cache model
    predicts its phase's traffic, on a pale box)."""
    predicted = bool(graph.predicted[e])
    box = {"boxstyle": "square,pad=0.15", "facecolor": "#ffffff", "alpha": 0.85, "edgecolor": "none"}
    ax.text(
        x,
        y,
        graph.edge_labels()[e],
        ha="center",
        va="center",
        fontsize=EDGE_LABEL_PX * PT_PER_PX,
        color=PREDICTED_TEXT if predicted else EDGE_LABEL_GREY if THEME["name"] == "light" else THEME["muted_text"],
        parse_math=False,
        zorder=5,
        clip_on=True,
        bbox=box if predicted else None,
    )


def draw_legend(fig, legend: dict, width_px: float, height_px: float):
    """The colour bar strip at the top, laid out in CSS px like js/dataflow/draw.js ``drawLegend``."""
    ax = fig.add_axes((0, 1 - LEGEND_HEIGHT / height_px, 1, LEGEND_HEIGHT / height_px))
    ax.set_axis_off()
    ax.set_xlim(0, width_px)
    ax.set_ylim(LEGEND_HEIGHT, 0)
    text = dict(parse_math=False, color=THEME["text"])
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
            edgecolors=THEME["muted_text"],
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
            edgecolors=THEME["muted_text"],
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


def save_dataflow(
    path,
    graph,
    layout,
    style: dict,
    legend: dict,
    *,
    dpi: float = 150,
    max_width: float | None = PAGE_WIDTH,
    theme: str = "light",
) -> Path:
    """Render and write ``path`` (PNG, SVG or PDF by suffix) atomically; returns the path."""
    fmt = figure_format(path)
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not math.isfinite(dpi) or dpi <= 0:
        raise FigureError(f"dpi={dpi!r} must be a finite number > 0")
    fig, _ = render_dataflow(graph, layout, style, legend, max_width=max_width, theme=theme)
    width, height = fig.get_size_inches()
    check_canvas(float(width), float(height), float(dpi))
    with atomic_write(path, "wb") as handle:
        write_figure(fig, handle, fmt, dpi=dpi, facecolor=fig.get_facecolor())
    return Path(path)
