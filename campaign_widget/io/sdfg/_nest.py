"""Work inside maps whose ranges follow each other, or under branch conditions: kept as the loop nest it
is (``NestedSum``) and summed at the symbols' values by enumerating the nest with numpy.

A tiled kernel's remainder tiles (``i = 0 .. min(8, M - b_i - d_i) - 1`` under ``if b_i + d_i + 8 > M``)
have no closed form here; the sum visits every iteration of the maps around them, clips each range as
DaCe runs it (a range that ends before it starts runs zero times) and counts a branch's work only where
its condition holds.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from ...errors import ExpressionError, WorkloadError
from ...model.expr import parse, python_source
from ._expressions import paren, product, size_of, substitute

MAX_ITERATIONS = 1 << 24  # map iterations one sum may visit
MAX_VISITS = 1 << 26  # map iterations all the sums of one file may visit
CHUNK = 1 << 18  # iterations held as arrays at once


@dataclass(frozen=True)
class NestedSum:
    """``text`` (the work of one iteration) summed over the map dimensions ``dims`` ((param, start, end,
    step), outermost first) where every condition of ``guards`` holds."""

    text: str
    dims: tuple = ()
    guards: tuple = ()

    def times(self, factor: str) -> NestedSum:
        return NestedSum(product(factor, self.text), self.dims, self.guards)

    def within(self, dims: tuple, guards: tuple = ()) -> NestedSum:
        """The same work inside more maps (outer ones first) and conditions."""
        return NestedSum(self.text, tuple(dims) + self.dims, tuple(guards) + self.guards)

    def substituted(self, mapping: dict) -> NestedSum:
        return NestedSum(
            substitute(self.text, mapping),
            tuple((p, *(substitute(x, mapping) for x in rest)) for p, *rest in self.dims),
            tuple(substitute(g, mapping) for g in self.guards),
        )

    @property
    def names(self) -> set:
        """The names it uses other than its own map parameters."""
        out = set()
        for text in (self.text, *(x for d in self.dims for x in d[1:])):
            try:
                out |= parse(text).names
            except WorkloadError:
                continue
        return out - {d[0] for d in self.dims}

    def approximate(self) -> str:
        """Each map's own size times the work, conditions ignored (an expression that may name map
        parameters, which the evaluator then reports)."""
        return product(*(size_of(start, end, step) for _, start, end, step in self.dims), paren(self.text))


def total(term: NestedSum, values: dict, budget: int = MAX_ITERATIONS) -> tuple[int | None, bool, int]:
    """The term's sum at ``values`` (None when it cannot be enumerated: names without values, a
    non-positive step, more than ``min(budget, MAX_ITERATIONS)`` iterations, work that is not a whole
    number), whether a condition on data (with no value here) was taken as holding, and the iterations
    visited. The nest is visited in blocks of at most CHUNK iterations, so memory stays bounded."""
    budget = min(budget, MAX_ITERATIONS)
    state = {"visited": 0, "assumed": False, "sum": 0}
    try:
        expr = parse(term.text)
        constant = None if expr.names & {d[0] for d in term.dims} else expr.evaluate(values)
        if constant is not None and constant != int(constant):
            return None, False, 0
        work = [(0, {}, 1)]  # (next dimension, the iterations so far as arrays, how many)
        while work:
            depth, env, n = work.pop()
            if depth == len(term.dims):
                _add(term, values, env, n, constant, state)
                continue
            param, start, end, step = term.dims[depth]
            a, b, s = (_vector(x, values, env, n) for x in (start, end, step))
            if np.any(s <= 0):
                return None, state["assumed"], state["visited"]
            counts = np.maximum(0, (b - a) // s + 1)
            size = int(counts.sum())
            if size > CHUNK and n > 1:  # the block is too big to expand at once: halve it
                half = n // 2
                work.append((depth, {k: v[half:] for k, v in env.items()}, n - half))
                work.append((depth, {k: v[:half] for k, v in env.items()}, half))
                continue
            state["visited"] += size
            if state["visited"] > budget:
                return None, state["assumed"], state["visited"]
            if n > 1:  # at most CHUNK iterations here: one block
                owners = np.repeat(np.arange(n), counts)
                offsets = np.arange(size) - np.repeat(np.cumsum(counts) - counts, counts)
            for first in range(0, size, CHUNK):
                last = min(size, first + CHUNK)
                if n > 1:
                    owner, offset = owners[first:last], offsets[first:last]
                else:  # one range, expanded a block at a time
                    owner, offset = np.zeros(last - first, dtype=np.int64), np.arange(first, last)
                block = {k: v[owner] for k, v in env.items()}
                block[param] = a[owner] + s[owner] * offset
                work.append((depth + 1, block, last - first))
        return state["sum"], state["assumed"], state["visited"]
    except (WorkloadError, KeyError, ValueError, OverflowError, ZeroDivisionError, RecursionError, MemoryError):
        return None, state["assumed"], state["visited"]


def _add(term: NestedSum, values: dict, env: dict, n: int, constant, state: dict) -> None:
    """Add the work of ``n`` iterations (those where every condition holds)."""
    mask = np.ones(n, dtype=bool)
    for guard in term.guards:
        held = _condition(guard, values, env, n)
        if held is None:  # a condition on data: counted as if it held
            state["assumed"] = True
        else:
            mask &= held
    if constant is not None:
        state["sum"] += int(constant) * int(mask.sum())
    else:
        state["sum"] += int(_vector(term.text, values, env, n)[mask].sum())


def _vector(text: str, values: dict, env: dict, n: int) -> np.ndarray:
    expr = parse(text)
    scope = {
        **{k: v for k, v in values.items() if k in expr.names},
        **{k: v for k, v in env.items() if k in expr.names},
    }
    return np.broadcast_to(expr.evaluate_array(scope), (n,))


_COMPARE = {
    ast.Lt: np.less,
    ast.LtE: np.less_equal,
    ast.Gt: np.greater,
    ast.GtE: np.greater_equal,
    ast.Eq: np.equal,
    ast.NotEq: np.not_equal,
}


def _condition(text: str, values: dict, env: dict, n: int) -> np.ndarray | None:
    """A branch condition per iteration (``and``, ``or``, ``not``, comparisons of expressions), or None
    when it names something without a value."""
    try:
        tree = ast.parse(python_source(str(text)).strip(), mode="eval").body
        return np.broadcast_to(_truth(tree, values, env, n), (n,))
    except (SyntaxError, ValueError, WorkloadError, KeyError, RecursionError, MemoryError, TypeError):
        return None


def _truth(node, values: dict, env: dict, n: int):
    if isinstance(node, ast.BoolOp):
        parts = [_truth(v, values, env, n) for v in node.values]
        return np.logical_and.reduce(parts) if isinstance(node.op, ast.And) else np.logical_or.reduce(parts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return np.logical_not(_truth(node.operand, values, env, n))
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return np.full(n, node.value)
    if isinstance(node, ast.Compare):
        left = _vector(ast.unparse(node.left), values, env, n)
        held = np.ones(n, dtype=bool)
        for op, right in zip(node.ops, node.comparators):
            value = _vector(ast.unparse(right), values, env, n)
            if type(op) not in _COMPARE:
                raise ExpressionError(f"a branch condition compares with {type(op).__name__}, which is not read")
            held &= _COMPARE[type(op)](left, value)
            left = value
        return held
    raise ExpressionError(f"a branch condition holds {ast.dump(node)[:80]}, which is not read")
