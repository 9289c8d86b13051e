"""The access trace of one Einsum at small sizes (docs/data-movement.md#trace): ``trace`` and ``Trace``."""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import CacheModelError, WrongTypeError, short_repr
from ..model import expr
from ..model.einsum import Einsum
from ..model.einsum import parse as parse_einsum
from ._checks import indices, line_bytes, whole
from ._index_range import index_range
from .layout import Layout

if TYPE_CHECKING:
    import numpy.typing as npt

MAX_ACCESSES = 10**7
MAX_ELEMENTS = 10**8  # elements of all of a trace's tensors (per-element views allocate this many)
MAX_ADDRESS = 2**62  # bytes: every address, and every tensor's base and extent, stays below


@dataclass(frozen=True)
class Ref:
    tensor: int
    exprs: tuple[str, ...]
    is_write: bool


@dataclass(frozen=True, eq=False)
class Trace:
    """The accesses of one Einsum at small sizes, in docs/data-movement.md#trace's order (see the module docstring)."""

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
    refs: tuple[Ref, ...]  # the accesses of one point, in order
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
        line = line_bytes(line, "line")
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

    def addresses_of(self, accesses: np.ndarray, line: int | None = None) -> np.ndarray:
        """Byte addresses of the accesses numbered ``accesses`` (indices into the trace), bases rounded to
        ``line`` (default ``trace.line``), without the whole trace's address array."""
        bases = self.bases_for(self.line if line is None else line)
        accesses = np.asarray(accesses, np.int64)
        if self.kept is None:
            row = bases[[r.tensor for r in self.refs]]
            return self.rel[accesses] + row[accesses % len(self.refs)]
        return self.rel[accesses] + bases[self.tensor[accesses]]

    @property
    def address(self) -> np.ndarray:
        return self.addresses()

    def tensor_index(self, name: str) -> int:
        if not isinstance(name, str):
            raise WrongTypeError(
                f"tensor={short_repr(name)} must be a tensor name (str); this trace's: {list(self.tensors)}"
            )
        try:
            return self.tensors.index(name)
        except ValueError:
            raise CacheModelError(
                f"tensor {short_repr(name)} is not in this trace; its tensors: {list(self.tensors)}"
            ) from None

    def index_values(self, point: npt.ArrayLike) -> dict[str, np.ndarray]:
        """The loop indices' values at iteration number(s) ``point``."""
        values = np.unravel_index(indices(point, "point", self.points), [self.sizes[i] for i in self.loop_order])
        return {name: v for name, v in zip(self.loop_order, values)}

    def element_address(self, tensor: str, element: npt.ArrayLike, line: int | None = None) -> np.ndarray:
        """Byte address of flat element index/indices of ``tensor`` (any element, accessed or not)."""
        t = self.tensor_index(tensor)
        multi = np.unravel_index(indices(element, "element", math.prod(self.shapes[t])), self.shapes[t])
        offset = sum(m * s for m, s in zip(multi, self.strides[t])) if multi else 0
        base = self.bases_for(self.line if line is None else line)[t]
        return base + self.byte_offsets[t] + self.elem_bytes[t] * (self.offsets[t] + np.asarray(offset, np.int64))

    def same_line(self, tensor: str, element: int, line: int | None = None) -> np.ndarray:
        """Flat indices of the elements of ``tensor`` on the same cache line as ``element``
        (docs/data-movement.md#cache-lines, Fig. 5a)."""
        line = self.line if line is None else line_bytes(line, "line")
        t = self.tensor_index(tensor)
        if np.ndim(element) != 0:
            raise WrongTypeError(f"element={short_repr(element)} must be one flat element index (a whole number)")
        everything = self.element_address(tensor, np.arange(math.prod(self.shapes[t])), line)
        return np.flatnonzero(everything // line == int(self.element_address(tensor, element, line)) // line)

    def accesses_per_element(self, tensor: str) -> np.ndarray:
        """How often each element of ``tensor`` is accessed, in the tensor's shape (flattened heatmap)."""
        t = self.tensor_index(tensor)
        size = math.prod(self.shapes[t])
        return np.bincount(self.element[self.tensor == t], minlength=size).reshape(self.shapes[t])

    def related(self, tensor: str, elements: npt.ArrayLike) -> dict[str, np.ndarray]:
        """Accesses related to clicked elements (docs/data-movement.md#playback-and-related-accesses): for every iteration that touches one of
        ``elements`` of ``tensor``, every access of that iteration, counted per element of every tensor
        (counts add up over several clicked elements: an iteration is counted once per clicked access)."""
        t = self.tensor_index(tensor)
        elements = np.atleast_1d(indices(elements, "elements", math.prod(self.shapes[t])))
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


def checked_trace(value: object) -> Trace:
    """``value`` if it is a ``Trace``, else a TypeError that says how to make one."""
    if not isinstance(value, Trace):
        raise WrongTypeError(
            f"trace={short_repr(value)} must be a Trace, not {type(value).__name__}: make one with "
            "campaign_widget.cache.trace(einsum, sizes), e.g. trace('C[i] = A[i]', {'i': 64})"
        )
    return value


def as_einsum(einsum: Einsum | str | Sequence[Any]) -> Einsum:
    """A spec string, an einsum tuple or an Einsum, as an Einsum."""
    if isinstance(einsum, Einsum):
        return einsum
    if isinstance(einsum, str):
        return parse_einsum(einsum.split("=")[0].split("[")[0].strip() or "einsum", einsum)
    return parse_einsum("einsum", einsum)


def references(e: Einsum) -> list[tuple[str, tuple[str, ...], bool]]:
    """The accesses of one point, in trace order: (tensor, index expressions, is_write)."""
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
    """The access trace of one Einsum at the (small) loop sizes ``sizes`` (docs/data-movement.md#trace).

    Refused before any array is made: more than ``MAX_ACCESSES`` accesses; tensors of more than
    ``MAX_ELEMENTS`` elements in all (their shapes follow the largest index used, so an index that
    jumps, ``A[1000000000*i]``, makes a huge tensor); an index expression, stride, offset or element
    size that takes an address to ``MAX_ADDRESS`` bytes or beyond (int64 would wrap around).
    The error names the tensor and the field.

    >>> t = trace("C[i,j] = A[i,k] * B[k,j]", {"i": 2, "j": 2, "k": 2}, elem_bytes=8)
    >>> [t.tensors[k] for k in t.tensor[:6]], t.is_write[:3].tolist()
    (['A', 'B', 'C', 'A', 'B', 'C'], [False, False, True])
    """
    e = as_einsum(einsum)
    elem_bytes = whole(elem_bytes, "elem_bytes", minimum=1)
    line = line_bytes(line, "line")
    if out_of_range not in ("report", "error"):
        raise CacheModelError(f"out_of_range={short_repr(out_of_range)} must be 'report' or 'error'")
    parsed = _parsed_references(e)
    loop_sizes, order = _loops(e, parsed, sizes, loop_order)
    points = math.prod(loop_sizes[i] for i in order)
    if points * len(parsed) > MAX_ACCESSES:
        raise CacheModelError(
            f"Einsum {short_repr(e.name)} at sizes {loop_sizes} makes {points:,} points × {len(parsed)} accesses = "
            f"{points * len(parsed):,} accesses; the limit is MAX_ACCESSES = {MAX_ACCESSES:,}: choose smaller local sizes"
        )
    layouts = _checked_layouts(e, parsed, layouts)
    for t, xs, _ in parsed:  # int64 is safe for every value below (numpy would wrap around silently)
        for d, x in enumerate(xs):
            index_range(x.text, loop_sizes, what=f"{t}[dimension {d}]")
    values = _index_values(parsed, loop_sizes, order)
    ranges = [[(int(np.min(v)), int(np.max(v))) for v in vs] for vs in values]
    tensors = _place(e, parsed, ranges, layouts, elem_bytes)
    names = tuple(tensors)
    ids = {name: k for k, name in enumerate(names)}
    flat_parts, rel = _offsets(parsed, values, tensors, loop_sizes, order)
    keep, oor = _out_of_range(e, parsed, values, tensors, loop_sizes, order, out_of_range)
    rel_f = rel.reshape(-1) if keep is None else rel.reshape(-1)[keep]
    placed = list(tensors.values())
    return Trace(
        e,
        loop_sizes,
        order,
        names,
        tuple(p.shape for p in placed),
        tuple(p.strides for p in placed),
        tuple(p.width for p in placed),
        tuple(p.offset for p in placed),
        tuple(p.byte_offset for p in placed),
        tuple(p.extent for p in placed),
        tuple(Ref(ids[t], tuple(x.text for x in xs), w) for t, xs, w in parsed),
        line,
        rel_f,
        keep,
        tuple(flat_parts),
        oor,
    )


_Parsed = list[tuple[str, tuple[expr.Expr, ...], bool]]


def _parsed_references(e: Einsum) -> _Parsed:
    """Each access's tensor, parsed index expressions and is_write."""
    parsed = [(t, tuple(expr.parse(x) for x in xs), w) for t, xs, w in references(e)]
    for t, xs, _ in parsed:
        for x in xs:
            if not x.names and not x.text.strip():
                raise CacheModelError(f"Einsum {short_repr(e.name)}: tensor {short_repr(t)} has an empty index")
    return parsed


def _loops(
    e: Einsum, parsed: _Parsed, sizes: Mapping[str, int], loop_order: Sequence[str] | str | None
) -> tuple[dict[str, int], tuple[str, ...]]:
    """The loop sizes and order: the Einsum's indices (output first, then reduced) and any other name
    in an index expression; ``loop_order`` names each once ("kij", "k,i,j" or a sequence)."""
    names = dict.fromkeys(e.output_indices)
    names.update(dict.fromkeys(e.indices))
    for _, xs, _ in parsed:
        for x in xs:
            names.update(dict.fromkeys(sorted(x.names)))
    indices = tuple(names)
    if not isinstance(sizes, Mapping):
        raise CacheModelError(
            f"Einsum {short_repr(e.name)}: sizes={short_repr(sizes)} must map each loop index to a size"
        )
    missing = [i for i in indices if i not in sizes]
    if missing:
        raise CacheModelError(f"Einsum {short_repr(e.name)}: loop indices {missing} have no size; sizes={dict(sizes)}")
    loop_sizes = {i: expr.size(sizes[i], {}, what=f"size {i!r}") for i in indices}
    if loop_order is None:
        return loop_sizes, indices
    if isinstance(loop_order, str):
        spaced = "," in loop_order or " " in loop_order
        order = tuple(loop_order.replace(",", " ").split() if spaced else loop_order)
    elif isinstance(loop_order, Iterable) and not isinstance(loop_order, (bytes, Mapping)):
        order = tuple(loop_order)
    else:
        order = None
    if order is None or not all(isinstance(i, str) for i in order):
        raise WrongTypeError(
            f"loop_order={short_repr(loop_order)} must be index names, as text ('kij', 'k,i,j') or a sequence"
        )
    if sorted(order) != sorted(indices):
        raise CacheModelError(f"loop_order={short_repr(loop_order)} must name each loop index once: {list(indices)}")
    return loop_sizes, order


def _checked_layouts(e: Einsum, parsed: _Parsed, layouts: Mapping[str, Layout] | None) -> dict[str, Layout]:
    layouts = dict(layouts or {})
    tensors = list(dict.fromkeys(t for t, _, _ in parsed))
    unknown = [name for name in layouts if name not in tensors]
    if unknown:
        raise CacheModelError(
            f"layouts names unknown tensors {unknown}; the tensors of {short_repr(e.name)}: {tensors}"
        )
    for name, layout in layouts.items():
        if not isinstance(layout, Layout):
            raise CacheModelError(f"layouts[{short_repr(name)}]={short_repr(layout)} must be a Layout")
    return layouts


@dataclass(frozen=True)
class _Placed:
    """One tensor's shape and layout in a trace; ``extent``: bytes from its base past its last element."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    width: int
    offset: int
    byte_offset: int
    extent: int


def _place(
    e: Einsum, parsed: _Parsed, ranges: list[list[tuple[int, int]]], layouts: dict[str, Layout], elem_bytes: int
) -> dict[str, _Placed]:
    """Each tensor (in order of first access): its shape (``Layout.shape``, else per dimension the largest
    index used + 1), strides, element bytes, offsets and extent, checked against MAX_ELEMENTS and
    MAX_ADDRESS with exact integers, before any array is made."""
    placed: dict[str, _Placed] = {}
    span = 0
    for name in dict.fromkeys(t for t, _, _ in parsed):
        mine = [k for k, (t, _, _) in enumerate(parsed) if t == name]
        ndim = {len(parsed[k][1]) for k in mine}
        if len(ndim) != 1:
            raise CacheModelError(
                f"Einsum {short_repr(e.name)}: tensor {short_repr(name)} is used with different numbers of indices {sorted(ndim)}"
            )
        ndim = ndim.pop()
        layout = layouts.get(name, Layout())
        if layout.shape is not None:
            if len(layout.shape) != ndim:
                raise CacheModelError(
                    f"layouts[{short_repr(name)}].shape={layout.shape} has {len(layout.shape)} "
                    f"dimensions; {short_repr(name)} is indexed with {ndim}"
                )
            shape = layout.shape
        else:
            shape = tuple(max(1, max(ranges[k][d][1] for k in mine) + 1) for d in range(ndim))
        elements = math.prod(shape)
        span += elements
        if span > MAX_ELEMENTS:
            raise CacheModelError(
                f"Einsum {short_repr(e.name)}: tensor {short_repr(name)} has shape {shape} ({elements:,} elements, from the largest "
                f"index used); the tensors of a trace may hold MAX_ELEMENTS = {MAX_ELEMENTS:,} elements in all"
            )
        strides = layout.strides_for(shape, name)
        width = layout.elem_bytes or elem_bytes
        # every access's offset is bounded by the index ranges (out-of-range ones too, before they are dropped)
        reach = [max(abs(lo), abs(hi), n - 1) for (lo, hi), n in zip(_widest(ranges, mine, ndim), shape)]
        terms = {
            "byte_offset": layout.byte_offset,
            "offset": width * layout.offset,
            **{f"strides[{d}]": width * reach[d] * strides[d] for d in range(ndim)},
        }
        if sum(terms.values()) + width >= MAX_ADDRESS:
            field_name = max(terms, key=terms.get)
            source = "elem_bytes" if width >= MAX_ADDRESS // 2 else f"layouts[{short_repr(name)}].{field_name}"
            raise CacheModelError(
                f"Einsum {short_repr(e.name)}: tensor {short_repr(name)} reaches {sum(terms.values()) + width:,} bytes from its base "
                f"({source}; elem_bytes={width}, strides={strides}, offset={layout.offset}, "
                f"byte_offset={layout.byte_offset}); addresses must stay below MAX_ADDRESS = 2**62 bytes"
            )
        extent = layout.byte_offset + width * (layout.offset + sum((s - 1) * k for s, k in zip(shape, strides)) + 1)
        placed[name] = _Placed(shape, strides, width, layout.offset, layout.byte_offset, extent)
    total = sum(p.extent for p in placed.values())  # (rounding bases up to lines adds far less than 2**62)
    if total >= MAX_ADDRESS:
        raise CacheModelError(
            f"Einsum {short_repr(e.name)}: the tensors placed one after another span {total:,} bytes; addresses must "
            "stay below MAX_ADDRESS = 2**62 bytes"
        )
    return placed


def _widest(ranges: list[list[tuple[int, int]]], mine: list[int], ndim: int) -> list[tuple[int, int]]:
    """Per dimension, the range of the indices of all of a tensor's accesses."""
    return [(min(ranges[k][d][0] for k in mine), max(ranges[k][d][1] for k in mine)) for d in range(ndim)]


def _index_values(parsed: _Parsed, loop_sizes: dict[str, int], order: tuple[str, ...]) -> list[list[np.ndarray]]:
    """Each access's index values, as int64 arrays broadcastable over the loop nest (axis d = order[d])."""
    env = {}
    for d, name in enumerate(order):
        shape = [1] * len(order)
        shape[d] = loop_sizes[name]
        env[name] = np.arange(loop_sizes[name], dtype=np.int64).reshape(shape)
    return [
        [env[x.text.strip()] if x.text.strip() in env else x.evaluate_array(env) for x in xs] for _, xs, _ in parsed
    ]


def _offsets(
    parsed: _Parsed,
    values: list[list[np.ndarray]],
    tensors: dict[str, _Placed],
    loop_sizes: dict[str, int],
    order: tuple[str, ...],
) -> tuple[list[np.ndarray], np.ndarray]:
    """Per access: its element's flat index (broadcastable over the nest), and the (points, refs) block of
    addresses minus bases, filled ref by ref; int32 when every offset fits (half the memory traffic for
    the trace and the simulation that reads it)."""
    full = tuple(loop_sizes[i] for i in order)
    flat_parts, offs = [], []
    for r, (name, _, _) in enumerate(parsed):
        p = tensors[name]
        flat = np.int64(0)
        off = np.int64(0)
        for d, v in enumerate(values[r]):
            flat = flat * p.shape[d] + v
            off = off + v * p.strides[d]
        flat_parts.append(flat)
        offs.append(p.byte_offset + p.width * (p.offset + off))
    narrow = all(-(1 << 31) <= int(np.min(o)) and int(np.max(o)) < 1 << 31 for o in offs)
    rel = np.empty(full + (len(parsed),), np.int32 if narrow else np.int64)
    for r, o in enumerate(offs):
        rel[..., r] = np.asarray(o).astype(rel.dtype, copy=False)  # small: cast before broadcasting
    return flat_parts, rel


def _out_of_range(
    e: Einsum,
    parsed: _Parsed,
    values: list[list[np.ndarray]],
    tensors: dict[str, _Placed],
    loop_sizes: dict[str, int],
    order: tuple[str, ...],
    mode: str,
) -> tuple[np.ndarray | None, dict[str, int]]:
    """Which of points × refs accesses are inside their tensor's shape (None: all), and the count left out
    per tensor; reported with a warning naming the first one of each tensor, or raised (``mode="error"``)."""
    full = tuple(loop_sizes[i] for i in order)
    valid = None
    oor: dict[str, int] = {}
    first_bad = {}
    for r, (name, xs, _) in enumerate(parsed):
        shape = tensors[name].shape
        if all(int(np.min(v)) >= 0 and int(np.max(v)) < shape[d] for d, v in enumerate(values[r])):
            continue
        ok = np.ones(full, bool)
        for d, v in enumerate(values[r]):
            ok &= (v >= 0) & (v < shape[d])
        if valid is None:
            valid = np.ones(full + (len(parsed),), bool)
        valid[..., r] = ok
        oor[name] = oor.get(name, 0) + int(ok.size - np.count_nonzero(ok))
        if name not in first_bad:
            p = int(np.flatnonzero(~ok.ravel())[0])
            at = {i: int(v) for i, v in zip(order, np.unravel_index(p, full))}
            index = [int(np.broadcast_to(v, full).ravel()[p]) for v in values[r]]
            first_bad[name] = (", ".join(x.text for x in xs), at, index, shape)
    if oor:
        detail = "; ".join(
            f"{name}[{x}] at {at} is {idx}, outside shape {shape} ({oor[name]:,} accesses)"
            for name, (x, at, idx, shape) in first_bad.items()
        )
        message = f"Einsum {short_repr(e.name)}: out-of-range accesses: {detail}"
        if mode == "error":
            raise CacheModelError(message)
        warnings.warn(message + "; they are left out of the trace and counted in trace.out_of_range", stacklevel=3)
    return (None if valid is None else valid.reshape(-1)), oor
