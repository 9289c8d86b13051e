"""Schedules: tiling, pipelining on any DAG, dilation and fluid throttling (design.md §3).

A schedule is a set of *tile intervals*, one per tile: its phase, tile number, start, end and the
rates it requests (after dilation). Throttling scales every running tile by one shared factor
(design.md §3), so the factor is kept once, as a piecewise-constant *timeline* over the instants
where any tile starts or ends, not copied into every tile: a schedule's size is linear in tiles +
events whatever the policy. The constant-rate pieces of the tiles (a tile cut wherever the factor
changes while it runs) are derived on request by ``Schedule.pieces()``, and the diagram
(``campaign_widget.figures.scene``) cuts the tiles only where it draws them.

How it is computed. Throttling divides every running tile's progress by the same factor, so in
*work time* W (real time × factor, integrated) the schedule is the unthrottled one: the same
tiles start together, in the same order, whatever the factor. The engine therefore simulates the
unthrottled schedule in W, then maps W to real time once through the demand profile (one sort of
the starts and ends, a cumulative sum over the events). The pipelined simulation is a wavefront:
tile i of phase p sits on level ``a[p] + T·i``, every dependency of a tile on a lower level, and
each level is one numpy step (start = the latest end among its dependencies). Under dilation,
tiles that start at the same instant form a batch: each level is taken as one batch (a pipelined
chain runs in lock step); if a level's tiles do not start together the levels are renumbered by
longest dependency path and the sweep runs once more; and a final check (positive lengths, no
batch across two levels, no two distinct instants closer than the event tolerance) hands any case
it cannot vouch for to the exact event-by-event simulation (``_event_work``). The result is always
the event semantics of design.md §3; tests/schedule_reference.py, which simulates every event in
Python and stores every piece, is the tests' oracle.

The schedule as data (``Schedule``, with its demand timeline) is defined in ``campaign_widget.model.timeline``
beside the measured ``Timeline``; the demand helpers both use are in ``campaign_widget.model.demand``.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ScheduleError, short_repr
from .demand import DEMAND_TOLERANCE, oversubscribed_runs
from .settings import POLICIES, STEPPINGS, Policy, Settings
from .timeline import MAX_PIECES, Schedule

if TYPE_CHECKING:
    from .workload import PhaseArrays, Workload

__all__ = [
    "DEMAND_TOLERANCE",
    "MAX_PIECES",
    "MAX_TILE_INTERVALS",
    "POLICIES",
    "STEPPINGS",
    "Plans",
    "Schedule",
    "build_schedule",
    "build_schedules",
]

MAX_TILE_INTERVALS = 10_000_000
_SAME_INSTANT = 1e-12


def build_schedule(
    workload: Workload,
    *,
    tiles: int = 1,
    pipeline: bool = False,
    policy: str = "none",
    depth: int = 2,
    stepping: str = "event",
    _wavefront: bool = True,
    _plans: Plans | None = None,
) -> Schedule:
    """The schedule of ``workload`` (design.md §3); see ``Workload.schedule``.

    ``stepping`` says when a pipelined tile starts: ``"event"`` (design.md §3) as soon as its
    producers and buffers allow; ``"lockstep"`` the rule of the paper authors' tool
    (campaign_diagram_tools, docs/lockstep.md): the tiles run in steps, step k holding tile k - p
    of the phase p steps from the first, each step starting when the longest tile of the previous
    step ends (``depth`` plays no part). ``_wavefront=False`` (tests only) runs the event-by-event
    simulation instead of the wavefront. ``_plans`` (a ``Plans``, kept by ``campaign_widget.sweep``)
    reuses the dependency graph and the wavefront's tile order across schedules of one workload
    structure; the schedule is the same with or without it."""
    chosen = _checked_settings(workload, tiles, pipeline, policy, depth, stepping)
    tiles, buffer, dilate = chosen.tiles, chosen.buffer, chosen.policy.dilates
    a = workload.arrays
    if not chosen.pipeline:
        work = _one_at_a_time_work(a.duration, tiles)
        profile = _profile(work, a)
    elif chosen.stepping == "lockstep":
        if workload.fusion_groups:
            raise ScheduleError(
                "stepping='lockstep' (campaign_diagram_tools' rule) has no fusion groups: their "
                "tiles wait for a whole producer group; use stepping='event' for a fused workload"
            )
        work = _lockstep_work(_graph(workload.producers, len(workload), None), a.duration, tiles, dilate)
        profile = _profile(work, a)
    else:
        if _plans is not None:
            graph, plan = _plans.wavefront(workload, tiles, buffer)
        else:
            graph = _graph(workload.producers, len(workload), workload.streaming_groups)
            plan = _wavefront_plan(graph, tiles, buffer) if _wavefront else None
        work = _wavefront_work(plan, a.duration, dilate) if _wavefront and plan is not None else None
        profile = _profile(work, a) if work is not None else None
        if work is None or (dilate and not _batches_are_levels(work, profile)):
            work = _event_work(graph, a.duration, tiles, buffer, dilate)
            profile = _profile(work, a)
    return _assemble(workload, work, profile, chosen)


def build_schedules(
    workloads: Sequence[Workload],
    *,
    tiles: int = 1,
    pipeline: bool = False,
    policy: str = "none",
    depth: int = 2,
    stepping: str = "event",
    plans: Plans,
) -> list[Schedule]:
    """``build_schedule`` of each workload with the same settings, for a sweep: the workloads have
    one structure (the same phases, dependencies and fusion groups; other durations, e.g. other
    peaks), so the pipelined wavefront runs for all of them at once (``_wavefront_works``). Each
    schedule is the one ``build_schedule`` gives, bit for bit; anything else (one workload, no
    pipelining, lock-step, workloads of several structures) is scheduled one at a time."""
    workloads = list(workloads)
    if len(workloads) < _BATCH_MIN or not pipeline or stepping != "event" or not plans.shared(workloads):
        return [
            build_schedule(
                w, tiles=tiles, pipeline=pipeline, policy=policy, depth=depth, stepping=stepping, _plans=plans
            )
            for w in workloads
        ]
    chosen = _checked_settings(workloads[0], tiles, pipeline, policy, depth, stepping)
    tiles, buffer, dilate = chosen.tiles, chosen.buffer, chosen.policy.dilates
    graph, plan = plans.wavefront(workloads[0], tiles, buffer)
    if plan is None:
        works: list[_Work | None] = [None] * len(workloads)
    else:
        works = _wavefront_works(plan, np.stack([w.arrays.duration for w in workloads]), dilate)
    out = []
    for w, work in zip(workloads, works):  # the rest as in build_schedule
        a = w.arrays
        profile = _profile(work, a) if work is not None else None
        if work is None or (dilate and not _batches_are_levels(work, profile)):
            work = _event_work(graph, a.duration, tiles, buffer, dilate)
            profile = _profile(work, a)
        out.append(_assemble(w, work, profile, chosen))
    return out


_BATCH_MIN = 4  # below this many workloads, one at a time is as fast (thin levels sweep tile by tile in Python)


@dataclass(frozen=True)
class _Chosen:
    """Checked settings, as the engine reads them."""

    tiles: int
    pipeline: bool
    policy: Policy
    depth: int  # as asked for (the schedule reports it)
    buffer: int  # the depth the engine uses: at most ``tiles``, which is already an unbounded buffer
    stepping: str  # "event" whenever not pipelined


def _checked_settings(
    workload: Workload, tiles: int, pipeline: bool, policy: str, depth: int, stepping: str
) -> _Chosen:
    s = Settings(tiles=tiles, pipeline=pipeline, policy=policy, depth=depth, stepping=stepping)
    count = s.tiles * len(workload)
    if count > MAX_TILE_INTERVALS:
        raise ScheduleError(
            f"tiles={s.tiles} × {len(workload)} phases = {count:,} tile intervals, above the limit of "
            f"{MAX_TILE_INTERVALS:,}; use fewer tiles"
        )
    if s.tiles > 1:
        fixed = np.flatnonzero(~workload.tileable)
        if fixed.size:
            raise ScheduleError(
                f"phase {short_repr(workload.names[int(fixed[0])])} is marked tileable=False and cannot be split into "
                f"tiles={s.tiles}; use tiles=1 or mark it tileable"
            )
    # Tile i of a producer waits for tile i - depth of its consumers: with depth >= tiles there is no
    # such tile, whatever the depth, so the engine's tables are sized by min(depth, tiles).
    return _Chosen(
        tiles=s.tiles,
        pipeline=bool(s.pipeline),
        policy=Policy.named(s.policy),
        depth=s.depth,
        buffer=min(s.depth, s.tiles),
        stepping=s.stepping if s.pipeline else "event",
    )


@dataclass
class _Work:
    """The unthrottled schedule in work time, per tile (tile order)."""

    start: np.ndarray
    end: np.ndarray
    phase: np.ndarray
    number: np.ndarray
    requested: np.ndarray  # requested length (duration / tiles)
    stretch: np.ndarray  # requested / dilated length (1 = not dilated)
    level: np.ndarray | None = None  # wavefront level of each tile (None: not computed by wavefront)


def _one_at_a_time_work(duration: np.ndarray, tiles: int) -> _Work:
    """Tiles run alone, tile-major: A1, B1, C1, A2, … (design.md §3, "tiling n")."""
    n_phases = duration.size
    phase = np.tile(np.arange(n_phases), tiles)
    number = np.repeat(np.arange(tiles), n_phases)
    requested = duration[phase] / tiles
    end = np.cumsum(requested)
    start = np.r_[0.0, end[:-1]]  # exactly the previous end: no float gap or overlap between tiles
    return _Work(start=start, end=end, phase=phase, number=number, requested=requested, stretch=np.ones(phase.size))


class _Graph:
    """The pipelined dependencies between phases (design.md §3): tile i of phase p waits for tile i
    of each streaming producer, its own tile i-1, tile i-depth of each streaming consumer, and (tile
    0 only) the last tile of each producer in another group. Edges as arrays (producer, consumer),
    sorted by consumer; the per-phase lists only when the event simulation asks for them."""

    def __init__(self, producers: tuple[np.ndarray, np.ndarray], n_phases: int, group: np.ndarray | None) -> None:
        indptr, prod = producers
        self.n = n_phases
        self.group = np.zeros(n_phases, dtype=np.int64) if group is None else np.asarray(group)
        consumer = np.repeat(np.arange(n_phases, dtype=np.int64), np.diff(indptr))
        producer = np.asarray(prod, dtype=np.int64)
        streams = self.group[producer] == self.group[consumer]
        self.stream = (producer[streams], consumer[streams])
        self.barrier = (producer[~streams], consumer[~streams])

    def __len__(self) -> int:
        return self.n

    def lists(self, edges: tuple[np.ndarray, np.ndarray], by_consumer: bool) -> list[list[int]]:
        """Per phase, its producers (``by_consumer``) or its consumers along ``edges``."""
        out: list[list[int]] = [[] for _ in range(self.n)]
        for q, c in zip(edges[0].tolist(), edges[1].tolist()):
            (out[c] if by_consumer else out[q]).append(q if by_consumer else c)
        return out

    def table(self, edges: tuple[np.ndarray, np.ndarray], by_consumer: bool, missing: int) -> np.ndarray:
        """Per phase its producers (``by_consumer``) or consumers as columns of a padded table:
        ``table[j, p]`` is p's j-th one, ``missing`` where p has fewer."""
        key, value = (edges[1], edges[0]) if by_consumer else (edges[0], edges[1])
        if key.size == 0:
            return np.zeros((0, self.n), dtype=np.int64)
        order = np.argsort(key, kind="stable")
        key, value = key[order], value[order]
        first = np.r_[True, key[1:] != key[:-1]]
        rank = np.arange(key.size) - np.maximum.accumulate(np.where(first, np.arange(key.size), 0))
        table = np.full((int(rank.max()) + 1, self.n), missing, dtype=np.int64)
        table[rank, key] = value
        return table


def _graph(producers: tuple[np.ndarray, np.ndarray], n_phases: int, group: np.ndarray | None) -> _Graph:
    return _Graph(producers, n_phases, group)


def _tile_arrays(n_phases: int, tiles: int, duration: np.ndarray) -> dict[str, np.ndarray]:
    """Per tile, in tile order (tile i of phase p is ``p * tiles + i``): phase, number, requested length."""
    return dict(
        phase=np.repeat(np.arange(n_phases, dtype=np.int64), tiles),
        number=np.tile(np.arange(tiles, dtype=np.int64), n_phases),
        requested=np.repeat(duration / tiles, tiles),
    )


def _levels(g: _Graph, tiles: int, depth: int) -> tuple[np.ndarray, int] | None:
    """Per phase the offset ``a`` and the period ``T`` of the wavefront level ``a[p] + T·i``, or None.

    Every dependency must sit on a lower level: a streaming producer q of p needs a[q] < a[p];
    the back-pressure edge (p, i-depth) → (q, i) needs a[p] - a[q] < T·depth; tile i-1 needs T >= 1;
    a barrier (q's last tile → p's tile 0) needs a[q] + T·(tiles-1) < a[p]. Phases of one streaming
    group move together: a = the group's offset + the longest streaming path inside the group.
    """
    n_phases = len(g)
    sq, sc = g.stream
    lev = [0] * n_phases  # longest streaming path; edges sorted by consumer, producers come first
    for q, c in zip(sq.tolist(), sc.tolist()):
        if lev[q] + 1 > lev[c]:
            lev[c] = lev[q] + 1
    lev = np.asarray(lev, dtype=np.int64)
    span = int((lev[sc] - lev[sq]).max(initial=0))
    period = span // depth + 1 if tiles > depth else 1
    bq, bc = g.barrier
    if bq.size == 0:
        return lev, period
    offset = np.zeros(int(g.group.max()) + 1, dtype=np.int64)
    jump = period * (tiles - 1) + 1
    edges = list(zip(bq.tolist(), bc.tolist()))
    for _ in range(offset.size + 1):  # longest path over the (acyclic) graph of groups
        changed = False
        for q, p in edges:
            need = offset[g.group[q]] + lev[q] + jump - lev[p]
            if need > offset[g.group[p]]:
                offset[g.group[p]] = need
                changed = True
        if not changed:
            return offset[g.group] + lev, period
    return None  # groups wait on each other in a cycle: the event simulation reports the deadlock


def _lockstep_work(g: _Graph, duration: np.ndarray, tiles: int, dilate: bool) -> _Work:
    """campaign_diagram_tools' lock-step pipelining (``Cascade.pipeline``), in work time.

    Tile i of phase p runs in step ``lev[p] + i`` (``lev``: the longest dependency path from a
    first phase; in a chain, the phase's position). Every tile of a step starts when the step
    starts; a step lasts as long as its longest tile; with dilation, every tile of a step is
    stretched to that length. Throttling is then applied like any other schedule's.
    """
    n_phases = len(g)
    sq, sc = g.stream
    lev = [0] * n_phases
    for q, c in zip(sq.tolist(), sc.tolist()):
        if lev[q] + 1 > lev[c]:
            lev[c] = lev[q] + 1
    arrays = _tile_arrays(n_phases, tiles, duration)
    step = np.asarray(lev, dtype=np.int64)[arrays["phase"]] + arrays["number"]
    length = arrays["requested"]
    n_steps = int(step.max(initial=-1)) + 1
    longest = np.zeros(n_steps)
    np.maximum.at(longest, step, length)
    step_start = np.r_[0.0, np.cumsum(longest)[:-1]] if n_steps else longest
    start = step_start[step]
    stretched = longest[step] if dilate else length
    return _Work(
        start=start, end=start + stretched, stretch=length / stretched if dilate else np.ones(length.size), **arrays
    )


class _Wavefront:
    """The part of the wavefront that depends on the graph, ``tiles`` and ``depth`` only, not on the
    durations: tiles in level order, each level's slice, each tile's place in the padded end table and
    its dependencies' places (``slots``). Read-only arrays: a sweep reuses one for many schedules."""

    def __init__(self, g: _Graph, tiles: int, depth: int, a: np.ndarray, period: int) -> None:
        n_phases = len(g)
        level = a[np.repeat(np.arange(n_phases, dtype=np.int64), tiles)] + period * np.tile(
            np.arange(tiles, dtype=np.int64), n_phases
        )
        top = int(level.max(initial=0))
        small = np.uint16 if top < 2**16 else np.int64  # radix sort for small keys
        order = np.argsort(level.astype(small, copy=False), kind="stable")  # tiles in level order
        counts = np.bincount(level)
        bounds = np.r_[0, np.cumsum(counts[counts > 0])].tolist()  # each non-empty level is a slice
        P = order // tiles
        I = order - P * tiles
        width = tiles + depth
        zero_row = n_phases
        flat = P * width + depth + I  # where each tile (level order) lives in the padded table

        slots = [flat - 1]  # own tile i-1 (column depth-1 is padding for i = 0)
        for row in g.table(g.stream, True, zero_row):  # tile i of each producer
            slots.append(flat + (row[P] - P) * width)
        if tiles > depth:  # tile i-depth of each consumer (padding columns for i < depth)
            for row in g.table(g.stream, False, zero_row):
                slots.append(flat + (row[P] - P) * width - depth)
        for row in g.table(g.barrier, True, zero_row):  # tile 0 only: the last tile of a producer in another group
            q = row[P]
            slots.append(np.where((I == 0) & (q != zero_row), q * width + depth + tiles - 1, zero_row * width))
        self.n_phases, self.tiles, self.depth, self.width = n_phases, tiles, depth, width
        self.level, self.order, self.bounds, self.P, self.flat, self.slots = level, order, bounds, P, flat, slots
        for array in (level, order, P, flat, *slots):
            array.flags.writeable = False
        self._regrouped: tuple | None = None
        self._slot_table: np.ndarray | None = None

    def slot_table(self) -> np.ndarray:
        """``slots`` as one array, a row per dependency slot (for ``_sweep_rows``), made once."""
        if self._slot_table is None:
            self._slot_table = np.stack(self.slots)
            self._slot_table.flags.writeable = False
        return self._slot_table

    def regrouped(self) -> tuple:
        """The levels renumbered by longest dependency path in tiles (the batch index when batches run
        one after another): ``(regroup, order, flat, slots, bounds, level)``, computed once."""
        if self._regrouped is None:
            n_tiles = self.n_phases * self.tiles
            hops = np.zeros((self.n_phases + 1) * self.width)
            _sweep(self.bounds, self.slots, self.flat, np.ones(n_tiles), np.zeros_like(hops), hops)
            path = (hops[self.flat] - 1).astype(np.int64)  # the level: ends are path lengths in tiles
            regroup = np.argsort(path, kind="stable")
            order, flat = self.order[regroup], self.flat[regroup]
            slots = [dep[regroup] for dep in self.slots]
            counts = np.bincount(path)
            bounds = np.r_[0, np.cumsum(counts[counts > 0])].tolist()
            level = np.empty(n_tiles, dtype=np.int64)
            level[order] = path[regroup]
            for array in (regroup, order, flat, level, *slots):
                array.flags.writeable = False
            self._regrouped = (regroup, order, flat, slots, bounds, level)
        return self._regrouped


def _wavefront_plan(g: _Graph, tiles: int, depth: int) -> _Wavefront | None:
    """The durations-free part of the wavefront, or None when no level numbering exists (the event
    simulation then reports the deadlock)."""
    levels = _levels(g, tiles, depth)
    if levels is None:
        return None
    return _Wavefront(g, tiles, depth, *levels)


class Plans:
    """What schedules of one workload *structure* share, whatever the durations (a sweep over peaks,
    size parameters, tiles, depth and policy): the dependency graph, and per ``(tiles, depth)`` the
    wavefront's tile order (``_Wavefront``). ``campaign_widget.sweep`` keeps one per worker thread
    and passes it as ``build_schedule(..., _plans=)``. The structure is recognised by the identity of
    the workload's immutable producer and fusion arrays, which derived workloads (``with_peaks``,
    ``with_params``, ``with_settings``) share; a workload of another structure empties the cache, so
    a plan is never used for a graph it was not made for. Not thread-safe: one per thread."""

    def __init__(self) -> None:
        self._key: tuple = ()
        self._graph: _Graph | None = None
        self._wavefronts: dict[tuple[int, int], _Wavefront | None] = {}
        self.built = 0  # wavefront plans computed (tests: how often the cache missed)

    @staticmethod
    def _structure(workload: Workload) -> tuple:
        return (workload.producers, workload.fusion_group, workload.fusion_groups, workload.tileable)

    def shared(self, workloads: Sequence[Workload]) -> bool:
        """Whether these workloads have one structure (the very same dependency and fusion arrays)."""
        key = self._structure(workloads[0])
        return all(all(a is b for a, b in zip(key, self._structure(w))) for w in workloads[1:])

    def wavefront(self, workload: Workload, tiles: int, depth: int) -> tuple[_Graph, _Wavefront | None]:
        """The graph of ``workload`` and its wavefront plan for ``tiles`` and ``depth`` (None: no level
        numbering exists), each computed once per structure."""
        key = self._structure(workload)
        if self._graph is None or any(a is not b for a, b in zip(key, self._key)):
            self._key = key
            self._graph = _graph(workload.producers, len(workload), workload.streaming_groups)
            self._wavefronts = {}
        try:
            plan = self._wavefronts[tiles, depth]
        except KeyError:
            plan = self._wavefronts[tiles, depth] = _wavefront_plan(self._graph, tiles, depth)
            self.built += 1
        return self._graph, plan


def _wavefront_work(plan: _Wavefront, duration: np.ndarray, dilate: bool) -> _Work | None:
    """Start = the latest end among a tile's dependencies, a whole wavefront level at a time (numpy).

    Ends live in a padded table ``E[phase, depth + i]`` whose first ``depth`` columns and extra last
    row hold 0.0, so a missing dependency (tile -1, tile i-depth < 0, no such phase) reads 0.0,
    neutral under max (times are >= 0), with no masks in the loop. Under dilation, a level's tiles
    that start at the same instant are taken as one batch; the caller checks with
    ``_batches_are_levels`` that these were the event simulation's batches. None when neither
    numbering of the levels makes every level one batch (the event simulation then decides).
    """
    n_phases, tiles, depth, width = plan.n_phases, plan.tiles, plan.depth, plan.width
    n_tiles = n_phases * tiles
    tile_arrays = _tile_arrays(n_phases, tiles, duration)
    order, bounds, flat, slots, level = plan.order, plan.bounds, plan.flat, plan.slots, plan.level
    length = (duration / tiles)[plan.P]
    end_at = np.zeros((n_phases + 1) * width)
    start_at = np.zeros_like(end_at)
    if not dilate:
        _sweep(bounds, slots, flat, length, start_at, end_at)
        stretched = length
    else:
        # Each level is taken as one batch (a pipelined chain runs in lock step): its tiles all
        # take the level's longest length. If a level's tiles did not start together, renumber
        # the levels by longest dependency path in tiles (the batch index when batches run one
        # after another) and try once more; then leave it to the event simulation.
        stretched = _lockstep_sweep(bounds, slots, flat, length, start_at, end_at)
        if stretched is None:
            regroup, order, flat, slots, bounds, level = plan.regrouped()
            length = length[regroup]
            start_at[:] = 0.0
            end_at[:] = 0.0
            stretched = _lockstep_sweep(bounds, slots, flat, length, start_at, end_at)
            if stretched is None:
                return None

    def by_tile(table: np.ndarray) -> np.ndarray:
        return table.reshape(n_phases + 1, width)[:n_phases, depth:].ravel()

    if dilate:
        ratio = np.empty(n_tiles)
        ratio[order] = length / stretched
    else:
        ratio = np.ones(n_tiles)
    return _Work(
        start=by_tile(start_at), end=by_tile(end_at), stretch=ratio, level=level if dilate else None, **tile_arrays
    )


def _wavefront_works(plan: _Wavefront, durations: np.ndarray, dilate: bool) -> list[_Work | None]:
    """``_wavefront_work`` for several duration vectors at once (``durations``: one row per
    workload, of one structure): each level is one numpy step over every workload, so a sweep pays
    the per-level Python cost once for many configurations. Workload r's result is
    ``_wavefront_work(plan, durations[r], dilate)`` bit for bit (the same max and + on the same
    numbers). The tables hold one column per workload, so that a level gathers whole rows."""
    n_phases, tiles, depth, width = plan.n_phases, plan.tiles, plan.depth, plan.width
    m = durations.shape[0]
    length = np.ascontiguousarray((durations / tiles)[:, plan.P].T)  # (tiles in level order, workloads)
    end_at = np.zeros(((n_phases + 1) * width, m))
    start_at = np.zeros_like(end_at)
    rows = [(plan.order, plan.level, r) for r in range(m)]  # per workload: tile order, levels, column
    stretched = length
    tables: tuple = ()
    if not dilate:
        _sweep_rows(plan.bounds, plan.slot_table(), plan.flat, length, start_at, end_at)
    else:
        stretched, ok = _lockstep_rows(plan.bounds, plan.slot_table(), plan.flat, length, start_at, end_at)
        if not ok.all():
            # workloads whose levels did not start together: renumbered levels, as _wavefront_work
            redo = np.flatnonzero(~ok)
            regroup, order, flat, slots, bounds, level = plan.regrouped()
            length2 = np.ascontiguousarray(length[:, redo][regroup])
            end2 = np.zeros((end_at.shape[0], redo.size))
            start2 = np.zeros_like(end2)
            stretched2, ok2 = _lockstep_rows(bounds, np.stack(slots), flat, length2, start2, end2)
            for j, r in enumerate(redo.tolist()):
                rows[r] = (order, level, j) if ok2[j] else None
            tables = (start2, end2, length2, stretched2)
    out: list[_Work | None] = []
    for r, row in enumerate(rows):
        if row is None:
            out.append(None)
            continue
        order, level, i = row
        s, e, lg, st = (start_at, end_at, length, stretched) if order is plan.order else tables
        if dilate:
            ratio = np.empty(n_phases * tiles)
            ratio[order] = lg[:, i] / st[:, i]
        else:
            ratio = np.ones(n_phases * tiles)
        out.append(
            _Work(
                start=s[:, i].reshape(n_phases + 1, width)[:n_phases, depth:].ravel(),
                end=e[:, i].reshape(n_phases + 1, width)[:n_phases, depth:].ravel(),
                stretch=ratio,
                level=level if dilate else None,
                **_tile_arrays(n_phases, tiles, durations[r]),
            )
        )
    return out


def _sweep_rows(
    bounds: Sequence[int],
    slot_table: np.ndarray,
    flat: np.ndarray,
    length: np.ndarray,
    start_at: np.ndarray,
    end_at: np.ndarray,
) -> None:
    """``_sweep`` for every column of ``length``, ``start_at``, ``end_at`` at once, level by level:
    a level's start is the max over its tiles' dependencies (``slot_table``: one row per dependency
    slot), gathered in one step."""
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        s = end_at[slot_table[:, lo:hi]].max(axis=0)
        here = flat[lo:hi]
        start_at[here] = s
        end_at[here] = s + length[lo:hi]


def _lockstep_rows(
    bounds: Sequence[int],
    slot_table: np.ndarray,
    flat: np.ndarray,
    length: np.ndarray,
    start_at: np.ndarray,
    end_at: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``_lockstep_sweep`` for every column at once: the lengths used, and per column whether every
    level's tiles started at the same instant."""
    if not length.shape[0]:
        return length, np.ones(length.shape[1], bool)
    firsts = np.asarray(bounds[:-1])
    stretched = np.repeat(np.maximum.reduceat(length, firsts, axis=0), np.diff(bounds), axis=0)
    _sweep_rows(bounds, slot_table, flat, stretched, start_at, end_at)
    begin = start_at[flat]
    ok = ~np.any(np.minimum.reduceat(begin, firsts, axis=0) != np.maximum.reduceat(begin, firsts, axis=0), axis=0)
    return stretched, ok


_THIN_LEVELS = 8  # below this many tiles per level on average, sweep tile by tile in Python


def _sweep(
    bounds: Sequence[int],
    slots: Sequence[np.ndarray],
    flat: np.ndarray,
    length: np.ndarray,
    start_at: np.ndarray,
    end_at: np.ndarray,
) -> None:
    """Start = the latest end among the dependencies (``slots``: the dependencies' places in the
    end table, per tile in level order), end = start + length, level after level: one numpy step
    per level, or, when levels hold few tiles (a chain with one tile per phase, a few phases with
    many tiles), one Python step per tile in the same order with the same float arithmetic."""
    if len(flat) < _THIN_LEVELS * (len(bounds) - 1):
        _sweep_tiles(slots, flat, length, start_at, end_at)
        return
    first_slot, other_slots = slots[0], slots[1:]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        s = end_at[first_slot[lo:hi]]
        for dep in other_slots:
            np.maximum(s, end_at[dep[lo:hi]], out=s)
        here = flat[lo:hi]
        start_at[here] = s
        end_at[here] = s + length[lo:hi]


def _sweep_tiles(
    slots: Sequence[np.ndarray], flat: np.ndarray, length: np.ndarray, start_at: np.ndarray, end_at: np.ndarray
) -> None:
    # Python floats read and written through memoryviews of the tables, and the tiles taken a block
    # at a time: nothing holds a Python object per tile, so millions of tiles fit in their arrays.
    ends, starts = memoryview(end_at), memoryview(start_at)
    get = ends.__getitem__
    for lo in range(0, flat.size, _BLOCK):
        hi = lo + _BLOCK
        block = zip(flat[lo:hi].tolist(), length[lo:hi].tolist(), *(dep[lo:hi].tolist() for dep in slots))
        for here, own, *deps in block:
            begin = max(map(get, deps))
            starts[here] = begin
            ends[here] = begin + own


_BLOCK = 1 << 16  # tiles turned into Python numbers at a time by the per-tile loops


def _lockstep_sweep(
    bounds: Sequence[int],
    slots: Sequence[np.ndarray],
    flat: np.ndarray,
    length: np.ndarray,
    start_at: np.ndarray,
    end_at: np.ndarray,
) -> np.ndarray | None:
    """The sweep with every level one dilation batch (stretched to its longest tile); the lengths
    used, or None if some level's tiles did not all start at the same instant."""
    if not length.size:
        return length
    firsts = np.asarray(bounds[:-1])
    stretched = np.repeat(np.maximum.reduceat(length, firsts), np.diff(bounds))
    _sweep(bounds, slots, flat, stretched, start_at, end_at)
    begin = start_at[flat]
    if np.any(np.minimum.reduceat(begin, firsts) != np.maximum.reduceat(begin, firsts)):
        return None
    return stretched


def _batches_are_levels(work: _Work, profile: _Profile) -> bool:
    """Whether grouping each level's tiles by equal start found the event simulation's batches:
    every tile has a positive length (a zero-length tile makes a second batch at the same instant),
    no two distinct instants are within the event tolerance of each other, and no instant's batch
    straddles two levels."""
    if work.start.size == 0:
        return True
    if not (work.end - work.start).min() > 0:
        return False
    if profile.snapped:
        return False
    by_start = profile.by_start
    s, lv = work.start[by_start], work.level[by_start]
    return not np.any((s[1:] == s[:-1]) & (lv[1:] != lv[:-1]))


def _event_work(g: _Graph, duration: np.ndarray, tiles: int, depth: int, dilate: bool) -> _Work:
    """The exact event-by-event simulation in work time (the semantics the wavefront reproduces).

    Tile i of phase p is ready when all its dependencies are done; the tiles made ready by one
    event start together, as a batch; dilation stretches a batch of several tiles to its longest.
    Tiles finishing within ``_SAME_INSTANT`` of the earliest are one event. O(E log E) in Python.
    """
    n_phases = len(g)
    n_tiles = n_phases * tiles
    per_tile = (duration / tiles).tolist()
    floor = _time_floor(duration, tiles)
    i_of = np.tile(np.arange(tiles), n_phases)
    prods, cons = g.lists(g.stream, True), g.lists(g.stream, False)
    barrier_prods, barrier_cons = g.lists(g.barrier, True), g.lists(g.barrier, False)
    n_prod = np.repeat([len(q) for q in prods], tiles)
    n_barrier = np.repeat([len(q) for q in barrier_prods], tiles)
    n_cons = np.repeat([len(c) for c in cons], tiles)
    # per-tile state in arrays, read and written through memoryviews: no Python object per tile
    waiting_at = (n_prod + (i_of > 0) + n_cons * (i_of >= depth) + n_barrier * (i_of == 0)).astype(np.int64)
    start_at, end_at, stretch_at = np.zeros(n_tiles), np.zeros(n_tiles), np.ones(n_tiles)
    waiting, tile_start, tile_end, tile_stretch = map(memoryview, (waiting_at, start_at, end_at, stretch_at))
    heap: list[tuple[float, int]] = []
    work = 0.0
    batch = [p * tiles for p in range(n_phases) if waiting[p * tiles] == 0]
    while batch or heap:
        if batch:
            longest = max(per_tile[k // tiles] for k in batch)
            several_phases = len(batch) > 1
            for k in batch:
                d = per_tile[k // tiles]
                stretched = longest if (dilate and several_phases) else d
                heapq.heappush(heap, (work + stretched, k))
                tile_start[k] = work
                tile_stretch[k] = d / stretched
            batch = []
        finish = heap[0][0]
        work = finish
        limit = finish + _SAME_INSTANT * max(floor, abs(finish))
        while heap and heap[0][0] <= limit:
            _, k = heapq.heappop(heap)
            tile_end[k] = work
            p, i = divmod(k, tiles)
            for dependent in _dependents(p, i, tiles, depth, prods[p], cons[p], barrier_cons[p]):
                waiting[dependent] -= 1
                if waiting[dependent] == 0:
                    batch.append(dependent)
    stuck = np.flatnonzero(waiting_at > 0)
    if stuck.size:
        k = int(stuck[0])
        raise ScheduleError(
            f"the pipelined tiles deadlock: tile {k % tiles} of phase #{k // tiles} "
            "never becomes ready (its producers and consumers wait for each other)"
        )
    return _Work(start=start_at, end=end_at, stretch=stretch_at, **_tile_arrays(n_phases, tiles, duration))


def _dependents(
    p: int,
    i: int,
    tiles: int,
    depth: int,
    producers: Sequence[int],
    consumers: Sequence[int],
    barrier_consumers: Sequence[int],
) -> Iterator[int]:
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


@dataclass
class _Profile:
    """The requested demand over work time: one stable sort of every start and end."""

    edges: np.ndarray  # distinct instants (work time)
    start_edge: np.ndarray  # per tile (tile order), index into edges
    end_edge: np.ndarray
    compute: np.ndarray  # requested demand on [edges[j], edges[j+1])
    memory: np.ndarray
    requested_compute: np.ndarray  # per tile (tile order), after dilation
    requested_memory: np.ndarray
    by_start: np.ndarray  # tile ids sorted by start, then tile id
    snapped: bool  # whether distinct times closer than the event tolerance were merged
    levels: np.ndarray | None = None  # (edges - 1, nearer levels): their requested demand (design.md §8)
    requested_levels: np.ndarray | None = None  # (tiles, nearer levels), tile order


def _time_floor(duration: np.ndarray, tiles: int) -> float:
    """The time scale under which instants are one event: the shortest tile. Relative, not absolute,
    so that a workload timed in picoseconds schedules like one timed in seconds."""
    return float(np.min(duration)) / tiles if len(duration) else 1.0


def _profile(work: _Work, arrays: PhaseArrays) -> _Profile:
    n = work.start.size
    floor = float(work.requested.min()) if n else 1.0  # the shortest tile, as in _event_work
    req_c = arrays.compute_util[work.phase] * work.stretch
    req_m = arrays.memory_util[work.phase] * work.stretch
    times = np.concatenate([work.start, work.end])
    order = np.argsort(times, kind="stable")
    sorted_times = times[order]
    # Instants closer than the event tolerance are one event, at the earliest (as in `_event_work`).
    new = np.empty(times.size, dtype=bool)
    new[:1] = True
    gap = np.diff(sorted_times)
    np.greater(gap, _SAME_INSTANT * np.maximum(floor, np.abs(sorted_times[:-1])), out=new[1:])
    snapped = bool(np.any(gap[~new[1:]] != 0))
    edge_of = np.empty(times.size, dtype=np.int64)
    edge_of[order] = np.cumsum(new) - 1
    edges = sorted_times[new]
    dc = np.bincount(edge_of, weights=np.concatenate([req_c, -req_c]), minlength=edges.size)
    dm = np.bincount(edge_of, weights=np.concatenate([req_m, -req_m]), minlength=edges.size)
    levels = req_levels = None
    if arrays.level_util.shape[1] > 1:
        # every nearer memory level is a resource of its own; an unknown level demands nothing
        req_levels = np.nan_to_num(arrays.level_util[work.phase, :-1]) * work.stretch[:, None]
        signed = np.concatenate([req_levels, -req_levels])
        levels = np.stack(
            [np.cumsum(np.bincount(edge_of, weights=col, minlength=edges.size))[:-1] for col in signed.T], axis=1
        )
    return _Profile(
        levels=levels,
        requested_levels=req_levels,
        edges=edges,
        start_edge=edge_of[:n],
        end_edge=edge_of[n:],
        compute=np.cumsum(dc)[:-1],
        memory=np.cumsum(dm)[:-1],
        requested_compute=req_c,
        requested_memory=req_m,
        by_start=order[order < n],
        snapped=snapped,
    )


def _assemble(workload: Workload, work: _Work, prof: _Profile, chosen: _Chosen) -> Schedule:
    """Throttle factor from the demand profile, work time → real time, once for all tiles."""
    n = work.start.size
    throttle = chosen.policy.throttles
    w_edges, seg_c, seg_m = prof.edges, prof.compute, prof.memory
    start_edge, end_edge = prof.start_edge, prof.end_edge
    seg_l = prof.levels
    if throttle:
        worst = np.maximum(seg_c, seg_m)
        if seg_l is not None:  # design.md §8: the largest summed demand over every resource
            worst = np.maximum(worst, seg_l.max(axis=1))
        hot = worst > 1.0 + _SAME_INSTANT
        factor = np.ones(worst.size)
        factor[hot] = 1.0 / worst[hot]
        edges = np.empty(w_edges.size)
        edges[:1] = w_edges[:1]
        edges[1:] = w_edges[:1] + np.cumsum(np.diff(w_edges) / factor)
        if np.any(edges[1:] <= edges[:-1]):
            # a step too small to survive the division: drop the zero-length segments
            keep = np.r_[True, edges[1:] > edges[:-1]]
            renumber = np.cumsum(keep) - 1
            seg = np.flatnonzero(keep)[1:] - 1
            edges, seg_c, seg_m, factor = edges[keep], seg_c[seg], seg_m[seg], factor[seg]
            seg_l = None if seg_l is None else seg_l[seg]
            start_edge, end_edge = renumber[start_edge], renumber[end_edge]
    else:
        factor = np.ones(seg_c.size)
        edges = w_edges

    tile_start, tile_end = edges[start_edge], edges[end_edge]
    by_start = prof.by_start
    s, e = tile_start[by_start], tile_end[by_start]
    work_length = w_edges[prof.end_edge[by_start]] - w_edges[prof.start_edge[by_start]]
    length = e - s
    c, m = prof.requested_compute[by_start], prof.requested_memory[by_start]
    throttling = np.zeros(n)
    rate_c, rate_m = c, m
    req_l = None if prof.requested_levels is None else prof.requested_levels[by_start]
    rate_l = req_l
    if throttle:
        # a tile is throttled iff the factor is below 1 somewhere in its span
        slowed = np.r_[0, np.cumsum(factor != 1.0)]
        hit = slowed[end_edge[by_start]] > slowed[start_edge[by_start]]
        throttling[hit] = length[hit] - work_length[hit]
        # the rates averaged over the interval: volume / length
        slowdown = np.divide(work_length, length, out=np.ones(n), where=hit & (length > 0))
        rate_c, rate_m = c * slowdown, m * slowdown
        rate_l = None if req_l is None else req_l * slowdown[:, None]
    machine = workload.machine
    near = machine.level_names[:-1]
    resources = (machine.compute_name, machine.memory_name, *near)
    peak = {resources[0]: float(seg_c.max(initial=0.0))}
    for k, level in enumerate(near):
        peak[level] = float(seg_l[:, k].max(initial=0.0))
    peak[resources[1]] = float(seg_m.max(initial=0.0))
    scale = factor if throttle else 1.0
    extra = [] if seg_l is None else [seg_l[:, k] * scale for k in range(len(near))]
    over = oversubscribed_runs(edges, seg_c * scale, seg_m * scale, resources, *extra)
    return Schedule(
        names=tuple(workload.names),
        resource_names=resources,
        tiles=chosen.tiles,
        pipeline=chosen.pipeline,
        policy=chosen.policy.name,
        depth=chosen.depth,
        phase=work.phase[by_start],
        tile=work.number[by_start],
        start=s,
        end=e,
        compute_rate=rate_c,
        memory_rate=rate_m,
        requested_compute=c,
        requested_memory=m,
        dilation=work_length * (1.0 - work.stretch[by_start]),
        throttling=throttling,
        tile_id=by_start,
        start_edge=start_edge[by_start],
        end_edge=end_edge[by_start],
        tile_start=tile_start,
        tile_end=tile_end,
        tile_requested=work.requested,
        edge_time=edges,
        edge_factor=factor,
        edge_requested_compute=seg_c,
        edge_requested_memory=seg_m,
        makespan=float(tile_end.max()) if n else 0.0,
        peak_demand=peak,
        stepping=chosen.stepping,
        level_names=near,
        requested_levels=req_l,
        level_rates=rate_l,
        edge_requested_levels=seg_l,
        **over,
    )
