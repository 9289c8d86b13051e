"""Campaign diagrams and rooflines as PNG, SVG or PDF files, with no browser and no kernel.

The static figure draws the same ``Scene`` as the browser view (``js/draw.js``) with the same
look: the constants below mirror ``js/theme.js`` and ``js/layout.js`` (sizes in CSS px, one inch =
96 CSS px, so an 8-inch figure matches a 768-px-wide widget). Only matplotlib's object API with
the Agg canvas is used, never pyplot's global state, so exports work in CI jobs and in threads.

>>> from campaign_widget import Phase, Workload                          # doctest: +SKIP
>>> w = Workload([Phase("A", duration=3, compute_util=.7, memory_util=.25),
...               Phase("B", duration=10, compute_util=.2, memory_util=.9, after=["A"])])
>>> save_workload_figure(w, "campaign.svg", tiles=4, pipeline=True, roofline=True)

Text that comes from users (phase names, titles, units) is drawn literally: mathtext is off for
every text this module creates, so ``"$x$"`` stays ``$x$``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont
from matplotlib.lines import Line2D
from matplotlib.patches import PathPatch, Rectangle
from matplotlib.path import Path as MplPath
from matplotlib.text import Text
from matplotlib.textpath import TextToPath
from matplotlib.transforms import Affine2D, ScaledTranslation

from .colors import phase_colors
from .formatting import (format_number, format_percent, format_quantity, format_si, format_span,
                         format_ticks)
from .machine import Ceiling
from .scene import Scene, build_scene

__all__ = ["Panel", "RooflinePanel", "RenderedFigure", "draw_campaign", "draw_roofline", "render_figure",
           "savefig", "save_workload_figure", "panel_for", "roofline_panel_for", "FORMATS"]

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
PX_PER_INCH = 96.0  # CSS px
PT_PER_PX = 72.0 / PX_PER_INCH

# js/theme.js, in CSS px.
THEME = {
    "background": "#ffffff",
    "text": "#222222",
    "muted_text": "#666666",
    "axis": "#333333",
    "grid": "#e6e6e6",
    "capacity": "#a8a8a8",
    "well": "#ececec",
    "rail": "#8c8c8c",
    "warning": "#d62728",
    "spill_fill": (214 / 255, 39 / 255, 40 / 255, 0.18),
    "group_band": (0, 0, 0, 0.045),
    "group_band_alternate": (0, 0, 0, 0.02),
    "group_boundary": "#c8c8c8",
    "hatch": (214 / 255, 39 / 255, 40 / 255, 0.9),
    "font_size": 11,
    "title_font_size": 13,
    "compute_line_width": 2.5,
    "rail_width": 1.25,
    "grid_width": 1.0,
    "shade_alpha": 0.12,
    "fill_lighten": 0.35,
    "dash": (5.0, 3.0),
    "tick_length": 4.0,
}
# js/layout.js, in CSS px; the rest is this module's page layout.
LAYOUT = {
    "pad": 10, "right_pad": 18, "title_gap": 10, "axis_label_gap": 8, "tick_label_gap": 4,
    "x_tick_label_height": 14, "x_label_height": 16, "legend_gap": 10, "legend_row_height": 18,
    "legend_swatch_width": 18, "legend_item_gap": 16, "readout_line_height": 15, "headroom": 0.04,
    "panel_gap": 14, "column_gap": 28,
}
FONT_FAMILIES = ("Helvetica Neue", "Helvetica", "Arial", "Liberation Sans", "Arimo", "DejaVu Sans")
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
_GREY = "#808080"
_LINE_CODES = np.array([MplPath.MOVETO, MplPath.LINETO], dtype=np.uint8)
_RECT_CODES = np.array([MplPath.MOVETO, MplPath.LINETO, MplPath.LINETO, MplPath.LINETO, MplPath.CLOSEPOLY],
                       dtype=np.uint8)
_PEAK_LABEL_CLEARANCE_PX = 14
# The bqplot roofline view's colours (campaign_widget/roofline_view.py).
ROOFLINE = {"roof": "#333333", "ceiling": "#999999", "ceiling_label": "#777777", "point_edge": "#222222",
            "aggregate": "#111111"}
_TEXT_TO_PATH = TextToPath()


# -- the data a figure shows ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Panel:
    """One campaign diagram: a scene and how to label it (the browser view's traits)."""

    scene: Scene
    names: Sequence[str]
    colors: Sequence[str]
    units: Mapping[str, str] = field(default_factory=lambda: {"time": "s", "compute": "ops/s"})
    resource_names: tuple = ("compute", "memory")
    title: str = ""
    y_axis: str = "relative"
    peak_compute: float = 1.0
    time_max: float = 0.0  # > 0: the time axis reaches at least this far (stacked panels)
    group_labels: Sequence[str] = ()  # fusion-group labels, indexed by scene.group_id

    def __post_init__(self):
        if not isinstance(self.scene, Scene):
            raise TypeError(f"Panel.scene must be a campaign_widget.scene.Scene, got {type(self.scene).__name__}")
        if self.y_axis not in ("relative", "absolute"):
            raise ValueError(f"y_axis={self.y_axis!r} must be 'relative' or 'absolute'")
        if not (math.isfinite(self.time_max) and self.time_max >= 0):
            raise ValueError(f"time_max={self.time_max!r} must be a finite number >= 0")
        object.__setattr__(self, "names", [str(n) for n in self.names])
        object.__setattr__(self, "colors", [str(c) for c in self.colors])
        object.__setattr__(self, "resource_names", tuple(str(r) for r in self.resource_names))
        object.__setattr__(self, "title", "" if self.title is None else str(self.title))
        object.__setattr__(self, "group_labels", [str(g) for g in self.group_labels])

    @property
    def makespan(self) -> float:
        return float(self.scene.x_max)

    @property
    def time_end(self) -> float:
        """The end of this panel's own time axis: ``max(time_max, x_max)``."""
        return max(float(self.time_max), float(self.scene.x_max))


@dataclass(frozen=True, eq=False)
class RooflinePanel:
    """A roofline (design.md §5): roofs, extra ceilings, one point per phase and aggregate points.

    ``share`` is each phase's share of time (marker area ∝ share); ``aggregates`` holds
    ``(label, intensity, achieved)`` triples, one per schedule.
    """

    peak_compute: float
    peak_bandwidth: float
    ceilings: tuple = ()
    intensity: Sequence[float] = ()
    achieved: Sequence[float] = ()
    share: Sequence[float] = ()
    names: Sequence[str] = ()
    colors: Sequence[str] = ()
    aggregates: Sequence[tuple] = ()
    units: Mapping[str, str] = field(default_factory=lambda: {"compute": "FLOP/s", "bandwidth": "B/s",
                                                              "intensity": "FLOP/B"})
    title: str = "roofline"

    def __post_init__(self):
        for key in ("peak_compute", "peak_bandwidth"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)) \
                    or not math.isfinite(value) or value <= 0:
                raise ValueError(f"RooflinePanel.{key}={value!r} must be a finite number > 0")
        n = len(self.intensity)
        for key in ("achieved", "share"):
            if len(getattr(self, key)) != n:
                raise ValueError(f"RooflinePanel.{key} has {len(getattr(self, key))} values for {n} points")
        for c in self.ceilings:
            if not isinstance(c, Ceiling):
                raise TypeError(f"RooflinePanel.ceilings takes Ceiling objects, got {c!r}")
        object.__setattr__(self, "ceilings", tuple(self.ceilings))
        object.__setattr__(self, "intensity", np.asarray(self.intensity, dtype=np.float64).reshape(-1))
        object.__setattr__(self, "achieved", np.asarray(self.achieved, dtype=np.float64).reshape(-1))
        object.__setattr__(self, "share", np.asarray(self.share, dtype=np.float64).reshape(-1))
        object.__setattr__(self, "names", [str(x) for x in self.names])
        object.__setattr__(self, "colors", [str(x) for x in self.colors])
        object.__setattr__(self, "aggregates", [(str(a), float(b), float(c)) for a, b, c in self.aggregates])

    @property
    def ridge(self) -> float:
        return self.peak_compute / self.peak_bandwidth


def _nice_step(span: float, count: int) -> float:
    if not (span > 0) or not math.isfinite(span):
        return 0.0
    raw = span / max(1, count)
    magnitude = 10 ** math.floor(math.log10(raw))
    ratio = raw / magnitude
    factor = 10 if ratio >= math.sqrt(50) else 5 if ratio >= math.sqrt(10) else 2 if ratio >= math.sqrt(2) else 1
    return factor * magnitude


def _nice_ticks(lo: float, hi: float, count: int = 5):
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [], 0.0
    lo, hi = min(lo, hi), max(lo, hi)
    step = _nice_step(hi - lo, count)
    if step == 0:
        return [lo], 0.0
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    values = [float(f"{k * step:.12g}") for k in range(first, min(last, first + 999) + 1)]
    return values, step


def _tick_count(pixels: float, spacing: float) -> int:
    return max(2, int(pixels // spacing))


def time_ticks(t0: float, t1: float, pixels: float) -> list[tuple[float, str]]:
    """The browser's time-axis ticks: about one per 90 CSS px, at 1-2-5 steps."""
    values, step = _nice_ticks(t0, t1, _tick_count(pixels, 90))
    return list(zip(values, format_ticks(values, step)))


def utilization_ticks(mode: str, peak: float, unit: str, pixels_per_unit: float) -> list[tuple[float, str]]:
    """The browser's y ticks, only up to 1.0: fractions, or y × peak in ``unit`` (absolute)."""
    count = min(10, _tick_count(pixels_per_unit, 40))
    if mode == "absolute" and peak > 0 and math.isfinite(peak):
        values, step = _nice_ticks(0, peak, count)
        labels = format_ticks(values, step, unit or "")
        ticks = [(v / peak, label) for v, label in zip(values, labels)
                 if (1 - v / peak) * pixels_per_unit >= _PEAK_LABEL_CLEARANCE_PX]
        ticks.append((1.0, format_si(peak, unit or "")))
        return ticks
    values, step = _nice_ticks(0, 1, count)
    return list(zip(values, format_ticks(values, step)))


# -- colours and fonts ------------------------------------------------------------------------------


def _valid_color(color) -> str:
    return color if isinstance(color, str) and _HEX.match(color) else _GREY


def _rgb(color: str):
    n = int(_valid_color(color)[1:], 16)
    return (n >> 16) & 255, (n >> 8) & 255, n & 255


def lighten(color: str, amount: float) -> str:
    """Mix with white (js/color.js): 0 keeps the colour, 1 gives white."""
    return "#" + "".join(f"{math.floor(c + (255 - c) * amount + 0.5):02x}" for c in _rgb(color))


def _with_alpha(color: str, alpha: float):
    r, g, b = _rgb(color)
    return (r / 255, g / 255, b / 255, alpha)


@lru_cache(maxsize=1)
def _font_family() -> tuple[str, ...]:
    """The browser's font stack, as far as this machine has it, with DejaVu Sans as the glyph
    fallback (it ships with matplotlib)."""
    for family in FONT_FAMILIES:
        try:
            findfont(FontProperties(family=family), fallback_to_default=False)
        except ValueError:
            continue
        return (family, "DejaVu Sans") if family != "DejaVu Sans" else (family,)
    return ("DejaVu Sans",)


def _font(size_px: float = THEME["font_size"], weight: str = "normal") -> FontProperties:
    return FontProperties(family=list(_font_family()), size=size_px * PT_PER_PX, weight=weight)


def _text_width_px(text: str, size_px: float = THEME["font_size"], weight: str = "normal") -> float:
    if not text:
        return 0.0
    width, _, _ = _TEXT_TO_PATH.get_text_width_height_descent(text, _font(size_px, weight), ismath=False)
    return width / PT_PER_PX


def _literal(**kwargs) -> dict:
    """Text properties for user text: no mathtext, no TeX."""
    return {"parse_math": False, "usetex": False, **kwargs}


# -- geometry as compound paths (one artist per style, as the browser's batches) --------------------


def _rects_path(x0, x1, y0, y1) -> MplPath:
    n = x0.size
    v = np.empty((n, 5, 2))
    v[:, 0, 0], v[:, 0, 1] = x0, y0
    v[:, 1, 0], v[:, 1, 1] = x1, y0
    v[:, 2, 0], v[:, 2, 1] = x1, y1
    v[:, 3, 0], v[:, 3, 1] = x0, y1
    v[:, 4] = v[:, 0]
    return MplPath(v.reshape(-1, 2), np.tile(_RECT_CODES, n), readonly=True)


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
    path = MplPath(v.reshape(-1, 2), np.tile(_LINE_CODES, n))
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
    patch = PathPatch(path, facecolor="none", edgecolor=color, linewidth=width_px * PT_PER_PX, zorder=zorder,
                      capstyle="butt", joinstyle="miter",
                      linestyle=_dash_pattern(width_px) if dashed else "solid")
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
        "x0": x0[idx], "x1": x1[idx], "phase": get(scene.phase, np.int64), "base": get(scene.base_y),
        "line": get(scene.line_y), "well": get(scene.well_top), "fill": get(scene.fill_top),
        "dash": get(scene.dash_from), "flags": get(scene.flags, np.uint8),
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
        "x0": b0, "x1": b1, "phase": phase[idx][first], "base": reduce(np.minimum, pieces["base"]),
        "line": reduce(np.maximum, pieces["line"]), "well": well,
        "fill": np.where(spill > 0, well + spill, inside),
        "dash": np.where(dashed > time / 2, b0, b1),
        "flags": (reduce(np.bitwise_or, pieces["flags"]) | np.where(spill > 0, 2, 0)).astype(np.uint8),
    }
    wide = ~narrow
    return {k: np.concatenate([pieces[k][wide], merged[k]]) for k in pieces}


def scene_features(scene: Scene) -> dict:
    """Which warning and dilation styles the scene uses (js/legend.js), for the legend keys."""
    p = _piece_arrays(scene)
    dash = np.clip(np.where(np.isnan(p["dash"]), p["x1"], p["dash"]), p["x0"], p["x1"])
    dashed = (p["x1"] - dash) > 1e-9 * (np.abs(p["x0"]) + np.abs(p["x1"]))
    return {"spill": bool(np.any(p["fill"] > p["well"])), "compute_over": bool(np.any(p["flags"] & 1)),
            "dashed": bool(np.any(dashed))}


def _draw_pieces(ax, p: dict, colors: Sequence[str]):
    """The browser's layers, bottom to top: shade under the compute line, grey wells, memory
    fill, spill (red, hatched), guard rails, compute lines (solid, then dashed; red where
    compute is oversubscribed). One artist per style, as the browser batches them per style.
    ``p`` holds the piece arrays (``_piece_arrays`` / ``pieces_to_draw``)."""
    x0, x1, phase = p["x0"], p["x1"], p["phase"]
    base, line, well, fill = p["base"], p["line"], p["well"], p["fill"]
    colors = [_valid_color(c) for c in colors]

    def color_of(k):
        return colors[k] if 0 <= k < len(colors) else _GREY

    shade = line > base
    for k, idx in _groups(phase[shade]):
        sel = np.flatnonzero(shade)[idx]
        _fill(ax, _runs_path(x0[sel], x1[sel], base[sel], line[sel]),
              _with_alpha(color_of(int(k)), THEME["shade_alpha"]), 1.0)
    wells = well > line
    if wells.any():
        _fill(ax, _runs_path(x0[wells], x1[wells], line[wells], well[wells]), THEME["well"], 1.1, gid="wells")
    top = np.minimum(fill, well)
    filled = top > line
    for k, idx in _groups(phase[filled]):
        sel = np.flatnonzero(filled)[idx]
        _fill(ax, _runs_path(x0[sel], x1[sel], line[sel], top[sel]),
              lighten(color_of(int(k)), THEME["fill_lighten"]), 1.2)
    spill = fill > well
    if spill.any():
        path = _runs_path(x0[spill], x1[spill], np.maximum(well, line)[spill], fill[spill])
        _fill(ax, path, THEME["spill_fill"], 1.3, gid="spill")
        hatch = PathPatch(path, facecolor="none", edgecolor="none", linewidth=0, zorder=1.31)
        _hatch(hatch, THEME["hatch"])
        _add(ax, hatch, "spill-hatch")
    if x0.size:
        _stroke(ax, _segments_path(x0, x1, well), THEME["rail"], THEME["rail_width"], 1.4, gid="rails")

    dash = np.clip(np.where(np.isnan(p["dash"]), x1, p["dash"]), x0, x1)
    over = (p["flags"] & 1).astype(bool)
    style = np.where(over, -1, phase)
    width = THEME["compute_line_width"]
    for dashed, a, b in ((False, x0, dash), (True, dash, x1)):
        present = b > a
        for k, idx in _groups(style[present]):
            sel = np.flatnonzero(present)[idx]
            color = THEME["warning"] if k < 0 else color_of(int(k))
            _stroke(ax, _segments_path(a[sel], b[sel], line[sel]), color, width, 1.5, dashed=dashed)


# -- one campaign diagram ---------------------------------------------------------------------------


def y_top(scene: Scene) -> float:
    """The y value at the top of the plot: a little headroom above the scene's y_max."""
    return float(scene.y_max) * (1 + LAYOUT["headroom"])


def _root_figure(ax):
    try:
        return ax.get_figure(root=True)
    except TypeError:  # matplotlib < 3.10
        return ax.figure


def _axes_size_px(ax) -> tuple[float, float]:
    """The axes' size in CSS px (tick density follows it, as in the browser)."""
    fig = _root_figure(ax)
    box = ax.get_window_extent()
    return box.width * PX_PER_INCH / fig.dpi, box.height * PX_PER_INCH / fig.dpi


def _y_ticks(panel: Panel, plot_height_px: float):
    top = y_top(panel.scene)
    return utilization_ticks(panel.y_axis, panel.peak_compute, panel.units.get("compute", ""), plot_height_px / top)


def _y_label(panel: Panel) -> str:
    resource = (panel.resource_names[0] if panel.resource_names else "") or "compute"
    if panel.y_axis == "absolute":
        return f"{resource} ({panel.units.get('compute') or 'ops/s'})"
    return f"{resource} utilization"


def _x_label(units: Mapping[str, str]) -> str:
    unit = units.get("time", "")
    return f"time ({unit})" if unit else "time"


def readout_lines(panel: Panel) -> list[tuple[str, str]]:
    """The browser canvas's readout (js/readout.js): the makespan, then one line per
    oversubscribed resource. Returns ``[(text, kind)]``, kind "makespan" or "oversubscribed"."""
    scene, unit = panel.scene, panel.units.get("time", "")
    lines = [(f"makespan {format_quantity(float(scene.x_max), unit, 6)}", "makespan")]
    resources = np.asarray(scene.over_resource, dtype=np.int64)
    for r in sorted(set(resources.tolist())):
        sel = resources == r
        count = int(sel.sum())
        name = panel.resource_names[r] if r < len(panel.resource_names) else ("compute" if r == 0 else "memory")
        peak = float(np.max(scene.over_demand[sel]))
        span = format_span(float(np.min(scene.over_t0[sel])), float(np.max(scene.over_t1[sel])))
        span += f" {unit}" if unit else ""
        intervals = "1 interval" if count == 1 else f"{count} intervals"
        lines.append((f"{name} oversubscribed: up to {format_percent(peak)} demand in {intervals}, {span}",
                      "oversubscribed"))
    return lines


def _header_rows(panel: Panel, plot_width_px: float) -> list[list[tuple[str, str, str]]]:
    """Rows above the plot, top first: the title (left) with the makespan (right) when they fit
    side by side, then the oversubscription lines. Each row: [(text, kind, align)]."""
    lines = readout_lines(panel)
    makespan, rest = lines[0][0], lines[1:]
    rows = []
    if panel.title:
        fits = (_text_width_px(panel.title, THEME["title_font_size"], "bold")
                + _text_width_px(makespan, weight="bold") + 24) <= plot_width_px
        if fits:
            rows.append([(panel.title, "title", "left"), (makespan, "makespan", "right")])
        else:
            rows += [[(panel.title, "title", "left")], [(makespan, "makespan", "right")]]
    else:
        rows.append([(makespan, "makespan", "left")])
    rows += [[(text, kind, "left")] for text, kind in rest]
    return rows


def _row_height(row) -> float:
    return THEME["title_font_size"] + 4 if any(kind == "title" for _, kind, _ in row) \
        else LAYOUT["readout_line_height"]


def _header_height(rows) -> float:
    return sum(_row_height(r) for r in rows) + LAYOUT["title_gap"] / 2 + THEME["font_size"] / 2


def _draw_header(ax, rows):
    """The header rows, placed in CSS px above the axes' top edge."""
    offset = THEME["font_size"] / 2 + LAYOUT["title_gap"] / 2
    for row in reversed(rows):
        height = _row_height(row)
        centre = offset + height / 2
        offset += height
        for text, kind, align in row:
            x = 0.0 if align == "left" else 1.0
            size, weight, color = THEME["font_size"], "normal", THEME["text"]
            if kind == "title":
                size, weight = THEME["title_font_size"], "bold"
            elif kind == "makespan":
                weight = "bold"
            elif kind == "oversubscribed":
                color = THEME["warning"]
            t = ax.annotate(text, (x, 1.0), xycoords="axes fraction", xytext=(0, centre * PT_PER_PX),
                            textcoords="offset points", ha=align, va="center", color=color,
                            fontproperties=_font(size, weight), annotation_clip=False, **_literal())
            t.set_gid(f"cw-{kind}")


def draw_campaign(ax, panel: Panel, *, time_range: tuple[float, float] | None = None, header: bool = True,
                  xlabel: bool = True, legend: bool = True):
    """Draw one campaign diagram onto ``ax`` (the browser view's look; pure drawing).

    ``time_range`` defaults to ``[0, max(panel.time_max, scene.x_max)]``. ``header`` draws the
    title, makespan and oversubscription readout above the axes; ``legend`` draws the phase
    legend below them. Tick density follows the axes' size on the figure, as in the browser.
    """
    if not isinstance(panel, Panel):
        raise TypeError(f"draw_campaign takes a Panel, got {type(panel).__name__}")
    scene = panel.scene
    t0, t1 = time_range if time_range is not None else (0.0, panel.time_end)
    if not t1 > t0:
        t1 = t0 + 1.0
    top = y_top(scene)
    width_px, height_px = _axes_size_px(ax)

    ax.set_xlim(t0, t1)
    ax.set_ylim(0.0, top)
    ax.set_facecolor(THEME["background"])
    ax.set_navigate(False)

    x_ticks = time_ticks(t0, t1, width_px)
    y_ticks = _y_ticks(panel, height_px)
    _draw_group_bands(ax, scene, t0, t1, top)
    _draw_grid(ax, [v for v, _ in x_ticks], [v for v, _ in y_ticks], t0, t1)
    dpi = _root_figure(ax).dpi
    _draw_pieces(ax, pieces_to_draw(_piece_arrays(scene), t0, t1, width_px * dpi / PX_PER_INCH), panel.colors)

    _draw_group_labels(ax, scene, panel.group_labels, t0, t1, width_px)

    tick_font = _font()
    ax.set_xticks([v for v, _ in x_ticks], [label for _, label in x_ticks], **_literal())
    ax.set_yticks([v for v, _ in y_ticks], [label for _, label in y_ticks], **_literal())
    for label in ax.get_xticklabels() + ax.get_yticklabels():
        label.set_fontproperties(tick_font)
    ax.tick_params(axis="both", which="both", direction="out", length=THEME["tick_length"] * PT_PER_PX,
                   width=PT_PER_PX, color=THEME["axis"], labelcolor=THEME["text"],
                   pad=(THEME["tick_length"] / 2 + 1) * PT_PER_PX)
    ax.tick_params(axis="y", pad=3 * PT_PER_PX)
    ax.minorticks_off()
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(THEME["axis"])
        ax.spines[side].set_linewidth(PT_PER_PX)
        ax.spines[side].set_zorder(2.6)
    ax.spines["left"].set_bounds(0.0, 1.0)  # the utilization spine spans 0…1 only

    ax.set_ylabel(_y_label(panel), fontproperties=_font(), color=THEME["text"],
                  labelpad=LAYOUT["axis_label_gap"] * PT_PER_PX, **_literal())
    ax.yaxis.label.set_y(0.5 / top)  # centred on 0…1, as in the browser
    if xlabel:
        ax.set_xlabel(_x_label(panel.units), fontproperties=_font(), color=THEME["text"],
                      labelpad=4 * PT_PER_PX, **_literal())
    if header:
        _draw_header(ax, _header_rows(panel, width_px))
    if legend:
        entries = legend_entries([panel])
        fig = _root_figure(ax)
        transform = (Affine2D().scale(1 / PX_PER_INCH, -1 / PX_PER_INCH) + fig.dpi_scale_trans
                     + ScaledTranslation(0, 0, ax.transAxes))
        below = THEME["tick_length"] + LAYOUT["x_tick_label_height"] + LAYOUT["legend_gap"] \
            + (LAYOUT["x_label_height"] + 2 if xlabel else 0)
        _draw_legend(fig, transform, entries, 0.0, below + LAYOUT["legend_row_height"] / 2, width_px)
    return ax


def _bands(scene: Scene, t0: float, t1: float):
    """The fusion-group bands in view, by start time: [(t0, t1, group id)]."""
    g0, g1, gid = (getattr(scene, k, None) for k in ("group_t0", "group_t1", "group_id"))
    if g0 is None or g1 is None or gid is None:
        return []
    n = min(len(g0), len(g1), len(gid))
    out = [(float(g0[k]), float(g1[k]), int(gid[k])) for k in range(n)
           if g1[k] > g0[k] and g1[k] > t0 and g0[k] < t1]
    return sorted(out)


def _draw_group_bands(ax, scene: Scene, t0: float, t1: float, top: float):
    """Fusion groups (js/draw-groups.js): a very light alternating grey band per group behind
    everything, spanning the plot's height, with thin boundaries at its ends."""
    bands = _bands(scene, t0, t1)
    if not bands:
        return
    for parity, color in enumerate((THEME["group_band"], THEME["group_band_alternate"])):
        mine = [b for k, b in enumerate(bands) if k % 2 == parity]
        if mine:
            a = np.array([(max(b0, t0), min(b1, t1)) for b0, b1, _ in mine])
            _fill(ax, _rects_path(a[:, 0], a[:, 1], np.zeros(len(mine)), np.full(len(mine), top)), color, 0.2,
                  gid=f"group-bands-{parity}")
    edges = sorted({t for b0, b1, _ in bands for t in (b0, b1) if t0 <= t <= t1})
    if edges:
        e = np.array(edges)
        verts = np.stack([np.column_stack([e, np.zeros_like(e)]), np.column_stack([e, np.full_like(e, top)])], 1)
        path = MplPath(verts.reshape(-1, 2), np.tile(_LINE_CODES, e.size))
        _stroke(ax, path, THEME["group_boundary"], 1.0, 0.3, gid="group-boundaries")


def _draw_group_labels(ax, scene: Scene, labels, t0: float, t1: float, width_px: float):
    """Each group's label at the top of its band, only when it fits (text, never markup)."""
    for b0, b1, gid in _bands(scene, t0, t1):
        if not 0 <= gid < len(labels) or not labels[gid]:
            continue
        lo, hi = max(b0, t0), min(b1, t1)
        band_px = (hi - lo) / (t1 - t0) * width_px
        text = labels[gid]
        if _text_width_px(text, THEME["font_size"] - 1) + 8 > band_px:
            continue
        t = ax.annotate(text, ((lo + hi) / 2, 1.0), xycoords=("data", "axes fraction"), xytext=(0, -4 * PT_PER_PX),
                        textcoords="offset points", ha="center", va="top", color=THEME["muted_text"],
                        fontproperties=_font(THEME["font_size"] - 1), zorder=2.0, **_literal())
        t.set_gid("cw-group-label")


def _draw_grid(ax, x_values, y_values, t0, t1):
    """Horizontal grid lines up to 1.0 only, vertical ones from 0 to 1; the capacity line at 1.0."""
    ys = [y for y in y_values if 0 < y < 1 - 1e-9]
    xs = [x for x in x_values if t0 < x <= t1]
    verts = [[(t0, y), (t1, y)] for y in ys] + [[(x, 0.0), (x, 1.0)] for x in xs]
    if verts:
        path = MplPath.make_compound_path(*[MplPath(v) for v in verts])
        _stroke(ax, path, THEME["grid"], THEME["grid_width"], 0.5, gid="grid")
    _stroke(ax, MplPath([(t0, 1.0), (t1, 1.0)]), THEME["capacity"], THEME["grid_width"], 0.6, gid="capacity")


# -- legend -----------------------------------------------------------------------------------------


def legend_entries(panels: Sequence[Panel]) -> list[dict]:
    """Phase names (one entry per name across panels, first colour wins), then the keys for the
    styles any panel uses (js/legend.js)."""
    entries, seen = [], set()
    features = {"spill": False, "compute_over": False, "dashed": False}
    for panel in panels:
        for i, name in enumerate(panel.names):
            if name in seen:
                continue
            seen.add(name)
            color = panel.colors[i] if i < len(panel.colors) else _GREY
            entries.append({"kind": "phase", "label": name, "color": _valid_color(color)})
        for key, value in scene_features(panel.scene).items():
            features[key] = features[key] or value
    entries.append({"kind": "well", "label": "unused bandwidth"})
    if features["spill"]:
        entries.append({"kind": "spill", "label": "memory oversubscribed"})
    if features["compute_over"]:
        entries.append({"kind": "compute-over", "label": "compute > 100%"})
    if features["dashed"]:
        entries.append({"kind": "dashed", "label": "added by dilation/throttling"})
    return entries


def _legend_rows(entries, width_px: float):
    """[(entry, x, row)]: entries flow left to right and wrap (js/layout.js)."""
    out, x, row = [], 0.0, 0
    for entry in entries:
        item = LAYOUT["legend_swatch_width"] + 6 + _text_width_px(entry["label"])
        if x > 0 and x + item > width_px:
            x, row = 0.0, row + 1
        out.append((entry, x, row))
        x += item + LAYOUT["legend_item_gap"]
    return out


def _draw_legend(fig, transform, entries, left: float, first_row_y: float, width_px: float) -> int:
    """Swatches and labels in CSS px (``transform`` maps px, y down, to display). Returns rows."""
    rows = _legend_rows(entries, width_px)
    w, h = LAYOUT["legend_swatch_width"], 10
    for entry, x, row in rows:
        x += left
        y = first_row_y + row * LAYOUT["legend_row_height"]
        top_y = round(y - h / 2)
        kind = entry["kind"]
        artists = []
        if kind == "phase":
            artists.append(Rectangle((x, top_y), w, h, facecolor=lighten(entry["color"], THEME["fill_lighten"]),
                                     edgecolor="none", linewidth=0))
            artists.append(Line2D([x, x + w], [top_y + h, top_y + h], color=entry["color"],
                                  linewidth=THEME["compute_line_width"] * PT_PER_PX, solid_capstyle="butt"))
        elif kind == "well":
            artists.append(Rectangle((x, top_y), w, h, facecolor=THEME["well"], edgecolor="none", linewidth=0))
            artists.append(Line2D([x, x + w], [top_y + 0.5, top_y + 0.5], color=THEME["rail"],
                                  linewidth=THEME["rail_width"] * PT_PER_PX, solid_capstyle="butt"))
        elif kind == "spill":
            artists.append(Rectangle((x, top_y), w, h, facecolor=THEME["spill_fill"], edgecolor="none", linewidth=0))
            hatch = Rectangle((x, top_y), w, h, facecolor="none", edgecolor="none", linewidth=0)
            _hatch(hatch, THEME["hatch"])
            artists.append(hatch)
        else:
            color = THEME["warning"] if kind == "compute-over" else THEME["axis"]
            line = Line2D([x, x + w], [y, y], color=color, linewidth=THEME["compute_line_width"] * PT_PER_PX,
                          solid_capstyle="butt", dash_capstyle="butt")
            if kind == "dashed":
                line.set_linestyle(_dash_pattern(THEME["compute_line_width"]))
            artists.append(line)
        for artist in artists:
            artist.set_transform(transform)
            fig.add_artist(artist)
        label = Text(x + w + 6, y, entry["label"], color=THEME["text"], fontproperties=_font(), ha="left",
                     va="center", transform=transform, **_literal())
        label.set_gid("cw-legend-label")
        fig.add_artist(label)
    return (rows[-1][2] + 1) if rows else 0


# -- roofline ---------------------------------------------------------------------------------------


class _SlopeText(Text):
    """Text rotated to follow the on-screen direction from p0 to p1 (data coordinates), computed
    when drawn, so it follows log scales and the axes' aspect."""

    def __init__(self, ax, p0, p1, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._slope_axes, self._p0, self._p1 = ax, p0, p1

    def draw(self, renderer):
        (xa, ya), (xb, yb) = self._slope_axes.transData.transform([self._p0, self._p1])
        self.set_rotation(math.degrees(math.atan2(yb - ya, xb - xa)))
        super().draw(renderer)


def _decades(lo: float, hi: float) -> np.ndarray:
    return 10.0 ** np.arange(math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9) + 1)


def _decade_label(value: float, decades) -> str:
    """"100G" for large performance scales, plain "0.01" for moderate ones (peaks of 1)."""
    if min(decades) >= 1e-3 and max(decades) <= 1e4:
        return format_number(value, 3)
    return format_si(value).replace(" ", "")


def _roofline_limits(rp: RooflinePanel):
    P, BW = rp.peak_compute, rp.peak_bandwidth
    xs = [rp.ridge]
    ys = [P]
    for c in rp.ceilings:
        if c.compute:
            xs.append(c.compute / BW)
            ys.append(c.compute)
        if c.bandwidth:
            xs.append(P / c.bandwidth)
    finite = np.isfinite(rp.intensity) & (rp.intensity > 0)
    xs += rp.intensity[finite].tolist()
    good = rp.achieved[np.isfinite(rp.achieved) & (rp.achieved > 0)]
    ys += good.tolist()
    for _, oi, achieved in rp.aggregates:
        if math.isfinite(oi) and oi > 0:
            xs.append(oi)
        if math.isfinite(achieved) and achieved > 0:
            ys.append(achieved)
    x_lo = 10 ** math.floor(math.log10(min(min(xs) / 3, rp.ridge / 20)))
    x_hi = 10 ** math.ceil(math.log10(max(max(xs) * 3, rp.ridge * 20)))
    roof_lo = min(P, BW * x_lo)
    y_lo = 10 ** math.floor(math.log10(min(min(ys), roof_lo) / 1.5))
    y_lo = max(y_lo, P / 1e8)  # a roof far below the interesting range is cut, not the points
    y_hi = P * 2.6
    return x_lo, x_hi, y_lo, y_hi


def _roof_xy(compute: float, bandwidth: float, x_lo: float, x_hi: float):
    """The roof min(compute, bandwidth·OI) over [x_lo, x_hi] as a polyline."""
    ridge = compute / bandwidth
    xs = [x_lo] + ([ridge] if x_lo < ridge < x_hi else []) + [x_hi]
    return xs, [min(compute, bandwidth * x) for x in xs]


def _draw_aggregates(ax, aggregates, x_lo, x_hi, y_lo, y_hi, font):
    """One dark diamond per aggregate, labelled beside it; labels that would overlap are moved
    down (and joined to their diamond by a hairline)."""
    width_px, height_px = _axes_size_px(ax)
    placed = []
    points = []
    for label, oi, achieved in aggregates:
        if not (oi > 0 and achieved > 0) or math.isnan(oi) or math.isinf(achieved):
            continue
        x = x_hi if math.isinf(oi) else oi
        fx = math.log(x / x_lo) / math.log(x_hi / x_lo) * width_px
        fy = math.log(achieved / y_lo) / math.log(y_hi / y_lo) * height_px
        points.append((fy, fx, x, achieved, label))
        marker = Line2D([x], [achieved], marker="D", markersize=7, markerfacecolor=ROOFLINE["aggregate"],
                        markeredgecolor="white", markeredgewidth=1.0, linestyle="none", zorder=3.5)
        marker.set_gid("aggregate-point")
        ax.add_line(marker)
    line_h = THEME["font_size"] + 3
    for fy, fx, x, achieved, label in sorted(points, key=lambda p: -p[0]):
        anchor = fy - 4
        for other in placed:  # top to bottom: keep clear of every label placed above
            if abs(anchor - other) < line_h:
                anchor = other - line_h
        placed.append(anchor)
        need = _text_width_px(label, THEME["font_size"] - 1) + 12
        if width_px - fx >= need:
            dx, ha = 8, "left"
        elif fx >= need:
            dx, ha = -8, "right"
        else:  # fits on neither side: centred under the diamond
            dx, ha, anchor = 0, "center", min(anchor, fy - line_h)
            placed[-1] = anchor
        shifted = fy - anchor > 6 and ha != "center"
        ax.annotate(label, (x, achieved), xytext=(dx * PT_PER_PX, (anchor - fy) * PT_PER_PX),
                    textcoords="offset points", ha=ha, va="center",
                    color=THEME["text"], fontproperties=font, zorder=3.6, annotation_clip=False,
                    bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none", "alpha": 0.8},
                    arrowprops={"arrowstyle": "-", "color": THEME["muted_text"], "linewidth": 0.5,
                                "shrinkA": 0, "shrinkB": 3} if shifted else None, **_literal())


def draw_roofline(ax, rp: RooflinePanel, *, title: bool = True):
    """Draw a log-log roofline onto ``ax``: the flat roof at peak compute, the slanted roof
    bandwidth × OI, the ridge marked and labelled, extra ceilings as dashed lower roofs with their
    names, one point per phase (area ∝ its share of time) and one diamond per aggregate."""
    if not isinstance(rp, RooflinePanel):
        raise TypeError(f"draw_roofline takes a RooflinePanel, got {type(rp).__name__}")
    P, BW = rp.peak_compute, rp.peak_bandwidth
    units = {"compute": "FLOP/s", "bandwidth": "B/s", "intensity": "FLOP/B", **dict(rp.units)}
    x_lo, x_hi, y_lo, y_hi = _roofline_limits(rp)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.set_facecolor(THEME["background"])
    ax.set_navigate(False)
    small = _font(THEME["font_size"] - 1)

    x_dec, y_dec = _decades(x_lo, x_hi), _decades(y_lo, y_hi)
    y_dec = y_dec[(y_dec >= y_lo * (1 - 1e-9)) & (y_dec <= y_hi)]
    grid = [[(x, y_lo), (x, y_hi)] for x in x_dec[1:-1]] + [[(x_lo, y), (x_hi, y)] for y in y_dec]
    if grid:
        path = MplPath.make_compound_path(*[MplPath(v) for v in grid])
        _stroke(ax, path, THEME["grid"], THEME["grid_width"], 0.5, gid="roofline-grid")

    # extra ceilings, below the roofs
    for c in rp.ceilings:
        comp = c.compute if c.compute else P
        bw = c.bandwidth if c.bandwidth else BW
        xs, ys = _roof_xy(comp, bw, x_lo, x_hi)
        ax.add_line(Line2D(xs, ys, color=ROOFLINE["ceiling"], linewidth=1.5 * PT_PER_PX,
                           linestyle=(0, (4, 3)), zorder=1.0))
        if c.compute and (not c.bandwidth or c.compute / bw < x_hi / 2):
            ax.annotate(c.name, (x_hi, comp), xytext=(-4, 2), textcoords="offset points", ha="right",
                        va="bottom", color=ROOFLINE["ceiling_label"], fontproperties=small, **_literal())
        else:
            x_at = x_lo * 2.2
            ax.add_artist(_SlopeText(ax, (x_lo, bw * x_lo), (comp / bw, comp), x_at, bw * x_at * 1.25, c.name,
                                     color=ROOFLINE["ceiling_label"], fontproperties=small, ha="left", va="bottom",
                                     rotation_mode="anchor", **_literal()))

    xs, ys = _roof_xy(P, BW, x_lo, x_hi)
    roof = Line2D(xs, ys, color=ROOFLINE["roof"], linewidth=2 * PT_PER_PX, solid_joinstyle="miter", zorder=2.0)
    roof.set_gid("roof")
    ax.add_line(roof)
    ridge = rp.ridge
    ridge_line = Line2D([ridge, ridge], [y_lo, P], color=THEME["axis"], linewidth=PT_PER_PX,
                        linestyle=(0, (1.5, 2.5)), zorder=1.9)
    ridge_line.set_gid("ridge")
    ax.add_line(ridge_line)
    ridge_point = Line2D([ridge], [P], marker="o", markersize=6 * PT_PER_PX, markerfacecolor=THEME["axis"],
                         markeredgecolor="white", markeredgewidth=0.75, linestyle="none", zorder=2.1)
    ridge_point.set_gid("ridge-point")
    ax.add_line(ridge_point)
    intensity_unit = units.get("intensity", "")
    ax.annotate(f"ridge {format_number(ridge, 3)}{' ' + intensity_unit if intensity_unit else ''}",
                (ridge, y_lo), xytext=(3, 3), textcoords="offset points", rotation=90, ha="left", va="bottom",
                color=THEME["muted_text"], fontproperties=small, **_literal())
    ax.annotate(format_si(P, units.get("compute", "")), (x_hi, P), xytext=(-4, 3), textcoords="offset points",
                ha="right", va="bottom", color=THEME["text"], fontproperties=small, **_literal())
    x_at = x_lo * 2.2
    if x_at < ridge / 2:
        ax.add_artist(_SlopeText(ax, (x_lo, BW * x_lo), (ridge, P), x_at, BW * x_at * 1.25,
                                 format_si(BW, units.get("bandwidth", "")), color=THEME["text"],
                                 fontproperties=small, ha="left", va="bottom", rotation_mode="anchor",
                                 **_literal()))

    # one point per phase, area ∝ share of time; the largest drawn first so small ones stay visible
    oi, achieved, share = rp.intensity, rp.achieved, rp.share
    shown = np.isfinite(achieved) & (achieved > 0) & ~np.isnan(oi) & (oi > 0)
    if shown.any():
        idx = np.flatnonzero(shown)
        idx = idx[np.argsort(-share[idx], kind="stable")]
        xs = np.where(np.isinf(oi[idx]), x_hi, oi[idx])
        largest = max(float(np.nanmax(share[idx])), 1e-300)
        width_px, height_px = _axes_size_px(ax)
        diameter = min(max(0.09 * min(width_px, height_px), 8.0), 22.0) * PT_PER_PX  # the largest marker
        areas = diameter ** 2 * np.clip(np.nan_to_num(share[idx]), 0, None) / largest
        colors = [_valid_color(rp.colors[i]) if i < len(rp.colors) else _GREY for i in idx]
        points = ax.scatter(xs, achieved[idx], s=areas, c=colors, edgecolors=ROOFLINE["point_edge"],
                            linewidths=0.8 * PT_PER_PX, alpha=0.9, zorder=3.0, clip_on=False)
        points.set_gid("phase-points")
    _draw_aggregates(ax, rp.aggregates, x_lo, x_hi, y_lo, y_hi, small)

    tick_font = _font()
    x_ticks = x_dec[(x_dec >= x_lo * (1 - 1e-9)) & (x_dec <= x_hi * (1 + 1e-9))]
    label_w = max(_text_width_px(format_number(float(v), 3)) for v in x_ticks) + 10
    every = max(1, math.ceil(len(x_ticks) * label_w / max(_axes_size_px(ax)[0], 1.0)))
    ax.set_xticks(x_ticks, [format_number(float(v), 3) if i % every == 0 else ""
                            for i, v in enumerate(x_ticks)], **_literal())
    every = max(1, math.ceil(len(y_dec) / 6))
    ax.set_yticks(y_dec, [_decade_label(float(v), y_dec) if i % every == 0 else ""
                          for i, v in enumerate(y_dec)], **_literal())
    ax.minorticks_off()
    for label in ax.get_xticklabels() + ax.get_yticklabels():
        label.set_fontproperties(tick_font)
    ax.tick_params(axis="both", which="both", direction="out", length=THEME["tick_length"] * PT_PER_PX,
                   width=PT_PER_PX, color=THEME["axis"], labelcolor=THEME["text"], pad=3 * PT_PER_PX)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(THEME["axis"])
        ax.spines[side].set_linewidth(PT_PER_PX)
    compute_unit = units.get("compute", "")
    ax.set_xlabel("operational intensity" + (f" ({intensity_unit})" if intensity_unit else ""),
                  fontproperties=_font(), color=THEME["text"], labelpad=4 * PT_PER_PX, **_literal())
    ax.set_ylabel("attainable performance" + (f" ({compute_unit})" if compute_unit else ""), fontproperties=_font(),
                  color=THEME["text"], labelpad=LAYOUT["axis_label_gap"] * PT_PER_PX, **_literal())
    if title and rp.title:
        t = ax.annotate(rp.title, (0, 1), xycoords="axes fraction", xytext=(0, (THEME["font_size"] / 2 + 5
                        + (THEME["title_font_size"] + 4) / 2) * PT_PER_PX), textcoords="offset points",
                        ha="left", va="center", color=THEME["text"],
                        fontproperties=_font(THEME["title_font_size"], "bold"), annotation_clip=False, **_literal())
        t.set_gid("cw-title")
    return ax


# -- the whole figure -------------------------------------------------------------------------------


@dataclass
class RenderedFigure:
    """A laid-out figure: the matplotlib ``Figure``, its axes, and the pixel mapping of its PNG."""

    figure: Figure
    campaign_axes: list
    roofline_axes: object
    dpi: float

    def pixel(self, ax, x, y):
        """PNG pixel coordinates (column, row; origin top-left) of data point(s) (x, y) on ``ax``."""
        pts = np.column_stack([np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))])
        display = ax.transData.transform(pts)
        height = self.figure.get_size_inches()[1] * self.figure.dpi
        cols, rows = display[:, 0], height - display[:, 1]
        if np.ndim(x) == 0 and np.ndim(y) == 0:
            return float(cols[0]), float(rows[0])
        return cols, rows

    def save(self, path) -> Path:
        path = Path(path)
        fmt = _format_of(path)
        meta = {"png": {"Software": None}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}[fmt]
        self.figure.savefig(path, format=fmt, dpi=self.dpi, facecolor=THEME["background"], metadata=meta)
        return path


def _format_of(path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"cannot write a figure to {str(path)!r}: unknown suffix {Path(path).suffix!r}; "
                         f"use one of {', '.join(FORMATS)}")
    return FORMATS[suffix]


def _plot_height(width_px: float, stacked: bool) -> float:
    return max(110.0, round(width_px * (0.22 if stacked else 0.31)))


def render_figure(panels, *, roofline: RooflinePanel | None = None, width: float = 8.0,
                  dpi: float = 200) -> RenderedFigure:
    """Lay out the panels top to bottom on one time axis (roofline on the right) as a Figure."""
    if isinstance(panels, Panel):
        panels = [panels]
    panels = list(panels or [])
    for p in panels:
        if not isinstance(p, Panel):
            raise TypeError(f"panels must be Panel objects, got {type(p).__name__}")
    if roofline is not None and not isinstance(roofline, RooflinePanel):
        raise TypeError(f"roofline must be a RooflinePanel, got {type(roofline).__name__}")
    if not panels and roofline is None:
        raise ValueError("nothing to draw: give at least one Panel or a roofline")
    if isinstance(width, bool) or not isinstance(width, (int, float)) or not math.isfinite(width) or width <= 0:
        raise ValueError(f"width={width!r} must be a finite number of inches > 0")
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not math.isfinite(dpi) or dpi <= 0:
        raise ValueError(f"dpi={dpi!r} must be a finite number > 0")

    L, T = LAYOUT, THEME
    W = float(width) * PX_PER_INCH
    # the roofline goes beside the diagrams when both get room enough, else below them
    beside = roofline is not None and bool(panels) and W * 0.62 >= 400
    col_w = W - round(W * 0.38) if beside else W
    stacked = len(panels) > 1
    plot_h = _plot_height(W, stacked)
    t_end = max((p.time_end for p in panels), default=1.0)
    if not t_end > 0:
        t_end = 1.0

    # left margin: the widest y tick label of any panel, so the plots line up
    tick_w = max((_text_width_px(label) for p in panels for _, label in _y_ticks(p, plot_h)), default=0.0)
    left = math.ceil(L["pad"] + T["font_size"] + L["axis_label_gap"] + tick_w + L["tick_label_gap"]
                     + T["tick_length"])
    right = col_w - L["right_pad"]
    if panels and right - left < 40:
        raise ValueError(f"width={width!r} is too narrow for the diagram")

    # vertical layout in CSS px, top down
    y = L["pad"]
    boxes = []
    for i, p in enumerate(panels):
        rows = _header_rows(p, right - left)
        y += _header_height(rows)
        boxes.append((y, y + plot_h, rows))
        y += plot_h + T["tick_length"] + L["x_tick_label_height"]
        y += (L["x_label_height"] + 2) if i == len(panels) - 1 else L["panel_gap"]
    roof_box = None
    if roofline is not None:
        if beside:
            roof_box = (boxes[0][0], boxes[-1][1])
        else:
            y += (L["panel_gap"] if panels else 0) + T["title_font_size"] + 4 + L["title_gap"] / 2 \
                + T["font_size"] / 2
            roof_h = round(W * 0.55) if not panels else max(plot_h, min(round(W * 0.6), 320))
            roof_box = (y, y + roof_h)
            y += roof_h + T["tick_length"] + L["x_tick_label_height"] + L["x_label_height"] + 2
    entries = legend_entries(panels) if panels else (
        [{"kind": "phase", "label": n, "color": _valid_color(c)} for n, c in zip(roofline.names, roofline.colors)])
    legend_left = left
    legend_rows = _legend_rows(entries, W - L["pad"] - legend_left)
    legend_top = y + L["legend_gap"]
    if legend_rows:
        y = legend_top + (legend_rows[-1][2] + 1) * L["legend_row_height"]
    height_px = y + L["pad"]
    height_in = max(1, round(height_px / PX_PER_INCH * dpi)) / dpi  # a whole number of PNG rows

    fig = Figure(figsize=(width, height_in), dpi=dpi, facecolor=T["background"])
    FigureCanvasAgg(fig)
    H = height_in * PX_PER_INCH

    def rect(x0, top, x1, bottom):
        return [x0 / W, 1 - bottom / H, (x1 - x0) / W, (bottom - top) / H]

    axes = []
    for i, (p, (top, bottom, _)) in enumerate(zip(panels, boxes)):
        ax = fig.add_axes(rect(left, top, right, bottom))
        draw_campaign(ax, p, time_range=(0.0, t_end), header=True, xlabel=(i == len(panels) - 1), legend=False)
        ax.set_gid(f"campaign-{i}")
        axes.append(ax)
    roof_ax = None
    if roofline is not None:
        top, bottom = roof_box
        x_lo, x_hi, y_lo, y_hi = _roofline_limits(roofline)
        decades = _decades(y_lo, y_hi)
        widest = max(_text_width_px(_decade_label(float(v), decades)) for v in decades)
        r_left = (col_w + L["column_gap"] if beside else L["pad"]) + T["font_size"] + L["axis_label_gap"] \
            + widest + L["tick_label_gap"] + T["tick_length"]
        r_right = W - L["right_pad"]
        roof_ax = fig.add_axes(rect(r_left, top, r_right, bottom))
        draw_roofline(roof_ax, roofline)
        roof_ax.set_gid("roofline")
    if legend_rows:
        transform = Affine2D().scale(1 / PX_PER_INCH, -1 / PX_PER_INCH).translate(0, height_in) \
            + fig.dpi_scale_trans
        _draw_legend(fig, transform, entries, legend_left, legend_top + L["legend_row_height"] / 2,
                     W - L["pad"] - legend_left)
    return RenderedFigure(figure=fig, campaign_axes=axes, roofline_axes=roof_ax, dpi=float(dpi))


def savefig(path, panels, *, roofline: RooflinePanel | None = None, width: float = 8.0, dpi: float = 200) -> Path:
    """Write the panels (stacked on one time axis, each titled; the roofline on the right) to
    ``path`` as PNG, SVG or PDF, chosen by its suffix. Returns the path."""
    _format_of(path)  # fail before drawing
    return render_figure(panels, roofline=roofline, width=width, dpi=dpi).save(path)


# -- from workloads and schedules -------------------------------------------------------------------


def _units(machine) -> dict:
    return {"time": machine.time_unit, "compute": machine.compute_unit, "bandwidth": machine.bandwidth_unit,
            "ops": machine.ops_unit, "bytes": machine.bytes_unit}


def describe_schedule(schedule) -> str:
    """"sequential", "4 tiles", "4 tiles, pipelined, dilate+throttle", …"""
    if schedule.tiles <= 1 and not schedule.pipeline:
        text = "sequential"
    else:
        text = f"{schedule.tiles} tiles" + (", pipelined" if schedule.pipeline else "")
        if schedule.pipeline and schedule.depth != 2:
            text += f" (depth {schedule.depth})"
    if schedule.policy != "none":
        text += f", {schedule.policy}"
    return text


def panel_for(workload, schedule, *, title: str = "", colors: Sequence[str] | None = None,
              y_axis: str = "relative", time_max: float = 0.0) -> Panel:
    """The Panel a ``CampaignDiagram`` of ``workload`` shows for ``schedule``."""
    machine = workload.machine
    group = getattr(workload, "fusion_group", None)
    scene = build_scene(schedule, fusion_group=group) if group is not None else build_scene(schedule)
    return Panel(scene=scene, names=list(workload.names),
                 colors=list(colors) if colors is not None else phase_colors(workload.names),
                 units=_units(machine), resource_names=(machine.compute_name, machine.memory_name),
                 title=title, y_axis=y_axis, peak_compute=machine.peak_compute, time_max=time_max,
                 group_labels=tuple(getattr(workload, "fusion_groups", ()) or ()))


def roofline_panel_for(workload, schedules: Mapping[str, object] | None = None,
                       colors: Sequence[str] | None = None, title: str = "roofline") -> RooflinePanel:
    """One point per phase (area ∝ its share of the summed durations) and one aggregate point
    per schedule (all ops and bytes over its makespan)."""
    from .roofline import schedule_roofline, workload_roofline

    machine = workload.machine
    r = workload_roofline(workload)
    duration = workload.arrays.duration
    total = float(duration.sum())
    aggregates = []
    for label, schedule in (schedules or {}).items():
        s = schedule_roofline(workload, schedule)
        aggregates.append((str(label), float(s.intensity[0]), float(s.achieved[0])))
    units = _units(machine)
    units["intensity"] = "" if machine.normalized else f"{machine.ops_unit}/{machine.bytes_unit}"
    return RooflinePanel(peak_compute=machine.peak_compute, peak_bandwidth=machine.peak_bandwidth,
                         ceilings=tuple(machine.ceilings), intensity=r.intensity, achieved=r.achieved,
                         share=duration / total if total > 0 else np.zeros_like(duration),
                         names=list(workload.names),
                         colors=list(colors) if colors is not None else phase_colors(workload.names),
                         aggregates=aggregates, units=units, title=title)


def save_workload_figure(workload, path, *, tiles: int | None = None, pipeline: bool | None = None,
                         policy: str | None = None, depth: int | None = None, roofline: bool = False,
                         title: str | None = None, y_axis: str = "relative", width: float = 8.0,
                         dpi: float = 200) -> Path:
    """Schedule ``workload`` (settings left as None come from the workload, else the defaults),
    draw its campaign diagram (and its roofline, on the right) and write ``path``.

    ``title=None`` describes the schedule ("4 tiles, pipelined, dilate+throttle"); "" draws none.
    """
    _format_of(path)
    schedule = workload.schedule(tiles=tiles, pipeline=pipeline, policy=policy, depth=depth)
    description = describe_schedule(schedule)
    panel = panel_for(workload, schedule, title=description if title is None else title, y_axis=y_axis)
    roof = roofline_panel_for(workload, {"schedule": schedule}, colors=panel.colors) if roofline else None
    return savefig(path, [panel], roofline=roof, width=width, dpi=dpi)
