"""The roofline bound, classification and guidance of seed 002 (docs/semantics.md#the-roofline), vectorized.

>>> r = roofline(peak_compute=200e9, peak_bandwidth=50e9, ops=[2.0], bytes=[24.0], time=[1e-9])
>>> float(r.ridge), float(r.intensity[0]), round(float(r.bound[0]) / 1e9, 2), r.regime[0]
(4.0, 0.08333333333333333, 4.17, 'memory-bound')
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from ..errors import WorkloadError, WrongTypeError, short_repr
from ..formatting import format_si
from .machine import Ceiling

MEMORY_BOUND, COMPUTE_BOUND, NO_WORK = "memory-bound", "compute-bound", "no work"
# under its concurrency roof: bytes in flight / latency below the peak bandwidth
# (docs/memory-hierarchy.md#latency-and-the-concurrency-roof)
LATENCY_BOUND = "latency-bound"
MAX_CONCURRENCY_CEILINGS = 6  # drawn at most; the phases' most common bytes in flight first
# parallel slopes closer than this factor would put their labels on each other: the later one is not drawn
CONCURRENCY_CEILING_GAP = 4.0
#: the regime of a phase whose file gives its operations but not its bytes (a trace kernel with recorded
#: FLOPs and no counters): no intensity, so no bound and no advice (docs/semantics.md#unknown-bytes)
BYTES_UNKNOWN = "bytes unknown"
BYTES_UNKNOWN_GUIDANCE = "Bytes unknown: no bound and no advice (the file records no bytes for this phase)"
DEFAULT_THRESHOLD = 0.7
GUIDANCE = {
    (MEMORY_BOUND, True): "Near roof: only fix is raise OI (blocking, fusion, reuse)",
    (COMPUTE_BOUND, True): "Near roof: only fix is faster hardware or lower precision",
    (MEMORY_BOUND, False): "Below roof: fix memory access pattern, prefetch, alignment",
    (COMPUTE_BOUND, False): "Below roof: fix vectorization, ILP, branch/stall overhead",
    (LATENCY_BOUND, True): (
        "Near its concurrency roof: more bytes in flight lift it (more independent accesses, prefetching, "
        "more threads); blocking does not"
    ),
    (LATENCY_BOUND, False): (
        "Below its concurrency roof: more bytes in flight (independent accesses, prefetching, more "
        "threads), then the access pattern; blocking does not help"
    ),
    (NO_WORK, True): "No ops and no bytes: nothing to place on the roofline (give the phase its volumes)",
    (NO_WORK, False): "No ops and no bytes: nothing to place on the roofline (give the phase its volumes)",
}
# where a point goes on a log-log roofline (see Roofline.placement)
FINITE, ZERO, INFINITE, NOWHERE = "finite", "zero", "infinite", "none"


@dataclass(frozen=True, eq=False)
class Roofline:
    """Per kernel (phase or aggregate): intensity, bound, regime, achieved and efficiency.

    The degenerate kernels are defined so that every view agrees with ``Workload.table()``
    (docs/workload-files.md, "Zero ops or bytes"):

    - ``efficiency`` = max(ops/P, bytes/BW) / time: the fraction of the roof the kernel reaches, which
      is achieved/bound whenever ops and bytes are both > 0, and is ``table()["efficiency"]``. A
      memory-only kernel (ops = 0, bytes > 0) at full bandwidth has efficiency 1: near its roof.
    - ``intensity`` = ops/bytes; ∞ when bytes = 0 < ops (compute-bound, placed at the right edge);
      0 when ops = 0 < bytes (memory-bound, placed at the left edge); NaN when both are 0: regime
      ``"no work"``, bound NaN, efficiency 0, not placed on the roofline.
    """

    peak_compute: float
    peak_bandwidth: float
    intensity: np.ndarray
    bound: np.ndarray
    regime: np.ndarray  # "memory-bound" / "latency-bound" / "compute-bound" / "no work"
    achieved: np.ndarray  # ops / time
    efficiency: np.ndarray  # max(ops/P, bytes/BW) / time (= achieved / bound when ops, bytes > 0)
    guidance: np.ndarray
    threshold: float

    @property
    def ridge(self) -> float:
        return self.peak_compute / self.peak_bandwidth

    @property
    def placement(self) -> np.ndarray:
        """Per kernel: ``"finite"`` (drawn at its intensity), ``"zero"`` (OI 0: at the left edge),
        ``"infinite"`` (OI ∞: at the right edge) or ``"none"`` (no ops and no bytes: not drawn)."""
        i = self.intensity
        return np.where(np.isnan(i), NOWHERE, np.where(i == 0, ZERO, np.where(np.isinf(i), INFINITE, FINITE))).astype(
            object
        )

    def axis_limits(self, *extra_intensities, margin: float = 8.0) -> tuple[float, float, float, float]:
        """``(x_lo, x_hi, y_lo, y_hi)`` for log axes: finite and > 0 whatever the kernels (all ops 0,
        all bytes 0, one kernel). Spans the ridge, every finite intensity > 0 (and ``extra_intensities``,
        e.g. an aggregate's) and every achieved rate > 0, with ``margin`` × room on each side."""
        xs = [np.atleast_1d(np.asarray(v, dtype=np.float64)) for v in (self.intensity, *extra_intensities)]
        x = np.concatenate(xs + [np.array([self.ridge])])
        x = x[np.isfinite(x) & (x > 0)]
        x_lo, x_hi = float(x.min()) / margin, float(x.max()) * margin
        P, BW = self.peak_compute, self.peak_bandwidth
        y = np.r_[self.achieved[np.isfinite(self.achieved) & (self.achieved > 0)], BW * x_lo]
        y_lo = max(float(y.min()) / 2, P * 1e-12)
        return x_lo, x_hi, y_lo, P * 2

    def plot_position(self, x_lo: float, x_hi: float, y_lo: float) -> tuple[np.ndarray, np.ndarray]:
        """Where to draw each kernel on log axes with those limits: OI 0 at ``x_lo``, OI ∞ at ``x_hi``,
        an achieved rate of 0 at ``y_lo``; kernels with no work at NaN (not drawn). Label the edge
        points with ``edge_labels``."""
        placement = self.placement
        x = np.where(placement == ZERO, x_lo, np.where(placement == INFINITE, x_hi, self.intensity))
        x = np.where(placement == NOWHERE, np.nan, x).astype(np.float64)
        y = np.where(self.achieved > 0, self.achieved, y_lo).astype(np.float64)
        y = np.where(placement == NOWHERE, np.nan, y)
        return x, y

    @property
    def edge_labels(self) -> np.ndarray:
        """Per kernel: ``"OI 0"``, ``"OI ∞"``, ``"no ops or bytes"`` or ``""`` (a finite intensity)."""
        labels = {FINITE: "", ZERO: "OI 0", INFINITE: "OI ∞", NOWHERE: "no ops or bytes"}
        out = np.array([labels[p] for p in self.placement], dtype=object)
        out[self.regime == BYTES_UNKNOWN] = BYTES_UNKNOWN
        return out


def _as_float(value) -> float:
    """``float(value)``, with an integer too large for a float read as infinity (refused by the caller)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def roofline(
    peak_compute,
    peak_bandwidth,
    ops,
    bytes,
    time,
    threshold: float = DEFAULT_THRESHOLD,
    attainable=None,
    compute_peaks=None,
    bytes_unknown=None,
) -> Roofline:
    """ROOFLINE_BOUND and OPTIMIZE_GUIDANCE of seed 002 over arrays of kernels (see ``Roofline`` for
    kernels with no ops or no bytes). Raises a WorkloadError naming a peak or volume that is not finite.

    ``attainable`` (per kernel, B/s, at most the peak) is the bandwidth each kernel's bytes in flight
    reach (docs/memory-hierarchy.md#latency-and-the-concurrency-roof): a kernel is judged against the
    lower of its roofs, ``min(P, attainable·OI)``, and is latency-bound under it where it is below the peak.
    ``compute_peaks``: each kernel's own compute roof (its data type's, docs/llm-inference.md#a-peak-per-data-type),
    else ``peak_compute`` for all. ``bytes_unknown`` (per kernel, True where the source gives no bytes):
    those kernels read ``BYTES_UNKNOWN``, with no intensity, bound, efficiency or advice, and are not placed."""
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (numbers.Real, np.floating, np.integer))
        or not 0 < _as_float(threshold) <= 1
    ):
        raise WorkloadError(f"threshold={short_repr(threshold)} must be in (0, 1]")
    for label, peak in (("peak_compute", peak_compute), ("peak_bandwidth", peak_bandwidth)):
        if isinstance(peak, (bool, np.bool_)) or not isinstance(peak, (numbers.Real, np.floating, np.integer)):
            raise WrongTypeError(f"{label}={short_repr(peak)} must be a number")
        if not 0 < _as_float(peak) < np.inf:
            raise WorkloadError(f"{label}={short_repr(peak)} must be a finite number > 0")
    arrays = []
    for label, values in (("ops", ops), ("bytes", bytes), ("time", time)):
        try:
            arrays.append(np.atleast_1d(np.asarray(values, dtype=np.float64)))
        except (TypeError, ValueError, OverflowError):
            raise WrongTypeError(f"{label}={short_repr(values)} must be numbers") from None
    ops, bytes_, time = arrays
    for label, values in (("ops", ops), ("bytes", bytes_), ("time", time)):
        bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
        if bad.size:
            raise WorkloadError(f"{label}[{int(bad[0])}]={float(values[bad[0]])!r} must be finite and >= 0")
    BW = float(peak_bandwidth)  # checked finite above
    P = float(peak_compute) if compute_peaks is None else np.asarray(compute_peaks, dtype=np.float64)
    reach = BW if attainable is None else np.asarray(attainable, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        intensity = np.where(bytes_ > 0, ops / bytes_, np.where(ops > 0, np.inf, np.nan))
        bound = np.where(np.isnan(intensity), np.nan, np.minimum(P, reach * np.nan_to_num(intensity, posinf=np.inf)))
        achieved = np.where(time > 0, ops / time, 0.0)
        t_sol = np.maximum(ops / P, bytes_ / reach)
        efficiency = np.where(time > 0, t_sol / time, 0.0)
        memory_side = intensity < P / reach
    memory = MEMORY_BOUND if attainable is None else np.where(reach < BW, LATENCY_BOUND, MEMORY_BOUND)
    regime = np.where(np.isnan(intensity), NO_WORK, np.where(memory_side, memory, COMPUTE_BOUND)).astype(object)
    near = efficiency >= threshold
    guidance = np.array([GUIDANCE[(r, bool(n))] for r, n in zip(regime, near)], dtype=object)
    if bytes_unknown is not None and np.any(bytes_unknown):
        unknown = np.asarray(bytes_unknown, dtype=bool)
        intensity, bound, efficiency = (np.where(unknown, np.nan, v) for v in (intensity, bound, efficiency))
        regime[unknown], guidance[unknown] = BYTES_UNKNOWN, BYTES_UNKNOWN_GUIDANCE
    return Roofline(
        peak_compute=float(peak_compute),
        peak_bandwidth=BW,
        intensity=intensity,
        bound=bound,
        regime=regime,
        achieved=achieved,
        efficiency=efficiency,
        guidance=guidance,
        threshold=float(threshold),
    )


def unknown_bytes(workload) -> np.ndarray:
    """Per phase, True where the workload's source gives operations but no bytes (its import report says
    the bytes are unknown and none were read): the one rule behind "bytes unknown" in every view and the
    command line (docs/semantics.md#unknown-bytes). All False for a workload not read from a profile."""
    a = workload.arrays
    report = getattr(workload, "import_report", None)
    if report is None:
        return np.zeros(len(a.ops), dtype=bool)
    unknown = {p.name for p in report.phases if p.bytes_source == "unknown"}
    named = np.array([name in unknown for name in workload.names], dtype=bool)
    return named & (np.asarray(a.bytes) == 0) & (np.asarray(a.ops) > 0)


def workload_roofline(workload, threshold: float = DEFAULT_THRESHOLD) -> Roofline:
    """One point per phase, at its duration, judged against its lowest roof (its concurrency roof at
    the farthest level when its bytes in flight cap it there); a phase whose bytes are unknown
    (``unknown_bytes``) has none."""
    a, m = workload.arrays, workload.machine
    reach = None if a.attainable is None else a.attainable[:, -1]
    return roofline(
        m.peak_compute,
        m.peak_bandwidth,
        a.ops,
        a.bytes,
        a.duration,
        threshold,
        attainable=reach,
        compute_peaks=workload.compute_peaks,
        bytes_unknown=unknown_bytes(workload),
    )


def concurrency_ceilings(workload) -> tuple[Ceiling, ...]:
    """The concurrency roofs of a workload's phases (docs/memory-hierarchy.md#latency-and-the-concurrency-roof):
    one bandwidth ceiling per bytes in flight and level where bytes in flight / latency is below the
    level's peak, named by both; the most common bytes in flight first, at most
    ``MAX_CONCURRENCY_CEILINGS``, and none within ``CONCURRENCY_CEILING_GAP`` × of one already drawn
    (its label would lie on the other's). Empty when no phase gives bytes in flight or no level a latency."""
    in_flight, m = workload.bytes_in_flight, workload.machine
    if in_flight is None or not m.latency:
        return ()
    values, counts = np.unique(in_flight[~np.isnan(in_flight)], return_counts=True)
    ceilings: list[Ceiling] = []
    for q in values[np.argsort(-counts, kind="stable")]:
        for level, bandwidth, latency in zip(m.level_names, m.bandwidths, m.latencies):
            reach = q / latency
            crowded = any(
                1 / CONCURRENCY_CEILING_GAP < reach / float(c.bandwidth or 1) < CONCURRENCY_CEILING_GAP
                for c in ceilings
            )
            if np.isnan(latency) or reach >= bandwidth or crowded or len(ceilings) == MAX_CONCURRENCY_CEILINGS:
                continue
            where = f" at {level}" if len(m.level_names) > 1 else ""
            name = f"{format_si(float(q), m.bytes_unit)} in flight{where}"
            ceilings.append(Ceiling(name, bandwidth=float(q / latency)))
    return tuple(ceilings)


def roofline_ceilings(workload) -> tuple[Ceiling, ...]:
    """Every lower roof a roofline of ``workload`` draws: the machine's ceilings, then its phases'
    concurrency roofs."""
    return tuple(workload.machine.ceilings) + concurrency_ceilings(workload)


def type_roofs(workload) -> tuple[tuple[str, float], ...]:
    """The compute roof of each data type the workload's phases use, on a machine with a peak per
    type (docs/llm-inference.md#a-peak-per-data-type), lowest first; () on a machine of one peak."""
    machine = workload.machine
    if not machine.peaks:
        return ()
    used = {d for d in workload.dtypes if d is not None}
    return tuple(sorted(((d, machine.peak_for(d)) for d in used), key=lambda pair: (pair[1], pair[0])))


def schedule_roofline(workload, schedule, threshold: float = DEFAULT_THRESHOLD) -> Roofline:
    """The aggregate point of a schedule: all its ops and bytes over its makespan."""
    a, m = workload.arrays, workload.machine
    return roofline(m.peak_compute, m.peak_bandwidth, [a.ops.sum()], [a.bytes.sum()], [schedule.makespan], threshold)


@dataclass(frozen=True, eq=False)
class LevelRoofline:
    """The hierarchical roofline (docs/memory-hierarchy.md#the-hierarchical-roofline): one roof per memory level and the compute roof;
    per phase one point per known level at (OI_ℓ, ops/T), joined by a thin line when drawn.

    ``intensity`` is (phases, levels), nearest level first, NaN where a level is unknown for the
    phase (it draws no point there); ``bound_resource`` classifies each phase by name.
    """

    peak_compute: float
    levels: tuple[str, ...]
    bandwidths: np.ndarray  # (levels,)
    intensity: np.ndarray  # (phases, levels)
    achieved: np.ndarray  # (phases,) ops / time
    bound_resource: np.ndarray  # (phases,) "compute", a level's name, or "balanced"

    def ridge(self, level: str) -> float:
        """Ops per byte where ``level``'s roof meets the compute roof."""
        return self.peak_compute / float(self.bandwidths[self.levels.index(level)])

    def roof(self, level: str, intensity) -> np.ndarray:
        """``level``'s roof at these intensities: min(P, BW_ℓ·OI)."""
        bandwidth = float(self.bandwidths[self.levels.index(level)])
        return np.minimum(self.peak_compute, bandwidth * np.asarray(intensity, dtype=np.float64))

    def known(self) -> np.ndarray:
        """(phases, levels): True where the phase has a point for the level."""
        return ~np.isnan(self.intensity)

    def axis_limits(self, margin: float = 8.0) -> tuple[float, float, float, float]:
        """``(x_lo, x_hi, y_lo, y_hi)`` for log axes spanning every ridge, every finite intensity
        > 0 and every achieved rate > 0."""
        x = np.concatenate([self.intensity.ravel(), self.peak_compute / self.bandwidths])
        x = x[np.isfinite(x) & (x > 0)]
        x_lo, x_hi = float(x.min()) / margin, float(x.max()) * margin
        y = np.r_[self.achieved[np.isfinite(self.achieved) & (self.achieved > 0)], self.bandwidths.min() * x_lo]
        return x_lo, x_hi, max(float(y.min()) / 2, self.peak_compute * 1e-12), self.peak_compute * 2


def level_roofline(workload) -> LevelRoofline:
    """A workload's hierarchical roofline on its machine's levels (one level: today's roofline's points)."""
    a, m = workload.arrays, workload.machine
    with np.errstate(divide="ignore", invalid="ignore"):
        ops = a.ops[:, None]
        b = a.level_bytes
        intensity = np.where(b > 0, ops / b, np.where(np.isnan(b) | (ops == 0), np.nan, np.inf))
        achieved = np.where(a.duration > 0, a.ops / a.duration, 0.0)
    return LevelRoofline(
        peak_compute=float(m.peak_compute),
        levels=m.level_names,
        bandwidths=np.array(m.bandwidths, dtype=np.float64),
        intensity=intensity,
        achieved=achieved,
        bound_resource=a.bound_resource.copy(),
    )
