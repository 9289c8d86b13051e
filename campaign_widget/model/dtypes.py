"""Data types by name: their width in bytes and the one name each goes by on a machine's peaks
(docs/llm-inference.md#a-peak-per-data-type)."""

from __future__ import annotations

from ..errors import WorkloadError, short_repr

#: Every spelling a data type is given in, and its canonical name (the key of ``Machine.peaks``).
ALIASES = {
    "fp64": "fp64",
    "float64": "fp64",
    "fp32": "fp32",
    "float32": "fp32",
    "tf32": "tf32",
    "fp16": "fp16",
    "float16": "fp16",
    "half": "fp16",
    "bf16": "bf16",
    "bfloat16": "bf16",
    "fp8": "fp8",
    "float8": "fp8",
    "e4m3": "fp8",
    "e5m2": "fp8",
    "int8": "int8",
    "int4": "int4",
}

#: Bytes per element of each canonical type (tf32 is stored as fp32).
WIDTH = {"fp64": 8, "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1, "int4": 0.5}


def canonical(what: str, value: object) -> str:
    """The canonical name of data type ``value`` (``"bfloat16"`` → ``"bf16"``), or a ``WorkloadError``
    naming ``what`` and the known types."""
    key = value.strip().lower() if isinstance(value, str) else None
    if key not in ALIASES:
        raise WorkloadError(f"{what}={short_repr(value)} is not a known dtype; known: {', '.join(ALIASES)}")
    return ALIASES[key]


def wider(*dtypes: str) -> str:
    """The widest of canonical ``dtypes`` (a matrix product runs at its widest operand's type); of two
    as wide, the first given."""
    return max(dtypes, key=lambda d: WIDTH[d])
