"""The schedule engine as it was before issue 12, kept verbatim as a slow test oracle.

It simulates every event in Python and cuts every running tile at every change of the throttle
factor, so its output is the plain list of constant-rate pieces (docs/semantics.md#schedules). The fast engine in
``campaign_widget.model.schedule`` must reproduce it: same tiles, same times, same pieces
(``Schedule.pieces()``), same demand and oversubscription. Only the import of ``ScheduleError``
and the entry point's name changed.
"""

from __future__ import annotations

import heapq
import numbers
from dataclasses import dataclass, field

import numpy as np

from campaign_widget.errors import ScheduleError

POLICIES = ("none", "dilate", "throttle", "dilate+throttle")
MAX_TILE_INTERVALS = 10_000_000
DEMAND_TOLERANCE = 1e-9
_SAME_INSTANT = 1e-12


@dataclass(frozen=True, eq=False)
class Schedule:
    """When each tile of each phase runs, and at what rates.

    Interval arrays (one entry per constant-rate piece): ``phase`` (index into ``names``),
    ``tile``, ``start``, ``end``, ``compute_rate``, ``memory_rate`` (fractions of peak),
    ``requested_compute``, ``requested_memory`` (the rates asked for before throttling),
    ``dilation`` and ``throttling`` (the part of the interval's length added by each).
    ``tile_id`` maps each interval to its tile in the ``tile_*`` arrays.
    """

    names: tuple[str, ...]
    resource_names: tuple[str, str]
    tiles: int
    pipeline: bool
    policy: str
    depth: int
    phase: np.ndarray
    tile: np.ndarray
    start: np.ndarray
    end: np.ndarray
    compute_rate: np.ndarray
    memory_rate: np.ndarray
    requested_compute: np.ndarray
    requested_memory: np.ndarray
    dilation: np.ndarray
    throttling: np.ndarray
    tile_id: np.ndarray
    tile_start: np.ndarray
    tile_end: np.ndarray
    tile_requested: np.ndarray
    makespan: float
    peak_demand: dict = field(default_factory=dict)
    oversubscribed: list = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.start.size)

    @property
    def tile_added(self) -> np.ndarray:
        """Per tile, the time added to its requested length by dilation and throttling."""
        return (self.tile_end - self.tile_start) - self.tile_requested

    def demand(self, requested: bool = False):
        """The summed demand over time: ``(times, compute, memory)``, piecewise constant on
        ``[times[k], times[k+1])``. ``requested=True`` gives the demand before throttling."""
        c = self.requested_compute if requested else self.compute_rate
        m = self.requested_memory if requested else self.memory_rate
        return demand_profile(self.start, self.end, c, m)

    def to_dataframe(self):
        """The intervals as a pandas DataFrame (needs pandas)."""
        from ._optional import require_pandas

        pd = require_pandas("Schedule.to_dataframe")
        return pd.DataFrame(
            {
                "phase": np.array(self.names, dtype=object)[self.phase],
                "tile": self.tile,
                "start": self.start,
                "end": self.end,
                "compute_rate": self.compute_rate,
                "memory_rate": self.memory_rate,
                "dilation": self.dilation,
                "throttling": self.throttling,
            }
        )

    def __repr__(self):
        mode = f"{self.tiles} tiles, " + ("pipelined" if self.pipeline else "sequential") + f", policy={self.policy!r}"
        return f"<Schedule {mode}: makespan {self.makespan:.6g}, {len(self)} intervals>"


def demand_profile(start, end, compute, memory):
    """Summed rates over time from intervals, by a sort and a cumulative sum."""
    times = np.concatenate([start, end])
    order = np.argsort(times, kind="stable")
    times = times[order]
    dc = np.concatenate([compute, -compute])[order]
    dm = np.concatenate([memory, -memory])[order]
    edges, first = np.unique(times, return_index=True)
    c = np.add.reduceat(dc, first) if dc.size else dc
    m = np.add.reduceat(dm, first) if dm.size else dm
    return edges, np.cumsum(c)[:-1] if c.size else c, np.cumsum(m)[:-1] if m.size else m


def reference_schedule(workload, *, tiles=1, pipeline=False, policy="none", depth=2) -> Schedule:
    tiles, pipeline, policy, depth = _checked_settings(workload, tiles, pipeline, policy, depth)
    a = workload.arrays
    dilate = "dilate" in policy
    throttle = "throttle" in policy
    if pipeline:
        pieces = _pipelined(
            a.duration,
            a.compute_util,
            a.memory_util,
            workload.producers,
            tiles,
            depth,
            dilate,
            throttle,
            _streaming_groups(workload),
        )
    else:
        pieces = _one_at_a_time(a.duration, a.compute_util, a.memory_util, tiles, throttle)
    return _assemble(workload, pieces, tiles=tiles, pipeline=pipeline, policy=policy, depth=depth)


def _checked_settings(workload, tiles, pipeline, policy, depth):
    if isinstance(tiles, bool) or not isinstance(tiles, numbers.Integral):
        raise ScheduleError(f"tiles={tiles!r} must be a whole number >= 1")
    if tiles < 1:
        raise ScheduleError(f"tiles={tiles!r} must be >= 1")
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1:
        raise ScheduleError(f"depth={depth!r} must be a whole number >= 1 (the buffer depth; 2 = double buffering)")
    if policy not in POLICIES:
        raise ScheduleError(f"policy={policy!r} is not one of {', '.join(repr(p) for p in POLICIES)}")
    if not isinstance(pipeline, (bool, np.bool_)):
        raise ScheduleError(f"pipeline={pipeline!r} must be True or False")
    tiles, depth = int(tiles), int(depth)
    count = tiles * len(workload)
    if count > MAX_TILE_INTERVALS:
        raise ScheduleError(
            f"tiles={tiles} × {len(workload)} phases = {count:,} tile intervals, above the limit of "
            f"{MAX_TILE_INTERVALS:,}; use fewer tiles"
        )
    if tiles > 1:
        fixed = np.flatnonzero(~workload.tileable)
        if fixed.size:
            raise ScheduleError(
                f"phase {workload.names[int(fixed[0])]!r} is marked tileable=False and cannot be split into "
                f"tiles={tiles}; use tiles=1 or mark it tileable"
            )
    return tiles, bool(pipeline), policy, depth


@dataclass
class _Pieces:
    tile_id: np.ndarray  # per interval
    start: np.ndarray
    end: np.ndarray
    speed: np.ndarray  # throttle factor s during the interval (1 = not throttled)
    tile_phase: np.ndarray  # per tile
    tile_number: np.ndarray
    tile_requested: np.ndarray
    tile_stretch: np.ndarray  # requested / dilated length (1 = not dilated)
    tile_start: np.ndarray
    tile_end: np.ndarray


def _one_at_a_time(duration, uc, um, tiles, throttle) -> _Pieces:
    """Tiles run alone, tile-major: A1, B1, C1, A2, … (docs/semantics.md#tiling, "tiling n")."""
    n_phases = duration.size
    phase = np.tile(np.arange(n_phases), tiles)
    number = np.repeat(np.arange(tiles), n_phases)
    requested = duration[phase] / tiles
    speed = 1.0 / np.maximum(1.0, np.maximum(uc[phase], um[phase])) if throttle else np.ones(phase.size)
    length = requested / speed
    end = np.cumsum(length)
    start = np.r_[0.0, end[:-1]]  # exactly the previous end: no float gap or overlap between tiles
    ids = np.arange(phase.size)
    return _Pieces(
        tile_id=ids,
        start=start,
        end=end,
        speed=speed,
        tile_phase=phase,
        tile_number=number,
        tile_requested=requested,
        tile_stretch=np.ones(phase.size),
        tile_start=start,
        tile_end=end,
    )


def _streaming_groups(workload) -> np.ndarray | None:
    """Per phase, the group within which tiles stream to each other; None: all phases stream.

    In a fused workload tiles stream only inside a fusion group: between groups data goes through
    memory, so a consumer group starts when its producer's last tile is done.
    """
    if not workload.fusion_groups:
        return None
    group = workload.fusion_group.copy()
    solo = group < 0
    group[solo] = group.max(initial=-1) + 1 + np.arange(int(solo.sum()))
    return group


def _pipelined(duration, uc, um, producers, tiles, depth, dilate, throttle, group=None) -> _Pieces:
    """Event-driven, fluid simulation of the pipelined tiles (docs/semantics.md#pipelining).

    Tile i of phase p is ready when tile i of each producer, its own tile i-1, and tile i-depth of
    each consumer are done; across fusion groups (``group``), tile 0 waits for the producer's last
    tile instead. Throttling scales all running tiles by one shared factor, so progress
    is tracked in *work time* W (real time × factor): a tile finishes at a fixed W, which keeps one
    heap ordering valid however the factor changes — O(E log E) in tile intervals.
    """
    n_phases = duration.size
    indptr, prod = producers
    all_prods = [prod[indptr[p] : indptr[p + 1]].tolist() for p in range(n_phases)]
    streams = (lambda q, p: True) if group is None else (lambda q, p: group[q] == group[p])
    prods = [[q for q in all_prods[p] if streams(q, p)] for p in range(n_phases)]
    barrier_prods = [[q for q in all_prods[p] if not streams(q, p)] for p in range(n_phases)]
    cons: list[list[int]] = [[] for _ in range(n_phases)]
    barrier_cons: list[list[int]] = [[] for _ in range(n_phases)]
    for p in range(n_phases):
        for q in prods[p]:
            cons[q].append(p)
        for q in barrier_prods[p]:
            barrier_cons[q].append(p)
    n_tiles = n_phases * tiles
    per_tile = (duration / tiles).tolist()
    uc_l, um_l = uc.tolist(), um.tolist()

    i_of = np.tile(np.arange(tiles), n_phases)
    n_prod = np.repeat([len(q) for q in prods], tiles)
    n_barrier = np.repeat([len(q) for q in barrier_prods], tiles)
    n_cons = np.repeat([len(c) for c in cons], tiles)
    waiting = (n_prod + (i_of > 0) + n_cons * (i_of >= depth) + n_barrier * (i_of == 0)).tolist()

    tile_start = [0.0] * n_tiles
    tile_end = [0.0] * n_tiles
    tile_stretch = [1.0] * n_tiles
    out_tile, out_start, out_end, out_speed = [], [], [], []
    running: dict[int, float] = {}  # tile id -> start of its current constant-rate piece
    rate: dict[int, tuple[float, float]] = {}
    heap: list[tuple[float, int]] = []
    t = work = 0.0
    speed = 1.0
    demand_c = demand_m = 0.0
    batch = [p * tiles for p in range(n_phases) if waiting[p * tiles] == 0]

    while batch or heap:
        if batch:
            longest = max(per_tile[k // tiles] for k in batch)
            several_phases = len(batch) > 1
            for k in batch:
                d = per_tile[k // tiles]
                stretched = longest if (dilate and several_phases) else d
                ratio = d / stretched
                c, m = uc_l[k // tiles] * ratio, um_l[k // tiles] * ratio
                heapq.heappush(heap, (work + stretched, k))
                rate[k] = (c, m)
                demand_c += c
                demand_m += m
                tile_start[k] = t
                tile_stretch[k] = ratio
                running[k] = t
            batch = []
        worst = max(demand_c, demand_m)
        new_speed = 1.0 / worst if (throttle and worst > 1.0 + _SAME_INSTANT) else 1.0
        if new_speed != speed:
            for k, piece_start in running.items():
                if piece_start < t:
                    out_tile.append(k)
                    out_start.append(piece_start)
                    out_end.append(t)
                    out_speed.append(speed)
                    running[k] = t
            speed = new_speed
        finish = heap[0][0]
        t += (finish - work) / speed
        work = finish
        limit = finish + _SAME_INSTANT * max(1.0, abs(finish))
        while heap and heap[0][0] <= limit:
            _, k = heapq.heappop(heap)
            out_tile.append(k)
            out_start.append(running.pop(k))
            out_end.append(t)
            out_speed.append(speed)
            tile_end[k] = t
            c, m = rate.pop(k)
            demand_c -= c
            demand_m -= m
            p, i = divmod(k, tiles)
            for dependent in _dependents(p, i, tiles, depth, prods[p], cons[p], barrier_cons[p]):
                waiting[dependent] -= 1
                if waiting[dependent] == 0:
                    batch.append(dependent)
        if not running:
            demand_c = demand_m = 0.0  # no drift carried across idle instants
    tile_ids = np.asarray(out_tile, dtype=np.int64)
    return _Pieces(
        tile_id=tile_ids,
        start=np.asarray(out_start),
        end=np.asarray(out_end),
        speed=np.asarray(out_speed),
        tile_phase=np.repeat(np.arange(n_phases), tiles),
        tile_number=i_of,
        tile_requested=np.repeat(duration / tiles, tiles),
        tile_stretch=np.asarray(tile_stretch),
        tile_start=np.asarray(tile_start),
        tile_end=np.asarray(tile_end),
    )


def _dependents(p, i, tiles, depth, producers, consumers, barrier_consumers):
    for c in consumers:
        yield c * tiles + i
    if i == tiles - 1:
        for c in barrier_consumers:
            yield c * tiles
    if i + 1 < tiles:
        yield p * tiles + i + 1
    if i + depth < tiles:
        for q in producers:
            yield q * tiles + i + depth


def _assemble(workload, pieces: _Pieces, *, tiles, pipeline, policy, depth) -> Schedule:
    a = workload.arrays
    order = np.lexsort((pieces.tile_id, pieces.start))
    tile_id = pieces.tile_id[order]
    start, end, speed = pieces.start[order], pieces.end[order], pieces.speed[order]
    phase = pieces.tile_phase[tile_id]
    stretch = pieces.tile_stretch[tile_id]
    requested_c = a.compute_util[phase] * stretch
    requested_m = a.memory_util[phase] * stretch
    length = end - start
    m = workload.machine
    resources = (m.compute_name, m.memory_name)
    peak, over = _demand_report(
        start, end, requested_c, requested_m, requested_c * speed, requested_m * speed, resources
    )
    return Schedule(
        names=tuple(workload.names),
        resource_names=resources,
        tiles=tiles,
        pipeline=pipeline,
        policy=policy,
        depth=depth,
        phase=phase,
        tile=pieces.tile_number[tile_id],
        start=start,
        end=end,
        compute_rate=requested_c * speed,
        memory_rate=requested_m * speed,
        requested_compute=requested_c,
        requested_memory=requested_m,
        dilation=length * speed * (1.0 - stretch),
        throttling=length * (1.0 - speed),
        tile_id=tile_id,
        tile_start=pieces.tile_start,
        tile_end=pieces.tile_end,
        tile_requested=pieces.tile_requested,
        makespan=float(pieces.tile_end.max()) if pieces.tile_end.size else 0.0,
        peak_demand=peak,
        oversubscribed=over,
    )


def _demand_report(start, end, req_c, req_m, act_c, act_m, resources):
    """Peak requested demand per resource, and the intervals where actual demand exceeds 1."""
    _, rc, rm = demand_profile(start, end, req_c, req_m)
    peak = {resources[0]: float(rc.max(initial=0.0)), resources[1]: float(rm.max(initial=0.0))}
    edges, ac, am = demand_profile(start, end, act_c, act_m)
    over = []
    for resource, demand in zip(resources, (ac, am)):
        hot = demand > 1.0 + DEMAND_TOLERANCE
        if not hot.any():
            continue
        # merge runs of equal demand on adjacent elementary intervals
        idx = np.flatnonzero(hot)
        breaks = np.flatnonzero((np.diff(idx) != 1) | ~np.isclose(np.diff(demand[idx]), 0.0, atol=1e-12)) + 1
        for run in np.split(idx, breaks):
            over.append((float(edges[run[0]]), float(edges[run[-1] + 1]), resource, float(demand[run[0]])))
    over.sort()
    return peak, over


# -- the diagram's geometry as it was before issue 12 (campaign_widget/figures/scene.py at a19a267) --------

from campaign_widget.figures.scene import COMPUTE_OVER, MEMORY_OVER, PIPE_WIDTH, Scene  # noqa: E402

MAX_PIECES = 2_000_000


def reference_scene(schedule, pipe_width=PIPE_WIDTH, fusion_group=None) -> Scene:
    """The diagram of ``schedule``; ``fusion_group`` (per phase, -1 for none) adds group bands."""
    interval, x0, x1, base_c, base_m = _stack(schedule)
    c = schedule.compute_rate[interval]
    m = schedule.memory_rate[interval]
    line = base_c + c
    well_top = line + pipe_width * np.maximum(0.0, 1.0 - base_m)
    fill_top = line + pipe_width * m
    flags = np.where(line > 1.0 + DEMAND_TOLERANCE, COMPUTE_OVER, 0) | np.where(
        base_m + m > 1.0 + DEMAND_TOLERANCE, MEMORY_OVER, 0
    )
    tile = schedule.tile_id[interval]
    dash_from = schedule.tile_end[tile] - schedule.tile_added[tile]
    over = schedule.oversubscribed
    resources = schedule.resource_names
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
        over_t0=np.array([o[0] for o in over], dtype=np.float64),
        over_t1=np.array([o[1] for o in over], dtype=np.float64),
        over_resource=np.array([resources.index(o[2]) for o in over], dtype=np.uint8),
        over_demand=np.array([o[3] for o in over], dtype=np.float64),
        pipe_width=float(pipe_width),
        x_max=float(schedule.makespan),
        y_max=y_max,
        **_group_bands(schedule, fusion_group),
    )


def _group_bands(schedule: Schedule, fusion_group) -> dict:
    """Per fusion group, one band from its first start to its last end (groups run as units)."""
    if fusion_group is None or not (np.asarray(fusion_group) >= 0).any():
        empty = np.zeros(0)
        return {"group_t0": empty, "group_t1": empty, "group_id": np.zeros(0, np.int32)}
    group = np.asarray(fusion_group)[schedule.phase]
    ids = np.unique(group[group >= 0])
    t0 = np.array([schedule.start[group == g].min() for g in ids])
    t1 = np.array([schedule.end[group == g].max() for g in ids])
    return {"group_t0": t0, "group_t1": t1, "group_id": ids.astype(np.int32)}


def _stack(schedule: Schedule):
    """Cut intervals at every start and end, stack the concurrent ones, merge unchanged runs.

    Returns, per piece: the interval it belongs to, its span, and the compute and memory
    stacked below it. Stacking order at an instant: earlier-started tile at the bottom, then the
    heavier memory user (as in the paper's figures), then phase order.
    """
    start, end = schedule.start, schedule.end
    n = start.size
    edges = np.unique(np.concatenate([start, end]))
    first = np.searchsorted(edges, start)
    last = np.searchsorted(edges, end)
    spans = last - first
    if n == 0 or spans.max(initial=0) <= 1 and not _overlapping(start, end):
        return np.arange(n), start.copy(), end.copy(), np.zeros(n), np.zeros(n)

    total = int(spans.sum())
    if total > MAX_PIECES:
        raise ValueError(
            f"stacking this schedule's {n:,} intervals cuts them into {total:,} pieces, above the diagram's "
            f"limit of {MAX_PIECES:,}: too many tiles run side by side; use fewer tiles or a throttling policy"
        )
    interval = np.repeat(np.arange(n), spans)
    offsets = np.cumsum(spans) - spans
    elem = first[interval] + (np.arange(interval.size) - offsets[interval])

    tile_start = schedule.tile_start[schedule.tile_id][interval]
    order = np.lexsort((schedule.phase[interval], -schedule.requested_memory[interval], tile_start, elem))
    c_sorted = schedule.compute_rate[interval][order]
    m_sorted = schedule.memory_rate[interval][order]
    elem_sorted = elem[order]
    group_first = np.r_[True, elem_sorted[1:] != elem_sorted[:-1]]
    base_c = np.empty(interval.size)
    base_m = np.empty(interval.size)
    base_c[order] = _exclusive_group_cumsum(c_sorted, group_first)
    base_m[order] = _exclusive_group_cumsum(m_sorted, group_first)

    # Merge consecutive pieces of one interval whose stacking did not change.
    same = np.r_[
        False,
        (interval[1:] == interval[:-1])
        & np.isclose(base_c[1:], base_c[:-1], rtol=0, atol=1e-12)
        & np.isclose(base_m[1:], base_m[:-1], rtol=0, atol=1e-12),
    ]
    keep = ~same
    run_last = np.r_[np.flatnonzero(keep)[1:] - 1, interval.size - 1]
    x0 = edges[elem[keep]]
    x1 = edges[elem[run_last] + 1]
    base_c, base_m, interval = base_c[keep], base_m[keep], interval[keep]
    by_time = np.lexsort((base_c, x0))
    return interval[by_time], x0[by_time], x1[by_time], base_c[by_time], base_m[by_time]


def _overlapping(start, end) -> bool:
    order = np.argsort(start, kind="stable")
    return bool(np.any(start[order][1:] < np.maximum.accumulate(end[order])[:-1] - 1e-15))


def _exclusive_group_cumsum(values, group_first):
    total = np.cumsum(values)
    before = total - values
    group_start_index = np.maximum.accumulate(np.where(group_first, np.arange(values.size), 0))
    return before - before[group_start_index]
