"""The pieces a figure draws: a scene's arrays, merged per pixel column above a size (the rule of
``campaign_widget.figures.scene_pixels``, which the browser's js/diagram/aggregate.js follows), and which styles
they need (for the legend)."""

from __future__ import annotations

import numpy as np

from ..figures.readout import legend_features
from ..figures.scene import Scene
from ..figures.scene_pixels import MERGE_FIELDS, merge_pixel_columns

DETAIL_LIMIT = 3000  # js/diagram/aggregate.js: above this many visible pieces, sub-pixel ones are merged


def piece_arrays(scene: Scene) -> dict[str, np.ndarray]:
    """The scene's piece arrays (``MERGE_FIELDS``) as float64 / int64 / uint8, pieces without a
    finite, positive width left out (nothing to draw)."""
    x0 = np.asarray(scene.x0, dtype=np.float64)
    x1 = np.asarray(scene.x1, dtype=np.float64)
    keep = np.isfinite(x0) & np.isfinite(x1) & (x1 > x0)
    idx = slice(None) if keep.all() else np.flatnonzero(keep)
    dtypes = {"phase": np.int64, "flags": np.uint8}
    return {name: np.asarray(getattr(scene, name), dtype=dtypes.get(name, np.float64))[idx] for name in MERGE_FIELDS}


def pieces_to_draw(pieces: dict, t0: float, t1: float, columns: float, limit: int = DETAIL_LIMIT) -> dict:
    """The pieces over [t0, t1] worth drawing on ``columns`` pixels of width, as the browser draws
    them: all of them when at most ``limit`` are visible, else merged per pixel column and phase
    (``scene_pixels.merge_pixel_columns``)."""
    return merge_pixel_columns(pieces, t0, t1, columns, limit=limit)


def scene_features(scene: Scene) -> dict:
    """Which warning and dilation styles the scene uses, for the legend keys (campaign_widget.figures.readout)."""
    return legend_features(scene)
