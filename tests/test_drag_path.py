"""A slider step on the diagram does the work that step needs and no more (issue 31): the workload at
the new peaks is derived once and scheduled once, and the view is sent one update holding the traits
the step changed: no picture, no parameters, nothing the step leaves as it was."""

import pytest

import campaign_widget.views.diagram as diagram_module
from campaign_widget import CampaignDiagram, Machine, Phase, Workload
from campaign_widget.model.workload import Workload as ModelWorkload


def chain(n=6):
    phases, after = [], ()
    for i in range(n):
        phases.append(Phase(f"p{i}", ops=(1 + i % 3) * 1e11, bytes=(1 + i % 2) * 4e10, after=after))
        after = (f"p{i}",)
    return Workload(phases, machine=Machine(peak_compute=1e12, peak_bandwidth=1e11))


class Comm:
    """A comm with a kernel that keeps what the widget sends."""

    comm_id = "test"
    kernel = object()

    def __init__(self):
        self.sent = []

    def send(self, data=None, metadata=None, buffers=None):
        self.sent.append(data)

    def on_msg(self, callback):
        pass

    def close(self, *args, **kwargs):
        pass


@pytest.fixture
def diagram():
    return CampaignDiagram(chain(), tiles=4, pipeline=True, policy="dilate+throttle")


def from_view(widget, **state):
    """``state`` as the view's websocket message delivers it."""
    widget._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}, "buffers": []})


def test_a_peak_step_derives_the_workload_and_schedules_it_once(diagram, monkeypatch):
    calls = {"with_peaks": 0, "build_schedule": 0}
    with_peaks, build_schedule = ModelWorkload.with_peaks, diagram_module.build_schedule

    def counted_with_peaks(self, *args, **kwargs):
        calls["with_peaks"] += 1
        return with_peaks(self, *args, **kwargs)

    def counted_build_schedule(*args, **kwargs):
        calls["build_schedule"] += 1
        return build_schedule(*args, **kwargs)

    monkeypatch.setattr(ModelWorkload, "with_peaks", counted_with_peaks)
    monkeypatch.setattr(diagram_module, "build_schedule", counted_build_schedule)
    before = diagram.makespan
    diagram.set_state({"peak_bandwidth": diagram.peak_bandwidth * 2})
    assert diagram.makespan < before, "the step was drawn"
    assert calls == {"with_peaks": 1, "build_schedule": 1}


def test_a_peak_step_sends_the_view_one_update_of_what_it_changed(diagram):
    comm = Comm()
    diagram.comm = comm
    from_view(diagram, peak_bandwidth=diagram.peak_bandwidth * 2)
    methods = [message["method"] for message in comm.sent]
    assert methods == ["echo_update", "update"], methods
    echo, update = comm.sent
    assert set(echo["state"]) == {"peak_bandwidth"}
    changed = set(update["state"])
    assert "scene" in changed and "makespan" in changed
    # what a peak step never changes: the picture of the display, the parameters, the names, the controls
    unchanged = {"params", "param_ranges", "phase_names", "phase_colors", "units", "levels", "png_requests"}
    assert not changed & unchanged, changed & unchanged
    assert not any("image/png" in str(key) for key in changed)
