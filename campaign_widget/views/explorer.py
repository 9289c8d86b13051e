"""The Explorer: a workload's controls, campaign diagram and roofline side by side, hover-linked."""

from __future__ import annotations

import ipywidgets

from ..model.roofline import DEFAULT_THRESHOLD
from .composite import JUPYTER, MARIMO, Column, Composite, Layout, Link, Part, Row
from .diagram import CampaignDiagram
from .roofline import RooflineView


class Explorer(Composite, ipywidgets.VBox):
    """Controls, campaign diagram and roofline together; hovering a phase in one highlights it in
    the other. The default rich display of a ``Workload``.

    When the workload's phases name the tensors they read and write (or ``dataflow=True``), its
    dataflow graph (``DataflowView``) comes too, on a row of its own below; its hovered or clicked
    phase and the diagram's hovered phase are one value, linked in the browser.

    ``theme`` (one of the diagram's settings) is every part's: the diagram's, its roofline's canvas
    twin's and the dataflow view's.

    A workload with parameters has one set of values for all three views: the diagram's and the
    dataflow view's ``params`` are linked in the browser (over the same ``param_ranges``), so dragging a
    parameter slider in either moves both, and the roofline follows the diagram. From Python, use
    ``explorer.set_params(S=4096)`` (or ``explorer.params = {...}``), which sets both."""

    def __init__(
        self,
        workload,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        height: int = 360,
        dataflow: bool | None = None,
        **diagram_settings,
    ):
        self.diagram = CampaignDiagram(workload, height=height, **diagram_settings)
        self.roofline = RooflineView(self.diagram, threshold=threshold, height=height + 60)
        self.diagram.layout = ipywidgets.Layout(min_width="420px")
        if dataflow is None:
            dataflow = any(reads or writes for reads, writes in workload.tensors)
        self.dataflow = None
        if dataflow:
            from .dataflow import DataflowView

            self.dataflow = DataflowView(
                workload,
                height=height,
                theme=self.diagram.theme,
                param_ranges={name: spec["range"] for name, spec in self.diagram.param_ranges.items()},
            )
            self.dataflow.layout = ipywidgets.Layout(width="100%")
            # durations and efficiencies follow the diagram's peak sliders
            self.diagram.observe(
                lambda _change: self.dataflow.set_workload(self.diagram.workload),
                names=["peak_compute", "peak_bandwidth"],
            )
        super().__init__(layout=ipywidgets.Layout(width="100%"))

    def _layout(self) -> Layout:
        """The diagram beside its roofline (the canvas one without ipywidgets), the dataflow view below;
        the dataflow view's hovered phase and parameters are the diagram's."""
        # without a dataflow view the row does not wrap: the roofline stays beside the diagram
        parts: list = [Row((Part(self.diagram), Part(self.roofline)), widths=(3, 2), wrap=self.dataflow is not None)]
        links = []
        if self.dataflow is not None:
            parts.append(Part(self.dataflow))
            links.append(Link((self.diagram, "hovered_phase"), (self.dataflow, "hovered_phase")))
            if self.diagram.params:
                # a page has no kernel to draw other values: its parameter sliders are hidden
                links.append(
                    Link((self.diagram, "params"), (self.dataflow, "params"), hosts=frozenset({JUPYTER, MARIMO}))
                )
        return Layout(Column(tuple(parts)), tuple(links))

    @property
    def _params_link(self):
        """The browser link of the diagram's and the dataflow view's parameters (None without it)."""
        return next((link for link in self._links if link.source[1] == "params"), None)

    @property
    def params(self) -> dict:
        """The parameter values all the views show ({} when the workload has none)."""
        return dict(self.diagram.params)

    @params.setter
    def params(self, values: dict):
        self.diagram.params = values  # validated here first: a refused value changes neither view
        if self.dataflow is not None:
            self.dataflow.params = dict(self.diagram.params)

    def set_params(self, **values):
        """Set some parameters in every view (the others keep their values): ``explorer.set_params(S=4096)``."""
        self.params = {**self.diagram.params, **values}

    @property
    def roofline_plot(self):
        """The canvas roofline (``RooflinePlot``) of this Explorer's diagram, made on first use: the
        same geometry as ``self.roofline`` (``RooflineView.twin``), for front ends without ipywidgets
        (marimo, ``to_html``)."""
        return self.roofline.twin

    def savefig(self, path, *, width: float = 11.0, dpi: int = 200):
        """Write the diagram with its roofline as PNG, SVG or PDF (by suffix), with no browser."""
        return self.diagram.savefig(path, roofline=True, width=width, dpi=dpi)
