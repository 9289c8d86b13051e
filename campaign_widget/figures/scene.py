"""The geometry of a campaign diagram (docs/semantics.md#what-a-campaign-diagram-draws) as arrays in data coordinates.

No drawing here: the JS view and the static renderer both draw a ``Scene``. A *piece* is one
tile interval of the schedule over a span in which neither the intervals stacked under it nor the
shared throttle factor (so its rates) change: the schedule keeps each tile whole, the scene cuts it
where the drawing changes. y is in units of peak compute; a memory pipe of height ``pipe_width`` sits above each
compute line, its well shrunk by the bandwidth used below it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SceneTooLargeError  # noqa: F401
from ..model.levels import for_level
from ..model.schedule import DEMAND_TOLERANCE, Schedule

PIPE_WIDTH = 0.25
COMPUTE_OVER, MEMORY_OVER = 1, 2
CRITICAL = 8  # flag bit 3: the piece's interval is on the critical path (figures/critical.py)
MAX_PIECES = 2_000_000


@dataclass(frozen=True, eq=False)
class Scene:
    x0: np.ndarray
    x1: np.ndarray
    phase: np.ndarray
    tile: np.ndarray
    base_y: np.ndarray
    line_y: np.ndarray
    well_top: np.ndarray
    fill_top: np.ndarray
    dash_from: np.ndarray
    flags: np.ndarray
    over_t0: np.ndarray
    over_t1: np.ndarray
    over_resource: np.ndarray
    over_demand: np.ndarray
    pipe_width: float
    x_max: float
    y_max: float
    group_t0: np.ndarray = None  # fusion-group bands: the time span of each group's pieces
    group_t1: np.ndarray = None
    group_id: np.ndarray = None  # index into the workload's fusion_groups
    # The schedule's distinct instants and each piece's x0/x1 as indices into them (x0 ==
    # edges[x0_edge] exactly), so the wire form needs no sort to find them; None when not known.
    edges: np.ndarray | None = None
    x0_edge: np.ndarray | None = None
    x1_edge: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.x0.size)


def build_scene(
    schedule: Schedule,
    pipe_width: float = PIPE_WIDTH,
    fusion_group: np.ndarray | None = None,
    level: str | None = None,
) -> Scene:
    """The diagram of ``schedule``; ``fusion_group`` (per phase, -1 for none) adds group bands;
    ``level`` picks the memory level drawn as the pipe (docs/memory-hierarchy.md#the-pipe-level-of-a-campaign-diagram; default the farthest)."""
    schedule = for_level(schedule, level)
    interval, e0, e1, base_c, base_m, c, m = _stack(schedule)
    x0, x1 = schedule.edge_time[e0], schedule.edge_time[e1]
    line = base_c + c
    well_top = line + pipe_width * np.maximum(0.0, 1.0 - base_m)
    fill_top = line + pipe_width * m
    flags = np.where(line > 1.0 + DEMAND_TOLERANCE, COMPUTE_OVER, 0) | np.where(
        base_m + m > 1.0 + DEMAND_TOLERANCE, MEMORY_OVER, 0
    )
    tile = schedule.tile_id[interval]
    dash_from = schedule.tile_end[tile] - schedule.tile_added[tile]
    y_max = max(1.0, float(well_top.max(initial=0.0)), float(fill_top.max(initial=0.0)))
    return Scene(
        x0=x0,
        x1=x1,
        phase=schedule.phase[interval].astype(np.int32),
        tile=schedule.tile[interval].astype(np.int32),
        base_y=base_c.astype(np.float32),
        line_y=line.astype(np.float32),
        well_top=well_top.astype(np.float32),
        fill_top=fill_top.astype(np.float32),
        dash_from=dash_from,
        flags=flags.astype(np.uint8),
        over_t0=schedule.over_t0.astype(np.float64),
        over_t1=schedule.over_t1.astype(np.float64),
        over_resource=schedule.over_resource.astype(np.uint8),
        over_demand=schedule.over_demand.astype(np.float64),
        pipe_width=float(pipe_width),
        x_max=float(schedule.makespan),
        y_max=y_max,
        **_group_bands(schedule, fusion_group),
        edges=schedule.edge_time,
        x0_edge=e0,
        x1_edge=e1,
    )


def _group_bands(schedule: Schedule, fusion_group: np.ndarray | None) -> dict:
    """Per fusion group, one band from its first start to its last end (groups run as units)."""
    if fusion_group is None or not (np.asarray(fusion_group) >= 0).any():
        empty = np.zeros(0)
        return {"group_t0": empty, "group_t1": empty, "group_id": np.zeros(0, np.int32)}
    group = np.asarray(fusion_group)[schedule.phase]
    ids = np.unique(group[group >= 0])
    t0 = np.array([schedule.start[group == g].min() for g in ids])
    t1 = np.array([schedule.end[group == g].max() for g in ids])
    return {"group_t0": t0, "group_t1": t1, "group_id": ids.astype(np.int32)}


def empty_scene(schedule: Schedule, pipe_width: float = PIPE_WIDTH) -> Scene:
    """A scene with no pieces but the schedule's time span (when the real one cannot be drawn)."""
    none_f, none_i = np.zeros(0), np.zeros(0, dtype=np.int32)
    return Scene(
        x0=none_f,
        x1=none_f,
        phase=none_i,
        tile=none_i,
        base_y=none_f.astype(np.float32),
        line_y=none_f.astype(np.float32),
        well_top=none_f.astype(np.float32),
        fill_top=none_f.astype(np.float32),
        dash_from=none_f,
        flags=np.zeros(0, np.uint8),
        over_t0=none_f,
        over_t1=none_f,
        over_resource=np.zeros(0, np.uint8),
        over_demand=none_f,
        pipe_width=float(pipe_width),
        x_max=float(schedule.makespan),
        y_max=1.0 + pipe_width,
        **_group_bands(schedule, None),
    )


def _stack(schedule: Schedule) -> tuple[np.ndarray, ...]:
    """Cut the tile intervals at every start and end, stack the concurrent ones, merge unchanged runs.

    Returns, per piece: the interval it belongs to, its span (as indices into ``edge_time``), the compute and memory stacked below
    it, and its own rates (the interval's requested rates × the throttle factor there). Stacking
    order at an instant: earlier-started tile at the bottom, then the heavier memory user (as in the
    paper's figures), then phase order.
    """
    first, last = schedule.start_edge, schedule.end_edge
    n = first.size
    spans = last - first
    factor = schedule.edge_factor
    if n == 0 or spans.max(initial=0) <= 1 and not _overlapping(schedule.start, schedule.end):
        f = factor[np.minimum(first, factor.size - 1)] if factor.size else np.ones(n)
        c, m = schedule.requested_compute * f, schedule.requested_memory * f
        return np.arange(n), first.copy(), last.copy(), np.zeros(n), np.zeros(n), c, m

    total = int(spans.sum())
    if total > MAX_PIECES:
        raise SceneTooLargeError(
            f"stacking this schedule's {n:,} tile intervals cuts them into {total:,} pieces, above the diagram's "
            f"limit of {MAX_PIECES:,}: too many tiles run side by side; use fewer tiles or a dilating policy"
        )
    # stacking rank of each interval: earlier start, heavier memory, phase (one sort of the intervals)
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((schedule.phase, -schedule.requested_memory, schedule.start))] = np.arange(n)
    if np.all(spans == 1):  # every interval within one step of the edges (e.g. lockstep): one piece each
        return _stack_whole(schedule, rank)
    return _stack_cut(schedule, rank, spans)


def _stack_cut(schedule: Schedule, rank: np.ndarray, spans: np.ndarray) -> tuple[np.ndarray, ...]:
    """``_stack`` in general: intervals cut at every edge they span, stacked, unchanged runs merged."""
    first, factor = schedule.start_edge, schedule.edge_factor
    n, total = first.size, int(spans.sum())
    interval = np.repeat(np.arange(n), spans)
    offsets = np.cumsum(spans) - spans
    elem = first[interval] + (np.arange(total) - offsets[interval])

    order = np.argsort(elem * n + rank[interval], kind="stable")
    f = factor[elem]
    c_piece = schedule.requested_compute[interval] * f
    m_piece = schedule.requested_memory[interval] * f
    elem_sorted = elem[order]
    group_first = np.r_[True, elem_sorted[1:] != elem_sorted[:-1]]
    base_c = np.empty(total)
    base_m = np.empty(total)
    base_c[order] = _exclusive_group_cumsum(c_piece[order], group_first)
    base_m[order] = _exclusive_group_cumsum(m_piece[order], group_first)

    # Merge consecutive pieces of one interval whose stacking and throttle factor did not change.
    same = np.r_[
        False,
        (interval[1:] == interval[:-1])
        & (f[1:] == f[:-1])
        & np.isclose(base_c[1:], base_c[:-1], rtol=0, atol=1e-12)
        & np.isclose(base_m[1:], base_m[:-1], rtol=0, atol=1e-12),
    ]
    keep = ~same
    run_last = np.r_[np.flatnonzero(keep)[1:] - 1, total - 1]
    x0 = elem[keep]
    x1 = elem[run_last] + 1
    base_c, base_m, interval = base_c[keep], base_m[keep], interval[keep]
    c_piece, m_piece = c_piece[keep], m_piece[keep]
    # by time, then bottom to top: the stacking order restricted to the first piece of each run
    first_in_order = order[keep[order]]
    by_time = (np.cumsum(keep) - 1)[first_in_order]
    return (
        interval[by_time],
        x0[by_time],
        x1[by_time],
        base_c[by_time],
        base_m[by_time],
        c_piece[by_time],
        m_piece[by_time],
    )


def _stack_whole(schedule: Schedule, rank: np.ndarray) -> tuple[np.ndarray, ...]:
    """``_stack`` when each interval spans one step of the edges: no cuts and no merges, so the pieces
    are the intervals, put in stacking order once and summed in that order (no scatter back)."""
    first = schedule.start_edge
    n = first.size
    order = np.argsort(first * n + rank, kind="stable")
    edge = first[order]
    f = schedule.edge_factor[edge]
    c = schedule.requested_compute[order] * f
    m = schedule.requested_memory[order] * f
    group_first = np.r_[True, edge[1:] != edge[:-1]]
    return (
        order,
        edge,
        schedule.end_edge[order],
        _exclusive_group_cumsum(c, group_first),
        _exclusive_group_cumsum(m, group_first),
        c,
        m,
    )


def _overlapping(start: np.ndarray, end: np.ndarray) -> bool:
    order = np.argsort(start, kind="stable")
    return bool(np.any(start[order][1:] < np.maximum.accumulate(end[order])[:-1] - 1e-15))


def _exclusive_group_cumsum(values: np.ndarray, group_first: np.ndarray) -> np.ndarray:
    """Per element, the sum of the earlier elements of its group (groups are runs marked by
    ``group_first``)."""
    before = np.cumsum(values) - values
    starts = np.flatnonzero(group_first)
    return before - np.repeat(before[starts], np.diff(np.r_[starts, values.size]))
