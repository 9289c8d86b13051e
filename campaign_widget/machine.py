"""The machine: two rate-limited resources with peaks (design.md §1)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from .errors import WorkloadError, short_repr
from .host import measure_peaks
from .phase import LARGEST, SMALLEST, check_name

PEAK_RANGE = (SMALLEST, LARGEST)  # a peak (or ceiling) outside this range is refused where it is made


def _check_peak(what: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what}={short_repr(value)} must be a number")
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
            raise WorkloadError(f"ceiling {self.name!r}: give compute= or bandwidth= (or both)")
        for label in ("compute", "bandwidth"):
            value = getattr(self, label)
            if value is not None:
                _check_peak(f"ceiling {self.name!r}: {label}", value)


@dataclass(frozen=True)
class Machine:
    """Peaks of a compute resource (ops/s) and a memory resource (bytes/s).

    >>> m = Machine(peak_compute=51.2e12, peak_bandwidth=3.35e12, name="H100 FP32")
    >>> m.ridge_point  # ops per byte where the two roofs meet
    15.283582089552239
    """

    peak_compute: float
    peak_bandwidth: float
    name: str = ""
    compute_name: str = "compute"
    memory_name: str = "memory"
    ops_unit: str = "FLOP"
    bytes_unit: str = "B"
    time_unit: str = "s"
    ceilings: tuple[Ceiling, ...] = field(default_factory=tuple)
    normalized: bool = False  # peaks of 1: rates are fractions of peak, volumes are peak·time

    def __post_init__(self):
        if not isinstance(self.name, str):
            raise TypeError(f"machine name={short_repr(self.name)} must be a string")
        if self.name:
            check_name("machine name", self.name)
        who = f"machine {self.name!r}" if self.name else "machine (unnamed)"
        for label in ("compute_name", "memory_name", "ops_unit", "bytes_unit", "time_unit"):
            check_name(f"{who}: {label}", getattr(self, label))
        if self.compute_name == self.memory_name:
            raise WorkloadError(
                f"{who}: compute_name and memory_name are both {self.compute_name!r}; the two "
                "resources need different names"
            )
        for label, value in (("peak_compute", self.peak_compute), ("peak_bandwidth", self.peak_bandwidth)):
            _check_peak(f"{who}: {label}", value)
        if not isinstance(self.normalized, bool):
            raise TypeError(f"{who}: normalized={short_repr(self.normalized)} must be True or False")
        ceilings = self.ceilings
        if isinstance(ceilings, (str, bytes, Ceiling)) or not hasattr(ceilings, "__iter__"):
            raise TypeError(f"{who}: ceilings={short_repr(ceilings)} must be a list of Ceiling")
        ceilings = tuple(ceilings)
        seen = set()
        for c in ceilings:
            if not isinstance(c, Ceiling):
                raise TypeError(f"{who}: ceilings contains {short_repr(c)}, not a Ceiling")
            if c.name in seen:
                raise WorkloadError(f"{who}: two ceilings are named {c.name!r}")
            seen.add(c.name)
        object.__setattr__(self, "ceilings", ceilings)

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
        return replace(
            self,
            peak_compute=self.peak_compute if peak_compute is None else peak_compute,
            peak_bandwidth=self.peak_bandwidth if peak_bandwidth is None else peak_bandwidth,
        )

    @classmethod
    def measure(cls, **options) -> Machine:
        """This host's empirical peaks from short microbenchmarks (seed 002, stage 1): a STREAM-like
        kernel for bandwidth, a large matrix product for compute. See ``campaign_widget.host``."""
        name = options.pop("name", "this host")
        compute, bandwidth = measure_peaks(**options)
        return cls(peak_compute=compute, peak_bandwidth=bandwidth, name=f"{name} (measured)")

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
