"""Checks shared by the cache model's modules: whole numbers and line sizes, with the field named."""

from __future__ import annotations

import numpy as np

from ..errors import CacheModelError

MAX_LINE_BYTES = 2**20  # bytes per cache line


def whole(value: object, what: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < minimum:
        raise CacheModelError(f"{what}={value!r} must be a whole number >= {minimum}")
    return int(value)


def line_bytes(value: object, what: str) -> int:
    line = whole(value, what, minimum=1)
    if line & (line - 1):
        raise CacheModelError(f"{what}={value!r} must be a power of two (bytes per cache line)")
    if line > MAX_LINE_BYTES:
        raise CacheModelError(f"{what}={value!r} is more than MAX_LINE_BYTES = 2**20 bytes per cache line")
    return line
