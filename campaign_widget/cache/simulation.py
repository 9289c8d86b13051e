"""Misses of a trace in a cache (design.md §7): ``simulate`` and ``CacheResult``."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..errors import CacheModelError
from ._driver import ProgressArg, dense, kernel_input, run
from ._kernel import DIRECT_WAYS
from .distances import StackDistances
from .geometry import Cache

if TYPE_CHECKING:
    import numpy.typing as npt

    from .tracing import Trace


@dataclass(frozen=True, eq=False)
class CacheResult:
    """The misses of one trace in one cache (design.md §7's classes), per access, tensor and element.

    The totals come from the simulation's counts; the per-access arrays ``miss`` and ``fa_miss`` (and the
    per-tensor and per-element counts built from them) are made on first use."""

    trace: Trace = field(repr=False)
    cache: Cache
    distances: StackDistances = field(repr=False)  # fully associative, at cache.line
    set_distances: np.ndarray | None = field(repr=False)  # distance within the set, capped at ways (None: FA)
    misses: int  # of this cache

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
        return int(self.distances.distance.size)

    @property
    def cold(self) -> int:
        return self.distances.cold

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
        return np.bincount(self.trace.tensor, weights=values, minlength=len(self.trace.tensors)).astype(np.int64)

    @property
    def per_tensor(self) -> dict[str, dict[str, int]]:
        """{tensor: {accesses, misses, cold, capacity, conflict}}."""
        n = len(self.trace.tensors)
        accesses = np.bincount(self.trace.tensor, minlength=n)
        misses = self._per_tensor(self.miss)
        cold = self._per_tensor(self.distances.distance < 0)
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
        mine = self.trace.tensor == t
        shape = self.trace.shapes[t]
        el = self.trace.element[mine]

        def count(weights: np.ndarray | None = None) -> np.ndarray:
            return np.bincount(el, weights=weights, minlength=math.prod(shape)).astype(np.int64).reshape(shape)

        cold, fa, miss = count(self.distances.distance[mine] < 0), count(self.fa_miss[mine]), count(self.miss[mine])
        return {"accesses": count(), "misses": miss, "cold": cold, "capacity": fa - cold, "conflict": miss - fa}

    def write_backs(self) -> dict[str, int]:
        """Dirty lines written back per tensor: a line's stay in the cache (from a miss to the next miss of
        the same line, or the end of the trace) with at least one write costs one write-back (at its
        eviction, or at the final flush)."""
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
            f"{self.cache.describe()}: {self.accesses:,} accesses, {self.misses:,} misses "
            f"({self.cold:,} cold, {self.capacity:,} capacity, {self.conflict:,} conflict)"
        )

    def __repr__(self) -> str:
        return f"CacheResult({self.summary()})"


def simulate(
    trace: Trace, cache: Cache, *, distances: StackDistances | None = None, progress: ProgressArg = None
) -> CacheResult:
    """Misses of ``trace`` in ``cache``, from stack distances (design.md §7): fully associative misses
    iff cold or distance >= lines; set-associative misses iff cold or the distance within the set >= ways.
    Pass ``distances`` (from ``stack_distances(trace, cache.line)``) to reuse them."""
    if not isinstance(cache, Cache):
        raise CacheModelError(f"cache={cache!r} must be a Cache")
    line = cache.line
    fully = cache.ways is None or cache.sets == 1
    direct = not fully and cache.ways <= DIRECT_WAYS
    in_set = None
    if distances is None or distances.line != line or direct:
        source = kernel_input(trace, line)
        common = dict(ref_base=source.get("ref_base"), shift=source.get("shift", 0), jump=source.get("jump"))
        if direct and source["set_low"] is not None:  # one pass: FA distances and the W-way sets
            d, in_set, hist, set_misses = run(
                source["rel"],
                source["universe"],
                progress,
                set_low=source["set_low"],
                sets=cache.sets,
                ways=cache.ways,
                **common,
            )
        else:
            d, _, hist, _ = run(source["rel"], source["universe"], progress, **common)
        if distances is None or distances.line != line:
            distances = StackDistances(d, hist, int(d.size - hist.sum()), line)
    if fully:
        return CacheResult(trace, cache, distances, None, distances.misses(cache.lines))
    d = distances.distance
    if in_set is None:  # many ways (or sparse lines): exact distances within each set, set by set
        lines = trace.addresses(line) >> (line.bit_length() - 1)
        sets = cache.sets
        key = (lines % sets).astype(np.uint16) if sets <= 1 << 16 else lines % sets
        order = np.argsort(key, kind="stable")
        ids, universe = dense(lines[order])
        in_set = np.empty_like(d)
        in_set[order] = run(ids, universe, progress, what="set distances")[0]
        np.minimum(in_set, cache.ways, out=in_set)
        set_misses = int(np.count_nonzero(in_set >= cache.ways))
    return CacheResult(trace, cache, distances, in_set, distances.cold + set_misses)
