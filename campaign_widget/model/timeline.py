"""Schedules as data: the tile intervals of a computed :class:`Schedule` (``campaign_widget.model.schedule``
computes them) and the measured intervals of a :class:`Timeline`.

A profiler trace is a timeline: intervals with real start and end times, on lanes (streams or
threads), overlapping, with idle gaps between them. :func:`from_intervals` (also
``Schedule.from_intervals``) turns such intervals into a :class:`Timeline`, a ``Schedule`` that the
scene stacks and draws like any other: one interval per measured event, each at its measured start
and end, at constant requested rates, never throttled (``edge_factor`` is 1 everywhere: what was
measured already includes any contention).

>>> import numpy as np
>>> from campaign_widget import Machine, Phase, Workload
>>> w = Workload([Phase("A", duration=3, compute_util=0.5, memory_util=0.2),
...               Phase("B", duration=1, compute_util=0.1, memory_util=0.9, after=["A"])],
...              machine=Machine(peak_compute=1, peak_bandwidth=1))
>>> t = Timeline.from_intervals(w, phase=["A", "B", "A"], start=[0, 0.5, 2], end=[1, 1.5, 4], lane=[0, 1, 0])
>>> len(t), t.makespan
(3, 4.0)
>>> shares = t.shares(threshold=0.5)
>>> round(shares["idle"], 3), round(shares["memory"], 3)
(0.125, 0.25)

The readout data (:func:`shares`, ``Timeline.shares``): the share of the makespan with nothing running,
and with each resource's summed demand at or above a threshold. Annotation ranges
(``record_function``, ``ProfilerStep#N``) travel with the timeline as *bands*; ``steps()`` lists the
training steps and ``window(t0, t1)`` / ``cut()`` give comparable per-step timelines, each starting at 0.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ScheduleError, WrongTypeError, check_flag, short_repr
from ..formatting import format_percent
from .demand import busy_time, oversubscribed_runs, summed_demand

if TYPE_CHECKING:
    import numpy.typing as npt
    import pandas as pd

    from .workload_protocols import ScheduledWorkload

#: ``Schedule.pieces()`` refuses to cut a schedule into more pieces than this.
MAX_PIECES = 20_000_000


@dataclass(frozen=True, eq=False)
class Schedule:
    """When each tile of each phase runs, and at what rates.

    ``len(schedule)`` is the number of tile intervals: one per tile, ``tiles × phases``, whatever
    the policy.

    Interval arrays (one entry per tile, sorted by start then tile id): ``phase`` (index into
    ``names``), ``tile``, ``start``, ``end``, ``requested_compute``, ``requested_memory`` (the
    rates the tile asks for, fractions of peak, after dilation and before throttling),
    ``compute_rate``, ``memory_rate`` (the rates it gets, averaged over the interval: volume ÷
    length; equal to the requested rates unless throttled), ``dilation`` and ``throttling`` (the
    part of the interval's length added by each). ``tile_id`` maps each interval to its tile in
    the ``tile_*`` arrays (tile order); ``start_edge``/``end_edge`` index ``edge_time``.

    Timeline arrays: ``edge_time`` (the distinct instants at which a tile starts or ends, sorted);
    on each ``[edge_time[j], edge_time[j+1])``: ``edge_factor`` (the throttle factor shared by
    every running tile, 1 = not throttled), ``edge_requested_compute``/``edge_requested_memory``
    (summed requested demand). The rate of a running tile at any instant is its requested rate
    times the factor there.

    On a machine with several memory levels (docs/memory-hierarchy.md#phases-per-level), ``requested_memory``/``memory_rate``
    are the farthest level's and the nearer levels' are in ``requested_levels``/``level_rates`` and
    ``edge_requested_levels`` (one column per ``level_names``); ``peak_demand`` and the
    oversubscription list name every resource.
    """

    names: tuple[str, ...]
    resource_names: tuple[str, ...]
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
    start_edge: np.ndarray
    end_edge: np.ndarray
    tile_start: np.ndarray
    tile_end: np.ndarray
    tile_requested: np.ndarray
    edge_time: np.ndarray
    edge_factor: np.ndarray
    edge_requested_compute: np.ndarray
    edge_requested_memory: np.ndarray
    makespan: float
    peak_demand: dict
    over_t0: np.ndarray
    over_t1: np.ndarray
    over_resource: np.ndarray
    over_demand: np.ndarray
    stepping: str = "event"
    # docs/memory-hierarchy.md#schedules-over-every-resource: the memory levels nearer to compute than the farthest (None on a one-level machine),
    # each a resource of its own, named in ``resource_names`` after compute and the farthest level
    level_names: tuple[str, ...] = ()
    requested_levels: np.ndarray | None = None  # (intervals, nearer levels), as requested_memory
    level_rates: np.ndarray | None = None  # (intervals, nearer levels), as memory_rate
    edge_requested_levels: np.ndarray | None = None  # (edges - 1, nearer levels), as edge_requested_memory

    #: a schedule the engine computed; a measured :class:`Timeline` sets it (it ran, so it is achievable)
    measured = False

    def __len__(self) -> int:
        return int(self.start.size)

    @property
    def feasible(self) -> bool:
        """Whether the machine can run this schedule in its makespan: no resource's demand above 100% at
        any instant (docs/semantics.md#feasible-schedules). An oversubscribed schedule (policy ``none`` or
        ``dilate``) asks for more than the machine has, so its makespan is not a time it can achieve and no
        view calls it faster than another. A measured timeline ran: it is feasible."""
        return bool(self.measured or self.over_t0.size == 0)

    def infeasibility(self) -> str:
        """Why this schedule is not achievable, in the words every view prints ("memory 600%, compute
        130% demand under policy none"), or "" when it is feasible (:attr:`feasible`)."""
        if self.feasible:
            return ""
        worst: dict[str, float] = {}
        for _, _, resource, demand in self.oversubscribed:
            worst[resource] = max(worst.get(resource, 0.0), demand)
        peaks = ", ".join(f"{r} {format_percent(d)}" for r, d in sorted(worst.items(), key=lambda rd: -rd[1]))
        return f"infeasible: {peaks} demand under policy {self.policy}"

    @classmethod
    def from_intervals(cls, workload: ScheduledWorkload, **intervals: Any) -> Timeline:
        """Measured intervals (a profiler's events) as a schedule: a :class:`Timeline`, one interval
        per event at its measured start and end, on its lane; ``intervals`` are :func:`from_intervals`'s
        keyword arguments (``phase``, ``start``, ``end``, ``lane``, ``compute_rate``, …)."""
        return from_intervals(workload, **intervals)

    @cached_property
    def oversubscribed(self) -> list:
        """Every interval where a resource's actual demand exceeds 1: ``(t0, t1, resource, demand)``,
        sorted; runs of equal demand on adjacent instants are merged (docs/semantics.md#dilation-and-throttling)."""
        names = np.array(self.resource_names, dtype=object)[self.over_resource].tolist()
        return list(zip(self.over_t0.tolist(), self.over_t1.tolist(), names, self.over_demand.tolist()))

    @property
    def tile_added(self) -> np.ndarray:
        """Per tile, the time added to its requested length by dilation and throttling."""
        return (self.tile_end - self.tile_start) - self.tile_requested

    def demand(self, requested: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The summed demand over time: ``(times, compute, memory)``, piecewise constant on
        ``[times[k], times[k+1])``. ``requested=True`` gives the demand before throttling."""
        if check_flag(requested, "requested"):
            return self.edge_time, self.edge_requested_compute, self.edge_requested_memory
        return (
            self.edge_time,
            self.edge_requested_compute * self.edge_factor,
            self.edge_requested_memory * self.edge_factor,
        )

    def throttle_timeline(self) -> tuple[np.ndarray, np.ndarray]:
        """The shared throttle factor as ``(times, factor)``: ``factor[k]`` holds on
        ``[times[k], times[k+1])``, and consecutive values differ (1 = not throttled)."""
        f = self.edge_factor
        if f.size == 0:
            return self.edge_time.copy(), f.copy()
        change = np.r_[True, f[1:] != f[:-1]]
        return np.r_[self.edge_time[:-1][change], self.edge_time[-1]], f[change]

    def pieces(self, limit: int = MAX_PIECES) -> dict:
        """The tiles cut into constant-rate pieces: each interval cut wherever the throttle factor
        changes while it runs. A dict of arrays ``interval`` (index into the interval arrays),
        ``start``, ``end``, ``compute_rate``, ``memory_rate``, sorted by start then tile id.

        Their number grows as events × concurrency under throttling, so more than ``limit`` pieces
        raise a ``ScheduleError`` before anything is allocated; the diagram does not need them.
        """
        f = self.edge_factor
        change = np.flatnonzero(f[1:] != f[:-1]) + 1  # edges at which the factor changes
        # the changes strictly inside each interval cut it
        lo = np.searchsorted(change, self.start_edge, side="right")
        cuts = np.maximum(np.searchsorted(change, self.end_edge, side="left") - lo, 0)
        count = int(len(self) + cuts.sum())
        if count > limit:
            raise ScheduleError(
                f"cutting this schedule's {len(self):,} tile intervals where the throttle factor changes "
                f"makes {count:,} pieces, above the limit of {limit:,}"
            )
        interval = np.repeat(np.arange(len(self)), cuts + 1)
        k = np.arange(count) - (np.cumsum(cuts + 1) - (cuts + 1))[interval]  # piece number within its interval
        cut = change[np.clip(lo[interval] + k - 1, 0, None)] if change.size else np.zeros(count, np.int64)
        first = np.where(k == 0, self.start_edge[interval], cut)
        cut = change[np.minimum(lo[interval] + k, change.size - 1)] if change.size else np.zeros(count, np.int64)
        stop = np.where(k == cuts[interval], self.end_edge[interval], cut)
        factor = f[np.minimum(first, max(f.size - 1, 0))] if f.size else np.ones(count)
        order = np.lexsort((self.tile_id[interval], self.edge_time[first]))
        interval, first, stop, factor = interval[order], first[order], stop[order], factor[order]
        return {
            "interval": interval,
            "start": self.edge_time[first],
            "end": self.edge_time[stop],
            "compute_rate": self.requested_compute[interval] * factor,
            "memory_rate": self.requested_memory[interval] * factor,
        }

    def critical_path(self, workload=None):
        """The chain of intervals whose shortening shortens the schedule, and each interval's slack
        (docs/distributed-jobs.md#the-critical-path): a ``CriticalPath``. ``workload``: the workload
        scheduled (a Timeline's own by default), whose producers count in the slack."""
        from .critical_path import critical_path

        workload = workload if workload is not None else getattr(self, "workload", None)
        producers = workload.producers if workload is not None else None
        return critical_path(self.names, self.phase, self.tile, self.start, self.end, producers, self.pipeline)

    def to_dataframe(self) -> pd.DataFrame:
        """The tile intervals as a pandas DataFrame (needs pandas), one row per tile: ``phase,
        tile, start, end, compute_rate, memory_rate`` (averaged over the interval),
        ``requested_compute, requested_memory, dilation, throttling``."""
        from .._optional import require_pandas

        pd = require_pandas("Schedule.to_dataframe")
        return pd.DataFrame(
            {
                "phase": np.array(self.names, dtype=object)[self.phase],
                "tile": self.tile,
                "start": self.start,
                "end": self.end,
                "compute_rate": self.compute_rate,
                "memory_rate": self.memory_rate,
                "requested_compute": self.requested_compute,
                "requested_memory": self.requested_memory,
                "dilation": self.dilation,
                "throttling": self.throttling,
            }
        )

    def __repr__(self) -> str:
        mode = (
            f"{self.tiles} tiles, "
            + ("pipelined" if self.pipeline else "sequential")
            + (" (lockstep)" if self.stepping == "lockstep" else "")
            + f", policy={self.policy!r}"
        )
        return f"<Schedule {mode}: makespan {self.makespan:.6g}, {len(self)} tile intervals>"


STEP_PATTERN = r"ProfilerStep#\d+"


@dataclass(frozen=True, eq=False)
class Timeline(Schedule):
    """A measured schedule: one interval per measured event (``len(timeline)`` of them).

    Beyond ``Schedule``'s arrays: ``workload`` (the workload whose phases the intervals belong to:
    one roofline point per phase), ``lane`` (per interval, in interval order: index into
    ``lane_names``, the stream or thread it ran on), ``origin`` (the measured time of t = 0, in the
    source's clock, seconds), and the annotation *bands*: ``band_start``, ``band_end`` (seconds, on
    this timeline's axis), ``band_name`` (index into ``band_names``), ``band_lane`` (index into
    ``lane_names``, -1 when the lane ran no kept interval). ``tile`` numbers the intervals of each
    phase in order of start.
    """

    workload: object = None
    lane: np.ndarray = None
    lane_names: tuple = ()
    origin: float = 0.0
    band_start: np.ndarray = None
    band_end: np.ndarray = None
    band_name: np.ndarray = None
    band_lane: np.ndarray = None
    band_names: tuple = ()

    measured = True

    def shares(self, threshold: float = 0.8) -> dict:
        """The readout: ``{"idle": share, <compute name>: share, <memory name>: share}`` of the
        makespan (see :func:`shares`)."""
        return shares(self, threshold)

    @property
    def idle_share(self) -> float:
        """The share of the makespan during which no interval runs."""
        return shares(self)["idle"]

    def lane_shares(self) -> dict:
        """Per lane (by name), the share of the makespan during which it runs something."""
        if self.makespan <= 0:
            return {name: 0.0 for name in self.lane_names}
        busy = busy_time(self.lane, len(self.lane_names), self.start, self.end)
        return {name: float(b) / self.makespan for name, b in zip(self.lane_names, busy)}

    def with_peaks(self, peak_compute: float | None = None, peak_bandwidth: float | None = None) -> Timeline:
        """The same measured intervals, at the same times, on the machine with other peaks: what each
        interval did is fixed, so its rates (fractions of peak) scale by old peak / new peak, as do the
        workload's utilizations."""
        old = self.workload.machine
        workload = self.workload.with_peaks(peak_compute, peak_bandwidth)
        new = workload.machine
        return from_intervals(
            workload,
            phase=self.phase,
            start=self.start,
            end=self.end,
            lane=self.lane,
            lane_names=self.lane_names,
            compute_rate=self.requested_compute * (old.peak_compute / new.peak_compute),
            memory_rate=self.requested_memory * (old.peak_bandwidth / new.peak_bandwidth),
            origin=self.origin,
            bands=(self.band_start, self.band_end, self.band_name, self.band_lane, self.band_names),
            until=self.makespan,
        )

    def bands(self) -> list:
        """The annotation ranges as ``(name, start, end, lane name)`` tuples, by start."""
        names = np.array(self.band_names, dtype=object)
        lanes = np.array(list(self.lane_names) + [None], dtype=object)
        return list(
            zip(
                names[self.band_name].tolist(),
                self.band_start.tolist(),
                self.band_end.tolist(),
                lanes[self.band_lane].tolist(),
            )
        )

    def steps(self, pattern: str = STEP_PATTERN) -> tuple[np.ndarray, np.ndarray]:
        """``(start, end)`` arrays of the bands whose name fully matches ``pattern`` (default: the
        profiler's ``ProfilerStep#N``), sorted by start; ranges repeated on several lanes are kept once."""
        rx = _pattern(pattern)
        wanted = np.array([rx.fullmatch(n) is not None for n in self.band_names], dtype=bool)
        if not wanted.size:
            return np.zeros(0), np.zeros(0)
        pick = wanted[self.band_name]
        pairs = np.unique(np.stack([self.band_start[pick], self.band_end[pick]], axis=1), axis=0)
        return pairs[:, 0].copy(), pairs[:, 1].copy()

    def window(self, t0: float, t1: float) -> Timeline:
        """The intervals and bands overlapping ``[t0, t1)``, clipped to it and shifted so that ``t0``
        becomes 0: one step of a training loop as a timeline of its own, comparable with the others (its
        makespan is ``t1 - t0``, idle tail included)."""
        t0 = _seconds("t0", t0, "the window's start", negative=True)
        t1 = _seconds("t1", t1, "the window's end", negative=True)
        if not t1 > t0:
            raise ScheduleError(f"window({t0!r}, {t1!r}): needs finite t0 < t1")
        keep = (self.end > t0) & (self.start < t1)
        s, e = np.clip(self.start[keep], t0, t1) - t0, np.clip(self.end[keep], t0, t1) - t0
        bkeep = (self.band_end > t0) & (self.band_start < t1)
        return from_intervals(
            self.workload,
            phase=self.phase[keep],
            start=s,
            end=e,
            lane=self.lane[keep],
            lane_names=self.lane_names,
            compute_rate=self.requested_compute[keep],
            memory_rate=self.requested_memory[keep],
            origin=self.origin + t0,
            bands=(
                np.clip(self.band_start[bkeep], t0, t1) - t0,
                np.clip(self.band_end[bkeep], t0, t1) - t0,
                self.band_name[bkeep],
                self.band_lane[bkeep],
                self.band_names,
            ),
            until=t1 - t0,
        )

    def cut(self, pattern: str = STEP_PATTERN) -> list:
        """One :meth:`window` per step (see :meth:`steps`), in order."""
        starts, ends = self.steps(pattern)
        return [self.window(a, b) for a, b in zip(starts.tolist(), ends.tolist())]

    def to_dataframe(self) -> pd.DataFrame:
        """The intervals as a pandas DataFrame (see ``Schedule.to_dataframe``), plus ``lane``."""
        df = super().to_dataframe()
        df["lane"] = np.array(list(self.lane_names), dtype=object)[self.lane] if len(self) else []
        return df

    def __repr__(self) -> str:
        return (
            f"<Timeline of {len(self):,} measured intervals on {len(self.lane_names)} lanes: makespan "
            f"{self.makespan:.6g}, idle {self.idle_share:.1%}>"
        )


def from_intervals(
    workload: ScheduledWorkload,
    *,
    phase: npt.ArrayLike,
    start: npt.ArrayLike,
    end: npt.ArrayLike,
    lane: npt.ArrayLike | None = None,
    compute_rate: npt.ArrayLike | None = None,
    memory_rate: npt.ArrayLike | None = None,
    lane_names: Sequence[str] | None = None,
    origin: float = 0.0,
    bands: Sequence[Any] | None = None,
    until: float | None = None,
    level_rate: Mapping[str, npt.ArrayLike] | None = None,
) -> Timeline:
    """A :class:`Timeline` of measured intervals of ``workload``'s phases.

    ``phase``: per interval, a phase name or index. ``start``, ``end``: seconds, ``0 <= start <= end``.
    ``lane``: per interval, any label (a thread id, a stream name) or an index into ``lane_names``;
    default one lane. ``compute_rate``, ``memory_rate``: per interval, the fractions of the machine's
    peaks it used; default the phase's volume spread over its intervals (its FLOPs and bytes over the
    summed length of its intervals, on the machine), so the area under a phase's intervals is its volume.
    ``bands``: annotation ranges ``(start, end, name index, lane index, names)``: finite ``start <= end``,
    each name index into ``names``, each lane index into the lanes (-1: a lane with no interval). ``until``:
    the end of the timeline when it runs past the last interval (idle at the end), finite seconds;
    default the last end. ``origin``: the measured time of t = 0, finite. ``level_rate``: per nearer memory
    level of the machine (e.g. a job's ``network``), per interval the fraction of its bandwidth used
    (docs/distributed-jobs.md#the-job-as-campaigns); default none.

    ``len(timeline)`` is the number of intervals; concurrent intervals stack in the diagram, idle
    time stays idle. Bad input raises a ``ScheduleError`` naming the parameter, the interval and value.
    """
    names = list(workload.names)
    until = None if until is None else _seconds("until", until, "the end of the timeline")
    origin = _seconds("origin", origin, "the measured time of t = 0", negative=True)
    start = _floats("start", start)
    n = start.size
    end = _floats("end", end, n)
    phase = _phase_index(phase, names, n)
    bad = np.flatnonzero(~(start >= 0))
    if bad.size:
        i = int(bad[0])
        raise ScheduleError(
            f"start[{i}]={float(start[i])!r} (phase {short_repr(names[phase[i]])}) must be >= 0: shift the times "
            "so that the timeline starts at 0 or later"
        )
    bad = np.flatnonzero(~(end >= start))
    if bad.size:
        i = int(bad[0])
        raise ScheduleError(
            f"end[{i}]={float(end[i])!r} is before start[{i}]={float(start[i])!r} (phase {short_repr(names[phase[i]])})"
        )
    lane, lane_names = _lanes(lane, lane_names, n)
    a = workload.arrays
    busy = np.bincount(phase, weights=end - start, minlength=len(names))  # each phase's summed interval time
    with np.errstate(divide="ignore", invalid="ignore"):
        spread_c = np.where(busy > 0, a.ops / (workload.compute_peaks * busy), 0.0)
        spread_m = np.where(busy > 0, a.bytes / (workload.machine.peak_bandwidth * busy), 0.0)
    c = spread_c[phase] if compute_rate is None else _rates("compute_rate", compute_rate, n)
    m = spread_m[phase] if memory_rate is None else _rates("memory_rate", memory_rate, n)

    by_start = np.lexsort((np.arange(n), start))  # interval order: by start, then input order
    # tile = the interval's number within its phase, in order of start
    ph_sorted = phase[by_start]
    rank = np.empty(n, dtype=np.int64)
    grouped = np.argsort(ph_sorted, kind="stable")
    first = np.r_[0, np.flatnonzero(np.diff(ph_sorted[grouped])) + 1] if n else np.zeros(0, np.int64)
    counts = np.diff(np.r_[first, n])
    rank[grouped] = np.arange(n) - np.repeat(first, counts)

    edges, inverse = np.unique(np.concatenate([start, end]), return_inverse=True)
    start_edge, end_edge = inverse[:n], inverse[n:]
    k = max(edges.size, 1)
    seg_c, seg_m = summed_demand(start_edge, end_edge, c, m, edges.size)
    running = np.cumsum(np.bincount(start_edge, minlength=k) - np.bincount(end_edge, minlength=k))[:-1]
    seg_c[running == 0] = 0.0  # no float residue where nothing runs
    seg_m[running == 0] = 0.0
    np.maximum(seg_c, 0.0, out=seg_c)
    np.maximum(seg_m, 0.0, out=seg_m)
    machine = workload.machine
    resources = (machine.compute_name, machine.memory_name)
    zeros = np.zeros(n)
    band_arrays = _bands(bands, lane_names)
    near, levels = _level_rates(machine, level_rate, n, by_start, start_edge, end_edge, edges.size, running)
    return Timeline(
        names=tuple(names),
        resource_names=(*resources, *near),
        tiles=1,
        pipeline=False,
        policy="none",
        depth=2,
        phase=phase[by_start],
        tile=rank,
        start=start[by_start],
        end=end[by_start],
        compute_rate=c[by_start],
        memory_rate=m[by_start],
        requested_compute=c[by_start],
        requested_memory=m[by_start],
        dilation=zeros,
        throttling=zeros.copy(),
        tile_id=by_start,
        start_edge=start_edge[by_start],
        end_edge=end_edge[by_start],
        tile_start=start,
        tile_end=end,
        tile_requested=end - start,
        edge_time=edges,
        edge_factor=np.ones(seg_c.size),
        edge_requested_compute=seg_c,
        edge_requested_memory=seg_m,
        makespan=max(float(end.max()) if n else 0.0, float(until) if until is not None else 0.0),
        peak_demand={
            resources[0]: float(seg_c.max(initial=0.0)),
            resources[1]: float(seg_m.max(initial=0.0)),
            **{lv: float(levels[2][:, k].max(initial=0.0)) for k, lv in enumerate(near)},
        },
        **oversubscribed_runs(edges, seg_c, seg_m, (*resources, *near), *(levels[2].T if near else ())),
        level_names=near,
        requested_levels=levels[0],
        level_rates=levels[1],
        edge_requested_levels=levels[2],
        workload=workload,
        lane=lane[by_start],
        lane_names=tuple(lane_names),
        origin=float(origin),
        **band_arrays,
    )


def shares(schedule: Schedule, threshold: float = 0.8) -> dict:
    """The share of ``schedule``'s makespan (``[0, makespan]``) with nothing running (``"idle"``), and
    with each resource's summed demand (after throttling) at or above ``threshold`` (a fraction of its
    peak), keyed by the resource's name. Works on any ``Schedule``; all 0.0 for an empty one."""
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float, np.floating, np.integer))
        or not np.isfinite(threshold)
        or threshold < 0
    ):
        raise ScheduleError(f"threshold={threshold!r} must be a number >= 0 (a fraction of the peak)")
    names = schedule.resource_names
    total = float(schedule.makespan)
    if len(schedule) == 0 or total <= 0:
        return {"idle": 0.0, names[0]: 0.0, names[1]: 0.0}
    times, c, m = schedule.demand()
    k = times.size
    running = np.cumsum(np.bincount(schedule.start_edge, minlength=k) - np.bincount(schedule.end_edge, minlength=k))[
        :-1
    ]
    width = np.diff(times)
    idle = float(width[running == 0].sum()) + max(0.0, float(times[0]))  # before the first start, nothing runs
    tol = 1e-12
    return {
        "idle": idle / total,
        names[0]: float(width[(c >= threshold - tol) & (running > 0)].sum()) / total,
        names[1]: float(width[(m >= threshold - tol) & (running > 0)].sum()) / total,
    }


def phase_gaps(measured: Schedule, bound: Schedule) -> dict:
    """Per phase, measured against a bound (e.g. a measured ``Timeline`` and an analytical schedule of
    the same workload, for an achieved-over-bound figure): arrays in phase order of

    - ``measured_busy``, ``bound_busy``: the time during which some interval of the phase runs (the
      union of its intervals: overlapping intervals count once);
    - ``gap``: ``measured_busy - bound_busy``;
    - ``measured_span``, ``bound_span``: from the phase's first start to its last end (idle time and
      other phases in between included).

    Both schedules must have the same phases, in the same order."""
    if tuple(measured.names) != tuple(bound.names):
        raise ScheduleError(
            f"phase_gaps needs two schedules of the same phases; got {list(measured.names)[:6]} and "
            f"{list(bound.names)[:6]}"
        )
    n = len(measured.names)
    out = {}
    for label, sched in (("measured", measured), ("bound", bound)):
        out[f"{label}_busy"] = busy_time(sched.phase, n, sched.start, sched.end)
        first = np.full(n, np.inf)
        last = np.full(n, -np.inf)
        np.minimum.at(first, sched.phase, sched.start)
        np.maximum.at(last, sched.phase, sched.end)
        out[f"{label}_span"] = np.where(np.isfinite(first), last - first, 0.0)
    out["gap"] = out["measured_busy"] - out["bound_busy"]
    return {"names": tuple(measured.names), **out}


def _level_rates(machine, level_rate, n, by_start, start_edge, end_edge, edges, running):
    """(level names, (requested, rates, edge demand)) for ``from_intervals``'s ``level_rate``; no levels:
    ``((), (None, None, None))``."""
    if not level_rate:
        return (), (None, None, None)
    near = tuple(machine.level_names[:-1])
    unknown = sorted(set(level_rate) - set(near))
    if unknown:
        raise ScheduleError(
            f"level_rate names {unknown}: not a nearer memory level of the machine (its nearer levels: {list(near)})"
        )
    rates = np.column_stack([_rates(f"level_rate[{lv!r}]", level_rate[lv], n) if lv in level_rate else np.zeros(n)
                             for lv in near])  # fmt: skip
    k = max(edges, 1)
    seg = np.column_stack([
        np.cumsum(np.bincount(start_edge, rates[:, j], k) - np.bincount(end_edge, rates[:, j], k))[:-1]
        for j in range(len(near))
    ])  # fmt: skip
    seg[running == 0] = 0.0
    np.maximum(seg, 0.0, out=seg)
    return near, (rates[by_start], rates[by_start].copy(), seg)


def _floats(
    what: str, values: npt.ArrayLike, n: int | None = None, against: str = "start", per: str = "interval"
) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64).ravel()
    except (TypeError, ValueError, OverflowError):
        raise ScheduleError(f"{what} must be an array of numbers (seconds), got {short_repr(values)}") from None
    if n is not None and arr.size != n:
        raise ScheduleError(f"{what} has {arr.size} entries; {against} has {n}: one per {per}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise ScheduleError(f"{what}[{int(bad[0])}]={float(arr[bad[0]])!r} must be a finite number of seconds")
    return arr


def _pattern(pattern: object) -> re.Pattern:
    """A band-name pattern: a regular expression (text or compiled); a malformed one names itself."""
    if isinstance(pattern, re.Pattern):
        return pattern
    if not isinstance(pattern, str):
        raise WrongTypeError(f"pattern={short_repr(pattern)} must be a regular expression (str), e.g. {STEP_PATTERN!r}")
    try:
        return re.compile(pattern)
    except re.error as error:
        raise ScheduleError(f"pattern={short_repr(pattern)} is not a regular expression: {error}") from None


def _seconds(what: str, value: object, meaning: str, *, negative: bool = False) -> float:
    """A finite number of seconds (>= 0 unless ``negative``): ``inf`` or NaN as ``until`` would give the
    timeline an endless or undefined makespan."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise WrongTypeError(f"{what}={short_repr(value)} must be a number of seconds ({meaning})")
    try:
        seconds = float(value)
    except OverflowError:
        seconds = math.inf
    if not math.isfinite(seconds) or (seconds < 0 and not negative):
        bound = "" if negative else " >= 0"
        raise ScheduleError(f"{what}={short_repr(value)} must be a finite number of seconds{bound} ({meaning})")
    return seconds


def _rates(what: str, values: npt.ArrayLike, n: int) -> np.ndarray:
    arr = _floats(what, values, n)
    bad = np.flatnonzero(arr < 0)
    if bad.size:
        raise ScheduleError(f"{what}[{int(bad[0])}]={float(arr[bad[0]])!r} must be >= 0 (a fraction of the peak)")
    return arr


def _phase_index(phase: npt.ArrayLike, names: Sequence[str], n: int) -> np.ndarray:
    arr = np.asarray(phase).ravel()
    if arr.size != n:
        raise ScheduleError(f"phase has {arr.size} entries; start has {n}: one per interval")
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind in "iu":
        bad = np.flatnonzero((arr < 0) | (arr >= len(names)))
        if bad.size:
            raise ScheduleError(
                f"phase[{int(bad[0])}]={int(arr[bad[0]])} is not a phase index of this workload (0..{len(names) - 1})"
            )
        return arr.astype(np.int64)
    index = {name: i for i, name in enumerate(names)}
    uniq, inv = np.unique(arr.astype(object).astype(str), return_inverse=True)
    missing = [u for u in uniq.tolist() if u not in index]
    if missing:
        raise ScheduleError(
            f"phase {missing[0]!r} is not a phase of this workload; phases: "
            + ", ".join(map(repr, names[:8]))
            + (" ..." if len(names) > 8 else "")
        )
    return np.array([index[u] for u in uniq.tolist()], dtype=np.int64)[inv.ravel()]


def _lanes(lane: npt.ArrayLike | None, lane_names: Sequence[str] | None, n: int) -> tuple[np.ndarray, tuple]:
    if lane is None:
        return np.zeros(n, dtype=np.int64), tuple(lane_names) if lane_names else ("all",)
    arr = np.asarray(lane).ravel()
    if arr.size != n:
        raise ScheduleError(f"lane has {arr.size} entries; start has {n}: one per interval")
    if lane_names is not None:
        if arr.dtype.kind not in "iu" or (n and (arr.min() < 0 or arr.max() >= len(lane_names))):
            raise ScheduleError(f"with lane_names, lane must hold indices 0..{len(lane_names) - 1}")
        return arr.astype(np.int64), tuple(lane_names)
    uniq, inv = np.unique(arr, return_inverse=True)
    return inv.ravel().astype(np.int64), tuple(uniq.tolist())


def _bands(bands: Sequence[Any] | None, lane_names: Sequence[str]) -> dict:
    if bands is None:
        empty = np.zeros(0)
        return {
            "band_start": empty,
            "band_end": empty.copy(),
            "band_name": np.zeros(0, np.int64),
            "band_lane": np.zeros(0, np.int64),
            "band_names": (),
        }
    if isinstance(bands, (str, bytes)) or not isinstance(bands, Sequence) or len(bands) != 5:
        raise ScheduleError(
            f"bands={short_repr(bands)} must be (start, end, name index, lane index, names): five entries"
        )
    b_start, b_end, b_name, b_lane, b_names = bands
    if isinstance(b_names, (str, bytes)) or not isinstance(b_names, Sequence):
        raise ScheduleError(f"band names={short_repr(b_names)} must be a sequence of names")
    b_names = tuple(b_names)
    for k, name in enumerate(b_names):
        if not isinstance(name, str):
            raise ScheduleError(f"band names[{k}]={short_repr(name)} must be a str")
    b_start = _floats("band start", b_start)
    n = b_start.size
    b_end = _floats("band end", b_end, n, against="band start", per="band")
    bad = np.flatnonzero(~(b_end >= b_start))
    if bad.size:
        i = int(bad[0])
        raise ScheduleError(f"band end[{i}]={float(b_end[i])!r} is before band start[{i}]={float(b_start[i])!r}")
    # the name of every band is one of the names, its lane one of the lanes or -1 (a lane with no interval)
    b_name = _band_indices("band name index", b_name, n, 0, len(b_names), "names")
    b_lane = _band_indices("band lane index", b_lane, n, -1, len(lane_names), "lane_names")
    order = np.lexsort((-b_end, b_start))
    return {
        "band_start": b_start[order],
        "band_end": b_end[order],
        "band_name": b_name[order],
        "band_lane": b_lane[order],
        "band_names": b_names,
    }


def _band_indices(what: str, values: npt.ArrayLike, n: int, lo: int, count: int, of: str) -> np.ndarray:
    arr = np.asarray(values).ravel()
    if arr.size != n:
        raise ScheduleError(f"{what} has {arr.size} entries; band start has {n}: one per band")
    if n and arr.dtype.kind not in "iu":
        raise ScheduleError(f"{what} must hold whole numbers (indices into {of}), got {short_repr(values)}")
    bad = np.flatnonzero((arr < lo) | (arr >= count)) if n else np.zeros(0, np.int64)
    if bad.size:
        i = int(bad[0])
        raise ScheduleError(
            f"{what}[{i}]={int(arr[i])} is past the {count} {of}: an index from {lo} to {count - 1} was expected"
        )
    return arr.astype(np.int64)
