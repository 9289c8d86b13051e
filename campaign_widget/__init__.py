"""Campaign diagrams, rooflines and data-movement views as live Jupyter widgets."""

from .errors import ScheduleError, UtilizationAboveOneWarning, WorkloadError
from .files import WorkloadFileError, load, save
from . import importers  # noqa: E402  registers the profiler formats with load()
from .importers import read_nsight_csv, read_timeloop_stats, read_torch_trace
from .machine import Ceiling, Machine
from .phase import Phase
from .schedule import POLICIES, Schedule
from .sweep import SweepError, SweepFailed, SweepResult, start_sweep, sweep
from .workload import Workload

__all__ = ["WorkloadFileError", "load", "save", "read_nsight_csv", "read_timeloop_stats", "read_torch_trace", "Ceiling", "Machine", "Phase", "POLICIES", "Schedule", "ScheduleError", "UtilizationAboveOneWarning",
           "Workload", "WorkloadError", "CampaignDiagram", "StackedDiagrams", "Explorer", "RooflineView",
           "sweep", "start_sweep", "SweepResult", "SweepError", "SweepFailed", "SweepView"]
__version__ = "0.1.0"


def __getattr__(name):
    # The widget pulls in anywidget and ipywidgets; the model stays importable without them.
    if name == "CampaignDiagram":
        from .widget import CampaignDiagram

        return CampaignDiagram
    if name in ("Explorer", "RooflineView"):
        from . import roofline_view

        return getattr(roofline_view, name)
    if name == "SweepView":
        from .sweep_view import SweepView

        return SweepView
    if name == "StackedDiagrams":
        from .stack import StackedDiagrams

        return StackedDiagrams
    raise AttributeError(f"module 'campaign_widget' has no attribute {name!r}")
