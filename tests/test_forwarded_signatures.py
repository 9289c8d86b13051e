"""Entry points that forward to another keep their own signature, derived from the other's (said once):
``start_sweep`` is ``sweep`` with ``progress=False``, ``read_torch_timeline`` is ``read_torch_trace``
without ``timeline``."""

from __future__ import annotations

from inspect import signature
from pathlib import Path

import pytest

from campaign_widget import Machine, Phase, Workload
from campaign_widget.io import read_torch_trace
from campaign_widget.io.torch_timeline import read_torch_timeline
from campaign_widget.model.timeline import Timeline
from campaign_widget.sweep import start_sweep, sweep

TRACE = Path(__file__).parent / "data" / "torch" / "gpu_linked.json"
M = Machine(1e12, 1e11, name="test")


def test_start_sweep_shows_sweeps_signature_with_progress_off():
    started, run = signature(start_sweep).parameters, signature(sweep).parameters
    assert list(started) == list(run) == ["workload", "executor", "progress", "zip", "baseline", "allow_large", "axes"]
    assert started["progress"].default is False and run["progress"].default is True
    assert all(started[n] == run[n] for n in run if n != "progress")


def test_start_sweep_takes_what_sweep_takes():
    w = Workload([Phase("A", duration=3, compute_util=0.7, memory_util=0.6)])
    result = start_sweep(w, tiles=[1, 2], zip=False, baseline=0, allow_large=False)
    result.wait()
    assert result["makespan"].tolist() == sweep(w, tiles=[1, 2], progress=False)["makespan"].tolist()
    with pytest.raises(TypeError, match="positional"):
        start_sweep(w, None)


def test_read_torch_timeline_shows_the_trace_readers_signature_without_timeline():
    trace = dict(signature(read_torch_trace).parameters)
    del trace["timeline"]
    assert dict(signature(read_torch_timeline).parameters) == trace


def test_read_torch_timeline_is_the_trace_reader_with_timeline_on():
    timeline = read_torch_timeline(TRACE, machine=M, warn=False)
    assert isinstance(timeline, Timeline)
    assert timeline.start.tolist() == read_torch_trace(TRACE, machine=M, warn=False, timeline=True).start.tolist()
    with pytest.raises(TypeError, match="unexpected keyword argument 'timeline'"):
        read_torch_timeline(TRACE, machine=M, timeline=False)
