"""A rank's numbers by Holistic Trace Analysis's definitions (docs/distributed-jobs.md#the-numbers): unions
of intervals, the temporal breakdown, the communication overlap, the kernel breakdown, the step times."""

from __future__ import annotations

import numpy as np

from ._rank import COMMUNICATION, COMPUTE, KINDS, MEMORY, Rank


def merged(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of intervals as disjoint sorted intervals (touching ones joined, as HTA merges)."""
    if start.size == 0:
        return start.copy(), end.copy()
    order = np.argsort(start, kind="stable")
    s, e = start[order], end[order]
    reach = np.maximum.accumulate(e)
    new = np.r_[True, s[1:] > reach[:-1]]
    first = np.flatnonzero(new)
    return s[first], np.maximum.reduceat(e, first)


def length(start: np.ndarray, end: np.ndarray) -> float:
    s, e = merged(start, end)
    return float((e - s).sum())


def overlap_length(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> float:
    """The time both unions cover: |A| + |B| - |A ∪ B|."""
    return length(*a) + length(*b) - length(np.r_[a[0], b[0]], np.r_[a[1], b[1]])


def counted(rank: Rank) -> np.ndarray:
    """The device events HTA counts: those that start in a step other than the last (a step's start
    ``<= ts <`` its end); every event when the trace has no ``ProfilerStep`` annotations."""
    steps = rank.steps
    if len(steps) == 0:
        return np.ones(rank.start.size, dtype=bool)
    kept = steps[:-1]
    k = np.searchsorted(kept[:, 0], rank.start, side="right") - 1
    inside = k >= 0
    inside[inside] = rank.start[inside] < kept[k[inside], 1]
    return inside


def _kind(rank: Rank, keep: np.ndarray, kind: int) -> tuple[np.ndarray, np.ndarray]:
    sel = keep & (rank.kind == kind)
    return rank.start[sel], rank.end[sel]


def temporal(rank: Rank) -> dict:
    """Idle, compute and non-compute time and the span (µs): the span from the first counted device event's
    start to the last one's end, idle the span not covered by any, compute the union of the computation."""
    keep = counted(rank)
    s, e = merged(rank.start[keep], rank.end[keep])
    if s.size == 0:
        return {"idle": 0.0, "compute": 0.0, "non_compute": 0.0, "span": 0.0}
    span = float(e[-1] - s[0])
    idle = span - float((e - s).sum())
    compute = length(*_kind(rank, keep, COMPUTE))
    return {"idle": idle, "compute": compute, "non_compute": span - compute - idle, "span": span}


def overlap(rank: Rank) -> float:
    """The share of the communication time (its union) that computation overlaps; NaN with none."""
    keep = counted(rank)
    comm = _kind(rank, keep, COMMUNICATION)
    total = length(*comm)
    if total == 0:
        return float("nan")
    return overlap_length(comm, _kind(rank, keep, COMPUTE)) / total


def kernels(rank: Rank) -> dict:
    """Per type, its time (the union of its events, µs) and count; the overlaps of each two types."""
    keep = counted(rank)
    out: dict = {}
    parts = {k: _kind(rank, keep, k) for k in (COMPUTE, COMMUNICATION, MEMORY)}
    for k, part in parts.items():
        out[KINDS[k]] = length(*part)
        out[KINDS[k] + " count"] = int(part[0].size)
    pairs = ((COMPUTE, COMMUNICATION), (COMPUTE, MEMORY), (COMMUNICATION, MEMORY))
    for a, b in pairs:
        out[f"{KINDS[a]} ∩ {KINDS[b]}"] = overlap_length(parts[a], parts[b])
    return out


def step_times(rank: Rank) -> np.ndarray:
    """Each counted step's length minus the communication no computation hides in it (µs): the time the
    rank itself took, without its waits for the others. The span when there are no steps."""
    steps = rank.steps[:-1] if len(rank.steps) > 1 else rank.steps
    if len(steps) == 0:
        t = temporal(rank)
        steps = np.array([[rank.start.min(initial=0.0), rank.start.min(initial=0.0) + t["span"]]])
    out = []
    comm_all, comp_all = rank.of_kind(COMMUNICATION), rank.of_kind(COMPUTE)
    for t0, t1 in steps.tolist():
        comm = _clip(comm_all, t0, t1)
        exposed = length(*comm) - overlap_length(comm, _clip(comp_all, t0, t1))
        out.append((t1 - t0) - exposed)
    return np.array(out)


def region_times(rank: Rank) -> dict[str, float]:
    """Per top-level annotation name (``forward``, ``backward``, …), its summed time per counted step (µs);
    per device event name when the trace has no annotations."""
    steps = max(len(rank.steps) - 1, 1)
    if len(rank.regions):
        start, end, name = rank.regions[:, 0], rank.regions[:, 1], rank.regions[:, 2].astype(np.int64)
    else:
        start, end, name = rank.start, rank.end, rank.name
    total = np.bincount(name, weights=end - start, minlength=len(rank.names))
    return {rank.names[i]: float(total[i]) / steps for i in np.flatnonzero(total).tolist()}


def _clip(part: tuple[np.ndarray, np.ndarray], t0: float, t1: float) -> tuple[np.ndarray, np.ndarray]:
    s, e = np.maximum(part[0], t0), np.minimum(part[1], t1)
    keep = e > s
    return s[keep], e[keep]


def job_path(ranks: dict[int, Rank]) -> list[dict]:
    """The job's critical path through its counted device events (docs/distributed-jobs.md#the-critical-path):
    back from the event that ends last, each step the event of the same rank that ended last before it
    started; at a collective, to the rank that joined it last (the one the others waited for)."""
    events = {}
    for k, r in ranks.items():
        keep = np.flatnonzero(counted(r))
        events[k] = (keep[np.argsort(r.end[keep], kind="stable")], r)
    instance = {k: _instances(r, idx) for k, (idx, r) in events.items()}
    last_rank = max(events, key=lambda k: events[k][1].end[events[k][0]].max(initial=-np.inf))
    idx, r = events[last_rank]
    if idx.size == 0:
        return []
    current, rank = int(idx[-1]), last_rank
    path = []
    seen = set()
    while (rank, current) not in seen:
        seen.add((rank, current))
        r = events[rank][1]
        which = instance[rank].get(current)
        if which is not None:  # a collective: the rank that joined it last set its end
            joined = {
                k: instance_of[which] for k, instance_of in _by_instance(instance).items() if which in instance_of
            }
            rank = max(joined, key=lambda k: events[k][1].start[joined[k]])
            current, r = joined[rank], events[rank][1]
        path.append(_entry(rank, r, current))
        idx = events[rank][0]
        before = idx[: np.searchsorted(r.end[idx], r.start[current], side="right")]
        before = before[before != current]
        if before.size == 0:
            break
        current = int(before[-1])
    path.reverse()
    for a, b in zip(path, path[1:]):
        b["wait"] = max(0.0, b["start"] - a["end"])
    if path:
        path[0]["wait"] = 0.0
    return path


def _instances(r: Rank, idx: np.ndarray) -> dict[int, tuple[str, int]]:
    """Each collective event → (its name, its number among the rank's collectives of that name)."""
    comm = idx[r.kind[idx] == COMMUNICATION]
    comm = comm[np.argsort(r.start[comm], kind="stable")]
    count: dict[str, int] = {}
    out = {}
    for i in comm.tolist():
        name = r.names[r.name[i]]
        out[i] = (name, count.get(name, 0))
        count[name] = count.get(name, 0) + 1
    return out


def _by_instance(instance: dict[int, dict]) -> dict[int, dict]:
    return {k: {v: i for i, v in per.items()} for k, per in instance.items()}


def _entry(rank: int, r: Rank, i: int) -> dict:
    return {"rank": rank, "name": r.names[r.name[i]], "kind": KINDS[r.kind[i]], "start": float(r.start[i]),
            "end": float(r.end[i])}  # fmt: skip


def per_name(rank: Rank) -> dict[str, tuple[float, float]]:
    """Per device event name, its summed time (µs) and count per counted step."""
    keep = counted(rank)
    steps = max(len(rank.steps) - 1, 1)
    name = rank.name[keep]
    total = np.bincount(name, weights=rank.end[keep] - rank.start[keep], minlength=len(rank.names))
    count = np.bincount(name, minlength=len(rank.names))
    return {rank.names[i]: (float(total[i]) / steps, int(count[i]) / steps) for i in np.flatnonzero(count).tolist()}
