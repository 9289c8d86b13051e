"""Bounds of an index expression over a loop nest, by interval arithmetic on exact integers.

A trace evaluates its index expressions over int64 arrays, where numpy wraps around without a
word. Before any array is made, ``index_range`` bounds every intermediate value of the expression
for loop indices in [0, size); a bound beyond int64 refuses the trace, naming the expression.
The bounds may be wider than the values reached (``i - i`` is bounded by ±(size-1)), never narrower.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from ..errors import CacheModelError, short_repr
from ..model.expr import python_source

INT64_MAX = 2**63 - 1

_MIN = {"min", "Min"}
_MAX = {"max", "Max"}
_ABS = {"abs", "Abs"}
_SAME = {"floor", "ceil", "ceiling"}  # of an integer: itself
_DIVIDING = {"int_floor", "int_ceil"}  # int_floor(a, b) = floor(a / b)


def index_range(text: str, sizes: Mapping[str, int], *, what: str) -> tuple[int, int]:
    """(lowest, highest) bound of ``text`` (already validated by ``expr.parse``) when each name n runs
    over 0 … sizes[n] - 1; raises CacheModelError naming ``what`` when a value may leave int64."""
    tree = ast.parse(python_source(text).strip(), mode="eval").body
    return _Bounds(text, sizes, what).visit(tree)


class _Bounds:
    def __init__(self, text: str, sizes: Mapping[str, int], what: str) -> None:
        self.text = text
        self.sizes = sizes
        self.what = what

    def checked(self, lo: int, hi: int) -> tuple[int, int]:
        if max(abs(lo), abs(hi)) > INT64_MAX:
            reach = hi if abs(hi) >= abs(lo) else lo
            raise CacheModelError(
                f"{self.what}: index expression {short_repr(self.text)} reaches up to {short_repr(reach)} over the "
                f"loop sizes {dict(self.sizes)}, beyond the 64-bit integers addresses are computed in"
            )
        return lo, hi

    def visit(self, node: ast.AST) -> tuple[int, int]:
        if isinstance(node, ast.Constant):
            value = int(node.value)
            return self.checked(value, value)
        if isinstance(node, ast.Name):
            return 0, max(0, int(self.sizes[node.id]) - 1)
        if isinstance(node, ast.UnaryOp):
            lo, hi = self.visit(node.operand)
            return (-hi, -lo) if isinstance(node.op, ast.USub) else (lo, hi)
        if isinstance(node, ast.BinOp):
            return self.checked(*self.binary(node.op, self.visit(node.left), self.visit(node.right)))
        if isinstance(node, ast.Call):
            args = [self.visit(a) for a in node.args]
            name = node.func.id
            if name in _MIN:
                return min(a[0] for a in args), min(a[1] for a in args)
            if name in _MAX:
                return max(a[0] for a in args), max(a[1] for a in args)
            if name in _ABS:
                (lo, hi) = args[0]
                return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
            if name in _DIVIDING:
                return self.checked(*_quotient(args[0], args[1], ceil=name == "int_ceil"))
            if name in _SAME:
                return args[0]
        raise CacheModelError(f"{self.what}: index expression {short_repr(self.text)} cannot be bounded")

    def binary(self, op: ast.operator, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
        if isinstance(op, ast.Add):
            return a[0] + b[0], a[1] + b[1]
        if isinstance(op, ast.Sub):
            return a[0] - b[1], a[1] - b[0]
        if isinstance(op, ast.Mult):
            corners = [x * y for x in a for y in b]
            return min(corners), max(corners)
        if isinstance(op, ast.Pow):
            e = b[1]  # a constant exponent (0 … 64), checked by expr
            if b[0] != e or e < 0:
                return _unbounded(a)
            corners = [a[0] ** e, a[1] ** e]
            if e % 2 == 0 and a[0] <= 0 <= a[1]:
                return 0, max(corners)
            return min(corners), max(corners)
        if isinstance(op, (ast.Div, ast.FloorDiv)):
            return _quotient(a, b, ceil=False)
        if isinstance(op, ast.Mod):  # |a % b| < |b|
            m = max(abs(b[0]), abs(b[1]))
            return -m, m
        return _unbounded(a)


def _quotient(a: tuple[int, int], b: tuple[int, int], *, ceil: bool) -> tuple[int, int]:
    """|a // b| <= |a| for a whole divisor (a zero divisor is refused when evaluated); +1 for a ceiling."""
    m = max(abs(a[0]), abs(a[1])) + (1 if ceil else 0)
    return -m, m


def _unbounded(a: tuple[int, int]) -> tuple[int, int]:
    return -(INT64_MAX + 1) * 2, (INT64_MAX + 1) * 2
