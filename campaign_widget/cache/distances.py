"""Stack distances at line granularity (docs/data-movement.md#stack-distances): ``stack_distances`` and ``StackDistances``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ._checks import capacities, line_bytes
from ._driver import ProgressArg, kernel_input, run
from .tracing import checked_trace

if TYPE_CHECKING:
    import numpy.typing as npt

    from .tracing import Trace


@dataclass(frozen=True, eq=False)
class StackDistances:
    """Per-access stack distances at line granularity (-1: cold) and their histogram.

    ``histogram[d]`` counts the accesses at distance d (d = 0 … max); ``cold`` counts first references.
    ``misses(C)``: a fully associative LRU cache of C lines misses cold + #{d >= C} times (C may be an
    array: every capacity at once). Unpacks as ``distance, histogram = stack_distances(trace)``.
    """

    distance: np.ndarray = field(repr=False)
    histogram: np.ndarray = field(repr=False)
    cold: int
    line: int

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.distance, self.histogram))

    @property
    def max(self) -> int:
        return self.histogram.size - 1

    def misses(self, capacity: npt.ArrayLike) -> int | np.ndarray:
        """Misses of a fully associative LRU cache of ``capacity`` lines (a number or an array)."""
        c = capacities(capacity, "capacity", self.histogram.size)
        # #{d >= C} = total non-cold - #{d < C}
        below = np.concatenate([[0], np.cumsum(self.histogram)])
        counted = below[c]
        result = self.cold + (below[-1] - counted)
        return int(result) if np.ndim(result) == 0 else result.astype(np.int64)


def stack_distances(trace: Trace, line: int = 64, *, progress: ProgressArg = None) -> StackDistances:
    """Stack distances of every access of ``trace`` at the granularity of ``line``-byte lines.

    ``progress``: None (a bar on stderr for traces of 2·10^6 accesses or more), False, True, or a
    callable ``(done, total)``.
    """
    checked_trace(trace)
    line = line_bytes(line, "line")
    source = kernel_input(trace, line)
    d, _, hist, _ = run(
        source["rel"],
        source["universe"],
        progress,
        ref_base=source.get("ref_base"),
        shift=source.get("shift", 0),
        jump=source.get("jump"),
    )
    return StackDistances(d, hist, int(d.size - hist.sum()), line)
