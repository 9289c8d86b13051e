"""Misses of a trace in a cache or a cache hierarchy (docs/data-movement.md#misses and docs/memory-hierarchy.md#a-cache-hierarchy-in-the-local-view): ``simulate``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, overload

from ._driver import ProgressArg
from ._streams import first_level
from .distances import StackDistances
from .geometry import Cache
from .hierarchy import chain, levels_of
from .result import CacheResult
from .tracing import checked_trace

if TYPE_CHECKING:
    from .tracing import Trace


@overload
def simulate(
    trace: Trace,
    cache: Cache,
    *,
    distances: StackDistances | None = ...,
    progress: ProgressArg = ...,
    inclusive: bool = ...,
) -> CacheResult: ...


@overload
def simulate(
    trace: Trace,
    cache: Sequence[Cache] | Mapping[str, Cache],
    *,
    distances: StackDistances | None = ...,
    progress: ProgressArg = ...,
    inclusive: bool = ...,
) -> list[CacheResult]: ...


def simulate(
    trace: Trace,
    cache: Cache | Sequence[Cache] | Mapping[str, Cache],
    *,
    distances: StackDistances | None = None,
    progress: ProgressArg = None,
    inclusive: bool = False,
) -> CacheResult | list[CacheResult]:
    """Misses of ``trace`` in ``cache``, from stack distances (docs/data-movement.md#stack-distances): fully associative misses
    iff cold or distance >= lines; set-associative misses iff cold or the distance within the set >= ways.
    Pass ``distances`` (from ``stack_distances(trace, cache.line)``) to reuse them.

    ``cache`` may be a hierarchy, nearest to compute first: a list of Caches (named L1, L2, …) or a dict
    {name: Cache}. Then the result is a list, one CacheResult per level in order, each level fed the
    misses of the level above as pycachesim's ``load_from`` chain feeds them (docs/memory-hierarchy.md#a-cache-hierarchy-in-the-local-view; see
    ``campaign_widget.cache.hierarchy``); each level's ``misses``, ``cold``, ``capacity`` and ``conflict``
    count its own accesses. ``inclusive=True`` says the sizes are meant as an inclusive hierarchy's: a
    level larger than the one below it is warned about (the simulation is the same chain either way).

    >>> from campaign_widget.cache import Cache, trace
    >>> t = trace("C[i,j] = A[i,k] * B[k,j]", {"i": 16, "j": 16, "k": 16}, elem_bytes=8)
    >>> l1, l2 = simulate(t, [Cache(lines=8, ways=2), Cache(lines=64, ways=4)])
    >>> l1.level, l1.accesses, l1.misses, l2.level, l2.accesses, l2.misses
    ('L1', 12288, 6328, 'L2', 6328, 96)
    """
    checked_trace(trace)
    if isinstance(cache, Cache):
        return first_level(trace, cache, distances=distances, progress=progress)
    return chain(trace, levels_of(cache, inclusive=inclusive), distances=distances, progress=progress)
