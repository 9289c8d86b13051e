"""One cache's geometry: ``Cache`` (line size, lines, ways)."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import CacheModelError
from ._checks import line_bytes, whole

MAX_LINES = 2**32


@dataclass(frozen=True)
class Cache:
    """An LRU, write-allocate cache of ``lines`` lines of ``line`` bytes. ``ways=None``: fully associative;
    otherwise ``lines // ways`` sets, set = line number mod sets (ways=1: direct mapped).

    Bounds, checked before anything is allocated: ``lines`` at most ``MAX_LINES`` = 2**32 (a 256 GiB cache
    of 64-byte lines), ``line`` a power of two of at most ``MAX_LINE_BYTES`` = 2**20 bytes. The simulation
    allocates per distinct line of the trace, never per line of the cache.

    >>> Cache(line=64, lines=512, ways=8).sets
    64
    """

    line: int = 64
    lines: int = 512
    ways: int | None = None

    def __post_init__(self) -> None:
        line_bytes(self.line, "Cache line")
        if whole(self.lines, "Cache lines", minimum=1) > MAX_LINES:
            raise CacheModelError(f"Cache lines={self.lines!r} is more than MAX_LINES = 2**32 lines")
        if self.ways is not None:
            whole(self.ways, "Cache ways", minimum=1)
            if self.lines % self.ways:
                raise CacheModelError(
                    f"Cache lines={self.lines} is not divisible by ways={self.ways} "
                    f"(capacity {self.lines * self.line:,} bytes)"
                )

    @classmethod
    def of_bytes(cls, size: int, *, line: int = 64, ways: int | None = None) -> Cache:
        """A cache of ``size`` bytes (a whole number of lines)."""
        size = whole(size, "Cache size", minimum=1)
        line = line_bytes(line, "Cache line")
        if size % line:
            raise CacheModelError(f"Cache size={size} bytes is not a whole number of {line}-byte lines")
        return cls(line=line, lines=size // line, ways=ways)

    @property
    def sets(self) -> int:
        return 1 if self.ways is None else self.lines // self.ways

    @property
    def bytes(self) -> int:
        return self.lines * self.line

    @property
    def associativity(self) -> int:
        return self.lines if self.ways is None else self.ways

    @property
    def kind(self) -> str:
        """The cache type in words: "fully associative" (one set, however many ways), "direct-mapped"
        (one way, several sets) or "N-way set-associative".

        >>> Cache(lines=8, ways=8).kind, Cache(lines=8, ways=1).kind, Cache(lines=8, ways=2).kind
        ('fully associative', 'direct-mapped', '2-way set-associative')
        """
        if self.sets == 1:
            return "fully associative"
        return "direct-mapped" if self.ways == 1 else f"{self.ways}-way set-associative"

    def describe(self) -> str:
        return f"{self.bytes:,} B {self.kind} cache, {self.lines} lines of {self.line} B"
