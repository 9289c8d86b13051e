"""The critical path of a schedule: the chain of intervals whose shortening shortens it, and each one's
slack (docs/distributed-jobs.md#the-critical-path).

An interval *waits for* another when it starts the moment the other ends (the engine starts a tile when
the last of its dependencies ends, docs/semantics.md#pipelining). The path is walked back from the
interval that ends last: at each step, the interval it waited for (the phase's own previous tile first,
then the same tile of another phase, then any), until one starts at the schedule's start.

An interval's *slack* is how much later it could end without moving the end of the schedule, along the
dependencies: the phase's next tile, the consumers' tiles (from the workload's producers, when given)
and every interval that waited for it. A backward pass gives each interval its latest end; the slack is
that minus its end. The path's intervals have none.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TOLERANCE = 1e-9  # relative to the makespan: two instants this close are one


@dataclass(frozen=True)
class CriticalPath:
    """``intervals``: the path, indices into the schedule's interval arrays, first to last; ``phases``:
    the phase of each; ``length``: their summed lengths plus the idle time between them; ``slack``: per
    interval of the schedule; ``phase_slack``: per phase name, the least slack of its intervals."""

    intervals: np.ndarray
    phases: tuple[str, ...]
    length: float
    slack: np.ndarray
    phase_slack: dict

    def __len__(self) -> int:
        return int(self.intervals.size)


def critical_path(
    names, phase: np.ndarray, tile: np.ndarray, start: np.ndarray, end: np.ndarray, producers=None, pipelined=True
) -> CriticalPath:
    """The critical path of intervals ``(phase, tile, start, end)``; ``producers``: the workload's
    ``(indptr, indices)`` (None: only the phase's own order and the waits the times show)."""
    n = int(start.size)
    if n == 0:
        return CriticalPath(np.zeros(0, np.int64), (), 0.0, np.zeros(0), {})
    makespan = float(end.max())
    tol = TOLERANCE * max(makespan, 1.0)
    origin = float(start.min())
    path = _walk(phase, tile, start, end, tol, origin)
    slack = _slack(phase, tile, start, end, tol, makespan, _edges(phase, tile, start, end, tol, producers, pipelined))
    phase_slack = {names[p]: float(slack[phase == p].min()) for p in np.unique(phase).tolist()}
    return CriticalPath(
        intervals=path,
        phases=tuple(names[int(p)] for p in phase[path]),
        length=float(end[path[-1]] - origin),
        slack=slack,
        phase_slack=phase_slack,
    )


def _walk(phase, tile, start, end, tol, origin) -> np.ndarray:
    order = np.argsort(end, kind="stable")
    ends = end[order]
    current = int(order[-1])
    path = [current]
    while start[current] > origin + tol:
        t = start[current]
        lo, hi = np.searchsorted(ends, t - tol), np.searchsorted(ends, t + tol, side="right")
        candidates = order[lo:hi]
        if candidates.size == 0:  # an idle gap: the interval that ended last before it
            before = order[: np.searchsorted(ends, t - tol)]
            if before.size == 0:
                break
            candidates = before[-1:]
        own = candidates[(phase[candidates] == phase[current]) & (tile[candidates] == tile[current] - 1)]
        same_tile = candidates[tile[candidates] == tile[current]]
        pick = own if own.size else same_tile if same_tile.size else candidates
        current = int(pick[np.argmax(end[pick] - start[pick])])
        path.append(current)
    return np.array(path[::-1], dtype=np.int64)


def _edges(phase, tile, start, end, tol, producers, pipelined) -> tuple[np.ndarray, np.ndarray]:
    """(before, after) index pairs: ``after`` cannot start before ``before`` ends."""
    n = start.size
    key = {(int(p), int(i)): k for k, (p, i) in enumerate(zip(phase.tolist(), tile.tolist()))}
    pairs = []
    for k, (p, i) in enumerate(zip(phase.tolist(), tile.tolist())):
        nxt = key.get((p, i + 1))
        if nxt is not None:
            pairs.append((k, nxt))
    if producers is not None:
        indptr, indices = producers
        tiles_of: dict[int, dict[int, int]] = {}
        for (p, i), k in key.items():
            tiles_of.setdefault(p, {})[i] = k
        for c, own in tiles_of.items():
            for q in indices[indptr[c] : indptr[c + 1]].tolist():
                theirs = tiles_of.get(int(q), {})
                if pipelined:  # tile i waits for tile i of each producer
                    pairs += [(k, own[i]) for i, k in theirs.items() if i in own]
                elif theirs and 0 in own:  # the whole producer first
                    pairs.append((theirs[max(theirs)], own[0]))
    order = np.argsort(start, kind="stable")
    starts = start[order]
    for k in range(n):  # every interval that started the moment this one ended waited for it
        lo, hi = np.searchsorted(starts, end[k] - tol), np.searchsorted(starts, end[k] + tol, side="right")
        pairs += [(k, int(j)) for j in order[lo:hi].tolist() if j != k]
    if not pairs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    a = np.array(pairs, dtype=np.int64)
    return a[:, 0], a[:, 1]


def _slack(phase, tile, start, end, tol, makespan, edges) -> np.ndarray:
    before, after = edges
    latest_end = np.full(start.size, makespan)
    latest_start = latest_end - (end - start)
    successors: dict[int, list[int]] = {}
    for b, a in zip(before.tolist(), after.tolist()):
        successors.setdefault(b, []).append(a)
    for k in np.argsort(-start, kind="stable").tolist():  # latest first: successors start no earlier
        nxt = successors.get(k)
        if nxt:
            latest_end[k] = min(makespan, min(latest_start[j] for j in nxt))
        latest_start[k] = latest_end[k] - (end[k] - start[k])
    slack = latest_end - end
    slack[np.abs(slack) <= tol] = 0.0
    return slack
