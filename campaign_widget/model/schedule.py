"""Schedules: tiling, pipelining on any DAG, dilation and fluid throttling (docs/semantics.md#schedules).

A schedule is a set of *tile intervals*, one per tile: its phase, tile number, start, end and the
rates it requests (after dilation). Throttling scales every running tile by one shared factor
(docs/semantics.md#schedules), so the factor is kept once, as a piecewise-constant *timeline* over the instants
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
the event semantics of docs/semantics.md#pipelining; tests/schedule_reference.py, which simulates every event in
Python and stores every piece, is the tests' oracle.

This module holds the entry points and the wavefront; the simulations that need no wavefront (one
at a time, lock step, event by event) and the dependency graph are in ``_work``, the map from work
time to real time (demand profile, throttle factor, the ``Schedule``) in ``_throttle``. The schedule
as data (``Schedule``, with its demand timeline) is defined in ``campaign_widget.model.timeline``
beside the measured ``Timeline``; the demand helpers both use are in ``campaign_widget.model.demand``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..errors import ScheduleError, short_repr
from ._throttle import _assemble, _Profile, _profile
from ._work import (
    _Chosen,
    _event_work,
    _Graph,
    _graph,
    _lockstep_work,
    _one_at_a_time_work,
    _tile_arrays,
    _Work,
)
from .demand import DEMAND_TOLERANCE
from .settings import (
    BYTES_PER_INTERVAL,
    MAX_SCHEDULE_BYTES,
    MAX_TILES,
    POLICIES,
    SCHEDULE_BOUND,
    STEPPINGS,
    Policy,
    Settings,
)
from .timeline import MAX_PIECES, Schedule

if TYPE_CHECKING:
    from .workload_protocols import ScheduledWorkload

__all__ = [
    "DEMAND_TOLERANCE",
    "BYTES_PER_INTERVAL",
    "MAX_PIECES",
    "MAX_SCHEDULE_BYTES",
    "MAX_TILE_INTERVALS",
    "POLICIES",
    "STEPPINGS",
    "Plans",
    "Schedule",
    "build_schedule",
    "build_schedules",
]

MAX_TILE_INTERVALS = MAX_TILES  # docs/semantics.md#schedules: the same bound in bytes, over all phases
_SAME_INSTANT = 1e-12


def build_schedule(
    workload: ScheduledWorkload,
    *,
    tiles: int = 1,
    pipeline: bool = False,
    policy: str = "none",
    depth: int = 2,
    stepping: str = "event",
    _wavefront: bool = True,
    _plans: Plans | None = None,
) -> Schedule:
    """The schedule of ``workload`` (docs/semantics.md#schedules); see ``Workload.schedule``.

    ``stepping`` says when a pipelined tile starts: ``"event"`` (docs/semantics.md#pipelining) as soon as its
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
    workloads: Sequence[ScheduledWorkload],
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


def _checked_settings(
    workload: ScheduledWorkload, tiles: int, pipeline: bool, policy: str, depth: int, stepping: str
) -> _Chosen:
    s = Settings(tiles=tiles, pipeline=pipeline, policy=policy, depth=depth, stepping=stepping)
    count = s.tiles * len(workload)
    if count > MAX_TILE_INTERVALS:
        raise ScheduleError(
            f"tiles={s.tiles} × {len(workload)} phases = {count:,} tile intervals, above the limit of "
            f"{MAX_TILE_INTERVALS:,} {SCHEDULE_BOUND}"
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


class _Levels(NamedTuple):
    """The tiles in sweep order, level after level: ``bounds`` cut them into levels, ``flat`` is each
    tile's place in the padded tables, ``slots`` its dependencies' places (an array per dependency slot)."""

    bounds: list[int]
    slots: list[np.ndarray]
    flat: np.ndarray


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
        self.level, self.order, self.P = level, order, P
        self.levels = _Levels(bounds, slots, flat)
        for array in (level, order, P, flat, *slots):
            array.flags.writeable = False
        self._regrouped: tuple | None = None

    def regrouped(self) -> tuple[np.ndarray, np.ndarray, _Levels, np.ndarray]:
        """The levels renumbered by longest dependency path in tiles (the batch index when batches run
        one after another): ``(regroup, order, levels, level)``, computed once."""
        if self._regrouped is None:
            n_tiles = self.n_phases * self.tiles
            hops = np.zeros((self.n_phases + 1) * self.width)
            _sweep(self.levels, np.ones(n_tiles), np.zeros_like(hops), hops)
            _, own_slots, own_flat = self.levels
            path = (hops[own_flat] - 1).astype(np.int64)  # the level: ends are path lengths in tiles
            regroup = np.argsort(path, kind="stable")
            order, flat = self.order[regroup], own_flat[regroup]
            slots = [dep[regroup] for dep in own_slots]
            counts = np.bincount(path)
            bounds = np.r_[0, np.cumsum(counts[counts > 0])].tolist()
            level = np.empty(n_tiles, dtype=np.int64)
            level[order] = path[regroup]
            for array in (regroup, order, flat, level, *slots):
                array.flags.writeable = False
            self._regrouped = (regroup, order, _Levels(bounds, slots, flat), level)
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
    def _structure(workload: ScheduledWorkload) -> tuple:
        return (workload.producers, workload.fusion_group, workload.fusion_groups, workload.tileable)

    def shared(self, workloads: Sequence[ScheduledWorkload]) -> bool:
        """Whether these workloads have one structure (the very same dependency and fusion arrays)."""
        key = self._structure(workloads[0])
        return all(all(a is b for a, b in zip(key, self._structure(w))) for w in workloads[1:])

    def wavefront(self, workload: ScheduledWorkload, tiles: int, depth: int) -> tuple[_Graph, _Wavefront | None]:
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
    order, levels, level = plan.order, plan.levels, plan.level
    length = (duration / tiles)[plan.P]
    end_at = np.zeros((n_phases + 1) * width)
    start_at = np.zeros_like(end_at)
    if not dilate:
        _sweep(levels, length, start_at, end_at)
        stretched = length
    else:
        # Each level is taken as one batch (a pipelined chain runs in lock step): its tiles all
        # take the level's longest length. If a level's tiles did not start together, renumber
        # the levels by longest dependency path in tiles (the batch index when batches run one
        # after another) and try once more; then leave it to the event simulation.
        stretched, together = _lockstep_rows(*levels, length, start_at, end_at)
        if not together:
            regroup, order, levels, level = plan.regrouped()
            length = length[regroup]
            start_at[:] = 0.0
            end_at[:] = 0.0
            stretched, together = _lockstep_rows(*levels, length, start_at, end_at)
            if not together:
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
        _sweep(plan.levels, length, start_at, end_at)
    else:
        stretched, ok = _lockstep_rows(*plan.levels, length, start_at, end_at)
        if not ok.all():
            # workloads whose levels did not start together: renumbered levels, as _wavefront_work
            redo = np.flatnonzero(~ok)
            regroup, order, levels, level = plan.regrouped()
            length2 = np.ascontiguousarray(length[:, redo][regroup])
            end2 = np.zeros((end_at.shape[0], redo.size))
            start2 = np.zeros_like(end2)
            stretched2, ok2 = _lockstep_rows(*levels, length2, start2, end2)
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


def _lockstep_rows(
    bounds: Sequence[int],
    slots: Sequence[np.ndarray],
    flat: np.ndarray,
    length: np.ndarray,
    start_at: np.ndarray,
    end_at: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The sweep with every level one dilation batch (stretched to its longest tile): the lengths
    used, and whether every level's tiles started at the same instant (per column of ``length``,
    ``start_at``, ``end_at`` when they have columns, one per workload)."""
    if not length.shape[0]:
        return length, np.ones(length.shape[1:], bool)
    stretched = _stretched(bounds, length)
    _sweep(_Levels(bounds, slots, flat), stretched, start_at, end_at)
    return stretched, _started_together(bounds, start_at[flat]).all(axis=0)


def _stretched(bounds: Sequence[int], length: np.ndarray) -> np.ndarray:
    """Every level one dilation batch: each tile's length (per column) that of its level's longest."""
    return np.repeat(np.maximum.reduceat(length, bounds[:-1], axis=0), np.diff(bounds), axis=0)


def _started_together(bounds: Sequence[int], begin: np.ndarray) -> np.ndarray:
    """Per level (and column), whether its tiles all started at the same instant."""
    firsts = bounds[:-1]
    return np.minimum.reduceat(begin, firsts, axis=0) == np.maximum.reduceat(begin, firsts, axis=0)


_THIN_LEVELS = 8  # below this many tiles per level on average, sweep tile by tile in Python


def _sweep(levels: _Levels, length: np.ndarray, start_at: np.ndarray, end_at: np.ndarray) -> None:
    """Start = the latest end among the dependencies (``levels.slots``: the dependencies' places in
    the end table, per tile in level order), end = start + length, level after level: one numpy step
    per level, or, when levels hold few tiles (a chain with one tile per phase, a few phases with
    many tiles), one Python step per tile in the same order with the same float arithmetic. With a
    column per workload in ``length``, ``start_at`` and ``end_at``, each level is one numpy step over
    every column."""
    bounds, slots, flat = levels
    if length.ndim == 1 and len(flat) < _THIN_LEVELS * (len(bounds) - 1):
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
