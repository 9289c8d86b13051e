"""The summed demand of running intervals over time, and where it exceeds a resource's peak
(docs/semantics.md#schedules). Shared by the computed schedules (``campaign_widget.model.schedule``) and the measured
timelines (``campaign_widget.model.timeline``), which both keep demand as a piecewise-constant profile over
the instants where an interval starts or ends.

>>> import numpy as np
>>> runs = oversubscribed_runs(np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.5, 1.5, 1.5]),
...                            np.array([1.2, 0.1, 0.1]), ("compute", "memory"))
>>> [(float(a), float(b), int(r), float(d)) for a, b, r, d in zip(*runs.values())]
[(0.0, 1.0, 1, 1.2), (1.0, 3.0, 0, 1.5)]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Demand up to 1 + this is not oversubscribed: float residue of sums of rates is not a finding.
DEMAND_TOLERANCE = 1e-9
_SAME_DEMAND = 1e-12  # adjacent elementary intervals whose demands differ less are one run

OVER_FIELDS = ("over_t0", "over_t1", "over_resource", "over_demand")


def summed_demand(
    start_edge: np.ndarray, end_edge: np.ndarray, compute: np.ndarray, memory: np.ndarray, edges: int
) -> tuple[np.ndarray, np.ndarray]:
    """The summed rates of the intervals running on each ``[edge j, edge j+1)``: one entry fewer than
    ``edges``; ``start_edge``/``end_edge`` index each interval's start and end instant."""
    k = max(edges, 1)
    seg_c = np.cumsum(np.bincount(start_edge, compute, k) - np.bincount(end_edge, compute, k))[:-1]
    seg_m = np.cumsum(np.bincount(start_edge, memory, k) - np.bincount(end_edge, memory, k))[:-1]
    return seg_c.astype(np.float64), seg_m.astype(np.float64)


def oversubscribed_runs(
    edges: np.ndarray, demand_c: np.ndarray, demand_m: np.ndarray, resources: Sequence[str], *more: np.ndarray
) -> dict[str, np.ndarray]:
    """Runs of elementary intervals ``[edges[j], edges[j+1])`` where demand exceeds 1, adjacent equal
    demands merged, sorted by (t0, t1, resource name, demand): the arrays ``over_t0``, ``over_t1``,
    ``over_resource`` (0: compute, 1: memory, then one per array of ``more``: the nearer memory
    levels, docs/memory-hierarchy.md#schedules-over-every-resource) and ``over_demand`` (a list is built only on request)."""
    runs = []
    for r, demand in enumerate((demand_c, demand_m, *more)):
        hot = np.flatnonzero(demand > 1.0 + DEMAND_TOLERANCE)
        if not hot.size:
            continue
        d = demand[hot]
        run_start = np.empty(hot.size, dtype=bool)
        run_start[:1] = True
        run_start[1:] = (np.diff(hot) != 1) | (np.abs(np.diff(d)) > _SAME_DEMAND)
        first = np.flatnonzero(run_start)
        last = np.r_[first[1:] - 1, hot.size - 1]
        runs.append((hot[first], hot[last] + 1, np.full(first.size, r, dtype=np.uint8), d[first]))
    if not runs:
        empty = np.zeros(0)
        return dict(zip(OVER_FIELDS, (empty, empty, np.zeros(0, np.uint8), empty)))
    runs = [(edges[i0], edges[i1], r, d) if len(runs) <= 2 else (i0, i1, r, d) for i0, i1, r, d in runs]
    if len(runs) == 1:
        merged = runs[0]
    elif len(runs) == 2:
        merged = _merge_sorted_runs(*sorted(runs, key=lambda run: resources[run[2][0]]))
    else:
        # (start, end, name) as one integer key over edge indices; each resource's runs are already in
        # order, so a stable sort (timsort) merges them rather than sorting from scratch
        i0, i1, r, d = (np.concatenate(parts) for parts in zip(*runs))
        rank = np.argsort(np.argsort(np.array(resources, dtype=object)))  # each resource's place by name
        key = (i0.astype(np.int64) * edges.size + i1) * len(resources) + rank[r]
        order = np.argsort(key, kind="stable")
        merged = (edges[i0[order]], edges[i1[order]], r[order], d[order])
    return dict(zip(OVER_FIELDS, merged))


def _merge_sorted_runs(first: Sequence[np.ndarray], second: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
    """Merge two resources' runs, each sorted by t0 with disjoint runs, into (t0, t1, name) order;
    ``first`` is the resource whose name sorts first. O(n log n) searches, no sort."""
    t0a, t1a = first[0], first[1]
    t0b, t1b = second[0], second[1]
    before = np.searchsorted(t0a, t0b, side="left")  # runs of `first` starting strictly earlier
    tie = before < t0a.size
    tie[tie] = t0a[before[tie]] == t0b[tie]
    # on equal t0 the shorter run (t1) comes first; on equal t1 too, `first` (its name sorts first)
    before[tie] += t1a[before[tie]] <= t1b[tie]
    n = t0a.size + t0b.size
    at_b = before + np.arange(t0b.size)
    at_a = np.ones(n, dtype=bool)
    at_a[at_b] = False
    out = []
    for xa, xb in zip(first, second):
        merged = np.empty(n, dtype=np.result_type(xa, xb))
        merged[at_a] = xa
        merged[at_b] = xb
        out.append(merged)
    return tuple(out)


def busy_time(group: np.ndarray, count: int, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per group 0..count-1, the length of the union of its intervals (overlaps count once)."""
    order = np.lexsort((start, group))
    g, s, e = group[order], start[order], end[order]
    busy = np.zeros(count)
    if not g.size:
        return busy
    firsts = np.r_[0, np.flatnonzero(np.diff(g)) + 1]
    for a, b in zip(firsts.tolist(), np.r_[firsts[1:], g.size].tolist()):
        reach = np.maximum.accumulate(e[a:b])  # the furthest end so far: a new run starts past it
        new_run = np.r_[True, s[a + 1 : b] > reach[:-1]]
        run_start = s[a:b][new_run]
        run_end = np.maximum.reduceat(e[a:b], np.flatnonzero(new_run))
        busy[g[a]] = float((run_end - run_start).sum())
    return busy
