"""The misses of one trace in one cache, or one level of a hierarchy: ``CacheResult``."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..errors import CacheModelError
from .distances import StackDistances
from .geometry import Cache

if TYPE_CHECKING:
    import numpy.typing as npt

    from .tracing import Trace


@dataclass(frozen=True, eq=False)
class CacheResult:
    """The misses of one trace in one cache (docs/data-movement.md#misses's classes), per access, tensor and element.

    The totals come from the simulation's counts; the per-access arrays ``miss`` and ``fa_miss`` (and the
    per-tensor and per-element counts built from them) are made on first use.

    In a hierarchy (``simulate(trace, [l1, l2, ...])``), ``level`` names the level and a level below the
    first sees the misses of the level above: its accesses are those misses, ``feed[a]`` the trace access
    that missed above (None: the first level, every access of the trace). Per-tensor and per-element counts follow ``feed``."""

    trace: Trace = field(repr=False)
    cache: Cache
    stack: StackDistances | Callable[[], StackDistances] = field(repr=False)  # ``distances``, or how to make them
    set_distances: np.ndarray | None = field(repr=False)  # distance within the set, capped at ways (None: FA)
    misses: int  # of this cache
    level: str | None = None  # the level's name, in a hierarchy
    feed: np.ndarray | None = field(default=None, repr=False)  # per access: the trace access behind it

    @functools.cached_property
    def distances(self) -> StackDistances:
        """Fully associative stack distances of this level's accesses, at ``cache.line`` (below the first
        level of a hierarchy, computed on first use: its misses come from the sets alone)."""
        return self.stack if isinstance(self.stack, StackDistances) else self.stack()

    @functools.cached_property
    def _tensor(self) -> np.ndarray:
        return self.trace.tensor if self.feed is None else self.trace.tensor[self.feed]

    @property
    def _cold(self) -> np.ndarray:
        if isinstance(self.stack, StackDistances) or self.set_distances is None:
            return self.distances.distance < 0
        return self.set_distances < 0

    @functools.cached_property
    def fa_miss(self) -> np.ndarray:
        """Per access: a fully associative cache of the same capacity misses it."""
        d = self.distances.distance
        return (d < 0) | (d >= self.cache.lines)

    @functools.cached_property
    def miss(self) -> np.ndarray:
        """Per access: this cache misses it."""
        if self.set_distances is None:
            return self.fa_miss
        return (self.set_distances < 0) | (self.set_distances >= self.cache.ways)

    @property
    def accesses(self) -> int:
        return len(self.trace) if self.feed is None else int(self.feed.size)

    @functools.cached_property
    def cold(self) -> int:
        if isinstance(self.stack, StackDistances) or self.set_distances is None:
            return self.distances.cold
        return int(np.count_nonzero(self.set_distances < 0))

    @property
    def capacity(self) -> int:
        return self.fa_misses(self.cache.lines) - self.cold

    @property
    def conflict(self) -> int:
        return self.misses - self.fa_misses(self.cache.lines)

    @property
    def hits(self) -> int:
        return self.accesses - self.misses

    def fa_misses(self, capacity: npt.ArrayLike) -> int | np.ndarray:
        """Fully associative misses for any capacity in lines (an array: every capacity at once)."""
        return self.distances.misses(capacity)

    def _per_tensor(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self._tensor, weights=values, minlength=len(self.trace.tensors)).astype(np.int64)

    @property
    def per_tensor(self) -> dict[str, dict[str, int]]:
        """{tensor: {accesses, misses, cold, capacity, conflict}}."""
        n = len(self.trace.tensors)
        accesses = np.bincount(self._tensor, minlength=n)
        misses = self._per_tensor(self.miss)
        cold = self._per_tensor(self._cold)
        fa = self._per_tensor(self.fa_miss)
        return {
            name: {
                "accesses": int(accesses[k]),
                "misses": int(misses[k]),
                "cold": int(cold[k]),
                "capacity": int(fa[k] - cold[k]),
                "conflict": int(misses[k] - fa[k]),
            }
            for k, name in enumerate(self.trace.tensors)
        }

    def per_element(self, tensor: str) -> dict[str, np.ndarray]:
        """{accesses, misses, cold, capacity, conflict} per element of ``tensor`` (arrays in its shape)."""
        t = self.trace.tensor_index(tensor)
        mine = self._tensor == t
        shape = self.trace.shapes[t]
        el = (self.trace.element if self.feed is None else self.trace.element[self.feed])[mine]

        def count(weights: np.ndarray | None = None) -> np.ndarray:
            return np.bincount(el, weights=weights, minlength=math.prod(shape)).astype(np.int64).reshape(shape)

        cold, fa, miss = count(self._cold[mine]), count(self.fa_miss[mine]), count(self.miss[mine])
        return {"accesses": count(), "misses": miss, "cold": cold, "capacity": fa - cold, "conflict": miss - fa}

    def write_backs(self) -> dict[str, int]:
        """Dirty lines written back per tensor: a line's stay in the cache (from a miss to the next miss of
        the same line, or the end of the trace) with at least one write costs one write-back (at its
        eviction, or at the final flush). The first level of a hierarchy only: the levels below it are fed
        its misses, not its write-backs."""
        if self.feed is not None:
            raise CacheModelError(
                f"write_backs: level {self.level!r} is fed by the misses of the level above it; write-backs "
                "are modelled for the first level only"
            )
        lines = self.trace.addresses(self.cache.line) >> (self.cache.line.bit_length() - 1)
        order = np.argsort(lines, kind="stable")  # by line, then time
        miss, write = self.miss[order], self.trace.is_write[order]
        stay = np.cumsum(miss) - 1  # stays numbered in (line, time) order; each line starts with a miss
        dirty = np.zeros(int(stay[-1]) + 1 if stay.size else 0, bool)
        np.logical_or.at(dirty, stay[write], True)
        first = np.flatnonzero(miss)
        owner = self.trace.tensor[order][first]
        counts = np.bincount(owner[dirty], minlength=len(self.trace.tensors))
        return {name: int(counts[k]) for k, name in enumerate(self.trace.tensors)}

    def summary(self) -> str:
        return (
            ("" if self.level is None else f"{self.level}: ")
            + f"{self.cache.describe()}: {self.accesses:,} accesses, {self.misses:,} misses "
            f"({self.cold:,} cold, {self.capacity:,} capacity, {self.conflict:,} conflict)"
        )

    def __repr__(self) -> str:
        return f"CacheResult({self.summary()})"
