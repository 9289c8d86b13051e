"""The pieces a figure draws: a scene's arrays, merged per pixel column below a size (as
js/aggregate.js does), and which styles they need (for the legend)."""

from __future__ import annotations

import math

import numpy as np

from ..readout import legend_features
from ..scene import Scene


def _piece_arrays(scene: Scene):
    x0 = np.asarray(scene.x0, dtype=np.float64)
    x1 = np.asarray(scene.x1, dtype=np.float64)
    keep = np.isfinite(x0) & np.isfinite(x1) & (x1 > x0)
    if not keep.all():
        idx = np.flatnonzero(keep)
    else:
        idx = slice(None)
    get = lambda a, dtype=np.float64: np.asarray(a, dtype=dtype)[idx]  # noqa: E731
    return {
        "x0": x0[idx],
        "x1": x1[idx],
        "phase": get(scene.phase, np.int64),
        "base": get(scene.base_y),
        "line": get(scene.line_y),
        "well": get(scene.well_top),
        "fill": get(scene.fill_top),
        "dash": get(scene.dash_from),
        "flags": get(scene.flags, np.uint8),
    }


DETAIL_LIMIT = 3000  # js/aggregate.js: above this many visible pieces, sub-pixel ones are merged


def pieces_to_draw(pieces: dict, t0: float, t1: float, columns: float, limit: int = DETAIL_LIMIT) -> dict:
    """The pieces over [t0, t1] that are worth drawing on ``columns`` pixels of width (a port of
    js/aggregate.js ``piecesToDraw``): all of them when few are visible; otherwise pieces narrower
    than a pixel are merged per pixel column and phase (lowest base, highest line, well and fill,
    the largest spill kept, flags or-ed, dashed when most of the merged time is), so a 10^5-piece
    scene draws as fast as a few thousand and looks as the browser draws it."""
    visible = (pieces["x1"] > t0) & (pieces["x0"] < t1)
    if not visible.all():
        pieces = {k: v[visible] for k, v in pieces.items()}
    n = pieces["x0"].size
    if n <= limit or not t1 > t0 or not columns > 0:
        return pieces
    count = max(1, math.ceil(columns))
    per = count / (t1 - t0)
    x0, x1, phase = pieces["x0"], pieces["x1"], pieces["phase"]
    narrow = ((x1 - x0) * per < 1) & (phase >= 0)
    if not narrow.any():
        return pieces
    idx = np.flatnonzero(narrow)
    column = np.clip(np.floor(((x0[idx] + x1[idx]) / 2 - t0) * per), 0, count - 1).astype(np.int64)
    key = column * (int(phase[idx].max()) + 1) + phase[idx]
    order = np.argsort(key, kind="stable")
    idx, key, column = idx[order], key[order], column[order]
    first = np.r_[0, np.flatnonzero(key[1:] != key[:-1]) + 1]

    def reduce(ufunc, values):
        return ufunc.reduceat(values[idx], first)

    well = reduce(np.maximum, pieces["well"])
    spill = np.maximum(0.0, reduce(np.maximum, pieces["fill"] - pieces["well"]))
    inside = reduce(np.maximum, np.minimum(pieces["fill"], pieces["well"]))
    length = x1 - x0
    dash = np.clip(np.where(np.isnan(pieces["dash"]), x1, pieces["dash"]), x0, x1)
    time = reduce(np.add, length)
    dashed = reduce(np.add, x1 - dash)
    b0 = t0 + column[first] / per
    b1 = t0 + (column[first] + 1) / per
    merged = {
        "x0": b0,
        "x1": b1,
        "phase": phase[idx][first],
        "base": reduce(np.minimum, pieces["base"]),
        "line": reduce(np.maximum, pieces["line"]),
        "well": well,
        "fill": np.where(spill > 0, well + spill, inside),
        "dash": np.where(dashed > time / 2, b0, b1),
        "flags": (reduce(np.bitwise_or, pieces["flags"]) | np.where(spill > 0, 2, 0)).astype(np.uint8),
    }
    wide = ~narrow
    return {k: np.concatenate([pieces[k][wide], merged[k]]) for k in pieces}


def scene_features(scene: Scene) -> dict:
    """Which warning and dilation styles the scene uses, for the legend keys (campaign_widget.readout)."""
    return legend_features(scene)
