"""A bqplot roofline (docs/semantics.md#the-roofline) that follows a campaign diagram's peaks and hover.

One point per phase (area ∝ its share of the makespan), one aggregate point for the schedule,
the two roofs with the ridge marked, and the machine's extra ceilings as lower roofs.

On a machine with several memory levels it is the hierarchical roofline (docs/memory-hierarchy.md#the-hierarchical-roofline): one roof
per level, labelled with its name, and per phase one point per known level (a marker shape per
level) joined by a thin line in the phase's colour; a checkbox per level in the legend shows or
hides that level's roof and points (``shown_levels``).
"""

from __future__ import annotations

import ipywidgets
import numpy as np
import traitlets as t
from bqplot import Axis, Figure, Label, LinearScale, Lines, LogScale, Scatter

from ..errors import WrongTypeError, short_repr
from ..figures.roofline import drawn_ceilings, phase_details, roofline_geometry, schedule_readout, x_axis_label
from ..formatting import format_number
from ..model.roofline import DEFAULT_THRESHOLD
from .composite import PAGE, Column, Composite, Layout, Link, Part
from .diagram import CampaignDiagram

_MIN_MARKER, _MAX_MARKER = 30, 900  # bqplot marker areas in px²
# The ridge's label, centred this far above the ridge: clear of the largest point there (radius
# √(900/π) ≈ 17 px) and half its own height more
_RIDGE_LABEL_RISE = round((_MAX_MARKER / np.pi) ** 0.5) + 9
# The roof, the ridge, the schedule's marker and the legend's text follow JupyterLab's theme (bqplot styles
# marks with CSS, so a variable resolves in the page: dark on a light page, light on a dark one).
INK = "var(--jp-content-font-color1, #333333)"
MUTED_INK = "var(--jp-content-font-color2, #777777)"
# Marker shape per memory level from the farthest (a circle, as on a one-level machine) inwards, with the
# glyph the legend shows for it; the static roofline (static_figure.roofline_plot.LEVEL_MARKERS) matches.
LEVEL_MARKERS = (("circle", "●"), ("square", "■"), ("triangle-up", "▲"), ("triangle-down", "▼"), ("cross", "✚"))


def level_marker(k: int, count: int) -> tuple[str, str]:
    """(bqplot marker, legend glyph) of level ``k`` (nearest first) of ``count`` levels."""
    return LEVEL_MARKERS[(count - 1 - k) % len(LEVEL_MARKERS)]


class RooflineView(Composite, ipywidgets.VBox):
    """The roofline of what a ``CampaignDiagram`` shows; follows its peaks and its hovered phase.
    Where only anywidgets render (marimo, ``to_html``) its canvas twin (``twin``) stands for it."""

    threshold = t.Float(DEFAULT_THRESHOLD, min=0.01, max=1.0)
    #: The memory levels drawn (names, nearest first); every level of the machine by default. One checkbox
    #: per level in the legend sets it; a one-level machine draws its one level whatever this holds.
    shown_levels = t.List(t.Unicode())

    def __init__(self, diagram: CampaignDiagram, *, threshold: float = DEFAULT_THRESHOLD, height: int = 360):
        if not isinstance(diagram, CampaignDiagram):
            raise WrongTypeError(
                f"RooflineView takes the CampaignDiagram it follows, got {type(diagram).__name__} {short_repr(diagram)}"
            )
        self.diagram = diagram
        self._x = LogScale()
        self._y = LogScale()
        scales = {"x": self._x, "y": self._y}
        self.roof = Lines(x=[1, 2], y=[1, 2], scales=scales, colors=[INK], stroke_width=2)
        self.ceilings = Lines(
            x=[[1, 2]],
            y=[[1, 2]],
            scales=scales,
            colors=["#999999"],
            line_style="dashed",
            stroke_width=1.5,
            visible=False,
        )
        # A ceiling's name sits off its own line, inside the frame: a compute ceiling's above its flat part,
        # ending at the right edge; a bandwidth ceiling's under its slanted part near the left edge (the line
        # rises away from it), as the static roofline places them.
        self.ceiling_labels = _labels(
            scales,
            MUTED_INK,
            align="end",
            x_offset=-4,
            y_offset=-9,  # bqplot centres a label on its y: the 11 px text clears the line below
            visible=False,
        )
        self.ceiling_slope_labels = _labels(scales, MUTED_INK, align="start", x_offset=6, y_offset=14, visible=False)
        self.ridge = Scatter(x=[1], y=[1], scales=scales, colors=[INK], marker="circle", default_size=36)
        # Above the roof: every point lies on or under it, so a label there covers none of them.
        self.ridge_label = _labels(scales, INK, x_offset=0, y_offset=-_RIDGE_LABEL_RISE, align="middle")
        # Marker area ∝ share of the makespan: sizes in [0, 1] map onto [0, default_size] px².
        self.points = Scatter(
            x=[1],
            y=[1],
            scales={**scales, "size": LinearScale(min=0.0, max=1.0)},
            colors=list(diagram.phase_colors),
            stroke="#222222",  # an outline of the phase's colour; the fill is what reads in both themes
            stroke_width=0.8,
            names=list(diagram.phase_names),
            display_names=False,
            interactions={"hover": "tooltip"},
            hovered_style={"opacity": 1.0, "stroke": "black", "stroke-width": 3},
            unhovered_style={"opacity": 0.35},
        )
        # The schedule's point is named in the legend below, not beside it (a label there covered points).
        self.aggregate = Scatter(
            x=[1],
            y=[1],
            scales=scales,
            colors=[INK],
            marker="diamond",
            default_size=90,
            names=["schedule"],
            display_names=False,
        )
        # the hierarchy's marks (several memory levels): each roof's name above its ridge (beside the steep
        # slanted roofs a level's name would be crossed by the next roof), one thin line per phase through
        # its points, and one scatter per level (``level_points``), made when the machine has levels
        self.roof_labels = _labels(scales, INK, y_offset=-8, align="middle")
        self.roof_labels_high = _labels(scales, INK, y_offset=-21, align="middle")
        self.level_lines = Lines(x=[[1, 2]], y=[[1, 2]], scales=scales, colors=["#999999"], stroke_width=1.2)
        self.level_points: dict[str, Scatter] = {}
        self._level_phases: dict[str, np.ndarray] = {}  # per level: the phase of each of its points
        self.level_boxes: dict[str, ipywidgets.Checkbox] = {}
        self._level_names: tuple[str, ...] = ()
        self.details = [ipywidgets.Label() for _ in range(4)]
        self.points.tooltip = ipywidgets.VBox(self.details)
        # title, axis titles and ticks in the page's text colour (bqplot's own dark style makes them orange)
        self._x_axis = Axis(
            scale=self._x,
            label="operational intensity",
            grid_lines="none",
            tick_format="~g",
            tick_style={"font-size": "11px", "fill": INK},
            label_color=INK,
            label_offset="36px",  # the title's baseline below the tick labels (9 px of tick, 11 px of text)
        )
        self._y_axis = Axis(
            scale=self._y,
            side="left",
            label="attainable",
            grid_lines="solid",
            tick_format="~s",
            tick_style={"font-size": "11px", "fill": INK},
            label_color=INK,
            # the title's baseline beyond the widest decade label ("100G", 11 px) after d3's 9 px of tick
            label_offset="46px",
        )
        axes = [self._x_axis, self._y_axis]
        self.figure = Figure(
            marks=self._one_level_marks(),
            axes=axes,
            title="roofline",
            title_style={"fill": INK},
            fig_margin={"top": 40, "bottom": 50, "left": 70, "right": 20},
            layout=ipywidgets.Layout(height=f"{height}px", width="100%"),
        )
        self.readout = [ipywidgets.Label(), ipywidgets.Label()]  # two short lines: Labels do not wrap
        # The point legend: one swatch per phase (its colour, its name as plain text) and the schedule's ◆.
        self.legend = ipywidgets.HBox(layout=ipywidgets.Layout(flex_flow="row wrap"))
        self._height = height
        super().__init__()
        self.threshold = threshold
        self.layout.min_width = "320px"
        # The diagram's hovered phase and the roofline's hovered point are one value, linked in the browser.
        self._link = ipywidgets.jslink((diagram, "hovered_phase"), (self.points, "hovered_point"))
        # Anything that gives the diagram a new schedule (peaks, tiles, params, …) changes its makespan;
        # params and peaks are named too, for the rare change that leaves the makespan equal.
        diagram.observe(self.refresh, names=["makespan", "peak_compute", "peak_bandwidth", "phase_colors", "params"])
        diagram.observe(self._show_details, names=["hovered_phase"])
        diagram.observe(self._follow_hover, names=["hovered_phase"])
        self.points.observe(self._show_details, names=["hovered_point"])
        self.observe(self.refresh, names=["threshold"])
        self.observe(self._on_shown_levels, names=["shown_levels"])
        self.refresh()

    def canvas_plot(self):
        """This roofline as a ``RooflinePlot`` (the canvas anywidget drawing the same geometry), with
        the same threshold and levels shown: for front ends without ipywidgets and for ``to_html``."""
        from .roofline_canvas import RooflinePlot

        plot = RooflinePlot(self.diagram, threshold=self.threshold, height=self._height, theme=self.diagram.theme)
        if self.shown_levels:
            plot.shown_levels = list(self.shown_levels)
        return plot

    @property
    def twin(self):
        """This roofline's ``canvas_plot()``, made on first use and kept with this view's threshold and
        levels shown: what stands for it where only anywidgets render (marimo, ``to_html``)."""
        plot = self.__dict__.get("_twin")
        if plot is None:
            plot = self._twin = self.canvas_plot()
            self._twin_link = t.link((self, "threshold"), (plot, "threshold"))
            self.observe(self._twin_levels, names=["shown_levels"])
        return plot

    def _twin_levels(self, _change=None):
        if self.shown_levels:
            self._twin.shown_levels = list(self.shown_levels)

    def _layout(self) -> Layout:
        """The figure, its legend and readout; the canvas twin alone without ipywidgets, its hover the
        diagram's (in the kernel the twin follows the diagram itself: a page links them)."""
        figure = Part(self.figure, static=lambda: self.twin)
        hover = Link((self.diagram, "hovered_phase"), (figure, "hovered_phase"), hosts=frozenset({PAGE}))
        rest = [Part(widget, static=None) for widget in (self.legend, *self.readout)]
        return Layout(Column((figure, *rest)), (hover,))

    def panel(self):
        """What this roofline shows, for the static renderer (``static_figure.draw_roofline``, ``savefig``'s
        ``roofline=``): the diagram's schedule as the aggregate point, the shown levels only."""
        from ..static_figure import roofline_panel_for

        workload = self.diagram.workload
        return roofline_panel_for(
            workload,
            {"schedule": self.diagram.schedule},
            colors=list(self.diagram.phase_colors),
            levels=list(self.shown_levels) if len(self._level_names) > 1 and self.shown_levels else None,
        )

    def _one_level_marks(self) -> list:
        return [
            self.ceilings,
            self.ceiling_labels,
            self.ceiling_slope_labels,
            self.roof,
            self.ridge,
            self.points,
            self.aggregate,
            self.ridge_label,  # drawn last: a point at the ridge does not hide it
        ]

    def _set_levels(self, names: tuple[str, ...]) -> None:
        """Make the marks for this machine's levels: today's marks for one level, the hierarchy's for several."""
        self._level_names = names
        for scatter in self.level_points.values():
            scatter.unobserve(self._on_level_hover, names=["hovered_point"])
        self.level_points, self.level_boxes = {}, {}
        if len(names) <= 1:
            self.roof.visible = self.ridge.visible = True
            if self._link is None:
                self._link = ipywidgets.jslink((self.diagram, "hovered_phase"), (self.points, "hovered_point"))
            self.figure.marks = self._one_level_marks()
        else:
            if self._link is not None:  # several scatters, each with the phases known at its level: linked here
                self._link.unlink()
                self._link = None
            scales = {"x": self._x, "y": self._y, "size": LinearScale(min=0.0, max=1.0)}
            for k, name in enumerate(names):
                marker, glyph = level_marker(k, len(names))
                scatter = Scatter(
                    x=[1],
                    y=[1],
                    scales=scales,
                    marker=marker,
                    colors=["#999999"],
                    stroke="#222222",
                    stroke_width=0.8,
                    display_names=False,
                    interactions={"hover": "tooltip"},
                    tooltip=self.points.tooltip,
                    hovered_style=dict(self.points.hovered_style),
                    unhovered_style=dict(self.points.unhovered_style),
                )
                scatter.observe(self._on_level_hover, names=["hovered_point"])
                self.level_points[name] = scatter
                box = ipywidgets.Checkbox(
                    value=True,
                    description=f"{glyph} {name}",
                    indent=False,
                    layout=ipywidgets.Layout(width="auto", margin=_LEGEND_ENTRY_MARGIN),
                )
                box.observe(self._on_level_box, names=["value"])
                self.level_boxes[name] = box
            self.figure.marks = [
                self.ceilings,
                self.ceiling_labels,
                self.ceiling_slope_labels,
                self.roof,
                self.ridge,  # named by the levels above them: no "ridge" label
                self.level_lines,
                *self.level_points.values(),
                self.aggregate,
                self.roof_labels,  # the levels' names drawn last: no point hides them
                self.roof_labels_high,
            ]
        self._legend_key = None
        self.shown_levels = list(names)

    def _on_level_box(self, _change=None):
        if not getattr(self, "_syncing_boxes", False):
            self.shown_levels = [name for name, box in self.level_boxes.items() if box.value]

    def _on_shown_levels(self, _change=None):
        self._syncing_boxes = True  # the boxes follow the trait; their own observer must not write it back
        try:
            for name, box in self.level_boxes.items():
                box.value = name in self.shown_levels
        finally:
            self._syncing_boxes = False
        if len(self._level_names) > 1 and getattr(self, "_limits", None) is not None:
            with self.figure.hold_sync():
                self._draw_levels()

    def _on_level_hover(self, change):
        """A point of any level hovered: its phase is the diagram's hovered phase (and so every level's)."""
        for name, scatter in self.level_points.items():
            if scatter is change["owner"]:
                point = change["new"]
                phases = self._level_phases.get(name, np.empty(0, int))
                if point is not None and 0 <= point < phases.size:
                    self.diagram.hovered_phase = int(phases[point])
                elif change["old"] is not None and 0 <= change["old"] < phases.size:
                    if self.diagram.hovered_phase == int(phases[change["old"]]):
                        self.diagram.hovered_phase = None

    def _follow_hover(self, _change=None):
        """The diagram's hovered phase highlighted at every level: its points and its line."""
        if len(self._level_names) <= 1:
            return
        phase = self.diagram.hovered_phase
        for name, scatter in self.level_points.items():
            where = np.flatnonzero(self._level_phases.get(name, np.empty(0, int)) == phase)
            scatter.hovered_point = int(where[0]) if phase is not None and where.size else None
        phases = getattr(self, "_line_phases", np.empty(0, int))
        if phases.size:
            self.level_lines.opacities = (
                [1.0] * phases.size if phase is None else [1.0 if p == phase else 0.3 for p in phases]
            )

    def refresh(self, _change=None):
        workload, schedule = self.diagram.workload, self.diagram.schedule
        key = (schedule, workload, self.threshold, tuple(self.diagram.phase_colors))
        drawn = getattr(self, "_drawn", None)
        if (
            _change is not None
            and drawn is not None
            and all(a is b for a, b in zip(key[:2], drawn[:2]))
            and key[2:] == drawn[2:]
        ):
            return  # one diagram change fires several of the observed traits: draw it once
        self._drawn = key
        machine = workload.machine
        if machine.level_names != self._level_names:
            self._limits = None
            self._set_levels(machine.level_names)
        geometry = roofline_geometry(workload, schedule, self.threshold)  # shared with RooflinePlot
        self._geometry = geometry
        phases, hierarchy = geometry.phases, geometry.hierarchy
        self._phases = phases
        (x_lo, x_hi), (y_lo, y_hi) = geometry.x_range, geometry.y_range
        P, BW = machine.peak_compute, machine.peak_bandwidth
        x, achieved, share = geometry.phase_x, geometry.phase_y, geometry.share
        aggregate_x = geometry.aggregate[0]
        with self.figure.hold_sync(), self.points.hold_sync():
            self.roof.x, self.roof.y = [x_lo, phases.ridge, x_hi], [BW * x_lo, P, P]
            self.ridge.x, self.ridge.y = [phases.ridge], [P]
            self.ridge_label.x, self.ridge_label.y = [phases.ridge], [P]
            intensity_unit = f"{machine.ops_unit}/{machine.bytes_unit}"  # one vocabulary with the diagram
            self.ridge_label.text = [f"ridge {format_number(phases.ridge, 3)} {intensity_unit}"]
            self._x_axis.label = x_axis_label(intensity_unit)
            self._y_axis.label = f"attainable ({machine.compute_unit})"
            self._draw_ceilings(drawn_ceilings(workload), machine, x_lo, x_hi, y_lo)
            self.points.x, self.points.y = x, achieved
            self.points.size = np.clip(share, _MIN_MARKER / _MAX_MARKER, 1.0)
            self.points.default_size = _MAX_MARKER
            self.points.colors = list(self.diagram.phase_colors)
            self.aggregate.x, self.aggregate.y = [aggregate_x], [geometry.aggregate[1]]
            self._x.min, self._x.max = x_lo, x_hi
            self._y.min, self._y.max = y_lo, y_hi
            self._x_axis.tick_values, self._y_axis.tick_values = geometry.x_ticks, geometry.y_ticks
            if hierarchy is not None:
                self._hierarchy, self._share, self._limits = hierarchy, share, (x_lo, x_hi, y_lo)
                self._draw_levels()
        self._fill_legend()
        for label, text in zip(self.readout, schedule_readout(geometry, workload, schedule)):
            label.value = text
        self._show_details()

    def _draw_levels(self):
        """The hierarchy's marks for the shown levels: roofs, their names, ridges, points and lines."""
        h, share, (x_lo, x_hi, y_lo) = self._hierarchy, self._share, self._limits
        P = h.peak_compute
        shown = [(k, name, float(h.bandwidths[k])) for k, name in enumerate(h.levels) if name in self.shown_levels]
        for mark in (self.roof, self.roof_labels, self.roof_labels_high, self.ridge):
            mark.visible = bool(shown)
        if shown:
            self.roof.x = [[x_lo, P / bw, x_hi] for _, _, bw in shown]
            self.roof.y = [[bw * x_lo, P, P] for _, _, bw in shown]
            self.ridge.x, self.ridge.y = [P / bw for _, _, bw in shown], [P] * len(shown)
            # a name whose ridge is near the previous one's goes on a second row, above the first
            rows, previous, high = ([], []), None, False
            for _, name, bw in shown:
                high = previous is not None and not high and P / bw < 2.5 * previous
                rows[high].append((P / bw, name))
                previous = P / bw
            for mark, row in zip((self.roof_labels, self.roof_labels_high), rows):
                mark.visible = bool(row)
                if row:
                    mark.x, mark.y, mark.text = [r for r, _ in row], [P] * len(row), [n for _, n in row]
        colors, names = list(self.diagram.phase_colors), list(self.diagram.phase_names)
        oi = h.intensity
        x = np.where(oi == 0, x_lo, np.where(np.isinf(oi), x_hi, oi))
        y = np.where(h.achieved > 0, h.achieved, y_lo)
        drawn = ~np.isnan(oi)
        sizes = np.clip(share, _MIN_MARKER / _MAX_MARKER, 1.0)
        for k, name in enumerate(h.levels):
            scatter, idx = self.level_points[name], np.flatnonzero(drawn[:, k])
            self._level_phases[name] = idx
            with scatter.hold_sync():
                scatter.x, scatter.y, scatter.size = x[idx, k], y[idx], sizes[idx]
                scatter.default_size = _MAX_MARKER
                scatter.colors = [colors[i] for i in idx] or ["#999999"]
                scatter.names = [names[i] for i in idx]
                scatter.visible = name in self.shown_levels and bool(idx.size)
        # one line per phase with two or more shown points; an unknown level repeats the point before it
        # (or after it, at the start), and a repeated point draws nothing more
        sub = np.where(drawn[:, [k for k, _, _ in shown]], x[:, [k for k, _, _ in shown]], np.nan)
        phases = np.flatnonzero((~np.isnan(sub)).sum(axis=1) >= 2)
        sub = sub[phases]
        if sub.size:
            rows = np.arange(sub.shape[0])[:, None]
            last = np.maximum.accumulate(np.where(np.isnan(sub), 0, np.arange(sub.shape[1])), axis=1)
            sub = sub[rows, last]
            first = np.argmax(~np.isnan(sub), axis=1)
            sub = np.where(np.isnan(sub), sub[rows[:, 0], first][:, None], sub)
        self._line_phases = phases
        self.level_lines.visible = bool(phases.size)
        if phases.size:
            self.level_lines.x = sub
            self.level_lines.y = np.repeat(y[phases][:, None], sub.shape[1], axis=1)
            self.level_lines.colors = [colors[i] for i in phases]
            self.level_lines.opacities = [1.0] * phases.size
        self._follow_hover()

    def _fill_legend(self):
        names, colors = list(self.diagram.phase_names), list(self.diagram.phase_colors)
        key = (names, colors, self._level_names)
        if getattr(self, "_legend_key", None) == key:
            return
        self._legend_key = key
        # on several levels a circle is a level's shape: the phases' swatches are bars of their colour
        mark = "●" if len(self._level_names) <= 1 else "▬"
        items = [_swatch(mark, name, color) for name, color in zip(names, colors)]
        items.append(_swatch("◆", "schedule", INK))
        items.extend(self.level_boxes.values())
        self.legend.children = items

    def _draw_ceilings(self, ceilings, machine, x_lo, x_hi, y_lo):
        xs, ys = [], []
        flat, slope = ([], [], []), ([], [], [])  # (x, y, name) of the labels above a flat part, under a slope
        for ceiling in ceilings:
            P = ceiling.compute if ceiling.compute is not None else machine.peak_compute
            BW = ceiling.bandwidth if ceiling.bandwidth is not None else machine.peak_bandwidth
            ridge = P / BW
            xs.append([x_lo, ridge, x_hi])
            ys.append([BW * x_lo, P, P])
            if ceiling.compute is not None and (ceiling.bandwidth is None or ridge < x_hi / 2):
                where = (x_hi, P)  # its own flat part, below the roof's: the name above it, at the right edge
                row = flat
            else:  # a bandwidth ceiling shares the roof's flat part: its name goes by its slanted part
                x_at = min(max(x_lo * 2.2, 3 * y_lo / BW), ridge / 2)
                where = (x_at, BW * x_at)
                row = slope
            row[0].append(where[0])
            row[1].append(where[1])
            row[2].append(ceiling.name)
        self.ceilings.visible = bool(xs)
        if xs:
            self.ceilings.x, self.ceilings.y = xs, ys
        for mark, (label_x, label_y, names) in ((self.ceiling_labels, flat), (self.ceiling_slope_labels, slope)):
            mark.visible = bool(names)
            if names:
                mark.x, mark.y, mark.text = label_x, label_y, names

    def _hovered(self):
        """The phase hovered in the diagram or on any of the roofline's points, or None."""
        index = self.diagram.hovered_phase
        if index is None:
            index = self.points.hovered_point
        for name, scatter in self.level_points.items():
            phases = self._level_phases.get(name, np.empty(0, int))
            if index is None and scatter.hovered_point is not None and 0 <= scatter.hovered_point < phases.size:
                index = int(phases[scatter.hovered_point])
        return index

    def _show_details(self, _change=None):
        index = self._hovered()
        if index is None or not 0 <= index < len(self.diagram.phase_names):
            for label in self.details:
                label.value = ""
            return
        lines = phase_details(
            self._geometry, self.diagram.workload, self.threshold, index, names=self.diagram.phase_names
        )
        for label, line in zip(self.details, lines):
            label.value = line


def _labels(scales: dict, color: str, **placing) -> Label:
    """A bqplot text mark of 11 px in ``color``, placed as ``placing`` says; its points and texts are
    set when the roofline is drawn."""
    return Label(x=[1], y=[1], text=[""], scales=scales, colors=[color], default_size=11, **placing)


# A legend entry is its mark, a thin space, its name; entries are set well apart so that a name is read
# with the mark before it ("● A   ● B", never "● A● B"). The labels keep JupyterLab's line height: a
# shorter box cuts the glyphs below the baseline ("q_proj" read as "q proj").
_LEGEND_MARK = ipywidgets.Layout(margin="0 3px 0 0")
_LEGEND_NAME = ipywidgets.Layout(margin="0")
_LEGEND_ENTRY_MARGIN = "0 14px 0 0"


def _swatch(mark: str, name: str, color: str) -> ipywidgets.HBox:
    """One legend entry: the mark in the point's colour, the name (plain text, never markup) in the
    theme's text colour, so a dark phase colour stays readable on a dark page."""
    return ipywidgets.HBox(
        [
            ipywidgets.Label(value=mark, style={"text_color": color, "font_size": "11px"}, layout=_LEGEND_MARK),
            ipywidgets.Label(value=name, style={"text_color": INK, "font_size": "11px"}, layout=_LEGEND_NAME),
        ],
        layout=ipywidgets.Layout(margin=_LEGEND_ENTRY_MARGIN),
    )
