"""The machine: a compute peak and one or more memory levels with bandwidths (docs/semantics.md#machines-phases-and-time and docs/memory-hierarchy.md#machines-with-levels)."""

from __future__ import annotations

import decimal
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..errors import MeasurementError, WorkloadError, WrongTypeError, check_flag, short_repr
from .dtypes import canonical
from .host import bandwidth_sweep, latency_sweep, measure_peaks, memory_working_set
from .latency import checked_latency, latency_seconds
from .phase import LARGEST, SMALLEST, check_name

PEAK_RANGE = (SMALLEST, LARGEST)  # a peak (or ceiling) outside this range is refused where it is made


def _check_peak(what: str, value) -> float:
    # any real number (int, float, numpy scalar, Fraction, Decimal), as Phase and roofline() take
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        raise WrongTypeError(f"{what}={short_repr(value)} must be a number")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number) or number <= 0:
        raise WorkloadError(f"{what}={short_repr(value)} must be a finite number > 0")
    if not PEAK_RANGE[0] <= number <= PEAK_RANGE[1]:
        raise WorkloadError(
            f"{what}={short_repr(value)} is out of range: a peak must be within [{PEAK_RANGE[0]:g}, {PEAK_RANGE[1]:g}]"
        )
    return number


@dataclass(frozen=True)
class Ceiling:
    """A named lower roof for rooflines, e.g. ``Ceiling("no FMA", compute=25.6e12)``.

    ``compute``/``bandwidth``: a finite number > 0 (within the machine's peak range), or None.
    """

    name: str
    compute: float | None = None
    bandwidth: float | None = None

    def __post_init__(self):
        check_name("ceiling name", self.name)
        if self.compute is None and self.bandwidth is None:
            raise WorkloadError(f"ceiling {short_repr(self.name)}: give compute= or bandwidth= (or both)")
        for label in ("compute", "bandwidth"):
            value = getattr(self, label)
            if value is not None:
                _check_peak(f"ceiling {short_repr(self.name)}: {label}", value)


@dataclass(frozen=True)
class Machine:
    """Peaks of a compute resource (ops/s) and of one or more memory levels (bytes/s).

    ``levels`` maps level names to bandwidths, nearest to compute first (docs/memory-hierarchy.md#machines-with-levels); the last
    one is the memory farthest from compute, whose bandwidth is ``peak_bandwidth``. Without
    ``levels`` the machine has one level, named ``memory_name``.

    ``capacity`` (bytes of the farthest level, or ``{level: bytes}``) says how much each level holds;
    ``peak_compute={"fp16": ..., "int8": ...}`` gives a peak per data type, the first one being
    ``peak_compute`` (docs/llm-inference.md#a-peak-per-data-type).

    >>> m = Machine(peak_compute=51.2e12, peak_bandwidth=3.35e12, name="H100 FP32")
    >>> m.ridge_point  # ops per byte where the two roofs meet
    15.283582089552239
    >>> h = Machine(peak_compute=100, levels={"L2": 40, "DRAM": 10})
    >>> h.level_names, h.peak_bandwidth, h.bandwidth("L2")
    (('L2', 'DRAM'), 10.0, 40.0)

    ``latency`` gives a level's latency (docs/memory-hierarchy.md#latency-and-the-concurrency-roof): a number
    on a one-level machine, ``{level: latency}`` on several; in seconds, or in cycles with
    ``latency_unit="cycles"`` and the ``clock`` in Hz. A phase's bytes in flight over it cap the
    bandwidth the phase reaches at that level (Little's law).

    >>> Machine(100, levels={"L2": 40, "DRAM": 10}, latency={"DRAM": 300}, latency_unit="cycles", clock=3e9).latencies.tolist()
    [nan, 1e-07]
    """

    peak_compute: float
    peak_bandwidth: float | None = None
    name: str = ""
    compute_name: str = "compute"
    memory_name: str = "memory"
    ops_unit: str = "FLOP"
    bytes_unit: str = "B"
    time_unit: str = "s"
    ceilings: tuple[Ceiling, ...] = field(default_factory=tuple)
    normalized: bool = False  # peaks of 1: rates are fractions of peak, volumes are peak·time
    levels: tuple[tuple[str, float], ...] = ()
    # docs/memory-hierarchy.md#latency-and-the-concurrency-roof: per level, in ``latency_unit``
    latency: Any = ()  # a number (one level) or {level: latency}; stored as ((level, latency), ...)
    latency_unit: str = "s"
    clock: float | None = None  # Hz; needed for latencies in cycles
    # bytes each memory level holds (docs/llm-inference.md#memory-capacity): a number for the farthest
    # level or {level: bytes}; reads back as ((level, bytes), ...), () when not given
    capacity: Any = ()
    # ops/s per data type (docs/llm-inference.md#a-peak-per-data-type), from peak_compute={type: peak};
    # the first is peak_compute itself
    peaks: tuple[tuple[str, float], ...] = ()

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise WrongTypeError(f"machine name={short_repr(self.name)} must be a string")
        if self.name:
            check_name("machine name", self.name)
        who = f"machine {short_repr(self.name)}" if self.name else "machine (unnamed)"
        for label in ("compute_name", "memory_name", "ops_unit", "bytes_unit", "time_unit"):
            check_name(f"{who}: {label}", getattr(self, label))
        if self.compute_name == self.memory_name:
            raise WorkloadError(
                f"{who}: compute_name and memory_name are both {self.compute_name!r}; the two "
                "resources need different names"
            )
        peaks = _checked_typed_peaks(who, self.peak_compute, self.peaks)
        object.__setattr__(self, "peaks", peaks)
        if peaks:
            object.__setattr__(self, "peak_compute", peaks[0][1])
        _check_peak(f"{who}: peak_compute", self.peak_compute)
        levels = _checked_levels(who, self.levels, self.peak_bandwidth, self.memory_name, self.compute_name)
        object.__setattr__(self, "capacity", _checked_capacity(who, self.capacity, [name for name, _ in levels]))
        # one level is stored as today's machine (memory_name, peak_bandwidth) and levels=(), so that
        # every one-level machine has one spelling; several are kept in ``levels``
        object.__setattr__(self, "levels", levels if len(levels) > 1 else ())
        object.__setattr__(self, "peak_bandwidth", levels[-1][1])
        object.__setattr__(self, "memory_name", levels[-1][0])
        object.__setattr__(self, "normalized", check_flag(self.normalized, f"{who}: normalized"))
        latency, clock = checked_latency(who, self.latency, self.latency_unit, self.clock, self.level_names)
        object.__setattr__(self, "latency", latency)
        object.__setattr__(self, "clock", clock)
        ceilings = self.ceilings
        if isinstance(ceilings, (str, bytes, Ceiling)) or not hasattr(ceilings, "__iter__"):
            raise WrongTypeError(f"{who}: ceilings={short_repr(ceilings)} must be a list of Ceiling")
        ceilings = tuple(ceilings)
        seen = set()
        for c in ceilings:
            if not isinstance(c, Ceiling):
                raise WrongTypeError(f"{who}: ceilings contains {short_repr(c)}, not a Ceiling")
            if c.name in seen:
                raise WorkloadError(f"{who}: two ceilings are named {c.name!r}")
            seen.add(c.name)
        object.__setattr__(self, "ceilings", ceilings)

    @property
    def memory_levels(self) -> tuple[tuple[str, float], ...]:
        """Every memory level as (name, bandwidth), nearest to compute first; one on a one-level machine."""
        return self.levels or ((self.memory_name, self.peak_bandwidth),)

    @property
    def level_names(self) -> tuple[str, ...]:
        """The memory levels' names, nearest to compute first (one name on a one-level machine)."""
        return tuple(name for name, _ in self.memory_levels)

    @property
    def resource_names(self) -> tuple[str, ...]:
        """Every rate-limited resource: the compute resource, then the memory levels."""
        return (self.compute_name, *self.level_names)

    @property
    def bandwidths(self) -> tuple[float, ...]:
        return tuple(bandwidth for _, bandwidth in self.memory_levels)

    def bandwidth(self, level: str) -> float:
        """The bandwidth of memory level ``level`` (bytes/s)."""
        for name, value in self.memory_levels:
            if name == level:
                return value
        raise WorkloadError(
            f"machine {short_repr(self.name)} has no memory level {short_repr(level)}; its levels are "
            f"{', '.join(self.level_names)}"
        )

    def with_level(self, level: str, bandwidth: float) -> Machine:
        """This machine with memory level ``level`` at another bandwidth."""
        self.bandwidth(level)
        if not self.levels:
            return replace(self, peak_bandwidth=bandwidth)
        levels = tuple((name, bandwidth if name == level else value) for name, value in self.levels)
        return replace(self, levels=levels, peak_bandwidth=None)

    def capacity_of(self, level: str | None = None) -> float | None:
        """The bytes memory level ``level`` holds (default: the farthest), None when not given."""
        level = self.level_names[-1] if level is None else level
        self.bandwidth(level)
        return dict(self.capacity).get(level)

    def peak_for(self, dtype: str | None) -> float:
        """The compute peak of a phase whose operands are of type ``dtype``: its typed peak on a
        machine with ``peaks``; ``peak_compute`` for an untyped phase or a machine of one peak."""
        if dtype is None or not self.peaks:
            return self.peak_compute
        key = canonical("dtype", dtype)
        for name, value in self.peaks:
            if name == key:
                return value
        who = f"machine {short_repr(self.name)}" if self.name else "the machine"
        raise WorkloadError(
            f"{who} has no compute peak for {key}; its types are {', '.join(name for name, _ in self.peaks)}"
        )

    @property
    def latencies(self) -> np.ndarray:
        """Each memory level's latency in seconds, nearest first; NaN where a level has none."""
        return latency_seconds(self.latency, self.latency_unit, self.clock, self.level_names)

    @property
    def ridge_point(self) -> float:
        return self.peak_compute / self.peak_bandwidth

    @property
    def compute_unit(self) -> str:
        return "× peak" if self.normalized else f"{self.ops_unit}/{self.time_unit}"

    @property
    def bandwidth_unit(self) -> str:
        return "× peak" if self.normalized else f"{self.bytes_unit}/{self.time_unit}"

    def with_peaks(self, peak_compute: float | None = None, peak_bandwidth: float | None = None) -> Machine:
        """This machine at other peaks; on a machine with typed ``peaks``, every one is scaled as
        ``peak_compute`` is (the compute resource runs faster or slower as a whole)."""
        if peak_compute is None:
            machine = self
        elif self.peaks:
            scale = _check_peak(f"machine {short_repr(self.name)}: peak_compute", peak_compute) / self.peak_compute
            peaks = tuple((name, value * scale) for name, value in self.peaks)
            machine = replace(self, peak_compute=peaks[0][1], peaks=peaks)
        else:
            machine = replace(self, peak_compute=peak_compute)
        return machine if peak_bandwidth is None else machine.with_level(self.memory_name, peak_bandwidth)

    @classmethod
    def measure(cls, **options) -> Machine:
        """This host's empirical peaks from short microbenchmarks (seed 002, stage 1): a STREAM-like
        kernel for bandwidth, a large matrix product for compute. ``levels=True`` also measures
        bandwidth at working sets that fit each cache level and gives the machine one memory level
        per plateau (L1, L2, …, DRAM; ``campaign_widget.model.host.bandwidth_sweep`` has the sweep and its
        plot). ``latency=True`` also measures each level's latency by a pointer chase
        (``campaign_widget.model.host.latency_sweep``). See ``campaign_widget.model.host``."""
        name = options.pop("name", "this host")
        levels = check_flag(options.pop("levels", False), "levels")
        latency = check_flag(options.pop("latency", False), "latency")
        compute, bandwidth = measure_peaks(**options)
        measured = f"{name} (measured)"
        if not levels:
            if not latency:
                return cls(peak_compute=compute, peak_bandwidth=bandwidth, name=measured)
            # one level: the chase at one working set past every cache, not the whole sweep
            far = latency_sweep(sizes=[memory_working_set()], progress=options.get("progress")).levels[-1][1]
            return cls(peak_compute=compute, peak_bandwidth=bandwidth, name=measured, latency=far)
        sweep = _in_order(bandwidth_sweep(progress=options.get("progress")))
        latencies = dict(_in_order(latency_sweep(progress=options.get("progress")))) if latency else ()
        return cls(peak_compute=compute, levels=dict(sweep), name=measured, latency=latencies)

    @classmethod
    def unit(cls, time_unit: str = "s") -> Machine:
        """Peaks of 1: volumes are then in "peak·time" units (utilization × duration)."""
        return cls(
            1.0,
            1.0,
            name="unit peaks",
            ops_unit=f"peak·{time_unit}",
            bytes_unit=f"peak·{time_unit}",
            time_unit=time_unit,
            normalized=True,
        )


def _in_order(sweep) -> tuple[tuple[str, float], ...]:
    """A sweep's levels, refused when a nearer level measured slower than a farther one even after
    it was measured again (docs/memory-hierarchy.md#measuring-the-levels-on-this-host): such a
    hierarchy is not this host's, and a ``Machine`` built on it would say false things."""
    if not sweep.monotone:
        raise MeasurementError(
            f"the measured memory levels are out of order ({'; '.join(sweep.problems[:3])}); measure on a "
            "quieter host, or give Machine(levels=...) the values you trust"
        )
    return sweep.levels


def _checked_typed_peaks(who: str, peak_compute, peaks) -> tuple[tuple[str, float], ...]:
    """``peak_compute={type: peak, ...}`` (or the stored ``peaks``) as ((canonical type, peak), ...);
    () for a machine of one peak."""
    if isinstance(peak_compute, Mapping):
        pairs = list(peak_compute.items())
        if not pairs:
            raise WorkloadError(f"{who}: peak_compute={{}} is empty; give at least one data type's peak")
    elif peaks:
        pairs = list(peaks.items() if isinstance(peaks, Mapping) else peaks)
    else:
        return ()
    checked: dict[str, float] = {}
    for dtype, value in pairs:
        key = canonical(f"{who}: peak_compute type", dtype)
        if key in checked:
            raise WorkloadError(f"{who}: peak_compute gives {key} twice")
        checked[key] = _check_peak(f"{who}: peak_compute[{key!r}]", value)
    first = next(iter(checked.values()))
    if not isinstance(peak_compute, Mapping) and _check_peak(f"{who}: peak_compute", peak_compute) != first:
        raise WorkloadError(
            f"{who}: peak_compute={short_repr(peak_compute)} differs from the first typed peak ({first:g}); "
            "give one or the other"
        )
    return tuple(checked.items())


def _checked_capacity(who: str, capacity, level_names: list[str]) -> tuple[tuple[str, float], ...]:
    """``capacity`` (bytes of the farthest level, or {level: bytes}) as ((level, bytes), ...)."""
    if capacity is None or (isinstance(capacity, (tuple, list)) and not capacity):
        return ()
    if isinstance(capacity, Mapping):
        pairs = list(capacity.items())
    elif isinstance(capacity, (tuple, list)):
        pairs = [tuple(pair) for pair in capacity]
    else:
        pairs = [(level_names[-1], capacity)]
    checked = []
    for level, value in pairs:
        if level not in level_names:
            raise WorkloadError(
                f"{who}: capacity for {short_repr(level)}, which is no memory level; its levels are "
                f"{', '.join(level_names)}"
            )
        checked.append((level, _check_peak(f"{who}: capacity of {level!r}", value)))
    return tuple(checked)


def _checked_levels(who: str, levels, peak_bandwidth, memory_name: str, compute_name: str):
    """``levels`` as a tuple of (name, bandwidth), nearest first; one level from ``peak_bandwidth``
    when no levels are given. ``peak_bandwidth`` beside ``levels`` must be the farthest level's."""
    if levels is None or (not isinstance(levels, Mapping) and len(levels) == 0):
        if peak_bandwidth is None:
            raise WorkloadError(f"{who}: give peak_bandwidth= or levels={{name: bandwidth, ...}}")
        return ((memory_name, _check_peak(f"{who}: peak_bandwidth", peak_bandwidth)),)
    if isinstance(levels, Mapping):
        pairs = list(levels.items())
    elif isinstance(levels, (str, bytes)):
        raise WrongTypeError(f"{who}: levels={short_repr(levels)} must map level names to bandwidths")
    else:
        try:
            pairs = [tuple(pair) for pair in levels]
        except TypeError:
            raise WrongTypeError(f"{who}: levels={short_repr(levels)} must map level names to bandwidths") from None
        if any(len(pair) != 2 for pair in pairs):
            raise WrongTypeError(f"{who}: levels={short_repr(levels)} must map level names to bandwidths")
    if not pairs:
        raise WorkloadError(f"{who}: levels is empty; give at least one memory level")
    seen: set[str] = set()
    checked = []
    for name, bandwidth in pairs:
        check_name(f"{who}: memory level name", name)
        if name in seen:
            raise WorkloadError(f"{who}: memory level {short_repr(name)} is named twice")
        if name == compute_name:
            raise WorkloadError(f"{who}: memory level {short_repr(name)} has the compute resource's name")
        seen.add(name)
        checked.append((name, _check_peak(f"{who}: level {short_repr(name)} bandwidth", bandwidth)))
    if peak_bandwidth is not None and _check_peak(f"{who}: peak_bandwidth", peak_bandwidth) != checked[-1][1]:
        raise WorkloadError(
            f"{who}: peak_bandwidth={short_repr(peak_bandwidth)} differs from the farthest level "
            f"{checked[-1][0]!r} ({checked[-1][1]:g}); give one or the other"
        )
    return tuple(checked)
