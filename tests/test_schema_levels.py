"""Our schema with several memory levels: machines' levels and phases' per-level bytes and utilizations,
read and written; one-level files read and write as before; bad levels refused at their line."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import campaign_widget as cw
from campaign_widget.io import WorkloadFileError, load, save
from campaign_widget.io.schema import dumps

DATA = Path(__file__).parent / "data"
HIERARCHY = cw.Machine(peak_compute=100, levels={"L2": 40, "DRAM": 10}, name="toy hierarchy")
HEAD = "format: campaign-workload\nversion: 1\n"


def _write(tmp_path, text, name="w.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _same(a: cw.Workload, b: cw.Workload) -> None:
    assert a.names == b.names and a.machine == b.machine and a.settings == b.settings
    assert list(a.measured) == list(b.measured) and list(a.tileable) == list(b.tileable)
    for key in ("ops", "bytes", "duration", "compute_util", "memory_util", "level_bytes", "level_util"):
        np.testing.assert_array_equal(getattr(a.arrays, key), getattr(b.arrays, key), err_msg=key)
    assert list(a.arrays.bound_resource) == list(b.arrays.bound_resource)


def test_design_reference_workload_reads_from_a_file(tmp_path):
    """docs/memory-hierarchy.md#reference-numbers's table, from a file: A L2-bound 5, B DRAM-bound 6, makespan 11 (8.5 pipelined)."""
    path = _write(
        tmp_path,
        HEAD + "machine:\n  peak_compute: 100\n  levels: {L2: 40, DRAM: 10}\n"
        "phases:\n"
        "- {name: A, ops: 300, bytes: {L2: 200, DRAM: 20}}\n"
        "- {name: B, ops: 200, bytes: {L2: 40, DRAM: 60}, after: A}\n",
    )
    w = load(path)
    assert w.machine.level_names == ("L2", "DRAM") and w.machine.bandwidths == (40.0, 10.0)
    np.testing.assert_array_equal(w.arrays.level_bytes, [[200, 20], [40, 60]])
    assert list(w.arrays.bound_resource) == ["L2", "DRAM"]
    assert w.schedule().makespan == pytest.approx(11, abs=1e-9)
    assert w.schedule(tiles=2, pipeline=True).makespan == pytest.approx(8.5, abs=1e-9)


def test_the_docs_example_with_levels_is_design_reference(tmp_path):
    text = (Path(__file__).parent.parent / "docs" / "workload-files.md").read_text(encoding="utf-8")
    (example,) = re.findall(r"```yml\n(.*?)```", text, flags=re.S)
    w = load(_write(tmp_path, example))
    assert w.machine.memory_levels == (("L2", 40.0), ("DRAM", 10.0))
    assert w.schedule().makespan == pytest.approx(11, abs=1e-9)
    assert w.schedule(tiles=2, pipeline=True).makespan == pytest.approx(8.5, abs=1e-9)


def test_utilizations_per_level_and_unknown_levels(tmp_path):
    path = _write(
        tmp_path,
        HEAD + "machine:\n  peak_compute: 100\n  levels:\n    L2: 40\n    DRAM: 10\n"
        "phases:\n"
        "- {name: A, duration: 2, compute_util: 0.5, memory_util: {L2: 0.5, DRAM: 0.1}}\n"
        "- {name: B, ops: 300, bytes: {L2: 200, DRAM: null}}\n",
    )
    w = load(path)
    np.testing.assert_allclose(w.arrays.level_util[0], [0.5, 0.1])
    np.testing.assert_allclose(w.arrays.level_bytes[0], [0.5 * 40 * 2, 0.1 * 10 * 2])
    assert w.arrays.level_bytes[1, 0] == 200 and math.isnan(w.arrays.level_bytes[1, 1])  # unknown, not 0


def test_a_plain_number_is_the_farthest_level(tmp_path):
    path = _write(tmp_path, HEAD + "phases:\n- {name: A, ops: 300, bytes: 20}\n")
    w = load(path, machine=HIERARCHY)  # an old one-level file on a machine with levels
    assert w.arrays.level_bytes[0, 1] == 20 and math.isnan(w.arrays.level_bytes[0, 0])


def test_old_files_load_unchanged_and_one_level_writes_as_before():
    w = load(DATA / "figure-8.yaml")
    assert len(w.machine.level_names) == 1
    text = dumps(w)
    assert "levels" not in text and "peak_bandwidth:" in text and "memory_name:" in text
    assert "levels" not in dumps(w, "json")


def test_a_machine_with_levels_writes_them_once(tmp_path):
    w = cw.Workload([cw.Phase("A", ops=300, bytes={"L2": 200, "DRAM": 20})], machine=HIERARCHY)
    text = dumps(w)
    assert "  levels:\n    L2: 40.0\n    DRAM: 10.0\n" in text
    assert "peak_bandwidth" not in text and "memory_name" not in text  # the farthest level is both
    assert "  bytes:\n    L2: 200.0\n    DRAM: 20.0\n" in text
    _same(load(save(w, tmp_path / "w.json")), w)


def test_a_preset_with_levels_and_a_new_farthest_bandwidth(tmp_path):
    path = _write(
        tmp_path,
        HEAD
        + "machine: {preset: a100-sxm-80gb-levels, peak_bandwidth: 1.0e12}\nphases:\n- {name: A, ops: 1, bytes: 1}\n",
    )
    m = load(path).machine
    base = cw.presets.machine("a100-sxm-80gb-levels")
    assert m.level_names == base.level_names and m.bandwidths[:-1] == base.bandwidths[:-1]
    assert m.peak_bandwidth == 1.0e12 and m.peak_compute == base.peak_compute
    replaced = _write(
        tmp_path,
        HEAD
        + "machine: {preset: h100-sxm, levels: {L2: 7.0e12, HBM: 3.35e12}}\nphases:\n- {name: A, ops: 1, bytes: 1}\n",
        "levels.yaml",
    )
    m = load(replaced).machine
    assert m.level_names == ("L2", "HBM") and m.peak_compute == cw.presets.machine("h100-sxm").peak_compute


def test_presets_with_levels_and_fp16_have_their_cited_figures():
    a100 = cw.presets.machine("a100-sxm-80gb-levels")
    assert a100.memory_levels == (("L2", 5120 * 1.41e9), ("HBM", 2039e9))  # whitepaper L2 B/clk × boost clock
    assert a100.peak_compute == cw.presets.machine("a100-sxm-80gb").peak_compute
    fp16 = cw.presets.machine("H100 SXM FP16")
    assert (fp16.peak_compute, fp16.peak_bandwidth) == (989.5e12, 3.35e12)
    # the entries that were there before keep one level and their numbers
    for name in ("h100-sxm", "a100-sxm-80gb", "h200-sxm", "fusemax"):
        assert len(cw.presets.machine(name).level_names) == 1


def test_a_preset_with_levels_round_trips_by_value(tmp_path):
    w = cw.Workload(
        [cw.Phase("gemm", ops=2e12, bytes={"L2": 6e9, "HBM": 1e9})], machine=cw.presets.machine("a100-sxm-80gb-levels")
    )
    again = load(save(w, tmp_path / "w.yaml"))
    _same(again, w)
    assert list(again.arrays.bound_resource) == ["compute"]


# -- bad input: the phase, the level, the value and the line ----------------------------------------------


@pytest.mark.parametrize(
    "machine, phases, pattern, line",
    [
        (
            "  levels:\n    L2: 40\n    L2: 10\n",
            "- {name: A, ops: 1, bytes: 1}\n",
            r".*duplicate key 'L2' \(first on line 6\)",
            7,
        ),
        (
            "  levels:\n    L2: 0\n    DRAM: 10\n",
            "- {name: A, ops: 1, bytes: 1}\n",
            r"machine\.levels\.L2: memory level 'L2': bandwidth 0 must be > 0",
            6,
        ),
        (
            "  levels:\n    L2: -4\n    DRAM: 10\n",
            "- {name: A, ops: 1, bytes: 1}\n",
            r"machine\.levels\.L2: memory level 'L2': bandwidth -4 must be > 0",
            6,
        ),
        (
            "  levels:\n    L2: 40\n    DRAM: .nan\n",
            "- {name: A, ops: 1, bytes: 1}\n",
            r"machine\.levels\.DRAM: nan must be finite",
            7,
        ),
        (
            "  levels:\n    L2: 40\n    DRAM: null\n",
            "- {name: A, ops: 1, bytes: 1}\n",
            r"machine\.levels\.DRAM: memory level 'DRAM' has no bandwidth",
            7,
        ),
        (
            "  levels: []\n",
            "- {name: A, ops: 1, bytes: 1}\n",
            r"machine\.levels: \[\] must map memory level names to bandwidths",
            5,
        ),
        (
            "  memory_name: HBM\n  levels: {L2: 40, DRAM: 10}\n",
            "- {name: A, ops: 1, bytes: 1}\n",
            r"machine\.memory_name: 'HBM' differs from the farthest memory level 'DRAM'",
            5,
        ),
        (
            "  levels: {L2: 40, DRAM: 10}\n",
            "- {name: A, ops: 1, bytes: 1}\n- name: B\n  ops: 1\n  bytes:\n    L2: 4\n    L3: 7\n",
            r"phases\[1\]\.bytes\.L3: phase 'B': bytes for memory level 'L3' \(7\), but the machine "
            r"has no level 'L3'; it has 2 levels: L2, DRAM",
            12,
        ),
        (
            "  levels: {L2: 40, DRAM: 10}\n",
            "- name: A\n  duration: 1\n  memory_util:\n    HBM: 0.5\n",
            r"phases\[0\]\.memory_util\.HBM: phase 'A': memory_util for memory level 'HBM' \(0\.5\)",
            10,
        ),
        (
            "  levels: {L2: 40, DRAM: 10}\n",
            "- name: A\n  ops: 1\n  bytes:\n    L2: -3\n",
            r"phases\[0\]\.bytes\.L2: phase 'A': level 'L2': -3 must be >= 0",
            10,
        ),
        (
            "  levels: {L2: 40, DRAM: 10}\n",
            "- name: A\n  ops: 1\n  bytes: {}\n",
            r"phases\[0\]\.bytes: phase 'A': \{\} names no memory level",
            9,
        ),
    ],
)
def test_bad_levels_name_the_level_the_value_and_the_line(tmp_path, machine, phases, pattern, line):
    path = _write(tmp_path, HEAD + "machine:\n  peak_compute: 100\n" + machine + "phases:\n" + phases)
    with pytest.raises(WorkloadFileError, match=rf"w\.yaml:{line}: " + pattern) as info:
        load(path)
    assert info.value.line == line


def test_per_level_bytes_on_a_one_level_machine_name_its_level(tmp_path):
    path = _write(tmp_path, HEAD + "machine: h100-sxm\nphases:\n- {name: A, ops: 1, bytes: {L2: 4}}\n")
    with pytest.raises(WorkloadFileError, match=r"has no level 'L2'; it has one level, 'memory'") as info:
        load(path)
    assert info.value.line == 5 and info.value.field == "phases[0].bytes.L2"


def test_a_level_named_twice_in_json_is_refused(tmp_path):
    path = _write(
        tmp_path,
        '{"machine": {"peak_compute": 1, "levels": {"L2": 4, "L2": 2}}, "phases": [{"name": "A", "ops": 1}]}',
        "w.json",
    )
    with pytest.raises(WorkloadFileError, match="duplicate key 'L2'"):
        load(path)


# -- the round trip, over level counts ----------------------------------------------------------------------

_volume = st.one_of(st.none(), st.floats(min_value=0, max_value=1e12, allow_nan=False, allow_subnormal=False))


@st.composite
def _workloads(draw):
    n_levels = draw(st.integers(min_value=1, max_value=5))
    names = [f"L{k + 1}" for k in range(n_levels - 1)] + ["DRAM"]
    bandwidths = draw(
        st.lists(st.floats(min_value=1e3, max_value=1e13), min_size=n_levels, max_size=n_levels).map(
            lambda b: sorted(b, reverse=True)
        )
    )
    machine = cw.Machine(
        peak_compute=draw(st.floats(min_value=1e3, max_value=1e15)), levels=dict(zip(names, bandwidths))
    )
    phases = []
    for i in range(draw(st.integers(min_value=1, max_value=5))):
        after = (f"p{i - 1}",) if i and draw(st.booleans()) else ()
        ops = draw(st.floats(min_value=1, max_value=1e12, allow_subnormal=False))
        measured = draw(st.booleans())
        duration = draw(st.floats(min_value=1e-3, max_value=1e3)) if measured else None
        if draw(st.booleans()) or n_levels == 1:
            values = {level: draw(_volume) for level in names}
            if all(v is None for v in values.values()):
                values[names[-1]] = 1.0
            bytes_ = values if n_levels > 1 else values[names[-1]]
        else:
            bytes_ = draw(st.floats(min_value=0, max_value=1e12, allow_subnormal=False))
        phases.append(cw.Phase(f"p{i}", ops=ops, bytes=bytes_, duration=duration, after=after))
    return cw.Workload(phases, machine=machine, settings=draw(st.sampled_from([{}, {"tiles": 4}])))


@pytest.mark.filterwarnings("ignore::campaign_widget.UtilizationAboveOneWarning")  # random volumes, short durations
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(workload=_workloads(), suffix=st.sampled_from([".yaml", ".json"]))
def test_save_then_load_gives_the_same_workload(tmp_path, workload, suffix):
    again = load(save(workload, tmp_path / f"w{suffix}"))
    _same(again, workload)
    assert dumps(again) == dumps(workload)
