"""Pieces merged per pixel column: the one rule both renderers and the kernel's level of detail use.

A view draws a window of a few thousand device pixels; a scene of 10^6 pieces holds far more pieces
than that window has columns × phases. ``merge_pixel_columns`` keeps the pieces of a time window and
merges those narrower than one of ``columns`` columns per column and phase: lowest base, highest
line and well, memory fill kept inside the well, the largest spill (flagged ``MEMORY_OVER``), flags
or-ed, dashed when most of the merged time is, the cell named by its earliest piece. A cell holding
one piece keeps that piece as it is. ``js/diagram/aggregate.js`` is its port for the browser, held to it by
the golden cases in ``tests/data/golden/aggregate.json``.

Two callers: the kernel sends a live view only what it can show above a size (the widget's
``LOD_ABOVE``, through ``aggregate_scene``), and the static renderer draws a figure of 10^5 pieces as
fast as one of a few thousand (``static_figure.pieces``). Pure numpy: no widget code.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np

from .scene import MEMORY_OVER, Scene

MERGED = 4  # flag bit: this piece stands for several pieces of one phase in one pixel column
# The arrays the rule reads; any other array given along (a scene's ``tile``) is carried through,
# a merged piece taking the value of its cell's earliest piece.
MERGE_FIELDS = ("x0", "x1", "phase", "base_y", "line_y", "well_top", "fill_top", "dash_from", "flags")
_PIECE_FIELDS = (*MERGE_FIELDS, "tile")


def merge_pixel_columns(
    pieces: Mapping[str, np.ndarray], t0: float, t1: float, columns: float, *, limit: int = 0
) -> dict[str, np.ndarray]:
    """The pieces over ``[t0, t1]`` to draw on ``columns`` pixel columns, in draw order.

    ``pieces`` maps the names of ``MERGE_FIELDS`` (and any others, carried through) to equal-length
    arrays in scene order. When at most ``limit`` pieces are visible, or the window or ``columns``
    is empty, every visible piece is returned as it is. Otherwise pieces narrower than a column with
    a phase (``phase >= 0``) are merged per column and phase; a merged piece spans its whole column
    and carries ``MERGED``; when nothing merges, the visible pieces come back in scene order. The result holds the same arrays plus ``source``: each piece's index in
    ``pieces``, -1 for a merged one. Draw order is the scene's: by left edge, lower stacks first,
    then scene order (a merged piece ranks as its earliest member).
    """
    x0 = np.asarray(pieces["x0"], dtype=np.float64)
    x1 = np.asarray(pieces["x1"], dtype=np.float64)
    visible = np.flatnonzero((x1 > t0) & (x0 < t1))
    if visible.size <= limit or not t1 > t0 or not columns > 0:
        return {**{name: np.asarray(values)[visible] for name, values in pieces.items()}, "source": visible}
    count = max(1, math.ceil(columns))
    per_column = count / (t1 - t0)
    phase = np.asarray(pieces["phase"])
    narrow_mask = ((x1[visible] - x0[visible]) * per_column < 1) & (phase[visible] >= 0)
    narrow, wide = visible[narrow_mask], visible[~narrow_mask]

    column = np.clip(np.floor(((x0[narrow] + x1[narrow]) / 2 - t0) * per_column), 0, count - 1).astype(np.int64)
    key = column * (int(phase[narrow].max(initial=0)) + 1) + phase[narrow]
    order = np.argsort(key, kind="stable")  # scene order inside each cell: the first is the earliest piece
    members, key, column = narrow[order], key[order], column[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if key.size else np.zeros(0, np.int64)
    sizes = np.diff(np.r_[starts, key.size])
    several = sizes > 1
    if not several.any():  # no column holds two pieces of a phase: the window as it is
        return {**{name: np.asarray(values)[visible] for name, values in pieces.items()}, "source": visible}
    cells = _merged_cells(pieces, members, starts, column[starts], t0, per_column)
    kept = np.concatenate([wide, members[starts[~several]]])
    firsts = members[starts[several]]

    out = {}
    for name, values in pieces.items():
        values = np.asarray(values)
        merged = cells[name][several] if name in cells else values[firsts]
        out[name] = np.concatenate([values[kept], merged.astype(values.dtype, copy=False)])
    out["source"] = np.concatenate([kept, np.full(firsts.size, -1, np.int64)])
    rank = np.concatenate([kept, firsts])
    draw = np.lexsort((rank, out["base_y"], out["x0"]))
    return {name: values[draw] for name, values in out.items()}


def _merged_cells(
    pieces: Mapping[str, np.ndarray],
    members: np.ndarray,
    starts: np.ndarray,
    column: np.ndarray,
    t0: float,
    per_column: float,
) -> dict[str, np.ndarray]:
    """One merged piece per cell (runs of ``members`` beginning at ``starts``), every cell computed."""

    def field(name, dtype=np.float64):
        return np.asarray(pieces[name], dtype=dtype)[members]

    base, line, well, fill = field("base_y"), field("line_y"), field("well_top"), field("fill_top")
    x0, x1 = field("x0"), field("x1")
    dash_from = field("dash_from")
    dashed = x1 - np.clip(np.where(np.isnan(dash_from), x1, dash_from), x0, x1)  # NaN: not dashed
    well_max = np.maximum.reduceat(well, starts)
    spill = np.maximum.reduceat(np.maximum(fill - well, 0), starts)
    inside = np.maximum.reduceat(np.minimum(fill, well), starts)
    left = t0 + column / per_column
    right = t0 + (column + 1) / per_column
    mostly_dashed = np.add.reduceat(dashed, starts) > np.add.reduceat(x1 - x0, starts) / 2
    flags = np.bitwise_or.reduceat(field("flags", np.uint8), starts) | np.where(spill > 0, MEMORY_OVER, 0) | MERGED
    return {
        "x0": left,
        "x1": right,
        "base_y": np.minimum.reduceat(base, starts),
        "line_y": np.maximum.reduceat(line, starts),
        "well_top": well_max,
        "fill_top": np.where(spill > 0, well_max + spill, inside),
        "dash_from": np.where(mostly_dashed, left, right),
        "flags": flags.astype(np.uint8),
    }


def aggregate_scene(scene: Scene, window: tuple[float, float] | None, columns: int) -> Scene:
    """``scene`` restricted to ``window`` (``None``: all of it), its sub-column pieces merged
    (``merge_pixel_columns``); the window's pieces as they are when none is narrower than a column."""
    t0, t1 = (0.0, scene.x_max) if window is None else (float(window[0]), float(window[1]))
    if not (t1 > t0) or columns < 1 or len(scene) == 0:
        return scene
    drawn = merge_pixel_columns({name: getattr(scene, name) for name in _PIECE_FIELDS}, t0, t1, columns)
    del drawn["source"]
    return dataclasses.replace(scene, **drawn, edges=None, x0_edge=None, x1_edge=None)
