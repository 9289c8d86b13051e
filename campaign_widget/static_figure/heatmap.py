"""A product sweep as a heatmap (what ``SweepView`` shows) in PNG, SVG or PDF with no browser.

Two axes of the sweep on the grid, the others fixed (at the best configuration's values unless
given), one result column as colour. Every number a person reads carries its unit: tick labels of
the axes ("100 GB/s", not ``1e+11``), the colour bar ("11.2 ms"), the best cell's line. A boolean
column (``feasible``) is drawn as two named colours, not a continuous bar; the best configuration
is marked with a diamond and a chosen one (``selected=``) outlined.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib import colormaps
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import BoundaryNorm, ListedColormap, Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..atomic import atomic_write
from ..errors import CampaignWidgetError, short_repr
from ..formatting import (
    format_number,
    format_percent,
    format_reading,
    format_si,
    format_ticks,
    shorten_middle,
    time_unit_for,
)
from .style import (
    LAYOUT,
    PT_PER_PX,
    PX_PER_INCH,
    THEME,
    check_canvas,
    fit_text,
    font_for,
    literal_text,
    text_width_px,
    use_theme,
    wrap_text,
)
from .ticks import nice_ticks

PENDING_COLOR = "#dddddd"  # cells whose configuration is not computed yet (as SweepView)
_PERCENT_COLUMNS = ("compute_bound_share", "memory_bound_share")


def column_unit(result, name: str) -> str:
    """The unit a column's values are read in: time for ``makespan``, the machine's rates for peaks,
    "%" for demands and shares (fractions), "×" for ``speedup``, "" for counts and names."""
    machine = result.workload.machine
    if name == "makespan":
        return machine.time_unit
    if name == "peak_compute":
        return machine.compute_unit
    if name == "peak_bandwidth":
        return machine.bandwidth_unit
    if name == "speedup":
        return "×"
    if name.startswith("peak_demand_") or name in _PERCENT_COLUMNS:
        return "%"
    return ""


def value_label(value, unit: str = "", *, end: float | None = None) -> str:
    """One value as a person reads it, in ``unit`` (see ``column_unit``)."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) and not unit:
        return str(int(value))
    value = float(value)
    if unit == "%":
        return format_percent(value)
    if unit == "×":
        return f"{format_number(value, 3)}×"
    if unit == "s":
        return format_reading(value, unit, end=end)
    return format_si(value, unit, 3) if unit else format_number(value, 4)


def _slice(result, x: str, y: str, fixed: dict | None) -> tuple[np.ndarray, dict]:
    """(indices of the grid's cells, rows = y values × columns = x values; the other axes' values)."""
    names = list(result.axes)
    shape = tuple(len(v) for v in result.axes.values())
    chosen = {}
    best = result.best() if result.completed else 0
    best_digits = np.unravel_index(best, shape)
    for a, name in enumerate(names):
        if name in (x, y):
            continue
        values = result.axes[name]
        if fixed and name in fixed:
            if fixed[name] not in values:
                raise CampaignWidgetError(
                    f"fixed[{short_repr(name)}]={fixed[name]!r} is not a value of that axis: {values}"
                )
            chosen[name] = values.index(fixed[name])
        else:
            chosen[name] = int(best_digits[a])
    grids = np.meshgrid(np.arange(shape[names.index(y)]), np.arange(shape[names.index(x)]), indexing="ij")
    digits = [grids[0] if n == y else grids[1] if n == x else np.full(grids[0].shape, chosen[n]) for n in names]
    return np.ravel_multi_index(digits, shape), {n: result.axes[n][k] for n, k in chosen.items()}


def render_sweep_heatmap(
    result,
    *,
    x: str,
    y: str,
    color: str = "makespan",
    fixed: dict | None = None,
    selected: int | None = None,
    title: str | None = None,
    width: float = 6.0,
    dpi: float = 200,
    theme: str = "light",
) -> Figure:
    """The heatmap of ``color`` over axes ``x`` (columns) and ``y`` (rows) as a Figure.

    The other axes are ``fixed`` ({axis: value}); those not given take the best configuration's
    values. ``selected``: a configuration index to outline (a clicked cell). ``title=None``
    names the fixed axes and the best configuration.
    """
    if result.zipped:
        raise CampaignWidgetError("a heatmap draws a product sweep; this one was run with zip=True")
    for label, name in (("x", x), ("y", y)):
        if name not in result.axes:
            raise CampaignWidgetError(
                f"{label}={short_repr(name)} is not an axis of this sweep; axes: {', '.join(result.axes)}"
            )
    if x == y:
        raise CampaignWidgetError(f"x and y are both {x!r}: choose two different axes")
    metrics = [c for c in result.columns if c not in result.axes]
    if color not in metrics:
        raise CampaignWidgetError(f"color={color!r} is not a result column; columns: {', '.join(metrics)}")
    if isinstance(width, bool) or not isinstance(width, (int, float)) or not math.isfinite(width) or width <= 0:
        raise CampaignWidgetError(f"width={width!r} must be a finite number of inches > 0")
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not math.isfinite(dpi) or dpi <= 0:
        raise CampaignWidgetError(f"dpi={dpi!r} must be a finite number > 0")
    check_canvas(float(width), None, float(dpi))
    with use_theme(theme):
        return _render(result, x, y, color, fixed, selected, title, float(width), float(dpi))


def _render(result, x, y, color, fixed, selected, title, width, dpi) -> Figure:
    T, L = THEME, LAYOUT
    idx, others = _slice(result, x, y, fixed)
    have = result._have[idx]
    raw = np.asarray(result[color])[idx]
    boolean = raw.dtype == bool
    values = np.where(have, raw.astype(float), np.nan)
    unit = column_unit(result, color)
    xs = [value_label(v, column_unit(result, x)) for v in result.axes[x]]
    ys = [value_label(v, column_unit(result, y)) for v in result.axes[y]]
    makespans = np.asarray(result["makespan"], float)
    time_end = float(np.nanmax(makespans)) if np.isfinite(makespans).any() else None

    W = width * PX_PER_INCH
    size = T["font_size"]
    # y tick labels, then the y-axis title beside them (never over them): the left margin holds both
    y_labels = [fit_text(s, W * 0.25) for s in ys]
    y_tick_w = max(text_width_px(s) for s in y_labels)
    left = L["pad"] + size + L["axis_label_gap"] + y_tick_w + L["tick_label_gap"] + T["tick_length"]
    if boolean:
        bar_labels = ["no", "yes"]
        bar_w = 14.0
    else:
        finite = values[np.isfinite(values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        bar_ticks = _bar_ticks(lo, hi, unit, time_end)
        bar_labels = [label for _, label in bar_ticks]
        bar_w = 14.0
    bar_label_w = max(text_width_px(s) for s in bar_labels) if bar_labels else 0.0
    bar_title = color  # the numbers carry the unit
    right_margin = L["column_gap"] + bar_w + T["tick_length"] + L["tick_label_gap"] + bar_label_w + L["axis_label_gap"]
    right_margin += size + L["right_pad"]  # the colour bar's title, rotated, right of its numbers
    plot_w = W - left - right_margin
    if plot_w < 60:
        raise CampaignWidgetError(f"width={width!r} is too narrow for a heatmap of {len(xs)} columns")
    x_labels = [fit_text(s, max(24.0, plot_w / max(1, len(xs)) - 4)) for s in xs]
    rotate = any(text_width_px(s) > plot_w / len(xs) - 4 for s in x_labels)
    x_tick_h = (max(text_width_px(s) for s in x_labels) * 0.71 + size) if rotate else L["x_tick_label_height"]

    if title is None:
        described = ", ".join(f"{k} {value_label(v, column_unit(result, k))}" for k, v in others.items())
        title = f"{color} over {x} × {y}" + (f" ({described})" if described else "")
    title_rows = wrap_text(title, W - 2 * L["pad"], T["title_font_size"], "bold") if title else []
    best_line = _best_line(result, time_end) if result.completed else ""
    best_rows = wrap_text(best_line, W - 2 * L["pad"]) if best_line else []

    cell_h = max(18.0, min(40.0, plot_w / max(1, len(xs))))
    plot_h = cell_h * len(ys)
    top = L["pad"] + len(title_rows) * (T["title_font_size"] + 4) + (L["title_gap"] if title_rows else 0)
    bottom = top + plot_h
    height_px = bottom + T["tick_length"] + x_tick_h + L["x_label_height"] + 2
    height_px += (L["readout_gap"] + len(best_rows) * L["readout_line_height"]) if best_rows else 0
    height_px += L["pad"]
    height_in = max(1, round(height_px / PX_PER_INCH * dpi)) / dpi
    check_canvas(width, height_in, dpi)
    H = height_in * PX_PER_INCH

    fig = Figure(figsize=(width, height_in), dpi=dpi, facecolor=T["background"])
    FigureCanvasAgg(fig)
    ax = fig.add_axes([left / W, 1 - bottom / H, plot_w / W, plot_h / H])
    ax.set_facecolor(T["background"])
    if boolean:
        cmap = ListedColormap([T["warning"], "#2ca02c"])
        norm = BoundaryNorm([-0.5, 0.5, 1.5], 2)
    else:
        cmap = colormaps["viridis"]
        norm = Normalize(lo, hi if hi > lo else lo + max(abs(lo), 1.0) * 1e-9)
    cmap = cmap.with_extremes(bad=PENDING_COLOR)
    image = ax.imshow(
        np.ma.masked_invalid(values), cmap=cmap, norm=norm, aspect="auto", interpolation="nearest", origin="lower"
    )
    ax.set_xticks(range(len(xs)), x_labels, **literal_text())
    ax.set_yticks(range(len(ys)), y_labels, **literal_text())
    for label in ax.get_xticklabels() + ax.get_yticklabels():
        label.set_fontproperties(font_for())
        label.set_color(T["text"])
    if rotate:
        for label in ax.get_xticklabels():
            label.set_rotation(45)
            label.set_ha("right")
            label.set_rotation_mode("anchor")
    ax.tick_params(length=T["tick_length"] * PT_PER_PX, color=T["axis"], pad=L["tick_label_gap"] * PT_PER_PX)
    for spine in ax.spines.values():
        spine.set_color(T["axis"])
        spine.set_linewidth(PT_PER_PX)
    ax.set_xlabel(x, fontproperties=font_for(), color=T["text"], labelpad=2 * PT_PER_PX, **literal_text())
    # the y title left of the widest tick label, at a fixed distance from the figure's edge
    ax.yaxis.set_label_coords(-(left - L["pad"] - size / 2) / plot_w, 0.5)
    ax.set_ylabel(y, fontproperties=font_for(), color=T["text"], **literal_text())
    ax.yaxis.label.set_va("center")

    best = result.best() if result.completed else None
    for index, marker in ((best, "best"), (selected, "selected")):
        if index is None or not (idx == index).any():
            continue
        row, col = (int(v) for v in np.argwhere(idx == index)[0])
        if marker == "best":
            ax.plot(
                [col],
                [row],
                marker="D",
                markersize=9 * PT_PER_PX * 1.3,
                color="#d62728",
                markeredgecolor="white",
                gid="best",
            )
        else:
            ax.add_patch(
                Rectangle(
                    (col - 0.5, row - 0.5), 1, 1, fill=False, edgecolor=T["highlight"], linewidth=2.5, gid="selected"
                )
            )

    bar_left = left + plot_w + L["column_gap"]
    cax = fig.add_axes([bar_left / W, 1 - bottom / H, bar_w / W, plot_h / H])
    bar = fig.colorbar(image, cax=cax)
    if boolean:
        bar.set_ticks([0, 1], labels=bar_labels)
    else:
        bar.set_ticks([v for v, _ in bar_ticks], labels=bar_labels)
    bar.outline.set_edgecolor(T["axis"])
    cax.tick_params(length=T["tick_length"] * PT_PER_PX, color=T["axis"], pad=L["tick_label_gap"] * PT_PER_PX)
    for label in cax.get_yticklabels():
        label.set_fontproperties(font_for())
        label.set_color(T["text"])
    cax.set_ylabel(
        fit_text(bar_title, plot_h),
        fontproperties=font_for(),
        color=T["text"],
        labelpad=L["axis_label_gap"] * PT_PER_PX,
    )

    for k, line in enumerate(title_rows):
        fig.text(
            L["pad"] / W,
            1 - (L["pad"] + T["title_font_size"] / 2 + k * (T["title_font_size"] + 4)) / H,
            line,
            ha="left",
            va="center",
            color=T["text"],
            fontproperties=font_for(T["title_font_size"], "bold"),
            **literal_text(),
        )
    y0 = height_px - L["pad"] - len(best_rows) * L["readout_line_height"] + L["readout_line_height"] / 2
    for k, line in enumerate(best_rows):
        fig.text(
            L["pad"] / W,
            1 - (y0 + k * L["readout_line_height"]) / H,
            line,
            ha="left",
            va="center",
            color=T["text"],
            fontproperties=font_for(),
            gid="cw-best",
            **literal_text(),
        )
    return fig


def _bar_ticks(lo: float, hi: float, unit: str, time_end: float | None) -> list[tuple[float, str]]:
    """Colour-bar ticks over [lo, hi] with their unit; one tick when every value is the same."""
    if not hi > lo:
        return [(lo, value_label(lo, unit, end=time_end))]

    values, step = nice_ticks(lo, hi, 4)
    values = [v for v in values if lo - 1e-12 * abs(hi) <= v <= hi + 1e-12 * abs(hi)] or [lo, hi]
    if unit == "%":
        return [(v, format_percent(v)) for v in values]
    if unit == "s":
        factor, shown = time_unit_for(unit, time_end or hi)
        return list(zip(values, format_ticks([v * factor for v in values], step * factor, shown)))
    if unit == "×":
        return [(v, f"{label}×") for v, label in zip(values, format_ticks(values, step))]
    return list(zip(values, format_ticks(values, step, unit)))


def _best_line(result, time_end) -> str:
    best = result.best()
    row = result.row(best)
    axes = ", ".join(f"{k} {value_label(row[k], column_unit(result, k))}" for k in result.axes)
    return f"◆ best: {shorten_middle(axes, 200)} — makespan {value_label(row['makespan'], column_unit(result, 'makespan'), end=time_end)}"


def save_sweep_heatmap(path, result, **options) -> Path:
    """Write the heatmap (``render_sweep_heatmap``'s options) to ``path`` as PNG, SVG or PDF."""
    from .style import figure_format, write_figure

    fmt = figure_format(path)
    fig = render_sweep_heatmap(result, **options)
    with atomic_write(path, "wb") as handle:
        write_figure(fig, handle, fmt, dpi=fig.dpi, facecolor=fig.get_facecolor())
    return Path(path)
