"""``machine=`` takes a preset name everywhere: every public builder that takes a machine accepts a
``Machine`` or a preset's name (``campaign_widget.model.presets.machine_from``), and refuses a name
that is no preset, or anything else, alike."""

from __future__ import annotations

from pathlib import Path

import pytest

import campaign_widget as cw
from campaign_widget import Machine, Phase, Workload, WorkloadError
from campaign_widget.model.presets import MACHINES, machine_from

FIG8 = Path(__file__).parent / "data" / "figure-8.yaml"
ON = Machine(1e12, 1e11, name="plain")


def _volumes():
    return [Phase("a", ops=1e9, bytes=1e6)]


BUILDERS = {
    "Workload": lambda m: Workload(_volumes(), machine=m),
    "Workload.from_arrays": lambda m: Workload.from_arrays(["a"], ops=[1e9], bytes=[1e6], machine=m),
    "Workload.from_einsums": lambda m: Workload.from_einsums(
        {"gemm": "Z[m,n] = A[m,k] * B[k,n]"}, {"m": 8, "n": 8, "k": 8}, machine=m
    ),
    "Workload.from_transformer": lambda m: Workload.from_transformer("llama-2-7b", batch=1, seq=16, machine=m),
    "Workload.with_machine": lambda m: Workload(_volumes(), machine=ON).with_machine(m),
    "load": lambda m: cw.load(FIG8, machine=m),
}


@pytest.mark.parametrize("builder", BUILDERS, ids=list(BUILDERS))
def test_every_builder_takes_a_preset_name(builder):
    workload = BUILDERS[builder]("H100 SXM")
    assert workload.machine is MACHINES["h100-sxm"]


@pytest.mark.parametrize("builder", BUILDERS, ids=list(BUILDERS))
def test_every_builder_refuses_a_name_that_is_no_preset(builder):
    with pytest.raises(WorkloadError, match=r"machine: unknown machine preset 'tpu-v9'; known presets: h100-sxm"):
        BUILDERS[builder]("tpu-v9")


@pytest.mark.parametrize("builder", BUILDERS, ids=list(BUILDERS))
@pytest.mark.parametrize("value", [42, ["h100-sxm"], b"h100-sxm"], ids=["number", "list", "bytes"])
def test_every_builder_refuses_what_is_neither_a_machine_nor_a_name(builder, value):
    with pytest.raises(TypeError, match=r"machine=.* must be a campaign_widget.Machine or a preset name; known"):
        BUILDERS[builder](value)


def test_machine_from_names_the_argument():
    assert machine_from(ON) is ON
    with pytest.raises(WorkloadError, match=r"^target: unknown machine preset 'nope'"):
        machine_from("nope", "target")
    with pytest.raises(TypeError, match=r"^target=3 must be"):
        machine_from(3, "target")
