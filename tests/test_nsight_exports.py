"""Nsight Compute as it is exported: the default details page (utilizations), metrics without a duration,
logs with no table, tables after long program output, and errors in the file's own terms."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign_widget import Machine
from campaign_widget.io import WorkloadFileError, detect, load, read_nsight_csv

DATA = Path(__file__).parent / "data" / "nsight"
SOL = DATA / "handmade-details-sol.log"
GPU = Machine(peak_compute=67e12, peak_bandwidth=3.35e12, name="H100-ish")
HEADER = '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Section Name","Metric Name","Metric Unit","Metric Value"'


def _long(rows, before: str = "") -> str:
    """A details (long) page: rows of (ID, kernel, metric, unit, value)."""
    lines = [
        f'"{i}","1","p","h","{kernel}","1","7","Command line profiler metrics","{metric}","{unit}","{value}"'
        for i, kernel, metric, unit, value in rows
    ]
    return before + HEADER + "\n" + "\n".join(lines) + "\n"


def test_details_page_loads_without_an_option_from_its_utilizations():
    assert detect(SOL).name == "nsight-compute-csv"  # a .log, text first
    w = load(SOL)
    assert w.names == ["gemm_tile #0", "softmax_rows #1", "gemm_tile #2"]
    t = w.table()
    # Duration rows: "250.00" usecond, "50,000" nsecond, "750.00" usecond
    np.testing.assert_allclose(t["duration"], [250e-6, 50e-6, 750e-6], rtol=1e-12)
    # Compute (SM) Throughput 80, 10, 40 %; DRAM Throughput 30, 60, 10 %
    np.testing.assert_allclose(t["compute_util"], [0.8, 0.1, 0.4], rtol=1e-12)
    np.testing.assert_allclose(t["memory_util"], [0.3, 0.6, 0.1], rtol=1e-12)
    assert w.machine.normalized  # no peaks in the file, none needed: volumes in peak·time
    report = w.import_report
    assert report.flops_sources == dict.fromkeys(w.names, "utilization")
    assert report.phases[1].details["memory_throughput"] == pytest.approx(0.6125)  # Memory Throughput 61.25 %
    assert report.phases[0].ops == pytest.approx(0.8 * 250e-6)


def test_details_page_with_a_machine_gives_volumes_from_the_utilizations():
    w = load(SOL, machine=GPU)
    t = w.table()
    assert t["ops"][0] == pytest.approx(0.8 * 67e12 * 250e-6)  # u_c · P · T
    assert t["bytes"][1] == pytest.approx(0.6 * 3.35e12 * 50e-6)  # u_m · BW · T
    assert w.import_report.phases[0].ops == pytest.approx(t["ops"][0])


def test_details_page_grouped_by_kernel_weights_utilizations_by_duration():
    w = read_nsight_csv(SOL, group_by="kernel")
    assert w.names == ["gemm_tile", "softmax_rows"]
    t = w.table()
    assert t["duration"][0] == pytest.approx(1000e-6)
    assert t["compute_util"][0] == pytest.approx((0.8 * 250 + 0.4 * 750) / 1000)
    assert t["memory_util"][0] == pytest.approx((0.3 * 250 + 0.1 * 750) / 1000)


def test_basis_counters_on_a_page_of_utilizations_names_the_missing_counter():
    with pytest.raises(WorkloadFileError, match="ffma_pred_on.sum.*Speed Of Light"):
        read_nsight_csv(SOL, machine=GPU, basis="counters")
    with pytest.raises(ValueError, match="basis='x' must be one of counters, utilizations"):
        read_nsight_csv(SOL, basis="x")


def test_duration_from_elapsed_cycles_and_clock_and_bytes_per_level(tmp_path):
    path = tmp_path / "counters.csv"
    rows = []
    for i, cycles in ((0, "2,000,000.00"), (1, "500,000.00")):
        rows += [
            (i, "void k<float>(float*)", "dram__bytes.sum", "byte", "4,000"),
            (i, "void k<float>(float*)", "l1tex__t_bytes.sum", "byte", "64,000"),
            (i, "void k<float>(float*)", "lts__t_bytes.sum", "Kbyte", "16"),
            (i, "void k<float>(float*)", "smsp__cycles_elapsed.avg", "cycle", cycles),
            (i, "void k<float>(float*)", "smsp__cycles_elapsed.avg.per_second", "cycle/second", "1,000,000,000"),
            (i, "void k<float>(float*)", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "1,000"),
        ]
    path.write_text(_long(rows))
    w = load(path, machine=GPU)
    np.testing.assert_allclose(w.table()["duration"], [2e-3, 0.5e-3], rtol=1e-12)  # cycles / (cycles/second)
    assert list(w.table()["ops"]) == [2000, 2000]
    report = w.import_report
    assert report.phases[0].details["bytes_by_level"] == {"L1": 64000, "L2": 16000, "DRAM": 4000}
    assert "smsp__cycles_elapsed.avg / smsp__cycles_elapsed.avg.per_second" in " ".join(report.notes)


def test_no_duration_at_all_names_what_would_do(tmp_path):
    path = tmp_path / "none.csv"
    path.write_text(_long([(0, "k", "dram__bytes.sum", "byte", "4")]))
    with pytest.raises(WorkloadFileError, match="no duration: neither gpu__time_duration.sum .*elapsed cycles"):
        load(path, machine=GPU, require=("duration",))


def test_zero_duration_is_refused_in_the_files_terms(tmp_path):
    path = tmp_path / "zero.csv"
    path.write_text(
        _long(
            [
                (0, "k", "dram__bytes.sum", "byte", "4"),
                (0, "k", "gpu__time_duration.sum", "nsecond", "0"),
            ]
        )
    )
    with pytest.raises(WorkloadFileError) as info:
        load(path, machine=GPU, require=("duration", "bytes"))
    assert "metric 'gpu__time_duration.sum'" in str(info.value) and "duration=" not in str(info.value)
    assert info.value.line == 3


def test_a_zero_clock_is_refused(tmp_path):
    path = tmp_path / "clock.csv"
    path.write_text(
        _long(
            [
                (0, "k", "sm__cycles_elapsed.avg", "cycle", "10"),
                (0, "k", "sm__cycles_elapsed.avg.per_second", "cycle/second", "0"),
            ]
        )
    )
    with pytest.raises(WorkloadFileError, match="sm__cycles_elapsed.avg.per_second.*clock is 0 Hz"):
        load(path, machine=GPU, require=("duration",))


def test_a_log_with_no_table_says_so(tmp_path):
    path = tmp_path / "profile.csv"
    path.write_text(
        "==PROF== Connected to process 7 (/home/u/gemm)\n"
        "==ERROR== Error: ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU "
        "Performance Counters on the target device 0.\n"
        "0.42  0.42\n 0.36: 0.45\n"
        "==PROF== Disconnected from process 7\n==WARNING== No kernels were profiled.\n"
    )
    with pytest.raises(WorkloadFileError) as info:
        load(path)
    message = str(info.value)
    assert "YAML" not in message and "no table" in message and "No kernels were profiled" in message
    assert "ERR_NVGPUCTRPERM" in message and info.value.line == 2


def test_a_table_after_long_program_output_is_found(tmp_path):
    path = tmp_path / "run.log"
    chatter = "".join(f"step {i}: loss 0.{i:04d}\n" for i in range(8000))  # ~150 KB before the table
    path.write_text(_long([(0, "k", "gpu__time_duration.sum", "usecond", "2")], before=chatter))
    assert len(chatter) > 65536
    w = load(path, machine=GPU, require=("duration",))
    assert w.table()["duration"][0] == pytest.approx(2e-6)


def test_utilizations_out_of_range_name_the_files_label(tmp_path):
    text = SOL.read_text().replace('"Compute (SM) Throughput","%","80.00"', '"Compute (SM) Throughput","%","1e9"')
    path = tmp_path / "bad.log"
    path.write_text(text)
    with pytest.raises(WorkloadFileError, match="metric 'Compute \\(SM\\) Throughput'.*not a utilization"):
        load(path)


def test_counts_out_of_range_name_the_files_metric(tmp_path):
    path = tmp_path / "huge.csv"
    path.write_text(
        _long(
            [
                (0, "k", "dram__bytes.sum", "byte", "1e40"),
                (0, "k", "gpu__time_duration.sum", "nsecond", "5"),
            ]
        )
    )
    with pytest.raises(WorkloadFileError) as info:
        load(path, machine=GPU, require=("duration", "bytes"))
    assert "metric 'dram__bytes.sum'" in str(info.value) and "bytes=" not in str(info.value)
    assert info.value.line == 2


_LAUNCH = st.tuples(
    st.sampled_from(["duration", "cycles"]),
    st.integers(min_value=1, max_value=10**9),  # nanoseconds, or cycles
    st.integers(min_value=10**6, max_value=3 * 10**9),  # the clock, Hz
    st.integers(min_value=0, max_value=10**12),  # DRAM bytes
)


@pytest.mark.filterwarnings("ignore::campaign_widget.UtilizationAboveOneWarning")  # random counters, toy peaks
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(launches=st.lists(_LAUNCH, min_size=1, max_size=12))
def test_total_duration_equals_the_files_own(tmp_path_factory, launches):
    rows, own = [], 0.0
    for i, (kind, amount, clock, dram) in enumerate(launches):
        rows.append((i, f"void k{i % 3}<float>(float*)", "dram__bytes.sum", "byte", f"{dram:,}"))
        if kind == "duration":
            rows.append((i, f"void k{i % 3}<float>(float*)", "gpu__time_duration.sum", "nsecond", f"{amount:,}"))
            own += amount * 1e-9
        else:
            rows.append((i, f"void k{i % 3}<float>(float*)", "gpc__cycles_elapsed.max", "cycle", f"{amount:,}"))
            rows.append((i, f"void k{i % 3}<float>(float*)", "gpc__cycles_elapsed.avg.per_second", "hz", f"{clock}"))
            own += amount / clock
    path = tmp_path_factory.mktemp("ncu") / "run.csv"
    path.write_text(_long(rows))
    w = load(path, machine=GPU, require=("duration", "bytes"))
    assert w.arrays.duration.sum() == pytest.approx(own, rel=1e-12)
    assert w.arrays.bytes.sum() == sum(d for *_, d in launches)
    grouped = load(path, machine=GPU, require=("duration", "bytes"), group_by="kernel")
    assert grouped.arrays.duration.sum() == pytest.approx(own, rel=1e-12)
