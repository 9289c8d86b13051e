"""The roofline on a matplotlib Axes (seed 002): roofs, ridge, ceilings, points; on a machine with
several memory levels the hierarchical roofline (docs/memory-hierarchy.md#the-hierarchical-roofline): one roof per level, per phase one
point per known level joined by a thin line, marker shape per level."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D
from matplotlib.path import Path as MplPath
from matplotlib.text import Text

from ..errors import WrongTypeError
from ..figures.roofline import x_axis_label
from ..formatting import format_number, format_si
from ._paths import _stroke
from .campaign import axes_size_px
from .panels import RooflinePanel
from .style import (
    GREY,
    LAYOUT,
    PT_PER_PX,
    ROOFLINE,
    THEME,
    font_for,
    literal_text,
    style_ticks,
    text_width_px,
    valid_color,
)


class _SlopeText(Text):
    """Text rotated to follow the on-screen direction from p0 to p1 (data coordinates), computed
    when drawn, so it follows log scales and the axes' aspect."""

    def __init__(self, ax, p0, p1, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._slope_axes, self._p0, self._p1 = ax, p0, p1

    def _follow_slope(self) -> None:
        (xa, ya), (xb, yb) = self._slope_axes.transData.transform([self._p0, self._p1])
        self.set_rotation(math.degrees(math.atan2(yb - ya, xb - xa)))

    def draw(self, renderer):
        self._follow_slope()
        super().draw(renderer)

    def get_window_extent(self, renderer=None, dpi=None):
        self._follow_slope()
        return super().get_window_extent(renderer, dpi)


SLOPE_LABEL_AT = 2.2  # a label along a roof's slope starts at this multiple of the axes' left end


def _slope_label(ax, bandwidth: float, x_lo: float, end, text: str, color, font, *, above: bool = True) -> _SlopeText:
    """``text`` along the roof of ``bandwidth`` from ``x_lo`` towards ``end``, a quarter above the roof
    (or, ``above=False``, below it)."""
    x_at = x_lo * SLOPE_LABEL_AT
    return _SlopeText(
        ax,
        (x_lo, bandwidth * x_lo),
        end,
        x_at,
        bandwidth * x_at * (1.25 if above else 1 / 1.25),
        text,
        color=color,
        fontproperties=font,
        ha="left",
        va="bottom" if above else "top",
        rotation_mode="anchor",
        **literal_text(),
    )


def decade_values(lo: float, hi: float) -> np.ndarray:
    return 10.0 ** np.arange(math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9) + 1)


def decade_label(value: float, decades) -> str:
    """ "100G" for large performance scales, plain "0.01" for moderate ones (peaks of 1)."""
    if min(decades) >= 1e-3 and max(decades) <= 1e4:
        return format_number(value, 3)
    return format_si(value).replace(" ", "")


# Marker shape per memory level, from the farthest (today's circle) inwards; the live view
# (roofline_view.LEVEL_MARKERS) draws the same shapes in the same order.
LEVEL_MARKERS = ("o", "s", "^", "v", "P")


def level_marker(k: int, count: int) -> str:
    """The marker of level ``k`` (nearest first) of ``count`` levels: the farthest is a circle."""
    return LEVEL_MARKERS[(count - 1 - k) % len(LEVEL_MARKERS)]


def _shown(rp: RooflinePanel):
    """(level index, name, bandwidth) of each level drawn, nearest first."""
    return [(k, name, bw) for k, (name, bw) in enumerate(rp.levels) if name in rp.shown_levels]


def roofline_limits(rp: RooflinePanel):
    if rp.hierarchical:
        return _level_limits(rp)
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


def _level_limits(rp: RooflinePanel):
    """As ``roofline_limits``, spanning every drawn level's ridge and intensities."""
    P = rp.peak_compute
    shown = _shown(rp) or [(len(rp.levels) - 1, *rp.levels[-1])]
    ridges = [P / bw for _, _, bw in shown]
    xs, ys = list(ridges), [P]
    for c in rp.ceilings:
        if c.compute:
            xs.append(c.compute / rp.peak_bandwidth)
            ys.append(c.compute)
        if c.bandwidth:
            xs.append(P / c.bandwidth)
    oi = rp.level_intensity[:, [k for k, _, _ in shown]]
    xs += oi[np.isfinite(oi) & (oi > 0)].tolist()
    ys += rp.achieved[np.isfinite(rp.achieved) & (rp.achieved > 0)].tolist()
    for _, agg_oi, achieved in rp.aggregates:
        if math.isfinite(agg_oi) and agg_oi > 0:
            xs.append(agg_oi)
        if math.isfinite(achieved) and achieved > 0:
            ys.append(achieved)
    x_lo = 10 ** math.floor(math.log10(min(min(xs) / 3, min(ridges) / 20)))
    x_hi = 10 ** math.ceil(math.log10(max(max(xs) * 3, max(ridges) * 20)))
    roof_lo = min(P, min(bw for _, _, bw in shown) * x_lo)
    y_lo = 10 ** math.floor(math.log10(min(min(ys), roof_lo) / 1.5))
    return x_lo, x_hi, max(y_lo, P / 1e8), P * 2.6


def _roof_xy(compute: float, bandwidth: float, x_lo: float, x_hi: float):
    """The roof min(compute, bandwidth·OI) over [x_lo, x_hi] as a polyline."""
    ridge = compute / bandwidth
    xs = [x_lo] + ([ridge] if x_lo < ridge < x_hi else []) + [x_hi]
    return xs, [min(compute, bandwidth * x) for x in xs]


def _draw_aggregates(ax, aggregates, x_lo, x_hi, y_lo, y_hi, font):
    """One dark diamond per aggregate, labelled beside it; labels that would overlap are moved
    down (and joined to their diamond by a hairline)."""
    width_px, height_px = axes_size_px(ax)
    placed = []
    points = []
    for label, oi, achieved in aggregates:
        if not (oi > 0 and achieved > 0) or math.isnan(oi) or math.isinf(achieved):
            continue
        x = x_hi if math.isinf(oi) else oi
        fx = math.log(x / x_lo) / math.log(x_hi / x_lo) * width_px
        fy = math.log(achieved / y_lo) / math.log(y_hi / y_lo) * height_px
        points.append((fy, fx, x, achieved, label))
        _marker(
            ax, x, achieved, "aggregate-point", shape="D", size=7, color=ROOFLINE["aggregate"], edge=1.0, zorder=3.5
        )
    line_h = THEME["font_size"] + 3
    for fy, fx, x, achieved, label in sorted(points, key=lambda p: -p[0]):
        anchor = fy - 4
        for other in placed:  # top to bottom: keep clear of every label placed above
            if abs(anchor - other) < line_h:
                anchor = other - line_h
        placed.append(anchor)
        need = text_width_px(label, THEME["font_size"] - 1) + 12
        if width_px - fx >= need:
            dx, ha = 8, "left"
        elif fx >= need:
            dx, ha = -8, "right"
        else:  # fits on neither side: centred under the diamond
            dx, ha, anchor = 0, "center", min(anchor, fy - line_h)
            placed[-1] = anchor
        shifted = fy - anchor > 6 and ha != "center"
        ax.annotate(
            label,
            (x, achieved),
            xytext=(dx * PT_PER_PX, (anchor - fy) * PT_PER_PX),
            textcoords="offset points",
            ha=ha,
            va="center",
            color=THEME["text"],
            fontproperties=font,
            zorder=3.6,
            annotation_clip=False,
            bbox={"boxstyle": "square,pad=0.1", "facecolor": THEME["background"], "edgecolor": "none", "alpha": 0.8},
            arrowprops={"arrowstyle": "-", "color": THEME["muted_text"], "linewidth": 0.5, "shrinkA": 0, "shrinkB": 3}
            if shifted
            else None,
            **literal_text(),
        )


def draw_roofline(ax, rp: RooflinePanel, *, title: bool = True, levels=None):
    """Draw a log-log roofline onto ``ax``: the flat roof at peak compute, the slanted roof
    bandwidth × OI, the ridge marked and labelled, extra ceilings as dashed lower roofs with their
    names, one point per phase (area ∝ its share of time) and one diamond per aggregate.

    On several memory levels: one roof per level, labelled with its name, and per phase one point
    per known level (marker shape per level, explained in a legend) joined by a thin line in the
    phase's colour. ``levels`` names the levels to draw (None: ``rp.shown_levels``)."""
    if not isinstance(rp, RooflinePanel):
        raise WrongTypeError(f"draw_roofline takes a RooflinePanel, got {type(rp).__name__}")
    if levels is not None:
        rp = dataclasses.replace(rp, shown_levels=(levels,) if isinstance(levels, str) else tuple(levels))
    P, BW = rp.peak_compute, rp.peak_bandwidth
    units = {"compute": "FLOP/s", "bandwidth": "B/s", "intensity": "FLOP/B", **dict(rp.units)}
    intensity_unit = units.get("intensity", "")
    x_lo, x_hi, y_lo, y_hi = roofline_limits(rp)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, y_hi)
    ax.set_facecolor(THEME["background"])
    ax.set_navigate(False)
    small = font_for(THEME["font_size"] - 1)

    x_dec, y_dec = decade_values(x_lo, x_hi), decade_values(y_lo, y_hi)
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
        ax.add_line(
            Line2D(xs, ys, color=ROOFLINE["ceiling"], linewidth=1.5 * PT_PER_PX, linestyle=(0, (4, 3)), zorder=1.0)
        )
        if c.compute and (not c.bandwidth or c.compute / bw < x_hi / 2):
            _label_over_roof(ax, c.name, x_hi, comp, ROOFLINE["ceiling_label"], small, rise=2)
        else:
            ax.add_artist(_slope_label(ax, bw, x_lo, (comp / bw, comp), c.name, ROOFLINE["ceiling_label"], small))

    if rp.hierarchical:
        slopes = _draw_level_roofs(ax, rp, x_lo, x_hi, y_lo, small, units)
    else:
        xs, ys = _roof_xy(P, BW, x_lo, x_hi)
        roof = Line2D(xs, ys, color=ROOFLINE["roof"], linewidth=2 * PT_PER_PX, solid_joinstyle="miter", zorder=2.0)
        roof.set_gid("roof")
        ax.add_line(roof)
        ridge = rp.ridge
        ridge_line = Line2D(
            [ridge, ridge], [y_lo, P], color=THEME["axis"], linewidth=PT_PER_PX, linestyle=(0, (1.5, 2.5)), zorder=1.9
        )
        ridge_line.set_gid("ridge")
        ax.add_line(ridge_line)
        _ridge_point(ax, ridge, P)
        _ridge_label(ax, "ridge", ridge, y_lo, intensity_unit, small)
        _peak_label(ax, P, x_hi, units, small)
        if x_lo * SLOPE_LABEL_AT < ridge / 2:
            ax.add_artist(
                _slope_label(ax, BW, x_lo, (ridge, P), format_si(BW, units.get("bandwidth", "")), THEME["text"], small)
            )

    if rp.hierarchical:
        _draw_level_points(ax, rp, x_lo, x_hi)
        _place_slope_labels(ax, slopes, P, x_lo, small)
    else:
        # one point per phase, area ∝ share of time; the largest drawn first so small ones stay visible
        oi, achieved, share = rp.intensity, rp.achieved, rp.share
        shown = np.isfinite(achieved) & (achieved > 0) & ~np.isnan(oi) & (oi > 0)
        if shown.any():
            idx = np.flatnonzero(shown)
            idx = idx[np.argsort(-share[idx], kind="stable")]
            xs = np.where(np.isinf(oi[idx]), x_hi, oi[idx])
            largest = max(float(np.nanmax(share[idx])), 1e-300)
            colors = [valid_color(rp.colors[i]) if i < len(rp.colors) else GREY for i in idx]
            _phase_points(ax, xs, achieved[idx], share[idx], largest, colors)
    _draw_aggregates(ax, rp.aggregates, x_lo, x_hi, y_lo, y_hi, small)

    tick_font = font_for()
    x_ticks = x_dec[(x_dec >= x_lo * (1 - 1e-9)) & (x_dec <= x_hi * (1 + 1e-9))]
    label_w = max(text_width_px(format_number(float(v), 3)) for v in x_ticks) + 10
    every = max(1, math.ceil(len(x_ticks) * label_w / max(axes_size_px(ax)[0], 1.0)))
    ax.set_xticks(
        x_ticks, [format_number(float(v), 3) if i % every == 0 else "" for i, v in enumerate(x_ticks)], **literal_text()
    )
    every = max(1, math.ceil(len(y_dec) / 6))
    ax.set_yticks(
        y_dec, [decade_label(float(v), y_dec) if i % every == 0 else "" for i, v in enumerate(y_dec)], **literal_text()
    )
    ax.minorticks_off()
    style_ticks(ax, tick_font, pad_px=3)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(THEME["axis"])
        ax.spines[side].set_linewidth(PT_PER_PX)
    compute_unit = units.get("compute", "")
    ax.set_xlabel(
        x_axis_label(intensity_unit, joiner="\n"),
        fontproperties=font_for(),
        color=THEME["text"],
        labelpad=4 * PT_PER_PX,
        **literal_text(),
    )
    ax.set_ylabel(
        "attainable performance" + (f" ({compute_unit})" if compute_unit else ""),
        fontproperties=font_for(),
        color=THEME["text"],
        labelpad=LAYOUT["axis_label_gap"] * PT_PER_PX,
        **literal_text(),
    )
    if title and rp.title:
        t = ax.annotate(
            rp.title,
            (0, 1),
            xycoords="axes fraction",
            xytext=(0, (THEME["font_size"] / 2 + 5 + (THEME["title_font_size"] + 4) / 2) * PT_PER_PX),
            textcoords="offset points",
            ha="left",
            va="center",
            color=THEME["text"],
            fontproperties=font_for(THEME["title_font_size"], "bold"),
            annotation_clip=False,
            **literal_text(),
        )
        t.set_gid("cw-title")
    return ax


def _draw_level_roofs(ax, rp: RooflinePanel, x_lo, x_hi, y_lo, font, units) -> list[tuple]:
    """One roof per drawn level (gid ``roof``), each ridge marked, the farthest drawn level's ridge
    labelled, and the compute peak. Returns the labels along the slopes, to be placed once the points
    are drawn (``_place_slope_labels``): (level, bandwidth, ridge, text)."""
    P = rp.peak_compute
    shown = _shown(rp)
    bandwidth_unit = units.get("bandwidth", "")
    slopes: list[tuple] = []
    for _, name, bw in shown:
        xs, ys = _roof_xy(P, bw, x_lo, x_hi)
        roof = Line2D(xs, ys, color=ROOFLINE["roof"], linewidth=2 * PT_PER_PX, solid_joinstyle="miter", zorder=2.0)
        roof.set_gid("roof")
        roof.set_label(name)
        ax.add_line(roof)
        ridge = P / bw
        _ridge_point(ax, ridge, P)
        if x_lo * SLOPE_LABEL_AT < ridge / 2:
            slopes.append((name, bw, ridge, f"{name} {format_si(bw, bandwidth_unit)}"))
            continue  # placed with the points drawn (_place_slope_labels): on none of them, nor on another
        else:  # the ridge is too near the left edge for a label along the slope: name it at the ridge
            label = Text(
                ridge,
                P,
                f"{name} ",
                color=THEME["text"],
                fontproperties=font,
                ha="right",
                va="bottom",
                **literal_text(),
            )
        label.set_gid(f"roof-label-{name}")
        ax.add_artist(label)
    if shown:
        _, name, bw = shown[-1]
        ridge = P / bw
        ridge_line = Line2D(
            [ridge, ridge], [y_lo, P], color=THEME["axis"], linewidth=PT_PER_PX, linestyle=(0, (1.5, 2.5)), zorder=1.9
        )
        ridge_line.set_gid("ridge")
        ax.add_line(ridge_line)
        intensity_unit = units.get("intensity", "")
        _ridge_label(ax, f"{name} ridge", ridge, y_lo, intensity_unit, font)
    _peak_label(ax, P, x_hi, units, font)
    return slopes


def _place_slope_labels(ax, slopes, peak: float, x_lo: float, font) -> None:
    """Each level's label along its own slope (gid ``roof-label-LEVEL``), where it meets neither a
    label placed before nor a phase's point and ends left of its ridge: the free place along the slope
    nearest the usual one, above the roof or else below it (parallel roofs of near bandwidths put
    labels at one x on each other)."""
    # a renderer whatever the figure's canvas (a bare Figure has none of its own: matplotlib lends Agg's)
    renderer = ax.figure._get_renderer()
    taken = _point_boxes(ax)
    inside = ax.get_window_extent(renderer)
    usual = x_lo * SLOPE_LABEL_AT
    for name, bw, ridge, text in slopes:
        ridge_px = ax.transData.transform((ridge, peak))[0]
        steps = np.arange(
            math.floor(math.log(1.05 / SLOPE_LABEL_AT, 1.25)), math.ceil(math.log(ridge / usual, 1.25)) + 1
        )
        candidates = sorted(usual * 1.25**steps, key=lambda x: abs(math.log(x / usual)))
        chosen = None
        # between two near roofs there is no room for text: the lowest roof's label goes under it
        sides = (False, True) if bw == min(b for _, b, _, _ in slopes) and len(slopes) > 1 else (True,)
        for x, above in ((x, above) for above in sides for x in candidates):
            label = _slope_label(ax, bw, x / SLOPE_LABEL_AT, (ridge, peak), text, THEME["text"], font, above=above)
            label = ax.add_artist(label)
            box = label.get_window_extent(renderer)
            fits = box.x0 >= inside.x0 and box.y1 <= inside.y1 and box.x1 <= ridge_px - 4
            if fits and not any(box.overlaps(other) for other in taken):
                chosen = label, box
                break
            label.remove()
        if chosen is None:  # nowhere free: the usual place, as before
            label = ax.add_artist(_slope_label(ax, bw, x_lo, (ridge, peak), text, THEME["text"], font))
            chosen = label, label.get_window_extent(renderer)
        label, box = chosen
        label.set_gid(f"roof-label-{name}")
        taken.append(box)


def _point_boxes(ax) -> list:
    """The display boxes of the phases' markers (the ``phase-points`` scatters)."""
    from matplotlib.transforms import Bbox

    boxes = []
    for collection in ax.collections:
        if collection.get_gid() != "phase-points":
            continue
        centres = ax.transData.transform(collection.get_offsets())
        sizes = np.broadcast_to(collection.get_sizes(), (len(centres),))
        for (cx, cy), area in zip(centres, sizes):
            r = math.sqrt(area) / 2 * ax.figure.dpi / 72.0
            boxes.append(Bbox.from_extents(cx - r, cy - r, cx + r, cy + r))
    return boxes


def _draw_level_points(ax, rp: RooflinePanel, x_lo, x_hi):
    """Per drawn level one scatter (gid ``phase-points``, labelled with the level) of the phases that
    have a point there, area ∝ share of time; per phase a thin line in its colour through its points
    (gid ``phase-level-lines``); a legend of the levels' marker shapes."""
    shown = _shown(rp)
    achieved, share = rp.achieved, rp.share
    n = len(achieved)
    colors = [valid_color(rp.colors[i]) if i < len(rp.colors) else GREY for i in range(n)]
    good = np.isfinite(achieved) & (achieved > 0)
    largest = max(float(np.nanmax(share[good])) if good.any() else 0.0, 1e-300)
    oi = rp.level_intensity[:, [k for k, _, _ in shown]] if shown else np.empty((n, 0))
    drawn = good[:, None] & ~np.isnan(oi) & (oi > 0)
    xs = np.where(np.isinf(oi), x_hi, oi)
    segments, segment_colors = [], []
    for i in np.flatnonzero(drawn.sum(axis=1) >= 2):
        cols = np.flatnonzero(drawn[i])
        segments.append(np.column_stack([xs[i, cols], np.full(cols.size, achieved[i])]))
        segment_colors.append(colors[i])
    if segments:
        lines = LineCollection(segments, colors=segment_colors, linewidths=1.0 * PT_PER_PX, zorder=2.9)
        lines.set_gid("phase-level-lines")
        ax.add_collection(lines)
    handles = []
    for column, (k, name, _) in enumerate(shown):
        marker = level_marker(k, len(rp.levels))
        idx = np.flatnonzero(drawn[:, column])
        if idx.size:
            idx = idx[np.argsort(-share[idx], kind="stable")]
            points = _phase_points(
                ax, xs[idx, column], achieved[idx], share[idx], largest, [colors[i] for i in idx], marker
            )
            points.set_label(name)
        handles.append(
            Line2D(
                [],
                [],
                marker=marker,
                linestyle="none",
                markersize=6,
                markerfacecolor=THEME["text"],
                markeredgecolor=THEME["text"],
                label=name,
            )
        )
    if handles:
        legend = ax.legend(
            handles=handles,
            loc="lower right",
            prop=font_for(THEME["font_size"] - 1),
            labelcolor=THEME["text"],
            facecolor=THEME["background"],
            edgecolor=THEME["grid"],
            framealpha=0.85,
            handletextpad=0.3,
            borderpad=0.4,
            handlelength=1.0,
        )
        legend.set_gid("level-legend")
        for text in legend.get_texts():
            text.set_parse_math(False)


def _ridge_label(ax, what: str, ridge: float, y_lo: float, intensity_unit: str, font) -> None:
    """``what`` and the ridge's intensity, up the ridge line from the bottom of the plot."""
    ax.annotate(
        f"{what} {format_number(ridge, 3)}{' ' + intensity_unit if intensity_unit else ''}",
        (ridge, y_lo),
        xytext=(3, 3),
        textcoords="offset points",
        rotation=90,
        ha="left",
        va="bottom",
        color=THEME["muted_text"],
        fontproperties=font,
        **literal_text(),
    )


def _peak_label(ax, peak: float, x_hi: float, units, font) -> None:
    """The compute peak, over the compute roof at the right edge."""
    _label_over_roof(ax, format_si(peak, units.get("compute", "")), x_hi, peak, THEME["text"], font, rise=3)


def _label_over_roof(ax, text: str, x_hi: float, y: float, color, font, *, rise: float) -> None:
    """``text`` at the right edge, right-aligned, ``rise`` points over the flat roof at ``y``."""
    ax.annotate(
        text,
        (x_hi, y),
        xytext=(-4, rise),
        textcoords="offset points",
        ha="right",
        va="bottom",
        color=color,
        fontproperties=font,
        **literal_text(),
    )


def _phase_points(ax, xs, ys, share, largest: float, colors, marker=None):
    """The phases' points (gid ``phase-points``), area ∝ share of time: the ``largest`` share gets a marker
    9% of the axes' smaller side across (8 to 22 px)."""
    width_px, height_px = axes_size_px(ax)
    diameter = min(max(0.09 * min(width_px, height_px), 8.0), 22.0) * PT_PER_PX
    points = ax.scatter(
        xs,
        ys,
        s=diameter**2 * np.clip(np.nan_to_num(share), 0, None) / largest,
        c=colors,
        marker=marker,
        edgecolors=ROOFLINE["point_edge"],
        linewidths=0.8 * PT_PER_PX,
        alpha=0.9,
        zorder=3.0,
        clip_on=False,
    )
    points.set_gid("phase-points")
    return points


def _ridge_point(ax, ridge: float, peak: float) -> None:
    """The dot where a memory roof meets the compute roof."""
    _marker(ax, ridge, peak, "ridge-point", shape="o", size=6 * PT_PER_PX, color=THEME["axis"], edge=0.75, zorder=2.1)


def _marker(ax, x: float, y: float, gid: str, *, shape: str, size: float, color, edge: float, zorder: float) -> None:
    """One marker at (x, y), edged in the background's colour, with its SVG id ``gid``."""
    point = Line2D(
        [x],
        [y],
        marker=shape,
        markersize=size,
        markerfacecolor=color,
        markeredgecolor=THEME["background"],
        markeredgewidth=edge,
        linestyle="none",
        zorder=zorder,
    )
    point.set_gid(gid)
    ax.add_line(point)
