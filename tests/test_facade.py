"""The facade keeps every name it gave before the layers became folders."""

from __future__ import annotations

import importlib
import types

import pytest

import campaign_widget as cw

#: What ``campaign_widget.__all__`` held before the re-layout: none of it may go.
BEFORE = {
    "CacheModelError", "FigureTooLargeError", "CampaignWidgetError", "SceneTooLargeError", "TraceSyntaxError",
    "Ceiling", "CampaignDiagram", "DataflowView", "Explorer", "ExpressionError", "LocalView", "Machine",
    "POLICIES", "Phase", "RooflineView", "Schedule", "ScheduleError", "Settings", "StackedDiagrams", "Timeline",
    "UtilizationAboveOneWarning", "Workload", "WorkloadError", "WorkloadFileError", "load", "read_nsight_csv",
    "read_sdfg", "read_timeloop_stats", "read_torch_trace", "save", "sweep", "start_sweep", "SweepResult",
    "SweepError", "SweepFailed", "SweepView",
}  # fmt: skip


def test_every_name_of_before_is_still_exported_and_resolves():
    assert BEFORE <= set(cw.__all__)
    assert all(getattr(cw, name) is not None for name in cw.__all__)


@pytest.mark.parametrize("old, new", sorted(cw._MOVED_MODULES.items()))
def test_a_moved_module_answers_to_its_old_name(old, new):
    module = getattr(cw, old)
    assert isinstance(module, types.ModuleType)
    assert module is importlib.import_module(f"campaign_widget.{new}")


def test_an_unknown_name_is_refused_by_name():
    with pytest.raises(AttributeError, match="no_such_thing"):
        cw.no_such_thing  # noqa: B018
