"""``machine=`` is taken alike by every reader that takes it (``io._common.preset_or_machine``, built on
``model.presets.machine_from``): a ``Machine``, a preset name in any spelling, never an unknown name
(a ``WorkloadFileError`` naming the file, the field and the presets) nor another type."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from campaign_widget import Machine, WorkloadFileError
from campaign_widget.io import load, read_nsight_csv, read_sdfg, read_timeloop_stats, read_torch_trace
from campaign_widget.io.torch_timeline import read_torch_timeline
from campaign_widget.model.presets import machine as preset

DATA = Path(__file__).parent / "data"
TRACE = DATA / "torch" / "gpu_linked.json"
READERS = {
    "read_torch_trace": lambda machine: read_torch_trace(TRACE, machine=machine),
    "read_torch_timeline": lambda machine: read_torch_timeline(TRACE, machine=machine).workload,
    "read_nsight_csv": lambda machine: read_nsight_csv(DATA / "torch" / "gpu_linked.ncu.csv", machine=machine),
    "read_timeloop_stats": lambda machine: read_timeloop_stats(
        DATA / "timeloop" / "eyeriss-like.mapper.stats.txt", machine=machine
    ),
    "read_sdfg": lambda machine: read_sdfg(
        DATA / "sdfg" / "tiled_gemm.sdfg", machine=machine, params={"M": 64, "N": 64, "K": 64}
    ),
    "load": lambda machine: load(DATA / "figure-8.yaml", machine=machine),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("name", ["h100-sxm", "H100 SXM", "h100_sxm"])
def test_a_preset_name_is_the_preset(reader, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        workload = READERS[reader](name)
    assert workload.machine == preset("h100-sxm")


@pytest.mark.parametrize("reader", READERS)
def test_a_machine_is_taken_as_it_is(reader):
    given = Machine(3e12, 2e11, name="given")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert READERS[reader](given).machine == given


@pytest.mark.parametrize("reader", READERS)
def test_an_unknown_preset_name_is_refused_in_the_same_words(reader):
    with pytest.raises(WorkloadFileError) as caught:
        READERS[reader]("tpu-v9")
    assert caught.value.field == "machine"
    assert caught.value.reason.startswith("unknown machine preset 'tpu-v9'; known presets: h100-sxm, ")


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("value", [3, ["h100-sxm"], b"h100-sxm"], ids=repr)
def test_another_type_is_a_type_error_naming_machine(reader, value):
    with pytest.raises(TypeError, match=r"^machine=.* must be a campaign_widget\.Machine or a preset name"):
        READERS[reader](value)
