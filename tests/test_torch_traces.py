"""PyTorch traces as they exist: GPU kernels with their work, every category spelling, long names, the
other PyTorch format, and batch-by-batch parsing that gives the file's own totals (tests/data/torch)."""

from __future__ import annotations

import gzip
import json
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import campaign_widget
from campaign_widget import Machine
from campaign_widget.io import SkippedEventsWarning, WorkloadFileError, _jsonstream, read_torch_trace
from campaign_widget.io.op_models import work
from campaign_widget.model.phase import MAX_NAME

DATA = Path(__file__).parent / "data" / "torch"
GPU = Machine(peak_compute=19.5e12, peak_bandwidth=1.555e12, name="A100-ish")
F32 = 4
SGEMM = "ampere_sgemm_32x32_sliced1x4_tn"
SPLITK = "void splitKreduce_kernel<32, 16, int, float>(cublasSplitKParams<float>)"
RELU = "void at::native::vectorized_elementwise_kernel<4, at::native::relu>(int)"


def _read(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedEventsWarning)
        return read_torch_trace(path, machine=GPU, **kw)


def _by_name(w, key):
    return dict(zip(w.names, w.table()[key].tolist()))


# -- GPU kernels get their work ----------------------------------------------------------------------------


def test_kernels_inherit_the_work_of_the_operator_that_launched_them():
    w = _read(DATA / "gpu_linked.json")
    ops, volumes = _by_name(w, "ops"), _by_name(w, "bytes")
    # aten::linear([8, 64] x [32, 64]ᵀ + [32]) runs aten::addmm, which launches a GEMM (4 µs) and a
    # split-K reduction (1 µs): linear's 2·8·64·32 FLOPs and its bytes (x, W, b read, y written once)
    # are split 4:1 between them
    linear_flops = 2 * 8 * 64 * 32
    linear_bytes = (8 * 64 + 32 * 64 + 32 + 8 * 32) * F32
    assert ops[SGEMM] == pytest.approx(linear_flops * 4 / 5, rel=1e-12)
    assert ops[SPLITK] == pytest.approx(linear_flops * 1 / 5, rel=1e-12)
    assert volumes[SGEMM] == pytest.approx(linear_bytes * 4 / 5, rel=1e-12)
    assert volumes[SPLITK] == pytest.approx(linear_bytes * 1 / 5, rel=1e-12)
    # the relu kernel has no External id: linked through its correlation id to the launch, then to aten::relu
    assert ops[RELU] == 8 * 32 and volumes[RELU] == 2 * 8 * 32 * F32
    report = w.import_report
    assert report.phase(SGEMM).flops == "inherited" and report.phase(SGEMM).bytes_source == "inherited"


def test_kernels_whose_work_nothing_gives_are_listed():
    w = _read(DATA / "gpu_linked.json")
    report = w.import_report
    assert report.skipped_detail["work unknown"] == {"mystery_kernel": 1}
    assert report.phase("mystery_kernel").details["work"] == "unknown"
    assert report.phase(SGEMM).details["work"] == "known"
    assert any("work unknown for 1 of 4 GPU events" in n for n in report.notes)
    assert _by_name(w, "ops")["mystery_kernel"] == 0 and _by_name(w, "duration")["mystery_kernel"] == 3e-6


def test_recorded_flops_of_a_kernel_win_over_its_operator(tmp_path):
    doc = json.loads((DATA / "gpu_linked.json").read_text())
    for e in doc["traceEvents"]:
        if e.get("name") == SGEMM:
            e["args"]["flops"] = 12345
    path = tmp_path / "recorded.json"
    path.write_text(json.dumps(doc))
    w = _read(path)
    assert _by_name(w, "ops")[SGEMM] == 12345 and w.import_report.phase(SGEMM).flops == "recorded"
    # the operator's bytes are still split across its kernels
    assert w.import_report.phase(SGEMM).bytes_source == "inherited"


def test_counters_from_a_nsight_compute_report_of_the_same_run():
    counters = DATA / "gpu_linked.ncu.csv"
    w = campaign_widget.load(DATA / "gpu_linked.json", machine=GPU, counters=counters)
    ops, volumes = _by_name(w, "ops"), _by_name(w, "bytes")
    # add + mul + 2·fma, and dram read + write, of the launch matched by name and order
    assert ops[SGEMM] == 2 * 16_384 and volumes[SGEMM] == 12_000 + 1_000
    assert ops[SPLITK] == 256 and volumes[SPLITK] == 2_048 + 1_024
    assert ops["mystery_kernel"] == 100 + 50 and volumes["mystery_kernel"] == 2 * 4_096
    report = w.import_report
    assert report.phase(SGEMM).flops == "counters" and report.phase(SGEMM).bytes_source == "counted"
    assert "work unknown" not in report.skipped_detail
    assert any("4 of 4 Nsight Compute launches" in n for n in report.notes)


def test_timeline_intervals_carry_the_inherited_work():
    t = _read(DATA / "gpu_linked.json", timeline=True)
    i = t.workload.names.index(SGEMM)
    assert t.workload.table()["ops"][i] == pytest.approx(2 * 8 * 64 * 32 * 4 / 5, rel=1e-12)


# -- dialects and formats -------------------------------------------------------------------------------------


def test_pytorch_1_8_category_spellings():
    w = _read(DATA / "pytorch18.json")
    assert w.names == ["volta_sgemm_32x32_sliced1x4_nn"]  # "Kernel" is a GPU kernel: the default category
    assert w.table()["duration"][0] == pytest.approx(11e-6, rel=1e-12)
    # both launches of aten::mm (linked by the lower-case "external id") share its 2·16·32·8 FLOPs
    assert w.table()["ops"][0] == pytest.approx(2 * 16 * 32 * 8, rel=1e-12)
    ops = _read(DATA / "pytorch18.json", categories="Operator")
    assert ops.names == ["aten::mm"] and ops.names == _read(DATA / "pytorch18.json", categories="cpu_op").names
    memset = _read(DATA / "pytorch18.json", categories=("Memset",))
    assert memset.names == ["Memset (Device)"] and memset.table()["bytes"][0] == 512


def test_no_matching_category_lists_the_categories_present(tmp_path):
    path = tmp_path / "other.json"
    events = [{"ph": "X", "cat": "Trace", "name": "t", "pid": 1, "tid": 1, "ts": 0, "dur": 5}]
    events += [
        {"ph": "X", "cat": "python_function", "name": "f", "pid": 1, "tid": 1, "ts": i, "dur": 1} for i in range(3)
    ]
    path.write_text(json.dumps({"traceEvents": events}))
    with pytest.raises(WorkloadFileError) as info:
        _read(path)
    assert "python_function (3)" in str(info.value) and "Trace (1)" in str(info.value)


def test_an_execution_trace_is_named_as_such(tmp_path):
    with pytest.raises(WorkloadFileError, match="PyTorch execution trace"):
        campaign_widget.load(DATA / "execution_trace.json.gz", machine=GPU)


# -- long names -----------------------------------------------------------------------------------------------


def test_long_kernel_names_are_kept_with_every_event():
    w = _read(DATA / "long_name.json")
    long_name = json.loads((DATA / "long_name.json").read_text())["traceEvents"][0]["name"]
    assert len(long_name) == 3000
    report = w.import_report
    assert report.phases[0].events == 2 and report.phases[0].duration == pytest.approx(10e-6, rel=1e-12)
    assert report.phases[0].details["full name"] == long_name
    assert "malformed" not in report.skipped
    assert sum(w.table()["duration"]) == pytest.approx(12e-6, rel=1e-12)  # nothing dropped


@pytest.mark.xfail(MAX_NAME < 3000, reason="phase.MAX_NAME must allow kernel names of 3,000+ characters", strict=True)
def test_long_kernel_names_are_whole_in_the_workload():
    w = _read(DATA / "long_name.json")
    assert len(w.names[0]) == 3000


# -- work models ----------------------------------------------------------------------------------------------


def test_work_models_by_hand():
    half = "c10::Half"
    # attention: q [2, 4, 16, 8], k and v [2, 4, 32, 8]: QKᵀ and PV, 2·B·H·L·S·E each
    flops, nbytes, counted = work(
        "aten::scaled_dot_product_attention", [[2, 4, 16, 8], [2, 4, 32, 8], [2, 4, 32, 8]], [half] * 3
    )
    assert flops == 2 * 2 * 4 * 16 * 32 * (8 + 8) and counted
    assert nbytes == 2 * (2 * 4 * 16 * 8 + 2 * 2 * 4 * 32 * 8 + 2 * 4 * 16 * 8)
    # embedding: 0 FLOPs; indices read, 4·10 rows of 64 gathered and written
    assert work("aten::embedding", [[1000, 64], [4, 10]], ["float", "long int"]) == (
        0.0,
        4 * 10 * 8 + 2 * 4 * 10 * 64 * 4,
        True,
    )
    assert work("aten::_softmax", [[8, 128], [], []], ["float", "Scalar", "Scalar"])[0] == 5 * 8 * 128
    assert (
        work("aten::native_layer_norm", [[8, 128], [], [128], [128], []], ["float", "", "float", "float", "Scalar"])[0]
        == 5 * 8 * 128
    )
    assert work("aten::add", [[8, 1], [1, 16], []], ["float", "float", "Scalar"]) == (128.0, (8 + 16 + 128) * 4.0, True)
    assert work("aten::sum", [[8, 16], [], [], []], ["float", "", "", ""]) == (128.0, 8 * 16 * 4.0, False)
    assert work("aten::copy_", [[8, 16], [8, 16], []], ["c10::Half", "float", "Scalar"]) == (
        0.0,
        8 * 16 * (2 + 4.0),
        True,
    )
    assert work("aten::view", [[8, 16], []], ["float", ""]) == (0.0, 0.0, True)
    assert work("custom::op", [[8, 16]], ["float"]) == (None, None, False)  # fmt: skip


# -- parsing in batches ---------------------------------------------------------------------------------------


def test_batches_cut_anywhere_read_the_same(monkeypatch, tmp_path):
    doc = json.loads((DATA / "gpu_linked.json").read_text())
    doc["traceEvents"][0]["args"]["note"] = 'a string holding "}, {" and \\"}, quoted'
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(doc, indent=2))
    whole = _read(path)
    for chunk in (7, 64, 333):
        monkeypatch.setattr(_jsonstream, "CHUNK", chunk)
        w = _read(path)
        assert w.names == whole.names
        assert w.table()["ops"].tolist() == whole.table()["ops"].tolist()
        assert w.import_report.skipped == whole.import_report.skipped


def test_an_event_of_unexpected_types_is_counted_and_its_neighbours_read(tmp_path):
    good = {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "dur": 2}
    events = [dict(good, ts=10 * i) for i in range(50)]
    events[20] = dict(good, ts=200, dur="5")  # a string duration
    events[30] = dict(good, ts=300, args=[1, 2])  # args not an object
    events[40] = {"ph": "f", "id": "x", "bp": ["e"]}  # not complete, of odd types
    path = tmp_path / "odd.json"
    path.write_text(json.dumps({"traceEvents": events}))
    w = _read(path)
    assert w.import_report.skipped["malformed"] == 2 and w.import_report.skipped["not complete"] == 1
    assert w.import_report.phase("k").events == 47


def _trace(draw_events, layout):
    if layout == "indent":
        return json.dumps({"schemaVersion": 1, "traceEvents": draw_events, "traceName": "x"}, indent=1)
    if layout == "array":
        return json.dumps(draw_events)
    return json.dumps({"traceEvents": draw_events})


_event = st.fixed_dictionaries(
    {
        "ph": st.sampled_from(["X", "X", "X", "f", "s", "i"]),
        "cat": st.sampled_from(["kernel", "Kernel", "cpu_op", "Operator", "cuda_runtime", "ac2g", "gpu_memset"]),
        "name": st.sampled_from(["gemm", "relu}, {", "a\\b", "x" * 1500, "aten::mm"]),
        "pid": st.sampled_from([0, 1, "Spans"]),
        "tid": st.sampled_from([7, "stream 7", 1]),
        "ts": st.integers(0, 10**6),
        "dur": st.integers(0, 10**4) | st.floats(1e-3, 1e4),
    }
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=st.lists(_event, min_size=1, max_size=40), layout=st.sampled_from(["indent", "array", "plain"]),
       chunk=st.sampled_from([16, 200, 4 << 20]))  # fmt: skip
def test_kernel_time_equals_the_files_own(events, layout, chunk, tmp_path, monkeypatch):
    monkeypatch.setattr(_jsonstream, "CHUNK", chunk)
    path = tmp_path / "prop.json"
    path.write_text(_trace(events, layout))
    kernels = [e for e in events if e["ph"] == "X" and e["cat"] in ("kernel", "Kernel") and e["dur"] > 0]
    if not kernels:
        return
    w = _read(path, categories="kernel", nested="all")
    assert sum(w.table()["duration"].tolist()) == pytest.approx(sum(e["dur"] for e in kernels) * 1e-6, rel=1e-9)
    assert sum(p.events for p in w.import_report.phases) == len(kernels)


def test_gzip_and_plain_read_the_same(tmp_path):
    gz = tmp_path / "t.json.gz"
    gz.write_bytes(gzip.compress((DATA / "gpu_linked.json").read_bytes()))
    a, b = _read(DATA / "gpu_linked.json"), _read(gz)
    assert a.names == b.names and a.table()["ops"].tolist() == b.table()["ops"].tolist()
