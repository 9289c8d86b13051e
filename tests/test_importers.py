"""Profiler importers on real tool output: PyTorch traces made here, Nsight Compute and Timeloop files
from public repositories (tests/data/importers/SOURCES.md)."""

from __future__ import annotations

import gzip
import json
import shutil
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from workloads import require_torch

import campaign_widget
from campaign_widget import Machine
from campaign_widget.io import (
    SkippedEventsWarning,
    WorkloadFileError,
    add_recorded_flops,
    read_nsight_csv,
    read_timeloop_stats,
    read_torch_trace,
)
from campaign_widget.io.nsight import unit_scale
from campaign_widget.io.torch_trace import compute_flops

DATA = Path(__file__).parent / "data" / "importers"
HOST = Machine(peak_compute=1e11, peak_bandwidth=2e10, name="test host")
GPU = Machine(peak_compute=19.5e12, peak_bandwidth=1.555e12, name="A100-ish")
ITERATIONS = 2


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """Real traces of a small CNN on the CPU, profiled with and without with_flops, plus the
    FLOPs the profiler itself computed per event (to check ours against)."""
    torch = require_torch()
    from torch import nn
    from torch.profiler import ProfilerActivity, profile, record_function

    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 16 * 16, 64), nn.ReLU(), nn.Linear(64, 10)
    )
    x = torch.randn(4, 3, 16, 16)
    out = tmp_path_factory.mktemp("traces")
    result = {}
    for with_flops in (True, False):
        with (
            torch.no_grad(),
            profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_flops=with_flops) as prof,
        ):
            for _ in range(ITERATIONS):
                with record_function("features"):
                    h = model[1](model[0](x))
                with record_function("classifier"):
                    h = model[5](model[4](model[3](model[2](h))))
        path = out / f"trace_flops_{with_flops}.json"
        prof.export_chrome_trace(str(path))
        result[with_flops] = path
        if with_flops:
            result["profiler_flops"] = Counter()
            for e in prof.events():
                result["profiler_flops"][e.name] += e.flops or 0
            recorded = out / "trace_recorded_flops.json"
            add_recorded_flops(path, prof, recorded)
            result["recorded"] = recorded
    return result


def _events(path):
    return json.loads(Path(path).read_text())["traceEvents"]


def _read(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedEventsWarning)
        return read_torch_trace(path, machine=HOST, **kw)


# -- PyTorch traces -------------------------------------------------------------------------------------


def test_torch_phases_by_name_sum_the_outermost_events(traces):
    w = _read(traces[False])
    events = [e for e in _events(traces[False]) if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    # the model's own calls are the outermost cpu_ops; their callees (aten::addmm, aten::t, ...) nest inside
    assert w.names == ["aten::conv2d", "aten::relu", "aten::flatten", "aten::linear"]
    table = w.table()
    for i, name in enumerate(w.names):
        expected = sum(e["dur"] for e in events if e["name"] == name) * 1e-6  # summed µs → s
        assert table["duration"][i] == pytest.approx(expected, rel=1e-12)
    assert w.import_report.phase("aten::linear").events == 2 * ITERATIONS
    assert w.import_report.phase("aten::relu").events == 2 * ITERATIONS
    # each phase after the previous one, ordered by first start
    indptr, indices = w.producers
    assert [list(indices[indptr[i] : indptr[i + 1]]) for i in range(len(w))] == [[], [0], [1], [2]]


def test_torch_computed_flops_match_the_profilers_own(traces):
    w = _read(traces[False])
    report = w.import_report
    ops = dict(zip(w.names, w.table()["ops"]))
    profiler = traces["profiler_flops"]  # what torch.profiler(with_flops=True) computed, per operator name
    assert ops["aten::conv2d"] == profiler["aten::conv2d"] == ITERATIONS * 2 * 4 * 8 * 3 * 9 * 16 * 16
    # aten::linear has no FLOPs of its own in the profiler: they sit on the aten::addmm nested in it
    assert ops["aten::linear"] == profiler["aten::addmm"] == ITERATIONS * 2 * (4 * 2048 * 64 + 4 * 64 * 10)
    assert set(report.flops_sources.values()) == {"computed"}
    # the profiler counts no FLOPs for elementwise operators; our model counts one per output element
    assert ops["aten::relu"] == ITERATIONS * (4 * 8 * 16 * 16 + 4 * 64) and ops["aten::flatten"] == 0


def test_torch_recorded_flops_are_flagged_recorded(traces):
    # PyTorch 2.x does not write with_flops' numbers into the trace: the plain trace only has shapes
    assert not any("flops" in (e.get("args") or {}) for e in _events(traces[True]))
    assert _read(traces[True]).import_report.phase("aten::conv2d").flops == "computed"
    w = _read(traces["recorded"])  # the same trace with the profiler's FLOPs copied in
    report = w.import_report
    ops = dict(zip(w.names, w.table()["ops"]))
    assert report.phase("aten::conv2d").flops == "recorded"
    assert report.phase("aten::linear").flops == "recorded"  # from the aten::addmm nested in it
    assert ops["aten::conv2d"] == traces["profiler_flops"]["aten::conv2d"]
    assert ops["aten::linear"] == traces["profiler_flops"]["aten::addmm"]


def test_torch_bytes_are_estimated_from_shapes(traces):
    w = _read(traces[False])
    report = w.import_report
    volumes = dict(zip(w.names, w.table()["bytes"]))
    f32 = 4
    # Linear(2048→64) on [4, 2048]: input, weight, bias read once, output [4, 64] written once; then Linear(64→10)
    linear = (4 * 2048 + 64 * 2048 + 64 + 4 * 64) + (4 * 64 + 10 * 64 + 10 + 4 * 10)
    conv = 4 * 3 * 16 * 16 + 8 * 3 * 3 * 3 + 8 + 4 * 8 * 16 * 16
    relu = 2 * (4 * 8 * 16 * 16) + 2 * (4 * 64)
    assert volumes["aten::linear"] == ITERATIONS * linear * f32
    assert volumes["aten::conv2d"] == ITERATIONS * conv * f32
    assert volumes["aten::relu"] == ITERATIONS * relu * f32
    assert volumes["aten::flatten"] == 0  # a view moves nothing
    assert report.phase("aten::linear").bytes_source == "estimated"


def test_torch_group_by_annotation(traces):
    w = _read(traces[False], group_by="annotation")
    assert w.names == ["features", "classifier"]
    events = [e for e in _events(traces[False]) if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    features = sum(e["dur"] for e in events if e["name"] in ("aten::conv2d",)) + sum(
        e["dur"] for e in events if e["name"] == "aten::relu" and e["args"]["Input Dims"][0] == [4, 8, 16, 16]
    )
    assert w.table()["duration"][0] == pytest.approx(features * 1e-6, rel=1e-12)
    assert w.import_report.phase("features").flops == "computed"
    assert not w.import_report.phase("features").partial_flops  # its relu has a model too


def test_torch_gzip_trace_reads_the_same(traces, tmp_path):
    gz = tmp_path / "trace.json.gz"
    gz.write_bytes(gzip.compress(Path(traces[False]).read_bytes()))
    plain, packed = _read(traces[False]), _read(gz)
    assert packed.names == plain.names
    for key in ("duration", "ops", "bytes"):
        np.testing.assert_array_equal(packed.table()[key], plain.table()[key])


def test_torch_skipped_events_are_counted_and_warned(traces):
    events = _events(traces[False])
    not_complete = sum(1 for e in events if e.get("ph") != "X")
    other_categories = Counter(e.get("cat") for e in events if e.get("ph") == "X" and e.get("cat") != "cpu_op")
    assert not_complete and other_categories["user_annotation"] == 2 * ITERATIONS
    with pytest.warns(SkippedEventsWarning, match=rf"{not_complete} not complete"):
        w = read_torch_trace(traces[False], machine=HOST)
    skipped = w.import_report.skipped
    assert skipped["not complete"] == not_complete
    assert skipped["wrong category"] == sum(other_categories.values())
    assert w.import_report.skipped_detail["wrong category"]["user_annotation"] == 2 * ITERATIONS


def test_torch_zero_duration_and_malformed_events_are_counted(tmp_path):
    trace = {
        "traceEvents": [
            {
                "ph": "X",
                "cat": "cpu_op",
                "name": "aten::mm",
                "pid": 1,
                "tid": 1,
                "ts": 0,
                "dur": 10,
                "args": {"Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]},
            },
            {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 20, "dur": 0},
            {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 30},
            {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 40, "dur": "5"},
            "not an event",
            {"ph": "B", "cat": "cpu_op", "name": "x", "pid": 1, "tid": 1, "ts": 50},
            {"ph": "X", "cat": "python_function", "name": "f", "pid": 1, "tid": 1, "ts": 60, "dur": 1},
        ]
    }
    path = tmp_path / "handmade.json"
    path.write_text(json.dumps(trace))
    with pytest.warns(SkippedEventsWarning) as caught:
        w = read_torch_trace(path, machine=HOST)
    message = str(caught[0].message)
    assert "6 records" in message and "3 malformed" in message and "1 zero duration" in message
    assert w.import_report.skipped == Counter(
        {"malformed": 3, "zero duration": 1, "not complete": 1, "wrong category": 1}
    )
    assert w.names == ["aten::mm"] and w.table()["ops"][0] == 2 * 2 * 3 * 4
    assert w.table()["bytes"][0] == 4 * (2 * 3 + 3 * 4 + 2 * 4)


def test_torch_truncated_trace_names_file_line_and_event(traces, tmp_path):
    text = Path(traces[False]).read_text()
    events = _events(traces[False])
    cut = text.index('"name": "aten::linear"')  # stop inside the first aten::linear event
    path = tmp_path / "truncated.json"
    path.write_text(text[:cut])
    index = next(i for i, e in enumerate(events) if e.get("name") == "aten::linear")
    with pytest.raises(WorkloadFileError) as info:
        read_torch_trace(path, machine=HOST)
    message = str(info.value)
    assert str(path) in message and "truncated JSON" in message and f"event #{index}" in message
    assert info.value.line == text[:cut].count("\n") + 1


def test_torch_malformed_json_names_file_line_and_event(traces, tmp_path):
    text = Path(traces[False]).read_text()
    events = _events(traces[False])
    at = text.index('"name": "aten::relu"')
    bad = text[:at] + '"name" "aten::relu"' + text[at + len('"name": "aten::relu"') :]
    path = tmp_path / "malformed.json"
    path.write_text(bad)
    index = next(i for i, e in enumerate(events) if e.get("name") == "aten::relu")
    with pytest.raises(WorkloadFileError) as info:
        read_torch_trace(path, machine=HOST)
    message = str(info.value)
    assert str(path) in message and "malformed JSON" in message and f"event #{index}" in message
    assert info.value.line == text[:at].count("\n") + 1


def test_torch_needs_a_machine_and_known_options(traces):
    with pytest.raises(WorkloadFileError, match="pass machine="):
        read_torch_trace(traces[False])
    with pytest.raises(ValueError, match="group_by"):
        read_torch_trace(traces[False], machine=HOST, group_by="thread")
    with pytest.raises(WorkloadFileError, match="no complete events of categories kernel"):
        _read(traces[False], categories="kernel")


def test_torch_array_format_without_closing_bracket(tmp_path):
    # The Chrome trace format's JSON Array Format may omit the final ']'
    path = tmp_path / "array.json"
    path.write_text(
        '[{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2,\n'
        '  "args": {"dram__bytes_read.sum": 100, "dram__bytes_write.sum": 28}},\n'
        '{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 0, "tid": 1, "ts": 0, "dur": 4}\n'
    )
    w = _read(path)
    assert w.names == ["k"]  # GPU kernels present: the default category is 'kernel'
    assert w.import_report.phase("k").bytes_source == "counted" and w.table()["bytes"][0] == 128
    assert any("no closing ']'" in note for note in w.import_report.notes)
    assert w.import_report.skipped["wrong category"] == 1


def test_compute_flops_formulas():
    assert compute_flops("aten::matmul", [[5, 2, 3], [3, 7]]) == 2 * 5 * 2 * 3 * 7
    assert compute_flops("aten::bmm", [[5, 2, 3], [5, 3, 7]]) == 2 * 5 * 2 * 3 * 7
    assert compute_flops("aten::linear", [[8, 16, 32], [64, 32], [64]]) == 2 * 8 * 16 * 32 * 64
    # conv1d with stride 2, padding 1: out = (10 + 2 - 3) // 2 + 1 = 5
    assert (
        compute_flops(
            "aten::conv1d", [[1, 4, 10], [6, 2, 3], [6], [], [], [], []], ["", "", "", "[2]", "[1]", "[1]", "2"]
        )
        == 2 * 1 * 6 * 2 * 3 * 5
    )
    assert compute_flops("aten::conv2d", [[1, 4, 10, 10], [6, 4, 3, 3]], None) is None  # no Concrete Inputs
    assert compute_flops("aten::mm", [[2, 3], [4, 5]]) is None  # inner dimensions disagree


# -- Nsight Compute -------------------------------------------------------------------------------------


def test_nsight_details_page_real_file():
    w = read_nsight_csv(DATA / "ncu-details-dropout-excerpt.csv", machine=GPU)
    assert w.names == ["fused_dropout_kernel_vec #0", "fused_dropout_kernel_vec #1", "fused_dropout_kernel_vec #2"]
    t = w.table()
    # gpu__time_duration.sum rows: "11,744", "7,360", "11,968" nsecond
    np.testing.assert_allclose(t["duration"], [11744e-9, 7360e-9, 11968e-9], rtol=1e-12)
    # dmul + 2·dfma + 2·ffma rows: launch 0: 1,048,576 + 2·655,360 + 2·524,288; launch 1: 262,144 + 2·163,840 + 2·131,072
    np.testing.assert_array_equal(t["ops"], [3407872, 851968, 3407872])
    # dram__bytes.sum rows: "4,194,688", "1,048,832", "4,194,560" byte
    np.testing.assert_array_equal(t["bytes"], [4194688, 1048832, 4194560])
    report = w.import_report
    assert report.flops_sources == dict.fromkeys(w.names, "computed")
    assert report.bytes_sources == dict.fromkeys(w.names, "counted")
    assert "details (long)" in report.notes[0]


def test_nsight_group_by_kernel():
    w = read_nsight_csv(DATA / "ncu-details-dropout-excerpt.csv", machine=GPU, group_by="kernel")
    assert w.names == ["fused_dropout_kernel_vec"]
    assert w.table()["duration"][0] == pytest.approx((11744 + 7360 + 11968) * 1e-9)
    assert w.import_report.phases[0].events == 3


def test_nsight_program_output_crlf_and_op_read_write_metrics():
    path = DATA / "ncu-details-saxpy-rtx5070.csv"
    assert b"\r\n" in path.read_bytes()  # written on Windows
    w = read_nsight_csv(path, machine=GPU, require=("duration", "bytes"))
    assert w.names == ["saxpy_kernel #0"]
    # gpu__time_duration.sum "292,928" ns; dram__bytes_op_read.sum "134,221,568" + dram__bytes_op_write.sum "43,631,104"
    assert w.table()["duration"][0] == pytest.approx(292928e-9, rel=1e-12)
    assert w.table()["bytes"][0] == 134221568 + 43631104
    assert w.import_report.phase("saxpy_kernel #0").flops == "unknown"
    assert w.table()["ops"][0] == 0


def test_nsight_missing_flop_metric_names_file_and_metric():
    path = DATA / "ncu-details-saxpy-rtx5070.csv"
    with pytest.raises(WorkloadFileError) as info:
        read_nsight_csv(path, machine=GPU)
    message = str(info.value)
    assert str(path) in message and "sm__sass_thread_inst_executed_op_ffma_pred_on.sum" in message
    assert info.value.line == 10  # the first row of launch 0, after 8 lines of program output and the header


def test_nsight_raw_page_real_file():
    path = DATA / "ncu-raw-flash-attn-b200-columns-excerpt.csv"
    w = read_nsight_csv(path, machine=GPU, require=("duration",))
    assert w.names == ["flash_fwd_kernel #0", "flash_fwd_kernel #1"]
    # gpu__time_duration.sum: 685280 and 687072, unit row "ns"
    np.testing.assert_allclose(w.table()["duration"], [685280e-9, 687072e-9], rtol=1e-12)
    assert "raw (wide)" in w.import_report.notes[0]
    with pytest.raises(WorkloadFileError, match="dram__bytes_read.sum|ffma_pred_on.sum") as info:
        read_nsight_csv(path, machine=GPU, require=("duration", "bytes"))
    assert str(path) in str(info.value) and "dram__bytes_read.sum" in str(info.value)


def test_nsight_roofline_peaks_build_the_machine():
    # hand-made file in the documented --page raw layout (no real one with these metrics was found)
    w = read_nsight_csv(DATA / "handmade-ncu-raw-roofline.csv")
    m = w.machine
    assert m.peak_compute == pytest.approx(6912 * 2 * 1.41e9)  # ffma peak_sustained × 2 × SM clock
    assert m.peak_bandwidth == pytest.approx(1280 * 1.22e9)  # dram__bytes.sum.peak_sustained × DRAM clock
    t = w.table()
    assert t["duration"][0] == pytest.approx(210.50e-6)  # "210.50" usecond
    assert t["bytes"][0] == pytest.approx(25.17e6 + 4194.30e3)  # Mbyte + Kbyte
    assert t["ops"][0] == 131072 + 2 * 268435456 + 65536
    fp64 = read_nsight_csv(DATA / "handmade-ncu-raw-roofline.csv", precision="fp64")
    assert fp64.machine.peak_compute == pytest.approx(3456 * 2 * 1.41e9)


def test_nsight_no_machine_names_the_missing_peak():
    with pytest.raises(WorkloadFileError, match="pass machine=.*dram__bytes.sum.peak_sustained"):
        read_nsight_csv(DATA / "ncu-details-dropout-excerpt.csv")


def test_nsight_unknown_layouts_and_bad_numbers(tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("Kernel,Duration\nk,1\n")
    with pytest.raises(WorkloadFileError, match=r"other\.csv.*no header line starting with \"ID\""):
        read_nsight_csv(path, machine=GPU)
    path.write_text('"ID","Kernel Name","Context"\n"0","k","1"\n')
    with pytest.raises(WorkloadFileError, match="unknown CSV layout: neither a 'Metric Name' column"):
        read_nsight_csv(path, machine=GPU)
    path.write_text('"ID","Kernel Name","Metric Name","Metric Value"\n"0","k","gpu__time_duration.sum","5"\n')
    with pytest.raises(WorkloadFileError, match="needs column 'Metric Unit'"):
        read_nsight_csv(path, machine=GPU)
    path.write_text(
        '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
        '"0","k","gpu__time_duration.sum","nsecond","9,00"\n'
    )
    with pytest.raises(WorkloadFileError) as info:
        read_nsight_csv(path, machine=GPU, require=("duration",))
    assert info.value.line == 2 and "gpu__time_duration.sum" in str(info.value) and "'9,00'" in str(info.value)
    path.write_text(
        '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'
        '"0","k","gpu__time_duration.sum","fortnight","9"\n'
    )
    with pytest.raises(WorkloadFileError, match="unknown unit 'fortnight'"):
        read_nsight_csv(path, machine=GPU, require=("duration",))


def test_unit_scale():
    assert unit_scale("nsecond") == 1e-9 and unit_scale("usecond") == 1e-6 and unit_scale("msecond") == 1e-3
    assert unit_scale("Kbyte") == 1e3 and unit_scale("Gbyte") == 1e9 and unit_scale("byte") == 1
    assert unit_scale("cycle/nsecond") == pytest.approx(1e9) and unit_scale("inst/cycle") == 1
    assert unit_scale("Minst") == 1e6


# -- Timeloop ---------------------------------------------------------------------------------------------

TIMELOOP = DATA / "timeloop-conv1d-2level-os" / "timeloop-model.stats.txt"


def test_timeloop_model_stats_real_file():
    w = read_timeloop_stats(TIMELOOP, clock=1e9, machine=Machine(2e9, 1e9, name="1 GHz toy"))
    assert w.names == ["timeloop-conv1d-2level-os"]
    t = w.table()
    assert t["duration"][0] == pytest.approx(48e-9)  # "Cycles: 48" at 1 GHz
    assert t["ops"][0] == 2 * 48  # "MACCs = 48", 2 ops per MAC
    # MainMemory (the outermost level): Weights reads 3, Inputs reads 18, Outputs updates 16; 8-bit words
    assert t["bytes"][0] == 3 + 18 + 16
    phase = w.import_report.phases[0]
    assert phase.details["memory_level"] == "MainMemory" and phase.flops == "computed"


def test_timeloop_memory_level_choice():
    w = read_timeloop_stats(TIMELOOP, clock=1e9, machine=Machine(2e9, 1e10), memory_level="Buffer")
    # Buffer: reads 48 + 48 + 32, fills 3 + 18 + 16, updates 48 (Outputs)
    assert w.table()["bytes"][0] == 128 + 37 + 48
    with pytest.raises(WorkloadFileError, match="no storage level named 'DRAM'; levels: Buffer, MainMemory"):
        read_timeloop_stats(TIMELOOP, clock=1e9, machine=GPU, memory_level="DRAM")


def test_timeloop_machine_inferred_from_specs():
    with pytest.warns(campaign_widget.UtilizationAboveOneWarning, match="memory utilization"):
        # Timeloop prints bandwidths rounded (0.33 words/cycle for 16 writes in 48 cycles): slightly above 1
        w = read_timeloop_stats(TIMELOOP, clock=1e9)
    assert w.machine.peak_compute == pytest.approx(1 * 2 * 1e9)  # 1 MACC instance × 2 ops × clock
    assert w.machine.peak_bandwidth == pytest.approx((0.44 + 0.33) * 1e9)  # MainMemory read + write, 1 B words
    assert "SPECS" in w.import_report.machine_source


def test_timeloop_needs_a_clock_or_cycles():
    with pytest.raises(WorkloadFileError, match="missing clock") as info:
        read_timeloop_stats(TIMELOOP, machine=GPU)
    assert str(TIMELOOP) in str(info.value)
    per_cycle = Machine(peak_compute=2, peak_bandwidth=1, time_unit="cycle", name="per cycle")
    w = read_timeloop_stats(TIMELOOP, machine=per_cycle)
    assert w.table()["duration"][0] == 48


def test_timeloop_several_layers_and_files(tmp_path):
    text = TIMELOOP.read_text()
    two = tmp_path / "two-layers.stats.txt"
    two.write_text(text + text)
    w = read_timeloop_stats(two, clock=1e9, machine=GPU)
    assert w.names == ["layer 0", "layer 1"]
    w = read_timeloop_stats([TIMELOOP, two], clock=1e9, machine=GPU, names=["a", "b", "c"])
    assert w.names == ["a", "b", "c"] and list(w.table()["ops"]) == [96, 96, 96]


def test_timeloop_truncated_file(tmp_path):
    text = TIMELOOP.read_text()
    cut = tmp_path / "cut.stats.txt"
    cut.write_text(text[: text.index("Summary Stats")])
    with pytest.raises(WorkloadFileError, match="no 'Cycles:'") as info:
        read_timeloop_stats(cut, clock=1e9, machine=GPU)
    assert str(cut) in str(info.value) and info.value.line == 1


# -- load() recognizes each format by content --------------------------------------------------------------


def _neutral(path, tmp_path, name):
    target = tmp_path / name
    shutil.copyfile(path, target)
    return target


def test_load_recognizes_each_format_by_content(traces, tmp_path):
    trace = _neutral(traces[False], tmp_path, "profile.dat")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedEventsWarning)
        w = campaign_widget.load(trace, machine=HOST)
    assert w.import_report.format == "pytorch-trace" and "aten::linear" in w.names
    packed = tmp_path / "profile.bin"
    packed.write_bytes(gzip.compress(Path(traces[False]).read_bytes()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedEventsWarning)
        assert campaign_widget.load(packed, machine=HOST).import_report.format == "pytorch-trace"
    ncu = _neutral(DATA / "handmade-ncu-raw-roofline.csv", tmp_path, "kernels.dat")
    w = campaign_widget.load(ncu)
    assert w.import_report.format == "nsight-compute-csv" and len(w) == 2
    ncu_real = _neutral(DATA / "ncu-details-dropout-excerpt.csv", tmp_path, "dropout.out")
    assert campaign_widget.load(ncu_real, machine=GPU).table()["ops"][0] == 3407872
    stats = _neutral(TIMELOOP, tmp_path, "layer.log")
    per_cycle = Machine(peak_compute=2, peak_bandwidth=1, time_unit="cycle", name="per cycle")
    w = campaign_widget.load(stats, machine=per_cycle)
    assert w.import_report.format == "timeloop-stats" and w.table()["duration"][0] == 48
    with pytest.raises(WorkloadFileError, match="missing clock"):
        campaign_widget.load(stats)  # load() has no clock to pass


def test_phases_with_unknown_volumes_keep_their_measured_time(tmp_path):
    path = tmp_path / "unknown.json"
    events = [
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 0, "dur": 5,
         "args": {"Input Dims": [[2, 3], [3, 4]], "Input type": ["float", "float"]}},
        {"ph": "X", "cat": "cpu_op", "name": "custom::op_without_a_model", "pid": 1, "tid": 1, "ts": 6, "dur": 3,
         "args": {"Input Dims": [[2, 3]], "Input type": ["float"]}},
    ]  # fmt: skip
    path.write_text(json.dumps({"traceEvents": events}))
    w = _read(path)
    i = w.names.index("custom::op_without_a_model")
    assert w.measured[i] and w.table()["ops"][i] == 0 and w.table()["duration"][i] == 3e-6
    assert w.import_report.phase("custom::op_without_a_model").details["work"] == "unknown"
    w.schedule()  # a schedule of measured phases with zero volumes works


def test_load_passes_reader_options_through(tmp_path):
    """Options that only a format's reader knows (a Timeloop clock) reach it through load()."""
    import campaign_widget

    stats = DATA / "timeloop-conv1d-2level-os" / "timeloop-model.stats.txt"
    with warnings.catch_warnings():  # the file's rounded bandwidths give 1.001 utilization: tested above
        warnings.simplefilter("ignore", campaign_widget.UtilizationAboveOneWarning)
        direct = campaign_widget.read_timeloop_stats(stats, clock=1e9)
        loaded = campaign_widget.load(stats, clock=1e9)
    np.testing.assert_allclose(loaded.arrays.duration, direct.arrays.duration)
    with pytest.raises(TypeError, match="unknown load options"):
        campaign_widget.load(DATA.parent / "figure-8.yaml", clock=1e9)
