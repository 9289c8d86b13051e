"""A scene aggregated to the pixel columns of a time window, before it is sent to a view.

A live view draws a window of a few thousand device pixels; a scene of 10^6 pieces holds far more
pieces than that window has columns × phases. Above a size (the widget's ``LOD_ABOVE``), the kernel
sends the view only what it can show: the pieces of the visible window, those narrower than one of
``columns`` columns merged per column and phase — the rule ``js/aggregate.js`` applies in the
browser (lowest base, highest line and well, memory fill kept inside the well, the largest spill,
flags or-ed, dashed when most of the merged time is) — and the wider ones as they are. A column
holding one piece keeps that piece. Zooming writes the view's ``time_window``; the kernel answers
with that window in detail. Pure numpy: no widget code.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .scene import MEMORY_OVER, Scene

MERGED = 4  # flag bit: this piece stands for several pieces of one phase in one pixel column
_PIECE_FIELDS = ("x0", "x1", "phase", "tile", "base_y", "line_y", "well_top", "fill_top", "dash_from", "flags")


def aggregate_scene(scene: Scene, window: tuple[float, float] | None, columns: int) -> Scene:
    """``scene`` restricted to ``window`` (``None``: all of it), its sub-column pieces merged."""
    t0, t1 = (0.0, scene.x_max) if window is None else (float(window[0]), float(window[1]))
    if not (t1 > t0) or columns < 1 or len(scene) == 0:
        return scene
    x0, x1 = scene.x0, scene.x1
    visible = np.flatnonzero((x1 > t0) & (x0 < t1))
    per_column = columns / (t1 - t0)
    narrow_mask = (x1[visible] - x0[visible]) * per_column < 1
    narrow, wide = visible[narrow_mask], visible[~narrow_mask]
    if narrow.size == 0:  # zoomed in far enough: the window's pieces as they are
        return dataclasses.replace(
            scene,
            **{name: getattr(scene, name)[visible] for name in _PIECE_FIELDS},
            edges=None,
            x0_edge=None,
            x1_edge=None,
        )

    column = np.clip(np.floor(((x0[narrow] + x1[narrow]) / 2 - t0) * per_column), 0, columns - 1).astype(np.int64)
    phases = int(scene.phase.max(initial=0)) + 1
    key = column * phases + scene.phase[narrow]
    order = np.argsort(key, kind="stable")  # scene order inside each cell: `first` is the earliest piece
    members = narrow[order]
    key = key[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    sizes = np.diff(np.r_[starts, key.size])
    single = members[starts[sizes == 1]]
    groups, group_starts = sizes > 1, starts[sizes > 1]
    cells = _merged_cells(scene, members, starts, column[order][starts], t0, per_column)
    merged = {name: values[groups] for name, values in cells.items()}

    kept = np.concatenate([wide, single])
    pieces = {name: np.concatenate([getattr(scene, name)[kept], merged[name]]) for name in _PIECE_FIELDS}
    rank = np.concatenate([kept, members[group_starts]])  # scene order of each piece (a cell: its first)
    # Draw order as the scene's: by left edge, lower stacks first, then scene order.
    draw = np.lexsort((rank, pieces["base_y"], pieces["x0"]))
    return dataclasses.replace(
        scene, **{name: values[draw] for name, values in pieces.items()}, edges=None, x0_edge=None, x1_edge=None
    )


def _merged_cells(
    scene: Scene, members: np.ndarray, starts: np.ndarray, column: np.ndarray, t0: float, per_column: float
) -> dict[str, np.ndarray]:
    """One merged piece per cell (runs of ``members`` beginning at ``starts``), every cell computed."""
    base = scene.base_y[members]
    line = scene.line_y[members]
    well = scene.well_top[members]
    fill = scene.fill_top[members]
    x0, x1 = scene.x0[members], scene.x1[members]
    dashed = x1 - np.clip(scene.dash_from[members], x0, x1)
    well_max = np.maximum.reduceat(well, starts)
    spill = np.maximum.reduceat(np.maximum(fill - well, 0), starts)
    inside = np.maximum.reduceat(np.minimum(fill, well), starts)
    left = t0 + column / per_column
    right = t0 + (column + 1) / per_column
    mostly_dashed = np.add.reduceat(dashed, starts) > np.add.reduceat(x1 - x0, starts) / 2
    flags = np.bitwise_or.reduceat(scene.flags[members], starts) | np.where(spill > 0, MEMORY_OVER, 0) | MERGED
    return {
        "x0": left,
        "x1": right,
        "phase": scene.phase[members[starts]],
        "tile": scene.tile[members[starts]],
        "base_y": np.minimum.reduceat(base, starts),
        "line_y": np.maximum.reduceat(line, starts),
        "well_top": well_max,
        "fill_top": np.where(spill > 0, well_max + spill, inside).astype(scene.fill_top.dtype),
        "dash_from": np.where(mostly_dashed, left, right),
        "flags": flags.astype(np.uint8),
    }
