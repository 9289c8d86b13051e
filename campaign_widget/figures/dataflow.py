"""The global data-movement view's model (docs/data-movement.md#the-global-view, seed 001): the dataflow graph of a
workload, its overlays, their colour scale (``colour_scale``: values → severity s → colour) and a
layered layout.

Pure numpy (and igraph's layout); no widget code.

>>> severity([1, 2, 3, 100], "median").tolist()
[0.2, 0.4, 0.6, 1.0]
>>> colors([0.0, 0.5, 1.0, float("nan")])
['#00a800', '#959500', '#ff0000', '#c8c8c8']
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import WorkloadError, WrongTypeError, short_repr
from ..formatting import format_number, format_percent, format_quantity, format_si, join_unit, si_prefix, time_unit_for
from .colour_scale import (  # the scale lives in colour_scale; its names stay importable from here
    NAN_COLOR,
    PALETTES,  # noqa: F401 (public here)
    SCALINGS,
    centre,
    check_buckets,
    check_palette,  # noqa: F401
    choice,
    colors,
    hex_colors,  # noqa: F401
    rgb,
    severity,
)

if TYPE_CHECKING:
    import numpy.typing as npt

    from ..model.workload import Workload

OVERLAYS = ("bytes", "ops", "intensity", "duration", "efficiency")
# The overlays whose problem is a low value (docs/data-movement.md#palettes): a phase of low intensity
# waits on memory, one of low efficiency leaves the machine idle. Their scale runs the other way by
# default, so that red is the problem under every overlay; ``reverse`` flips from there.
PROBLEM_WHEN_LOW = frozenset({"intensity", "efficiency"})
NODE_PHASE, NODE_TENSOR = 0, 1
EDGE_READ, EDGE_WRITE, EDGE_ORDER = 0, 1, 2  # order: an `after` dependency that names no tensor

# Layout geometry, in CSS pixels at zoom 1 (the view and the static figure share it).
LAYER_GAP = 190.0  # x distance between consecutive layers (phases and tensors alternate)
ROW_GAP = 56.0  # y distance between neighbours in a layer
PHASE_SIZE = (150.0, 36.0)  # width, height of a phase box
TENSOR_SIZE = (130.0, 26.0)  # width, height of a tensor ellipse


# -- the graph -------------------------------------------------------------------------------------


def edge_label(logical: float, moved: float, predicted: bool, unit: str = "B") -> str:
    """One edge's text: ``moved`` bytes, or ``logical → predicted`` when ``predicted``.

    >>> edge_label(4194304, 4194304, False)
    '4.19 MB'
    >>> edge_label(4194304, 1048576, True)
    '4.19 MB → 1.05 MB predicted'
    """
    if predicted:
        return f"{format_si(logical, unit)} → {format_si(moved, unit)} predicted"
    return format_si(moved, unit)


@dataclass(frozen=True)
class DataflowGraph:
    """Phases and tensors as nodes; reads (tensor → phase), writes (phase → tensor) and ``after``
    dependencies that name no tensor (phase → phase) as edges. Node ids: phases first, in the
    workload's topological order (node i is phase i), then tensors in order of first appearance."""

    names: list  # per node
    kind: np.ndarray  # uint8 per node: NODE_PHASE / NODE_TENSOR
    tensor_bytes: np.ndarray  # float64 per node: the tensor's size (largest access), NaN for phases
    fused_tensor: np.ndarray  # bool per node: produced and consumed inside one fusion group
    src: np.ndarray  # int32 per edge
    dst: np.ndarray  # int32 per edge
    edge_kind: np.ndarray  # uint8 per edge: EDGE_READ / EDGE_WRITE / EDGE_ORDER
    logical_bytes: np.ndarray  # float64 per edge: what the access moves unfused (NaN for order edges)
    fused: np.ndarray  # bool per edge: inside a fusion group, moves 0 B (drawn dashed)
    n_phases: int
    # float64 per edge: bytes a cache model predicts for the access (``cache.with_predicted_traffic``),
    # NaN where the phase's traffic is not predicted (and for order edges)
    predicted_bytes: np.ndarray | None = None

    @property
    def n_nodes(self) -> int:
        return len(self.names)

    @property
    def n_edges(self) -> int:
        return len(self.src)

    @property
    def predicted(self) -> np.ndarray:
        """bool per edge: its phase's traffic is predicted by a cache model (``predicted_bytes`` holds it)."""
        if self.predicted_bytes is None:
            return np.zeros(self.n_edges, bool)
        return ~np.isnan(self.predicted_bytes)

    @property
    def bytes(self) -> np.ndarray:
        """Bytes each edge moves: the predicted bytes where its phase's traffic is predicted, else
        0 where fused and the logical bytes otherwise; NaN for order edges."""
        moved = np.where(self.fused, 0.0, self.logical_bytes)
        return np.where(self.predicted, self.predicted_bytes, moved) if self.predicted_bytes is not None else moved

    def edge_labels(self, unit: str = "B") -> list[str]:
        """The text on each edge (as js/dataflow/draw.js ``edgeLabel``): the bytes it moves
        ("4.19 MB", "0 B" when fused), or where its phase's traffic is predicted the logical and the
        predicted bytes side by side ("4.19 MB → 1.05 MB predicted"); "" for order edges."""
        moved, predicted = self.bytes, self.predicted
        return [
            edge_label(float(self.logical_bytes[e]), float(moved[e]), bool(predicted[e]), unit)
            if self.edge_kind[e] != EDGE_ORDER
            else ""
            for e in range(self.n_edges)
        ]

    def structure_key(self) -> tuple:
        """Equal for graphs with the same nodes and edges (sizes aside): the layout can be kept."""
        return (tuple(self.names), self.src.tobytes(), self.dst.tobytes(), self.edge_kind.tobytes())


def dataflow_graph(workload: Workload) -> DataflowGraph:
    """The dataflow graph of a workload (docs/data-movement.md#the-global-view, "Global view")."""
    if not all(hasattr(workload, name) for name in ("names", "tensors", "fusion_group")):
        raise WrongTypeError(f"workload={short_repr(workload)} must be a campaign_widget.Workload")
    names = workload.names
    n_phases = len(names)
    tensors = workload.tensors
    group = np.asarray(workload.fusion_group, dtype=np.int64)
    tensor_id: dict[str, int] = {}
    r_phase, r_tensor, r_bytes = [], [], []
    w_phase, w_tensor, w_bytes = [], [], []
    for p, (reads, writes) in enumerate(tensors):
        for t, b in reads.items():
            r_phase.append(p), r_tensor.append(tensor_id.setdefault(t, len(tensor_id))), r_bytes.append(b)
        for t, b in writes.items():
            w_phase.append(p), w_tensor.append(tensor_id.setdefault(t, len(tensor_id))), w_bytes.append(b)
    n_tensors = len(tensor_id)
    r_phase, r_tensor = np.asarray(r_phase, np.int64), np.asarray(r_tensor, np.int64)
    w_phase, w_tensor = np.asarray(w_phase, np.int64), np.asarray(w_tensor, np.int64)
    r_bytes, w_bytes = np.asarray(r_bytes, np.float64), np.asarray(w_bytes, np.float64)

    # Each tensor has at most one writer (Workload checks it): its group, -1 when unwritten/ungrouped.
    writer_group = np.full(n_tensors, -1, np.int64)
    writer_group[w_tensor] = group[w_phase]
    read_fused = (writer_group[r_tensor] >= 0) & (writer_group[r_tensor] == group[r_phase])
    # A tensor is fused when written inside a group and read, only, inside that group.
    reads_count = np.bincount(r_tensor, minlength=n_tensors)
    inside_count = np.bincount(r_tensor[read_fused], minlength=n_tensors)
    fused_t = (writer_group >= 0) & (reads_count > 0) & (inside_count == reads_count)
    write_fused = fused_t[w_tensor]

    size = np.zeros(n_tensors)
    np.maximum.at(size, r_tensor, r_bytes)
    np.maximum.at(size, w_tensor, w_bytes)

    # `after` dependencies that no tensor explains: drawn as thin order edges.
    indptr, producers = workload.producers
    consumer = np.repeat(np.arange(n_phases), np.diff(indptr))
    via_tensor = set()
    if w_phase.size and r_phase.size:
        writer_of = np.full(n_tensors, -1, np.int64)
        writer_of[w_tensor] = w_phase
        wr = writer_of[r_tensor]
        keep = wr >= 0
        via_tensor = set(zip(wr[keep].tolist(), r_phase[keep].tolist()))
    order = np.array(
        [(int(a), int(b)) not in via_tensor for a, b in zip(producers.tolist(), consumer.tolist())], dtype=bool
    )
    o_src, o_dst = np.asarray(producers, np.int64)[order], consumer[order]

    src = np.concatenate([n_phases + r_tensor, w_phase, o_src]).astype(np.int32)
    dst = np.concatenate([r_phase, n_phases + w_tensor, o_dst]).astype(np.int32)
    edge_kind = np.concatenate(
        [np.full(r_phase.size, EDGE_READ), np.full(w_phase.size, EDGE_WRITE), np.full(o_src.size, EDGE_ORDER)]
    ).astype(np.uint8)
    logical = np.concatenate([r_bytes, w_bytes, np.full(o_src.size, np.nan)])
    fused = np.concatenate([read_fused, write_fused, np.zeros(o_src.size, bool)])
    predicted = _predicted_edge_bytes(workload, r_phase, r_tensor, w_phase, w_tensor, list(tensor_id), o_src.size)
    return DataflowGraph(
        names=list(names) + list(tensor_id),
        kind=np.concatenate([np.full(n_phases, NODE_PHASE), np.full(n_tensors, NODE_TENSOR)]).astype(np.uint8),
        tensor_bytes=np.concatenate([np.full(n_phases, np.nan), size]),
        fused_tensor=np.concatenate([np.zeros(n_phases, bool), fused_t]),
        src=src,
        dst=dst,
        edge_kind=edge_kind,
        logical_bytes=logical,
        fused=fused,
        n_phases=n_phases,
        predicted_bytes=predicted,
    )


def _predicted_edge_bytes(
    workload: Workload,
    r_phase: np.ndarray,
    r_tensor: np.ndarray,
    w_phase: np.ndarray,
    w_tensor: np.ndarray,
    tensor_names: list[str],
    n_order: int,
) -> np.ndarray:
    """Per edge (reads, writes, order edges), the bytes the cache model predicts for that access
    (``workload.predicted[phase]["reads"/"writes"][tensor]``), NaN where the phase is not predicted.
    A tensor a predicted phase both reads and writes has all its traffic on the write (the model
    counts its misses once): its read edge carries 0 B. The predicted edges of a phase sum to its bytes."""
    out = np.full(r_phase.size + w_phase.size + n_order, np.nan)
    predictions = getattr(workload, "predicted", None) or {}
    if not predictions:
        return out
    index = {name: i for i, name in enumerate(workload.names)}
    for name, prediction in predictions.items():
        p = index[name]
        reads, writes = prediction.get("reads", {}), prediction.get("writes", {})
        for e in np.flatnonzero(r_phase == p):
            tensor = tensor_names[r_tensor[e]]
            out[e] = reads[tensor] if tensor in reads else (0.0 if tensor in writes else np.nan)
        for e in np.flatnonzero(w_phase == p):
            out[r_phase.size + e] = writes.get(tensor_names[w_tensor[e]], np.nan)
    return out


# -- overlays ----------------------------------------------------------------------------------------


def overlay_unit(workload: Workload, overlay: str) -> str:
    m = workload.machine
    return {
        "bytes": m.bytes_unit,
        "ops": m.ops_unit,
        "intensity": f"{m.ops_unit}/{m.bytes_unit}",
        "duration": m.time_unit,
        "efficiency": "",
    }[choice("overlay", overlay, OVERLAYS)]


def overlay_values(workload: Workload, graph: DataflowGraph, overlay: str) -> np.ndarray:
    """The overlay's value per edge (``bytes``) or per phase (the others, from ``workload.table()``)."""
    overlay = choice("overlay", overlay, OVERLAYS)
    if overlay == "bytes":
        return graph.bytes
    return np.asarray(workload.table()[overlay], dtype=np.float64)


def format_value(value: float, overlay: str, unit: str) -> str:
    if overlay == "efficiency":
        return format_percent(value)
    if overlay in ("intensity", "duration"):
        return format_quantity(value, unit)
    return format_si(value, unit)


def problem_first(overlay: str, reverse: bool = False) -> bool:
    """Whether ``overlay``'s palette is read from its other end, so that red marks the problem: the
    low values of intensity and efficiency, the high values of the others; ``reverse`` flips that."""
    return bool(reverse) != (choice("overlay", overlay, OVERLAYS) in PROBLEM_WHEN_LOW)


def shown_unit(overlay: str, unit: str, top: float) -> tuple[float, str]:
    """``(factor, unit)`` that a colour bar reaching ``top`` writes every tick in, so that its title
    names the unit of the numbers under it: times in ms, µs … (``time_unit_for``), bytes and ops with
    one SI prefix, efficiency in %, intensity as it is."""
    if overlay == "efficiency":
        return 100.0, "%"
    if overlay == "duration":
        return time_unit_for(unit, top)
    if overlay == "intensity" or not (top > 0) or not np.isfinite(top):
        return 1.0, unit
    factor, prefix = si_prefix(top)
    spaced = join_unit("", prefix, unit).strip()
    return 1.0 / factor, spaced


@dataclass(frozen=True)
class Scale:
    """One overlay under one scaling and palette: s and colour per element, and the colour bar."""

    overlay: str
    target: str  # "edges" or "phases"
    values: np.ndarray
    s: np.ndarray
    rgb: np.ndarray  # uint8 (n, 3)
    legend: dict
    palette: str | Sequence[str] = "gyr"
    reverse: bool = False


def scale(
    workload: Workload,
    graph: DataflowGraph,
    overlay: str = "bytes",
    scaling: str = "median",
    palette: str | Sequence[str] = "gyr",
    reverse: bool = False,
    buckets: int = 0,
) -> Scale:
    """values → s → colour for ``overlay``, with its colour-bar legend (``legend``). ``Scale.reverse``
    is the direction drawn: ``problem_first(overlay, reverse)``."""
    values = overlay_values(workload, graph, overlay)
    s = severity(values, scaling, buckets)
    unit = overlay_unit(workload, overlay)
    flip = problem_first(overlay, reverse)
    return Scale(
        overlay=overlay,
        target="edges" if overlay == "bytes" else "phases",
        values=values,
        s=s,
        rgb=rgb(s, palette, flip),
        legend=legend(values, scaling, buckets, overlay, unit, palette, flip),
        palette=palette,
        reverse=flip,
    )


def legend(
    values: npt.ArrayLike,
    method: str,
    buckets: int,
    overlay: str,
    unit: str,
    palette: str | Sequence[str] = "gyr",
    reverse: bool = False,
    stops: int = 64,
) -> dict:
    """The colour bar: ``method``, ``centre`` (median/mean), ``edges`` (hist buckets or distinct
    values, linear/log ends), ``unit``, ``ticks`` as [s, label] pairs, ``stops`` (colours at
    s = 0 … 1), ``title``, and how many values were out of the scale (``missing``)."""
    method = choice("scaling", method, SCALINGS)
    n_buckets = check_buckets(buckets)
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    ok = np.isfinite(v) & (v > 0)
    V = v[ok]
    top = 0.0
    if V.size:
        top = 2 * centre(V, method) if method in ("median", "mean") else float(V.max())
    # One unit for the whole bar, named in its title; a bar over three decades or more (its ends read
    # "1 µs" and "9 ms") gives each tick its own prefix, and the title no unit to contradict them.
    wide = method not in ("median", "mean") and V.size > 0 and float(V.max()) >= 1000 * float(V.min())
    factor, unit_shown = (1.0, "") if wide else shown_unit(overlay, unit, top)

    def fmt(x: float) -> str:
        if overlay == "efficiency":
            return format_percent(float(x))
        if wide:
            return format_value(float(x), overlay, unit)
        return join_unit(format_number(float(x) * factor, 3), "", unit_shown)

    out = {
        "method": method,
        "unit": unit,
        "shown_unit": unit_shown,
        "overlay": overlay,
        "centre": None,
        "edges": [],
        "missing": int((~ok).sum()),
        "count": int(ok.sum()),
        "discrete": 0,
    }
    ticks: list[list] = []
    label = f"{method}; no positive values to scale"
    if V.size:
        lo, hi = float(V.min()), float(V.max())
        if method in ("median", "mean"):
            c = centre(V, method)
            out["centre"] = c
            out["edges"] = [0.0, 2 * c]
            # Zero is out of the scale (grey, with the missing values): the bar's left end is "> 0".
            ticks = [[0.0, "> " + fmt(0.0)], [0.5, fmt(c)], [1.0, "≥ " + fmt(2 * c)]]
            label = f"{method}-centred, c = {fmt(c)}"
        elif method == "hist" and n_buckets >= 2:
            edges = np.linspace(lo, hi, n_buckets + 1)
            out["edges"] = edges.tolist()
            out["discrete"] = n_buckets
            # bucket k covers [k/n, (k+1)/n] of the bar; its colour is s = k/(n-1)
            ticks = [[k / n_buckets, fmt(e)] for k, e in enumerate(edges)]
            label = f"hist, {n_buckets} equal buckets"
        elif method == "hist":
            distinct = np.unique(V)
            out["edges"] = distinct[:1000].tolist()
            out["discrete"] = int(distinct.size)
            shown = _thin(distinct.size, 5)
            d = max(distinct.size, 1)
            ticks = [[(k + 0.5) / d, fmt(distinct[k])] for k in shown]
            label = f"hist, {distinct.size} distinct values"
        else:
            out["edges"] = [lo, hi]
            if method == "linear":
                ticks = [[0.0, fmt(lo)], [0.5, fmt((lo + hi) / 2)], [1.0, fmt(hi)]]
            else:
                ticks = [[0.0, fmt(lo)], [0.5, fmt(float(np.sqrt(lo * hi)))], [1.0, fmt(hi)]]
            label = f"{method}, {fmt(lo)} … {fmt(hi)}"
    out["ticks"] = ticks
    out["title"] = f"{overlay}{f' ({unit_shown})' if unit_shown else ''}: {label}"
    if out["discrete"] >= 2 and out["discrete"] <= stops:
        k = out["discrete"]
        out["stops"] = colors(np.arange(k) / (k - 1), palette, reverse)
    else:
        out["stops"] = colors(np.linspace(0, 1, stops), palette, reverse)
    out["nan_color"] = NAN_COLOR
    return out


def _thin(n: int, most: int) -> list[int]:
    if n <= most:
        return list(range(n))
    return sorted(set(np.linspace(0, n - 1, most).round().astype(int).tolist()))


# -- layout ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Node centres (CSS px at zoom 1), left to right; ``bounds`` = [x0, y0, x1, y1] of all boxes."""

    x: np.ndarray
    y: np.ndarray
    width: np.ndarray
    height: np.ndarray
    layer: np.ndarray
    bounds: tuple
    route_offsets: np.ndarray  # per edge e, its bends are route_x/route_y[route_offsets[e]:route_offsets[e + 1]]
    route_x: np.ndarray
    route_y: np.ndarray

    def edge_points(self, graph: DataflowGraph, e: int) -> np.ndarray:
        """(k, 2) points an edge passes: the source's right side, its bends, the target's left side."""
        a, b = int(graph.src[e]), int(graph.dst[e])
        lo, hi = self.route_offsets[e], self.route_offsets[e + 1]
        return np.vstack(
            [
                [self.x[a] + self.width[a] / 2, self.y[a]],
                np.column_stack([self.route_x[lo:hi], self.route_y[lo:hi]]),
                [self.x[b] - self.width[b] / 2, self.y[b]],
            ]
        )


def layers(graph: DataflowGraph) -> np.ndarray:
    """Layer per node: phases at 2·(longest producer chain) + 1; a written tensor right after its
    writer; an input tensor right before its first reader."""
    n, P = graph.n_nodes, graph.n_phases
    ph = graph.edge_kind == EDGE_ORDER
    rd, wr = graph.edge_kind == EDGE_READ, graph.edge_kind == EDGE_WRITE
    # phase → phase dependencies: via a tensor (writer → reader) or an order edge
    writer = np.full(n, -1, np.int64)
    writer[graph.dst[wr]] = graph.src[wr]
    rs, rp = graph.src[rd], graph.dst[rd]
    dep_src = np.concatenate([writer[rs], graph.src[ph]])
    dep_dst = np.concatenate([rp, graph.dst[ph]])
    keep = (dep_src >= 0) & (dep_src != dep_dst)
    dep_src, dep_dst = dep_src[keep], dep_dst[keep]
    order = np.argsort(dep_dst, kind="stable")
    indptr = np.searchsorted(dep_dst[order], np.arange(P + 1))
    preds = dep_src[order].tolist()
    level = [0] * P
    for p in range(P):  # phases are in topological order
        a, b = indptr[p], indptr[p + 1]
        if b > a:
            level[p] = max(level[q] for q in preds[a:b]) + 1
    level = np.asarray(level, np.int64)
    out = np.zeros(n, np.int64)
    out[:P] = 2 * level + 1
    first_read = np.full(n, np.iinfo(np.int64).max)
    np.minimum.at(first_read, rs, out[rp])
    is_tensor = np.arange(n) >= P
    out[is_tensor] = np.where(first_read[is_tensor] < np.iinfo(np.int64).max, first_read[is_tensor] - 1, 0)
    written = graph.dst[wr]
    out[written] = out[graph.src[wr]] + 1
    return out


def _sugiyama(igraph: ModuleType, g: Any, layer: list, maxiter: int) -> tuple[np.ndarray, list]:
    """(n, 2) positions and, per edge, the bends of a long edge (one per layer it crosses, where the
    crossing reduction put its dummy node) from igraph's Sugiyama layout. The raw C call skips the ``Layout`` wrapper's
    per-row Python copy (0.2 s at 4·10^4 nodes); the public method is the fallback."""
    raw = getattr(igraph.GraphBase, "_layout_sugiyama", None)
    if raw is not None:
        try:
            coords, routing = raw(g, layer, None, 1, 1, maxiter)
            return np.asarray(coords, dtype=np.float64).reshape(-1, 2), routing
        except (TypeError, ValueError):
            pass
    placed = g.layout_sugiyama(layers=layer, maxiter=maxiter)
    return np.asarray(placed.coords, dtype=np.float64).reshape(-1, 2), placed.edge_routing or [[]] * g.ecount()


def _one_row_apart(layer: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """``pos`` with the items of each layer at least 1 apart, in their order (ties by index): each
    item moves down only as far as the one above it needs. Positions already a row apart stay."""
    if not pos.size:
        return pos.copy()
    order = np.lexsort((np.arange(pos.size), pos, layer))
    lay, p = layer[order], pos[order]
    first = np.r_[True, lay[1:] != lay[:-1]]
    group = np.cumsum(first) - 1
    rank = np.arange(p.size) - np.flatnonzero(first)[group]
    # p_k' = max(p_k, p_{k-1}' + 1) is a running maximum of p_k - k, restarted per layer (each layer
    # lifted above the previous ones' values so one accumulate serves all)
    lift = (np.ptp(p) + p.size + 1.0) * group
    q = np.maximum.accumulate(p - rank + lift) - lift + rank
    out = np.empty_like(pos)
    out[order] = q
    return out


def layered_layout(graph: DataflowGraph, *, maxiter: int = 10) -> Layout:
    """Left-to-right layered layout: our layering (``layers``), igraph's Sugiyama for the order
    within layers (barycentre crossing reduction) and the positions (Brandes–Köpf)."""
    if isinstance(maxiter, bool) or not isinstance(maxiter, numbers.Integral) or not 1 <= maxiter <= 10_000:
        raise WorkloadError(f"maxiter={short_repr(maxiter)} must be a whole number from 1 to 10,000")
    try:
        import igraph
    except ImportError:  # pragma: no cover - igraph is a dependency
        raise ImportError("the dataflow layout needs python-igraph: pip install igraph") from None
    layer = layers(graph)
    n = graph.n_nodes
    edges = np.column_stack([graph.src, graph.dst]).astype(np.int64)
    g = igraph.Graph(n=n, edges=edges, directed=True)
    placed, routing = _sugiyama(igraph, g, layer.tolist(), maxiter)
    counts = np.fromiter((len(r) for r in routing), dtype=np.int64, count=len(routing))
    route_offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    bends = np.asarray([p for r in routing for p in r], dtype=np.float64).reshape(-1, 2)
    # igraph gives (position in layer, layer); two nodes may share a position (or lie closer than a
    # box is tall), so each layer's nodes and bends are pushed apart to one row at least.
    spread = _one_row_apart(
        np.concatenate([layer, bends[:, 1]]), np.concatenate([placed[:, 0] if n else np.zeros(0), bends[:, 0]])
    )
    pos, bend_pos = spread[:n], spread[n:]
    shift = pos.min() if n else 0.0
    x = layer * LAYER_GAP
    y = (pos - shift) * ROW_GAP
    route_x = bends[:, 1] * LAYER_GAP
    route_y = (bend_pos - shift) * ROW_GAP
    phase = graph.kind == NODE_PHASE
    width = np.where(phase, PHASE_SIZE[0], TENSOR_SIZE[0])
    height = np.where(phase, PHASE_SIZE[1], TENSOR_SIZE[1])
    if n:  # the boxes, and the bends of long edges (a dummy row may lie outside every box)
        bounds = (
            float(min((x - width / 2).min(), route_x.min(initial=np.inf))),
            float(min((y - height / 2).min(), route_y.min(initial=np.inf))),
            float(max((x + width / 2).max(), route_x.max(initial=-np.inf))),
            float(max((y + height / 2).max(), route_y.max(initial=-np.inf))),
        )
    else:
        bounds = (0.0, 0.0, 1.0, 1.0)
    return Layout(
        x=x,
        y=y,
        width=width,
        height=height,
        layer=layer,
        bounds=bounds,
        route_offsets=route_offsets,
        route_x=route_x,
        route_y=route_y,
    )
