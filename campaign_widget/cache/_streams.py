"""Misses of one stream of accesses in one cache: the trace's own (the first level) or a level's feed."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import CacheModelError, short_repr
from ._driver import ProgressArg, dense, dense_low, kernel_input, run
from ._kernel import DIRECT_WAYS
from .distances import StackDistances
from .geometry import Cache
from .result import CacheResult

if TYPE_CHECKING:
    from .tracing import Trace


def first_level(
    trace: Trace,
    cache: Cache,
    *,
    distances: StackDistances | None = None,
    progress: ProgressArg = None,
    align: int | None = None,
    level: str | None = None,
    sets_first: bool = False,
) -> CacheResult:
    """Misses of every access of ``trace`` in ``cache``, with the tensors' bases rounded up to ``align``
    bytes (None: the cache's line). ``distances``: the trace's fully associative distances at this line,
    reused when given. ``sets_first``: a set-associative cache's misses from its sets alone, the fully
    associative distances (for the classes) on first use."""
    line = cache.line
    align = line if align is None else align
    if distances is not None:
        if not isinstance(distances, StackDistances):
            raise CacheModelError(f"distances={short_repr(distances)} must be the StackDistances of this trace")
        if distances.distance.size != len(trace):
            raise CacheModelError(
                f"distances has {distances.distance.size:,} accesses but the trace has {len(trace):,}: "
                "pass the stack distances of this trace"
            )
        if distances.line != line:  # distances at another line size count other lines' reuse: never reused
            raise CacheModelError(
                f"distances were computed at line={distances.line} bytes but the cache's line is {line}: pass "
                f"stack_distances(trace, line={line}), or no distances"
            )
    fully = cache.sets == 1
    direct = not fully and cache.ways <= DIRECT_WAYS
    in_set = None
    if distances is None or distances.line != line or direct or align != line:
        source = kernel_input(trace, line, align)
        common = dict(ref_base=source.get("ref_base"), shift=source.get("shift", 0), jump=source.get("jump"))
        per_set = dict(set_low=source["set_low"], sets=cache.sets, ways=cache.ways)
        if sets_first and distances is None and direct and source["set_low"] is not None:
            d, in_set, _, set_misses = run(source["rel"], source["universe"], progress, fa=False, **per_set, **common)

            def fully_associative() -> StackDistances:
                d, _, hist, _ = run(source["rel"], source["universe"], progress, **common)
                return StackDistances(d, hist, int(d.size - hist.sum()), line)

            misses = int(np.count_nonzero(d < 0)) + set_misses
            return CacheResult(trace, cache, fully_associative, in_set, misses, level)
        if direct and source["set_low"] is not None:  # one pass: FA distances and the W-way sets
            d, in_set, hist, set_misses = run(source["rel"], source["universe"], progress, **per_set, **common)
        else:
            d, _, hist, _ = run(source["rel"], source["universe"], progress, **common)
        if distances is None or distances.line != line or align != line:
            distances = StackDistances(d, hist, int(d.size - hist.sum()), line)
    if fully:
        return CacheResult(trace, cache, distances, None, distances.misses(cache.lines), level)
    if in_set is None:  # many ways (or sparse lines): exact distances within each set, set by set
        in_set, set_misses = set_by_set(trace.addresses(align) >> (line.bit_length() - 1), cache, progress)
    return CacheResult(trace, cache, distances, in_set, distances.cold + set_misses, level)


def fed_level(
    trace: Trace, cache: Cache, lines: np.ndarray, feed: np.ndarray, *, level: str, progress: ProgressArg = None
) -> CacheResult:
    """Misses in ``cache`` of the accesses to line numbers ``lines`` (this cache's lines, in order), each
    caused by the trace access ``feed[a]``."""
    ids, universe, low = dense_low(lines)

    def fully_associative() -> StackDistances:
        d, _, hist, _ = run(ids, universe, progress)
        return StackDistances(d, hist, int(d.size - hist.sum()), cache.line)

    if cache.sets == 1:
        distances = fully_associative()
        return CacheResult(trace, cache, distances, None, distances.misses(cache.lines), level, feed)
    if cache.ways <= DIRECT_WAYS and low is not None:  # the sets alone; distances on first use
        d, in_set, _, set_misses = run(ids, universe, progress, set_low=low, sets=cache.sets, ways=cache.ways, fa=False)
        cold = int(np.count_nonzero(d < 0))
        return CacheResult(trace, cache, fully_associative, in_set, cold + set_misses, level, feed)
    distances = fully_associative()
    in_set, set_misses = set_by_set(lines, cache, progress)
    return CacheResult(trace, cache, distances, in_set, distances.cold + set_misses, level, feed)


def set_by_set(lines: np.ndarray, cache: Cache, progress: ProgressArg) -> tuple[np.ndarray, int]:
    """Each access's distance within its set (capped at the ways; -1 cold), counted set by set, and the
    misses that are not cold."""
    sets = cache.sets
    key = (lines % sets).astype(np.uint16) if sets <= 1 << 16 else lines % sets
    order = np.argsort(key, kind="stable")
    ids, universe = dense(lines[order])
    in_set = np.empty(lines.size, np.int32)
    in_set[order] = run(ids, universe, progress, what="set distances")[0]
    np.minimum(in_set, cache.ways, out=in_set)
    return in_set, int(np.count_nonzero(in_set >= cache.ways))
