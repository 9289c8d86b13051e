"""From work time to real time (see ``campaign_widget.model.schedule``): the requested demand over
the unthrottled schedule (``_profile``), then the shared throttle factor it implies and the
``Schedule`` with every tile at its real start and end (``_assemble``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ._work import _SAME_INSTANT, _Chosen, _Work
from .demand import oversubscribed_runs
from .timeline import Schedule

if TYPE_CHECKING:
    from .phase_arrays import PhaseArrays
    from .workload_protocols import ScheduledWorkload


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
    # (edges - 1, nearer levels): their requested demand (docs/memory-hierarchy.md#schedules-over-every-resource)
    levels: np.ndarray | None = None
    requested_levels: np.ndarray | None = None  # (tiles, nearer levels), tile order


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


def _assemble(workload: ScheduledWorkload, work: _Work, prof: _Profile, chosen: _Chosen) -> Schedule:
    """Throttle factor from the demand profile, work time → real time, once for all tiles."""
    n = work.start.size
    throttle = chosen.policy.throttles
    w_edges, seg_c, seg_m = prof.edges, prof.compute, prof.memory
    start_edge, end_edge = prof.start_edge, prof.end_edge
    seg_l = prof.levels
    if throttle:
        worst = np.maximum(seg_c, seg_m)
        # docs/memory-hierarchy.md#schedules-over-every-resource: the largest summed demand over every resource
        if seg_l is not None:
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
