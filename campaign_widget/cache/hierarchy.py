"""A cache hierarchy (docs/memory-hierarchy.md#a-cache-hierarchy-in-the-local-view): levels chained as pycachesim chains them, each fed the misses above.

pycachesim's ``Cache(load_from=...)``: a level that misses a line loads it from the level below, which
sees one access to the line of its own holding it, in the order of the misses (line sizes may only grow
towards memory, as pycachesim requires). Only
loads travel down (every access of the trace is a reference that allocates its line, as in the first
level's own model); dirty lines written back are not fed to the level below, and a line evicted from a
level below stays in the levels above (no back-invalidation: pycachesim's chain is neither inclusive nor
exclusive). The tensors' bases are rounded up to the largest line of the hierarchy, so every tensor
starts on a line of every level.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import CacheModelError, check_flag, short_repr
from ._driver import ProgressArg
from ._streams import fed_level, first_level
from .distances import StackDistances
from .geometry import Cache
from .result import CacheResult

if TYPE_CHECKING:
    from .tracing import Trace


def levels_of(levels: Sequence[Cache] | Mapping[str, Cache], *, inclusive: bool = False) -> list[tuple[str, Cache]]:
    """(name, Cache) per level, nearest to compute first: a sequence is named L1, L2, …; a mapping by its
    keys. ``inclusive``: the sizes are meant as an inclusive hierarchy's, so a level larger than the one
    below it is warned about."""
    if isinstance(levels, Mapping):
        named = list(levels.items())
        for name, _ in named:
            if not isinstance(name, str) or not name.strip():
                raise CacheModelError(f"cache level name {short_repr(name)} must be a non-empty string")
    elif isinstance(levels, Sequence) and not isinstance(levels, (str, bytes)):
        named = [(f"L{k + 1}", level) for k, level in enumerate(levels)]
    else:
        raise CacheModelError(
            f"cache={short_repr(levels)} must be a Cache, or the levels of a hierarchy nearest to compute "
            "first: a list of Caches or a dict {name: Cache}"
        )
    if not named:
        raise CacheModelError("a cache hierarchy needs at least one level; got none")
    for k, (name, level) in enumerate(named):
        if not isinstance(level, Cache):
            raise CacheModelError(f"cache level {k + 1} ({name}) = {short_repr(level)} must be a Cache")
    for (name, level), (below, lower) in zip(named, named[1:]):
        if lower.line < level.line:
            raise CacheModelError(
                f"cache level {below} has {lower.line}-byte lines, shorter than the {level.line}-byte lines of "
                f"{name} above it: line sizes may only grow towards memory"
            )
    inclusive = check_flag(inclusive, "inclusive", CacheModelError)
    if inclusive:
        for (name, level), (below, lower) in zip(named, named[1:]):
            if level.bytes > lower.bytes:
                warnings.warn(
                    f"cache level {name} ({level.bytes:,} B) is larger than the level below it, {below} "
                    f"({lower.bytes:,} B), but inclusive sizes were asked for: an inclusive {below} holds every "
                    f"line of {name}, so it must be at least as large",
                    stacklevel=3,
                )
    return named


def chain(
    trace: Trace,
    levels: list[tuple[str, Cache]],
    *,
    distances: StackDistances | None = None,
    progress: ProgressArg = None,
) -> list[CacheResult]:
    """One result per level, in order: the first level sees every access of ``trace``, each level below
    it one access per miss of the level above."""
    align = max(cache.line for _, cache in levels)
    name, cache = levels[0]
    results = [
        first_level(trace, cache, distances=distances, progress=progress, align=align, level=name, sets_first=True)
    ]
    for name, cache in levels[1:]:
        above = results[-1]
        missed = np.flatnonzero(above.miss)
        feed = missed if above.feed is None else above.feed[missed]
        lines = trace.addresses_of(feed, align) >> (cache.line.bit_length() - 1)
        results.append(fed_level(trace, cache, lines, feed, level=name, progress=progress))
    return results
