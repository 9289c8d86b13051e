"""Expressions as text: products and sums of DaCe's symbolic sizes, ranges and their sizes, substitution,
linear index forms, and the iteration count of a nest of maps whose inner ranges follow outer ones."""

from __future__ import annotations

import ast
import re
from collections import Counter

from ...errors import WorkloadError, short_repr
from ...model.expr import parse, python_source
from ._doc import Doc, join

ATOM = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$|^\d+$")


def paren(text: str) -> str:
    return text if ATOM.match(text) else f"({text})"


def product(*terms: str) -> str:
    kept = [t for t in terms if t.strip() != "1"]
    if any(t.strip() == "0" for t in kept):
        return "0"
    if not kept:
        return "1"
    if len(kept) == 1:
        return kept[0]
    return "*".join(paren(t) for t in kept)


OFFSET = re.compile(r"^(.*?\S)\s*([+-])\s*(\d+)$")


def span(start: str, end: str) -> str:
    """``end - start + 1`` as short text: ``N - 2`` for ``1..N - 2``, ``K + 1`` for ``k..K + k``."""
    a, b = linear(start, {}), linear(end, {})
    if a is not None and b is not None and not re.fullmatch(r"\d+", start):
        difference = {k: b.get(k, 0) - a.get(k, 0) for k in {*a, *b}}
        difference[""] = difference.get("", 0) + 1
        difference = {k: v for k, v in difference.items() if v or k == ""}
        return linear_text(" + ".join(f"({v})*{k}" if k else f"({v})" for k, v in difference.items()), [])
    if not re.fullmatch(r"\d+", start):
        return f"{paren(end)} - {paren(start)} + 1"
    if re.fullmatch(r"\d+", end):
        return str(int(end) - int(start) + 1)
    base, constant = end, 0
    m = OFFSET.match(end)
    if m and balanced(m.group(1)):
        base, constant = m.group(1), int(m.group(3)) * (1 if m.group(2) == "+" else -1)
    constant += 1 - int(start)
    if constant == 0:
        return base
    if ATOM.match(base) or not re.search(r"[*/%]", base):
        return f"{base} {'+' if constant > 0 else '-'} {abs(constant)}"
    return f"{paren(base)} {'+' if constant > 0 else '-'} {abs(constant)}"


def balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def substitute(text: str, mapping: dict) -> str:
    """``text`` with names replaced by expressions (a nested SDFG's symbols → the outer ones)."""
    if not mapping:
        return text
    try:
        tree = ast.parse(python_source(text).strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text  # the evaluator reports it
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id in mapping}
    if not used:
        return text
    replacements = {}
    for name in used:
        try:
            replacements[name] = ast.parse(python_source(f"({mapping[name]})"), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue

    class Swap(ast.NodeTransformer):
        def visit_Name(self, node):
            return replacements.get(node.id, node)

    try:
        return ast.unparse(Swap().visit(tree))
    except (RecursionError, ValueError):
        return text


def sum_terms(texts: list[str]) -> str:
    """One expression for a sum of terms: whole numbers added up, repeated terms counted once with a factor."""
    constant = sum(int(t) for t in texts if t.isdigit())
    counts = Counter(t for t in texts if not t.isdigit())
    parts = [(product(str(n), t) if n > 1 else t) for t, n in counts.items()]
    if constant or not parts:
        parts.append(str(constant))
    return " + ".join(paren(p) if len(parts) > 1 else p for p in parts)


def parses(text: str) -> bool:
    try:
        parse(text)
    except WorkloadError:
        return False
    return True


def linear(text: str, values: dict) -> dict | None:
    """``text`` as {name: integer coefficient, "": constant} when it is linear with whole coefficients
    (``i + 1``, ``2*i - j``), else None."""
    try:
        tree = ast.parse(python_source(str(text)).strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None

    def visit(node, depth=0):
        if depth > 64:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return {"": node.value}
        if isinstance(node, ast.Name):
            return {"": values[node.id]} if node.id in values else {node.id: 1}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            inner = visit(node.operand, depth + 1)
            return (
                None if inner is None else {k: (-v if isinstance(node.op, ast.USub) else v) for k, v in inner.items()}
            )
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = visit(node.left, depth + 1), visit(node.right, depth + 1)
            if a is None or b is None:
                return None
            if isinstance(node.op, ast.Mult):
                if set(a) <= {""}:
                    a, b = b, a
                if not set(b) <= {""}:
                    return None
                return {k: v * b.get("", 0) for k, v in a.items()}
            sign = 1 if isinstance(node.op, ast.Add) else -1
            out = dict(a)
            for k, v in b.items():
                out[k] = out.get(k, 0) + sign * v
            return out
        return None

    form = visit(tree)
    return None if form is None else {k: v for k, v in form.items() if v != 0 or k == ""}


def linear_text(text: str, order: list) -> str:
    """A linear index expression written short, names in ``order`` then the constant (``i + 1``, ``j - 1``,
    ``2*i``); anything else as it is."""
    form = linear(text, {})
    if form is None:
        return text
    parts = []
    for name in [*[n for n in order if n in form], *sorted(k for k in form if k and k not in order)]:
        c = form[name]
        term = name if abs(c) == 1 else f"{abs(c)}*{name}"
        parts.append((c < 0, term))
    constant = form.get("", 0)
    if constant or not parts:
        parts.append((constant < 0, str(abs(constant))))
    head_negative, head = parts[0]
    out = ("-" if head_negative else "") + head
    for negative, term in parts[1:]:
        out += f" - {term}" if negative else f" + {term}"
    return out


def size_of(start: str, end: str, step: str = "1") -> str:
    """The element count of the inclusive range ``start..end`` by ``step``, as text."""
    size = span(start.strip(), end.strip())
    if step.strip() == "1":
        return size
    return f"ceiling(({size})/{paren(step)})"


def subset_ranges(doc: Doc, subset, where: str) -> list[list[str]] | None:
    """A subset (Range or Indices) as [start, end, step] texts per dimension (None when there is none)."""
    if subset is None:
        return None
    kind = doc.get(subset, "type", str, where)
    if kind == "Range":
        ranges = doc.get(subset, "ranges", list, where)
        return [
            [
                doc.expr(r, "start", f"{where}.ranges[{i}]"),
                doc.expr(r, "end", f"{where}.ranges[{i}]"),
                doc.expr(r, "step", f"{where}.ranges[{i}]", default="1"),
            ]
            for i, r in enumerate(ranges)
        ]
    if kind == "Indices":
        return [[str(x), str(x), "1"] for x in doc.get(subset, "indices", list, where)]
    raise doc.unknown(join(where, "type"), f"the subset type {short_repr(kind)}", "Range, Indices")


def subset_sizes(doc: Doc, subset, where: str) -> list[str] | None:
    """Per-dimension sizes of a memlet subset (Range or Indices), or None when there is none."""
    ranges = subset_ranges(doc, subset, where)
    if ranges is None:
        return None
    if subset.get("type") == "Indices":
        return ["1" for _ in ranges]
    return [size_of(*r) for r in ranges]


def nest_count(dims: list) -> str | None:
    """The iteration count of a nest of map dimensions ``[(param, start, end, step)]`` (outermost first),
    as an expression in the symbols only, or None when it has no closed form here.

    A dimension whose range names no parameter of the nest contributes its size. One whose range follows an
    outer parameter ``p`` as map tiling writes it (``i = p + c0 .. min(E, p + c1)``, step 1, tiles no
    longer than ``p``'s step) is summed with ``p`` exactly: full tiles, then the one clipped tile at the
    end, then none (a range that ends before it starts runs zero times, as DaCe runs it).
    """
    params = [d[0] for d in dims]
    uses = {}
    for param, start, end, step in dims:
        names = set()
        for text in (start, end, step):
            try:
                names |= parse(text).names
            except WorkloadError:
                return None
        uses[param] = names & set(params)
    factors, paired = [], set()
    for param, start, end, step in dims:
        outer = uses[param]
        if not outer:
            continue
        if len(outer) != 1:
            return None
        (p,) = outer
        if p in paired or uses[p] or step.strip() != "1":
            return None
        pdim = next(d for d in dims if d[0] == p)
        tile = _tile(p, start, end)
        if tile is None:
            return None
        if any(p in uses[q] for q in params if q != param):
            return None
        factors.append(_tiled_count(pdim[1], pdim[2], pdim[3], *tile))
        if factors[-1] is None:
            return None
        paired |= {p, param}
    for param, start, end, step in dims:
        if param not in paired:
            size = size_of(start, end, step)
            # a clipped range (``0 .. min(8, M - b_i) - 1``) ends before it starts at some sizes: it runs 0 times
            factors.append(f"max(0, {size})" if re.search(r"\b[Mm]in\(", size) else size)
    return product(*factors)


def _tile(p: str, start: str, end: str):
    """(coefficient, c0, c1, E or None) when ``start`` is ``coefficient·p + c0`` and ``end`` is
    ``coefficient·p + c1``, ``Min(E, coefficient·p + c1)`` or ``Min(…) + d`` (as MapTiling's strided and
    ceil ranges write them)."""
    a = linear(start, {})
    if a is None or set(a) - {""} != {p} or a[p] < 1:
        return None
    coefficient = a[p]
    try:
        tree = ast.parse(python_source(end).strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    offset = 0
    if (
        isinstance(tree, ast.BinOp)
        and isinstance(tree.op, (ast.Add, ast.Sub))
        and isinstance(tree.right, ast.Constant)
        and type(tree.right.value) is int
        and _is_min(tree.left)
    ):
        offset = tree.right.value if isinstance(tree.op, ast.Add) else -tree.right.value
        tree = tree.left
    clip = None
    if _is_min(tree):
        if len(tree.args) != 2 or tree.keywords:
            return None
        forms = [linear(ast.unparse(x), {}) for x in tree.args]
        tiled = [i for i, f in enumerate(forms) if f is not None and set(f) - {""} == {p} and f[p] == coefficient]
        if len(tiled) != 1:
            return None
        clip = ast.unparse(tree.args[1 - tiled[0]]) + (f" + ({offset})" if offset else "")
        try:
            if p in parse(clip).names:
                return None
        except WorkloadError:
            return None
        b = forms[tiled[0]]
    else:
        b = linear(end, {})
        if b is None or set(b) - {""} != {p} or b[p] != coefficient:
            return None
    return coefficient, a.get("", 0), b.get("", 0) + offset, clip


def _is_min(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Min", "min")


def _tiled_count(a: str, b: str, s: str, coefficient: int, c0: int, c1: int, clip: str | None) -> str | None:
    """Iterations of ``p = a..b by s`` × ``i = coefficient·p + c0 .. min(clip, coefficient·p + c1)``."""
    length = c1 - c0 + 1
    if length <= 0:
        return "0"
    tiles = size_of(a, b, s)
    if clip is None:
        return product(str(length), tiles)
    if not re.fullmatch(r"\d+", s.strip()):
        return None
    stride = coefficient * int(s)  # the tile starts q = coefficient·p run from coefficient·a by this
    if stride < length:
        return None  # overlapping tiles: no closed form here
    first = paren(a) if coefficient == 1 else f"{coefficient}*{paren(a)}"
    reach = f"{paren(clip)} - {first} - ({c0}) + 1"  # elements from the first tile's start to the clip
    full = f"min({tiles}, max(0, floor(({reach} - {length})/{stride}) + 1))"
    last = f"max(0, min({length}, {reach} - {stride}*{paren(full)}))*min(1, {tiles} - {paren(full)})"
    return f"{length}*{paren(full)} + {last}"
