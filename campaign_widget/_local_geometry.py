"""View-only arrays for LocalView: element grids (design.md §7 "Element grids") and heatmap colours.

Pure numpy, no widget imports. Colours are the global view's palettes (``campaign_widget.dataflow``);
the scaling here follows design.md §7 too, and adds what a heatmap of distances needs: 0 as a value
(an immediate re-reference) and one scale per row for a whole capacity table at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .dataflow import NAN_COLOR
from .dataflow import rgb as _dataflow_rgb

if TYPE_CHECKING:
    import numpy.typing as npt

SCALINGS = ("median", "mean", "hist", "linear", "log")
PALETTES = ("gyr", "viridis", "cividis", "RdYlGn")
MISSING_RGB = tuple(int(NAN_COLOR[i : i + 2], 16) for i in (1, 3, 5))  # missing or out of the scale: as the global view


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
        raise ValueError(f"element_grid: shape {shape} has an empty dimension")
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


# -- scaling and palettes (design.md §7) ------------------------------------------------------------


def severity(
    values: npt.ArrayLike, method: str = "median", *, zero_is_value: bool = False
) -> tuple[np.ndarray, dict[str, Any]]:
    """s ∈ [0, 1] per value by design.md §7's scaling, and the scale's description.

    Values that are not finite, or ≤ 0 (unless ``zero_is_value``, for distances), get NaN: they are
    drawn grey and stay out of the scale. Returns (s, info) with info = {method, centre, lo, hi}.
    """
    if method not in SCALINGS and not (method.startswith("hist") and method[4:].isdigit()):
        raise ValueError(f"scaling={method!r} is not one of {SCALINGS} (or 'histN' with N ≥ 2 buckets)")
    v = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(v) & ((v >= 0) if zero_is_value else (v > 0))
    s = np.full(v.shape, np.nan)
    info = {"method": method, "centre": None, "lo": None, "hi": None}
    if not ok.any():
        return s, info
    V = v[ok]
    lo, hi = float(V.min()), float(V.max())
    info.update(lo=lo, hi=hi)
    if method in ("median", "mean"):
        c = float(np.median(V) if method == "median" else V.mean())
        info["centre"] = c
        s[ok] = V / (2 * c) if c > 0 else (V > 0).astype(float)
    elif method == "hist":
        distinct = np.unique(V)
        s[ok] = np.searchsorted(distinct, V) / (len(distinct) - 1) if len(distinct) > 1 else 0.0
    elif method.startswith("hist"):
        n = int(method[4:])
        if n < 2:
            raise ValueError(f"scaling={method!r}: a histogram needs at least 2 buckets")
        bucket = np.floor((V - lo) / (hi - lo) * n).clip(0, n - 1) if hi > lo else np.zeros_like(V)
        s[ok] = bucket / (n - 1)
    elif method == "linear":
        s[ok] = (V - lo) / (hi - lo) if hi > lo else 0.0
    else:  # log
        logs = np.log(np.maximum(V, np.finfo(float).tiny))
        a, b = logs.min(), logs.max()
        s[ok] = (logs - a) / (b - a) if b > a else 0.0
    np.clip(s, 0.0, 1.0, out=s)
    return s, info


def severity_rows(values: npt.ArrayLike, method: str = "median") -> tuple[np.ndarray, list[list[list]]]:
    """``severity`` of every row of a 2-D array at once (each row its own scale), and per row the
    ticks of its colour bar. Rows are vectorized for median, mean, linear and log; hist loops."""
    v = np.asarray(values, dtype=np.float64)
    if method not in ("median", "mean", "linear", "log"):
        rows = [severity(row, method) for row in v]
        return np.array([r[0] for r in rows]).reshape(v.shape), [bar_ticks(r[1]) for r in rows]
    ok = np.isfinite(v) & (v > 0)
    V = np.where(ok, v, np.nan)
    s = np.full(v.shape, np.nan)
    has = ok.any(axis=1)
    if not has.any():
        return s, [[] for _ in range(v.shape[0])]
    with np.errstate(all="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: no scale, handled by `has`
            lo, hi = np.nanmin(V, axis=1), np.nanmax(V, axis=1)
            if method in ("median", "mean"):
                if method == "median":  # sorted rows put NaN last: the middle of the first cnt values
                    S = np.sort(V, axis=1)
                    cnt = ok.sum(axis=1)
                    a = np.take_along_axis(S, np.maximum((cnt - 1) // 2, 0)[:, None], axis=1)[:, 0]
                    b = np.take_along_axis(S, np.maximum(cnt // 2 - (cnt == 0), 0)[:, None], axis=1)[:, 0]
                    c = (a + b) / 2
                else:
                    c = np.nanmean(V, axis=1)
                s = V / (2 * c[:, None])
            elif method == "linear":
                span = np.where(hi > lo, hi - lo, np.inf)
                s = (V - lo[:, None]) / span[:, None]
            else:
                L = np.log(V)
                a, b = np.nanmin(L, axis=1), np.nanmax(L, axis=1)
                span = np.where(b > a, b - a, np.inf)
                s = (L - a[:, None]) / span[:, None]
    s = np.where(ok, np.clip(s, 0.0, 1.0), np.nan)
    ticks = []
    for k in range(v.shape[0]):
        if not has[k]:
            ticks.append([])
        elif method in ("median", "mean"):
            ticks.append(bar_ticks({"method": method, "centre": float(c[k]), "lo": float(lo[k]), "hi": float(hi[k])}))
        else:
            ticks.append(bar_ticks({"method": method, "centre": None, "lo": float(lo[k]), "hi": float(hi[k])}))
    return s, ticks


def bar_ticks(info: dict) -> list:
    """Labelled ticks [[s, text]] of a colour bar for a scale described by ``severity``'s info."""
    lo, c = info.get("lo"), info.get("centre")
    if lo is None:
        return []
    if info.get("method") in ("median", "mean") and c:
        return [[0.0, "0"], [0.5, f"{c:.3g}"], [1.0, f"≥{2 * c:.3g}"]]
    return [[0.0, f"{lo:.3g}"], [1.0, f"{info.get('hi'):.3g}"]]


def palette_rgb(s: npt.ArrayLike, palette: str = "gyr") -> np.ndarray:
    """uint8 (n, 3) colours for severities ``s`` (NaN → grey), by the global view's palettes
    (``campaign_widget.dataflow.rgb``: the paper's green-yellow-red, viridis, cividis, RdYlGn)."""
    s = np.asarray(s, dtype=np.float64)
    return _dataflow_rgb(s.reshape(-1), palette).reshape(s.shape + (3,))


def colour_bar(info: dict, palette: str, title: str, unit: str = "") -> dict:
    """What the view needs to draw a colour bar: 11 colour stops and labelled ticks (JSON-small)."""
    rgb = palette_rgb(np.linspace(0, 1, 11), palette)
    ticks = bar_ticks(info)
    return {
        "title": title,
        "unit": unit,
        "method": info.get("method", ""),
        "stops": ["#{:02x}{:02x}{:02x}".format(*(int(v) for v in c_)) for c_ in rgb],
        "ticks": ticks,
    }
