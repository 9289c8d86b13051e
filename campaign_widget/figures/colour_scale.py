"""Colour scaling (docs/data-movement.md#scalings): values → severity s ∈ [0, 1] → colour, for every view that colours
by a value (the dataflow graph's overlays, the local view's heatmaps).

Pure numpy (and matplotlib's colour tables); no widget code.

>>> severity([1, 2, 3, 100], "median").tolist()
[0.2, 0.4, 0.6, 1.0]
>>> colors([0.0, 0.5, 1.0, float("nan")])
['#00a800', '#959500', '#ff0000', '#c8c8c8']
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import CampaignWidgetError, FigureError, WrongTypeError, check_flag, short_repr

if TYPE_CHECKING:
    import numpy.typing as npt

SCALINGS = ("median", "mean", "hist", "linear", "log")
PALETTES = ("gyr", "viridis", "cividis", "RdYlGn")
NAN_COLOR = "#c8c8c8"  # values that are missing or out of the scale: grey

# ColorBrewer RdYlGn, 11 classes (the published table), oriented like the paper's palette:
# s = 0 is green (little), s = 1 is red (much). reverse=True flips it.
_RDYLGN_11 = (
    "#a50026",
    "#d73027",
    "#f46d43",
    "#fdae61",
    "#fee08b",
    "#ffffbf",
    "#d9ef8b",
    "#a6d96a",
    "#66bd63",
    "#1a9850",
    "#006837",
)[::-1]


# -- checks: errors name the field, the value and the valid ones ------------------------------------


def choice(kind: str, value: object, valid: Sequence[str]) -> str:
    """``value`` if it is one of ``valid``, else a ValueError naming ``kind``, the value and the valid ones."""
    if not isinstance(value, str) or value not in valid:
        raise CampaignWidgetError(f"unknown {kind} {short_repr(value)}; valid: {', '.join(valid)}")
    return value


def check_buckets(buckets: object) -> int:
    """``buckets`` as an int: 0 (one colour step per distinct value) or at least 2 (equal-width buckets)."""
    if isinstance(buckets, bool) or not isinstance(buckets, (int, np.integer)):
        raise WrongTypeError(
            f"buckets={buckets!r} must be an integer (0: one colour per distinct value, >= 2: equal-width buckets)"
        )
    if buckets == 1 or buckets < 0:
        raise CampaignWidgetError(f"buckets={buckets!r}: give 0 (one step per distinct value) or at least 2")
    return int(buckets)


def check_palette(palette: object) -> str | list[str]:
    """``palette`` as given if valid (a name in PALETTES or a list of ≥ 2 colours), else ValueError."""
    if isinstance(palette, str):
        return choice("palette", palette, PALETTES)
    if isinstance(palette, (list, tuple)):
        _stops(palette)
        return list(palette)
    raise FigureError(f"unknown palette {palette!r}; valid: {', '.join(PALETTES)} or a list of colours")


def _numbers(values: npt.ArrayLike, what: str) -> np.ndarray:
    """``values`` as float64, in their shape. A value is a real number, or None where it is missing; the
    argument itself must hold values: None, text, bools or a mapping are refused (``np.asarray`` would
    read None as one NaN and ``'2'`` as 2)."""

    def refused(got: object) -> WrongTypeError:
        return WrongTypeError(f"{what}={short_repr(values)} must be numbers (a list or array), got {got}")

    if values is None or isinstance(values, (str, bytes, dict, set, frozenset)):
        raise refused(type(values).__name__)
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        raise refused("a ragged or unreadable container") from None
    if raw.dtype.kind == "O":
        for x in raw.reshape(-1).tolist():
            if x is not None and (isinstance(x, bool) or not isinstance(x, numbers.Real)):
                raise refused(f"an entry {short_repr(x)}")
    elif raw.dtype.kind not in "iuf":
        raise refused(f"entries of dtype {raw.dtype}")
    try:
        return raw.astype(np.float64)
    except (TypeError, ValueError, OverflowError):
        raise refused("entries that are no float64") from None


def _values(values: npt.ArrayLike, what: str = "values") -> np.ndarray:
    v = _numbers(values, what)
    return v.reshape(-1) if v.ndim != 1 else v


def _in_scale(v: np.ndarray, zero_is_value: bool) -> np.ndarray:
    return np.isfinite(v) & ((v >= 0) if zero_is_value else (v > 0))


# -- the scale: values → s ---------------------------------------------------------------------------


def severity(
    values: npt.ArrayLike, method: str = "median", buckets: int = 0, *, zero_is_value: bool = False
) -> np.ndarray:
    """s ∈ [0, 1] per value (docs/data-movement.md#scalings), NaN where the value is missing, not finite or ≤ 0
    (0 is a value with ``zero_is_value``, for distances: an immediate re-reference).

    V is the values in the scale. ``median``: s = v / (2·median(V)); ``mean``: s = v / (2·mean(V))
    (both clamped to 1); ``hist``: s = rank of v among the distinct values of V / (|B| − 1), or with
    ``buckets`` = n ≥ 2, equal-width buckets on [min, max] and s = bucket / (n − 1); ``linear``:
    (v − min) / (max − min); ``log``: the same on ln v (0 when max = min). ``buckets`` is read by
    ``hist`` only.

    >>> bool(severity([1, 2, 3, 100], "mean")[2] == 3 / 53)
    True
    >>> severity([1, 2, 3, 100], "hist").tolist()
    [0.0, 0.3333333333333333, 0.6666666666666666, 1.0]
    """
    method = choice("scaling", method, SCALINGS)
    n_buckets = check_buckets(buckets)
    v = _values(values)
    ok = _in_scale(v, check_flag(zero_is_value, "zero_is_value"))
    s = np.full(v.shape, np.nan)
    if not ok.any():
        return s
    V = v[ok]
    if method in ("median", "mean"):
        c = centre(V, method)
        s[ok] = np.minimum(V / (2.0 * c), 1.0) if c > 0 else (V > 0).astype(float)
    elif method == "hist":
        lo, hi = V.min(), V.max()
        if n_buckets >= 2:
            s[ok] = (
                0.0
                if hi == lo
                else np.minimum(np.floor((V - lo) / (hi - lo) * n_buckets), n_buckets - 1) / (n_buckets - 1)
            )
        else:
            distinct = np.unique(V)
            s[ok] = 0.0 if distinct.size == 1 else np.searchsorted(distinct, V) / (distinct.size - 1)
    else:
        x = np.log(np.maximum(V, np.finfo(float).tiny)) if method == "log" else V
        lo, hi = x.min(), x.max()
        s[ok] = 0.0 if hi == lo else np.clip((x - lo) / (hi - lo), 0.0, 1.0)
    return s


def centre(V: np.ndarray, method: str) -> float:
    """The centre c of a median or mean scale (s = 0.5 at c)."""
    return float(np.median(V)) if method == "median" else float(np.mean(V))


def scale_range(values: npt.ArrayLike, method: str = "median", *, zero_is_value: bool = False) -> dict[str, Any]:
    """What a colour bar labels for ``severity(values, method)``: ``{method, centre, lo, hi}``
    (``centre`` for median and mean; all None when no value is in the scale)."""
    method = choice("scaling", method, SCALINGS)
    v = _values(values)
    V = v[_in_scale(v, check_flag(zero_is_value, "zero_is_value"))]
    out = {"method": method, "centre": None, "lo": None, "hi": None}
    if V.size:
        out.update(lo=float(V.min()), hi=float(V.max()))
        if method in ("median", "mean"):
            out["centre"] = centre(V, method)
    return out


def severity_rows(
    values: npt.ArrayLike, method: str = "median", buckets: int = 0
) -> tuple[np.ndarray, list[dict[str, Any]]]:
    """``severity`` of every row of a 2-D array at once (each row its own scale) and each row's
    ``scale_range``. Median, mean, linear and log are vectorized over the rows; hist loops."""
    method = choice("scaling", method, SCALINGS)
    v = _numbers(values, "values")
    if v.ndim != 2:
        raise CampaignWidgetError(f"values must be a 2-D array (one row per scale); got {v.ndim} dimensions")
    if method == "hist":
        return (
            np.array([severity(row, method, buckets) for row in v]).reshape(v.shape),
            [scale_range(row, method) for row in v],
        )
    ok = np.isfinite(v) & (v > 0)
    V = np.where(ok, v, np.nan)
    s = np.full(v.shape, np.nan)
    has = ok.any(axis=1)
    empty = {"method": method, "centre": None, "lo": None, "hi": None}
    if not has.any():
        return s, [dict(empty) for _ in range(v.shape[0])]
    c = None
    with np.errstate(all="ignore"), warnings.catch_warnings():
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
    ranges = [
        {
            **empty,
            "lo": float(lo[k]),
            "hi": float(hi[k]),
            "centre": None if c is None else float(c[k]),
        }
        if has[k]
        else dict(empty)
        for k in range(v.shape[0])
    ]
    return s, ranges


# -- the palette: s → colour -------------------------------------------------------------------------


#: The brightest a green-yellow-red colour is drawn (relative luminance, WCAG): pure yellow (0.93) and
#: green (0.72) on white are a contrast of 1.1 and 1.4, so they are darkened to this; at 0.28 a colour
#: contrasts ≥ 3:1 with white and ≥ 5:1 with the dark theme's #111111, as pure red (0.21) does.
GYR_MAX_LUMINANCE = 0.28


def relative_luminance(rgb01: np.ndarray) -> np.ndarray:
    """WCAG relative luminance of sRGB colours with channels in [0, 1] (last axis)."""
    linear = np.where(rgb01 <= 0.04045, rgb01 / 12.92, ((rgb01 + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def _gyr_rgb(s: np.ndarray) -> np.ndarray:
    """hue 120·(1 − s)°, saturation 1, lightness ½: (X, 1, 0) above 60°, (1, X, 0) below; then
    darkened, hue kept, to at most ``GYR_MAX_LUMINANCE`` so that every colour reads on either theme."""
    hue = 120.0 * (1.0 - s)
    x = 1.0 - np.abs((hue / 60.0) % 2.0 - 1.0)
    high = hue >= 60.0
    out = np.stack([np.where(high, x, 1.0), np.where(high, 1.0, x), np.zeros_like(s)], axis=-1)
    lum = relative_luminance(out)
    lo, hi = np.zeros_like(lum), np.ones_like(lum)
    for _ in range(24):  # the largest factor f with luminance(f · colour) ≤ the cap, by bisection
        mid = (lo + hi) / 2
        ok = relative_luminance(out * mid[..., None]) <= GYR_MAX_LUMINANCE
        lo, hi = np.where(ok, mid, lo), np.where(ok, hi, mid)
    return out * np.where(lum > GYR_MAX_LUMINANCE, lo, 1.0)[..., None]


def _table(name: str) -> np.ndarray:
    from matplotlib import colormaps

    return np.asarray(colormaps[name].colors, dtype=np.float64)[:, :3]


def _lookup(table: np.ndarray, s: np.ndarray) -> np.ndarray:
    """A 256-entry table read as matplotlib and d3 read it: entry ⌊s·N⌋, clipped."""
    n = len(table)
    return table[np.clip((s * n).astype(np.int64), 0, n - 1)]


def _interpolate(stops: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Linear interpolation in RGB between equally spaced stops."""
    pos = s * (len(stops) - 1)
    i = np.clip(np.floor(pos).astype(np.int64), 0, len(stops) - 2)
    f = (pos - i)[:, None]
    return stops[i] * (1 - f) + stops[i + 1] * f


def _stops(colours: Sequence[Any]) -> np.ndarray:
    from matplotlib.colors import to_rgb

    colours = list(colours)
    if len(colours) < 2:
        raise FigureError(f"a palette given as a list needs at least 2 colours, got {colours!r}")
    out = []
    for k, colour in enumerate(colours):
        try:
            out.append(to_rgb(colour))
        except (ValueError, TypeError):
            raise FigureError(f"palette colour {k} {colour!r} is not a colour (use '#rrggbb' or a name)") from None
    return np.asarray(out, dtype=np.float64)


def rgb(s: npt.ArrayLike, palette: str | Sequence[str] = "gyr", reverse: bool = False) -> np.ndarray:
    """uint8 colours of severities ``s`` (NaN → grey ``NAN_COLOR``), shape ``s.shape + (3,)``; see ``colors``."""
    palette = check_palette(palette)
    reverse = check_flag(reverse, "reverse")
    shape = np.shape(s)
    s = _values(s, "s")
    missing = np.isnan(s)
    t = np.clip(np.where(missing, 0.0, s), 0.0, 1.0)
    if reverse:
        t = 1.0 - t
    if palette == "gyr":
        out = _gyr_rgb(t)
    elif palette in ("viridis", "cividis"):
        out = _lookup(_table(palette), t)
    elif palette == "RdYlGn":
        out = _interpolate(_stops(_RDYLGN_11), t)
    else:
        out = _interpolate(_stops(palette), t)
    out = np.rint(out * 255.0).astype(np.uint8)
    out[missing] = hex_to_rgb(NAN_COLOR)
    return out.reshape(tuple(shape) + (3,)) if len(shape) > 1 else out


def hex_to_rgb(colour: str) -> np.ndarray:
    """``#rrggbb`` → uint8 [r, g, b]."""
    return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.uint8)


def hex_colors(triples: npt.ArrayLike) -> list[str]:
    """uint8 (n, 3) → ``#rrggbb`` per row."""
    return [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in np.asarray(triples, dtype=np.uint8).reshape(-1, 3).tolist()]


def colors(s: npt.ArrayLike, palette: str | Sequence[str] = "gyr", reverse: bool = False) -> list[str]:
    """``#rrggbb`` per severity (NaN → grey ``NAN_COLOR``).

    ``gyr``: hue 120·(1 − s)° at full saturation and 50% lightness (green, yellow, red);
    ``viridis``, ``cividis``: matplotlib's 256-entry tables (entry ⌊256·s⌋); ``RdYlGn``:
    ColorBrewer's 11 classes interpolated, green at s = 0 and red at s = 1 like ``gyr``; a list of
    colours: interpolated evenly. ``reverse`` reads the palette from the other end.

    >>> colors([0, 1], "viridis")
    ['#440154', '#fde725']
    """
    return hex_colors(rgb(s, palette, reverse))
