"""DaCe SDFGs (``.sdfg`` JSON, ``.sdfgz`` gzipped JSON) → a Workload of phases reading and writing tensors.

Read with the standard library and numpy only; ``dace`` is never imported. Written for the layout of
dace 0.x–1.0 (an SDFG is states joined by interstate edges; ``dace_version`` above 1.x is refused).

>>> from campaign_widget.sdfg import read_sdfg                             # doctest: +SKIP
>>> w = read_sdfg("matmul.sdfgz", params={"M": 64, "N": 64, "K": 64})     # doctest: +SKIP
>>> print(w.import_report)                                                # doctest: +SKIP

What becomes what
  *Phases*: each top-level scope of a state — a map (or consume) scope with everything inside it,
  a tasklet, a library node, a nested SDFG — and each copy between two access nodes (``copy X → Y``).
  Names are the nodes' labels (``_MatMult_``, ``matmul_map_5``); repeated labels get ``#2``, ``#3``.
  *Tensors*: the top-level access nodes. A container written more than once gets one tensor per
  version (``A``, then ``A@2`` …), so that each tensor has one producer and data dependencies stay
  acyclic; views are followed to the container they view.
  *Reads and writes*: the memlet edges between an access node and a phase, bytes = memlet volume ×
  element size (``dtype`` of the container, or ``element_bytes=``). Volumes are DaCe's logical
  volumes (what the seed paper's heatmap shows), summed per tensor, times the state's ``executions``
  (present when the SDFG was saved after ``propagate_states``).
  *Ops*: each tasklet's Python code is parsed with ``ast`` (never executed): every arithmetic
  operator (``+ - * / // % ** @``, augmented assignment, unary minus), every comparison operator and
  every call of a known math function (``max min abs exp log sqrt tanh …``) counts 1; casts
  (``dace.float32(0)``, ``float``) and plain assignments count 0. One op per element of every
  write-conflict resolution (``wcr``, a reduction). A scope's count is multiplied by its map's
  iteration count (from the map's range, symbolic). Known library nodes get their formula:
  ``MatMul``/``BatchedMatMul``/``Gemm`` 2·|C|·K (2·M·N·K), ``Gemv`` 2·|y|·|x|, ``Dot`` 2·|x|,
  ``Reduce`` one per input element, ``Transpose`` 0.
  *Dependencies*: data (through access nodes: a phase reading a tensor runs after its producer) and
  state order (the first phases of a state run after the last phases of the states before it;
  loop back edges are ignored).
  *Parameters*: the SDFG's free symbols become the workload's parameters: every phase's ops and
  tensor bytes stay expressions in them (``workload.params``; ``workload.with_params(M=128)``
  re-evaluates, so they get sliders). Values come from ``params=``, else from the SDFG's
  constants; any symbol left without a value is an error that lists them all.

Nothing is summed silently: dynamic memlets, negative volumes, volumes that are 0 at every size,
expressions the evaluator refuses (or that use names other than the SDFG's symbols), unknown library
nodes, non-Python tasklets, unknown functions, unknown element types, loop states without an
execution count are counted by reason in ``workload.import_report.skipped`` (with where, in
``skipped_detail``) and left out of the sums. A symbolic volume that is 0 at the given values is
counted there too, but kept: other values give it bytes.

Bad files (truncated, not JSON, not an SDFG, an unknown layout, gzip bombs: reading stops at
``MAX_BYTES`` of decompressed text) raise :class:`~campaign_widget.io.WorkloadFileError` naming the
file, the field (``nodes[0].nodes[3].attributes.data``) and the value.
"""

from __future__ import annotations

import ast
import functools
import json
import numbers
import re
import zlib
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import WorkloadError, short_repr
from ..expr import MAX_TEXT, ExpressionError, parse
from ..machine import Machine
from ..phase import Phase
from ..workload import Workload
from ._common import ImportReport, PhaseReport, check_machine, check_percent
from .source import Source, WorkloadFileError

FORMAT = "dace-sdfg"
SUFFIXES = (".sdfg", ".sdfgz")
MAX_BYTES = 256 * 2**20  # decompressed JSON text read at most (a gzip bomb stops here)
MAX_NESTING = 32  # nested SDFGs within nested SDFGs
SNIFF_BYTES = 1 << 16
GZIP_MAGIC = b"\x1f\x8b"
KNOWN_MAJOR_VERSIONS = (0, 1)

ELEMENT_BYTES = {
    "bool": 1,
    "bool_": 1,
    "int8": 1,
    "uint8": 1,
    "int16": 2,
    "uint16": 2,
    "int32": 4,
    "uint32": 4,
    "int64": 8,
    "uint64": 8,
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
    "float64": 8,
    "complex64": 8,
    "complex128": 16,
}

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

# ImportReport.skipped reasons
DYNAMIC = "dynamic memlet volume"
ZERO = "zero memlet volume"
NEGATIVE = "negative memlet volume"
NOT_UNDERSTOOD = "expression not understood"
UNKNOWN_LIBRARY = "library node without a known formula"
NOT_PYTHON = "tasklet not in Python"
UNKNOWN_FUNCTION = "call of an unknown function in a tasklet"
UNKNOWN_DTYPE = "unknown element type"
LOOP_EXECUTIONS = "state in a loop without an execution count"
DYNAMIC_EXECUTIONS = "state with a dynamic execution count"
UNKNOWN_NODE = "node of an unknown type"
NO_WORK = "phase with no work (0 ops, 0 bytes)"
DIRECT_EDGE = "edge between two scopes without an access node"


# -- the intermediate structure ---------------------------------------------------------------------


@dataclass
class SDFGPhase:
    """One phase before evaluation: ``ops`` and each tensor's bytes as lists of expression terms.

    ``kind`` is ``"map"``, ``"consume"``, ``"tasklet"``, ``"library"``, ``"nested"``, ``"copy"`` or
    ``"node"``; ``state`` the label of its state; ``node`` where it is in the file.
    """

    name: str
    kind: str
    state: str
    node: str
    ops: list = field(default_factory=list)  # [(expression, where)]
    reads: dict = field(default_factory=dict)  # tensor -> [(expression, where)]
    writes: dict = field(default_factory=dict)
    after: list = field(default_factory=list)
    # a map: its parameters, ranges and the memlets crossing its entry and exit, as written (``map_accesses``)
    map: dict | None = None

    @staticmethod
    def expression(terms) -> str:
        """The terms as one expression (``"0"`` when there are none)."""
        return _sum_terms([t for t, _ in terms])


@dataclass
class SDFGProgram:
    """What :func:`extract_sdfg` finds in an SDFG file, with every number still an expression."""

    path: str
    name: str
    dace_version: str | None
    symbols: dict  # symbol -> DaCe type name (the top-level SDFG's, minus loop variables)
    constants: dict  # symbol -> number, from the SDFG's constants
    phases: list  # [SDFGPhase]
    tensors: dict  # tensor name -> container name
    issues: list  # [(reason, where)]: left out at extraction

    @property
    def parameters(self) -> list[str]:
        """The symbols the phases' expressions use, sorted."""
        names = set()
        for p in self.phases:
            for terms in (p.ops, *p.reads.values(), *p.writes.values()):
                for text, _ in terms:
                    try:
                        names |= parse(text).names
                    except WorkloadError:
                        continue
        return sorted(n for n in names if n in self.symbols)


# -- reading the file -------------------------------------------------------------------------------


def _error(name: str, message: str, *, field: str | None = None, line: int | None = None):
    return WorkloadFileError(message, path=name, field=field, line=line)


def _raw_bytes(path_or_source) -> tuple[str, bytes]:
    if isinstance(path_or_source, Source):
        return path_or_source.name, path_or_source.raw
    path = Path(path_or_source)
    name = str(path_or_source)
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise _error(name, f"the file is {size:,} bytes; the SDFG reader reads at most {MAX_BYTES:,}")
    return name, path.read_bytes()


def _text(name: str, raw: bytes) -> str:
    if len(raw) > MAX_BYTES:
        raise _error(name, f"the file is {len(raw):,} bytes; the SDFG reader reads at most {MAX_BYTES:,}")
    if raw[:2] == GZIP_MAGIC:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            data = inflater.decompress(raw, MAX_BYTES + 1)
        except zlib.error as e:
            raise _error(name, f"corrupt gzip data ({e})") from None
        if len(data) > MAX_BYTES or inflater.unconsumed_tail:
            raise _error(
                name,
                f"the gzip data decompresses to more than {MAX_BYTES:,} bytes (the reader's "
                "limit; raise campaign_widget.sdfg.MAX_BYTES to read it)",
            )
        if not inflater.eof:
            raise _error(
                name,
                f"truncated gzip data: the stream ends after {len(raw):,} bytes ({len(data):,} bytes decompressed)",
            )
        if inflater.unused_data.strip(b"\x00 \t\r\n"):
            raise _error(
                name, f"{len(inflater.unused_data):,} bytes after the end of the gzip stream (an SDFG file holds one)"
            )
        raw = data
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise _error(name, f"not UTF-8 text (byte {e.start} is {raw[e.start]:#04x})", line=line) from None


def _document(name: str, raw: bytes) -> dict:
    text = _text(name, raw)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        what = "truncated JSON" if e.pos >= len(text.rstrip()) else "not JSON"
        raise _error(name, f"{what}: {e.msg} (column {e.colno})", line=e.lineno) from None
    except RecursionError:
        raise _error(name, "JSON nested too deeply") from None
    if not isinstance(document, dict):
        raise _error(name, f"not an SDFG: the JSON document is a {type(document).__name__}, not an object")
    kind = document.get("type")
    if kind != "SDFG":
        raise _error(name, f"not an SDFG: type={short_repr(kind)} (an SDFG file has type 'SDFG')", field="type")
    version = document.get("dace_version")
    if version is not None:
        match = re.match(r"^(\d+)\.", str(version))
        if not isinstance(version, str) or not match or int(match.group(1)) not in KNOWN_MAJOR_VERSIONS:
            raise _error(
                name,
                f"dace_version={short_repr(version)}: an SDFG layout this reader does not know "
                f"(it reads dace {', '.join(f'{v}.x' for v in KNOWN_MAJOR_VERSIONS)})",
                field="dace_version",
            )
    return document


class _Doc:
    """Typed access to the JSON with the field path in every error."""

    def __init__(self, name: str):
        self.name = name

    def get(self, obj, key, kind, where: str, *, default=..., allow_none=False):
        if not isinstance(obj, dict):
            raise _error(self.name, f"expected an object, got {short_repr(obj)}", field=where)
        if key not in obj:
            if default is not ...:
                return default
            raise _error(self.name, "missing", field=_join(where, key))
        value = obj[key]
        if value is None and allow_none:
            return None
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise _error(self.name, f"{short_repr(value)} is not a {names}", field=_join(where, key))
        return value

    def expr(self, obj, key, where: str, *, default=...) -> str:
        value = self.get(obj, key, (str, int, float), where, default=default)
        return str(value)

    def fail(self, where: str, message: str):
        return _error(self.name, message, field=where)


def _join(where: str, key) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else str(key)


# -- expressions as text ----------------------------------------------------------------------------


_ATOM = re.compile(r"^[A-Za-z_][A-Za-z_0-9]*$|^\d+$")


def _paren(text: str) -> str:
    return text if _ATOM.match(text) else f"({text})"


def _product(*terms: str) -> str:
    kept = [t for t in terms if t.strip() != "1"]
    if any(t.strip() == "0" for t in kept):
        return "0"
    if not kept:
        return "1"
    if len(kept) == 1:
        return kept[0]
    return "*".join(_paren(t) for t in kept)


def _range_size(doc: _Doc, r, where: str) -> str:
    start = doc.expr(r, "start", where)
    end = doc.expr(r, "end", where)
    step = doc.expr(r, "step", where, default="1")
    span = _span(start.strip(), end.strip())
    if step.strip() == "1":
        return span
    return f"ceiling(({span})/{_paren(step)})"


_OFFSET = re.compile(r"^(.*?\S)\s*([+-])\s*(\d+)$")


def _span(start: str, end: str) -> str:
    """``end - start + 1`` as short text when ``start`` is a whole number (``N - 2`` from 1 → ``N - 2``)."""
    if not re.fullmatch(r"\d+", start):
        return f"{_paren(end)} - {_paren(start)} + 1"
    if re.fullmatch(r"\d+", end):
        return str(int(end) - int(start) + 1)
    base, constant = end, 0
    m = _OFFSET.match(end)
    if m and _balanced(m.group(1)):
        base, constant = m.group(1), int(m.group(3)) * (1 if m.group(2) == "+" else -1)
    constant += 1 - int(start)
    if constant == 0:
        return base
    if _ATOM.match(base) or not re.search(r"[*/%]", base):
        return f"{base} {'+' if constant > 0 else '-'} {abs(constant)}"
    return f"{_paren(base)} {'+' if constant > 0 else '-'} {abs(constant)}"


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _subset_sizes(doc: _Doc, subset, where: str) -> list[str] | None:
    """Per-dimension sizes of a memlet subset (Range or Indices), or None when there is none."""
    if subset is None:
        return None
    kind = doc.get(subset, "type", str, where)
    if kind == "Range":
        ranges = doc.get(subset, "ranges", list, where)
        return [_range_size(doc, r, f"{where}.ranges[{i}]") for i, r in enumerate(ranges)]
    if kind == "Indices":
        return ["1" for _ in doc.get(subset, "indices", list, where)]
    raise doc.fail(_join(where, "type"), f"{short_repr(kind)} is not a subset type this reader knows (Range, Indices)")


def _subset_ranges(doc: _Doc, subset, where: str) -> list[list[str]] | None:
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
    raise doc.fail(_join(where, "type"), f"{short_repr(kind)} is not a subset type this reader knows (Range, Indices)")


def _substitute(text: str, mapping: dict) -> str:
    """``text`` with names replaced by expressions (a nested SDFG's symbols → the outer ones)."""
    if not mapping:
        return text
    try:
        tree = ast.parse(text.replace("^", "**").strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text  # the evaluator reports it
    replacements = {}
    for name, value in mapping.items():
        try:
            replacements[name] = ast.parse(f"({value})".replace("^", "**"), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue

    class Swap(ast.NodeTransformer):
        def visit_Name(self, node):
            return replacements.get(node.id, node)

    try:
        return ast.unparse(Swap().visit(tree))
    except (RecursionError, ValueError):
        return text


# -- tasklet operation counts -----------------------------------------------------------------------


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


# -- walking an SDFG --------------------------------------------------------------------------------


_EXIT_TYPES = ("MapExit", "ConsumeExit", "PipelineExit")
_ENTRY_TYPES = {"MapEntry": "map", "ConsumeEntry": "consume", "PipelineEntry": "map"}


class _State:
    """One state's nodes and edges, with each node's scope."""

    def __init__(self, doc: _Doc, state, where: str):
        self.doc, self.where = doc, where
        self.label = str(state.get("label", "")) if isinstance(state, dict) else ""
        nodes = doc.get(state, "nodes", list, where, default=[])
        edges = doc.get(state, "edges", list, where, default=[])
        self.nodes = {}  # id -> (index, node)
        for i, n in enumerate(nodes):
            nw = f"{where}.nodes[{i}]"
            doc.get(n, "type", str, nw)
            doc.get(n, "attributes", dict, nw, default={})
            nid = str(doc.get(n, "id", (int, str), nw, default=i))
            if nid in self.nodes:
                raise doc.fail(_join(nw, "id"), f"{nid!r} is the id of two nodes")
            self.nodes[nid] = (i, n)
        self.edges = []  # (index, where, src, dst, edge)
        self.out_edges = defaultdict(list)
        self.in_edges = defaultdict(list)
        for k, e in enumerate(edges):
            ew = f"{where}.edges[{k}]"
            src, dst = str(doc.get(e, "src", (int, str), ew)), str(doc.get(e, "dst", (int, str), ew))
            for key, end in (("src", src), ("dst", dst)):
                if end not in self.nodes:
                    raise doc.fail(_join(ew, key), f"{end!r} is not the id of a node in this state")
            for key in ("src_connector", "dst_connector"):
                doc.get(e, key, str, ew, default=None, allow_none=True)
            item = (k, ew, src, dst, e)
            self.edges.append(item)
            self.out_edges[src].append(item)
            self.in_edges[dst].append(item)
        self._owner = {}
        self._children = None

    def node(self, nid):
        return self.nodes[nid][1]

    def type(self, nid) -> str:
        return self.nodes[nid][1]["type"]

    def attrs(self, nid) -> dict:
        return self.nodes[nid][1].get("attributes") or {}

    def field(self, nid, key=None) -> str:
        w = f"{self.where}.nodes[{self.nodes[nid][0]}]"
        return _join(w, key) if key else w

    def describe(self, nid) -> str:
        n = self.node(nid)
        return f"state {self.label!r}, node {nid} ({n['type']} {str(n.get('label', ''))[:60]!r})"

    def parent(self, nid):
        """The entry of the scope ``nid`` is in (an exit is in its own entry's scope), or None."""
        entry = self.node(nid).get("scope_entry")
        if entry is None:
            return None
        entry = str(entry)
        if entry not in self.nodes:
            raise self.doc.fail(self.field(nid, "scope_entry"), f"{entry!r} is not the id of a node in this state")
        return entry if entry != nid else None  # an exit's scope_entry is its own entry: it is in that scope

    def owner(self, nid):
        """The top-level node whose scope holds ``nid``."""
        if nid in self._owner:
            return self._owner[nid]
        chain, cur = [], nid
        while True:
            chain.append(cur)
            up = self.parent(cur)
            if up is None:
                break
            if len(chain) > len(self.nodes):
                raise self.doc.fail(self.field(nid, "scope_entry"), "scopes form a cycle")
            cur = up
        for c in chain:
            self._owner[c] = cur
        return cur

    def children(self, entry):
        """The nodes directly in the scope opened by ``entry`` (not its exit)."""
        if self._children is None:
            self._children = defaultdict(list)
            for nid in self.nodes:
                if self.type(nid) not in _EXIT_TYPES:
                    self._children[self.parent(nid)].append(nid)
        return self._children.get(entry, [])


class _Walker:
    def __init__(self, doc: _Doc, element_bytes):
        self.doc = doc
        self.element_bytes = element_bytes
        self.issues: list[tuple[str, str]] = []

    def issue(self, reason: str, where: str):
        self.issues.append((reason, where))

    # descriptors ----------------------------------------------------------------------------------
    def elem_bytes(self, arrays, data: str, where: str) -> int | None:
        eb = self.element_bytes
        if isinstance(eb, dict) and data in eb:
            return int(eb[data])
        if eb is not None and not isinstance(eb, dict):
            return int(eb)
        desc = arrays.get(data)
        dtype = _dig(desc, "attributes").get("dtype")
        if isinstance(dtype, str) and dtype in ELEMENT_BYTES:
            return ELEMENT_BYTES[dtype]
        self.issue(UNKNOWN_DTYPE, f"{where}: container {data!r} has dtype={short_repr(dtype)}")
        return None

    @staticmethod
    def is_view(arrays, data) -> bool:
        desc = arrays.get(data)
        return isinstance(desc, dict) and isinstance(desc.get("type"), str) and desc["type"].endswith("View")

    # memlets --------------------------------------------------------------------------------------
    def memlet(self, edge, where) -> dict:
        attrs = self.doc.get(edge, "attributes", dict, where)
        data = self.doc.get(attrs, "data", dict, _join(where, "attributes"))
        return self.doc.get(data, "attributes", dict, _join(where, "attributes.data"), default={})

    def volume(self, memlet, where: str, describe: str) -> str | None:
        """The memlet's volume as an expression; None (reported) when dynamic."""
        key = "volume" if "volume" in memlet else "num_accesses"
        text = self.doc.expr(memlet, key, _join(where, "attributes.data.attributes"), default="0")
        if memlet.get("dynamic") is True or text.strip() == "-1":
            self.issue(DYNAMIC, f"{describe}: volume={text!r}")
            return None
        return text

    def sizes(self, memlet, where):
        return _subset_sizes(self.doc, memlet.get("subset"), _join(where, "attributes.data.attributes.subset"))

    # an SDFG ----------------------------------------------------------------------------------------
    def sdfg(self, sdfg, where: str, depth: int = 0, *, ops_only: bool = False):
        """Phases of one SDFG in state order, and the names its interstate edges assign."""
        doc = self.doc
        if depth > MAX_NESTING:
            raise doc.fail(where or "nodes", f"nested SDFGs deeper than {MAX_NESTING} levels")
        attrs = doc.get(sdfg, "attributes", dict, where)
        arrays = doc.get(attrs, "_arrays", dict, _join(where, "attributes"), default={})
        blocks = doc.get(sdfg, "nodes", list, where)
        edges = doc.get(sdfg, "edges", list, where, default=[])
        ids = {}
        for i, block in enumerate(blocks):
            bw = _join(_join(where, "nodes"), i)
            kind = doc.get(block, "type", str, bw)
            if kind != "SDFGState":
                raise doc.fail(
                    _join(bw, "type"),
                    f"{short_repr(kind)} is a control-flow block of an SDFG layout this "
                    "reader does not know (it reads states joined by interstate "
                    "edges, as dace 0.x–1.0 write them)",
                )
            ids[str(doc.get(block, "id", (int, str), bw, default=i))] = i
        succ = defaultdict(list)
        assigned = set()
        for k, e in enumerate(edges):
            ew = _join(_join(where, "edges"), k)
            src, dst = str(doc.get(e, "src", (int, str), ew)), str(doc.get(e, "dst", (int, str), ew))
            for key, end in (("src", src), ("dst", dst)):
                if end not in ids:
                    raise doc.fail(_join(ew, key), f"{end!r} is not the id of a state")
            succ[ids[src]].append(ids[dst])
            data = _dig(e, "attributes", "data", "attributes")
            if isinstance(data.get("assignments"), dict):
                assigned |= set(data["assignments"])
        start = sdfg.get("start_block", sdfg.get("start_state"))
        start = ids.get(str(start), 0) if start is not None else 0
        order, back = _order_states(len(blocks), succ, start)
        preds = defaultdict(list)
        for s, ds in succ.items():
            for d in ds:
                if (s, d) not in back:
                    preds[d].append(s)
        cyclic = _in_cycle(len(blocks), succ)

        phases: list[SDFGPhase] = []
        exits: dict[int, list[str]] = {}
        versions: dict[str, int] = {}
        current: dict[str, str] = {}
        tensors: dict[str, str] = {}
        names = Counter()
        for index in order:
            block = blocks[index]
            bw = _join(_join(where, "nodes"), index)
            state = _State(doc, block, bw)
            mult = self.executions(block, state.label, index in cyclic, bw)
            entering = sorted({p for pred in preds[index] for p in exits.get(pred, [])})
            made, sinks = self.state(
                state, arrays, mult, depth, entering, versions, current, tensors, names, ops_only=ops_only
            )
            phases.extend(made)
            exits[index] = sinks if made else entering
        return phases, assigned, tensors

    def executions(self, block, label: str, in_loop: bool, where: str) -> str:
        attrs = block.get("attributes") if isinstance(block.get("attributes"), dict) else {}
        ex = attrs.get("executions")
        dynamic = attrs.get("dynamic_executions", ex is None)
        if ex is not None and not isinstance(ex, (str, int)):
            raise self.doc.fail(_join(where, "attributes.executions"), f"{short_repr(ex)} is not an expression")
        has_work = bool(block.get("nodes"))
        if ex is not None and not dynamic:
            return str(ex)
        if in_loop and has_work:
            if ex is None:
                self.issue(
                    LOOP_EXECUTIONS,
                    f"state {label!r}: counted once (save the SDFG after "
                    "dace.sdfg.propagation.propagate_states to record its executions)",
                )
            else:
                self.issue(DYNAMIC_EXECUTIONS, f"state {label!r}: executions={ex!r} is a bound; counted once")
        return "1"

    # a state ----------------------------------------------------------------------------------------
    def state(
        self, st: _State, arrays, mult: str, depth: int, entering, versions, current, tensors, names, *, ops_only
    ):
        access = {nid for nid in st.nodes if st.type(nid) == "AccessNode" and st.owner(nid) == nid}
        data_of = {}
        for nid in access:
            data_of[nid] = self.doc.get(st.attrs(nid), "data", str, st.field(nid, "attributes"))
        tops = [nid for nid in st.nodes if st.owner(nid) == nid and nid not in access]

        # views are the container they view: follow view → viewed access node
        alias = {}
        for _, _, src, dst, _ in st.edges:
            if src in access and dst in access:
                if self.is_view(arrays, data_of[dst]) and dst not in alias:
                    alias[dst] = src
                elif self.is_view(arrays, data_of[src]) and src not in alias:
                    alias[src] = dst

        def resolve(nid):
            seen = 0
            while nid in alias and seen <= len(alias):
                nid, seen = alias[nid], seen + 1
            return nid

        # units: access nodes (resolved) and phases (top-level scopes, and copies); edges among them
        phase_keys = list(tops)
        unit_in, unit_out = defaultdict(list), defaultdict(list)
        reads, writes = defaultdict(list), defaultdict(list)  # phase key -> [(access, memlet, where, data)]
        direct = []
        copies = {}
        for k, ew, src, dst, e in st.edges:
            so, do = st.owner(src), st.owner(dst)
            if so == do:
                continue
            if so in access and do in access:
                a, b = resolve(so), resolve(do)
                if a == b or so in alias and alias[so] == do or do in alias and alias[do] == so:
                    continue
                key = ("copy", k)  # never equal to a node id
                copies[key] = (a, b, ew, e)
                phase_keys.append(key)
                unit_out[a].append(key), unit_in[key].append(a)
                unit_out[key].append(b), unit_in[b].append(key)
            elif so in access:
                a = resolve(so)
                reads[do].append((a, e, ew))
                unit_out[a].append(do), unit_in[do].append(a)
            elif do in access:
                b = resolve(do)
                writes[so].append((b, e, ew))
                unit_out[so].append(b), unit_in[b].append(so)
            else:
                direct.append((so, do))
                unit_out[so].append(do), unit_in[do].append(so)
                self.issue(DIRECT_EDGE, f"{st.describe(so)} → {st.describe(do)}: a dependency only")
        units = [resolve(a) for a in access if resolve(a) == a] + phase_keys
        is_phase = set(phase_keys)
        order = _toposort(units, unit_out)
        if order is None:
            raise self.doc.fail(st.where, "the dataflow graph of this state has a cycle")

        # tensor versions, in dataflow order
        tensor_of = {}
        extra_writes = {}  # (access, writer) -> tensor, for access nodes with several writers
        for u in order:
            if u not in access:
                continue
            data = data_of[u]
            writers = [w for w in unit_in[u]]
            if not writers:
                if data not in current:
                    versions[data] = 1
                    current[data] = data
                    tensors[data] = data
                tensor_of[u] = current[data]
                continue
            for i, w in enumerate(writers):
                versions[data] = versions.get(data, 0) + 1
                name = data if versions[data] == 1 else f"{data}@{versions[data]}"
                tensors[name] = data
                if i == 0:
                    tensor_of[u] = name
                else:
                    extra_writes[(u, w)] = name
            current[data] = tensor_of[u]

        # phases
        made = {}
        for u in order:
            if u not in is_phase:
                continue
            if u in copies:
                a, b, ew, e = copies[u]
                label = f"copy {data_of[a]} → {data_of[b]}"
                phase = SDFGPhase(self.unique(names, label), "copy", st.label, ew)
                if not ops_only:
                    memlet = self.memlet(e, ew)
                    vol = self.volume(memlet, ew, f"{phase.name} ({ew})")
                    for side, target, store in (
                        (a, tensor_of[a], phase.reads),
                        (b, extra_writes.get((b, u), tensor_of[b]), phase.writes),
                    ):
                        eb = self.elem_bytes(arrays, data_of[side], phase.name)
                        if vol is not None and eb is not None:
                            store.setdefault(target, []).append((_product(vol, str(eb), mult), ew))
            else:
                kind = st.type(u)
                label = self.label(st, u)
                phase = SDFGPhase(
                    self.unique(names, label),
                    _ENTRY_TYPES.get(
                        kind, {"Tasklet": "tasklet", "LibraryNode": "library", "NestedSDFG": "nested"}.get(kind, "node")
                    ),
                    st.label,
                    st.field(u),
                )
                phase.ops = [(_product(mult, t), w) for t, w in self.node_ops(st, u, arrays, depth)]
                if kind == "MapEntry" and not ops_only:
                    try:
                        phase.map = self.map_memlets(st, u, arrays)
                    except WorkloadFileError as error:  # only the local view needs these: the import goes on
                        phase.map = {"error": str(error)}
                if not ops_only:
                    for target_map, edges_, side in (
                        (phase.reads, reads[u], "read"),
                        (phase.writes, writes[u], "write"),
                    ):
                        for acc, e, ew in edges_:
                            memlet = self.memlet(e, ew)
                            if memlet.get("data") is None:
                                continue  # an empty memlet: a dependency only
                            vol = self.volume(memlet, ew, f"{phase.name} {side} of {data_of[acc]!r} ({ew})")
                            eb = self.elem_bytes(arrays, data_of[acc], f"{phase.name} ({ew})")
                            tensor = tensor_of[acc] if side == "read" else extra_writes.get((acc, u), tensor_of[acc])
                            if vol is not None and eb is not None:
                                target_map.setdefault(tensor, []).append((_product(vol, str(eb), mult), ew))
            made[u] = phase

        # dependencies: writers of each read access node (several writers), direct edges, state order
        for u, phase in made.items():
            after = []
            for a in unit_in[u]:
                if a in access:
                    after.extend(made[w].name for w in unit_in[a] if w in made)
                elif a in made:
                    after.append(made[a].name)
            has_pred = bool(after)
            if not has_pred:
                after.extend(entering)
            phase.after = list(dict.fromkeys(n for n in after if n != phase.name))

        def reaches_phase(u, graph, memo):
            if u in memo:
                return memo[u]
            memo[u] = False
            memo[u] = any(v in made or reaches_phase(v, graph, memo) for v in graph[u])
            return memo[u]

        memo = {}
        sinks = [made[u].name for u in order if u in made and not reaches_phase(u, unit_out, memo)]
        return [made[u] for u in order if u in made], sinks

    @staticmethod
    def unique(names: Counter, label: str) -> str:
        names[label] += 1
        return label if names[label] == 1 else f"{label}#{names[label]}"

    def label(self, st: _State, nid) -> str:
        attrs = st.attrs(nid)
        n = st.node(nid)
        for value in (attrs.get("label"), attrs.get("name"), n.get("label")):
            if isinstance(value, str) and value:
                return value
        return f"{n['type']} {nid}"

    def map_memlets(self, st: _State, entry, arrays) -> dict:
        """A map's ``params``, ``ranges`` ([start, end, step] texts) and the memlets inside it that cross
        its entry (``reads``) and its exit (``writes``), in file order: {data, subset ([start, end, step]
        per dimension), wcr, dynamic, where}; ``dtypes``: each container's dtype (None if not given)."""
        attrs = st.attrs(entry)
        body = attrs.get("map") if isinstance(attrs.get("map"), dict) else attrs
        body = body.get("attributes", body) if isinstance(body.get("attributes"), dict) else body
        where = st.field(entry, "attributes")
        params = [str(x) for x in self.doc.get(body, "params", list, where, default=[])]
        ranges = _subset_ranges(self.doc, body.get("range"), _join(where, "range")) or []
        exits = [
            nid for nid in st.nodes if st.type(nid) in _EXIT_TYPES and str(st.node(nid).get("scope_entry")) == entry
        ]

        def memlets(edges):
            out = []
            for _, ew, _, _, e in edges:
                memlet = self.memlet(e, ew)
                if memlet.get("data") is None:
                    continue  # an empty memlet: a dependency only
                out.append(
                    {
                        "data": str(memlet["data"]),
                        "where": ew,
                        "subset": _subset_ranges(
                            self.doc, memlet.get("subset"), _join(ew, "attributes.data.attributes.subset")
                        ),
                        "wcr": memlet.get("wcr"),
                        "dynamic": memlet.get("dynamic") is True,
                    }
                )
            return out

        reads = memlets(st.out_edges[entry])
        writes = memlets([item for x in exits for item in st.in_edges[x]])
        dtypes = {}
        for m in reads + writes:
            dtype = _dig(arrays.get(m["data"]), "attributes").get("dtype")
            dtypes[m["data"]] = dtype if isinstance(dtype, str) else None
        return {
            "params": params,
            "ranges": ranges,
            "reads": reads,
            "writes": writes,
            "dtypes": dtypes,
            "where": st.field(entry),
        }

    # ops ------------------------------------------------------------------------------------------
    def node_ops(self, st: _State, nid, arrays, depth) -> list[tuple[str, str]]:
        """Ops terms of one node and everything in its scope."""
        kind = st.type(nid)
        where = st.field(nid)
        terms: list[tuple[str, str]] = []
        if kind in _ENTRY_TYPES:
            inner = []
            for child in st.children(nid):
                inner.extend(self.node_ops(st, child, arrays, depth))
            if kind == "ConsumeEntry":
                if inner:
                    self.issue(
                        NOT_UNDERSTOOD,
                        f"{st.describe(nid)}: a consume scope runs a data-dependent "
                        "number of times; its contents are counted once",
                    )
                return inner
            rng = self.doc.get(st.attrs(nid), "range", dict, st.field(nid, "attributes"))
            sizes = _subset_sizes(self.doc, rng, st.field(nid, "attributes.range"))
            iterations = _product(*sizes)
            constant = sum(int(t) for t, _ in inner if t.isdigit())
            inner = [(t, w) for t, w in inner if not t.isdigit()]
            if constant:
                inner.insert(0, (str(constant), where))
            return [(_product(iterations, t), w) for t, w in inner]
        if kind == "Tasklet":
            terms.extend(self.tasklet_ops(st, nid))
        elif kind == "LibraryNode":
            terms.extend(self.library_ops(st, nid))
        elif kind == "NestedSDFG":
            terms.extend(self.nested_ops(st, nid, depth))
        elif kind == "AccessNode":
            pass
        else:
            self.issue(UNKNOWN_NODE, f"{st.describe(nid)}: ops not counted")
        # write-conflict resolution: one op per element written
        for _, ew, _, _, e in st.out_edges[nid]:
            memlet = self.memlet(e, ew)
            if memlet.get("wcr") and memlet.get("data") is not None:
                vol = self.volume(memlet, ew, f"{st.describe(nid)} reduction ({ew})")
                if vol is not None:
                    terms.append((vol, ew))
        return terms

    def tasklet_ops(self, st: _State, nid):
        attrs = st.attrs(nid)
        code = attrs.get("code")
        where = st.field(nid, "attributes.code")
        if not isinstance(code, dict):
            raise self.doc.fail(where, f"{short_repr(code)} is not a code block")
        language = code.get("language", "Python")
        text = code.get("string_data", "")
        if not isinstance(text, str):
            raise self.doc.fail(_join(where, "string_data"), f"{short_repr(text)} is not text")
        if language != "Python":
            self.issue(NOT_PYTHON, f"{st.describe(nid)}: language={language!r}; ops not counted")
            return []
        try:
            count, unknown = count_tasklet_ops(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
            self.issue(
                NOT_UNDERSTOOD, f"{st.describe(nid)}: the code does not parse ({type(e).__name__}); ops not counted"
            )
            return []
        for name in unknown:
            self.issue(UNKNOWN_FUNCTION, f"{st.describe(nid)}: {name}() counted as 0 ops")
        return [(str(count), where)] if count else []

    def library_ops(self, st: _State, nid):
        node = st.node(nid)
        classpath = node.get("classpath")
        kind = classpath.rsplit(".", 1)[-1] if isinstance(classpath, str) else str(node.get("label", ""))
        where = st.field(nid)
        ins = {e[4].get("dst_connector"): (e[4], e[1]) for e in st.in_edges[nid]}
        outs = {e[4].get("src_connector"): (e[4], e[1]) for e in st.out_edges[nid]}

        def dims(table, conn):
            if conn not in table:
                return None
            e, ew = table[conn]
            return self.sizes(self.memlet(e, ew), ew)

        attrs = st.attrs(nid)
        formula = None
        if kind in ("MatMul", "BatchedMatMul", "Gemm"):
            a, c = dims(ins, "_a"), dims(outs, "_c")
            if a and c:
                k = a[0] if kind == "Gemm" and attrs.get("transA") is True and len(a) >= 2 else a[-1]
                formula = _product("2", *c, k)
        elif kind == "Gemv":
            x, y = dims(ins, "_x"), dims(outs, "_y")
            if x and y:
                formula = _product("2", *y, *x)
        elif kind == "Dot":
            x = dims(ins, "_x")
            if x:
                formula = _product("2", *x)
        elif kind == "Reduce":
            sizes = next((dims(ins, conn) for conn in ins), None)
            if sizes:
                formula = _product(*sizes)
        elif kind == "Transpose":
            return []
        if formula is None:
            why = "no formula for this library node" if kind not in LIBRARY_OPS else "its memlets lack subsets"
            self.issue(UNKNOWN_LIBRARY, f"{st.describe(nid)}: {kind} ({why}); ops not counted")
            return []
        return [(formula, where)]

    def nested_ops(self, st: _State, nid, depth):
        attrs = st.attrs(nid)
        where = st.field(nid, "attributes")
        inner = self.doc.get(attrs, "sdfg", dict, where)
        mapping = self.doc.get(attrs, "symbol_mapping", dict, where, default={})
        mapping = {str(k): str(v) for k, v in mapping.items() if isinstance(v, (str, int))}
        phases, _, _ = self.sdfg(inner, _join(where, "sdfg"), depth + 1, ops_only=True)
        return [(_substitute(t, mapping), w) for p in phases for t, w in p.ops]


def _dig(obj, *keys) -> dict:
    """``obj[k1][k2]…`` when each level is a mapping, else ``{}`` (for optional attributes)."""
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if isinstance(obj, dict) else {}


def _toposort(units, out):
    indegree = {u: 0 for u in units}
    for u in units:
        for v in out[u]:
            if v in indegree:
                indegree[v] += 1
    ready = deque(u for u in units if indegree[u] == 0)
    order = []
    while ready:
        u = ready.popleft()
        order.append(u)
        for v in out[u]:
            if v in indegree:
                indegree[v] -= 1
                if indegree[v] == 0:
                    ready.append(v)
    return order if len(order) == len(units) else None


def _order_states(n: int, succ, start: int):
    """States in execution order (depth-first from the start, back edges dropped), and the back edges."""
    if n == 0:
        return [], set()
    color = [0] * n
    back = set()
    post = []
    for root in [start] + [i for i in range(n) if i != start]:
        if color[root]:
            continue
        stack = [(root, iter(succ[root]))]
        color[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[node] = 2
                post.append(node)
                stack.pop()
            elif color[nxt] == 1:
                back.add((node, nxt))
            elif color[nxt] == 0:
                color[nxt] = 1
                stack.append((nxt, iter(succ[nxt])))
    return post[::-1], back


def _in_cycle(n: int, succ) -> set:
    """States on a cycle of the state graph (a loop body runs more than once): Tarjan's strongly
    connected components, iteratively; a state is on a cycle if its component has several states or
    it has an edge to itself."""
    index, low, on_stack, stack, out = {}, {}, set(), [], set()
    counter = 0
    for root in range(n):
        if root in index:
            continue
        work = [(root, iter(succ[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(succ[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    x = stack.pop()
                    on_stack.discard(x)
                    component.append(x)
                    if x == node:
                        break
                if len(component) > 1 or node in succ[node]:
                    out.update(component)
    return out


# -- the public functions ---------------------------------------------------------------------------


def extract_sdfg(path, *, element_bytes=None) -> SDFGProgram:
    """The phases of an SDFG file with every number still an expression in the SDFG's symbols.

    ``path`` is a file path or a ``campaign_widget.io.Source``. ``element_bytes``: an int for every
    container, or ``{container: bytes}`` (others from their ``dtype``). Raises ``WorkloadFileError``
    on a file that is not a readable SDFG.
    """
    name, raw = _raw_bytes(path)
    element_bytes = _checked_element_bytes(name, element_bytes)
    document = _document(name, raw)
    doc = _Doc(name)
    walker = _Walker(doc, element_bytes)
    attrs = doc.get(document, "attributes", dict, "")
    symbols = doc.get(attrs, "symbols", dict, "attributes", default={})
    constants = {}
    for key, value in (doc.get(attrs, "constants_prop", dict, "attributes", default={}) or {}).items():
        number = value[1] if isinstance(value, list) and len(value) == 2 else value
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            constants[str(key)] = number
    try:
        phases, assigned, tensors = walker.sdfg(document, "")
    except RecursionError:
        raise _error(name, "the SDFG is nested too deeply") from None
    except WorkloadFileError:
        raise
    except (AttributeError, TypeError, KeyError, IndexError, ValueError) as e:  # a layout not checked field by field
        raise _error(name, f"malformed SDFG ({type(e).__name__}: {str(e)[:200]})") from None
    program_name = attrs.get("name") if isinstance(attrs.get("name"), str) else Path(name).stem
    return SDFGProgram(
        path=name,
        name=program_name,
        dace_version=document.get("dace_version"),
        symbols={str(k): str(v) for k, v in symbols.items() if k not in assigned},
        constants=constants,
        phases=phases,
        tensors=tensors,
        issues=walker.issues,
    )


def _checked_element_bytes(name, element_bytes):
    if element_bytes is None:
        return None
    if isinstance(element_bytes, dict):
        for key, value in element_bytes.items():
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"element_bytes[{key!r}]={value!r} must be a positive whole number of bytes")
        return dict(element_bytes)
    if not isinstance(element_bytes, int) or isinstance(element_bytes, bool) or element_bytes <= 0:
        raise ValueError(
            f"element_bytes={element_bytes!r} must be a positive whole number of bytes or a "
            "mapping {container: bytes}"
        )
    return element_bytes


def _parameter_values(program: SDFGProgram, params) -> tuple[dict, dict]:
    """(values, where each came from): ``params=`` first, then the SDFG's constants."""
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"params={short_repr(params)} must map the SDFG's symbols to whole numbers")
    params = dict(params or {})
    unknown = sorted(str(k) for k in set(params) - set(program.symbols))
    if unknown:
        raise _error(
            program.path,
            f"params {unknown} are not symbols of this SDFG; its symbols: {sorted(program.symbols)}",
            field="params",
        )
    values, source = {}, {}
    for key in program.parameters:
        if key in params:
            value, source[key], where = params[key], "params=", f"params[{key!r}]"
        elif key in program.constants:
            value, source[key], where = program.constants[key], "SDFG constant", f"attributes.constants_prop.{key}"
        else:
            continue
        whole = isinstance(value, numbers.Integral) or isinstance(value, float) and value.is_integer()
        if isinstance(value, bool) or not whole or value < 1:
            raise _error(
                program.path,
                f"symbol {key!r}={short_repr(value)} (from {source[key]}) must be a whole number >= 1",
                field=where,
            )
        values[key] = int(value)
    missing = [key for key in program.parameters if key not in values]
    if missing:
        raise _error(
            program.path,
            f"symbols {missing} need values: pass params={{"
            + ", ".join(f"{k!r}: ..." for k in missing)
            + "} (the SDFG's constants give "
            + (", ".join(sorted(program.constants)) or "none")
            + ")",
            field="params",
        )
    return values, source


def _sum_terms(texts: list[str]) -> str:
    """One expression for a sum of terms: whole numbers added up, repeated terms counted once with a factor."""
    constant = sum(int(t) for t in texts if t.isdigit())
    counts = Counter(t for t in texts if not t.isdigit())
    parts = [(_product(str(n), t) if n > 1 else t) for t, n in counts.items()]
    if constant or not parts:
        parts.append(str(constant))
    return " + ".join(_paren(p) if len(parts) > 1 else p for p in parts)


def read_sdfg(path, *, machine=None, params=None, element_bytes=None, percent: bool = False):
    """Read a DaCe SDFG (``.sdfg`` JSON or ``.sdfgz`` gzip) into a ``Workload`` (see the module docstring).

    The SDFG's symbols become the workload's parameters: its phases' ops and tensor bytes are
    expressions in them (``workload.params``; ``workload.with_params(M=128)`` re-evaluates).
    ``params``: their values (``{"M": 64, ...}``); symbols not given take the SDFG's constants; any
    left over is an error listing them. ``machine``: a ``Machine`` (default: unit peaks, so durations
    are in op/byte units). ``element_bytes``: an int for every container or ``{container: bytes}``;
    default: each container's ``dtype``.

    The workload carries ``workload.import_report`` (an ``ImportReport``): per phase the ops and
    bytes expressions, and everything left out, by reason.
    """
    name = path.name if isinstance(path, Source) else str(path)
    check_percent(name, percent)
    check_machine(machine)
    program = extract_sdfg(path, element_bytes=element_bytes)
    values, value_source = _parameter_values(program, params)
    report = ImportReport(path=name, format=FORMAT)
    for reason, where in program.issues:
        _skip(report, reason, where)

    def kept(terms, what) -> tuple[str | None, bool]:
        """The terms the evaluator understands, as one expression (None if none), and whether any was left out."""
        texts, partial = [], False
        for text, where in terms:
            try:
                expr = parse(text)
                loose = sorted(expr.names - set(values))
                if loose:
                    raise ExpressionError(f"names {loose} are not symbols of the SDFG")
                v = expr.evaluate(values)
            except ExpressionError as e:
                _skip(report, NOT_UNDERSTOOD, f"{what} ({where}): {text!r}: {e}")
                partial = True
                continue
            if v < 0:
                _skip(report, NEGATIVE, f"{what} ({where}): {text!r} = {v} with {values}; left out")
                partial = True
                continue
            if v == 0:
                if not expr.names:  # zero at every size: nothing to follow
                    _skip(report, ZERO, f"{what} ({where}): {text!r} = 0; left out")
                    partial = True
                    continue
                _skip(report, ZERO, f"{what} ({where}): {text!r} = 0 with {values}; kept for other values")
            texts.append(text)
        if not texts:
            return None, partial
        total = _sum_terms(texts)
        if len(total) > MAX_TEXT:  # too long for a parameter slider to re-evaluate: fixed at these values
            total = str(sum(parse(t).evaluate(values) for t in texts))
            report.notes.append(
                f"{what}: expression over {MAX_TEXT} characters; fixed at {total} (does not follow with_params)"
            )
        return total, partial

    built = []
    for p in program.phases:
        ops, partial_ops = kept(p.ops, f"{p.name} ops") if p.ops else (None, False)
        reads, writes, partial_bytes = {}, {}, False
        for store, table, side in ((reads, p.reads, "read"), (writes, p.writes, "write")):
            for tensor, terms in table.items():
                total, partial = kept(terms, f"{p.name} {side} of {tensor!r}")
                partial_bytes |= partial
                if total is not None:
                    store[tensor] = total
        built.append((p, ops, reads, writes, partial_ops, partial_bytes))

    # phases with nothing to count are left out; those after them inherit their dependencies
    dropped = {p.name: p.after for p, ops, reads, writes, *_ in built if ops is None and not reads and not writes}
    for gone in dropped:
        _skip(report, NO_WORK, gone)

    def resolved(after, seen=()):
        out = []
        for a in after:
            if a in dropped and a not in seen:
                out.extend(resolved(dropped[a], (*seen, a)))
            elif a not in dropped:
                out.append(a)
        return out

    phases, kept_phases = [], []
    for p, ops, reads, writes, partial_ops, partial_bytes in built:
        if p.name in dropped:
            continue
        try:
            phases.append(
                Phase(
                    p.name,
                    ops=ops if ops is not None else 0,
                    reads=reads,
                    writes=writes,
                    after=tuple(dict.fromkeys(resolved(p.after))),
                )
            )
        except (WorkloadError, TypeError) as e:
            raise _error(name, str(e), field=p.node) from None
        kept_phases.append((p, ops, reads, writes, partial_ops, partial_bytes))
    if not phases:
        raise _error(
            name,
            "the SDFG has no phase that moves data or computes (states: "
            f"{len({p.state for p in program.phases})}, phases left out: {len(dropped)})",
        )
    if machine is None:
        machine = Machine.unit()
        report.machine_source = "unit peaks (pass machine= for durations in seconds)"
    report.notes.append("parameters: " + (", ".join(f"{k}={values[k]} ({value_source[k]})" for k in values) or "none"))
    report.notes.append("bytes are DaCe's logical memlet volumes × element size (no caches)")
    try:
        workload = Workload(phases, machine=machine, params=values)
    except (WorkloadError, TypeError) as e:
        raise _error(name, str(e)) from e
    index = {n: i for i, n in enumerate(workload.names)}
    arrays = workload.arrays
    for p, ops, reads, writes, partial_ops, partial_bytes in kept_phases:
        i = index[p.name]
        report.phases.append(
            PhaseReport(
                name=p.name,
                duration=float(arrays.duration[i]),
                ops=float(arrays.ops[i]),
                bytes=float(arrays.bytes[i]),
                flops="computed" if ops is not None or p.kind == "copy" else "unknown",
                bytes_source="memlet volumes",
                partial_flops=partial_ops,
                partial_bytes=partial_bytes,
                details={
                    "kind": p.kind,
                    "state": p.state,
                    "node": p.node,
                    "ops": ops or "0",
                    "reads": reads,
                    "writes": writes,
                },
            )
        )
    report.warn_skipped(stacklevel=3)
    return workload.with_import_report(report)


def _skip(report, reason: str, where: str) -> None:
    report.skipped[reason] += 1
    report.skipped_detail.setdefault(reason, []).append(where)


def sniff(source: Source) -> bool:
    """An SDFG by its suffix (``.sdfg``, ``.sdfgz``) or by content (JSON whose top-level type is ``SDFG``)."""
    if source.suffix in SUFFIXES:
        return True
    raw = source.raw[:SNIFF_BYTES]
    if raw[:2] == GZIP_MAGIC:
        try:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, SNIFF_BYTES)
        except zlib.error:
            return False
    head = raw.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    return re.match(r'\{\s*"type"\s*:\s*"SDFG"', head) is not None  # dace writes the type first


def read(source: Source, *, machine=None, percent=False, **options):
    """``load()``'s entry point: :func:`read_sdfg` with ``params=``, ``element_bytes=``."""
    return read_sdfg(source, machine=machine, percent=percent, **options)


# -- one map as a loop nest of single-element accesses (the local view) ------------------------------


@dataclass(frozen=True)
class SDFGMap:
    """One map of an SDFG as the loop nest its tasklets run: each memlet crossing the map's entry
    (a read) or exit (the write) is one access per iteration, its subset's start the index expression.

    ``params``: the map's parameters, outermost first; ``starts``/``steps``: each one's range start and
    step; ``sizes``: its iteration count at the symbol values (None where a symbol has no value).
    ``einsum``: the accesses as an ``Einsum`` whose loop indices run from 0 (index ``i`` stands for
    ``start + step·i``), reads in the file's memlet order, then the write; ``element_bytes``: per
    container; ``unused``: parameters no memlet uses (left out of the loop nest); ``notes``: what the
    trace takes as given (write-conflict resolution, dynamic memlets)."""

    path: str
    phase: str
    params: tuple
    starts: dict
    steps: dict
    sizes: dict
    einsum: object
    element_bytes: dict
    unused: tuple = ()
    notes: tuple = ()

    @property
    def loop_order(self) -> list:
        """The map's parameters that index some memlet, outermost first."""
        return [p for p in self.params if p not in self.unused]


def map_accesses(path, phase: str, *, params=None, element_bytes=None) -> SDFGMap:
    """The map named ``phase`` (as ``read_sdfg`` names the phase: its label, ``#2`` … when repeated) of an
    SDFG file as a loop nest of single-element accesses (``SDFGMap``), for ``LocalView.from_sdfg``.

    ``params``: values of the SDFG's symbols that the map's ranges or its memlets' index expressions
    use (the SDFG's constants fill in the rest). ``element_bytes``: an int for every container or
    ``{container: bytes}``; default each container's ``dtype``. A memlet that moves a range rather
    than one element, a map writing several memlets, or a symbol without a value raise a
    ``WorkloadError`` naming the phase, the memlet and the value.
    """
    from ..einsum import Einsum
    from ..expr import evaluate as evaluate_expr

    program = extract_sdfg(path, element_bytes=element_bytes)
    maps = [p.name for p in program.phases if p.map is not None]
    found = [p for p in program.phases if p.name == phase]
    if not found:
        raise WorkloadError(f"SDFG {program.path!r} has no phase {phase!r}; its maps: {maps}")
    p = found[0]
    if p.map is None:
        raise WorkloadError(f"SDFG {program.path!r}: phase {phase!r} is a {p.kind}, not a map; its maps: {maps}")
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"params={short_repr(params)} must map the SDFG's symbols to whole numbers")
    values = {**program.constants, **dict(params or {})}
    unknown = sorted(str(k) for k in (params or {}) if k not in program.symbols)
    if unknown:
        raise WorkloadError(
            f"SDFG {program.path!r}: params {unknown} are not symbols of this SDFG; its symbols: "
            f"{sorted(program.symbols)}"
        )
    m = p.map
    if "error" in m:
        raise WorkloadError(f"SDFG {program.path!r}: map {phase!r} cannot be traced: {m['error']}")
    names = list(m["params"])
    if len(m["ranges"]) != len(names):
        raise WorkloadError(
            f"SDFG {program.path!r}, map {phase!r}: {len(names)} parameters {names} but "
            f"{len(m['ranges'])} ranges ({m['where']})"
        )

    def number(text: str, what: str) -> int | None:
        try:
            value = evaluate_expr(text, values)
        except WorkloadError as error:
            missing = sorted(parse(text).names - set(values)) if _parses(text) else []
            if missing:
                hint = "params={" + ", ".join(f"{k!r}: ..." for k in missing) + "}"
                raise WorkloadError(
                    f"SDFG {program.path!r}, map {phase!r}: {what} {text!r} needs values for {missing}: pass {hint}"
                ) from None
            raise WorkloadError(f"SDFG {program.path!r}, map {phase!r}: {what} {text!r}: {error}") from None
        if int(value) != value:
            raise WorkloadError(f"SDFG {program.path!r}, map {phase!r}: {what} {text!r} = {value} is not whole")
        return int(value)

    starts, steps, sizes = {}, {}, {}
    for name, (start, end, step) in zip(names, m["ranges"]):
        starts[name] = number(start, f"the range start of {name!r}")
        steps[name] = number(step, f"the range step of {name!r}")
        if steps[name] < 1:
            raise WorkloadError(
                f"SDFG {program.path!r}, map {phase!r}: {name!r} has step {step!r}; the local view "
                "traces maps with positive steps"
            )
        try:
            sizes[name] = (number(end, f"the range end of {name!r}") - starts[name]) // steps[name] + 1
        except WorkloadError:
            sizes[name] = None  # the view takes local sizes; the full size is for information

    shift = {
        n: (f"{steps[n]}*{n}" if steps[n] != 1 else n) + (f" + {starts[n]}" if starts[n] else "")
        for n in names
        if starts[n] or steps[n] != 1
    }

    def index(memlet: dict, side: str) -> tuple:
        subset = memlet["subset"]
        what = f"SDFG {program.path!r}, map {phase!r}: the {side} of {memlet['data']!r} ({memlet['where']})"
        if not subset:
            raise WorkloadError(f"{what} has no subset")
        out = []
        for start, end, _ in subset:
            a, b = _linear(start, {}), _linear(end, {})
            if not (a == b if a is not None and b is not None else start.strip() == end.strip()):
                shown = ", ".join(a if a == b else f"{a}:{b}" for a, b, _ in subset)
                raise WorkloadError(
                    f"{what} moves {memlet['data']}[{shown}], a range, not one element: the local "
                    "view traces maps whose memlets are single-element accesses"
                )
            text = _substitute(start, {**shift, **{k: str(v) for k, v in values.items() if k not in names}})
            loose = sorted((parse(text).names if _parses(text) else set()) - set(names))
            if loose:
                raise WorkloadError(
                    f"{what}: index {start!r} uses {loose}, which have no values: pass params={{"
                    + ", ".join(f"{k!r}: ..." for k in loose)
                    + "}"
                )
            out.append(_linear_text(text, names))
        return tuple(out)

    if not m["writes"]:
        raise WorkloadError(f"SDFG {program.path!r}, map {phase!r} writes nothing the view could trace")
    if len(m["writes"]) > 1:
        shown = [f"{w['data']} ({w['where']})" for w in m["writes"]]
        raise WorkloadError(
            f"SDFG {program.path!r}, map {phase!r} writes {len(shown)} memlets {shown}; the local "
            "view traces maps with one written element per iteration"
        )
    reads = [(r["data"], index(r, "read")) for r in m["reads"]]
    write = m["writes"][0]
    out_exprs = index(write, "write")
    used = {
        n
        for _, xs in [*reads, (write["data"], out_exprs)]
        for x in xs
        for n in names
        if _parses(x) and n in parse(x).names
    }
    first = lambda xs: tuple(dict.fromkeys(n for x in xs for n in names if _parses(x) and n in parse(x).names))  # noqa: E731
    einsum = Einsum(
        phase,
        write["data"],
        first(out_exprs),
        tuple((t, first(xs)) for t, xs in reads if t != write["data"]),
        None,
        tuple(reads),
        out_exprs,
    )
    widths = {}
    for container in dict.fromkeys([t for t, _ in reads] + [write["data"]]):
        if isinstance(element_bytes, int) and not isinstance(element_bytes, bool):
            widths[container] = element_bytes
        elif isinstance(element_bytes, dict) and container in element_bytes:
            widths[container] = int(element_bytes[container])
        elif m["dtypes"].get(container) in ELEMENT_BYTES:
            widths[container] = ELEMENT_BYTES[m["dtypes"][container]]
        else:
            raise WorkloadError(
                f"SDFG {program.path!r}, map {phase!r}: container {container!r} has dtype="
                f"{short_repr(m['dtypes'].get(container))}; pass element_bytes={{{container!r}: ...}}"
            )
    notes = []
    if write.get("wcr"):
        notes.append(
            f"{write['data']}: written with write-conflict resolution ({short_repr(write['wcr'])}): one access "
            "per iteration, as any write"
        )
    for r in [*m["reads"], write]:
        if r["dynamic"]:
            notes.append(f"{r['data']} ({r['where']}): a dynamic memlet, traced as one access per iteration")
    if shift:
        notes.append(
            "the loop indices run from 0: "
            + ", ".join(f"the map's {n} is {_linear_text(shift[n], names)}" for n in shift)
        )
    unused = tuple(n for n in names if n not in used)
    if unused:
        notes.append(f"parameters {list(unused)} index no memlet: the traced loop nest leaves them out")
    return SDFGMap(
        path=program.path,
        phase=phase,
        params=tuple(names),
        starts=starts,
        steps=steps,
        sizes=sizes,
        einsum=einsum,
        element_bytes=widths,
        unused=unused,
        notes=tuple(notes),
    )


def _parses(text: str) -> bool:
    try:
        parse(text)
    except WorkloadError:
        return False
    return True


def _linear(text: str, values: dict) -> dict | None:
    """``text`` as {name: integer coefficient, "": constant} when it is linear with whole coefficients
    (``i + 1``, ``2*i - j``), else None."""
    try:
        tree = ast.parse(str(text).strip(), mode="eval").body
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


def _linear_text(text: str, order: list) -> str:
    """A linear index expression written short, names in ``order`` then the constant (``i + 1``, ``j - 1``,
    ``2*i``); anything else as it is."""
    form = _linear(text, {})
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
