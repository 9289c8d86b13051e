"""A bqplot roofline (design.md §5) that follows a campaign diagram's peaks and hover.

One point per phase (area ∝ its share of the makespan), one aggregate point for the schedule,
the two roofs with the ridge marked, and the machine's extra ceilings as lower roofs.
"""

from __future__ import annotations

import ipywidgets
import numpy as np
import traitlets as t
from bqplot import Axis, Figure, Label, LinearScale, Lines, LogScale, Scatter

from .formatting import format_number, format_si
from .roofline import DEFAULT_THRESHOLD, schedule_roofline, workload_roofline
from .widget import CampaignDiagram

_MIN_MARKER, _MAX_MARKER = 30, 900  # bqplot marker areas in px²


class RooflineView(ipywidgets.VBox):
    """The roofline of what a ``CampaignDiagram`` shows; follows its peaks and its hovered phase."""

    threshold = t.Float(DEFAULT_THRESHOLD, min=0.01, max=1.0)

    def __init__(self, diagram: CampaignDiagram, *, threshold: float = DEFAULT_THRESHOLD, height: int = 360):
        self.diagram = diagram
        self._x = LogScale()
        self._y = LogScale()
        scales = {"x": self._x, "y": self._y}
        self.roof = Lines(x=[1, 2], y=[1, 2], scales=scales, colors=["#333333"], stroke_width=2)
        self.ceilings = Lines(
            x=[[1, 2]],
            y=[[1, 2]],
            scales=scales,
            colors=["#999999"],
            line_style="dashed",
            stroke_width=1.5,
            visible=False,
        )
        self.ceiling_labels = Label(
            x=[1], y=[1], text=[""], scales=scales, colors=["#777777"], default_size=11, visible=False
        )
        self.ridge = Scatter(x=[1], y=[1], scales=scales, colors=["#333333"], marker="circle", default_size=36)
        # Above the roof: every point lies on or under it, so a label there covers none of them.
        self.ridge_label = Label(
            x=[1],
            y=[1],
            text=[""],
            scales=scales,
            colors=["#333333"],
            default_size=11,
            x_offset=0,
            y_offset=-10,
            align="middle",
        )
        # Marker area ∝ share of the makespan: sizes in [0, 1] map onto [0, default_size] px².
        self.points = Scatter(
            x=[1],
            y=[1],
            scales={**scales, "size": LinearScale(min=0.0, max=1.0)},
            colors=list(diagram.phase_colors),
            stroke="#222222",
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
            colors=["#111111"],
            marker="diamond",
            default_size=90,
            names=["schedule"],
            display_names=False,
        )
        self.details = [ipywidgets.Label() for _ in range(4)]
        self.points.tooltip = ipywidgets.VBox(self.details)
        self._x_axis = Axis(
            scale=self._x,
            label="operational intensity",
            grid_lines="none",
            tick_format="~g",
            tick_style={"font-size": "11px"},
        )
        self._y_axis = Axis(
            scale=self._y,
            side="left",
            label="attainable",
            grid_lines="solid",
            tick_format="~s",
            tick_style={"font-size": "11px"},
        )
        axes = [self._x_axis, self._y_axis]
        self.figure = Figure(
            marks=[
                self.ceilings,
                self.ceiling_labels,
                self.roof,
                self.ridge,
                self.ridge_label,
                self.points,
                self.aggregate,
            ],
            axes=axes,
            title="roofline",
            fig_margin={"top": 40, "bottom": 50, "left": 70, "right": 20},
            layout=ipywidgets.Layout(height=f"{height}px", width="100%"),
        )
        self.readout = [ipywidgets.Label(), ipywidgets.Label()]  # two short lines: Labels do not wrap
        # The point legend: one swatch per phase (its colour, its name as plain text) and the schedule's ◆.
        self.legend = ipywidgets.HBox(layout=ipywidgets.Layout(flex_flow="row wrap", gap="2px 6px"))
        super().__init__(children=[self.figure, self.legend, *self.readout])
        self.threshold = threshold
        self.layout.min_width = "320px"
        # The diagram's hovered phase and the roofline's hovered point are one value, linked in the browser.
        self._link = ipywidgets.jslink((diagram, "hovered_phase"), (self.points, "hovered_point"))
        # Anything that gives the diagram a new schedule (peaks, tiles, params, …) changes its makespan;
        # params and peaks are named too, for the rare change that leaves the makespan equal.
        diagram.observe(self.refresh, names=["makespan", "peak_compute", "peak_bandwidth", "phase_colors", "params"])
        diagram.observe(self._show_details, names=["hovered_phase"])
        self.points.observe(self._show_details, names=["hovered_point"])
        self.observe(self.refresh, names=["threshold"])
        self.refresh()

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
        phases = workload_roofline(workload, self.threshold)
        total = schedule_roofline(workload, schedule, self.threshold)
        self._phases = phases
        # finite, positive limits whatever the phases (all ops 0, all bytes 0); OI 0 sits at the left
        # edge, OI ∞ at the right, phases with no work are not drawn (docs/workload-files.md)
        x_lo, x_hi, y_lo, y_hi = phases.axis_limits(total.intensity)
        P, BW = machine.peak_compute, machine.peak_bandwidth
        x, achieved = phases.plot_position(x_lo, x_hi, y_lo)
        share = workload.arrays.duration / max(schedule.makespan, 1e-300)
        aggregate_x = float(total.intensity[0])
        if not np.isfinite(aggregate_x) or aggregate_x <= 0:
            aggregate_x = x_hi if np.isinf(aggregate_x) else x_lo
        with self.figure.hold_sync(), self.points.hold_sync():
            self.roof.x, self.roof.y = [x_lo, phases.ridge, x_hi], [BW * x_lo, P, P]
            self.ridge.x, self.ridge.y = [phases.ridge], [P]
            self.ridge_label.x, self.ridge_label.y = [phases.ridge], [P]
            intensity_unit = f"{machine.ops_unit}/{machine.bytes_unit}"  # one vocabulary with the diagram
            self.ridge_label.text = [f"ridge {format_number(phases.ridge, 3)} {intensity_unit}"]
            self._x_axis.label = f"operational intensity ({intensity_unit})"
            self._y_axis.label = f"attainable ({machine.compute_unit})"
            self._draw_ceilings(machine, x_lo, x_hi)
            self.points.x, self.points.y = x, achieved
            self.points.size = np.clip(share, _MIN_MARKER / _MAX_MARKER, 1.0)
            self.points.default_size = _MAX_MARKER
            self.points.colors = list(self.diagram.phase_colors)
            self.aggregate.x, self.aggregate.y = [aggregate_x], [max(float(total.achieved[0]), y_lo)]
            self._x.min, self._x.max = x_lo, x_hi
            self._y.min, self._y.max = y_lo, y_hi
            self._x_axis.tick_values = _decades(x_lo, x_hi)
            self._y_axis.tick_values = _decades(self._y.min, self._y.max)
        self._fill_legend()
        self.readout[
            0
        ].value = (
            f"schedule: OI {format_number(total.intensity[0], 3)}, {format_si(total.achieved[0], machine.compute_unit)}"
        )
        self.readout[1].value = f"{total.efficiency[0]:.0%} of its roof, {total.regime[0]}"
        self._show_details()

    def _fill_legend(self):
        names, colors = list(self.diagram.phase_names), list(self.diagram.phase_colors)
        if getattr(self, "_legend_key", None) == (names, colors):
            return
        self._legend_key = (names, colors)
        items = [_swatch(f"● {name}", color) for name, color in zip(names, colors)]
        items.append(_swatch("◆ schedule", "#111111"))
        self.legend.children = items

    def _draw_ceilings(self, machine, x_lo, x_hi):
        xs, ys, labels, label_x, label_y = [], [], [], [], []
        for ceiling in machine.ceilings:
            P = ceiling.compute if ceiling.compute is not None else machine.peak_compute
            BW = ceiling.bandwidth if ceiling.bandwidth is not None else machine.peak_bandwidth
            ridge = P / BW
            xs.append([x_lo, ridge, x_hi])
            ys.append([BW * x_lo, P, P])
            labels.append(ceiling.name)
            label_x.append(x_hi / 3)
            label_y.append(P)
        self.ceilings.visible = self.ceiling_labels.visible = bool(xs)
        if xs:
            self.ceilings.x, self.ceilings.y = xs, ys
            self.ceiling_labels.x, self.ceiling_labels.y, self.ceiling_labels.text = label_x, label_y, labels

    def _show_details(self, _change=None):
        index = self.diagram.hovered_phase
        if index is None:
            index = self.points.hovered_point
        if index is None or not 0 <= index < len(self.diagram.phase_names):
            for label in self.details:
                label.value = ""
            return
        r, machine = self._phases, self.diagram.workload.machine
        self.details[0].value = f"{self.diagram.phase_names[index]}: OI {r.intensity[index]:.3g}"
        self.details[1].value = (
            f"achieved {format_si(r.achieved[index], machine.compute_unit)}, "
            f"bound {format_si(r.bound[index], machine.compute_unit)}"
        )
        self.details[2].value = f"{r.regime[index]}, efficiency {r.efficiency[index]:.0%}"
        self.details[3].value = r.guidance[index]


def _swatch(text: str, color: str) -> ipywidgets.Label:
    """One legend entry: the text (plain, never markup) in the point's colour."""
    return ipywidgets.Label(
        value=text,
        style={"text_color": color, "font_size": "11px"},
        layout=ipywidgets.Layout(margin="0", height="18px"),
    )


def _decades(lo: float, hi: float, most: int = 7) -> list[float]:
    """Powers of ten inside [lo, hi], thinned to at most ``most`` labels."""
    first, last = int(np.ceil(np.log10(lo))), int(np.floor(np.log10(hi)))
    step = max(1, -(-(last - first + 1) // most))
    return [10.0**k for k in range(first, last + 1, step)]
