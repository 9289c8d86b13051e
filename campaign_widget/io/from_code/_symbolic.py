"""A tracer's symbolic size (a ``torch.SymInt``, whose value is a sympy expression) as the text of one of our
size expressions (docs/data-movement.md#sizes-and-parameters), in the names of the parameters it stands for."""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import ExpressionError


class NotExpressible(ExpressionError):
    """A symbolic size our expressions cannot spell (an integer division by a symbol, a modulo, ...)."""


def size_text(value, names: Mapping[str, str]) -> int | str:
    """``value`` (an int, or a SymInt) as an int or as expression text; a SymInt's symbols are renamed by
    ``names`` (tracer symbol → parameter). Raises ``NotExpressible`` for what our expressions cannot spell."""
    node = getattr(value, "node", None)
    if node is None:
        return int(value)
    expr = node.expr
    if not expr.free_symbols:
        return int(expr)
    return _text(expr, names)


def hint(value) -> int:
    """The value a size takes at the example inputs."""
    node = getattr(value, "node", None)
    return int(value) if node is None else int(node.hint)


def _text(e, names: Mapping[str, str]) -> str:
    if e.is_Integer:
        return str(int(e))
    if e.is_Rational:
        return f"({int(e.p)}/{int(e.q)})"
    if e.is_Symbol:
        if str(e) not in names:
            raise NotExpressible(f"the size {e} is no parameter")
        return names[str(e)]
    if e.is_Add:
        return "(" + " + ".join(_text(a, names) for a in e.args) + ")"
    if e.is_Mul:
        return "*".join(_text(a, names) for a in e.args)
    if e.is_Pow and e.exp.is_Integer and 0 <= int(e.exp) <= 64:
        return f"({_text(e.base, names)})**{int(e.exp)}"
    kind = type(e).__name__
    if kind == "FloorDiv":
        return f"({_text(e.args[0], names)})//({_text(e.args[1], names)})"
    if kind == "CeilDiv":
        return f"ceil(({_text(e.args[0], names)})/({_text(e.args[1], names)}))"
    if kind in ("Max", "Min"):
        return f"{kind.lower()}(" + ", ".join(_text(a, names) for a in e.args) + ")"
    raise NotExpressible(f"{kind} in {e}")
