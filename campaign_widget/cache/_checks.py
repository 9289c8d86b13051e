"""Checks shared by the cache model's modules: whole numbers and line sizes, with the field named."""

from __future__ import annotations

import numpy as np

from ..errors import CacheModelError, WrongTypeError, short_repr

MAX_LINE_BYTES = 2**20  # bytes per cache line


def whole(value: object, what: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < minimum:
        raise CacheModelError(f"{what}={short_repr(value)} must be a whole number >= {minimum}")
    return int(value)


def line_bytes(value: object, what: str) -> int:
    line = whole(value, what, minimum=1)
    if line & (line - 1):
        raise CacheModelError(f"{what}={short_repr(value)} must be a power of two (bytes per cache line)")
    if line > MAX_LINE_BYTES:
        raise CacheModelError(f"{what}={short_repr(value)} is more than MAX_LINE_BYTES = 2**20 bytes per cache line")
    return line


def whole_numbers(value: object, what: str) -> np.ndarray:
    """``value`` (a whole number or an array of them) as int64 in its shape. Floats are refused, integral
    or not (``2.5`` would be read as 2, NaN as a huge negative), and so are bools and text: a TypeError
    naming ``what`` and the value."""
    if isinstance(value, (bool, np.bool_)) or value is None or isinstance(value, (str, bytes)):
        raise WrongTypeError(f"{what}={short_repr(value)} must be a whole number or an array of them")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise WrongTypeError(f"{what}={short_repr(value)} must be a whole number or an array of them") from None
    if raw.dtype.kind == "O":  # Python ints beyond int64, or a mix
        items = raw.reshape(-1).tolist()
        if not all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in items):
            raise WrongTypeError(f"{what}={short_repr(value)} must be a whole number or an array of them")
        big = next((x for x in items if not -(2**63) <= x < 2**63), None)
        if big is not None:
            raise CacheModelError(f"{what}={short_repr(big)} is beyond int64")
        return raw.astype(np.int64)
    if raw.dtype.kind not in "iu":
        raise WrongTypeError(
            f"{what}={short_repr(value)} must be a whole number or an array of them, not of dtype {raw.dtype}"
        )
    if raw.dtype.kind == "u" and raw.size and int(raw.max()) >= 2**63:
        raise CacheModelError(f"{what}={short_repr(value)} is beyond int64")
    return raw.astype(np.int64)


def indices(value: object, what: str, size: int) -> np.ndarray:
    """Whole number(s) in ``0 … size - 1`` (a flat element or iteration index), as int64."""
    arr = whole_numbers(value, what)
    bad = np.flatnonzero((arr < 0) | (arr >= size))
    if bad.size:
        raise CacheModelError(
            f"{what}={short_repr(int(arr.reshape(-1)[bad[0]]))} is out of range: the indices run from 0 to {size - 1}"
        )
    return arr


def capacities(value: object, what: str, ceiling: int) -> np.ndarray:
    """Cache capacities in lines: whole number(s) >= 1, as int64 clipped to ``ceiling`` (any capacity of
    ``ceiling`` lines or more misses exactly the same, so a huge one is no overflow)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and value >= ceiling:
        return np.asarray(ceiling, np.int64)
    if isinstance(value, (list, tuple)) and all(type(x) is int for x in value):
        value = [min(x, ceiling) for x in value]  # Python ints beyond int64 are still capacities
    arr = whole_numbers(value, what)
    bad = np.flatnonzero(arr < 1)
    if bad.size:
        raise CacheModelError(f"{what}={short_repr(int(arr.reshape(-1)[bad[0]]))} must be at least 1 line")
    return np.minimum(arr, ceiling)
