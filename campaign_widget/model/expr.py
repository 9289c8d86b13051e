"""Size expressions in named parameters (docs/data-movement.md#sizes-and-parameters): parsed with ``ast``, evaluated by a whitelist.

An expression is a number or text such as ``"B*S"``, ``"ceil(N/T)"`` or ``"I/H"``. Allowed: numbers,
names, ``+ - * / // % **`` (``^`` is read as ``**``), unary ``-``/``+``, and the functions
``min max floor ceil ceiling abs`` (with DaCe's spellings ``Min Max Abs int_floor int_ceil``, and its
2.x symbols ``$N``, which are the name ``N``).
Anything else is refused with the node and its column. Nothing is ever passed to ``eval``.

Arithmetic is exact (``int`` and ``fractions.Fraction``): a float parameter is the decimal it prints as
(``1e-07`` is 1/10**7, as the same number written in the text is). ``**`` takes an integer exponent
0…64, every intermediate must stay within 10**30 in magnitude, and the denominator of every fraction
within MAX_DENOMINATOR_BITS bits, so no expression can hang the process or exhaust memory.

>>> evaluate("B*S", {"B": 8, "S": 2048})
16384
>>> size("D/H", {"D": 1024, "H": 16}, what="h")
64
>>> parse("ceil(N/T)").names == frozenset({"N", "T"})
True
"""

from __future__ import annotations

import ast
import math
import numbers
import operator
import re
import sys
import threading
import warnings
from collections import OrderedDict
from collections.abc import Mapping
from fractions import Fraction
from typing import NoReturn

import numpy as np

from ..errors import ExpressionError, WrongTypeError, short_repr

MAX_TEXT = 1000
MAX_MAGNITUDE = 10**30
MAX_EXPONENT = 64
MAX_DENOMINATOR_BITS = 4096  # an exact fraction's denominator: 1e-300 needs ~1,000 bits, (1/3)**64 ~100
MAX_CACHED_BYTES = 32 << 20  # what the parse cache may hold in all: its texts, names and syntax trees
NODE_BYTES = 200  # an AST node with its fields (a Name's or a Constant's value counted apart)

Number = int | Fraction

_BINARY = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
# the operators that need no check of their operands, exact values and index arrays alike
_RING = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
_FUNCTIONS = {
    "min": "min",
    "Min": "min",
    "max": "max",
    "Max": "max",
    "abs": "abs",
    "Abs": "abs",
    "floor": "floor",
    "int_floor": "floor",
    "ceil": "ceil",
    "ceiling": "ceil",
    "int_ceil": "ceil",
}
# functions of two arguments in DaCe's spelling: int_floor(a, b) = floor(a/b)
_DIVIDING = {"int_floor", "int_ceil"}


class Expr:
    """A validated expression: ``text``, ``names`` (the parameters it uses), ``evaluate(params)``."""

    __slots__ = ("text", "names", "_tree")

    def __init__(self, text: str, tree: ast.AST, names: frozenset[str]) -> None:
        self.text = text
        self.names = names
        self._tree = tree

    def evaluate(self, params: Mapping[str, Number]) -> Number:
        """The exact value with ``params`` (int or Fraction); unknown names are listed all at once."""
        _check_mapping("params", params)
        missing = sorted(self.names - set(params))
        if missing:
            raise ExpressionError(
                f"expression {short_repr(self.text)} uses unknown parameters {missing}; known: {sorted(params)}"
            )
        env = {name: _exact(name, params[name]) for name in self.names}
        return _Exact(self.text, env).visit(self._tree)

    def evaluate_array(self, env: Mapping[str, object]) -> np.ndarray:
        """The expression over integer arrays (index expressions such as ``i+1`` or ``2*k`` in a trace).

        ``/`` must divide exactly; ``//`` floors. Returns int64 values, exactly: an input that is not
        whole, or an intermediate outside int64, is an ExpressionError (never a value wrapped around).
        """
        _check_mapping("env", env)
        missing = sorted(self.names - set(env))
        if missing:
            raise ExpressionError(
                f"expression {short_repr(self.text)} uses unknown names {missing}; known: {short_repr(sorted(env))}"
            )
        arrays = {name: _whole_array(self.text, name, env[name]) for name in self.names}
        result = _Vector(self.text, arrays).visit(self._tree)
        return np.asarray(result, dtype=np.int64)

    def __repr__(self) -> str:
        return f"Expr({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expr) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


_DOLLAR = re.compile(r"\$(?=[A-Za-z_])")


def python_source(text: str) -> str:
    """``text`` in Python's syntax: ``^`` is ``**``, and a DaCe 2.x symbol ``$name`` is the name ``name``."""
    return _DOLLAR.sub("", text.replace("^", "**"))


def parse(text: str) -> Expr:
    """Validate ``text`` against the whitelist; errors name the node and its column."""
    if not isinstance(text, str):
        raise WrongTypeError(f"an expression must be text, got {type(text).__name__} {short_repr(text)}")
    with _CACHE_LOCK:
        found = _CACHE.get(text)
        if found is not None:
            _CACHE.move_to_end(text)
            return found[0]
    parsed, size = _parse(text)
    _remember(text, parsed, size)
    return parsed


# A slider re-evaluates the same few expressions on every step: parsed ones are kept, least recently
# used first out, bounded by the bytes they hold (a count of entries would let 1,000-character
# expressions hold a gigabyte; a count of nodes, 1,000-character names).
_CACHE: OrderedDict[str, tuple[Expr, int]] = OrderedDict()
_CACHE_LOCK = threading.Lock()
_cached_bytes = 0


def _remember(text: str, parsed: Expr, size: int) -> None:
    global _cached_bytes
    with _CACHE_LOCK:
        if text in _CACHE or size > MAX_CACHED_BYTES:
            return
        _CACHE[text] = (parsed, size)
        _cached_bytes += size
        while _cached_bytes > MAX_CACHED_BYTES:
            _, (_, dropped) = _CACHE.popitem(last=False)
            _cached_bytes -= dropped


def cached_bytes() -> int:
    """The bytes (as estimated by ``_footprint``) held by the parse cache: at most MAX_CACHED_BYTES."""
    return _cached_bytes


def _footprint(text: str, tree: ast.AST, names: frozenset[str]) -> int:
    """The bytes a parsed expression holds: its text (the key, kept once), its names and its tree's nodes
    with their names and constants (each ``Name`` holds its own copy of the name)."""
    size = 2 * sys.getsizeof(text) + sys.getsizeof(names) + sum(sys.getsizeof(n) for n in names)
    for node in ast.walk(tree):
        size += NODE_BYTES
        if isinstance(node, ast.Name):
            size += sys.getsizeof(node.id)
        elif isinstance(node, ast.Constant):
            size += sys.getsizeof(node.value)
    return size


def _parse(text: str) -> tuple[Expr, int]:
    if len(text) > MAX_TEXT:
        raise ExpressionError(
            f"expression {short_repr(text)} is {len(text):,} characters long; the limit is {MAX_TEXT:,}"
        )
    source = python_source(text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # e.g. "invalid decimal literal": refused below anyway
            tree = ast.parse(source.strip(), mode="eval")
    except (SyntaxError, ValueError) as error:
        column = getattr(error, "offset", None)
        where = f" at column {column}" if column else ""
        raise ExpressionError(
            f"expression {short_repr(text)} is not valid{where}: {getattr(error, 'msg', error)}"
        ) from None
    except (RecursionError, MemoryError):
        raise ExpressionError(f"expression {short_repr(text)} is nested too deeply") from None
    names: set[str] = set()
    try:
        _check(text, tree.body, names)
    except RecursionError:
        raise ExpressionError(f"expression {short_repr(text)} is nested too deeply") from None
    frozen = frozenset(names)
    return Expr(text, tree.body, frozen), _footprint(text, tree.body, frozen)


def _check(text: str, node: ast.AST, names: set[str]) -> None:
    def refuse(what: str) -> NoReturn:
        column = getattr(node, "col_offset", 0) + 1
        raise ExpressionError(
            f"expression {short_repr(text)}: {what} at column {column} is not allowed; "
            "use numbers, parameter names, + - * / // % ** and "
            "min max floor ceil abs"
        )

    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            refuse(f"the constant {node.value!r}")
        return
    if isinstance(node, ast.Name):
        if node.id in _FUNCTIONS:
            refuse(f"the function name {node.id!r} without a call")
        names.add(node.id)
        return
    if isinstance(node, ast.BinOp):
        if not isinstance(node.op, _BINARY):
            refuse(f"the operator {type(node.op).__name__}")
        _check(text, node.left, names)
        _check(text, node.right, names)
        return
    if isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.USub, ast.UAdd)):
            refuse(f"the operator {type(node.op).__name__}")
        _check(text, node.operand, names)
        return
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            refuse(f"a call to {ast.unparse(node.func)[:40]!r}")
        if node.keywords:
            refuse("a keyword argument")
        count = len(node.args)
        kind = _FUNCTIONS[node.func.id]
        if node.func.id in _DIVIDING:
            if count != 2:
                refuse(f"{node.func.id} with {count} arguments (it takes 2)")
        elif kind in ("min", "max"):
            if count < 1:
                refuse(f"{node.func.id} with no arguments")
        elif count != 1:
            refuse(f"{node.func.id} with {count} arguments (it takes 1)")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                refuse("a starred argument")
            _check(text, arg, names)
        return
    refuse(f"the {type(node).__name__} node")


def _check_mapping(what: str, value) -> None:
    if not isinstance(value, Mapping):
        raise WrongTypeError(f"{what}={short_repr(value)} must map parameter names to numbers")


def _whole_array(text: str, name: str, value) -> np.ndarray:
    """``value`` as int64, or an ExpressionError naming ``name``: never 2.5 read as 2, nor 10**30 wrapped."""
    try:
        array = np.asarray(value)
        if array.dtype.kind in "iu":
            if array.dtype.kind == "u" and array.size and int(array.max()) > _INT64_MAX:
                raise OverflowError
            return array.astype(np.int64, copy=False)
        if array.dtype.kind not in "fO":  # bools, text, dates: not indices
            raise TypeError
        if array.dtype.kind == "O":
            items = [
                int(v) if isinstance(v, numbers.Integral) and not isinstance(v, bool) else None for v in array.flat
            ]
            if any(v is None for v in items):
                raise TypeError
            return np.array(items, dtype=np.int64).reshape(array.shape)  # OverflowError past int64
        as_float = array.astype(np.float64)
        if not np.all(np.isfinite(as_float)) or not np.all(as_float == np.round(as_float)):
            raise TypeError
        if as_float.size and np.abs(as_float).max() >= 2.0**63:
            raise OverflowError
        return as_float.astype(np.int64)
    except OverflowError:
        raise ExpressionError(
            f"index expression {short_repr(text)}: {name}={short_repr(value)} is outside 64-bit integers"
        ) from None
    except (TypeError, ValueError):
        raise ExpressionError(
            f"index expression {short_repr(text)}: {name}={short_repr(value)} must hold whole numbers"
        ) from None


_INT64_MAX = 2**63 - 1


def _exact(name: str, value: object) -> Number:
    if isinstance(value, bool):
        raise ExpressionError(f"parameter {short_repr(name)}={value!r} must be a number")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise ExpressionError(f"parameter {short_repr(name)}={short_repr(value)} must be finite")
        # the decimal the float prints as, exactly (what the same number written in an expression is)
        return int(number) if number.is_integer() else Fraction(repr(number))
    raise ExpressionError(f"parameter {short_repr(name)}={short_repr(value)} must be a number")


def _normal(value: Number) -> Number:
    if isinstance(value, Fraction) and value.denominator == 1:
        return int(value.numerator)
    return value


class _Exact:
    def __init__(self, text: str, env: Mapping[str, Number]) -> None:
        self.text = text
        self.env = env

    def bounded(self, node: ast.AST, value: Number) -> Number:
        if abs(value) > MAX_MAGNITUDE:
            raise ExpressionError(
                f"expression {short_repr(self.text)}: the value at column {node.col_offset + 1} exceeds 10**30"
            )
        if isinstance(value, Fraction) and value.denominator.bit_length() > MAX_DENOMINATOR_BITS:
            self.too_fine(node)
        return _normal(value)

    def too_fine(self, node: ast.AST) -> NoReturn:
        raise ExpressionError(
            f"expression {short_repr(self.text)}: the value at column {node.col_offset + 1} is a fraction too "
            f"fine to hold exactly (its denominator would exceed 2**{MAX_DENOMINATOR_BITS}: a power of a tiny "
            "or finely divided number)"
        )

    def visit(self, node: ast.AST) -> Number:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, float):
                if not math.isfinite(value):
                    raise ExpressionError(
                        f"expression {short_repr(self.text)}: the number at column {node.col_offset + 1} exceeds 10**30"
                    )
                return self.bounded(node, Fraction(repr(value)))
            return self.bounded(node, int(value))
        if isinstance(node, ast.Name):
            return self.bounded(node, self.env[node.id])
        if isinstance(node, ast.UnaryOp):
            value = self.visit(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp):
            left, right = self.visit(node.left), self.visit(node.right)
            return self.bounded(node, self.binary(node, left, right))
        if isinstance(node, ast.Call):
            args = [self.visit(a) for a in node.args]
            return self.bounded(node, self.call(node, args))
        raise AssertionError(node)  # _check refused everything else

    def binary(self, node: ast.BinOp, a: Number, b: Number) -> Number:
        op = node.op
        if type(op) in _RING:
            return _RING[type(op)](a, b)
        if isinstance(op, ast.Pow):
            if not isinstance(b, int) or not 0 <= b <= MAX_EXPONENT:
                raise ExpressionError(
                    f"expression {short_repr(self.text)}: the exponent {b} at column "
                    f"{node.col_offset + 1} must be a whole number from 0 to {MAX_EXPONENT}"
                )
            # sizes from the operand's integer parts (math.log10 of an int never overflows or underflows)
            a = Fraction(a)
            if a != 0 and abs(a) != 1:
                if b * (math.log10(abs(a.numerator)) - math.log10(a.denominator)) > 30.5:
                    raise ExpressionError(
                        f"expression {short_repr(self.text)}: the value at column {node.col_offset + 1} exceeds 10**30"
                    )
                if b * a.denominator.bit_length() > MAX_DENOMINATOR_BITS + b:
                    self.too_fine(node)
            return a**b
        if b == 0:
            raise ExpressionError(
                f"expression {short_repr(self.text)}: division by zero at column {node.col_offset + 1}"
            )
        if isinstance(op, ast.Div):
            return Fraction(a) / Fraction(b)
        if isinstance(op, ast.FloorDiv):
            return Fraction(a) // Fraction(b)
        return Fraction(a) % Fraction(b)

    def call(self, node: ast.Call, args: list[Number]) -> Number:
        name = node.func.id
        kind = _FUNCTIONS[name]
        if name in _DIVIDING:
            if args[1] == 0:
                raise ExpressionError(
                    f"expression {short_repr(self.text)}: division by zero in {name} at column {node.col_offset + 1}"
                )
            args = [Fraction(args[0]) / Fraction(args[1])]
        if kind == "min":
            return min(args)
        if kind == "max":
            return max(args)
        if kind == "abs":
            return abs(args[0])
        if kind == "floor":
            return math.floor(args[0])
        return math.ceil(args[0])


class _Vector:
    """The same whitelist over int64 arrays (index expressions); exact or an error."""

    def __init__(self, text: str, env: Mapping[str, np.ndarray]) -> None:
        self.text = text
        self.env = env

    def visit(self, node: ast.AST) -> np.ndarray | np.int64:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, float) and not node.value.is_integer():
                raise ExpressionError(
                    f"index expression {short_repr(self.text)}: {node.value!r} at column "
                    f"{node.col_offset + 1} is not a whole number"
                )
            return np.int64(int(node.value))
        if isinstance(node, ast.Name):
            return self.env[node.id]
        if isinstance(node, ast.UnaryOp):
            value = self.visit(node.operand)
            if isinstance(node.op, ast.USub) and np.size(value):
                self.fits(node, -int(np.min(value)))
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.BinOp):
            return self.binary(node, self.visit(node.left), self.visit(node.right))
        if isinstance(node, ast.Call):
            args = [self.visit(a) for a in node.args]
            name = node.func.id
            kind = _FUNCTIONS[name]
            if name in _DIVIDING:
                a, b = args
                self.nonzero(node, b)
                return a // b if kind == "floor" else -((-a) // b)
            if kind == "min":
                return np.minimum.reduce(np.broadcast_arrays(*args)) if len(args) > 1 else args[0]
            if kind == "max":
                return np.maximum.reduce(np.broadcast_arrays(*args)) if len(args) > 1 else args[0]
            if kind == "abs":
                if np.size(args[0]):
                    self.fits(node, -int(np.min(args[0])))
                return np.abs(args[0])
            return args[0]  # floor/ceil of an integer is itself
        raise AssertionError(node)

    def nonzero(self, node: ast.AST, b: np.ndarray | np.int64) -> None:
        if np.any(np.asarray(b) == 0):
            raise ExpressionError(
                f"index expression {short_repr(self.text)}: division by zero at column {node.col_offset + 1}"
            )

    def fits(self, node: ast.AST, *corners: int) -> None:
        """Refuse an operation whose result range (from its operands' ranges) leaves int64: numpy's
        integer arithmetic wraps around without a word."""
        if any(not -_INT64_MAX - 1 <= c <= _INT64_MAX for c in corners):
            raise ExpressionError(
                f"index expression {short_repr(self.text)}: the value at column {node.col_offset + 1} "
                "is outside 64-bit integers"
            )

    def binary(self, node: ast.BinOp, a: np.ndarray | np.int64, b: np.ndarray | np.int64) -> np.ndarray | np.int64:
        op = node.op
        if np.size(a) and np.size(b) and isinstance(op, (ast.Add, ast.Sub, ast.Mult, ast.Pow)):
            a_lo, a_hi, b_lo, b_hi = int(np.min(a)), int(np.max(a)), int(np.min(b)), int(np.max(b))
            if isinstance(op, ast.Add):
                self.fits(node, a_lo + b_lo, a_hi + b_hi)
            elif isinstance(op, ast.Sub):
                self.fits(node, a_lo - b_hi, a_hi - b_lo)
            elif isinstance(op, ast.Mult):
                self.fits(node, a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi)
            elif np.ndim(b) == 0 and 0 <= b_lo <= MAX_EXPONENT:
                self.fits(node, a_lo**b_lo, a_hi**b_lo)
        with np.errstate(over="raise"):
            try:
                if type(op) in _RING:
                    return _RING[type(op)](a, b)
                if isinstance(op, ast.Pow):
                    if np.ndim(b) or not 0 <= int(b) <= MAX_EXPONENT:
                        raise ExpressionError(
                            f"index expression {short_repr(self.text)}: the exponent at column "
                            f"{node.col_offset + 1} must be a constant from 0 to {MAX_EXPONENT}"
                        )
                    return a ** int(b)
                self.nonzero(node, b)
                if isinstance(op, ast.Div):
                    if np.any(np.asarray(a) % b):
                        raise ExpressionError(
                            f"index expression {short_repr(self.text)}: '/' at column "
                            f"{node.col_offset + 1} does not divide exactly; use '//'"
                        )
                    return a // b
                if isinstance(op, ast.FloorDiv):
                    return a // b
                return a % b
            except FloatingPointError:
                raise ExpressionError(
                    f"index expression {short_repr(self.text)}: overflow at column {node.col_offset + 1}"
                ) from None


def evaluate(value: str | float | Fraction, params: Mapping[str, Number]) -> Number:
    """The exact value of a number or an expression with ``params``."""
    if isinstance(value, bool):
        raise WrongTypeError(f"{value!r} is not a number or an expression")
    if isinstance(value, (numbers.Integral, Fraction)):
        return _normal(Fraction(value))
    if isinstance(value, numbers.Real):
        return _exact("value", value)
    if not isinstance(value, str):
        raise WrongTypeError(f"{short_repr(value)} is not a number or an expression")
    return parse(value).evaluate(params)


def size(value: str | float | Fraction, params: Mapping[str, Number], *, what: str) -> int:
    """A positive whole number from a number or expression; errors name ``what``, the text and the value."""
    try:
        result = evaluate(value, params)
    except ExpressionError as error:
        raise ExpressionError(f"{what}: {error}") from None
    except TypeError:
        raise WrongTypeError(f"{what}={value!r} must be a whole number or an expression") from None
    if not isinstance(result, int) or result <= 0:
        shown = str(result) if isinstance(result, int) else f"{result} (= {float(result):.6g})"
        given = f"{value!r} = {shown}" if isinstance(value, str) else shown
        raise ExpressionError(f"{what}={given} must be a positive whole number")
    return result


def resolve_sizes(sizes: Mapping[str, object], params: Mapping[str, Number] | None = None) -> dict[str, int]:
    """Every size as a positive whole number; unknown parameter names across all sizes listed at once."""
    if not isinstance(sizes, Mapping):
        raise WrongTypeError(f"sizes={short_repr(sizes)} must map names to sizes (numbers or expressions)")
    if params is not None:
        _check_mapping("params", params)
    params = dict(params or {})
    for name, value in params.items():
        if not isinstance(name, str):
            raise WrongTypeError(f"parameter name {short_repr(name)} must be text")
        _exact(name, value)
    exprs = {key: parse(value) for key, value in sizes.items() if isinstance(value, str)}
    missing = sorted(set().union(*(e.names for e in exprs.values())) - set(params)) if exprs else []
    if missing:
        users = {m: sorted(k for k, e in exprs.items() if m in e.names) for m in missing}
        listed = "; ".join(f"{m!r} (in {', '.join(repr(k) for k in users[m])})" for m in missing)
        raise ExpressionError(f"unknown parameters {listed}; known parameters: {sorted(params)}")
    return {key: size(value, params, what=f"size {key!r}") for key, value in sizes.items()}
