"""The Explorer: a workload's controls, campaign diagram and roofline side by side, hover-linked."""

from __future__ import annotations

import ipywidgets
import traitlets

from ..model.roofline import DEFAULT_THRESHOLD
from .diagram import CampaignDiagram
from .roofline import RooflineView


class Explorer(ipywidgets.HBox):
    """Controls, campaign diagram and roofline together; hovering a phase in one highlights it in
    the other. The default rich display of a ``Workload``.

    When the workload's phases name the tensors they read and write (or ``dataflow=True``), its
    dataflow graph (``DataflowView``) comes too, on a row of its own below; its hovered or clicked
    phase and the diagram's hovered phase are one value, linked in the browser.

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
        self.diagram.layout = ipywidgets.Layout(flex="3 1 0%", min_width="420px")
        self.roofline.layout.flex = "2 1 0%"
        children = [self.diagram, self.roofline]
        if dataflow is None:
            dataflow = any(reads or writes for reads, writes in workload.tensors)
        self.dataflow = None
        if dataflow:
            from .dataflow import DataflowView

            self.dataflow = DataflowView(
                workload,
                height=height,
                param_ranges={name: spec["range"] for name, spec in self.diagram.param_ranges.items()},
            )
            self.dataflow.layout = ipywidgets.Layout(flex="1 1 100%", width="100%")
            children.append(self.dataflow)
            self._dataflow_link = ipywidgets.jslink((self.diagram, "hovered_phase"), (self.dataflow, "hovered_phase"))
            if self.diagram.params:
                self._params_link = ipywidgets.jslink((self.diagram, "params"), (self.dataflow, "params"))
            # durations and efficiencies follow the diagram's peak sliders
            self.diagram.observe(
                lambda _change: self.dataflow.set_workload(self.diagram.workload),
                names=["peak_compute", "peak_bandwidth"],
            )
        super().__init__(
            children=children,
            layout=ipywidgets.Layout(
                width="100%", align_items="flex-start", flex_flow="row wrap" if dataflow else "row"
            ),
        )

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
        same geometry as ``self.roofline``, for front ends without ipywidgets (marimo, ``to_html``)."""
        plot = self.__dict__.get("_roofline_plot")
        if plot is None:
            plot = self.roofline.canvas_plot()
            self._roofline_plot = plot
            self._roofline_plot_link = traitlets.link((self.roofline, "threshold"), (plot, "threshold"))
        return plot

    def to_html(self, path, *, title: str = ""):
        """Write the Explorer as one self-contained HTML file (``campaign_widget.views.page``): the
        diagram beside its roofline (the canvas one, ``roofline_plot``), the dataflow view below,
        hover linked, hover, zoom and pan working with no kernel. Written whole or not at all;
        returns the path."""
        from .page import write_html

        return write_html(path, [self], title=title)

    def _add_to_page(self, page) -> None:
        page.row(self.diagram, self.roofline_plot)
        page.link((self.diagram, "hovered_phase"), (self.roofline_plot, "hovered_phase"))
        if self.dataflow is not None:
            page.add(self.dataflow)
            page.link((self.diagram, "hovered_phase"), (self.dataflow, "hovered_phase"))

    def _display_(self):
        """marimo's display (it renders anywidgets, not ipywidgets): the diagram and the canvas roofline
        (``RooflinePlot``, the same geometry as ``self.roofline``), linked in the kernel."""
        from .marimo import explorer_display

        return explorer_display(self)

    def _repr_mimebundle_(self, **kwargs):
        # the live box and a PNG of the figure, for renderings with no widget front end (as every view)
        from .base import with_static_png

        return with_static_png(self, super()._repr_mimebundle_(**kwargs))

    def savefig(self, path, *, width: float = 11.0, dpi: int = 200):
        """Write the diagram with its roofline as PNG, SVG or PDF (by suffix), with no browser."""
        return self.diagram.savefig(path, roofline=True, width=width, dpi=dpi)
