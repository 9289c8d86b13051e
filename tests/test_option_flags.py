"""The readers' and the sweeps' on/off options follow ``errors.check_flag``'s rule (through ``io.checks.flag_or`` where an
option takes one more kind of value): True or False, numpy's too, never 1, 0 or a truthy string."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from campaign_widget import Machine, Phase, SweepError, Workload
from campaign_widget.io import load, read_torch_trace
from campaign_widget.model.timeline import Timeline
from campaign_widget.sweep import start_sweep, sweep

DATA = Path(__file__).parent / "data"
CASCADE = DATA / "figure-10-cascade.yaml"
TRACE = DATA / "torch" / "gpu_linked.json"
M = Machine(1e12, 1e11, name="test")


@pytest.mark.parametrize(
    "value, kind", [(True, Timeline), (np.True_, Timeline), (False, Workload), (np.False_, Workload)]
)
def test_the_cascade_timeline_takes_true_and_false_numpys_too(value, kind):
    assert isinstance(load(CASCADE, timeline=value), kind)


@pytest.mark.parametrize("value", [1, 0, "yes", "false"], ids=repr)
def test_the_cascade_timeline_refuses_a_truthy_stand_in(value):
    with pytest.raises(
        TypeError, match=rf": timeline={value!r} must be True, False or None \(decide from the starts\)$"
    ):
        load(CASCADE, timeline=value)


def test_the_trace_progress_takes_numpys_false():
    assert isinstance(read_torch_trace(TRACE, machine=M, progress=np.False_, warn=False), Workload)


@pytest.mark.parametrize("value", [1, "yes"], ids=repr)
def test_the_trace_progress_refuses_a_truthy_stand_in(value):
    with pytest.raises(TypeError, match=rf"^progress={value!r} must be True, False, None or a callable$"):
        read_torch_trace(TRACE, machine=M, progress=value)


SWEPT = Workload([Phase("A", duration=3, compute_util=0.7, memory_util=0.6)])


@pytest.mark.parametrize("run", [sweep, start_sweep], ids=["sweep", "start_sweep"])
@pytest.mark.parametrize("option", ["zip", "allow_large"])
@pytest.mark.parametrize("value", [1, "yes", None], ids=repr)
def test_the_sweeps_refuse_a_truthy_stand_in(run, option, value):
    with pytest.raises(SweepError, match=rf"^{option}={value!r} must be True or False$"):
        run(SWEPT, tiles=[1, 2], progress=False, **{option: value})


@pytest.mark.parametrize("run", [sweep, start_sweep], ids=["sweep", "start_sweep"])
def test_the_sweeps_take_numpys_true(run):
    result = run(SWEPT, tiles=[1, 2], depth=[2, 3], progress=False, zip=np.True_, allow_large=np.True_)
    result.wait()
    assert len(result["makespan"]) == 2
