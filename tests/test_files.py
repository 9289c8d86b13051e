"""Workload files (campaign_widget.io) and machine presets: round trips, foreign formats, errors."""

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from workloads import figure_2b, two_phases

from campaign_widget import Ceiling, Machine, Phase, Workload, WorkloadError, presets
from campaign_widget import io as files
from campaign_widget.io import WorkloadFileError, load, save, schema
from campaign_widget.io.source import parse_yaml
from campaign_widget.model.graph import interval_dependencies

DATA = Path(__file__).parent / "data"
SUFFIXES = [".yaml", ".yml", ".json"]


def producer_names(w):
    indptr, indices = w.producers
    return {name: [w.names[j] for j in indices[indptr[i] : indptr[i + 1]]] for i, name in enumerate(w.names)}


def assert_same(a, b):
    """Bit-for-bit equality of everything a file holds."""
    assert a.names == b.names
    for key in ("ops", "bytes", "duration"):
        np.testing.assert_array_equal(getattr(a.arrays, key), getattr(b.arrays, key), err_msg=key)
    np.testing.assert_array_equal(a.measured, b.measured)
    np.testing.assert_array_equal(a.tileable, b.tileable)
    assert producer_names(a) == producer_names(b)
    assert a.machine == b.machine
    assert a.settings == b.settings
    for key, value in a.table().items():
        np.testing.assert_array_equal(value, b.table()[key], err_msg=key)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def diamond():
    """A DAG with odd names, mixed measured/analytical phases, a fixed phase and awkward floats."""
    m = Machine(
        peak_compute=1.7e3,
        peak_bandwidth=0.3,
        name="NoC × core",
        compute_name="core",
        memory_name="network",
        ops_unit="instr",
        bytes_unit="flit",
        time_unit="cycles",
        ceilings=(Ceiling("scalar", compute=100.0), Ceiling("one link", bandwidth=0.1), Ceiling("both", 1, 0.01)),
    )
    return Workload(
        [
            Phase("1e5", ops=0.1 + 0.2, bytes=1 / 3),
            Phase("yes", duration=7, compute_util=0.3, memory_util=2 / 3, after=["1e5"]),
            Phase("null: µ-kernel #1", ops=5e-324, bytes=1.7976931348623157e308 * 1e-300, after="1e5", tileable=False),
            Phase("[x], {y}", duration=1e16, ops=12345678901234567890, bytes=0, after=["yes", "null: µ-kernel #1"]),
        ],
        machine=m,
        settings={"tiles": 1, "policy": "throttle", "depth": 3, "pipeline": False},
    )


WORKLOADS = {
    "figure-8 file": lambda: load(DATA / "figure-8.yaml"),
    "seed 002 file": lambda: load(DATA / "seed002-kernels.json"),
    "no machine": two_phases,
    "diamond": diamond,
    "preset": lambda: Workload(
        [Phase("k", ops=1e12, bytes=1e9)],
        machine=presets.machine("fusemax-mamba"),
        settings={"tiles": 8, "pipeline": True, "policy": "dilate+throttle", "depth": 2},
    ),
}


# -- round trips ---------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("which", list(WORKLOADS))
def test_save_then_load_gives_back_the_same_workload_bit_for_bit(tmp_path, which, suffix):
    w = WORKLOADS[which]()
    path = save(w, tmp_path / f"w{suffix}")
    assert path == tmp_path / f"w{suffix}"
    again = load(path)
    assert_same(w, again)
    assert_same(again, load(save(again, tmp_path / f"again{suffix}")))
    assert (tmp_path / f"again{suffix}").read_text() == path.read_text()


@pytest.mark.filterwarnings("ignore::campaign_widget.UtilizationAboveOneWarning")
@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 1e30, allow_subnormal=True),
            st.floats(0, 1e30, allow_subnormal=True),
            st.one_of(st.none(), st.floats(1e-30, 1e30)),
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(SUFFIXES),
)
def test_round_trip_holds_for_any_volumes_and_durations(tmp_path_factory, rows, suffix):
    phases = []
    for i, (ops, bytes_, duration, tileable) in enumerate(rows):
        if duration is None and max(ops / 3.3e12, bytes_ / 7.7e11) < 1e-30:  # a derived duration is >= 1e-30
            ops = 1.0
        phases.append(
            Phase(
                f"p{i}",
                ops=ops,
                bytes=bytes_,
                duration=duration,
                tileable=tileable,
                after=[f"p{j}" for j in range(i) if (i + j) % 2],
            )
        )
    w = Workload(phases, machine=Machine(3.3e12, 7.7e11))
    path = tmp_path_factory.mktemp("rt") / f"w{suffix}"
    assert_same(w, load(save(w, path)))


def test_yaml_is_written_readable_with_a_header_format_and_version(tmp_path):
    text = save(load(DATA / "figure-8.yaml"), tmp_path / "w.yaml").read_text()
    assert text.startswith("# campaign_widget workload")
    assert "\nformat: campaign-workload\nversion: 1\n" in text
    assert "  after: [A]\n" in text
    doc = json.loads(save(load(DATA / "figure-8.yaml"), tmp_path / "w.json").read_text())
    assert (doc["format"], doc["version"]) == ("campaign-workload", 1)
    assert [p["name"] for p in doc["phases"]] == ["A", "B"]


def test_save_refuses_an_unknown_suffix(tmp_path):
    with pytest.raises(WorkloadFileError, match=r"w\.txt: unknown suffix '\.txt'.*\.yaml, \.yml or \.json"):
        save(load(DATA / "figure-8.yaml"), tmp_path / "w.txt")
    assert not (tmp_path / "w.txt").exists()


# -- our schema, read by hand --------------------------------------------------------------------


def test_hand_written_yaml_reads_utilizations_settings_and_reproduces_the_paper():
    w = load(DATA / "figure-8.yaml")
    assert w.names == ["A", "B"]
    assert w.settings == {"tiles": 4, "pipeline": True, "policy": "dilate+throttle"}
    assert w.machine.peak_compute == 51.2e12 and w.machine.ceilings == (Ceiling("FP64 (non-tensor)", 25.6e12),)
    np.testing.assert_allclose(w.arrays.compute_util, [0.7, 0.2])
    np.testing.assert_allclose(w.arrays.memory_util, [0.6, 0.9])
    # docs/semantics.md#reference-numbers, from the file's settings
    assert w.schedule().makespan == pytest.approx(11.35, abs=1e-9)
    assert w.schedule(pipeline=False, tiles=1).makespan == pytest.approx(13)


def test_json_reads_volumes_a_preset_machine_and_tileable():
    w = load(DATA / "seed002-kernels.json")
    assert w.machine.peak_compute == 200e9 and w.machine.ridge_point == 4
    np.testing.assert_allclose(w.arrays.duration, [24e9 / 50e9, 400e9 / 200e9, 40])
    assert list(w.measured) == [False, False, True]
    assert list(w.tileable) == [True, True, False]
    assert producer_names(w) == {"saxpy": [], "gemm-blocked": ["saxpy"], "gemm-naive": ["saxpy"]}


def test_machine_may_be_a_preset_name_or_preset_with_overrides(tmp_path):
    path = write(tmp_path, "w.yaml", "machine: H100 SXM\nphases:\n  - {name: A, ops: 67e12, bytes: 1e9}\n")
    w = load(path)
    assert w.machine == presets.machine("h100-sxm")
    assert w.arrays.duration[0] == pytest.approx(1.0)
    path = write(
        tmp_path,
        "w.yaml",
        "machine: {preset: a100-sxm-80gb, time_unit: ms, peak_bandwidth: 1.5e12}\n"
        "phases:\n  - {name: A, ops: 1, bytes: 1}\n",
    )
    m = load(path).machine
    assert (m.peak_compute, m.peak_bandwidth, m.time_unit) == (19.5e12, 1.5e12, "ms")
    assert m.ceilings == presets.machine("a100-sxm-80gb").ceilings


def test_load_with_a_machine_reads_utilizations_as_fractions_of_its_peaks():
    m = presets.machine("seed002-example")
    w = load(DATA / "figure-10-cascade.yaml", machine="seed002-example")
    assert w.machine == m
    np.testing.assert_allclose(w.arrays.ops, [0.2 * 200e9 * 5, 0.3 * 200e9 * 10, 0.8 * 200e9 * 5])
    np.testing.assert_allclose(w.arrays.bytes, [0.8 * 50e9 * 5, 0.6 * 50e9 * 10, 0.25 * 50e9 * 5])
    np.testing.assert_allclose(w.arrays.compute_util, [0.2, 0.3, 0.8])


# -- the paper authors' cascade YAML ----------------------------------------------------------------


def test_authors_cascade_yaml_is_a_chain_and_reproduces_figure_10():
    w = load(DATA / "figure-10-cascade.yaml")
    assert files.detect(DATA / "figure-10-cascade.yaml").name == "cascade-yaml"
    assert w.names == ["EinsumA", "EinsumB", "EinsumC"]
    assert producer_names(w) == {"EinsumA": [], "EinsumB": ["EinsumA"], "EinsumC": ["EinsumB"]}
    np.testing.assert_allclose(w.arrays.duration, [5, 10, 5])
    np.testing.assert_allclose(w.arrays.compute_util, [0.2, 0.3, 0.8])
    np.testing.assert_allclose(w.arrays.memory_util, [0.8, 0.6, 0.25])
    assert w.schedule().makespan == 20
    assert w.schedule(tiles=4, pipeline=True, policy="dilate+throttle").makespan == pytest.approx(13.125, abs=1e-9)


def test_authors_cascade_in_percent_and_with_their_kernel_state_keys(tmp_path):
    path = write(
        tmp_path,
        "c.yaml",
        "cascade:\n  name: pct\n  kernels:\n"
        "    - {name: EinsumA, duration: 3, compute_util: 70, bw_util: 25, start: 0}\n"
        "    - {name: EinsumB, duration: 10, compute_util: 20, bw_util: 90, throttled_duration: 0}\n",
    )
    w = load(path, percent=True)
    np.testing.assert_allclose(w.arrays.compute_util, [0.7, 0.2])
    np.testing.assert_allclose(w.arrays.memory_util, [0.25, 0.9])


# -- CSV exports -------------------------------------------------------------------------------------


def test_csv_phases_follow_starting_time_and_overlaps_are_not_dependencies():
    w = load(DATA / "einsums.csv")
    assert files.detect(DATA / "einsums.csv").name == "einsum-csv"
    assert w.names == ["X", "Y1", "Y2", "W", "Z"]
    assert producer_names(w) == {"X": [], "Y1": ["X"], "Y2": ["X"], "W": ["Y1", "Y2"], "Z": ["W"]}
    np.testing.assert_allclose(w.arrays.duration, [3, 6, 4, 4, 2])
    np.testing.assert_allclose(w.arrays.compute_util, [0.7, 0.2, 0.5, 0.3, 0.6])
    np.testing.assert_allclose(w.arrays.memory_util, [0.25, 0.9, 0.1, 0.3, 0.4])
    assert w.schedule().makespan == pytest.approx(19)


def test_csv_in_percent(tmp_path):
    text = (DATA / "einsums.csv").read_text()
    lines = text.splitlines()
    lines[1] = "Z,2,2,40,60,800,13,15,last"
    w = load(write(tmp_path, "pct.csv", "\n".join(lines[:2]) + "\n"), percent=True)
    np.testing.assert_allclose([w.arrays.compute_util[0], w.arrays.memory_util[0]], [0.6, 0.4])


def test_interval_dependencies_chain_overlap_and_rounding():
    assert interval_dependencies([0, 1, 2], [1, 2, 3]) == [[], [0], [1]]
    assert interval_dependencies([0, 0], [1, 1]) == [[], []]
    assert interval_dependencies([0, 1.0000000001], [1.0000000002, 2]) == [[], [0]]  # within rtol
    assert interval_dependencies([0, 0, 2, 5], [2, 4, 5, 6]) == [[], [], [0], [1, 2]]


# -- recognition by content, and the registry ---------------------------------------------------------


@pytest.mark.parametrize(
    "name, new_name",
    [
        ("figure-8.yaml", "w.txt"),
        ("figure-10-cascade.yaml", "c.dat"),
        ("einsums.csv", "e.txt"),
        ("seed002-kernels.json", "j.yaml"),
    ],
)
def test_formats_are_recognized_by_content_not_suffix(tmp_path, name, new_name):
    shutil.copy(DATA / name, tmp_path / new_name)
    assert_same(load(DATA / name), load(tmp_path / new_name))


def test_sniffers_do_not_parse_a_file_that_does_not_mention_their_keys(tmp_path):
    class NoParse(files.Source):
        def document(self):
            raise AssertionError("parsed the whole file to sniff it")

    trace = NoParse(write(tmp_path, "trace.json", '{"traceEvents": [' + ", ".join(['{"ph": "X"}'] * 1000) + "]}"))
    assert not any(f.sniff(trace) for f in files.formats() if f.name in ("campaign-workload", "cascade-yaml"))
    ours = NoParse(DATA / "figure-8.yaml")
    with pytest.raises(AssertionError):
        schema.sniff(ours)


def test_a_registered_format_is_read_by_load(tmp_path):
    def sniff(source):
        return source.head().startswith("#toy")

    def read(source, *, machine=None, percent=False):
        rows = [line.split() for line in source.text.splitlines()[1:] if line.strip()]
        return Workload(
            [Phase(n, duration=float(d), compute_util=float(c), memory_util=float(m)) for n, d, c, m in rows],
            machine=machine,
        )

    files.register_format("toy", sniff, read, suffixes=(".toy",), description="#toy lines")
    try:
        w = load(write(tmp_path, "w.anything", "#toy\nA 3 0.7 0.6\nB 10 0.2 0.9\n"))
        assert w.names == ["A", "B"] and list(w.arrays.duration) == [3, 10]
        assert "toy" in [f.name for f in files.formats()]
        with pytest.raises(ValueError, match="already registered"):
            files.register_format("toy", sniff, read)
    finally:
        files.unregister_format("toy")
    with pytest.raises(WorkloadFileError, match="not a workload file"):
        load(tmp_path / "w.anything")


def test_a_reader_that_returns_no_workload_is_a_clear_error(tmp_path):
    files.register_format("broken", lambda source: source.head().startswith("#broken"), lambda source, **_: None)
    try:
        with pytest.raises(TypeError, match=r"w\.x: the reader of format 'broken' returned NoneType"):
            load(write(tmp_path, "w.x", "#broken\n"))
    finally:
        files.unregister_format("broken")


def test_files_no_format_recognizes_fall_back_only_to_fallback_formats(tmp_path):
    files.register_format("txt-claimer", lambda source: False, lambda source, **_: None, suffixes=(".txt",))
    try:
        with pytest.raises(WorkloadFileError, match=r"w\.txt: not a workload file"):
            load(write(tmp_path, "w.txt", "hello: world\n"))
    finally:
        files.unregister_format("txt-claimer")
    # our own YAML reader reads a .yaml nothing recognizes, to say what is missing
    with pytest.raises(WorkloadFileError, match=r"w\.yaml:1: unknown key 'hello' in the top level"):
        load(write(tmp_path, "w.yaml", "hello: world\n"))


# -- errors: file, line, field, value ----------------------------------------------------------------


def test_malformed_yaml_names_the_file_and_line(tmp_path):
    path = write(tmp_path, "bad.yaml", "phases:\n  - name: A\n    duration: 3\n   compute_util: [0.5\n")
    with pytest.raises(WorkloadFileError, match=r"bad\.yaml:4: malformed YAML") as info:
        load(path)
    assert info.value.line == 4 and info.value.path == str(path)


def test_malformed_json_names_the_file_and_line(tmp_path):
    path = write(tmp_path, "bad.json", '{\n  "phases": [\n    {"name": "A" "duration": 3}\n  ]\n}\n')
    with pytest.raises(WorkloadFileError, match=r"bad\.json:3: malformed JSON: Expecting ',' delimiter"):
        load(path)


def test_duplicate_yaml_key_is_an_error_with_both_lines(tmp_path):
    path = write(tmp_path, "dup.yaml", "phases:\n  - name: A\n    duration: 3\n    duration: 4\n")
    with pytest.raises(WorkloadFileError, match=r"dup\.yaml:4: .*duplicate key 'duration' \(first on line 3\)"):
        load(path)


@pytest.mark.parametrize(
    "text, line, key",
    [
        ("format: campaign-workload\nphase:\n  - {name: A, ops: 1, bytes: 1}\n", 2, "phase"),
        ("phases:\n  - name: A\n    ops: 1\n    byte: 1\n", 4, "byte"),
        (
            "machine:\n  peak_compute: 1\n  peak_bandwith: 1\nphases: [{name: A, ops: 1, bytes: 1}]\n",
            3,
            "peak_bandwith",
        ),
        ("settings:\n  tile: 4\nphases: [{name: A, ops: 1, bytes: 1}]\n", 2, "tile"),
    ],
)
def test_unknown_keys_name_the_key_the_file_and_the_line(tmp_path, text, line, key):
    path = write(tmp_path, "typo.yaml", text)
    with pytest.raises(WorkloadFileError, match=rf"typo\.yaml:{line}: unknown key '{key}'.*did you mean") as info:
        load(path)
    assert info.value.line == line


def test_unknown_keys_in_json_name_the_key_and_the_file(tmp_path):
    path = write(tmp_path, "typo.json", json.dumps({"phases": [{"name": "A", "ops": 1, "bytes": 1, "tilable": 1}]}))
    with pytest.raises(WorkloadFileError, match=r"typo\.json: unknown key 'tilable' in phases\[0\]"):
        load(path)


def test_unknown_key_in_authors_cascade(tmp_path):
    path = write(tmp_path, "c.yaml", "cascade:\n  kernels:\n    - name: A\n      duration: 3\n      cu: 1\n")
    with pytest.raises(WorkloadFileError, match=r"c\.yaml:5: unknown key 'cu' in cascade\.kernels\[0\]"):
        load(path)


def test_non_numeric_value_names_file_line_field_and_value(tmp_path):
    path = write(tmp_path, "w.yaml", "machine: seed002-example\nphases:\n  - name: A\n    ops: 2e9\n    bytes: 12 GB\n")
    with pytest.raises(WorkloadFileError, match=r"w\.yaml:5: phases\[0\]\.bytes: '12 GB' is not a number") as info:
        load(path)
    assert info.value.field == "phases[0].bytes"


def test_yaml_exponent_floats_without_a_dot_are_numbers(tmp_path):
    w = load(
        write(
            tmp_path,
            "w.yaml",
            "machine: {peak_compute: 2e11, peak_bandwidth: 5E+10}\nphases: [{name: A, ops: 4e11, bytes: 1e9}]\n",
        )
    )
    assert w.machine.peak_compute == 2e11 and w.machine.peak_bandwidth == 5e10
    assert w.arrays.duration[0] == 2.0


def test_csv_missing_column_names_the_file_and_the_column(tmp_path):
    text = (DATA / "einsums.csv").read_text().replace("runtime", "run_time")
    with pytest.raises(
        WorkloadFileError,
        match=r"e\.csv:1: header: missing column 'runtime' "
        r"\(did you mean 'run_time'\?\)",
    ) as info:
        load(write(tmp_path, "e.csv", text))
    assert info.value.line == 1


def test_csv_non_numeric_value_names_the_file_line_column_and_value(tmp_path):
    lines = (DATA / "einsums.csv").read_text().splitlines()
    lines[3] = lines[3].replace(",6,", ",fast,", 1)  # row Y1, line 4 of the file
    with pytest.raises(WorkloadFileError, match=r"e\.csv:4: column 'runtime': 'fast' is not a number") as info:
        load(write(tmp_path, "e.csv", "\n".join(lines) + "\n"))
    assert (info.value.line, info.value.field) == (4, "column 'runtime'")


def test_csv_line_numbers_count_quoted_newlines(tmp_path):
    text = (
        "Einsum,runtime,Compute_Utilization,Memory_Utilization,Starting_Time,End_Time,Notes\n"
        'A,1,0.5,0.5,0,1,"two\nlines"\n'
        "B,1,0.5,half,1,2,\n"
    )
    with pytest.raises(WorkloadFileError, match=r"e\.csv:4: column 'Memory_Utilization': 'half' is not a number"):
        load(write(tmp_path, "e.csv", text))


@pytest.mark.parametrize(
    "row, message",
    [
        ("X,1,3,0.25,0.70,750,0,3,dup", r"e\.csv:7: duplicate phase name 'X' \(first on line 3\)"),
        ("Q,1,3,0.25,0.70,750,5,4,", r"e\.csv:7: column 'End_Time': End_Time 4\.0 is before Starting_Time 5\.0"),
        ("Q,1,0,0.25,0.70,750,5,6,", r"e\.csv:7: phase 'Q': runtime=0\.0 must be > 0"),
        ("Q,1,nan,0.25,0.70,750,5,6,", r"e\.csv:7: column 'runtime': 'nan' must be finite"),
        ("Q,1,3,0.25,0.70,750,5", r"e\.csv:7: column 'End_Time': the row has 7 fields; column 'End_Time' is field 8"),
    ],
)
def test_csv_bad_rows(tmp_path, row, message):
    text = (DATA / "einsums.csv").read_text() + row + "\n"
    with pytest.raises(WorkloadFileError, match=message):
        load(write(tmp_path, "e.csv", text))


def test_csv_with_a_header_only(tmp_path):
    with pytest.raises(WorkloadFileError, match=r"e\.csv:1: no phases"):
        load(write(tmp_path, "e.csv", (DATA / "einsums.csv").read_text().splitlines()[0] + "\n"))


def test_phase_errors_are_re_raised_with_file_and_line_and_the_whole_message(tmp_path):
    path = write(tmp_path, "w.yaml", "phases:\n  - name: A\n    duration: 2\n    compute_util: 0.5\n    ops: 4\n")
    with pytest.raises(WorkloadError) as original:
        Phase("A", duration=2, compute_util=0.5, ops=4)
    with pytest.raises(WorkloadFileError) as info:
        load(path)
    assert str(info.value) == f"{path}:2: {original.value}"
    assert info.value.__cause__ is not None


@pytest.mark.parametrize(
    "phases, with_machine, where",
    [
        ("\n  - {name: A, ops: 1, bytes: 1, after: B}\n  - {name: B, ops: 1, bytes: 1, after: A}", True, ""),
        ("\n  - {name: A, ops: 1, bytes: 1}\n  - {name: B, ops: 1, bytes: 1, after: [nope]}", True, ":4"),
        ("\n  - {name: A, ops: 1, bytes: 1}", False, ":2"),
    ],
)
def test_workload_errors_are_re_raised_with_the_file_name_and_the_whole_message(tmp_path, phases, with_machine, where):
    machine = "machine: seed002-example\n" if with_machine else ""
    path = write(tmp_path, "w.yaml", machine + "phases:" + phases + "\n")
    doc = parse_yaml(files.Source(path))
    expected_phases = [
        Phase(p["name"], ops=p["ops"], bytes=p["bytes"], after=p.get("after", ())) for p in doc["phases"]
    ]
    with pytest.raises(WorkloadError) as original:
        Workload(expected_phases, machine=presets.machine("seed002-example") if machine else None)
    with pytest.raises(WorkloadFileError) as info:
        load(path)
    assert str(info.value) == f"{path}{where}: {original.value}"  # the phase's line, when it names one


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "settings: {policy: squeeze}\nphases: [{name: A, ops: 1, bytes: 1}]\n",
            r"w\.yaml:1: settings\.policy: policy='squeeze' is not one of 'none', 'dilate', 'throttle', 'dilate\+throttle'",
        ),
        (
            "settings:\n  tiles: 0\nphases: [{name: A, ops: 1, bytes: 1}]\n",
            r"w\.yaml:2: settings\.tiles: tiles=0 must be",
        ),
        ("version: 2\nphases: [{name: A, ops: 1, bytes: 1}]\n", r"w\.yaml:1: version: this file is version 2"),
        ("format: other\nphases: []\n", r"w\.yaml:1: format: 'other' is not 'campaign-workload'"),
        (
            "machine: {peak_compute: 0, peak_bandwidth: 1}\nphases: [{name: A, ops: 1, bytes: 1}]\n",
            r"w\.yaml:1: machine \(unnamed\): peak_compute=0 must be a finite number > 0",
        ),
        (
            "machine: tpu-v9\nphases: [{name: A, ops: 1, bytes: 1}]\n",
            r"w\.yaml:1: machine: unknown machine preset 'tpu-v9'; known presets: h100-sxm, hopper-paper",
        ),
        (
            "phases:\n  - name: yes\n    ops: 1\n    bytes: 1\n",
            r"w\.yaml:2: phases\[0\]\.name: True must be a non-empty",
        ),
        ("phases:\n  - {ops: 1, bytes: 1}\n", r"w\.yaml:2: phases\[0\]\.name: missing name"),
        ("format: campaign-workload\n", r"w\.yaml:1: no 'phases' list"),
        ("phases:\n  - {name: A, ops: 1, bytes: 1, tileable: maybe}\n", r"w\.yaml:2: phases\[0\]\.tileable: 'maybe'"),
        ("phases:\n  - {name: A, ops: .nan, bytes: 1}\n", r"w\.yaml:2: phases\[0\]\.ops: nan must be finite"),
    ],
)
def test_schema_errors(tmp_path, text, message):
    with pytest.raises(WorkloadFileError, match=message):
        load(write(tmp_path, "w.yaml", text))


def test_unrecognized_content_and_bad_encoding(tmp_path):
    with pytest.raises(WorkloadFileError, match=r"w\.txt: not a workload file .*campaign-workload.*cascade-yaml"):
        load(write(tmp_path, "w.txt", "hello: world\n"))
    path = tmp_path / "w.yaml"
    path.write_bytes(b"phases:\n  - name: \xff\n")
    with pytest.raises(WorkloadFileError, match=r"w\.yaml:2: not UTF-8 text"):
        load(path)
    with pytest.raises(FileNotFoundError, match="missing.yaml"):
        load(tmp_path / "missing.yaml")


def test_percent_is_refused_for_our_own_format():
    with pytest.raises(WorkloadFileError, match="percent=True applies to foreign formats"):
        load(DATA / "figure-8.yaml", percent=True)


def test_workload_file_error_is_a_workload_error_and_a_value_error():
    e = WorkloadFileError("bad", path="f.yaml", line=3, field="phases[0].ops")
    assert isinstance(e, WorkloadError) and isinstance(e, ValueError)
    assert str(e) == "f.yaml:3: phases[0].ops: bad"


# -- presets ------------------------------------------------------------------------------------------


def test_presets_have_the_sourced_peaks():
    M = presets.MACHINES
    assert (M["h100-sxm"].peak_compute, M["h100-sxm"].peak_bandwidth) == (67e12, 3.35e12)
    assert (M["hopper-paper"].peak_compute, M["hopper-paper"].peak_bandwidth) == (51.2e12, 3.35e12)
    assert (M["h200-sxm"].peak_compute, M["h200-sxm"].peak_bandwidth) == (67e12, 4.8e12)
    assert (M["a100-sxm-80gb"].peak_compute, M["a100-sxm-80gb"].peak_bandwidth) == (19.5e12, 2039e9)
    assert M["fusemax"].peak_compute == 2 * 256 * 256 * 0.94e9 and M["fusemax"].peak_bandwidth == 400e9
    mamba = M["fusemax-mamba"]
    assert mamba.peak_compute == (2 * 256 * 256 + 256) * 1.75e9 and mamba.peak_bandwidth == 2039e9
    assert [c.compute for c in mamba.ceilings] == [2 * 256 * 256 * 1.75e9, 256 * 1.75e9]
    assert M["seed002-example"].ridge_point == 4
    names = [m.name for m in M.values()]
    assert len(set(names)) == len(names)


def test_hopper_paper_preset_gives_the_papers_figure_2b_throughputs():
    w = figure_2b(machine=presets.machine("hopper-paper"))
    np.testing.assert_allclose(np.round(w.arrays.ops / w.arrays.duration / 1e12, 1), [35.8, 10.2, 30.7])


@pytest.mark.parametrize("name", ["H100-SXM", "h100 sxm", "H100_SXM", " h100-sxm "])
def test_preset_lookup_ignores_case_and_separators(name):
    assert presets.machine(name) is presets.MACHINES["h100-sxm"]


def test_unknown_preset_lists_the_known_names():
    with pytest.raises(WorkloadError) as info:
        presets.machine("B200")
    assert "'B200'" in str(info.value)
    for name in presets.MACHINES:
        assert name in str(info.value)
    assert re.search(r"known presets: h100-sxm, ", str(info.value))


# -- the documentation's examples stay true ------------------------------------------------------------


def _doc_blocks(language):
    text = (Path(__file__).parent.parent / "docs" / "workload-files.md").read_text(encoding="utf-8")
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def test_docs_yaml_and_json_examples_describe_the_same_workload(tmp_path):
    yaml_example = _doc_blocks("yaml")[0]
    json_example, volumes_example = _doc_blocks("json")[:2]
    assert yaml_example == (DATA / "figure-8.yaml").read_text()
    from_yaml = load(write(tmp_path, "doc.yaml", yaml_example))
    from_json = load(write(tmp_path, "doc.json", json_example))
    assert_same(from_yaml, from_json)
    assert from_yaml.schedule().makespan == pytest.approx(11.35)
    assert_same(load(write(tmp_path, "vol.json", volumes_example)), load(DATA / "seed002-kernels.json"))
    cascade = _doc_blocks("yaml")[2]
    assert cascade in (DATA / "figure-10-cascade.yaml").read_text()
    csv_example = re.findall(
        r"```\n(Einsum,.*?)```",
        (Path(__file__).parent.parent / "docs" / "workload-files.md").read_text(encoding="utf-8"),
        flags=re.S,
    )
    assert csv_example == [(DATA / "einsums.csv").read_text()]


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_tensors_and_fusion_groups_round_trip(tmp_path, suffix):
    """A fused Einsum workload keeps its tensors (so it can be fused again) and its group labels."""
    einsums = {"A": "T1[m,n] = X[m,k] * W[k,n]", "B": "T2[m,n] = exp(T1[m,n])", "C": "Y[m,n] = T2[m,n] * T1[m,n]"}
    plain = Workload.from_einsums(
        einsums, {"m": 8, "n": 4, "k": 2}, machine=Machine(peak_compute=1e9, peak_bandwidth=1e8)
    )
    fused = plain.fuse({"AB": ["A", "B"]})
    back = load(save(fused, tmp_path / f"fused{suffix}"))
    assert back.tensors == fused.tensors
    assert back.fusion_groups == ("AB",) and list(back.fusion_group) == [0, 0, -1]
    np.testing.assert_array_equal(back.arrays.bytes, fused.arrays.bytes)
    again = load(save(plain, tmp_path / f"plain{suffix}")).fuse({"AB": ["A", "B"]})
    np.testing.assert_array_equal(again.arrays.bytes, fused.arrays.bytes)


def test_bad_tensor_map_names_file_line_and_field(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        "format: campaign-workload\nphases:\n  - name: A\n    ops: 1\n    duration: 1\n    reads: [X, 4]\n",
        encoding="utf-8",
    )
    with pytest.raises(WorkloadFileError, match=r"bad\.yaml:6.*phases\[0\]\.reads.*tensor names to bytes"):
        load(path)
