"""The machine: two rate-limited resources with peaks (design.md §1)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from .host import measure_peaks


@dataclass(frozen=True)
class Ceiling:
    """A named lower roof for rooflines, e.g. ``Ceiling("no FMA", compute=25.6e12)``."""

    name: str
    compute: float | None = None
    bandwidth: float | None = None


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
        for label, value in (("peak_compute", self.peak_compute), ("peak_bandwidth", self.peak_bandwidth)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"machine {self.name or '(unnamed)'}: {label}={value!r} must be a number")
            if not math.isfinite(value) or value <= 0:
                raise ValueError(
                    f"machine {self.name or '(unnamed)'}: {label}={value!r} must be a finite number > 0"
                )
        object.__setattr__(self, "ceilings", tuple(self.ceilings))

    @property
    def ridge_point(self) -> float:
        return self.peak_compute / self.peak_bandwidth

    @property
    def compute_unit(self) -> str:
        return "× peak" if self.normalized else f"{self.ops_unit}/{self.time_unit}"

    @property
    def bandwidth_unit(self) -> str:
        return "× peak" if self.normalized else f"{self.bytes_unit}/{self.time_unit}"

    def with_peaks(self, peak_compute: float | None = None, peak_bandwidth: float | None = None) -> "Machine":
        return replace(
            self,
            peak_compute=self.peak_compute if peak_compute is None else peak_compute,
            peak_bandwidth=self.peak_bandwidth if peak_bandwidth is None else peak_bandwidth,
        )

    @classmethod
    def measure(cls, **options) -> "Machine":
        """This host's empirical peaks from short microbenchmarks (seed 002, stage 1): a STREAM-like
        kernel for bandwidth, a large matrix product for compute. See ``campaign_widget.host``."""
        name = options.pop("name", "this host")
        compute, bandwidth = measure_peaks(**options)
        return cls(peak_compute=compute, peak_bandwidth=bandwidth, name=f"{name} (measured)")

    @classmethod
    def unit(cls, time_unit: str = "s") -> "Machine":
        """Peaks of 1: volumes are then in "peak·time" units (utilization × duration)."""
        return cls(1.0, 1.0, name="unit peaks", ops_unit=f"peak·{time_unit}", bytes_unit=f"peak·{time_unit}",
                   time_unit=time_unit, normalized=True)
