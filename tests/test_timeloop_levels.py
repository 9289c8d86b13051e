"""Timeloop stats with every storage level: each level's accesses × word bytes are its bytes, the
architecture's levels (nearest to compute first) are the machine's, bandwidths from the SPECS where they
give one, else from the given machine's level of that name; one-level machines read as before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import campaign_widget as cw
from campaign_widget.io import WorkloadFileError, load, read_timeloop_stats

DATA = Path(__file__).parent / "data"
THREE = DATA / "timeloop" / "handmade-three-levels.stats.txt"
SPARSE = DATA / "timeloop" / "handmade-sparseloop.stats.txt"
CONV1D = DATA / "importers" / "timeloop-conv1d-2level-os" / "timeloop-model.stats.txt"
EYERISS = DATA / "timeloop" / "eyeriss-like.mapper.stats.txt"  # real tool output, tests/data/timeloop/SOURCES.md
SPMSPM = DATA / "timeloop" / "sparseloop-spMspM.mapper.stats.txt"


def test_every_storage_level_becomes_a_memory_level():
    w = read_timeloop_stats(THREE, clock=1e9)
    assert w.machine.level_names == ("RegisterFile", "GlobalBuffer", "DRAM")  # nearest to compute first
    # RegisterFile: Weights (200 reads + 20 fills) × 4 instances + Outputs (90 reads + 100 updates) × 2
    # instances = 1260 words of 2 B; GlobalBuffer: 160 + 450 words of 2 B; DRAM: 80 + 50 + 20 words of 1 B
    np.testing.assert_array_equal(w.arrays.level_bytes, [[2520, 1220, 150]])
    assert w.arrays.bytes[0] == 150  # the farthest level is the phase's bytes, as with one level
    # bandwidths: (read + write) × instances × word bytes × clock; DRAM prints only a shared bandwidth
    assert w.machine.bandwidths == ((2 + 1) * 4 * 2 * 1e9, (8 + 8) * 1 * 2 * 1e9, 2 * 1 * 1 * 1e9)
    assert w.machine.peak_compute == 4 * 2 * 1e9 and w.arrays.ops[0] == 2 * 800
    assert w.arrays.duration[0] == pytest.approx(200e-9)
    assert w.arrays.bound_resource[0] == "compute"
    np.testing.assert_allclose(w.arrays.level_util[0], [2520 / 24 / 200, 1220 / 32 / 200, 150 / 2 / 200])
    phase = w.import_report.phases[0]
    assert phase.details["level_bytes"] == {"RegisterFile": 2520, "GlobalBuffer": 1220, "DRAM": 150}
    assert phase.details["level_word_bytes"] == {"RegisterFile": 2, "GlobalBuffer": 2, "DRAM": 1}
    assert "(SPECS)" in w.import_report.machine_source


def test_in_cycles_the_bandwidths_are_bytes_per_cycle():
    per_cycle = cw.Machine(peak_compute=8, levels={"GlobalBuffer": 1, "DRAM": 1}, time_unit="cycle", name="pc")
    w = read_timeloop_stats(THREE, machine=per_cycle)
    assert w.machine.bandwidths == (24.0, 32.0, 2.0) and w.arrays.duration[0] == 200
    assert w.machine.name == "pc" and w.machine.time_unit == "cycle"


def test_a_one_level_machine_keeps_todays_reading():
    one = cw.Machine(8e9, 1e9, name="1 GHz toy")
    w = read_timeloop_stats(THREE, clock=1e9, machine=one)
    assert w.machine is one and len(w.machine.level_names) == 1 and w.arrays.bytes[0] == 150
    buffer = read_timeloop_stats(THREE, clock=1e9, memory_level="GlobalBuffer")
    assert buffer.machine.level_names == ("memory",) and buffer.arrays.bytes[0] == 1220
    # the real two-level Timeloop file: today's numbers with a one-level machine, both levels without
    conv = read_timeloop_stats(CONV1D, clock=1e9, machine=one)
    assert conv.table()["bytes"][0] == 3 + 18 + 16
    with pytest.warns(cw.UtilizationAboveOneWarning):  # Timeloop's bandwidths are printed rounded
        both = read_timeloop_stats(CONV1D, clock=1e9)
    assert both.machine.level_names == ("Buffer", "MainMemory")
    np.testing.assert_array_equal(both.arrays.level_bytes, [[128 + 37 + 48, 3 + 18 + 16]])


def test_memory_level_with_a_machine_of_several_levels_is_refused():
    machine = cw.Machine(peak_compute=8e9, levels={"GlobalBuffer": 3e10, "DRAM": 2e9})
    with pytest.raises(WorkloadFileError, match=r"memory_level='DRAM' reads one storage level, but the machine has 2"):
        read_timeloop_stats(THREE, clock=1e9, machine=machine, memory_level="DRAM")


def test_bandwidths_the_specs_lack_come_from_the_machine_by_name():
    """Sparseloop prints '-' for the outer level: the machine's level of that name gives it."""
    machine = cw.Machine(peak_compute=1e12, levels={"Buffer": 1e11, "backingstorage": 5e10}, name="toy")
    w = load(SPARSE, machine=machine, clock=2e9)
    assert w.machine.level_names == ("Buffer", "BackingStorage")  # the file's spelling
    # Buffer from the SPECS ((4 + 4) words/cycle × 2 B × 2 GHz), BackingStorage from the machine
    assert w.machine.bandwidths == ((4 + 4) * 2 * 2e9, 5e10)
    assert w.machine.peak_compute == 1e12 and w.machine.name == "toy"
    np.testing.assert_array_equal(w.arrays.level_bytes, [[(400 + 40 + 10 + 20) * 2, 40 + 10]])
    assert "BackingStorage 5e+10 B/s (machine)" in w.import_report.machine_source
    assert any("the SPECS' bandwidth 3.2e+10 B/s is used; the machine gives 1e+11" in n for n in w.import_report.notes)


def test_a_machine_whose_levels_do_not_match_says_so():
    machine = cw.Machine(peak_compute=1e12, levels={"L2": 1e11, "HBM": 5e10}, name="gpu")
    with pytest.raises(WorkloadFileError) as info:
        load(SPARSE, machine=machine, clock=1e9)
    message = str(info.value)
    assert info.value.field == "machine"
    assert "the machine's memory levels (L2, HBM) do not match this file's storage levels" in message
    assert (
        "(nearest to compute first: Buffer, BackingStorage)" in message and "'L2', 'HBM' are not among them" in message
    )


def test_a_machine_that_lacks_a_level_the_specs_lack_names_it(tmp_path):
    half = cw.Machine(peak_compute=1e12, levels={"RegisterFile": 1e11, "GlobalBuffer": 5e10}, name="half")
    stats = tmp_path / "timeloop-model.stats.txt"
    stats.write_text(
        THREE.read_text().replace("Shared bandwidth                : 2.00", "Shared bandwidth                : -")
    )
    with pytest.raises(WorkloadFileError) as info:
        read_timeloop_stats(stats, machine=half, clock=1e9)
    message = str(info.value)
    assert "DRAM.Read bandwidth (it is '-': unbounded)" in message and "pass machine=" in message
    assert "'half'" in message and info.value.field == "machine"


def test_no_machine_and_an_unbounded_outer_level_asks_for_one():
    with pytest.raises(WorkloadFileError) as info:
        load(SPARSE, clock=1e9)
    message = str(info.value)
    assert info.value.field == "machine" and "pass machine=" in message
    assert "BackingStorage.Read bandwidth (it is '-': unbounded)" in message
    assert "its levels named as the file's (Buffer, BackingStorage)" in message


def test_runs_of_different_architectures_are_refused(tmp_path):
    mixed = tmp_path / "mixed.stats.txt"
    mixed.write_text(THREE.read_text() + SPARSE.read_text())
    with pytest.raises(WorkloadFileError, match=r"storage levels \(Buffer, BackingStorage\) differ"):
        read_timeloop_stats(mixed, clock=1e9)
    one = read_timeloop_stats(mixed, clock=1e9, machine=cw.Machine(1e12, 1e11))  # one level each: as before
    assert list(one.arrays.bytes) == [150, 50]


def test_several_runs_keep_each_levels_bytes(tmp_path):
    two = tmp_path / "two.stats.txt"
    two.write_text(
        THREE.read_text()
        + THREE.read_text().replace(
            "Scalar updates (per-instance)            : 20", "Scalar updates (per-instance)            : 70"
        )
    )
    w = read_timeloop_stats(two, clock=1e9)
    assert w.names == ["layer 0", "layer 1"]
    np.testing.assert_array_equal(w.arrays.level_bytes, [[2520, 1220, 150], [2520, 1220, 200]])


def test_the_outermost_levels_errors_come_first(tmp_path):
    """A count that is not a number is named where a one-level read names it: the outermost level first."""
    bad = tmp_path / "nan.stats.txt"
    bad.write_text(
        "\n".join(
            ln.split(":")[0] + ": nan" if "Scalar reads (per-instance)" in ln else ln
            for ln in THREE.read_text().splitlines()
        )
    )
    with pytest.raises(WorkloadFileError, match=r"DRAM\.Weights\.Scalar reads: 'nan' must be a finite number"):
        read_timeloop_stats(bad, clock=1e9)


def test_real_eyeriss_mapper_stats_give_five_levels():
    glb_dram = cw.Machine(peak_compute=2 * 168e9, levels={"shared_glb": 3.2e10, "DRAM": 8e9}, name="eyeriss")
    w = read_timeloop_stats(EYERISS, machine=glb_dram)
    assert w.machine.level_names == ("psum_spad", "weights_spad", "ifmap_spad", "shared_glb", "DRAM")
    # the file's own "Total scalar accesses" per level × word bytes (psum_spad has 16-bit words)
    np.testing.assert_array_equal(w.arrays.level_bytes, [[18063360 * 2, 11031552, 12192768, 1913456, 572528]])
    # psum_spad: (2 + 2) words/cycle × 168 instances × 2 B × the file's 1 GHz
    assert w.machine.bandwidth("psum_spad") == 4 * 168 * 2 * 1e9 and w.machine.bandwidth("DRAM") == 8e9
    assert w.arrays.bound_resource[0] == "DRAM"
    # the file's "Op per Byte" for DRAM, 37.16, counts elementwise + reduction ops: 21274624 / 572528
    assert 21274624 / w.arrays.level_bytes[0, -1] == pytest.approx(37.16, abs=0.005)


def test_real_sparseloop_mapper_stats_give_two_levels():
    machine = cw.Machine(peak_compute=2e9, levels={"BackingStorage": 4e9, "Buffer": 1.0}, name="toy")
    w = read_timeloop_stats(SPMSPM, machine=machine)
    assert w.machine.level_names == ("Buffer", "BackingStorage")
    assert w.machine.bandwidths == (1e10, 4e9)  # Buffer from its SPECS (5 + 5 words/cycle, 1 B words)
    assert not np.isnan(w.arrays.level_bytes).any()
    one = read_timeloop_stats(SPMSPM, machine=cw.Machine(2e9, 4e9))
    assert one.arrays.bytes[0] == w.arrays.level_bytes[0, -1]
