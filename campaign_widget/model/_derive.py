"""Every per-phase quantity of docs/semantics.md#per-phase-quantities (durations, utilizations, intensity, speed-of-light time,
what bounds each phase) from a workload's volumes and measured durations on a machine, and the
check that each phase's duration is in range there."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import WorkloadError, short_repr
from ._workload_inputs import _frozen
from .latency import attainable_bandwidth, warn_in_flight_above_capacity
from .machine import Machine
from .phase import SMALLEST
from .phase_arrays import BOUND_BALANCED, BOUND_COMPUTE, BOUND_LATENCY, BOUND_MEMORY, PhaseArrays

_TIE_RTOL = 1e-12  # compute and memory times this close bound a phase together ("balanced")


def _phase_arrays(
    names: Sequence[str],
    ops: np.ndarray,
    bytes_: np.ndarray,
    measured: np.ndarray,
    level_bytes: np.ndarray,
    machine: Machine,
    in_flight: np.ndarray | None = None,
    compute_peaks: np.ndarray | None = None,
) -> PhaseArrays:
    """The arrays of phases that do ``ops`` and move ``bytes_`` (the farthest level's) and
    ``level_bytes`` (phases, levels; NaN: unknown), measured in ``measured`` (NaN: derive the
    duration from the machine's peaks: ``compute_peaks`` per phase, else ``peak_compute``).
    ``in_flight`` (bytes per phase, NaN: not given) over the machine's latencies caps each level's
    bandwidth (docs/memory-hierarchy.md#latency-and-the-concurrency-roof): memory time is at that
    bandwidth, utilizations stay fractions of the peak."""
    P, BW = machine.peak_compute, machine.peak_bandwidth
    bandwidths = np.array(machine.bandwidths)
    reach = attainable_bandwidth(bandwidths, machine.latencies, in_flight) if machine.latency else None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t_compute = ops / (P if compute_peaks is None else compute_peaks)
        t_levels = level_bytes / bandwidths  # NaN where a level is unknown
        t_reach = t_levels if reach is None else level_bytes / reach
        if len(machine.levels):
            t_memory = np.fmax.reduce(t_reach, axis=1)
        else:
            t_memory = bytes_ / BW if reach is None else bytes_ / reach[:, 0]
        t_memory = np.nan_to_num(t_memory)
        t_sol = np.maximum(t_compute, t_memory)
        duration = np.where(np.isnan(measured), t_sol, measured)
        compute_util = np.where(duration > 0, t_compute / duration, 0.0)
        memory_util = np.where(duration > 0, np.nan_to_num(t_levels[:, -1]) / duration, 0.0)  # unknown: no demand
        level_util = np.where(duration[:, None] > 0, t_levels / duration[:, None], np.nan)
        level_util[np.isnan(t_levels)] = np.nan
        intensity = np.where(bytes_ > 0, ops / bytes_, np.where(ops > 0, np.inf, np.nan))
        efficiency = np.where(duration > 0, t_sol / duration, 0.0)
    balanced = np.isclose(t_compute, t_memory, rtol=_TIE_RTOL, atol=0.0)
    bound = np.where(balanced, BOUND_BALANCED, np.where(t_compute > t_memory, BOUND_COMPUTE, BOUND_MEMORY))
    bound_level = np.argmax(np.nan_to_num(t_reach, nan=-1.0), axis=1)
    if reach is not None:
        rows = np.arange(len(bound_level))
        capped = reach[rows, bound_level] < bandwidths[bound_level]
        bound = np.where((bound == BOUND_MEMORY) & capped, BOUND_LATENCY, bound)
    resource = np.array(machine.level_names, dtype=object)[bound_level]
    resource[bound == BOUND_COMPUTE] = machine.compute_name
    resource[bound == BOUND_BALANCED] = "balanced"
    arrays = PhaseArrays(
        duration=_frozen(duration),
        compute_util=_frozen(compute_util),
        memory_util=_frozen(memory_util),
        ops=ops,
        bytes=bytes_,
        intensity=_frozen(intensity),
        t_sol=_frozen(t_sol),
        bound=_frozen(bound.astype(np.uint8)),
        efficiency=_frozen(efficiency),
        level_bytes=_frozen(level_bytes),
        level_util=_frozen(level_util),
        bound_resource=_frozen(resource),
        attainable=None if reach is None else _frozen(reach),
    )
    _check_durations(names, duration, ops, bytes_, P, BW)
    warn_in_flight_above_capacity(names, in_flight, machine)
    return arrays


def _check_durations(
    names: Sequence[str], duration: np.ndarray, ops: np.ndarray, bytes_: np.ndarray, P: float, BW: float
) -> None:
    """Every phase's duration on the machine positive, finite and at least ``SMALLEST``; else the
    first phase that is not, with its volumes and the peaks."""

    def out_of_range(i: int, shown: object, why: str) -> WorkloadError:
        return WorkloadError(
            f"phase {short_repr(names[i])}: its duration on this machine is {shown!r} "
            f"(ops={float(ops[i])!r}, bytes={float(bytes_[i])!r}, peaks {P!r} and {BW!r}){why}"
        )

    zero = np.flatnonzero(~(duration > 0))
    tiny = np.flatnonzero((duration > 0) & (duration < SMALLEST))
    if tiny.size or (zero.size and (ops[zero[0]] > 0 or bytes_[zero[0]] > 0)):
        i = int(tiny[0] if tiny.size else zero[0])
        raise out_of_range(
            i, float(duration[i]), f", below the smallest duration, {SMALLEST:g}: the numbers are out of range"
        )
    if zero.size:
        i = int(zero[0])
        if not np.isfinite(duration[i]) and duration[i] != 0:
            raise out_of_range(i, duration[i], "; the numbers are out of range")
        raise WorkloadError(
            f"phase {short_repr(names[i])}: ops=0 and bytes=0 with no duration: the phase does "
            "no work; give it volumes or a measured duration"
        )
    bad = np.flatnonzero(~np.isfinite(duration))
    if bad.size:
        raise out_of_range(int(bad[0]), duration[int(bad[0])], "; the numbers are out of range")
