"""What a transformer holds in memory, per device: its weights, its KV cache and its largest live
activations, against the capacity of the machine's memory (docs/llm-inference.md#memory-footprint)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..formatting import format_si

LARGEST_SEARCHED = 1 << 40  # the largest batch or length the capacity search tries


@dataclass(frozen=True)
class Footprint:
    """Bytes per device: ``weights``, ``kv_cache``, ``activations`` and their ``total``; with the
    machine's ``capacity`` (its farthest memory level's bytes, None when the machine gives none):
    ``fits``, ``headroom`` (capacity − total, negative when it does not fit) and ``largest`` (per size
    parameter, the largest value that fits with the others as given; 0 when even 1 does not)."""

    weights: float
    kv_cache: float
    activations: float
    capacity: float | None = None
    largest: Mapping[str, int] = field(default_factory=dict)
    level: str = ""

    @property
    def total(self) -> float:
        return self.weights + self.kv_cache + self.activations

    @property
    def fits(self) -> bool | None:
        return None if self.capacity is None else self.total <= self.capacity

    @property
    def headroom(self) -> float | None:
        return None if self.capacity is None else self.capacity - self.total

    def describe(self) -> str:
        """One line: the parts, the total and, with a capacity, whether it fits."""
        parts = (
            f"weights {format_si(self.weights, 'B')} + KV cache {format_si(self.kv_cache, 'B')} + "
            f"activations {format_si(self.activations, 'B')} = {format_si(self.total, 'B')} per device"
        )
        if self.capacity is None:
            return f"{parts} (the machine gives no memory capacity)"
        headroom = self.capacity - self.total
        where = f"{self.level} " if self.level else ""
        largest = ", ".join(f"{k} {v:,}" for k, v in self.largest.items())
        if self.fits:
            verdict = f"fits in {format_si(self.capacity, 'B')} of {where}memory, {format_si(headroom, 'B')} to spare"
        else:
            verdict = (
                f"does NOT fit in {format_si(self.capacity, 'B')} of {where}memory ({format_si(-headroom, 'B')} over)"
            )
        return f"{parts}: {verdict}; largest that fit: {largest}" if largest else f"{parts}: {verdict}"


def largest_fitting(total_at: Callable[[int], float], capacity: float) -> int:
    """The largest n >= 1 with ``total_at(n) <= capacity`` for a total that does not fall as n grows;
    0 when even n = 1 does not fit."""
    if total_at(1) > capacity:
        return 0
    low, high = 1, 2
    while high <= LARGEST_SEARCHED and total_at(high) <= capacity:
        low, high = high, high * 2
    if high > LARGEST_SEARCHED:
        return low
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if total_at(middle) <= capacity else (low, middle)
    return low
