"""Campaign diagrams, rooflines and data-movement views as live Jupyter widgets.

Layers, each importing only the ones before it: the model (``machine``, ``phase``, ``workload``,
``schedule``, ``scene``, ``roofline``, ``expr``, …) ← ``io`` (files and importers) ← the widgets
(``widget``, ``roofline_view``, ``stack``) ← ``cli``. The widgets load on first use, so the model
and ``io`` import without anywidget or ipywidgets.
"""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _version

from .errors import (
    CacheModelError,
    CampaignWidgetError,
    ExpressionError,
    FigureTooLargeError,
    SceneTooLargeError,
    ScheduleError,
    SweepError,
    SweepFailed,
    TraceSyntaxError,
    UtilizationAboveOneWarning,
    WorkloadError,
    WorkloadFileError,
    short_repr,
)
from .io import load, read_nsight_csv, read_sdfg, read_timeloop_stats, read_torch_trace, save
from .machine import Ceiling, Machine
from .phase import Phase
from .schedule import Schedule
from .settings import POLICIES, Settings
from .sweep import SweepResult, start_sweep, sweep
from .timeline import Timeline
from .workload import Workload

try:
    __version__ = _version("campaign_widget")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
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
]

_WIDGETS = {
    "CampaignDiagram": "widget",
    "DataflowView": "dataflow_view",
    "Explorer": "explorer",
    "LocalView": "local_view",
    "RooflineView": "roofline_view",
    "StackedDiagrams": "stack",
    "SweepView": "sweep_view",
}


def __getattr__(name: str):
    # The widgets pull in anywidget and ipywidgets: loaded when first asked for.
    if name in _WIDGETS:
        from importlib import import_module

        return getattr(import_module(f".{_WIDGETS[name]}", __name__), name)
    raise AttributeError(f"module 'campaign_widget' has no attribute {short_repr(name)}")


def _display_workload(workload: Workload, include=None, exclude=None):
    """A workload's notebook display: an Explorer (diagram + roofline, linked)."""
    from .explorer import Explorer

    return Explorer(workload)._repr_mimebundle_(include=include, exclude=exclude)


def _explorer(workload: Workload):
    """A workload's marimo display: its Explorer (whose ``_display_`` marimo calls)."""
    from .explorer import Explorer

    return Explorer(workload)


def _register_display() -> None:
    # The display hooks live here, above the widgets, so that the model never imports them. In a marimo
    # kernel a workload displays as its Explorer through marimo's formatter registry (marimo_display).
    marimo = sys.modules.get("marimo")
    if marimo is not None and getattr(marimo, "running_in_notebook", lambda: False)():
        from .marimo_display import register

        register(Workload, _explorer)
    # Without IPython already imported there is no shell to register with (and importing it costs seconds).
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return
    shell.display_formatter.mimebundle_formatter.for_type(Workload, _display_workload)


_register_display()
