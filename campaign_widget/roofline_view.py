"""A bqplot roofline (design.md §5) that follows a campaign diagram's peaks and hover.

One point per phase (area ∝ its share of the makespan), one aggregate point for the schedule,
the two roofs with the ridge marked, and the machine's extra ceilings as lower roofs.
"""

from __future__ import annotations

import numpy as np
import ipywidgets
import traitlets as t
from bqplot import Axis, Figure, Label, Lines, LinearScale, LogScale, Scatter

from .formatting import format_si
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
        self.ceilings = Lines(x=[[1, 2]], y=[[1, 2]], scales=scales, colors=["#999999"], line_style="dashed",
                              stroke_width=1.5, visible=False)
        self.ceiling_labels = Label(x=[1], y=[1], text=[""], scales=scales, colors=["#777777"], default_size=11,
                                    visible=False)
        self.ridge = Scatter(x=[1], y=[1], scales=scales, colors=["#333333"], marker="circle", default_size=36)
        self.ridge_label = Label(x=[1], y=[1], text=[""], scales=scales, colors=["#333333"], default_size=11,
                                 x_offset=6, y_offset=14)
        # Marker area ∝ share of the makespan: sizes in [0, 1] map onto [0, default_size] px².
        self.points = Scatter(x=[1], y=[1], scales={**scales, "size": LinearScale(min=0.0, max=1.0)},
                              colors=list(diagram.phase_colors), stroke="#222222",
                              stroke_width=0.8, names=list(diagram.phase_names), display_names=False,
                              interactions={"hover": "tooltip"},
                              hovered_style={"opacity": 1.0, "stroke": "black", "stroke-width": 3},
                              unhovered_style={"opacity": 0.35})
        self.aggregate = Scatter(x=[1], y=[1], scales=scales, colors=["#111111"], marker="diamond",
                                 default_size=90, names=["schedule"], display_names=True)
        self.details = [ipywidgets.Label() for _ in range(4)]
        self.points.tooltip = ipywidgets.VBox(self.details)
        self._x_axis = Axis(scale=self._x, label="operational intensity (ops/byte)", grid_lines="none",
                            tick_format="~g")
        self._y_axis = Axis(scale=self._y, side="left", label="attainable (ops/s)", grid_lines="solid",
                            tick_format="~s")
        axes = [self._x_axis, self._y_axis]
        self.figure = Figure(marks=[self.ceilings, self.ceiling_labels, self.roof, self.ridge, self.ridge_label,
                                    self.points, self.aggregate],
                             axes=axes, title="roofline", fig_margin={"top": 40, "bottom": 50, "left": 70, "right": 20},
                             layout=ipywidgets.Layout(height=f"{height}px", width="100%"))
        self.readout = [ipywidgets.Label(), ipywidgets.Label()]  # two short lines: Labels do not wrap
        super().__init__(children=[self.figure, *self.readout])
        self.threshold = threshold
        self.layout.min_width = "320px"
        # The diagram's hovered phase and the roofline's hovered point are one value, linked in the browser.
        self._link = ipywidgets.jslink((diagram, "hovered_phase"), (self.points, "hovered_point"))
        diagram.observe(self.refresh, names=["makespan", "peak_compute", "peak_bandwidth", "phase_colors"])
        diagram.observe(self._show_details, names=["hovered_phase"])
        self.points.observe(self._show_details, names=["hovered_point"])
        self.observe(self.refresh, names=["threshold"])
        self.refresh()

    def refresh(self, _change=None):
        workload, schedule = self.diagram.workload, self.diagram.schedule
        machine = workload.machine
        phases = workload_roofline(workload, self.threshold)
        total = schedule_roofline(workload, schedule, self.threshold)
        self._phases = phases
        finite = np.isfinite(phases.intensity) & (phases.intensity > 0)
        spread = np.r_[phases.intensity[finite], total.intensity[np.isfinite(total.intensity)], phases.ridge]
        x_lo, x_hi = float(spread.min()) / 8, float(spread.max()) * 8
        P, BW = machine.peak_compute, machine.peak_bandwidth
        achieved = np.maximum(phases.achieved, P * 1e-6)
        share = workload.arrays.duration / max(schedule.makespan, 1e-300)
        x = np.where(finite, phases.intensity, x_hi)  # an all-compute phase sits at the right edge
        with self.figure.hold_sync(), self.points.hold_sync():
            self.roof.x, self.roof.y = [x_lo, phases.ridge, x_hi], [BW * x_lo, P, P]
            self.ridge.x, self.ridge.y = [phases.ridge], [P]
            self.ridge_label.x, self.ridge_label.y = [phases.ridge], [P]
            self.ridge_label.text = [f"ridge {phases.ridge:.3g} {machine.ops_unit}/{machine.bytes_unit}"]
            self._draw_ceilings(machine, x_lo, x_hi)
            self.points.x, self.points.y = x, achieved
            self.points.size = np.clip(share, _MIN_MARKER / _MAX_MARKER, 1.0)
            self.points.default_size = _MAX_MARKER
            self.points.colors = list(self.diagram.phase_colors)
            self.aggregate.x, self.aggregate.y = [float(total.intensity[0])], [float(total.achieved[0])]
            self._x.min, self._x.max = x_lo, x_hi
            self._y.min = float(min(achieved.min(), total.achieved[0], BW * x_lo)) / 2
            self._y.max = P * 2
            self._x_axis.tick_values = _decades(x_lo, x_hi)
            self._y_axis.tick_values = _decades(self._y.min, self._y.max)
        self.readout[0].value = (f"schedule: OI {total.intensity[0]:.3g}, "
                                 f"{format_si(total.achieved[0], machine.compute_unit)}")
        self.readout[1].value = f"{total.efficiency[0]:.0%} of its roof, {total.regime[0]}"
        self._show_details()

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
        self.details[1].value = (f"achieved {format_si(r.achieved[index], machine.compute_unit)}, "
                                 f"bound {format_si(r.bound[index], machine.compute_unit)}")
        self.details[2].value = f"{r.regime[index]}, efficiency {r.efficiency[index]:.0%}"
        self.details[3].value = r.guidance[index]


def _decades(lo: float, hi: float, most: int = 7) -> list[float]:
    """Powers of ten inside [lo, hi], thinned to at most ``most`` labels."""
    first, last = int(np.ceil(np.log10(lo))), int(np.floor(np.log10(hi)))
    step = max(1, -(-(last - first + 1) // most))
    return [10.0 ** k for k in range(first, last + 1, step)]


class Explorer(ipywidgets.HBox):
    """Controls, campaign diagram and roofline together; hovering a phase in one highlights it in
    the other. The default rich display of a ``Workload``.

    When the workload's phases name the tensors they read and write (or ``dataflow=True``), its
    dataflow graph (``DataflowView``) comes too, on a row of its own below; its hovered or clicked
    phase and the diagram's hovered phase are one value, linked in the browser."""

    def __init__(self, workload, *, threshold: float = DEFAULT_THRESHOLD, height: int = 360,
                 dataflow: bool | None = None, **diagram_settings):
        self.diagram = CampaignDiagram(workload, height=height, **diagram_settings)
        self.roofline = RooflineView(self.diagram, threshold=threshold, height=height + 60)
        self.diagram.layout = ipywidgets.Layout(flex="3 1 0%", min_width="420px")
        self.roofline.layout.flex = "2 1 0%"
        children = [self.diagram, self.roofline]
        if dataflow is None:
            dataflow = any(reads or writes for reads, writes in workload.tensors)
        self.dataflow = None
        if dataflow:
            from .dataflow_view import DataflowView

            self.dataflow = DataflowView(workload, height=height)
            self.dataflow.layout = ipywidgets.Layout(flex="1 1 100%", width="100%")
            children.append(self.dataflow)
            self._dataflow_link = ipywidgets.jslink((self.diagram, "hovered_phase"), (self.dataflow, "hovered_phase"))
            # durations and efficiencies follow the diagram's peak sliders
            self.diagram.observe(lambda _change: self.dataflow.set_workload(self.diagram.workload),
                                 names=["peak_compute", "peak_bandwidth"])
        super().__init__(children=children,
                         layout=ipywidgets.Layout(width="100%", align_items="flex-start",
                                                  flex_flow="row wrap" if dataflow else "row"))

    def savefig(self, path, *, width: float = 11.0, dpi: int = 200):
        """Write the diagram with its roofline as PNG, SVG or PDF (by suffix), with no browser."""
        return self.diagram.savefig(path, roofline=True, width=width, dpi=dpi)
