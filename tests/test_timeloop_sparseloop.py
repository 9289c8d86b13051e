"""Timeloop / Sparseloop stats as real files are: Sparseloop's spellings, no numeric bandwidth for the outer
level (a machine is needed, and the error says how to give one), the clock, and errors in the file's terms."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign_widget import Machine
from campaign_widget.io import WorkloadFileError, load, read_timeloop_stats
from campaign_widget.model.presets import MACHINES

SPARSE = Path(__file__).parent / "data" / "timeloop" / "handmade-sparseloop.stats.txt"
ACCEL = Machine(peak_compute=1e12, peak_bandwidth=1e11, name="toy accelerator", ops_unit="op")


def test_sparseloop_data_word_bits_and_actual_counts():
    w = load(SPARSE, machine=ACCEL, clock=2e9)
    t = w.table()
    assert t["duration"][0] == pytest.approx(100 / 2e9)  # "Cycles: 100"
    assert t["ops"][0] == 2 * 400  # "Actual Computes = 400", not the 1000 algorithmic ones
    # BackingStorage: A actual reads 40, Z actual updates 10; "Data word bits : 8"
    assert t["bytes"][0] == 40 + 10
    buffer = load(SPARSE, machine=ACCEL, clock=2e9, memory_level="Buffer")
    # Buffer: A 400 reads + 40 fills, Z 10 reads + 20 updates; 16-bit words
    assert buffer.table()["bytes"][0] == (400 + 40 + 10 + 20) * 2


def test_no_numeric_bandwidth_asks_for_a_machine_the_caller_can_give():
    with pytest.raises(WorkloadFileError) as info:
        load(SPARSE, clock=1e9)
    e = info.value
    assert e.field == "machine" and "pass machine=" in str(e)
    assert "BackingStorage.Read bandwidth (it is '-': unbounded)" in str(e)
    assert all(name in str(e) for name in MACHINES)  # the presets load() takes
    assert "--machine" not in str(e)  # Python is told about keywords, the CLI about flags


def test_the_machine_is_inferred_where_the_specs_have_numbers():
    w = load(SPARSE, clock=1e9, memory_level="Buffer")
    assert w.machine.peak_compute == pytest.approx(4 * 2 * 1e9)  # 4 MAC instances × 2 ops × clock
    assert w.machine.peak_bandwidth == pytest.approx((4 + 4) * 1 * 2 * 1e9)  # (read + write) × 2 B words


def test_the_clock_the_file_assumes_when_none_is_given():
    w = load(SPARSE, machine="fusemax")  # a preset is all a user must give
    assert w.table()["duration"][0] == pytest.approx(100 / 1e9)  # "GFLOPs (@1GHz)"
    assert any("GFLOPs (@1GHz)" in note for note in w.import_report.notes)
    assert w.import_report.phases[0].details["clock"] == 1e9


def test_a_file_without_an_assumed_clock_still_needs_one(tmp_path):
    path = tmp_path / "timeloop-model.stats.txt"
    path.write_text(SPARSE.read_text().replace("GFLOPs (@1GHz): 8.00\n", ""))
    with pytest.raises(WorkloadFileError, match="missing clock.*pass clock=") as info:
        load(path, machine=ACCEL)
    assert info.value.field == "clock" and "--clock" not in str(info.value)


@pytest.mark.parametrize("clock", [1e308, 1e-320, math.nan, math.inf, -1e9, 0, 1e20])
def test_a_bad_clock_is_refused_as_a_clock(clock):
    with pytest.raises(ValueError) as info:
        read_timeloop_stats(SPARSE, clock=clock, memory_level="Buffer")
    assert str(info.value).startswith("clock=") and "peak_compute" not in str(info.value)


@pytest.mark.parametrize("clock", ["1e9", True, None.__class__])
def test_a_clock_that_is_not_a_number_is_a_type_error(clock):
    with pytest.raises(TypeError, match="clock=.*frequency in Hz"):
        read_timeloop_stats(SPARSE, clock=clock, machine=ACCEL)


def test_numpy_and_fraction_clocks_are_numbers():
    for clock in (np.float32(1e9), np.int64(10**9), Fraction(10**9)):
        w = read_timeloop_stats(SPARSE, clock=clock, machine=ACCEL)
        assert w.table()["duration"][0] == pytest.approx(1e-7)


def test_zero_cycles_is_refused_in_the_files_terms(tmp_path):
    path = tmp_path / "zero.stats.txt"
    path.write_text(SPARSE.read_text().replace("Cycles: 100\n", "Cycles: 0\n"))
    with pytest.raises(WorkloadFileError) as info:
        load(path, machine=ACCEL, clock=1e9)
    assert info.value.field == "Summary Stats.Cycles" and "duration=" not in str(info.value)
    assert info.value.line == SPARSE.read_text().splitlines().index("Cycles: 100") + 1


def test_huge_counts_are_refused_in_the_files_terms(tmp_path):
    path = tmp_path / "huge.stats.txt"
    path.write_text(SPARSE.read_text().replace("Actual Computes = 400", "Actual Computes = 1e40"))
    with pytest.raises(WorkloadFileError) as info:
        load(path, machine=ACCEL, clock=1e9)
    assert info.value.field == "Summary Stats.Actual Computes" and "ops=" not in str(info.value)


def test_missing_word_bits_names_both_spellings(tmp_path):
    path = tmp_path / "nobits.stats.txt"
    path.write_text(SPARSE.read_text().replace("        Data word bits                  : 8\n", ""))
    with pytest.raises(WorkloadFileError, match="no 'Word bits' \\(or 'Data word bits'\\)"):
        load(path, machine=ACCEL, clock=1e9)


@pytest.mark.filterwarnings("ignore::campaign_widget.UtilizationAboveOneWarning")  # random counters, toy peaks
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cycles=st.lists(st.integers(min_value=1, max_value=10**12), min_size=1, max_size=5))
def test_total_cycles_equal_the_files_own(tmp_path_factory, cycles):
    text = SPARSE.read_text()
    layers = "".join(text.replace("Cycles: 100\n", f"Cycles: {c}\n") for c in cycles)
    path = tmp_path_factory.mktemp("tl") / "timeloop-mapper.stats.txt"
    path.write_text(layers)
    per_cycle = Machine(peak_compute=1e6, peak_bandwidth=1e6, time_unit="cycle", name="per cycle")
    w = load(path, machine=per_cycle)
    assert list(w.arrays.duration) == [float(c) for c in cycles]  # the file's Cycles, exactly
    at_clock = load(path, machine=ACCEL)  # at the file's 1 GHz
    assert at_clock.arrays.duration.sum() * 1e9 == pytest.approx(sum(cycles), rel=1e-12)
