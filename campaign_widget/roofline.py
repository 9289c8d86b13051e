"""The roofline bound, classification and guidance of seed 002 (design.md §5), vectorized.

>>> r = roofline(peak_compute=200e9, peak_bandwidth=50e9, ops=[2.0], bytes=[24.0], time=[1e-9])
>>> float(r.ridge), float(r.intensity[0]), round(float(r.bound[0]) / 1e9, 2), r.regime[0]
(4.0, 0.08333333333333333, 4.17, 'memory-bound')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MEMORY_BOUND, COMPUTE_BOUND = "memory-bound", "compute-bound"
DEFAULT_THRESHOLD = 0.7
GUIDANCE = {
    (MEMORY_BOUND, True): "Near roof: only fix is raise AI (blocking, fusion, reuse)",
    (COMPUTE_BOUND, True): "Near roof: only fix is faster hardware or lower precision",
    (MEMORY_BOUND, False): "Below roof: fix memory access pattern, prefetch, alignment",
    (COMPUTE_BOUND, False): "Below roof: fix vectorization, ILP, branch/stall overhead",
}


@dataclass(frozen=True, eq=False)
class Roofline:
    """Per kernel (phase or aggregate): intensity, bound, regime, achieved and efficiency."""

    peak_compute: float
    peak_bandwidth: float
    intensity: np.ndarray
    bound: np.ndarray
    regime: np.ndarray  # "memory-bound" / "compute-bound"
    achieved: np.ndarray  # ops / time
    efficiency: np.ndarray  # achieved / bound
    guidance: np.ndarray
    threshold: float

    @property
    def ridge(self) -> float:
        return self.peak_compute / self.peak_bandwidth


def roofline(peak_compute, peak_bandwidth, ops, bytes, time, threshold: float = DEFAULT_THRESHOLD) -> Roofline:
    """ROOFLINE_BOUND and OPTIMIZE_GUIDANCE of seed 002 over arrays of kernels."""
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold={threshold!r} must be in (0, 1]")
    ops, bytes_, time = (np.atleast_1d(np.asarray(x, dtype=np.float64)) for x in (ops, bytes, time))
    with np.errstate(divide="ignore", invalid="ignore"):
        intensity = np.where(bytes_ > 0, ops / bytes_, np.inf)
        bound = np.minimum(peak_compute, peak_bandwidth * intensity)
        achieved = np.where(time > 0, ops / time, 0.0)
        efficiency = np.where(bound > 0, achieved / bound, 0.0)
    memory = intensity < peak_compute / peak_bandwidth
    regime = np.where(memory, MEMORY_BOUND, COMPUTE_BOUND).astype(object)
    near = efficiency >= threshold
    guidance = np.array([GUIDANCE[(r, bool(n))] for r, n in zip(regime, near)], dtype=object)
    return Roofline(peak_compute=float(peak_compute), peak_bandwidth=float(peak_bandwidth), intensity=intensity,
                    bound=bound, regime=regime, achieved=achieved, efficiency=efficiency, guidance=guidance,
                    threshold=float(threshold))


def workload_roofline(workload, threshold: float = DEFAULT_THRESHOLD) -> Roofline:
    """One point per phase, at its duration."""
    a, m = workload.arrays, workload.machine
    return roofline(m.peak_compute, m.peak_bandwidth, a.ops, a.bytes, a.duration, threshold)


def schedule_roofline(workload, schedule, threshold: float = DEFAULT_THRESHOLD) -> Roofline:
    """The aggregate point of a schedule: all its ops and bytes over its makespan."""
    a, m = workload.arrays, workload.machine
    return roofline(m.peak_compute, m.peak_bandwidth, [a.ops.sum()], [a.bytes.sum()], [schedule.makespan],
                    threshold)
