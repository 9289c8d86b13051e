"""Campaign diagrams, rooflines and data-movement views as live Jupyter widgets.

Layers as folders, each importing only the ones below it (docs/architecture.md): the shared ground
(``errors``, ``formatting``, ``progress``, ``atomic``) ← ``model`` ← ``cache`` ← ``io`` and ``sweep``
← ``figures`` (what each figure shows) ← ``static_figure`` (matplotlib) ← ``views`` (the widgets) ←
``cli``. The views load on first use, so the model and ``io`` import without anywidget or ipywidgets.
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

from . import cache as cache  # cw.cache.Cache, cw.cache.with_predicted_traffic
from .errors import (
    ArgumentError,
    CacheModelError,
    CampaignWidgetError,
    CommandLineError,
    ExpressionError,
    FigureError,
    FigureTooLargeError,
    SceneTooLargeError,
    ScheduleError,
    SweepError,
    SweepFailed,
    TraceSyntaxError,
    UtilizationAboveOneWarning,
    WorkloadError,
    WorkloadFileError,
    WrongTypeError,
    short_repr,
)
from .io import load, read_nsight_csv, read_sdfg, read_timeloop_stats, read_torch_trace, save
from .job import Job, JobReadWarning, load_job
from .model.machine import Ceiling, Machine
from .model.phase import Phase
from .model.schedule import Schedule
from .model.settings import POLICIES, Settings
from .model.timeline import Timeline
from .model.workload import Workload
from .sweep import SweepResult, start_sweep, sweep

try:
    __version__ = _version("campaign_widget")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "ArgumentError",
    "CommandLineError",
    "FigureError",
    "WrongTypeError",
    "CacheModelError",
    "FigureTooLargeError",
    "CampaignWidgetError",
    "SceneTooLargeError",
    "TraceSyntaxError",
    "Ceiling",
    "CampaignDiagram",
    "DataflowView",
    "Explorer",
    "ExpressionError",
    "LocalView",
    "Machine",
    "POLICIES",
    "Phase",
    "RooflineView",
    "Schedule",
    "ScheduleError",
    "Settings",
    "StackedDiagrams",
    "Timeline",
    "UtilizationAboveOneWarning",
    "Workload",
    "WorkloadError",
    "WorkloadFileError",
    "load",
    "read_nsight_csv",
    "read_sdfg",
    "read_timeloop_stats",
    "read_torch_trace",
    "save",
    "sweep",
    "start_sweep",
    "SweepResult",
    "SweepError",
    "SweepFailed",
    "SweepView",
    "Job",
    "JobReadWarning",
    "load_job",
    "job_diagrams",
    "job_roofline",
    "compare_diagrams",
    "rank_view",
]

_WIDGETS = {
    "CampaignDiagram": "views.diagram",
    "DataflowView": "views.dataflow",
    "Explorer": "views.explorer",
    "LocalView": "views.local",
    "RooflineView": "views.roofline",
    "StackedDiagrams": "views.stack",
    "SweepView": "views.sweep",
    "job_diagrams": "views.job",
    "job_roofline": "views.job",
    "compare_diagrams": "views.job",
    "rank_view": "views.job",
}

# The modules that stood at the top level before the layers became folders (docs/architecture.md):
# ``cw.presets.machine(...)``, ``from campaign_widget import host`` keep working, loaded on first use.
_MOVED_MODULES = {
    "browser_png": "views.browser_png",
    "buffers": "views.buffers",
    "colors": "figures.phase_colours",
    "colour_scale": "figures.colour_scale",
    "dataflow": "figures.dataflow",
    "dataflow_view": "views.dataflow",
    "demand": "model.demand",
    "einsum": "model.einsum",
    "explorer": "views.explorer",
    "expr": "model.expr",
    "fusion": "model.fusion",
    "graph": "model.graph",
    "group_bands": "figures.group_bands",
    "host": "model.host",
    "html_export": "views.page",
    "levels": "model.levels",
    "local_view": "views.local",
    "machine": "model.machine",
    "marimo_display": "views.marimo",
    "phase": "model.phase",
    "presets": "model.presets",
    "readout": "figures.readout",
    "roofline": "model.roofline",
    "roofline_plot": "views.roofline_canvas",
    "roofline_view": "views.roofline",
    "scene": "figures.scene",
    "scene_pixels": "figures.scene_pixels",
    "schedule": "model.schedule",
    "settings": "model.settings",
    "stack": "views.stack",
    "sweep_grid": "figures.sweep_grid",
    "sweep_plot": "views.sweep_canvas",
    "sweep_view": "views.sweep",
    "timeline": "model.timeline",
    "transformer": "model.transformer",
    "view_base": "views.base",
    "widget": "views.diagram",
    "workload": "model.workload",
}


def __getattr__(name: str):
    # The widgets pull in anywidget and ipywidgets: loaded when first asked for.
    from importlib import import_module

    if name in _WIDGETS:
        return getattr(import_module(f".{_WIDGETS[name]}", __name__), name)
    if name in _MOVED_MODULES:
        return import_module(f".{_MOVED_MODULES[name]}", __name__)
    raise AttributeError(f"module 'campaign_widget' has no attribute {short_repr(name)}")


def _display_workload(workload: Workload, include=None, exclude=None):
    """A workload's notebook display: an Explorer (diagram + roofline, linked)."""
    from .views.explorer import Explorer

    return Explorer(workload)._repr_mimebundle_(include=include, exclude=exclude)


def _display_job(job: Job, include=None, exclude=None):
    """A job's notebook display: its ranks stacked on one time axis (docs/distributed-jobs.md)."""
    from .views.job import job_diagrams

    return job_diagrams(job)._repr_mimebundle_(include=include, exclude=exclude)


def _explorer(workload: Workload):
    """A workload's marimo display: its Explorer (whose ``_display_`` marimo calls)."""
    from .views.explorer import Explorer

    return Explorer(workload)


def _register_display() -> None:
    # The display hooks live here, above the widgets, so that the model never imports them. In a marimo
    # kernel a workload displays as its Explorer through marimo's formatter registry (marimo_display).
    marimo = sys.modules.get("marimo")
    if marimo is not None and getattr(marimo, "running_in_notebook", lambda: False)():
        from .views.marimo import register

        register(Workload, _explorer)
    # Without IPython already imported there is no shell to register with (and importing it costs seconds).
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return
    shell.display_formatter.mimebundle_formatter.for_type(Workload, _display_workload)
    shell.display_formatter.mimebundle_formatter.for_type(Job, _display_job)


_register_display()
