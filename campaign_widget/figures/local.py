"""View-only arrays for LocalView: element grids (docs/data-movement.md#element-grids "Element grids") and colour bars.

Pure numpy, no widget imports. Severities and colours come from ``campaign_widget.figures.colour_scale``, the
one scale of every view.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import FigureError
from ..formatting import format_number
from .colour_scale import PALETTES, SCALINGS, hex_colors, rgb

__all__ = ["PALETTES", "SCALINGS", "bar_ticks", "colour_bar", "element_grid", "place_tensors"]


# -- element grids ----------------------------------------------------------------------------------


def element_grid(shape: Sequence[int]) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Cell (x, y) of every element of a tensor of ``shape`` in C (row-major) flat order, and the
    grid's width and height in cells.

    The two innermost dimensions are rows × columns; each outer dimension nests the blocks inside
    it, alternately side by side (the 3rd innermost) and one above the other (the 4th), with gaps
    growing by one cell per level, so a 4-D tensor stays readable (seed 001, Fig. 4a). A 1-D tensor
    is one row; a 0-D tensor one cell.

    >>> x, y, w, h = element_grid((2, 3))
    >>> x.tolist(), y.tolist(), w, h
    ([0, 1, 2, 0, 1, 2], [0, 0, 0, 1, 1, 1], 3, 2)
    """
    shape = tuple(int(d) for d in shape)
    if any(d < 1 for d in shape):
        raise FigureError(f"element_grid: shape {shape} has an empty dimension")
    if not shape:
        return np.zeros(1, np.int64), np.zeros(1, np.int64), 1, 1
    index = np.indices(shape).reshape(len(shape), -1)
    if len(shape) == 1:
        return index[0].copy(), np.zeros(shape[0], np.int64), shape[0], 1
    x, y = index[-1].copy(), index[-2].copy()
    width, height = shape[-1], shape[-2]
    for level, dim in enumerate(range(len(shape) - 3, -1, -1), start=1):
        gap = level
        if level % 2 == 1:  # side by side
            x += index[dim] * (width + gap)
            width = shape[dim] * width + (shape[dim] - 1) * gap
        else:  # one above the other
            y += index[dim] * (height + gap)
            height = shape[dim] * height + (shape[dim] - 1) * gap
    return x, y, width, height


def place_tensors(
    sizes: Sequence[tuple[int, int]], *, label_rows: int = 2, gap: int = 3, min_shelf: int = 48
) -> tuple[list[tuple[int, int]], int, int]:
    """Shelf-pack tensor grids of ``sizes`` [(width, height)] left to right, wrapping into a new row
    of tensors when a row would exceed max(widest, ``min_shelf``) cells. Returns the top-left cell of
    each grid (below its label rows) and the total (width, height) in cells."""
    shelf = max([w for w, _ in sizes] + [min_shelf])
    origins, x, y, row_height, total_width = [], 0, 0, 0, 0
    for w, h in sizes:
        if x > 0 and x + w > shelf:
            x, y, row_height = 0, y + row_height + gap, 0
        origins.append((x, y + label_rows))
        total_width = max(total_width, x + w)
        row_height = max(row_height, h + label_rows)
        x += w + gap
    return origins, total_width, y + row_height


# -- colour bars (the scale itself is colour_scale's) ----------------------------------------------


def bar_ticks(info: dict) -> list:
    """Labelled ticks [[s, text]] of a colour bar for a scale described by ``colour_scale.scale_range``."""
    lo, c = info.get("lo"), info.get("centre")
    if lo is None:
        return []
    if info.get("method") in ("median", "mean") and c:
        return [[0.0, "0"], [0.5, format_number(c, 3)], [1.0, f"≥{format_number(2 * c, 3)}"]]
    return [[0.0, format_number(lo, 3)], [1.0, format_number(info.get("hi"), 3)]]


def colour_bar(info: dict, palette: str, title: str, unit: str = "") -> dict:
    """What the view needs to draw a colour bar: 11 colour stops and labelled ticks (JSON-small)."""
    return {
        "title": title,
        "unit": unit,
        "method": info.get("method", ""),
        "stops": hex_colors(rgb(np.linspace(0, 1, 11), palette)),
        "ticks": bar_ticks(info),
    }
