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
from matplotlib.cm import ScalarMappable
from matplotlib.colors import BoundaryNorm, ListedColormap, Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ..atomic import atomic_write
from ..errors import CampaignWidgetError
from ..figures.sweep_grid import (
    BEST_COLOR,
    PALETTE,
    PENDING_COLOR,
    YES_COLOR,
    check_grid,
    column_unit,
    spaced_ticks,
    sweep_grid,
    value_label,
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

__all__ = ["PENDING_COLOR", "column_unit", "render_sweep_heatmap", "save_sweep_heatmap", "value_label"]


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
    best: str = "makespan",
) -> Figure:
    """The heatmap of ``color`` over axes ``x`` (columns) and ``y`` (rows) as a Figure.

    The other axes are ``fixed`` ({axis: value}); those not given take the best configuration's
    values, best by the objective ``best`` (``SweepResult.best``: "makespan", "throughput", …). ``selected``: a configuration index to outline (a clicked cell). ``title=None``
    names the fixed axes and the best configuration.
    """
    check_grid(result, x, y, color)
    if isinstance(width, bool) or not isinstance(width, (int, float)) or not math.isfinite(width) or width <= 0:
        raise CampaignWidgetError(f"width={width!r} must be a finite number of inches > 0")
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not math.isfinite(dpi) or dpi <= 0:
        raise CampaignWidgetError(f"dpi={dpi!r} must be a finite number > 0")
    check_canvas(float(width), None, float(dpi))
    with use_theme(theme):
        return _render(result, x, y, color, fixed, selected, title, float(width), float(dpi), best)


def _render(result, x, y, color, fixed, selected, title, width, dpi, best="makespan") -> Figure:
    T, L = THEME, LAYOUT
    grid = sweep_grid(result, x=x, y=y, color=color, fixed=fixed, best=best)
    idx, others, boolean = grid.indices, grid.fixed, grid.boolean
    xs, ys = grid.x_labels, grid.y_labels

    W = width * PX_PER_INCH
    size = T["font_size"]
    # y tick labels, then the y-axis title beside them (never over them): the left margin holds both
    y_labels = [fit_text(s, W * 0.25) for s in ys]
    y_tick_w = max(text_width_px(s) for s in y_labels)
    left = L["pad"] + size + L["axis_label_gap"] + y_tick_w + L["tick_label_gap"] + T["tick_length"]
    bar_labels = [label for _, label in grid.ticks]
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
    best_rows = wrap_text(grid.best_line, W - 2 * L["pad"]) if grid.best_line else []

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
    # the cells in the grid's own colours (one owner with the canvas view); the bar from the same rule
    ax.imshow(grid.rgb(T["name"]), aspect="auto", interpolation="nearest", origin="lower")
    if boolean:
        mappable = ScalarMappable(BoundaryNorm([-0.5, 0.5, 1.5], 2), ListedColormap([T["warning"], YES_COLOR]))
    else:
        lo, hi = grid.lo, grid.hi
        mappable = ScalarMappable(Normalize(lo, hi if hi > lo else lo + max(abs(lo), 1.0) * 1e-9), colormaps[PALETTE])
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

    for index, marker in ((grid.best, "best"), (selected, "selected")):
        if index is None or not (idx == index).any():
            continue
        row, col = (int(v) for v in np.argwhere(idx == index)[0])
        if marker == "best":
            ax.plot(
                [col],
                [row],
                marker="D",
                markersize=9 * PT_PER_PX * 1.3,
                color=BEST_COLOR,
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
    bar = fig.colorbar(mappable, cax=cax)
    # labels at least a line apart along the bar (spaced_ticks): a short bar keeps fewer
    lo_v, hi_v = mappable.get_clim()
    kept = spaced_ticks([(v - lo_v) / (hi_v - lo_v) * plot_h for v, _ in grid.ticks])
    bar.set_ticks([grid.ticks[k][0] for k in kept], labels=[bar_labels[k] for k in kept])
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


def save_sweep_heatmap(path, result, **options) -> Path:
    """Write the heatmap (``render_sweep_heatmap``'s options) to ``path`` as PNG, SVG or PDF."""
    from .style import figure_format, write_figure

    fmt = figure_format(path)
    fig = render_sweep_heatmap(result, **options)
    with atomic_write(path, "wb") as handle:
        write_figure(fig, handle, fmt, dpi=fig.dpi, facecolor=fig.get_facecolor())
    return Path(path)
