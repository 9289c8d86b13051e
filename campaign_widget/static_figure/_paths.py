"""Geometry as compound matplotlib paths: one artist per style, as the browser batches its drawing."""

from __future__ import annotations

import matplotlib
import numpy as np
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
    n = x0.size
    if n == 0:
        return MplPath(np.zeros((0, 2)))
    order = np.argsort(x0, kind="stable")
    x0, x1, y0, y1 = x0[order], x1[order], y0[order], y1[order]
    tol = 1e-12 * np.maximum(1.0, np.abs(x1[:-1]))
    start = np.r_[True, np.abs(x0[1:] - x1[:-1]) > tol]
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
    return MplPath(v, codes, readonly=True)


def _segments_path(x0, x1, y) -> MplPath:
    n = x0.size
    v = np.empty((n, 2, 2))
    v[:, 0, 0], v[:, 1, 0] = x0, x1
    v[:, 0, 1] = v[:, 1, 1] = y
    path = MplPath(v.reshape(-1, 2), np.tile(LINE_CODES, n))
    path.should_simplify = False  # keep every segment; simplification would join across gaps
    return path


def _groups(keys: np.ndarray):
    """(key, indices) for each distinct key, in key order."""
    if keys.size == 0:
        return
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    bounds = np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1
    for idx in np.split(order, bounds):
        yield sorted_keys.dtype.type(keys[idx[0]]), idx


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


def _stroke(ax, path, color, width_px, zorder, dashed=False, gid=None):
    patch = PathPatch(
        path,
        facecolor="none",
        edgecolor=color,
        linewidth=width_px * PT_PER_PX,
        zorder=zorder,
        capstyle="butt",
        joinstyle="miter",
        linestyle=_dash_pattern(width_px) if dashed else "solid",
    )
    return _add(ax, patch, gid)


def _hatch(patch, color, width_px: float = 1.0):
    patch.set_hatch("//////")  # 36 lines per inch, 2/36 inch apart horizontally: the browser's 5 px
    if hasattr(patch, "set_hatchcolor"):
        patch.set_hatchcolor(color)
    else:  # matplotlib < 3.10 takes the hatch colour from the edge
        patch.set_edgecolor(color)
        patch.set_linewidth(0)
    if hasattr(patch, "set_hatch_linewidth"):
        patch.set_hatch_linewidth(width_px * PT_PER_PX)
