"""Geometry as compound matplotlib paths: one artist per style, as the browser batches its drawing."""

from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.patches import PathPatch
from matplotlib.path import Path as MplPath

from .style import LINE_CODES, PT_PER_PX, RECT_CODES, THEME


def _rects_path(x0, x1, y0, y1) -> MplPath:
    n = x0.size
    v = np.empty((n, 5, 2))
    v[:, 0, 0], v[:, 0, 1] = x0, y0
    v[:, 1, 0], v[:, 1, 1] = x1, y0
    v[:, 2, 0], v[:, 2, 1] = x1, y1
    v[:, 3, 0], v[:, 3, 1] = x0, y1
    v[:, 4] = v[:, 0]
    return MplPath(v.reshape(-1, 2), np.tile(RECT_CODES, n), readonly=True)


def _runs_path(x0, x1, y0, y1) -> MplPath:
    """Rectangles [x0, x1] × [y0, y1] as one path; rectangles that touch end to end in x become one
    staircase polygon. Same area as ``_rects_path`` but without the inner vertical edges, which
    cost the rasterizer a cell per pixel row each (tall, thin, touching pieces are the common case)."""
    if x0.size == 0:
        return MplPath(np.zeros((0, 2)))
    ((_, path),) = _runs_paths(np.zeros(x0.size, dtype=np.int64), x0, x1, y0, y1)
    return path


def _runs_paths(keys, x0, x1, y0, y1) -> list[tuple[int, MplPath]]:
    """``_runs_path`` of each distinct key's rectangles, in key order: [(key, path)], built in one
    pass over all of them (a figure of thousands of phases has a path per phase)."""
    n = x0.size
    if n == 0:
        return []
    order = np.lexsort((x0, keys))
    keys, x0, x1, y0, y1 = keys[order], x0[order], x1[order], y0[order], y1[order]
    tol = 1e-12 * np.maximum(1.0, np.abs(x1[:-1]))
    new_key = np.r_[True, keys[1:] != keys[:-1]]
    start = new_key | np.r_[True, np.abs(x0[1:] - x1[:-1]) > tol]
    run = np.cumsum(start) - 1
    starts = np.flatnonzero(start)
    ends = np.r_[starts[1:], n]
    offset = 4 * starts + np.arange(starts.size)  # each run: 2 top + 2 bottom vertices per rect, 1 close
    i = np.arange(n)
    pos = i - starts[run]
    length = (ends - starts)[run]
    v = np.empty((4 * n + starts.size, 2))
    top = offset[run] + 2 * pos
    v[top, 0], v[top, 1] = x0, y1
    v[top + 1, 0], v[top + 1, 1] = x1, y1
    rev = starts[run] + ends[run] - 1 - i  # the bottom edge runs back, right to left
    bottom = offset[run] + 2 * length + 2 * pos
    v[bottom, 0], v[bottom, 1] = x1[rev], y0[rev]
    v[bottom + 1, 0], v[bottom + 1, 1] = x0[rev], y0[rev]
    close = offset + 4 * (ends - starts)
    v[close] = v[offset]
    codes = np.full(v.shape[0], MplPath.LINETO, dtype=np.uint8)
    codes[offset] = MplPath.MOVETO
    codes[close] = MplPath.CLOSEPOLY
    first = np.flatnonzero(new_key)  # each key's first rectangle starts a run
    bounds = np.r_[offset[run[first]], v.shape[0]]
    return [
        (int(keys[f]), MplPath(v[a:b], codes[a:b], readonly=True)) for f, a, b in zip(first, bounds[:-1], bounds[1:])
    ]


def _segments_paths(keys, x0, x1, y) -> list[tuple[int, MplPath]]:
    """``_segments_path`` of each distinct key's segments, in key order: [(key, path)], in one pass."""
    if x0.size == 0:
        return []
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    v = np.empty((x0.size, 2, 2))
    v[:, 0, 0], v[:, 1, 0] = x0[order], x1[order]
    v[:, 0, 1] = v[:, 1, 1] = y[order]
    v = v.reshape(-1, 2)
    codes = np.tile(LINE_CODES, x0.size)
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    bounds = np.r_[first, x0.size] * 2
    out = []
    for f, a, b in zip(first, bounds[:-1], bounds[1:]):
        path = MplPath(v[a:b], codes[a:b])
        path.should_simplify = False  # keep every segment; simplification would join across gaps
        out.append((int(keys[f]), path))
    return out


def _segments_path(x0, x1, y) -> MplPath:
    if x0.size == 0:
        path = MplPath(np.zeros((0, 2)))
        path.should_simplify = False
        return path
    ((_, path),) = _segments_paths(np.zeros(x0.size, dtype=np.int64), x0, x1, y)
    return path


def _dash_pattern(width_px: float):
    """The browser's [5, 3] px dash, in the units matplotlib expects for this line width."""
    on, off = (d * PT_PER_PX for d in THEME["dash"])
    if matplotlib.rcParams["lines.scale_dashes"]:
        on, off = on / (width_px * PT_PER_PX), off / (width_px * PT_PER_PX)
    return (0, (on, off))


def _add(ax, patch, gid=None):
    """Add a patch in data coordinates, clipped to the axes. (``add_patch`` would walk every
    vertex to update the data limits, which this module sets itself: 10^5 pieces took a minute.)"""
    patch.set_transform(ax.transData)
    if gid:
        patch.set_gid(gid)
    ax.add_artist(patch)
    return patch


def _fill(ax, path, color, zorder, gid=None):
    patch = PathPatch(path, facecolor=color, edgecolor="none", linewidth=0, zorder=zorder)
    return _add(ax, patch, gid)


def _line_style(width_px: float, dashed: bool) -> dict:
    """The browser's line: ``width_px`` wide, butt caps, mitred joins, solid or its dash."""
    return {
        "linewidth": width_px * PT_PER_PX,
        "capstyle": "butt",
        "joinstyle": "miter",
        "linestyle": _dash_pattern(width_px) if dashed else "solid",
    }


def _stroke(ax, path, color, width_px, zorder, dashed=False, gid=None):
    patch = PathPatch(path, facecolor="none", edgecolor=color, zorder=zorder, **_line_style(width_px, dashed))
    return _add(ax, patch, gid)


def _add_collection(ax, collection, gid=None):
    """Add a collection of paths in data coordinates, clipped to the axes, without touching the
    data limits (as ``_add``)."""
    collection.set_transform(ax.transData)
    if gid:
        collection.set_gid(gid)
    ax.add_collection(collection, autolim=False)
    return collection


def _fill_many(ax, paths, colors, zorder, gid=None):
    """Filled ``paths``, each in its colour, as one artist (drawn in order, as as many ``_fill`` would)."""
    collection = PathCollection(paths, facecolors=colors, edgecolors="none", linewidths=0, zorder=zorder)
    return _add_collection(ax, collection, gid)


def _stroke_many(ax, paths, colors, width_px, zorder, dashed=False, gid=None):
    """Stroked ``paths``, each in its colour, as one artist (``_stroke``'s line style)."""
    collection = PathCollection(
        paths, facecolors="none", edgecolors=colors, zorder=zorder, **_line_style(width_px, dashed)
    )
    return _add_collection(ax, collection, gid)


def _hatch(patch, color, width_px: float = 1.0):
    patch.set_hatch("//////")  # 36 lines per inch, 2/36 inch apart horizontally: the browser's 5 px
    if hasattr(patch, "set_hatchcolor"):
        patch.set_hatchcolor(color)
    else:  # matplotlib < 3.10 takes the hatch colour from the edge
        patch.set_edgecolor(color)
        patch.set_linewidth(0)
    if hasattr(patch, "set_hatch_linewidth"):
        patch.set_hatch_linewidth(width_px * PT_PER_PX)
