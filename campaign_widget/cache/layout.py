"""How one tensor lies in memory (docs/data-movement.md#layout): ``Layout``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import CacheModelError, short_repr
from ._checks import whole


def packed_strides(
    shape: Sequence[int], order: str | Sequence[int] = "C", *, pad: int = 0, multiple: int = 1
) -> tuple[int, ...]:
    """The strides (elements) of ``shape`` laid out densely in ``order``: "C" (the last dimension
    innermost), "F" (the first innermost), or the dimensions from outermost to innermost in memory
    (``(2, 0, 1)``: seed 001's hdiff field [I, J, K] stored as [K, I, J]). Every row of the innermost
    dimension is followed by ``pad`` elements, then rounded up to a multiple of ``multiple`` elements.

    >>> packed_strides((2, 3)), packed_strides((2, 3), "F"), packed_strides((9, 10), pad=6)
    ((3, 1), (1, 2), (16, 1))
    >>> packed_strides((9, 10), multiple=16), packed_strides((2, 3, 4), (2, 0, 1))
    ((16, 1), (3, 1, 6))
    """
    shape = tuple(int(s) for s in shape)
    if order == "C":
        inner_first = range(len(shape) - 1, -1, -1)
    elif order == "F":
        inner_first = range(len(shape))
    else:
        inner_first = [int(d) for d in order][::-1]
    strides, step = [0] * len(shape), 1
    for n, d in enumerate(inner_first):
        strides[d] = step
        step *= shape[d]
        if n == 0:
            step = -(-(step + pad) // multiple) * multiple
    return tuple(strides)


@dataclass(frozen=True)
class Layout:
    """How one tensor lies in memory (docs/data-movement.md#layout).

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
                self, "strides", tuple(whole(s, f"Layout strides[{d}]", minimum=1) for d, s in enumerate(strides))
            )
        if self.shape is not None:
            if not isinstance(self.shape, (tuple, list, np.ndarray)):
                raise CacheModelError(f"Layout shape={self.shape!r} must be a tuple of whole numbers")
            object.__setattr__(
                self, "shape", tuple(whole(s, f"Layout shape[{d}]", minimum=1) for d, s in enumerate(self.shape))
            )
        object.__setattr__(self, "offset", whole(self.offset, "Layout offset", minimum=0))
        object.__setattr__(self, "byte_offset", whole(self.byte_offset, "Layout byte_offset", minimum=0))
        if self.elem_bytes is not None:
            object.__setattr__(self, "elem_bytes", whole(self.elem_bytes, "Layout elem_bytes", minimum=1))

    def strides_for(self, shape: Sequence[int], tensor: str = "tensor") -> tuple[int, ...]:
        """The strides (elements) of this layout for ``shape``; checked not to overlap."""
        shape = tuple(int(s) for s in shape)
        if self.strides is None:
            return packed_strides(shape, self.order)
        if len(self.strides) != len(shape):
            raise CacheModelError(
                f"layout of {short_repr(tensor)}: strides={self.strides} has {len(self.strides)} entries "
                f"but the tensor has {len(shape)} dimensions (shape {shape})"
            )
        # no two elements may share an address: sorted by stride, each stride spans the dims below it
        span = 1
        for d in sorted((d for d in range(len(shape)) if shape[d] > 1), key=lambda d: self.strides[d]):
            if self.strides[d] < span:
                raise CacheModelError(
                    f"layout of {short_repr(tensor)}: strides={self.strides} are shorter than shape {shape} allows "
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
        multiple = whole(multiple, "aligned_rows multiple", minimum=1)
        strides = packed_strides(shape, order, multiple=multiple)
        return Layout(order=order, strides=strides, **options)
