"""The Explorer: a workload's controls, campaign diagram and roofline side by side, hover-linked."""

from __future__ import annotations

import ipywidgets

from .roofline import DEFAULT_THRESHOLD
from .roofline_view import RooflineView
from .widget import CampaignDiagram


class Explorer(ipywidgets.HBox):
    """Controls, campaign diagram and roofline together; hovering a phase in one highlights it in
    the other. The default rich display of a ``Workload``."""

    def __init__(self, workload, *, threshold: float = DEFAULT_THRESHOLD, height: int = 360, **diagram_settings):
        self.diagram = CampaignDiagram(workload, height=height, **diagram_settings)
        self.roofline = RooflineView(self.diagram, threshold=threshold, height=height + 60)
        self.diagram.layout = ipywidgets.Layout(flex="3 1 0%", min_width="420px")
        self.roofline.layout.flex = "2 1 0%"
        super().__init__(children=[self.diagram, self.roofline],
                         layout=ipywidgets.Layout(width="100%", align_items="flex-start"))

    def savefig(self, path, *, width: float = 11.0, dpi: int = 200):
        """Write the diagram with its roofline as PNG, SVG or PDF (by suffix), with no browser."""
        return self.diagram.savefig(path, roofline=True, width=width, dpi=dpi)
