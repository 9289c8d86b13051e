"""Campaign diagrams and rooflines as PNG, SVG or PDF files, with no browser and no kernel.

The static figure draws the same ``Scene`` as the browser view (``js/diagram/draw.js``) with the same
look: the constants below mirror ``js/shared/theme.js`` and ``js/diagram/layout.js`` (sizes in CSS px, one inch =
96 CSS px, so an 8-inch figure matches a 768-px-wide widget). Only matplotlib's object API with
the Agg canvas is used, never pyplot's global state, so exports work in CI jobs and in threads.

>>> import pathlib, tempfile
>>> from campaign_widget import Phase, Workload
>>> w = Workload([Phase("A", duration=3, compute_util=.7, memory_util=.25),
...               Phase("B", duration=10, compute_util=.2, memory_util=.9, after=["A"])])
>>> path = save_workload_figure(w, pathlib.Path(tempfile.mkdtemp()) / "campaign.svg", tiles=4, pipeline=True,
...                             roofline=True)
>>> path.read_text().startswith("<?xml")
True

Text that comes from users (phase names, titles, units) is drawn literally: mathtext is off for
every text this module creates, so ``"$x$"`` stays ``$x$``.
"""

from .campaign import draw_campaign, readout_lines
from .heatmap import render_sweep_heatmap, save_sweep_heatmap
from .panels import Panel, RooflinePanel, describe_schedule, hierarchy_panels, panel_for, roofline_panel_for
from .render import RenderedFigure, render_figure, save_workload_figure, savefig
from .roofline_plot import draw_roofline
from .style import FORMATS, lighten

__all__ = [
    "Panel",
    "RooflinePanel",
    "RenderedFigure",
    "draw_campaign",
    "draw_roofline",
    "render_figure",
    "savefig",
    "save_workload_figure",
    "hierarchy_panels",
    "panel_for",
    "roofline_panel_for",
    "describe_schedule",
    "readout_lines",
    "lighten",
    "FORMATS",
    "render_sweep_heatmap",
    "save_sweep_heatmap",
]
