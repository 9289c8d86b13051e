"""Local view of one phase (design.md §7): layouts, the access trace, stack distances, LRU misses.

Public API (pure numpy + a numba kernel; no widget code)::

    Layout(order="C"|"F", strides=None, offset=0, byte_offset=0, elem_bytes=None, shape=None)
    trace(einsum, sizes, *, layouts=None, loop_order=None, elem_bytes=4, line=64,
          out_of_range="report") -> Trace
    Cache(line=64, lines=512, ways=None)          # ways=None: fully associative; Cache.of_bytes(size, ...)
    stack_distances(trace, line=64, *, progress=None) -> StackDistances
        # .distance (-1 cold), .histogram (d = 0..max), .cold, .misses(C or array of C);
        # unpacks as ``distance, histogram = stack_distances(trace)``
    simulate(trace, cache, *, distances=None, progress=None) -> CacheResult
        # .misses .cold .capacity .conflict .hits .accesses, .miss / .fa_miss (per access),
        # .distances, .set_distances, .fa_misses(C), .per_tensor, .per_element(tensor), .write_backs()
    predicted_traffic(workload, phase, cache, *, local_sizes=None, layouts=None, loop_order=None,
                      mode="exact"|"ratio", write_back=False) -> {tensor: bytes}
    with_predicted_traffic(workload, phase, cache, ...) -> Workload (that phase's bytes predicted)
    MAX_ACCESSES = 10**7                          # larger traces are refused (error names the sizes)

``einsum`` is a spec ``"C[i,j] = A[i,k] * B[k,j]"`` (index expressions such as ``i+1``, ``2*k``, ``l-1``
allowed), a ``("ik,kj->ij", ["A", "B"], "C")`` tuple, or a parsed ``campaign_widget.einsum.Einsum``.

Trace (design.md §7): the loops run in ``loop_order`` (default: the output's indices, then the reduced
ones, the last innermost); at each point every input is read in right-hand-side order, then the output
is accessed once (a write). ``Trace`` arrays, one entry per access, in trace order:

- ``address`` (bytes, for ``trace.line``; ``trace.addresses(line)`` for another line size),
- ``tensor`` (index into ``trace.tensors``), ``element`` (flat C-order index into the tensor's logical
  shape ``trace.shapes[t]``, whatever its layout), ``is_write``, ``point`` (iteration number, the
  C-order rank of the loop indices' values in ``loop_order``; ``trace.index_values(point)`` gives them).

Per tensor: ``tensors``, ``shapes``, ``strides`` (elements), ``elem_bytes``, ``offsets``,
``byte_offsets``, ``bases`` (for ``trace.line``; ``trace.bases_for(line)``), ``extents`` (bytes).
For a view: ``trace.same_line(tensor, element, line)`` (Fig. 5a's overlay), ``trace.related(tensor,
elements)`` (accesses of the iterations touching them, per element of every tensor),
``trace.accesses_per_element(tensor)`` (the flattened heatmap), ``trace.element_address(...)``,
``trace.refs`` (the accesses of one point: tensor id, index expressions, is_write), ``trace.points``.
Out-of-range accesses (an index expression outside the tensor's shape) are left out of the arrays,
counted per tensor in ``trace.out_of_range`` and reported with a warning (``out_of_range="error"``
raises instead). A tensor's shape is ``Layout.shape`` if given, else per dimension the largest index
used there + 1 (so only negative indices, or indices beyond a given shape, are out of range).

Addresses: addr(e) = base + byte_offset + elem_bytes·(offset + Σ e_d·stride_d); tensors are placed one
after another in order of first access, each base rounded up to a whole cache line.

Stack distance (line granularity): the number of distinct lines referenced since the last reference to
the access's line; -1 ("cold") for the first. A fully associative LRU cache of C lines misses iff cold or
distance >= C, so ``StackDistances.misses(C)`` is cold + #{d >= C} for every C at once. A set-associative
LRU cache (S = lines // ways sets, set = line mod S, write-allocate) applies the same rule to the distance
counted within the access's set, with ``ways`` for C. Classes: cold; capacity = FA(C) - cold;
conflict = set-associative - FA(C) (may be negative: reported as computed).

Speed: one sequential pass (a numba-compiled kernel) gives the fully associative distance of every
access — the most recent lines in a small array, older ones as stamps in a bitset with a Fenwick tree
over its words (stamps renumbered when they run out, so the tree stays a few times the distinct lines),
O(log lines) per access — and, in the same pass, a W-way set-associative cache (each set's lines with
their last access times). It reads the trace's offsets (int32 when they fit) and each reference's base
directly, with no address or line array; the bases are a tuple, so numba compiles the kernel once per
number of references (cached on disk) with its loops over them unrolled. Exact shortcuts for loop
nests: a point, or an iteration of the innermost loops, whose lines equal those of the one before
leaves every LRU stack as it was, so its distances are copied from the one before (or counted among
the last few lines) instead of simulated (``_plan``; 3/4 to 7/8 of the points of the n = 64 matrix
products); runs of repeated blocks are copied in doubling, non-overlapping chunks (vectorized). The
totals come from the kernel's counts; per-access miss arrays are made on first use.
``benchmarks/bench_cache.py`` compares with pycachesim.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import expr as _expr
from .einsum import Einsum
from .einsum import parse as _parse_einsum
from .errors import (
    CacheModelError,  # noqa: F401
)
from .progress import Progress

if TYPE_CHECKING:
    import numpy.typing as npt

    from .workload import Workload

    # ``progress=``: None (a bar on stderr for long traces), True/False, or a callback ``(done, total)``
    _ProgressArg = bool | Callable[[int, int], object] | None

MAX_ACCESSES = 10**7
_CHUNK = 1 << 20  # accesses per kernel call (progress is reported between calls)
_PROGRESS_FROM = 2 * 10**6  # traces at least this long show a progress bar on stderr by default


# --------------------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------------------


def _whole(value: object, what: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < minimum:
        raise CacheModelError(f"{what}={value!r} must be a whole number >= {minimum}")
    return int(value)


@dataclass(frozen=True)
class Layout:
    """How one tensor lies in memory (design.md §7).

    ``order``: "C" (row-major) or "F" (column-major), used when ``strides`` is None. ``strides``: in
    elements, one per dimension (e.g. padded rows: shape (9, 10) with strides (16, 1)). ``offset``: in
    elements, ``byte_offset``: in bytes, both added to the tensor's base. ``elem_bytes``: overrides the
    trace's ``elem_bytes`` for this tensor. ``shape``: the tensor's shape, when it is not the one the
    Einsum implies (e.g. a halo).

    >>> Layout(order="F").strides_for((2, 3))
    (1, 2)
    """

    order: str = "C"
    strides: tuple[int, ...] | None = None
    offset: int = 0
    byte_offset: int = 0
    elem_bytes: int | None = None
    shape: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.order not in ("C", "F"):
            raise CacheModelError(f"Layout order={self.order!r} must be 'C' or 'F'")
        if self.strides is not None:
            strides = tuple(self.strides) if isinstance(self.strides, (tuple, list, np.ndarray)) else None
            if strides is None:
                raise CacheModelError(f"Layout strides={self.strides!r} must be a tuple of whole numbers")
            object.__setattr__(
                self, "strides", tuple(_whole(s, f"Layout strides[{d}]", minimum=1) for d, s in enumerate(strides))
            )
        if self.shape is not None:
            if not isinstance(self.shape, (tuple, list, np.ndarray)):
                raise CacheModelError(f"Layout shape={self.shape!r} must be a tuple of whole numbers")
            object.__setattr__(
                self, "shape", tuple(_whole(s, f"Layout shape[{d}]", minimum=1) for d, s in enumerate(self.shape))
            )
        object.__setattr__(self, "offset", _whole(self.offset, "Layout offset", minimum=0))
        object.__setattr__(self, "byte_offset", _whole(self.byte_offset, "Layout byte_offset", minimum=0))
        if self.elem_bytes is not None:
            object.__setattr__(self, "elem_bytes", _whole(self.elem_bytes, "Layout elem_bytes", minimum=1))

    def strides_for(self, shape: Sequence[int], tensor: str = "tensor") -> tuple[int, ...]:
        """The strides (elements) of this layout for ``shape``; checked not to overlap."""
        shape = tuple(int(s) for s in shape)
        if self.strides is None:
            strides, step = [0] * len(shape), 1
            dims = range(len(shape) - 1, -1, -1) if self.order == "C" else range(len(shape))
            for d in dims:
                strides[d] = step
                step *= shape[d]
            return tuple(strides)
        if len(self.strides) != len(shape):
            raise CacheModelError(
                f"layout of {tensor!r}: strides={self.strides} has {len(self.strides)} entries "
                f"but the tensor has {len(shape)} dimensions (shape {shape})"
            )
        # no two elements may share an address: sorted by stride, each stride spans the dims below it
        span = 1
        for d in sorted((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: self.strides[d]):
            if self.strides[d] < span:
                raise CacheModelError(
                    f"layout of {tensor!r}: strides={self.strides} are shorter than shape {shape} allows "
                    f"(stride {self.strides[d]} of dimension {d} < {span}, elements would overlap)"
                )
            span = self.strides[d] * shape[d]
        return self.strides

    @staticmethod
    def aligned_rows(shape: Sequence[int], multiple: int, *, order: str = "C", **options: Any) -> Layout:
        """A layout whose innermost rows are padded to a multiple of ``multiple`` elements (post-padding,
        e.g. ``multiple = line // elem_bytes`` aligns every row to a cache line).

        >>> Layout.aligned_rows((9, 10), 16).strides
        (16, 1)
        """
        multiple = _whole(multiple, "aligned_rows multiple", minimum=1)
        shape = tuple(int(s) for s in shape)
        dims = list(range(len(shape) - 1, -1, -1)) if order == "C" else list(range(len(shape)))
        strides, step = [0] * len(shape), 1
        for n, d in enumerate(dims):
            strides[d] = step
            step *= shape[d]
            if n == 0:
                step = -(-step // multiple) * multiple
        return Layout(order=order, strides=tuple(strides), **options)


# --------------------------------------------------------------------------------------------------
# Trace
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Ref:
    tensor: int
    exprs: tuple[str, ...]
    is_write: bool


@dataclass(frozen=True, eq=False)
class Trace:
    """The accesses of one Einsum at small sizes, in design.md §7's order (see the module docstring)."""

    einsum: Einsum
    sizes: dict  # loop index -> size
    loop_order: tuple[str, ...]
    tensors: tuple[str, ...]  # in order of first access
    shapes: tuple[tuple[int, ...], ...]
    strides: tuple[tuple[int, ...], ...]
    elem_bytes: tuple[int, ...]
    offsets: tuple[int, ...]
    byte_offsets: tuple[int, ...]
    extents: tuple[int, ...]  # bytes from a tensor's base past its last element
    refs: tuple[_Ref, ...]  # the accesses of one point, in order
    line: int
    rel: np.ndarray = field(repr=False)  # address minus base (int32 when every offset fits)
    kept: np.ndarray | None = field(repr=False)  # which of points × refs accesses are in range (None: all)
    flat_parts: tuple = field(repr=False)  # per ref: its element index, broadcastable over the nest
    out_of_range: dict = field(default_factory=dict)

    # tensor, is_write, element and point are built on first use (the simulation needs only addresses)
    def _per_access(self, row: np.ndarray) -> np.ndarray:
        out = np.empty((self.points, len(self.refs)), row.dtype)
        out[:] = row
        out = out.reshape(-1)
        return out if self.kept is None else out[self.kept]

    @functools.cached_property
    def tensor(self) -> np.ndarray:
        """Index into ``tensors`` of each access."""
        return self._per_access(np.array([r.tensor for r in self.refs], np.int16))

    @functools.cached_property
    def is_write(self) -> np.ndarray:
        """True for the output's access at each point."""
        return self._per_access(np.array([r.is_write for r in self.refs], bool))

    @functools.cached_property
    def element(self) -> np.ndarray:
        """Flat C-order index of each access's element in its tensor's logical shape."""
        full = tuple(self.sizes[i] for i in self.loop_order)
        out = np.empty(full + (len(self.refs),), np.int64)
        for r, part in enumerate(self.flat_parts):
            out[..., r] = part
        out = out.reshape(-1)
        return out if self.kept is None else out[self.kept]

    @functools.cached_property
    def point(self) -> np.ndarray:
        """The iteration number of each access."""
        point = np.repeat(np.arange(self.points, dtype=np.int64), len(self.refs))
        return point if self.kept is None else point[self.kept]

    def __len__(self) -> int:
        return int(self.rel.size)

    @property
    def points(self) -> int:
        """The number of iterations (points of the loop nest)."""
        return math.prod(self.sizes[i] for i in self.loop_order)

    def bases_for(self, line: int) -> np.ndarray:
        """Each tensor's base address when bases are rounded up to whole lines of ``line`` bytes."""
        line = _line(line, "line")
        bases, at = np.zeros(len(self.tensors), np.int64), 0
        for t, extent in enumerate(self.extents):
            bases[t] = at
            at = -(-(at + extent) // line) * line
        return bases

    @property
    def bases(self) -> np.ndarray:
        return self.bases_for(self.line)

    def addresses(self, line: int | None = None) -> np.ndarray:
        """Byte addresses with bases rounded to ``line`` (default ``trace.line``)."""
        bases = self.bases_for(self.line if line is None else line)
        if self.kept is None:  # every point has every ref: add each ref's base along the rows
            row = bases[[r.tensor for r in self.refs]]
            return (self.rel.reshape(-1, len(self.refs)) + row).reshape(-1)
        return self.rel + bases[self.tensor]

    @property
    def address(self) -> np.ndarray:
        return self.addresses()

    def tensor_index(self, name: str) -> int:
        try:
            return self.tensors.index(name)
        except ValueError:
            raise CacheModelError(f"tensor {name!r} is not in this trace; its tensors: {list(self.tensors)}") from None

    def index_values(self, point: npt.ArrayLike) -> dict[str, np.ndarray]:
        """The loop indices' values at iteration number(s) ``point``."""
        values = np.unravel_index(np.asarray(point, dtype=np.int64), [self.sizes[i] for i in self.loop_order])
        return {name: v for name, v in zip(self.loop_order, values)}

    def element_address(self, tensor: str, element: npt.ArrayLike, line: int | None = None) -> np.ndarray:
        """Byte address of flat element index/indices of ``tensor`` (any element, accessed or not)."""
        t = self.tensor_index(tensor)
        multi = np.unravel_index(np.asarray(element, dtype=np.int64), self.shapes[t])
        offset = sum(m * s for m, s in zip(multi, self.strides[t])) if multi else 0
        base = self.bases_for(self.line if line is None else line)[t]
        return base + self.byte_offsets[t] + self.elem_bytes[t] * (self.offsets[t] + np.asarray(offset, np.int64))

    def same_line(self, tensor: str, element: int, line: int | None = None) -> np.ndarray:
        """Flat indices of the elements of ``tensor`` on the same cache line as ``element``
        (design.md §7, Fig. 5a)."""
        line = self.line if line is None else _line(line, "line")
        t = self.tensor_index(tensor)
        everything = self.element_address(tensor, np.arange(math.prod(self.shapes[t])), line)
        return np.flatnonzero(everything // line == int(self.element_address(tensor, element, line)) // line)

    def accesses_per_element(self, tensor: str) -> np.ndarray:
        """How often each element of ``tensor`` is accessed, in the tensor's shape (flattened heatmap)."""
        t = self.tensor_index(tensor)
        size = math.prod(self.shapes[t])
        return np.bincount(self.element[self.tensor == t], minlength=size).reshape(self.shapes[t])

    def related(self, tensor: str, elements: npt.ArrayLike) -> dict[str, np.ndarray]:
        """Accesses related to clicked elements (design.md §7): for every iteration that touches one of
        ``elements`` of ``tensor``, every access of that iteration, counted per element of every tensor
        (counts add up over several clicked elements: an iteration is counted once per clicked access)."""
        t = self.tensor_index(tensor)
        elements = np.atleast_1d(np.asarray(elements, dtype=np.int64))
        hit = (self.tensor == t) & np.isin(self.element, elements)
        weight = np.bincount(self.point[hit], minlength=self.points)
        w = weight[self.point]
        return {
            name: np.bincount(
                self.element[self.tensor == k], weights=w[self.tensor == k], minlength=math.prod(self.shapes[k])
            )
            .astype(np.int64)
            .reshape(self.shapes[k])
            for k, name in enumerate(self.tensors)
        }

    def summary(self) -> str:
        dropped = sum(self.out_of_range.values())
        text = (
            f"{len(self):,} accesses of {len(self.tensors)} tensors over {self.points:,} points "
            f"(loops {', '.join(f'{i}<{self.sizes[i]}' for i in self.loop_order)})"
        )
        if dropped:
            text += f"; {dropped:,} out-of-range accesses left out ({self.out_of_range})"
        return text

    def __repr__(self) -> str:
        return f"Trace({self.einsum.name!r}: {self.summary()})"


def _line(value: object, what: str) -> int:
    line = _whole(value, what, minimum=1)
    if line & (line - 1):
        raise CacheModelError(f"{what}={value!r} must be a power of two (bytes per cache line)")
    return line


def _as_einsum(einsum: Einsum | str | Sequence[Any]) -> Einsum:
    if isinstance(einsum, Einsum):
        return einsum
    if isinstance(einsum, str):
        return _parse_einsum(einsum.split("=")[0].split("[")[0].strip() or "einsum", einsum)
    return _parse_einsum("einsum", einsum)


def _refs_of(e: Einsum) -> list[tuple[str, tuple[str, ...], bool]]:
    if e.input_exprs or e.output_exprs:
        reads = [(t, tuple(x), False) for t, x in e.input_exprs]
        return reads + [(e.output, tuple(e.output_exprs), True)]
    return [(t, tuple(x), False) for t, x in e.inputs] + [(e.output, tuple(e.output_indices), True)]


def trace(
    einsum: Einsum | str | Sequence[Any],
    sizes: Mapping[str, int],
    *,
    layouts: Mapping[str, Layout] | None = None,
    loop_order: Sequence[str] | str | None = None,
    elem_bytes: int = 4,
    line: int = 64,
    out_of_range: str = "report",
) -> Trace:
    """The access trace of one Einsum at the (small) loop sizes ``sizes`` (design.md §7).

    >>> t = trace("C[i,j] = A[i,k] * B[k,j]", {"i": 2, "j": 2, "k": 2}, elem_bytes=8)
    >>> [t.tensors[k] for k in t.tensor[:6]], t.is_write[:3].tolist()
    (['A', 'B', 'C', 'A', 'B', 'C'], [False, False, True])
    """
    e = _as_einsum(einsum)
    refs = _refs_of(e)
    elem_bytes = _whole(elem_bytes, "elem_bytes", minimum=1)
    line = _line(line, "line")
    if out_of_range not in ("report", "error"):
        raise CacheModelError(f"out_of_range={out_of_range!r} must be 'report' or 'error'")
    parsed = [(t, tuple(_expr.parse(x) for x in xs), w) for t, xs, w in refs]
    for t, xs, _ in parsed:
        for x in xs:
            if not x.names and not x.text.strip():
                raise CacheModelError(f"Einsum {e.name!r}: tensor {t!r} has an empty index")
    # loop indices: the Einsum's (output first, then reduced) and any other name in an index expression
    names = dict.fromkeys(e.output_indices)
    names.update(dict.fromkeys(e.indices))
    for _, xs, _ in parsed:
        for x in xs:
            names.update(dict.fromkeys(sorted(x.names)))
    indices = tuple(names)
    if not isinstance(sizes, Mapping):
        raise CacheModelError(f"Einsum {e.name!r}: sizes={sizes!r} must map each loop index to a size")
    missing = [i for i in indices if i not in sizes]
    if missing:
        raise CacheModelError(f"Einsum {e.name!r}: loop indices {missing} have no size; sizes={dict(sizes)}")
    loop_sizes = {i: _expr.size(sizes[i], {}, what=f"size {i!r}") for i in indices}
    if loop_order is None:
        order = indices
    else:
        order = (
            tuple(loop_order)
            if not isinstance(loop_order, str)
            else tuple(loop_order.replace(",", " ").split() if ("," in loop_order or " " in loop_order) else loop_order)
        )
        if sorted(order) != sorted(indices):
            raise CacheModelError(f"loop_order={loop_order!r} must name each loop index once: {list(indices)}")
    points = math.prod(loop_sizes[i] for i in order)
    if points * len(refs) > MAX_ACCESSES:
        raise CacheModelError(
            f"Einsum {e.name!r} at sizes {loop_sizes} makes {points:,} points × {len(refs)} accesses = "
            f"{points * len(refs):,} accesses; the limit is MAX_ACCESSES = {MAX_ACCESSES:,}: choose smaller local sizes"
        )
    layouts = dict(layouts or {})
    tensors = tuple(dict.fromkeys(t for t, _, _ in parsed))
    unknown = [name for name in layouts if name not in tensors]
    if unknown:
        raise CacheModelError(f"layouts names unknown tensors {unknown}; the tensors of {e.name!r}: {list(tensors)}")
    for name, layout in layouts.items():
        if not isinstance(layout, Layout):
            raise CacheModelError(f"layouts[{name!r}]={layout!r} must be a Layout")
    # index arrays, broadcastable over the loop nest (axis d = loop_order[d])
    dims = len(order)
    env = {}
    for d, name in enumerate(order):
        shape = [1] * dims
        shape[d] = loop_sizes[name]
        env[name] = np.arange(loop_sizes[name], dtype=np.int64).reshape(shape)
    full = tuple(loop_sizes[i] for i in order)
    values = [
        [x.evaluate_array(env) if x.text.strip() not in env else env[x.text.strip()] for x in xs] for _, xs, _ in parsed
    ]
    # shapes: Layout.shape, else per dimension the largest index used + 1
    shapes, strides, widths, offsets, byte_offsets, extents = [], [], [], [], [], []
    for name in tensors:
        mine = [k for k, (t, _, _) in enumerate(parsed) if t == name]
        ndim = {len(parsed[k][1]) for k in mine}
        if len(ndim) != 1:
            raise CacheModelError(
                f"Einsum {e.name!r}: tensor {name!r} is used with different numbers of indices {sorted(ndim)}"
            )
        ndim = ndim.pop()
        layout = layouts.get(name, Layout())
        if layout.shape is not None:
            if len(layout.shape) != ndim:
                raise CacheModelError(
                    f"layouts[{name!r}].shape={layout.shape} has {len(layout.shape)} "
                    f"dimensions; {name!r} is indexed with {ndim}"
                )
            shape = layout.shape
        else:
            shape = []
            for d in range(ndim):  # the largest index used + 1 (a plain index i: its size)
                shape.append(max(1, max(int(np.max(values[k][d])) + 1 for k in mine)))
            shape = tuple(shape)
        st = layout.strides_for(shape, name)
        width = layout.elem_bytes or elem_bytes
        shapes.append(shape)
        strides.append(st)
        widths.append(width)
        offsets.append(layout.offset)
        byte_offsets.append(layout.byte_offset)
        extents.append(layout.byte_offset + width * (layout.offset + sum((s - 1) * k for s, k in zip(shape, st)) + 1))
    ids = {name: k for k, name in enumerate(tensors)}
    nref = len(parsed)
    # one (points, refs) block, filled ref by ref from small broadcastable index arrays; int32 when every
    # offset fits (half the memory traffic for the trace and the simulation that reads it)
    flat_parts, offs = [], []
    for r, (name, _, _) in enumerate(parsed):
        t = ids[name]
        flat = np.int64(0)
        off = np.int64(0)
        for d, v in enumerate(values[r]):
            flat = flat * shapes[t][d] + v
            off = off + v * strides[t][d]
        flat_parts.append(flat)
        offs.append(byte_offsets[t] + widths[t] * (offsets[t] + off))
    narrow = all(-(1 << 31) <= int(np.min(o)) and int(np.max(o)) < 1 << 31 for o in offs)
    rel = np.empty(full + (nref,), np.int32 if narrow else np.int64)
    valid = None
    oor: dict[str, int] = {}
    first_bad = {}
    for r, (name, xs, _) in enumerate(parsed):
        t = ids[name]
        shape = shapes[t]
        rel[..., r] = np.asarray(offs[r]).astype(rel.dtype, copy=False)  # small: cast before broadcasting
        inside = all(int(np.min(v)) >= 0 and int(np.max(v)) < shape[d] for d, v in enumerate(values[r]))
        if inside:
            continue
        ok = np.ones(full, bool)
        for d, v in enumerate(values[r]):
            ok &= (v >= 0) & (v < shape[d])
        if valid is None:
            valid = np.ones(full + (nref,), bool)
        valid[..., r] = ok
        bad = int(ok.size - np.count_nonzero(ok))
        oor[name] = oor.get(name, 0) + bad
        if name not in first_bad:
            p = int(np.flatnonzero(~ok.ravel())[0])
            at = {i: int(v) for i, v in zip(order, np.unravel_index(p, full))}
            first_bad[name] = (
                ", ".join(x.text for x in xs),
                at,
                [int(np.broadcast_to(v, full).ravel()[p]) for v in values[r]],
                shape,
            )
    if oor:
        detail = "; ".join(
            f"{name}[{x}] at {at} is {idx}, outside shape {shape} ({oor[name]:,} accesses)"
            for name, (x, at, idx, shape) in first_bad.items()
        )
        message = f"Einsum {e.name!r}: out-of-range accesses: {detail}"
        if out_of_range == "error":
            raise CacheModelError(message)
        warnings.warn(message + "; they are left out of the trace and counted in trace.out_of_range", stacklevel=2)
    keep = None if valid is None else valid.reshape(-1)
    rel_f = rel.reshape(-1) if keep is None else rel.reshape(-1)[keep]
    return Trace(
        e,
        loop_sizes,
        order,
        tensors,
        tuple(shapes),
        tuple(strides),
        tuple(widths),
        tuple(offsets),
        tuple(byte_offsets),
        tuple(extents),
        tuple(_Ref(ids[t], tuple(x.text for x in xs), w) for t, xs, w in parsed),
        line,
        rel_f,
        keep,
        tuple(flat_parts),
        oor,
    )


# --------------------------------------------------------------------------------------------------
# Stack distances: Bennett–Kruskal with a Fenwick tree over last-use stamps, compacted to O(lines)
# --------------------------------------------------------------------------------------------------
# A sequential O(n log m) pass compiled by numba: numpy cannot vectorize this recurrence (each access's
# distance depends on every earlier access's last-use position), and the vectorized alternatives
# (offline 2-D dominance counting by sorting) need ~log n full sorts of the trace, 10-20× slower.
# Before it, one pass (``_plan``) maps addresses to dense line ids once (for the FA and the set-associative
# cache alike) and finds the blocks of the loop nest that repeat the block before them, whose distances
# are copied instead of simulated (exact: see ``_plan``); on the n = 64 matrix products that is 3/4 of
# the accesses.

_DIRECT_WAYS = 64  # sets of at most this many ways are simulated in the same pass as the distances
_TOP = 4  # the most recent lines, kept in a small array in front of the Fenwick tree (4: -3..5% vs 8 on the matmuls)
_STEADY_MAX = 1 << 16  # blocks repeating a block that does not repeat: counted apart when at most this long


# The kernels as plain Python: numba compiles them (they also run without numba, slowly, e.g. under a debugger).
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)


def _plan(
    rel: np.ndarray, ref_base: np.ndarray, shift: int, block_points: np.ndarray, jump: np.ndarray, run: np.ndarray
) -> None:
    """The repeating blocks of a loop-nest trace whose distances the kernel copies instead of simulating.

    Access t's line is (rel[t] + ref_base[t mod R]) >> shift, R = len(ref_base) accesses per point (the
    trace's offsets plus the base of the tensor of the reference, a whole number of lines).

    A block of level l is ``block_points[l]`` consecutive points (one iteration of the loop around the
    innermost loops; level 0, one point, is handled by the kernel on the fly). Block b *repeats* when its
    lines equal block b-1's, access for access. After any block with line sequence S, the LRU stack holds
    S's distinct lines on top, in the order of their last use in S, above the older lines in their old
    order (and so does each set's stack, restricted to its lines). So a repeating block leaves every stack
    as it found it, and each of its distances (fully associative, and within its set) depends on S alone.
    When block b-1 repeats too, block b's distances are therefore block b-1's, and the kernel copies them
    without touching its state. Consecutive copied blocks of one level form a run: jump[its first point]
    = the period m (in points), run[its first point] = its length in points (the longest run starting
    there wins; jump and run have one entry per block of the smallest level, jump[p] stands for
    jump[p / block_points[0]]). A block that repeats the block before it, which does not, gets jump = -m (blocks of at
    most _STEADY_MAX accesses): the kernel counts its distances from the two blocks' lines alone."""
    n = rel.size
    nref = ref_base.size
    unit = n // nref // jump.size  # jump and run hold one entry per block of the smallest level (no
    for level in range(block_points.size):  # per-point arrays: their fresh pages cost more than the plan)
        m = block_points[level]
        size = m * nref
        before = False
        start = -1
        length = 0
        for b in range(1, n // size):
            s = b * size
            same = True
            q = s
            while q < s + size:  # same reference one block apart: same base, compare rel's lines
                e = min(q + 64, s + size)
                a = rel[q:e]  # (views: plain loops from 0, no negative index, so they vectorize)
                c = rel[q - size : e - size]
                diff = a[0] ^ c[0]
                for u in range(1, e - q):
                    diff |= a[u] ^ c[u]
                if diff >> shift != 0:  # a bit at or above the line's differs in some pair
                    same = False
                    break
                q = e
            if same and before:
                if start < 0:
                    start = b * m
                    length = 0
                length += m
                if length > run[start // unit]:
                    jump[start // unit] = m
                    run[start // unit] = length
            else:
                start = -1
                if same and size <= _STEADY_MAX and jump[b * m // unit] == 0:
                    jump[b * m // unit] = -m  # repeats the block before, which does not: see the kernel
            before = same


def _copy(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[:] = src, for two views that do not overlap (compiled: a vectorized loop)."""
    for q in range(dst.size):
        dst[q] = src[q]


def _repeat(a: np.ndarray, t: int, k: int, length: int) -> None:
    """a[t + q] = a[t + q - k] for q < length (the k values before t, repeated), in copies that double
    (each source ends where its target begins: no overlap, so each one vectorizes)."""
    done = 0
    while done < length:
        chunk = min(done + k, length - done)
        _copy(a[t + done : t + done + chunk], a[t - k : t - k + chunk])
        done += chunk


def _steady(
    win: np.ndarray, t: int, set_of: np.ndarray, w: int, out: np.ndarray, out_set: np.ndarray, hist: np.ndarray
) -> int:
    """Distances of the point at t, whose R lines (win[R:]) equal the point before's (win[:R]), which
    did not repeat its own: each line's use before is the same reference one point ago or later, so
    its distance is the number of distinct lines between, and within its set likewise (out_set: capped
    at W). Returns the set misses (none are cold)."""
    nref = win.size // 2
    n_sets = out_set.size > 0
    misses = 0
    for r in range(nref):
        x = win[nref + r]
        c = 0
        c_set = 0
        q = nref + r - 1
        while win[q] != x:  # found at r or later
            y = win[q]
            seen = False
            for e in range(q + 1, nref + r):
                if win[e] == y:
                    seen = True
                    break
            if not seen:
                c += 1
                if n_sets and set_of[y] == set_of[x]:
                    c_set += 1
            q -= 1
        out[t + r] = c
        hist[c] += 1
        if n_sets:
            if c_set < w:
                out_set[t + r] = c_set
            else:
                out_set[t + r] = w
                misses += 1
    return misses


def _repeat_block(
    rel: np.ndarray,
    ref_base: np.ndarray,
    shift: int,
    t: int,
    k: int,
    first_pos: np.ndarray,
    last_pos: np.ndarray,
    sfx: np.ndarray,
    fen: np.ndarray,
    ids: np.ndarray,
    out: np.ndarray,
    hist: np.ndarray,
    set_of: np.ndarray,
    set_line: np.ndarray,
    set_time: np.ndarray,
    where_set: np.ndarray,
    set_fill: np.ndarray,
    out_set: np.ndarray,
) -> int:
    """Distances of the k accesses from t on, a block that repeats the block before it, which does not
    (see ``_distances``); the W-way sets are simulated as usual. Returns the set misses."""
    nref = len(ref_base)
    n_sets = set_line.shape[0]
    w = set_line.shape[1]
    set_misses = 0
    for q0 in range(0, k, nref):  # the block's line ids (k is whole points; the loop over the
        for r in range(nref):  # references unrolled), first and last place of each line
            q = q0 + r
            x = (rel[t + q] + ref_base[r]) >> shift
            ids[q] = x
            if first_pos[x] < 0:
                first_pos[x] = q
            last_pos[x] = q
    sfx[k] = 0  # sfx[q]: lines whose last place is q or later
    for q in range(k - 1, -1, -1):
        sfx[q] = sfx[q + 1] + (1 if last_pos[ids[q]] == q else 0)
    for q in range(k):
        a = t + q
        x = ids[q]
        if first_pos[x] == q:  # its use before is in the block before: its depth there
            lp = last_pos[x]  # (lines used later there) + lines moved above it since
            c = sfx[lp + 1]  # (used here before it, last used there before it)
            i = lp  # fen: a Fenwick tree over last places of lines seen here
            while i > 0:
                c += fen[i]
                i -= i & (-i)
            i = lp + 1
            while i <= k:
                fen[i] += 1
                i += i & (-i)
        else:  # its use before is in this block: as in the block before
            c = out[a - k]
        out[a] = c
        hist[c] += 1
        if n_sets > 0:  # the sets: simulated (the block leaves them as they were)
            row = set_of[x]
            j = where_set[x]
            if j >= 0:
                tx = set_time[row, j]
                c = 0
                for q2 in range(w):
                    c += set_time[row, q2] > tx
                out_set[a] = c
                set_time[row, j] = a
            else:
                out_set[a] = w
                set_misses += 1
                if set_fill[row] < w:
                    j = set_fill[row]
                    set_fill[row] += 1
                else:
                    j = 0
                    oldest = set_time[row, 0]
                    for q2 in range(1, w):
                        v = set_time[row, q2]
                        if v < oldest:
                            oldest = v
                            j = q2
                    where_set[set_line[row, j]] = -1
                set_line[row, j] = x
                set_time[row, j] = a
                where_set[x] = j
    for q in range(k):  # reset the scratch
        first_pos[ids[q]] = -1
        last_pos[ids[q]] = -1
    for q in range(k + 1):
        fen[q] = 0
    return set_misses


def _renumber(owner: np.ndarray, last: np.ndarray, bits: np.ndarray, tree: np.ndarray) -> int:
    """Stamps ran out: give the live ones 0..rank-1 in order (one scan of ``owner``, no sort), rebuild
    ``bits`` and the Fenwick tree ``tree``; returns rank, the next stamp."""
    size = owner.size
    n_words = bits.size
    rank = 0
    for q in range(size):
        z = owner[q]
        if z >= 0 and last[z] == q:
            last[z] = rank
            owner[rank] = z
            rank += 1
    for q in range(rank, size):
        owner[q] = -1
    for q in range(n_words):  # stamps 0..rank-1 live: full words, then a partial one
        if (q + 1) * 64 <= rank:
            bits[q] = ~np.uint64(0)
        elif q * 64 < rank:
            bits[q] = (np.uint64(1) << np.uint64(rank - q * 64)) - np.uint64(1)
        else:
            bits[q] = np.uint64(0)
    for i in range(1, n_words + 1):  # tree[i] counts stamps in words (i - lowbit(i), i]
        lo = (i - (i & (-i))) * 64
        hi = i * 64 if i * 64 < rank else rank
        tree[i] = hi - lo if hi > lo else 0
    return rank


def _distances(
    rel: np.ndarray,
    ref_base: np.ndarray,
    shift: int,
    jump: np.ndarray,
    run: np.ndarray,
    stop: int,
    top_line: np.ndarray,
    top_time: np.ndarray,
    where_top: np.ndarray,
    last: np.ndarray,
    owner: np.ndarray,
    bits: np.ndarray,
    tree: np.ndarray,
    state: np.ndarray,
    set_of: np.ndarray,
    set_line: np.ndarray,
    set_time: np.ndarray,
    where_set: np.ndarray,
    set_fill: np.ndarray,
    out: np.ndarray,
    out_set: np.ndarray,
    hist: np.ndarray,
    first_pos: np.ndarray,
    last_pos: np.ndarray,
    sfx: np.ndarray,
    fen: np.ndarray,
    ids: np.ndarray,
) -> None:
    """Stack distances of the accesses from state[3] on, point by point (R = len(ref_base) accesses each),
    until ``stop`` is reached; it resumes the state. Access t's line id (dense, in [0, len(last))) is
    (rel[t] + ref_base[t mod R]) >> shift: the trace's offsets plus the base of the tensor of its
    reference, in lines (plain ids: ref_base = [0], shift = 0). hist[d] counts the distances d >= 0.

    Repeats (exact, see ``_plan``; jump and run hold one entry per block of ``unit`` points, jump[p] below
    stands for jump[p / unit]): a point p with jump[p] = m > 0 starts run[p] points whose distances
    repeat those m points before them: they are copied. jump[p] = -m: the m points from p on repeat the
    m points before them, which do not repeat theirs. A line's distance there is its distance in the
    block before when its use before is in the block; else (its first use in the block, its use before
    in the block before) the stack at the block's start holds the block's lines in the order of their
    last use in it, so its distance is #(lines last used after it there) + #(lines used in this block
    before it and last used before it there), counted with ``sfx`` and a Fenwick tree ``fen`` over the
    block's places (``first_pos``/``last_pos``: each line's first and last place in the block, -1
    outside). The sets are simulated as usual; the FA state is not touched. On the fly, a point whose lines equal the point
    before's (level 0) leaves the LRU stacks as they are: when that point repeated its own predecessor,
    its distances are copied from it; else they are counted among the last 2R lines (its line's
    previous use is the same reference one point ago, or later). Neither touches the state.

    The LRU stack is split in two. The _TOP most recent lines sit in ``top_line`` with their last
    access time in ``top_time`` (``where_top[x]``: x's slot, or -1): a line found there has distance
    #(top entries used more recently). Every older live line has a last-use stamp (``last[x]``, or -1),
    a set bit in ``bits``; ``tree`` is a Fenwick tree over the words' counts, so its distance
    len(top) + #(live stamps > its stamp) is a popcount within its word plus a Fenwick suffix sum. The
    least recent top line makes room for a new one and takes the next stamp (it is more recent than
    every line in the tree). When stamps run out, live stamps are renumbered in order (one scan of
    ``owner``, no sort), so the tree stays a few times the number of distinct lines (small, in cache).
    state = [next stamp, lines in top, lines in the tree, next access, next point, set misses of lines
    seen before, the point before repeated its predecessor].

    Set-associative (``set_line`` has rows, one per set, of W ways; x's set is set_of[x]): each set
    keeps its lines with their last access times (``where_set[x]``: x's way, or -1), so a hit costs
    O(1) plus W comparisons for its position, and a miss evicts the least recent way.
    out_set[t] = the line's position in its set's LRU order (its distance within the set) on a hit,
    W on a miss of a line seen before, -1 when cold."""
    size = bits.size * 64  # stamps 0..size-1, one bit each in ``bits``
    n_words = bits.size  # ``tree``: a Fenwick tree over the words' live-stamp counts
    stamp = state[0]
    in_top = state[1]
    n_tree = state[2]
    t = state[3]
    p = state[4]
    set_misses = state[5]
    before = state[6] != 0
    n_sets = set_line.shape[0]
    w = set_line.shape[1]
    nref = len(ref_base)
    n = rel.size
    jumps = jump.size > 0
    unit = n // nref // jump.size if jumps else 1  # jump[b], run[b]: the point b × unit (see _plan)
    check = p  # the next point that may start a block
    win = np.empty(2 * nref, np.int64)  # the lines of the point before (0..R-1) and of this point (R..2R-1)
    if t >= nref:
        for r in range(nref):
            win[r] = (rel[t - nref + r] + ref_base[r]) >> shift
    while t < stop:
        if jumps and p >= check:
            b = p // unit
            check = (b + 1) * unit
            m = jump[b] if b * unit == p else 0
            if m < 0:  # a block repeating the block before it, which does not (see _plan)
                k = -m * nref
                set_misses += _repeat_block(
                    rel,
                    ref_base,
                    shift,
                    t,
                    k,
                    first_pos,
                    last_pos,
                    sfx,
                    fen,
                    ids,
                    out,
                    hist,
                    set_of,
                    set_line,
                    set_time,
                    where_set,
                    set_fill,
                    out_set,
                )
                t += k
                p += -m
                for r in range(nref):
                    win[r] = (rel[t - nref + r] + ref_base[r]) >> shift
                before = False
                continue
            if m > 0:  # blocks repeating a repeating block: copy their distances
                k = m * nref  # the period, in accesses
                length = run[b] * nref
                _repeat(out, t, k, length)
                times = length // k  # each access of the block before the run is repeated this often
                for q in range(t - k, t):
                    hist[out[q]] += times
                if n_sets > 0:
                    _repeat(out_set, t, k, length)
                    for q in range(t - k, t):
                        if out_set[q] == w:
                            set_misses += times
                t += length
                p += run[b]
                for r in range(nref):
                    win[r] = (rel[t - nref + r] + ref_base[r]) >> shift
                before = False  # (not known: the safe answer)
                continue
        same = t >= nref
        for r in range(nref):
            x = (rel[t + r] + ref_base[r]) >> shift
            win[nref + r] = x
            same = same and x == win[r]
        if same:  # this point's lines are the point before's: the stacks stay as they are
            counted = 0
            if before:  # which repeated its own: the same distances
                for r in range(nref):
                    out[t + r] = out[t - nref + r]
                    if n_sets > 0:
                        out_set[t + r] = out_set[t - nref + r]
            else:  # which did not: count among the last 2R lines
                distinct = True
                for r in range(1, nref):
                    for r2 in range(r):
                        distinct = distinct and win[r] != win[r2]
                if distinct:  # R distinct lines: between a line's two uses, the other R - 1 once each
                    for r in range(nref):
                        out[t + r] = nref - 1
                    if n_sets > 0:  # within its set: those of the other R - 1 in the same set
                        for r in range(nref):
                            row = set_of[win[r]]
                            c = 0
                            for r2 in range(nref):
                                c += (r2 != r) & (set_of[win[r2]] == row)
                            out_set[t + r] = c if c < w else w
                else:
                    set_misses += _steady(win, t, set_of, w, out, out_set, hist)
                    counted = 1
            e = t + nref  # and the points after it with the same lines (the bases are whole
            points = 1  # lines: compare the offsets' lines), copied as they are found
            while e + nref <= n:
                diff = rel[e] ^ rel[t]
                for r in range(1, nref):
                    diff |= rel[e + r] ^ rel[t + r]
                if diff >> shift != 0:
                    break
                for r in range(nref):
                    out[e + r] = out[t + r]
                if n_sets > 0:
                    for r in range(nref):
                        out_set[e + r] = out_set[t + r]
                e += nref
                points += 1
            times = points - counted
            for r in range(nref):
                hist[out[t + r]] += times
                if n_sets > 0 and out_set[t + r] == w:
                    set_misses += times
            before = True
            for r in range(nref):
                win[r] = win[nref + r]
            t = e
            p += points
            continue
        before = False
        for r in range(nref):
            x = win[nref + r]
            win[r] = x
            # --- fully associative
            j = where_top[x]
            if j >= 0:
                tx = top_time[j]
                c = 0
                for q in range(_TOP):  # branch-free: the unused slots hold time -1
                    c += top_time[q] > tx
                out[t] = c
                hist[c] += 1
                top_time[j] = t
            else:
                pt = last[x]
                if pt < 0:
                    out[t] = -1
                else:
                    word = pt >> 6
                    above = bits[word] >> np.uint64(pt & 63) >> np.uint64(1)  # live stamps above pt in its word
                    above = above - ((above >> np.uint64(1)) & _M1)
                    above = (above & _M2) + ((above >> np.uint64(2)) & _M2)
                    above = (above + (above >> np.uint64(4))) & _M4
                    above = above + (above >> np.uint64(8))
                    above = above + (above >> np.uint64(16))
                    above = (above + (above >> np.uint64(32))) & np.uint64(127)
                    s = 0
                    i = word + 1
                    while i > 0:
                        s += tree[i]
                        i -= i & (-i)
                    c = in_top + (n_tree - s) + np.int64(above)  # s: live stamps in words 0..word
                    out[t] = c
                    hist[c] += 1
                    bits[word] &= ~(np.uint64(1) << np.uint64(pt & 63))
                    i = word + 1
                    while i <= n_words:
                        tree[i] -= 1
                        i += i & (-i)
                    last[x] = -1
                    n_tree -= 1
                if in_top < _TOP:
                    j = in_top
                    in_top += 1
                else:
                    j = 0
                    oldest = top_time[0]
                    for q in range(1, _TOP):
                        v = top_time[q]
                        if v < oldest:
                            oldest = v
                            j = q
                    y = top_line[j]  # demoted into the tree with the next stamp
                    where_top[y] = -1
                    if stamp == size:
                        rank = _renumber(owner, last, bits, tree)
                        stamp = rank
                    bits[stamp >> 6] |= np.uint64(1) << np.uint64(stamp & 63)
                    i = (stamp >> 6) + 1
                    while i <= n_words:
                        tree[i] += 1
                        i += i & (-i)
                    last[y] = stamp
                    owner[stamp] = y
                    stamp += 1
                    n_tree += 1
                top_line[j] = x
                top_time[j] = t
                where_top[x] = j
            # --- set associative
            if n_sets > 0:
                row = set_of[x]
                j = where_set[x]
                if j >= 0:
                    tx = set_time[row, j]
                    c = 0
                    for q in range(w):  # branch-free: the unused ways hold time -1
                        c += set_time[row, q] > tx
                    out_set[t] = c
                    set_time[row, j] = t
                else:
                    if out[t] < 0:
                        out_set[t] = -1
                    else:
                        out_set[t] = w
                        set_misses += 1
                    if set_fill[row] < w:
                        j = set_fill[row]
                        set_fill[row] += 1
                    else:
                        j = 0
                        oldest = set_time[row, 0]
                        for q in range(1, w):
                            v = set_time[row, q]
                            if v < oldest:
                                oldest = v
                                j = q
                        where_set[set_line[row, j]] = -1
                    set_line[row, j] = x
                    set_time[row, j] = t
                    where_set[x] = j
            t += 1
        p += 1
    state[0] = stamp
    state[1] = in_top
    state[2] = n_tree
    state[3] = t
    state[4] = p
    state[5] = set_misses
    state[6] = 1 if before else 0


def _compile(function: Callable[..., None]) -> Callable[..., None]:
    import numba

    try:  # compiled once, then loaded from numba's cache; a read-only install compiles per process
        return numba.njit(cache=True, nogil=True)(function)
    except RuntimeError:
        return numba.njit(nogil=True)(function)


_KERNEL = None
_PLAN = None


_HELPERS = (
    "_copy",
    "_repeat",
    "_steady",
    "_repeat_block",
    "_renumber",
)  # the kernel's rare paths, compiled apart (keeps its loop lean)


def _kernel() -> Callable[..., None]:
    global _KERNEL
    if _KERNEL is None:
        names = globals()
        for name in _HELPERS:  # the kernel calls them by these names: numba must see compiled ones
            if not hasattr(names[name], "py_func"):
                names[name] = _compile(names[name])
        _KERNEL = _compile(_distances)
    return _KERNEL


def _planner() -> Callable[..., None]:
    global _PLAN
    if _PLAN is None:
        _PLAN = _compile(_plan)
    return _PLAN


def _run(
    rel: np.ndarray,
    universe: int,
    progress: _ProgressArg = None,
    *,
    ref_base: np.ndarray | None = None,
    shift: int = 0,
    jump: tuple[np.ndarray, np.ndarray] | None = None,
    set_low: int = 0,
    sets: int = 0,
    ways: int = 0,
    what: str = "stack distances",
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, int]:
    """Stack distances of the line ids (rel + ref_base[t mod R]) >> shift (in [0, universe); plain ids:
    the defaults), their histogram, and (sets > 0) each access's position within its set of a W-way LRU
    cache (set = (id + set_low) mod sets) with the number of its misses that are not cold.
    ``jump``: (jump, run) per point of R accesses, from ``_plan``: the repeating blocks to copy."""
    n = rel.size
    ref_base = np.zeros(1, np.int64) if ref_base is None else np.asarray(ref_base, np.int64)
    out = np.empty(n, np.int32)  # distances < universe < 2^31
    out_set = np.empty(n if sets else 0, np.int8)  # -1 … ways <= _DIRECT_WAYS
    hist = np.zeros(min(universe, n) + 1, np.int64)
    if n == 0:
        return out, (out_set if sets else None), hist[:0], 0
    lines = min(universe, n)
    size = 1 << max(6, (4 * lines - 1).bit_length())  # >= 4 × the lines: a renumbering every >= 3·lines
    # the kernel's state in int32 (times < MAX_ACCESSES, lines and stamps < 2^31): half the bytes per compare
    top_line = np.full(_TOP, -1, np.int32)
    top_time = np.full(_TOP, -1, np.int32)
    where_top = np.full(universe, -1, np.int32)
    last = np.full(universe, -1, np.int32)
    owner = np.full(size, -1, np.int32)
    bits = np.zeros(size // 64, np.uint64)
    tree = np.zeros(size // 64 + 1, np.int32)
    state = np.zeros(7, np.int64)
    set_line = np.full((sets, ways) if sets else (0, 1), -1, np.int32)
    set_time = np.full(set_line.shape, -1, np.int32)
    where_set = np.full(universe if sets else 0, -1, np.int32)
    set_fill = np.zeros(sets, np.int32)
    set_of = (
        ((np.arange(universe, dtype=np.int64) + int(set_low) % sets) % sets).astype(np.int32)
        if sets
        else np.zeros(0, np.int32)
    )
    jump, run = (np.zeros(0, np.int32),) * 2 if jump is None else jump
    steady = -int(jump.min()) * ref_base.size if jump.size and jump.min() < 0 else 0  # longest such block
    first_pos = np.full(universe if steady else 0, -1, np.int32)
    last_pos = np.full(universe if steady else 0, -1, np.int32)
    sfx = np.zeros(steady + 1, np.int32)
    fen = np.zeros(steady + 1, np.int32)
    ids = np.zeros(steady, np.int32)
    kernel = _kernel()
    bases = tuple(ref_base.tolist())  # a tuple: the kernel is compiled per length, its loops over references unrolled
    report = Progress(progress, total=n, what=what, unit=" accesses", default=n >= _PROGRESS_FROM)
    for start in range(0, n, _CHUNK):
        stop = min(n, start + _CHUNK)
        kernel(
            rel,
            bases,
            int(shift),
            jump,
            run,
            stop,
            top_line,
            top_time,
            where_top,
            last,
            owner,
            bits,
            tree,
            state,
            set_of,
            set_line,
            set_time,
            where_set,
            set_fill,
            out,
            out_set,
            hist,
            first_pos,
            last_pos,
            sfx,
            fen,
            ids,
        )
        report(stop)
    used = np.flatnonzero(hist)
    return out, (out_set if sets else None), hist[: used[-1] + 1 if used.size else 0], int(state[5])


def _lines_of(trace: Trace, line: int) -> dict:
    """How the kernel reads ``trace``'s line ids at ``line`` bytes: when every access is kept and the lines
    are few enough to index directly, straight from the offsets and each reference's base (no id array),
    with the repeating blocks of the loop nest that ``_plan`` finds (``jump``); else dense ids (the line
    numbers minus the lowest, or np.unique ranks for sparse lines). Line number = id + ``set_low``
    (None: the ids are ranks)."""
    shift = line.bit_length() - 1
    bases = trace.bases_for(line)
    span = -(-(int(bases[-1]) + trace.extents[-1]) // line) if len(trace.tensors) else 0
    n = len(trace)
    if trace.kept is None and n and span < max(4 * n, 1 << 22):
        nref = len(trace.refs)
        ref_base = bases[[r.tensor for r in trace.refs]].astype(np.int64)
        blocks, m = [], 1
        for size in reversed([trace.sizes[i] for i in trace.loop_order]):  # the innermost loop, the two
            if m > 1 and n // (m * nref) >= 3 and (not blocks or blocks[-1] != m):  # innermost, ...
                blocks.append(m)  # (points: in the kernel)
            m *= size
        jump = None
        if blocks:
            jump = np.zeros(n // nref // blocks[0], np.int32), np.zeros(n // nref // blocks[0], np.int32)
            _planner()(trace.rel, ref_base, shift, np.array(blocks, np.int64), *jump)
        return dict(rel=trace.rel, ref_base=ref_base, shift=shift, universe=span, jump=jump, set_low=0)
    ids, universe, low = _dense_low(trace.addresses(line) >> shift)
    return dict(rel=ids, universe=universe, set_low=low)


def _dense(lines: np.ndarray) -> tuple[np.ndarray, int]:
    """Line numbers as dense int32 ids (the numbers minus the lowest when their range is small)."""
    return _dense_low(lines)[:2]


def _dense_low(lines: np.ndarray) -> tuple[np.ndarray, int, int | None]:
    """Dense int32 ids, their count, and the offset ``low`` with line = id + low (None: ids are ranks)."""
    if lines.size == 0:
        return lines.astype(np.int32), 0, 0
    low, high = int(lines.min()), int(lines.max())
    if high - low < max(4 * lines.size, 1 << 22):
        return (lines - low).astype(np.int32), high - low + 1, low
    uniq, inverse = np.unique(lines, return_inverse=True)
    return inverse.astype(np.int32), uniq.size, None


@dataclass(frozen=True, eq=False)
class StackDistances:
    """Per-access stack distances at line granularity (-1: cold) and their histogram.

    ``histogram[d]`` counts the accesses at distance d (d = 0 … max); ``cold`` counts first references.
    ``misses(C)``: a fully associative LRU cache of C lines misses cold + #{d >= C} times (C may be an
    array: every capacity at once). Unpacks as ``distance, histogram = stack_distances(trace)``.
    """

    distance: np.ndarray = field(repr=False)
    histogram: np.ndarray = field(repr=False)
    cold: int
    line: int

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.distance, self.histogram))

    @property
    def max(self) -> int:
        return self.histogram.size - 1

    def misses(self, capacity: npt.ArrayLike) -> int | np.ndarray:
        """Misses of a fully associative LRU cache of ``capacity`` lines (a number or an array)."""
        c = np.asarray(capacity)
        if np.any(c < 1):
            raise CacheModelError(f"capacity={capacity!r} must be at least 1 line")
        # #{d >= C} = total non-cold - #{d < C}
        below = np.concatenate([[0], np.cumsum(self.histogram)])
        counted = below[np.minimum(c, self.histogram.size)]
        result = self.cold + (below[-1] - counted)
        return int(result) if np.ndim(result) == 0 else result.astype(np.int64)


def stack_distances(trace: Trace, line: int = 64, *, progress: _ProgressArg = None) -> StackDistances:
    """Stack distances of every access of ``trace`` at the granularity of ``line``-byte lines.

    ``progress``: None (a bar on stderr for traces of 2·10^6 accesses or more), False, True, or a
    callable ``(done, total)``.
    """
    line = _line(line, "line")
    source = _lines_of(trace, line)
    d, _, hist, _ = _run(
        source["rel"],
        source["universe"],
        progress,
        ref_base=source.get("ref_base"),
        shift=source.get("shift", 0),
        jump=source.get("jump"),
    )
    return StackDistances(d, hist, int(d.size - hist.sum()), line)


# --------------------------------------------------------------------------------------------------
# Caches and simulation
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cache:
    """An LRU, write-allocate cache of ``lines`` lines of ``line`` bytes. ``ways=None``: fully associative;
    otherwise ``lines // ways`` sets, set = line number mod sets (ways=1: direct mapped).

    >>> Cache(line=64, lines=512, ways=8).sets
    64
    """

    line: int = 64
    lines: int = 512
    ways: int | None = None

    def __post_init__(self) -> None:
        _line(self.line, "Cache line")
        _whole(self.lines, "Cache lines", minimum=1)
        if self.ways is not None:
            _whole(self.ways, "Cache ways", minimum=1)
            if self.lines % self.ways:
                raise CacheModelError(
                    f"Cache lines={self.lines} is not divisible by ways={self.ways} "
                    f"(capacity {self.lines * self.line:,} bytes)"
                )

    @classmethod
    def of_bytes(cls, size: int, *, line: int = 64, ways: int | None = None) -> Cache:
        """A cache of ``size`` bytes (a whole number of lines)."""
        size = _whole(size, "Cache size", minimum=1)
        line = _line(line, "Cache line")
        if size % line:
            raise CacheModelError(f"Cache size={size} bytes is not a whole number of {line}-byte lines")
        return cls(line=line, lines=size // line, ways=ways)

    @property
    def sets(self) -> int:
        return 1 if self.ways is None else self.lines // self.ways

    @property
    def bytes(self) -> int:
        return self.lines * self.line

    @property
    def associativity(self) -> int:
        return self.lines if self.ways is None else self.ways

    def describe(self) -> str:
        kind = (
            "fully associative"
            if self.ways is None or self.sets == 1
            else "direct mapped"
            if self.ways == 1
            else f"{self.ways}-way"
        )
        return f"{self.bytes:,} B {kind} cache, {self.lines} lines of {self.line} B"


@dataclass(frozen=True, eq=False)
class CacheResult:
    """The misses of one trace in one cache (design.md §7's classes), per access, tensor and element.

    The totals come from the simulation's counts; the per-access arrays ``miss`` and ``fa_miss`` (and the
    per-tensor and per-element counts built from them) are made on first use."""

    trace: Trace = field(repr=False)
    cache: Cache
    distances: StackDistances = field(repr=False)  # fully associative, at cache.line
    set_distances: np.ndarray | None = field(repr=False)  # distance within the set, capped at ways (None: FA)
    misses: int  # of this cache

    @functools.cached_property
    def fa_miss(self) -> np.ndarray:
        """Per access: a fully associative cache of the same capacity misses it."""
        d = self.distances.distance
        return (d < 0) | (d >= self.cache.lines)

    @functools.cached_property
    def miss(self) -> np.ndarray:
        """Per access: this cache misses it."""
        if self.set_distances is None:
            return self.fa_miss
        return (self.set_distances < 0) | (self.set_distances >= self.cache.ways)

    @property
    def accesses(self) -> int:
        return int(self.distances.distance.size)

    @property
    def cold(self) -> int:
        return self.distances.cold

    @property
    def capacity(self) -> int:
        return self.fa_misses(self.cache.lines) - self.cold

    @property
    def conflict(self) -> int:
        return self.misses - self.fa_misses(self.cache.lines)

    @property
    def hits(self) -> int:
        return self.accesses - self.misses

    def fa_misses(self, capacity: npt.ArrayLike) -> int | np.ndarray:
        """Fully associative misses for any capacity in lines (an array: every capacity at once)."""
        return self.distances.misses(capacity)

    def _per_tensor(self, values: np.ndarray) -> np.ndarray:
        return np.bincount(self.trace.tensor, weights=values, minlength=len(self.trace.tensors)).astype(np.int64)

    @property
    def per_tensor(self) -> dict[str, dict[str, int]]:
        """{tensor: {accesses, misses, cold, capacity, conflict}}."""
        n = len(self.trace.tensors)
        accesses = np.bincount(self.trace.tensor, minlength=n)
        misses = self._per_tensor(self.miss)
        cold = self._per_tensor(self.distances.distance < 0)
        fa = self._per_tensor(self.fa_miss)
        return {
            name: {
                "accesses": int(accesses[k]),
                "misses": int(misses[k]),
                "cold": int(cold[k]),
                "capacity": int(fa[k] - cold[k]),
                "conflict": int(misses[k] - fa[k]),
            }
            for k, name in enumerate(self.trace.tensors)
        }

    def per_element(self, tensor: str) -> dict[str, np.ndarray]:
        """{accesses, misses, cold, capacity, conflict} per element of ``tensor`` (arrays in its shape)."""
        t = self.trace.tensor_index(tensor)
        mine = self.trace.tensor == t
        shape = self.trace.shapes[t]
        el = self.trace.element[mine]

        def count(weights: np.ndarray | None = None) -> np.ndarray:
            return np.bincount(el, weights=weights, minlength=math.prod(shape)).astype(np.int64).reshape(shape)

        cold, fa, miss = count(self.distances.distance[mine] < 0), count(self.fa_miss[mine]), count(self.miss[mine])
        return {"accesses": count(), "misses": miss, "cold": cold, "capacity": fa - cold, "conflict": miss - fa}

    def write_backs(self) -> dict[str, int]:
        """Dirty lines written back per tensor: a line's stay in the cache (from a miss to the next miss of
        the same line, or the end of the trace) with at least one write costs one write-back (at its
        eviction, or at the final flush)."""
        lines = self.trace.addresses(self.cache.line) >> (self.cache.line.bit_length() - 1)
        order = np.argsort(lines, kind="stable")  # by line, then time
        miss, write = self.miss[order], self.trace.is_write[order]
        stay = np.cumsum(miss) - 1  # stays numbered in (line, time) order; each line starts with a miss
        dirty = np.zeros(int(stay[-1]) + 1 if stay.size else 0, bool)
        np.logical_or.at(dirty, stay[write], True)
        first = np.flatnonzero(miss)
        owner = self.trace.tensor[order][first]
        counts = np.bincount(owner[dirty], minlength=len(self.trace.tensors))
        return {name: int(counts[k]) for k, name in enumerate(self.trace.tensors)}

    def summary(self) -> str:
        return (
            f"{self.cache.describe()}: {self.accesses:,} accesses, {self.misses:,} misses "
            f"({self.cold:,} cold, {self.capacity:,} capacity, {self.conflict:,} conflict)"
        )

    def __repr__(self) -> str:
        return f"CacheResult({self.summary()})"


def simulate(
    trace: Trace, cache: Cache, *, distances: StackDistances | None = None, progress: _ProgressArg = None
) -> CacheResult:
    """Misses of ``trace`` in ``cache``, from stack distances (design.md §7): fully associative misses
    iff cold or distance >= lines; set-associative misses iff cold or the distance within the set >= ways.
    Pass ``distances`` (from ``stack_distances(trace, cache.line)``) to reuse them."""
    if not isinstance(cache, Cache):
        raise CacheModelError(f"cache={cache!r} must be a Cache")
    line = cache.line
    fully = cache.ways is None or cache.sets == 1
    direct = not fully and cache.ways <= _DIRECT_WAYS
    in_set = None
    if distances is None or distances.line != line or direct:
        source = _lines_of(trace, line)
        common = dict(ref_base=source.get("ref_base"), shift=source.get("shift", 0), jump=source.get("jump"))
        if direct and source["set_low"] is not None:  # one pass: FA distances and the W-way sets
            d, in_set, hist, set_misses = _run(
                source["rel"],
                source["universe"],
                progress,
                set_low=source["set_low"],
                sets=cache.sets,
                ways=cache.ways,
                **common,
            )
        else:
            d, _, hist, _ = _run(source["rel"], source["universe"], progress, **common)
        if distances is None or distances.line != line:
            distances = StackDistances(d, hist, int(d.size - hist.sum()), line)
    if fully:
        return CacheResult(trace, cache, distances, None, distances.misses(cache.lines))
    d = distances.distance
    if in_set is None:  # many ways (or sparse lines): exact distances within each set, set by set
        lines = trace.addresses(line) >> (line.bit_length() - 1)
        sets = cache.sets
        key = (lines % sets).astype(np.uint16) if sets <= 1 << 16 else lines % sets
        order = np.argsort(key, kind="stable")
        ids, universe = _dense(lines[order])
        in_set = np.empty_like(d)
        in_set[order] = _run(ids, universe, progress, what="set distances")[0]
        np.minimum(in_set, cache.ways, out=in_set)
        set_misses = int(np.count_nonzero(in_set >= cache.ways))
    return CacheResult(trace, cache, distances, in_set, distances.cold + set_misses)


# --------------------------------------------------------------------------------------------------
# Back to the global view: predicted traffic (design.md §7, issue 11 item 3)
# --------------------------------------------------------------------------------------------------


def _phase_einsum(workload: Workload, phase: str) -> tuple[Einsum, dict[str, int], int | Mapping[str, int] | None]:
    """The Einsum, full sizes and element bytes of one phase of a workload built by from_einsums."""
    if not isinstance(phase, str):
        raise CacheModelError(f"phase={phase!r} must be a phase name")
    if phase not in workload.names:
        raise CacheModelError(f"phase={phase!r} is not in the workload; its phases: {workload.names}")
    einsums = workload.einsums
    if not einsums:
        raise CacheModelError(
            f"phase {phase!r}: predicted traffic needs the phase's Einsum; build the workload "
            "with Workload.from_einsums"
        )
    if phase not in einsums:
        raise CacheModelError(f"phase {phase!r} has no Einsum (Einsum phases: {sorted(einsums)})")
    return einsums[phase], workload.sizes, workload.element_bytes


def _layouts_with_widths(
    e: Einsum, layouts: Mapping[str, Layout] | None, element_bytes: int | Mapping[str, int] | None
) -> tuple[dict, int]:
    layouts = dict(layouts or {})
    if not isinstance(element_bytes, Mapping):
        return layouts, int(element_bytes)
    default = int(element_bytes.get("*", 4))
    for tensor in dict.fromkeys(t for t, _, _ in _refs_of(e)):
        width = element_bytes.get(tensor)
        if width is None:
            continue
        layout = layouts.get(tensor, Layout())
        if layout.elem_bytes is None:
            layouts[tensor] = Layout(
                layout.order, layout.strides, layout.offset, layout.byte_offset, int(width), layout.shape
            )
    return layouts, default


def _predicted(
    workload: Workload,
    phase: str,
    cache: Cache,
    *,
    local_sizes: Mapping[str, int] | None,
    layouts: Mapping[str, Layout] | None,
    loop_order: Sequence[str] | str | None,
    mode: str,
    write_back: bool,
) -> tuple[dict[str, float], dict[str, float], CacheResult]:
    if not isinstance(cache, Cache):
        raise CacheModelError(f"cache={cache!r} must be a Cache")
    if mode not in ("exact", "ratio"):
        raise CacheModelError(f"mode={mode!r} must be 'exact' or 'ratio'")
    e, full, element_bytes = _phase_einsum(workload, phase)
    layouts, width = _layouts_with_widths(e, layouts, element_bytes)
    if mode == "exact":
        sizes = full
    else:
        if not local_sizes:
            raise CacheModelError(f"phase {phase!r}: mode='ratio' needs local_sizes (small sizes to simulate)")
        unknown = sorted(set(local_sizes) - set(full))
        if unknown:
            raise CacheModelError(f"local_sizes names unknown indices {unknown}; the sizes: {sorted(full)}")
        sizes = {**full, **dict(local_sizes)}
    try:
        t = trace(e, sizes, layouts=layouts, loop_order=loop_order, elem_bytes=width, line=cache.line)
    except CacheModelError as error:
        if mode == "exact" and "MAX_ACCESSES" in str(error):
            raise CacheModelError(f"{error}; or use mode='ratio' with local_sizes") from None
        raise
    result = simulate(t, cache)
    n = len(t.tensors)
    misses = np.bincount(t.tensor, weights=result.miss, minlength=n)
    backs = np.zeros(n)
    if write_back:
        wb = result.write_backs()
        backs = np.array([wb[name] for name in t.tensors], float)
    if mode == "ratio":
        # each tensor's local miss (and write-back) ratio per access, times its accesses at full size
        local = np.bincount(t.tensor, minlength=n).astype(float)
        full_points = math.prod(full[i] for i in t.loop_order)
        per_point = np.bincount([r.tensor for r in t.refs], minlength=n)
        full_accesses = per_point * full_points
        scale = np.divide(full_accesses, local, out=np.zeros(n), where=local > 0)
        misses, backs = misses * scale, backs * scale
    line = cache.line
    written = {t.tensors[r.tensor] for r in t.refs if r.is_write}
    reads = {name: float(line * misses[k]) for k, name in enumerate(t.tensors) if name not in written}
    writes = {name: float(line * (misses[k] + backs[k])) for k, name in enumerate(t.tensors) if name in written}
    return reads, writes, result


def predicted_traffic(
    workload: Workload,
    phase: str,
    cache: Cache,
    *,
    local_sizes: Mapping[str, int] | None = None,
    layouts: Mapping[str, Layout] | None = None,
    loop_order: Sequence[str] | str | None = None,
    mode: str = "exact",
    write_back: bool = False,
) -> dict[str, float]:
    """Predicted bytes per tensor of one phase (design.md §7): line × misses, plus line × dirty lines
    written back when ``write_back``. ``mode="exact"`` simulates the phase's Einsum at the workload's
    own sizes (at most ``MAX_ACCESSES`` accesses); ``mode="ratio"`` simulates at ``local_sizes`` (the
    other indices keep their full size) and scales each tensor's miss ratio to its accesses at full size.
    The phase must come from ``Workload.from_einsums``.

    >>> from campaign_widget import Machine, Workload
    >>> w = Workload.from_einsums({"gemm": "C[i,j] = A[i,k] * B[k,j]"}, {"i": 16, "j": 16, "k": 16},
    ...                           machine=Machine(peak_compute=1e9, peak_bandwidth=1e9), element_bytes=8)
    >>> predicted_traffic(w, "gemm", Cache(lines=512))     # everything fits: each line once
    {'A': 2048.0, 'B': 2048.0, 'C': 2048.0}
    """
    reads, writes, _ = _predicted(
        workload,
        phase,
        cache,
        local_sizes=local_sizes,
        layouts=layouts,
        loop_order=loop_order,
        mode=mode,
        write_back=write_back,
    )
    return {**reads, **writes}


def with_predicted_traffic(
    workload: Workload,
    phase: str,
    cache: Cache,
    *,
    local_sizes: Mapping[str, int] | None = None,
    layouts: Mapping[str, Layout] | None = None,
    loop_order: Sequence[str] | str | None = None,
    mode: str = "exact",
    write_back: bool = False,
) -> Workload:
    """A new workload whose ``phase`` moves the predicted bytes (``predicted_traffic``) in place of its
    logical ones; ops, the other phases, the machine and settings are unchanged (``table()`` marks the
    phase ``bytes_source = "predicted"``). ``workload.predicted[phase]`` keeps {"bytes", "tensors",
    "reads", "writes", "cache", "mode", "loop_order", "misses", "write_back"}; phases predicted before
    keep their prediction."""
    reads, writes, result = _predicted(
        workload,
        phase,
        cache,
        local_sizes=local_sizes,
        layouts=layouts,
        loop_order=loop_order,
        mode=mode,
        write_back=write_back,
    )
    prediction = {
        "bytes": float(sum(reads.values()) + sum(writes.values())),
        "tensors": {**reads, **writes},
        "reads": reads,
        "writes": writes,
        "cache": cache,
        "mode": mode,
        "loop_order": result.trace.loop_order,
        "misses": result.misses,
        "write_back": bool(write_back),
    }
    return workload.with_prediction(phase, prediction)
