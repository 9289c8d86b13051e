"""Operation counts: a tasklet's Python code parsed (never run), and the formulas of known library nodes."""

from __future__ import annotations

import ast
import functools

from ._expressions import product
from ._model import ELEMENT_BYTES

# calls that count one operation each (with or without a module prefix: math., np., numpy., dace.)
MATH_FUNCTIONS = frozenset(
    {
        "max",
        "min",
        "abs",
        "fabs",
        "exp",
        "exp2",
        "expm1",
        "log",
        "log2",
        "log10",
        "log1p",
        "sqrt",
        "cbrt",
        "rsqrt",
        "pow",
        "power",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "atan2",
        "arcsin",
        "arccos",
        "arctan",
        "arctan2",
        "sinh",
        "cosh",
        "tanh",
        "asinh",
        "acosh",
        "atanh",
        "floor",
        "ceil",
        "trunc",
        "round",
        "fmod",
        "hypot",
        "erf",
        "erfc",
        "maximum",
        "minimum",
        "fmax",
        "fmin",
        "sign",
        "copysign",
        "reciprocal",
        "square",
        "heaviside",
        "isnan",
        "isinf",
        "isfinite",
    }
)
# calls that convert or select a value and count nothing
CASTS = frozenset(ELEMENT_BYTES) | {"float", "int", "bool", "complex", "float_", "int_", "cast", "typeclass", "where"}

LIBRARY_OPS = ("MatMul", "BatchedMatMul", "Gemm", "Gemv", "Dot", "Reduce", "Transpose")


@functools.lru_cache(maxsize=4096)
def _count_cached(code: str) -> tuple[int, tuple[str, ...]]:
    count, unknown = _count(code)
    return count, tuple(unknown)


def count_tasklet_ops(code: str) -> tuple[int, list[str]]:
    """Arithmetic operations in a tasklet's Python code, and the names of calls not understood.

    Parsed with ``ast``, never executed: each arithmetic operator, augmented assignment, unary minus,
    comparison operator and known math function counts 1; casts and assignments 0.

    >>> count_tasklet_ops("__out = (__in1 * __in2)")
    (1, [])
    >>> count_tasklet_ops("__out = max(__in1, dace.float32(0))")
    (1, [])
    >>> count_tasklet_ops("b = 0.2 * (a + c + d)")
    (3, [])
    """
    count, unknown = _count_cached(code)
    return count, list(unknown)


def _count(code: str) -> tuple[int, list[str]]:
    tree = ast.parse(code, mode="exec")
    count = 0
    unknown: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.AugAssign)):
            count += 1
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            count += 1
        elif isinstance(node, ast.Compare):
            count += len(node.ops)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name in MATH_FUNCTIONS:
                count += 1
            elif name not in CASTS:
                unknown.append(name or ast.unparse(func)[:40])
    return count, unknown


def library_formula(kind: str, attrs: dict, dims) -> str | None:
    """The ops of a library node of class ``kind`` as an expression, from ``dims(side, connector)``: the
    sizes of the memlet on that connector (None when it has none). None when there is no formula."""
    if kind in ("MatMul", "BatchedMatMul", "Gemm"):
        a, c = dims("in", "_a"), dims("out", "_c")
        if a and c:
            k = a[0] if kind == "Gemm" and attrs.get("transA") is True and len(a) >= 2 else a[-1]
            return product("2", *c, k)
    elif kind == "Gemv":
        x, y = dims("in", "_x"), dims("out", "_y")
        if x and y:
            return product("2", *y, *x)
    elif kind == "Dot":
        x = dims("in", "_x")
        if x:
            return product("2", *x)
    elif kind == "Reduce":
        sizes = dims("in", None)
        if sizes:
            return product(*sizes)
    elif kind == "Transpose":
        return "0"
    return None
