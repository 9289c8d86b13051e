"""The whole figure: stacked panels on one time axis, the roofline beside them, written as PNG, SVG or PDF."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.transforms import Affine2D

from ..atomic import atomic_write
from ..errors import FigureError, WrongTypeError, check_flag
from ..formatting import legend_selection, more_label, shorten_names
from .campaign import draw_campaign, header_height, header_rows, readout_height, readout_rows, utilization_ticks_for
from .legend import draw_legend, legend_entries, legend_row_layout
from .panels import Panel, RooflinePanel, describe_schedule, panel_for, roofline_panel_for
from .roofline_plot import decade_label, decade_values, draw_roofline, roofline_limits
from .style import (
    LAYOUT,
    PX_PER_INCH,
    THEME,
    check_canvas,
    figure_format,
    text_width_px,
    use_theme,
    valid_color,
    write_figure,
)


@dataclass
class RenderedFigure:
    """A laid-out figure: the matplotlib ``Figure``, its axes, and the pixel mapping of its PNG."""

    figure: Figure
    campaign_axes: list
    roofline_axes: object
    dpi: float
    background: object = "#ffffff"

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
        fmt = figure_format(path)
        with atomic_write(path, "wb") as handle:  # whole or not at all: a failed export leaves the old file
            write_figure(self.figure, handle, fmt, dpi=self.dpi, facecolor=self.background)
        return path


def _plot_height(width_px: float, stacked: bool) -> float:
    return max(110.0, round(width_px * (0.22 if stacked else 0.31)))


def render_figure(
    panels, *, roofline: RooflinePanel | None = None, width: float = 8.0, dpi: float = 200, theme: str = "light"
) -> RenderedFigure:
    """Lay out the panels top to bottom on one time axis (roofline on the right) as a Figure, in the
    ``"light"`` or ``"dark"`` theme."""
    with use_theme(theme):
        return _render_figure(panels, roofline=roofline, width=width, dpi=dpi)


def _render_figure(panels, *, roofline: RooflinePanel | None, width: float, dpi: float) -> RenderedFigure:
    if isinstance(panels, Panel):
        panels = [panels]
    panels = list(panels or [])
    for p in panels:
        if not isinstance(p, Panel):
            raise WrongTypeError(f"panels must be Panel objects, got {type(p).__name__}")
    if roofline is not None and not isinstance(roofline, RooflinePanel):
        raise WrongTypeError(f"roofline must be a RooflinePanel, got {type(roofline).__name__}")
    if not panels and roofline is None:
        raise FigureError("nothing to draw: give at least one Panel or a roofline")
    if isinstance(width, bool) or not isinstance(width, (int, float)) or not math.isfinite(width) or width <= 0:
        raise FigureError(f"width={width!r} must be a finite number of inches > 0")
    if isinstance(dpi, bool) or not isinstance(dpi, (int, float)) or not math.isfinite(dpi) or dpi <= 0:
        raise FigureError(f"dpi={dpi!r} must be a finite number > 0")
    check_canvas(float(width), None, float(dpi))

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
    heights = [float(p.plot_height) or plot_h for p in panels]
    tick_w = max(
        (text_width_px(label) for p, h in zip(panels, heights) for _, label in utilization_ticks_for(p, h)), default=0.0
    )
    left = math.ceil(L["pad"] + T["font_size"] + L["axis_label_gap"] + tick_w + L["tick_label_gap"] + T["tick_length"])
    right = col_w - L["right_pad"]
    if panels and right - left < 40:
        raise FigureError(f"width={width!r} is too narrow for the diagram")

    # vertical layout in CSS px, top down, as js/diagram/layout.js: title, plot, tick labels, x label,
    # legend, readout. Stacked panels share the x label and legend at the bottom; each panel's
    # readout sits under its tick labels, the last one's under the legend when nothing comes between.
    y = L["pad"]
    boxes = []  # (plot top, plot bottom, title rows, readout rows, readout top or None)
    last = len(panels) - 1
    under_legend = roofline is None or beside
    for i, p in enumerate(panels):
        rows = header_rows(p, right - left)
        y += header_height(rows)
        top, bottom = y, y + heights[i]
        y = bottom + T["tick_length"] + L["x_tick_label_height"] + ((L["x_label_height"] + 2) if i == last else 0)
        readout = readout_rows(p, (W - L["pad"] - left) if i == last and under_legend else right - left)
        readout_top = None if i == last and under_legend else y
        if readout_top is not None:
            y += readout_height(readout)
        boxes.append((top, bottom, rows, readout, readout_top))
        if i != last:
            y += L["panel_gap"]
    roof_box = None
    if roofline is not None:
        if beside:
            roof_box = (boxes[0][0], boxes[-1][1])
        else:
            y += (L["panel_gap"] if panels else 0) + T["title_font_size"] + 4 + L["title_gap"] / 2 + T["font_size"] / 2
            roof_h = round(W * 0.55) if not panels else max(heights[-1], min(round(W * 0.6), 320))
            roof_box = (y, y + roof_h)
            y += roof_h + T["tick_length"] + L["x_tick_label_height"] + L["x_label_height"] + 2
    entries = legend_entries(panels) if panels else (_roofline_entries(roofline))
    legend_left = left
    legend_rows = legend_row_layout(entries, W - L["pad"] - legend_left)
    legend_top = y + L["legend_gap"]
    if legend_rows:
        y = legend_top + (legend_rows[-1][2] + 1) * L["legend_row_height"]
    if panels and boxes[-1][4] is None:
        boxes[-1] = (*boxes[-1][:4], y)
        y += readout_height(boxes[-1][3])
    height_px = y + L["pad"]
    height_in = max(1, round(height_px / PX_PER_INCH * dpi)) / dpi  # a whole number of PNG rows

    check_canvas(float(width), height_in, float(dpi))
    fig = Figure(figsize=(width, height_in), dpi=dpi, facecolor=T["background"])
    FigureCanvasAgg(fig)
    H = height_in * PX_PER_INCH

    def rect(x0, top, x1, bottom):
        return [x0 / W, 1 - bottom / H, (x1 - x0) / W, (bottom - top) / H]

    axes = []
    for i, (p, (top, bottom, _, readout, readout_top)) in enumerate(zip(panels, boxes)):
        ax = fig.add_axes(rect(left, top, right, bottom))
        draw_campaign(
            ax,
            p,
            time_range=(0.0, t_end),
            header=True,
            xlabel=(i == len(panels) - 1),
            legend=False,
            readout_at=readout_top - bottom,
            readout=readout,
        )
        ax.set_gid(f"campaign-{i}")
        axes.append(ax)
    roof_ax = None
    if roofline is not None:
        top, bottom = roof_box
        x_lo, x_hi, y_lo, y_hi = roofline_limits(roofline)
        decades = decade_values(y_lo, y_hi)
        widest = max(text_width_px(decade_label(float(v), decades)) for v in decades)
        r_left = (
            (col_w + L["column_gap"] if beside else L["pad"])
            + T["font_size"]
            + L["axis_label_gap"]
            + widest
            + L["tick_label_gap"]
            + T["tick_length"]
        )
        r_right = W - L["right_pad"]
        roof_ax = fig.add_axes(rect(r_left, top, r_right, bottom))
        draw_roofline(roof_ax, roofline)
        roof_ax.set_gid("roofline")
    if legend_rows:
        transform = Affine2D().scale(1 / PX_PER_INCH, -1 / PX_PER_INCH).translate(0, height_in) + fig.dpi_scale_trans
        draw_legend(
            fig, transform, entries, legend_left, legend_top + L["legend_row_height"] / 2, W - L["pad"] - legend_left
        )
    return RenderedFigure(
        figure=fig, campaign_axes=axes, roofline_axes=roof_ax, dpi=float(dpi), background=T["background"]
    )


def _roofline_entries(roofline: RooflinePanel) -> list[dict]:
    """A roofline's phases as legend entries, capped and shortened as the diagrams' legend is."""
    names, colors = list(roofline.names), list(roofline.colors)
    shown, hidden = legend_selection(np.ones(len(names)))
    labels = shorten_names(names)
    entries = [{"kind": "phase", "label": labels[i], "color": valid_color(colors[i])} for i in shown]
    return entries + ([{"kind": "more", "label": more_label(hidden)}] if hidden else [])


def savefig(
    path,
    panels,
    *,
    roofline: RooflinePanel | None = None,
    width: float = 8.0,
    dpi: float = 200,
    theme: str = "light",
) -> Path:
    """Write the panels (stacked on one time axis, each titled; the roofline on the right) to
    ``path`` as PNG, SVG or PDF, chosen by its suffix, in the ``"light"`` or ``"dark"`` theme.
    Fonts are embedded as TrueType in PDF and kept as text in SVG. Returns the path."""
    figure_format(path)  # fail before drawing
    return render_figure(panels, roofline=roofline, width=width, dpi=dpi, theme=theme).save(path)


def save_workload_figure(
    workload,
    path,
    *,
    tiles: int | None = None,
    pipeline: bool | None = None,
    policy: str | None = None,
    depth: int | None = None,
    stepping: str | None = None,
    roofline: bool = False,
    title: str | None = None,
    y_axis: str = "relative",
    width: float = 8.0,
    dpi: float = 200,
    theme: str = "light",
) -> Path:
    """Schedule ``workload`` (settings left as None come from the workload, else the defaults),
    draw its campaign diagram (and its roofline, on the right) and write ``path``.

    ``title=None`` describes the schedule ("4 tiles, pipelined, dilate+throttle"); "" draws none.
    """
    figure_format(path)
    schedule = workload.schedule(tiles=tiles, pipeline=pipeline, policy=policy, depth=depth, stepping=stepping)
    description = describe_schedule(schedule)
    panel = panel_for(workload, schedule, title=description if title is None else title, y_axis=y_axis)
    roof = (
        roofline_panel_for(workload, {"schedule": schedule}, colors=panel.colors)
        if check_flag(roofline, "roofline")
        else None
    )
    return savefig(path, [panel], roofline=roof, width=width, dpi=dpi, theme=theme)
