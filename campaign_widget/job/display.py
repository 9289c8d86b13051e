"""A job as campaigns (docs/distributed-jobs.md#the-job-as-campaigns): each rank's device events as a
measured ``Timeline`` on the job's shared clock, communication on a ``network`` resource of its own, and a
workload of one phase per rank's step for the roofline. No widget here: ``views/job.py`` stacks them."""

from __future__ import annotations

import numpy as np

from ..model.machine import Machine
from ..model.phase import Phase
from ..model.presets import machine_from
from ..model.timeline import Timeline, from_intervals
from ..model.workload import Workload
from ._numbers import counted, step_times
from ._rank import COMMUNICATION, COMPUTE, MEMORY, NO_MACHINE, Rank

NETWORK = "network"
US = 1e-6


def display_machine(machine=None) -> Machine:
    """The ranks' machine with a ``network`` level nearer than its memory (the bandwidth of its memory when
    it has none: a trace gives no network bandwidth, and the diagram draws fractions of it)."""
    m = NO_MACHINE if machine is None else machine_from(machine) if isinstance(machine, str) else machine
    if NETWORK in m.level_names:
        return m
    levels = m.levels or ((m.memory_name, m.peak_bandwidth),)
    return Machine(m.peak_compute, levels=((NETWORK, m.bandwidth(m.memory_name)), *levels), name=m.name)


def job_origin(ranks: dict[int, Rank]) -> float:
    """The job's t = 0 (µs on the traces' clock): its first counted device event."""
    return min(float(r.start[counted(r)].min(initial=np.inf)) for r in ranks.values())


def rank_timeline(rank: Rank, origin: float, machine=None) -> Timeline:
    """One rank's counted device events as a Timeline from ``origin`` (µs): a phase per event name, each
    event using the resource of its type at its full rate (computation: compute; memory: memory;
    communication: network), on its own lane (stream or thread)."""
    m = display_machine(machine)
    keep, ids, phase = _by_name(rank)
    start = (rank.start[keep] - origin) * US
    end = (rank.end[keep] - origin) * US
    busy = np.bincount(phase, weights=end - start, minlength=ids.size)
    kind = rank.kind[keep]
    phases = [Phase(rank.names[int(i)], duration=max(float(b), 1e-12), compute_util=0.0, memory_util=0.0)
              for i, b in zip(ids, busy)]  # fmt: skip
    workload = Workload(phases, machine=m)
    return from_intervals(
        workload,
        phase=phase,
        start=np.maximum(start, 0.0),
        end=np.maximum(end, np.maximum(start, 0.0)),
        lane=rank.lane[keep],
        lane_names=rank.lanes,
        compute_rate=(kind == COMPUTE).astype(float),
        memory_rate=(kind == MEMORY).astype(float),
        level_rate={NETWORK: (kind == COMMUNICATION).astype(float)},
    )


def path_intervals(timeline: Timeline, path: list[dict], rank: int, origin: float) -> np.ndarray:
    """The intervals of ``rank``'s ``rank_timeline`` (from ``origin``, µs) that are on the job's critical
    path (``Job.critical_path()``): each of the rank's path events, by its name, start and end."""
    names = {n: i for i, n in enumerate(timeline.names)}
    picked = []
    for e in path:
        if e["rank"] != rank or e["name"] not in names:
            continue
        start, end = max((e["start"] - origin) * US, 0.0), max((e["end"] - origin) * US, 0.0)
        tol = 1e-9 * max(1.0, abs(end))
        hit = np.flatnonzero((timeline.phase == names[e["name"]]) & (np.abs(timeline.start - start) <= tol)
                             & (np.abs(timeline.end - end) <= tol))  # fmt: skip
        picked.extend(hit[:1].tolist())
    return np.array(sorted(set(picked)), dtype=np.int64)


def rank_bound(rank: Rank, machine=None) -> Workload:
    """The bound of a rank's timeline (docs/distributed-jobs.md#a-ranks-achieved-over-bound-view): its
    phases (``rank_timeline``'s, in its order) one after another with no idle time, each at its
    speed-of-light time on ``machine`` when its counted events recorded FLOPs and bytes, else at its
    measured busy time."""
    m = display_machine(machine)
    keep, ids, phase = _by_name(rank)
    busy = np.bincount(phase, weights=rank.end[keep] - rank.start[keep], minlength=ids.size) * US
    ops = np.bincount(phase, weights=rank.flops[keep], minlength=ids.size)
    nbytes = np.bincount(phase, weights=rank.bytes[keep], minlength=ids.size)
    known = machine is not None
    phases = [Phase(rank.names[int(i)], ops=float(o), bytes=float(b)) if known and o > 0 and b > 0
              else Phase(rank.names[int(i)], duration=max(float(t), 1e-12), compute_util=0.0, memory_util=0.0)
              for i, t, o, b in zip(ids, busy, ops, nbytes)]  # fmt: skip
    return Workload(phases, machine=m)


def _by_name(rank: Rank) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rank's counted events (indices), their distinct names (ids, sorted) and each event's phase."""
    keep = np.flatnonzero(counted(rank))
    ids, phase = np.unique(rank.name[keep], return_inverse=True)
    return keep, ids, phase


def steps_workload(ranks: dict[int, Rank], machine) -> Workload:
    """One phase per rank: its mean step (µs → s) with the FLOPs and bytes its counted events recorded per
    step, on ``machine``: the roofline's point per rank."""
    m = machine_from(machine) if isinstance(machine, str) else machine
    phases = []
    for k, r in ranks.items():
        keep = counted(r)
        steps = max(len(r.steps) - 1, 1)
        ops, nbytes = float(r.flops[keep].sum()) / steps, float(r.bytes[keep].sum()) / steps
        duration = float(step_times(r).mean()) * US
        phases.append(Phase(f"rank {k}", duration=duration, ops=ops or None, bytes=nbytes or None)
                      if ops and nbytes else Phase(f"rank {k}", duration=duration, compute_util=0.0, memory_util=0.0))  # fmt: skip
    return Workload(phases, machine=m)
