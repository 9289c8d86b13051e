"""Dependency graphs over phases: stable topological order, cycles named."""

from __future__ import annotations

import heapq

import numpy as np

from .errors import WorkloadError


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
                    f"phase {names[i]!r}: after names {producer!r}, which is not a phase of this workload"
                )
            if j == i:
                raise WorkloadError(f"phase {names[i]!r}: after names itself (a dependency cycle of one phase)")
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
        raise WorkloadError("dependency cycle between phases: " + " -> ".join(repr(n) for n in cycle))
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
    cycle = path[seen[node]:]
    cycle.reverse()  # producer -> consumer order reads naturally
    return [names[i] for i in cycle] + [names[cycle[0]]]


def csr(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, indices) of a list of integer lists."""
    lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    indptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = np.fromiter((j for x in lists for j in x), dtype=np.int64, count=int(indptr[-1]))
    return indptr, indices
