"""Dependency graphs over phases: stable topological order, cycles named, dependencies inferred from times."""

from __future__ import annotations

import heapq

import numpy as np

from ..errors import WorkloadError, WrongTypeError, short_repr

TIME_RTOL = 1e-9  # times within this fraction of the span are equal
MAX_INFERRED_DEPENDENCIES = 1_000_000  # edges interval_dependencies may infer (phases in waves infer ~n²/4)
CYCLE_SHOWN = 10  # phases of a cycle a message names; the rest are counted


def cycle_text(cycle: list[str]) -> str:
    """``'a' -> 'b' -> 'a'`` for a cycle given with its first phase repeated at the end; a long cycle shows
    its first CYCLE_SHOWN phases and counts the rest (``... (+2,990 more)``), names bounded as well."""
    distinct = cycle[:-1] if len(cycle) > 1 and cycle[0] == cycle[-1] else cycle
    if len(distinct) <= CYCLE_SHOWN:
        return " -> ".join(short_repr(n) for n in [*distinct, distinct[0]] if distinct)
    shown = " -> ".join(short_repr(n) for n in distinct[:CYCLE_SHOWN])
    return f"{shown} -> ... (+{len(distinct) - CYCLE_SHOWN:,} more) -> {short_repr(distinct[0])}"


def topological_order(names: list[str], producers: list[tuple[str, ...]]) -> np.ndarray:
    """Indices of ``names`` in dependency order; ties keep the given order.

    Raises WorkloadError naming an unknown producer, or the phases on a cycle.
    """
    index = {name: i for i, name in enumerate(names)}
    indegree = np.zeros(len(names), dtype=np.int64)
    consumers: list[list[int]] = [[] for _ in names]
    for i, after in enumerate(producers):
        for producer in after:
            j = index.get(producer)
            if j is None:
                raise WorkloadError(
                    f"phase {short_repr(names[i])}: after names {short_repr(producer)}, which is not a phase of "
                    "this workload"
                )
            if j == i:
                raise WorkloadError(
                    f"phase {short_repr(names[i])}: after names itself (a dependency cycle of one phase)"
                )
            consumers[j].append(i)
            indegree[i] += 1
    remaining = indegree.tolist()
    ready = [i for i, d in enumerate(remaining) if d == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for c in consumers[i]:
            remaining[c] -= 1
            if remaining[c] == 0:
                heapq.heappush(ready, c)
    if len(order) < len(names):
        cycle = _find_cycle(names, producers, index, set(order))
        error = WorkloadError("dependency cycle between phases: " + cycle_text(cycle))
        error.cycle = cycle  # the names on the cycle, for callers that name the cycle their own way
        raise error
    return np.asarray(order, dtype=np.int64)


def _find_cycle(names, producers, index, done) -> list[str]:
    """Walk producer links from a phase left over by Kahn's algorithm until one repeats."""
    start = next(i for i in range(len(names)) if i not in done)
    seen: dict[int, int] = {}
    path: list[int] = []
    node = start
    while node not in seen:
        seen[node] = len(path)
        path.append(node)
        node = next(index[p] for p in producers[node] if index[p] not in done)
    cycle = path[seen[node] :]
    cycle.reverse()  # producer -> consumer order reads naturally
    return [names[i] for i in cycle] + [names[cycle[0]]]


def csr(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, indices) of a list of integer lists."""
    lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    indptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = np.fromiter((j for x in lists for j in x), dtype=np.int64, count=int(indptr[-1]))
    return indptr, indices


def _times(what: str, values) -> np.ndarray:
    """One finite time per phase (a 1-D float array), or an error naming ``what`` and the value."""
    try:
        times = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise WrongTypeError(f"{what}={short_repr(values)} must be numbers (one time per phase)") from None
    if times.ndim != 1:
        raise WrongTypeError(f"{what}={short_repr(values)} must be a flat list of times, one per phase")
    if not np.all(np.isfinite(times)):
        i = int(np.flatnonzero(~np.isfinite(times))[0])
        raise WorkloadError(f"{what}[{i}]={float(times[i])!r} must be a finite time")
    return times


def interval_dependencies(start, end, rtol: float = TIME_RTOL) -> list[list[int]]:
    """For phases that ran over ``[start, end)``, the phases each one waited for.

    Phase i depends on phase j when j ended before i started and no phase k ran entirely between
    them (the transitive reduction of "ended before"): in a sequence each phase depends on the
    previous one; phases that overlap in time depend on neither. Times within ``rtol`` × the time
    span are equal.

    The reduction holds every edge of a complete bipartite graph when many phases run in waves
    (each phase of a wave after each of the previous one): over MAX_INFERRED_DEPENDENCIES edges is a
    WorkloadError naming the count, before any is built. Time O(n log n + edges).

    >>> interval_dependencies([0, 3, 3, 8], [3, 8, 5, 9])   # B and C overlap after A; D after both
    [[], [0], [0], [1, 2]]
    """
    start, end = _times("start", start), _times("end", end)
    if start.shape != end.shape:
        raise WorkloadError(f"{start.size:,} start times but {end.size:,} end times: give one of each per phase")
    if not np.all(end >= start):
        i = int(np.flatnonzero(~(end >= start))[0])
        raise WorkloadError(f"phase {i}: end {float(end[i])!r} is before start {float(start[i])!r}")
    n = start.size
    if n == 0:
        return []
    eps = rtol * max(float(end.max() - start.min()), float(np.abs(np.concatenate([start, end])).max()), 1e-300)
    by_end = np.argsort(end, kind="stable")
    sorted_end = end[by_end]
    latest_start = np.maximum.accumulate(start[by_end])  # the latest start among phases ended by then
    # phases ended at or before start_i (with tolerance): by_end[:done[i]]
    done = np.searchsorted(sorted_end, start + eps, side="right")
    # no phase that ended before the latest start among those done can be a direct producer
    latest = np.where(done > 0, latest_start[np.maximum(done - 1, 0)], -np.inf)
    first = np.minimum(np.searchsorted(sorted_end, latest + eps, side="right"), done)
    total = int((done - first).sum())
    if total > MAX_INFERRED_DEPENDENCIES:
        raise WorkloadError(
            f"the start and end times imply {total:,} dependencies between {n:,} phases (phases that "
            f"run in overlapping waves each depend on every phase of the previous wave); the limit "
            f"is {MAX_INFERRED_DEPENDENCIES:,}"
        )
    result = []
    for i, (lo, hi) in enumerate(zip(first.tolist(), done.tolist())):
        if lo >= hi:
            result.append([])
            continue
        result.append(sorted(int(j) for j in by_end[lo:hi] if j != i))
    return result
