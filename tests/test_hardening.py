"""Issue 9, "Nothing lost, nothing hangs": one test (or a few) per numbered defect of the model, io/ and CLI.

Each was run against the code before its fix and failed there (see the commit messages).
"""

import gzip
import json
import math
import os
import resource
import signal
import time
from pathlib import Path

import numpy as np
import pytest

import campaign_widget.io._common as io_common
from campaign_widget import CampaignWidgetError, Ceiling, Machine, Phase, Workload, WorkloadError, atomic, fusion, graph
from campaign_widget.cli import main
from campaign_widget.io import WorkloadFileError, load, save

DATA = Path(__file__).parent / "data"
FIG8 = DATA / "figure-8.yaml"
M = Machine(1e12, 1e11, name="test")


def small():
    return Workload([Phase("a", ops=1e9, bytes=1e6), Phase("b", ops=2e9, bytes=3e6, after=["a"])], machine=M)


def big():
    return Workload([Phase(f"phase {i}", ops=1e9 + i, bytes=1e6 + i) for i in range(300)], machine=M)


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- defect 1: a failed save destroys the file it replaces -------------------------------------------------


@pytest.fixture
def file_size_limit():
    """Writes past ``limit`` bytes fail with EFBIG (RLIMIT_FSIZE), as on a full disk, in this process only."""
    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    def set_limit(limit):
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, old_limit[1]))

    try:
        yield set_limit
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_handler)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_defect1_an_io_error_mid_save_leaves_the_old_file_byte_for_byte(tmp_path, file_size_limit, suffix):
    path = save(small(), tmp_path / f"w{suffix}")
    before = path.read_bytes()
    file_size_limit(len(before) + 100)  # the new document is ~20 kB: its write fails part way
    with pytest.raises(OSError) as caught:
        save(big(), path)
    file_size_limit(resource.RLIM_INFINITY)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no temporary file left behind


def test_defect1_a_lone_surrogate_in_a_name_never_destroys_a_saved_file(tmp_path):
    path = save(small(), tmp_path / "w.json")
    before = path.read_bytes()
    with pytest.raises((WorkloadError, TypeError)) as caught:
        save(Workload([Phase("x\ud800", ops=1, bytes=1)], machine=M), path)
    assert "surrogate" in str(caught.value)
    assert path.read_bytes() == before


def test_defect1_a_document_that_cannot_be_encoded_is_refused_naming_the_path(tmp_path, monkeypatch):
    from campaign_widget.io import schema

    path = save(small(), tmp_path / "w.json")
    before = path.read_bytes()
    monkeypatch.setattr(schema, "dumps", lambda workload, fmt: '{"name": "x\ud800"}')
    with pytest.raises(WorkloadFileError, match=r"w\.json.*nothing written.*'\\ud800'"):
        save(small(), path)
    assert path.read_bytes() == before


def test_defect1_atomic_write_keeps_the_old_file_on_any_error_and_names_the_path(tmp_path):
    from campaign_widget.atomic import atomic_path, atomic_write, write_atomic

    target = tmp_path / "out.bin"
    write_atomic(target, b"old")
    os.chmod(target, 0o640)
    with pytest.raises(ZeroDivisionError):
        with atomic_write(target) as f:
            f.write(b"new, half")
            raise ZeroDivisionError("a bug in the writer")
    assert target.read_bytes() == b"old"
    with pytest.raises(ValueError):
        with atomic_path(target) as temp:
            temp.write_bytes(b"drawn")
            raise ValueError("the drawing failed")
    assert target.read_bytes() == b"old"
    write_atomic(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert (target.stat().st_mode & 0o777) == 0o640  # an existing file keeps its permissions
    with pytest.raises(IsADirectoryError) as caught:
        write_atomic(tmp_path, b"x")
    assert caught.value.filename == str(tmp_path)
    with pytest.raises(FileNotFoundError) as caught:
        write_atomic(tmp_path / "missing" / "x.bin", b"x")
    assert caught.value.filename == str(tmp_path / "missing" / "x.bin")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]


def test_defect1_cli_render_failure_keeps_the_old_output(tmp_path, capsys, monkeypatch):
    import campaign_widget.static_figure as static_figure

    out = tmp_path / "fig.svg"
    out.write_bytes(b"<svg>old</svg>")

    def half_then_fail(workload, path, **kwargs):
        Path(path).write_bytes(b"<svg>half")
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(static_figure, "save_workload_figure", half_then_fail)
    code, _, err = run_cli(capsys, "render", FIG8, "-o", out)
    assert code == 1 and str(out) in err and "No space left" in err
    assert out.read_bytes() == b"<svg>old</svg>"
    assert [p.name for p in tmp_path.iterdir()] == ["fig.svg"]


# -- defect 8: wrong types silently misread ------------------------------------------------------------------


def test_defect8_wrong_types_raise_type_errors_naming_field_and_value():
    with pytest.raises(TypeError, match=r"after='AB'"):
        Workload.from_arrays(["A", "B", "AB"], ops=[1, 1, 1], bytes=[1, 1, 1], after=[[], [], "AB"], machine=M)
    w = Workload(
        [
            Phase("a", ops=1, bytes=1, reads={"x": 1}, writes={"y": 1}),
            Phase("b", ops=1, bytes=1, reads={"y": 1}, writes={"z": 1}),
        ],
        machine=M,
    )
    with pytest.raises(TypeError, match=r"'g'.*'ab'"):
        w.fuse({"g": "ab"})
    with pytest.raises(TypeError, match=r"tileable='false'"):
        Phase("a", ops=1, bytes=1, tileable="false")
    with pytest.raises(TypeError, match=r"element_bytes='4'"):
        Workload.from_einsums({"z": "Z[m] = A[m] * B[m]"}, {"m": 4}, machine=M, element_bytes="4")
    with pytest.raises((TypeError, WorkloadError), match=r"'m'"):
        Workload.from_einsums({"z": "Z[m] = A[m] * B[m]"}, {"m": 1.5}, machine=M)


# -- defect 9: nothing invalid exists ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Machine(1, 1, name=5), r"name=5"),
        (lambda: Machine(1, 1, name="a\x00b"), r"NUL"),
        (lambda: Machine(1, 1, compute_name=""), r"compute_name"),
        (lambda: Machine(1, 1, compute_name="x", memory_name="x"), r"both 'x'"),
        (lambda: Machine(1, 1, ceilings=(Ceiling("c", compute=-1.0),)), r"compute=-1\.0"),
        (lambda: Machine(1, 1, ceilings=(Ceiling("c", bandwidth=math.nan),)), r"bandwidth=nan"),
        (lambda: Machine(1, 1, ceilings=(Ceiling("c", compute=2.0), Ceiling("c", compute=3.0))), r"two ceilings"),
        (lambda: Machine(1, 1, ceilings="fast"), r"ceilings='fast'"),
        (lambda: Workload.from_arrays([""], ops=[1], bytes=[1], machine=M), r"''"),
        (lambda: Workload([Phase("a", ops=1, bytes=1)], machine=M, settings={"tiles": 0}), r"tiles=0"),
        (lambda: Workload([Phase("a", ops=1, bytes=1)], machine=M, settings={"policy": "bogus"}), r"'bogus'"),
    ],
)
def test_defect9_invalid_machines_and_settings_are_refused_where_made(make, match):
    with pytest.raises((TypeError, ValueError), match=match):
        make()


# -- defect 11: degenerate numbers -------------------------------------------------------------------------


@pytest.mark.parametrize("peak", ["5e-324", "1.7e308", "1e31"])
def test_defect11_degenerate_peaks_are_refused_in_one_line(capsys, peak):
    code, out, err = run_cli(capsys, "summary", FIG8, "--peak-compute", peak)
    assert code in (1, 2) and out == ""
    assert len(err.splitlines()) == 1 and "peak" in err and "Traceback" not in err


def test_defect11_a_roofline_render_at_huge_peaks_is_a_one_line_error(capsys, tmp_path):
    code, _, err = run_cli(
        capsys,
        "render",
        FIG8,
        "--peak-compute",
        "1.7e308",
        "--peak-bandwidth",
        "1.7e308",
        "--roofline",
        "-o",
        tmp_path / "x.png",
    )
    assert code in (1, 2) and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "x.png").exists()


def test_defect11_durations_that_vanish_or_overflow_are_refused():
    with pytest.raises(WorkloadError, match=r"duration"):
        Phase("a", duration=1e-300, compute_util=0.5, memory_util=0.5)
    with pytest.raises(WorkloadError, match=r"out of range"):
        Machine(5e-324, 1.0)
    with pytest.raises(WorkloadError, match=r"below the smallest duration"):
        Workload([Phase("a", ops=1e-40, bytes=0)], machine=Machine(1e12, 1e12))
    with pytest.raises(WorkloadError, match=r"out of range"):
        Phase("a", ops=10**400, bytes=1)
    # the smallest durations still pipeline into many tiles without a division by zero
    w = Workload(
        [
            Phase("a", duration=1e-30, compute_util=0.5, memory_util=0.5),
            Phase("b", duration=1e-30, compute_util=0.5, memory_util=0.5, after=["a"]),
        ],
        machine=M,
    )
    s = w.schedule(tiles=10_000, pipeline=True)  # no ZeroDivisionError, no NaN
    assert math.isfinite(s.makespan) and s.makespan < 3e-30
    # events are told apart relative to the shortest tile, not within an absolute 1e-12: the pipelined
    # pair takes (tiles + 1) tiles of 1e-34, as the same workload in seconds takes (tiles + 1) × 1e-4
    assert s.makespan == pytest.approx(10_001 * 1e-34, rel=1e-9)


def test_defect11_nul_and_lone_surrogates_in_names_are_refused():
    for bad in ("a\x00", "x\ud800"):
        with pytest.raises(WorkloadError):
            Phase(bad, ops=1, bytes=1)
        with pytest.raises(WorkloadError):
            Phase("a", reads={bad: 1})
        with pytest.raises(WorkloadError):
            Machine(1, 1, name=bad)
        with pytest.raises(WorkloadError):
            Workload.from_arrays([bad], ops=[1], bytes=[1], machine=M)


# -- defect 2: YAML alias bombs; messages bounded ------------------------------------------------------------

HEAD = "format: campaign-workload\nmachine: {peak_compute: 1.0e12, peak_bandwidth: 1.0e11}\n"


def cpu_seconds(f):
    start = time.process_time()
    try:
        return f(), time.process_time() - start
    except Exception as e:  # noqa: BLE001 - returned for the caller to check
        return e, time.process_time() - start


def test_defect2_a_yaml_alias_bomb_is_refused_at_once(tmp_path):
    rows = ["- &a0 [x, x, x, x, x, x, x, x, x]"]
    rows += [f"- &a{k} [" + ", ".join([f"*a{k - 1}"] * 9) + "]" for k in range(1, 9)]
    path = tmp_path / "bomb.yaml"
    path.write_text(HEAD + "phases:\n" + "\n".join(rows) + "\n")
    assert len(path.read_bytes()) < 1000
    error, seconds = cpu_seconds(lambda: load(path))
    assert isinstance(error, WorkloadFileError), error
    assert str(error).startswith(f"{path}:") and "YAML aliases expand to over 100,000 nodes" in str(error)
    assert "malformed" not in str(error) and len(str(error)) < 400
    assert seconds < 2


def test_defect2_messages_never_format_a_whole_value(tmp_path):
    path = tmp_path / "w.yaml"
    shared = "[" + ", ".join(["x" * 1000] * 50) + "]"
    path.write_text(HEAD + f"phases: &p [{{name: a, ops: {shared}, bytes: 1}}]\nsettings: {{tiles: *p}}\n")
    error, _ = cpu_seconds(lambda: load(path))
    assert isinstance(error, WorkloadFileError) and len(str(error)) < 400, error


# -- defect 3: unbounded work from small files ---------------------------------------------------------------


def test_defect3_devices_folders_and_pipes_are_refused(tmp_path):
    error, seconds = cpu_seconds(lambda: load("/dev/zero"))
    assert isinstance(error, WorkloadFileError) and "regular file" in str(error) and seconds < 1
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    error, _ = cpu_seconds(lambda: load(fifo))
    assert isinstance(error, WorkloadFileError) and str(fifo) in str(error)


def test_defect3_einsum_csv_dependencies_in_waves_are_bounded(tmp_path):
    rows = ["Einsum,runtime,Compute_Utilization,Memory_Utilization,Starting_Time,End_Time"]
    n = 2400  # two waves of 1200 overlapping phases: 1.44e6 inferred dependencies
    rows += [f"a{i},1,0.5,0.5,{i % 2},{10 + i % 2}" for i in range(n // 2)]
    rows += [f"b{i},1,0.5,0.5,{20 + i % 2},{30 + i % 2}" for i in range(n // 2)]
    path = tmp_path / "waves.csv"
    path.write_text("\n".join(rows) + "\n")
    error, seconds = cpu_seconds(lambda: load(path, machine=M))
    assert isinstance(error, WorkloadFileError), error
    assert "1,440,000 dependencies" in str(error) and "limit" in str(error)
    assert seconds < 5


def test_defect3_a_sequence_in_an_einsum_csv_stays_linear(tmp_path):
    rows = ["Einsum,runtime,Compute_Utilization,Memory_Utilization,Starting_Time,End_Time"]
    rows += [f"e{i},1,0.5,0.5,{i},{i + 1}" for i in range(20_000)]
    path = tmp_path / "sequence.csv"
    path.write_text("\n".join(rows) + "\n")
    w = load(path, machine=M)
    indptr, indices = w.producers
    assert len(w) == 20_000 and indices.size == 19_999


def test_defect3_a_gzip_of_whitespace_and_a_huge_event_are_bounded(tmp_path):
    gz = tmp_path / "blank.json.gz"
    gz.write_bytes(gzip.compress(b" " * (64 << 20)))
    error, seconds = cpu_seconds(lambda: load(gz, machine=M, format="pytorch-trace"))
    assert isinstance(error, WorkloadFileError) and str(gz) in str(error) and seconds < 5
    big = tmp_path / "event.json"
    big.write_text(
        '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 0, "dur": 1, '
        '"args": {"x": "' + "a" * (40 << 20) + '"}}]}'
    )
    error, seconds = cpu_seconds(lambda: load(big, machine=M))
    assert isinstance(error, WorkloadFileError) and "limit for one trace event" in str(error), error
    assert seconds < 5


def test_defect3_grouping_a_trace_by_annotation_is_not_quadratic(tmp_path):
    events = [{"ph": "X", "cat": "user_annotation", "name": "outer", "ts": 0, "dur": 10**8, "pid": 1, "tid": 1}]
    n = 30_000
    events += [
        {"ph": "X", "cat": "user_annotation", "name": f"step {i % 3}", "ts": 10 * i, "dur": 2, "pid": 1, "tid": 1}
        for i in range(n)
    ]
    events += [
        {"ph": "X", "cat": "cpu_op", "name": "op", "ts": 10 * i + 5, "dur": 1, "pid": 1, "tid": 1} for i in range(n)
    ]
    events += [
        {"ph": "X", "cat": "cpu_op", "name": "op", "ts": 10 * i + 1, "dur": 1, "pid": 1, "tid": 1}
        for i in range(0, n, 2)
    ]
    path = tmp_path / "annotated.json"
    path.write_text(json.dumps({"traceEvents": events}))
    from campaign_widget.io import read_torch_trace

    w, seconds = cpu_seconds(lambda: read_torch_trace(path, machine=M, group_by="annotation", warn=False))
    assert isinstance(w, Workload), w
    events_of = {p.name: p.events for p in w.import_report.phases}
    assert events_of == {"outer": n, "step 0": 5000, "step 1": 5000, "step 2": 5000}
    assert seconds < 20


def test_defect3_pathological_einsum_strings_parse_in_linear_time():
    from campaign_widget.model.einsum import parse

    for spec in ["Z[m] = " + "A[" * 5000, "Z[m] = " + "a" * 9000, "Z" + "a" * 9000 + " = A[m]"]:
        error, seconds = cpu_seconds(lambda spec=spec: parse("x", spec))
        assert isinstance(error, WorkloadError) and len(str(error)) < 300 and seconds < 0.5, (error, seconds)
    error, _ = cpu_seconds(lambda: parse("x", "Z[m] = " + "A[m] * " * 5000))
    assert isinstance(error, WorkloadError) and "limit" in str(error)


# -- defect 4: tracebacks instead of one-line errors ---------------------------------------------------------


TRACE_EVENT = {
    "ph": "X",
    "cat": "cpu_op",
    "name": "aten::conv2d",
    "ts": 0,
    "dur": 1,
    "pid": 1,
    "tid": 1,
    "args": {
        "Input Dims": [[1, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], []],
        "Input type": ["float", "float", "", "", "", "", ""],
        "Concrete Inputs": ["", "", "", "0", "0", "1", "1"],
    },
}


@pytest.mark.parametrize(
    "name, text",
    [
        ("digits.yaml", HEAD + "phases:\n- name: a\n  ops: " + "9" * 400 + "\n  bytes: 1\n"),
        ("digits5000.yaml", HEAD + "phases:\n- name: a\n  ops: " + "9" * 5000 + "\n  bytes: 1\n"),
        (
            "digits.json",
            '{"format": "campaign-workload", "phases": [{"name": "a", "ops": ' + "9" * 400 + ', "bytes": 1}]}',
        ),
        ("deep.json", '{"format": "campaign-workload", "phases": ' + "[" * 100_000 + "]" * 100_000 + "}"),
        ("deep.yaml", HEAD + "phases: " + "[" * 100_000 + "]" * 100_000 + "\n"),
        ("deep-block.yaml", HEAD + "phases:\n" + "- " * 100_000 + "x\n"),
        (
            "cell.csv",
            "Einsum,runtime,Compute_Utilization,Memory_Utilization,Starting_Time,End_Time\n"
            + "a" * 200_000
            + ",1,0.5,0.5,0,1\n",
        ),
        ("pid.json", json.dumps({"traceEvents": [{**TRACE_EVENT, "pid": [1]}]})),
        ("stride.json", json.dumps({"traceEvents": [TRACE_EVENT]})),
        (
            "ncu.csv",
            '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Section Name",'
            '"Metric Name","Metric Unit","Metric Value"\n'
            '"²","1","p","h","k","1","7","Command line profiler metrics","gpu__time_duration.sum","nsecond","100"\n'
            '"3","1","p","h","k","1","7","Command line profiler metrics","gpu__time_duration.sum","nsecond","100"\n',
        ),
        (
            "stats.txt",
            "Buffer and Arithmetic Levels\n---\nLevel 0\n=== MAC ===\n\nSummary Stats\n---\nCycles: 1.2.3\n"
            "Computes = 10\n",
        ),
    ],
    ids=lambda value: value if len(value) < 40 else "",
)
def test_defect4_hostile_files_give_one_error_naming_the_file(tmp_path, capsys, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result, seconds = cpu_seconds(lambda: load(path, machine=M, **({"clock": 1e9} if name.endswith(".txt") else {})))
    assert seconds < 5
    if isinstance(result, Workload):  # stride 0: the convolution's FLOPs are unknown, not a crash
        assert name in ("stride.json", "pid.json", "ncu.csv")
        if name == "stride.json":
            assert result.import_report.phases[0].flops == "unknown"
        if name == "ncu.csv":  # "²" is a digit to str.isdigit but not to int(): kept as a text ID
            assert result.names == ["k #3", "k #²"]
        return
    assert isinstance(result, WorkloadFileError), repr(result)
    assert str(path) in str(result) and len(str(result)) < 500
    extra = ["--clock", "1G"] if name.endswith(".txt") else ["--machine", "h100-sxm"]
    code, out, err = run_cli(capsys, "summary", path, *extra)
    assert code == 1 and len(err.splitlines()) == 1 and str(path) in err, err


def test_defect4_a_list_pid_is_counted_as_malformed_not_a_crash(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": [{**TRACE_EVENT, "pid": [1]}, {**TRACE_EVENT, "ts": 5}]}))
    w = load(path, machine=M, warn=False)
    assert w.import_report.skipped["malformed"] == 1 and len(w) == 1


# -- defect 10: terminal escapes -----------------------------------------------------------------------------


def test_defect10_the_cli_escapes_control_characters_in_everything_it_prints(tmp_path, capsys):
    nasty = "A\x1b]0;owned\x07\x1b[2J\u202e\x9b"
    path = tmp_path / "w.json"
    save(Workload([Phase(nasty, ops=1e9, bytes=1e6)], machine=Machine(1e12, 1e11, name="m\x1b[31m")), path)
    code, out, err = run_cli(capsys, "summary", path)
    assert code == 0
    for text in (out, err):
        assert not any(ord(c) < 32 and c != "\n" or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in text)
    assert "A\\x1b]0;owned\\x07\\x1b[2J\\u202e\\x9b" in out and "m\\x1b[31m" in out
    bad = tmp_path / "bad\x1b[2J.yaml"
    bad.write_text("phases: [\n")
    code, _, err = run_cli(capsys, "summary", bad)
    assert code == 1 and "\x1b" not in err and "bad\\x1b[2J.yaml" in err


# -- defect 11 (files and CLI): degenerate numbers -------------------------------------------------------------


def test_defect11_nan_counts_in_timeloop_stats_and_a_null_tensor_key_are_errors(tmp_path):
    stats = (DATA / "importers" / "timeloop-conv1d-2level-os" / "timeloop-model.stats.txt").read_text()
    lines = [ln.split(":")[0] + ": nan" if "Scalar reads (per-instance)" in ln else ln for ln in stats.splitlines()]
    nan = tmp_path / "timeloop-model.stats.txt"
    nan.write_text("\n".join(lines) + "\n")
    with pytest.raises(
        WorkloadFileError,
        match=r"timeloop-model.stats.txt:151: MainMemory.Weights.Scalar reads: 'nan' must be a finite number",
    ):
        load(nan, clock=1e9)
    null = tmp_path / "w.yaml"
    null.write_text(HEAD + "phases:\n- name: a\n  ops: 1\n  reads: {null: 4}\n")
    with pytest.raises(WorkloadFileError, match=r"w\.yaml:6: phases\[0\]\.reads \(a tensor name\): missing name"):
        load(null)


def test_defect11_the_cli_reads_timeloop_stats_with_a_clock(capsys):
    stats = DATA / "importers" / "timeloop-conv1d-2level-os" / "timeloop-model.stats.txt"
    code, _, err = run_cli(capsys, "summary", stats)
    assert code == 1 and "--clock" in err
    code, out, _ = run_cli(capsys, "summary", stats, "--clock", "1G")
    assert code == 0 and "48 ns" in out  # 48 cycles at 1 GHz
    code, _, err = run_cli(capsys, "summary", FIG8, "--clock", "1G")
    assert code == 2 and "Timeloop" in err


# -- defects 5 and 6: zero ops or bytes on the roofline (the model side) ---------------------------------------


def test_defect6_verdicts_for_no_work_and_memory_only_phases_agree_with_the_table():
    from campaign_widget.model.roofline import workload_roofline

    m = Machine(1e12, 1e11)
    w = Workload(
        [
            Phase("idle", duration=1.0, ops=0, bytes=0),
            Phase("copy", ops=0, bytes=1e11),  # memory only, at 100% bandwidth (its duration is 1 s)
            Phase("copy, slow", duration=4.0, ops=0, bytes=1e11),
            Phase("math", ops=1e12, bytes=0),
            Phase("gemm", duration=2.0, ops=1e12, bytes=1e10),
        ],
        machine=m,
    )
    r = workload_roofline(w)
    table = w.table()
    np.testing.assert_array_equal(r.efficiency, table["efficiency"])
    np.testing.assert_array_equal(r.intensity, table["intensity"])
    assert list(r.regime) == ["no work", "memory-bound", "memory-bound", "compute-bound", "compute-bound"]
    assert "vectorization" not in r.guidance[0] and "No ops and no bytes" in r.guidance[0]
    assert r.efficiency[1] == 1.0 and r.guidance[1].startswith("Near roof")
    assert r.efficiency[2] == 0.25 and r.guidance[2].startswith("Below roof: fix memory")
    assert r.efficiency[3] == 1.0 and r.guidance[3].startswith("Near roof")
    assert list(r.placement) == ["none", "zero", "zero", "infinite", "finite"]
    assert list(r.edge_labels) == ["no ops or bytes", "OI 0", "OI 0", "OI ∞", ""]


def test_defect6_roofline_efficiency_is_the_table_efficiency_for_any_volumes():
    from campaign_widget.model.roofline import workload_roofline

    rng = np.random.default_rng(9)
    for _ in range(20):
        n = 6
        ops = rng.choice([0.0, 1e3, 1e9, 1e12], n)
        nbytes = rng.choice([0.0, 1e2, 1e8, 1e11], n)
        duration = np.where((ops == 0) & (nbytes == 0), 1.0, np.where(rng.random(n) < 0.5, np.nan, 3.0))
        w = Workload.from_arrays([f"p{i}" for i in range(n)], ops=ops, bytes=nbytes, duration=duration, machine=M)
        r = workload_roofline(w)
        np.testing.assert_array_equal(r.efficiency, w.table()["efficiency"])
        bound = w.table()["bound"]
        for regime, b in zip(r.regime, bound):  # the two agree except at the ridge (table says "balanced")
            assert b == "balanced" or regime == "no work" or regime.startswith(b)


def test_defect5_axis_limits_and_positions_are_finite_when_ops_or_bytes_are_zero():
    from campaign_widget.model.roofline import schedule_roofline, workload_roofline

    cases = [
        [Phase("relu", duration=1e-3, ops=0, bytes=1e6), Phase("add", duration=2e-3, ops=0, bytes=4e6)],  # CPU trace
        [Phase("math", ops=1e12, bytes=0)],
        [Phase("idle", duration=1.0, ops=0, bytes=0)],
    ]
    for phases in cases:
        w = Workload(phases, machine=M)
        r = workload_roofline(w)
        total = schedule_roofline(w, w.schedule())
        x_lo, x_hi, y_lo, y_hi = r.axis_limits(total.intensity)
        for value in (x_lo, x_hi, y_lo, y_hi):
            assert math.isfinite(value) and value > 0
        assert x_lo < r.ridge < x_hi and y_lo < y_hi
        x, y = r.plot_position(x_lo, x_hi, y_lo)
        drawn = r.placement != "none"
        assert np.all(np.isfinite(x[drawn])) and np.all(np.isfinite(y[drawn]))
        assert np.all((x[drawn] >= x_lo) & (x[drawn] <= x_hi))
        assert np.all(np.isnan(x[~drawn]))


def test_defect5_the_cli_summarizes_a_workload_with_no_ops(tmp_path, capsys):
    path = save(
        Workload(
            [
                Phase("relu", duration=1e-3, ops=0, bytes=1e8),
                Phase("idle", duration=1e-3, ops=0, bytes=0, after=["relu"]),
            ],
            machine=M,
        ),
        tmp_path / "w.yaml",
    )
    code, out, err = run_cli(capsys, "summary", path)
    assert code == 0 and "Traceback" not in err
    relu = next(line for line in out.splitlines() if line.startswith("relu"))
    idle = next(line for line in out.splitlines() if line.startswith("idle"))
    assert "memory-bound" in relu and "100.0%" in relu and "Near roof" in relu
    assert "no work" in idle and "n/a" in idle


# == Issue 20, "Nothing silently wrong": one test (or a few) per numbered class ============================


def _read_only_writers(tmp_path):
    from campaign_widget.atomic import atomic_path, atomic_write, write_atomic
    from campaign_widget.static_figure import save_workload_figure

    def through_path(path):
        with atomic_path(path) as temporary:
            temporary.write_text("new")

    def through_file(path):
        with atomic_write(path, "w") as handle:
            handle.write("new")

    return {
        "save": lambda path: save(small(), path.with_suffix(".yaml")),
        "write_atomic": lambda path: write_atomic(path, "new"),
        "atomic_write": through_file,
        "atomic_path": through_path,
        "savefig": lambda path: save_workload_figure(small(), path.with_suffix(".svg")),
        "cli render": lambda path: main(["render", str(FIG8), "-o", str(path.with_suffix(".png"))]),
    }


@pytest.mark.parametrize("writer", ["save", "write_atomic", "atomic_write", "atomic_path", "savefig", "cli render"])
def test_class15_every_writer_refuses_a_read_only_file_and_says_so(tmp_path, capsys, writer):
    write = _read_only_writers(tmp_path)[writer]
    suffix = {"save": ".yaml", "savefig": ".svg", "cli render": ".png"}.get(writer, ".txt")
    path = tmp_path / f"kept{suffix}"
    path.write_bytes(b"keep me")
    path.chmod(0o444)
    try:
        result = write(path)
    except PermissionError as error:
        assert str(path) in str(error) and "read-only" in str(error)
    else:  # the CLI reports the error as one line and a non-zero status
        err = capsys.readouterr().err
        assert result != 0 and str(path) in err and "read-only" in err, err
    assert path.read_bytes() == b"keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


_KILLED_WRITER = """
import os, sys
from campaign_widget.atomic import atomic_write
with atomic_write(sys.argv[1], "w") as handle:
    handle.write("half of it")
    handle.flush()
    if sys.argv[2] == "die":
        os.kill(os.getpid(), 9)
    sys.stdin.readline()  # stays between write and rename until told to go on
"""


def test_class16_the_next_write_removes_the_temporary_files_of_killed_writers(tmp_path):
    import subprocess
    import sys

    from campaign_widget.atomic import write_atomic

    target = tmp_path / "out.txt"
    left_by = []
    for _ in range(2):  # each killed writer removed the one before it, and left its own
        killed = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(target), "die"], check=False)
        assert killed.returncode == -9
        left_by.append(sorted(p.name for p in tmp_path.iterdir()))
    assert len(left_by[0]) == len(left_by[1]) == 1 and left_by[0] != left_by[1]
    waiting = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(target), "wait"], stdin=subprocess.PIPE, text=True
    )
    try:
        for _ in range(200):  # until the live writer's temporary file exists
            if len(list(tmp_path.iterdir())) == 3:
                break
            time.sleep(0.05)
        (tmp_path / ".other.txt.1-00000000-00000000.tmp").write_text("another target's")
        write_atomic(target, "whole")
        left = sorted(p.name for p in tmp_path.iterdir())
        assert target.read_text() == "whole"
        assert len(left) == 3 and f".out.txt.{waiting.pid}-" in left[1], left  # the live writer's stays
    finally:
        waiting.communicate("go\n", timeout=30)
    assert waiting.returncode == 0 and target.read_text() == "half of it"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.txt.1-00000000-00000000.tmp", "out.txt"]


@pytest.mark.parametrize(
    "label", ["", "a\x00b", "x\ud800", "x" * 100_000, 7], ids=["empty", "nul", "surrogate", "100000", "int"]
)
def test_class17_fusion_group_labels_are_checked_where_they_are_made(tmp_path, label):
    from campaign_widget.model.fusion import mark_groups

    w = Workload(
        [Phase("a", ops=1e9, writes={"t": 1e6}), Phase("b", ops=1e9, reads={"t": 1e6}, writes={"u": 1e6})],
        machine=M,
    )
    for make in (lambda: w.fuse({label: ["a", "b"]}), lambda: mark_groups(w, {"a": label})):
        with pytest.raises((WorkloadError, TypeError), match="fusion group label") as caught:
            make()
        assert len(str(caught.value)) < 300
    fused = w.fuse({"kept": ["a", "b"]})
    assert load(save(fused, tmp_path / "w.yaml")).fusion_groups == ("kept",)


def test_class21_a_long_dependency_cycle_is_named_in_a_bounded_message():
    n = 3000
    phases = [Phase(f"p{i}", ops=1, bytes=1, after=[f"p{(i - 1) % n}"]) for i in range(n)]
    with pytest.raises(WorkloadError, match=r"\+2,990 more") as caught:
        Workload(phases, machine=M)
    assert len(str(caught.value)) < 400
    assert "'p1' -> 'p2'" in str(caught.value)


def test_class21_a_long_cycle_made_by_a_fusion_group_is_named_in_a_bounded_message():
    n = 400  # grouping the two ends of a chain makes a cycle through every phase between them
    phases = [Phase("p0", ops=1, bytes=1, writes={"t": 1})]
    phases += [Phase(f"p{i}", ops=1, bytes=1, after=[f"p{i - 1}"]) for i in range(1, n - 1)]
    phases += [Phase(f"p{n - 1}", ops=1, reads={"u": 1}, writes={"v": 1}, after=[f"p{n - 2}"])]
    w = Workload(phases, machine=M)
    with pytest.raises(WorkloadError, match="cycle between groups") as caught:
        w.fuse({"ends": ["p0", f"p{n - 1}"]})
    assert len(str(caught.value)) < 600 and "more" in str(caught.value)


def test_class21_an_unknown_preset_name_in_a_file_is_quoted_bounded(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(f"machine: {'x' * 800_000}\nphases:\n  - {{name: a, ops: 1, bytes: 1}}\n")
    with pytest.raises(WorkloadFileError, match="unknown machine preset") as caught:
        load(path)
    assert len(str(caught.value)) < 2000 and "h100" in str(caught.value).lower()


def test_class18_a_folder_a_nul_and_an_io_error_are_named_by_their_path(tmp_path):
    from campaign_widget.io import read_nsight_csv, read_torch_trace

    for read in (load, read_torch_trace, read_nsight_csv):
        with pytest.raises((WorkloadFileError, IsADirectoryError)) as caught:
            read(tmp_path)
        assert str(tmp_path) in str(caught.value) and "3:" not in str(caught.value), str(caught.value)
    with pytest.raises(WorkloadFileError, match="NUL") as caught:
        load(str(tmp_path / "a\x00b.yaml"))
    assert "a\\x00b.yaml" in str(caught.value)
    for write in (lambda: load("x\ud800.yaml"), lambda: atomic.write_atomic(tmp_path / "x\ud800", b"x")):
        with pytest.raises(CampaignWidgetError, match="no file name") as caught:
            write()
        assert "\\ud800" in str(caught.value)
    if Path("/proc/self/mem").exists():  # a regular file by its mode whose read fails with EIO
        with pytest.raises(OSError) as caught:
            load("/proc/self/mem")
        assert "/proc/self/mem" in str(caught.value)


@pytest.mark.parametrize("path", [None, 3, 2.5, ["w.yaml"]])
def test_class19_load_of_what_is_no_path_names_the_argument_and_the_value(path):
    with pytest.raises(TypeError, match=r"path=.* must be a file path"):
        load(path)


def test_class13_an_einsum_csv_header_naming_a_column_twice_is_refused(tmp_path):
    from campaign_widget.io.checks import header_columns
    from campaign_widget.io.source import Source

    path = tmp_path / "e.csv"
    path.write_text("Einsum,runtime,runtime\na,1,2\n")
    source = Source(path)
    with pytest.raises(WorkloadFileError, match=r"column 'runtime' appears twice \(fields 2 and 3\)") as caught:
        header_columns(source, ["Einsum", "runtime", "runtime"], 1)
    assert str(path) in str(caught.value)
    assert header_columns(source, ["Einsum", "x", "x"], 1, used={"Einsum", "runtime"}) == {"Einsum": 0, "x": 1}


@pytest.mark.parametrize("percent", ["yes", "false", 1, None])
def test_class13_truthy_values_are_not_taken_as_on_off_options(tmp_path, percent):
    from campaign_widget.io import read_sdfg, schema
    from campaign_widget.io.source import Source

    with pytest.raises(TypeError, match=r"percent=.* must be True or False"):
        schema.read(Source(FIG8), percent=percent)
    with pytest.raises(TypeError, match=r"percent=.* must be True or False"):
        read_sdfg(DATA / "sdfg" / "jacobi_2d.sdfgz", percent=percent)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: save(small(), None), TypeError, "path=None must be a file path"),
        (lambda: save(3, "w.yaml"), TypeError, "expected a Workload, got int"),
        (lambda: atomic.write_atomic(None, "x"), TypeError, "path=None"),
        (
            lambda: atomic.write_atomic("a\x00b", "x"),
            CampaignWidgetError,
            "NUL",
        ),
        (lambda: fusion.fuse(3, {}), TypeError, "workload=3"),
        (lambda: small().fuse(5), TypeError, "groups=5"),
        (lambda: small().fuse({"g": [1]}), TypeError, "1 is not a phase name"),
        (lambda: graph.interval_dependencies(["a"], [1]), TypeError, "start="),
        (
            lambda: graph.interval_dependencies([0, 1], [1]),
            WorkloadError,
            "2 start",
        ),
        (
            lambda: graph.interval_dependencies([math.nan], [1]),
            WorkloadError,
            "start",
        ),
        (lambda: graph.interval_dependencies([2], [1]), WorkloadError, "before"),
        (lambda: io_common.parse_number(3), TypeError, "text=3"),
        (lambda: io_common.Source("w.yaml", raw="text"), TypeError, "raw='text'"),
    ],
)
def test_class19_each_public_function_of_the_model_and_io_names_the_argument_and_the_value(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_class21_a_foreign_readers_phase_error_names_the_field_as_the_file_spells_it(tmp_path):
    from campaign_widget.io.checks import make_phase
    from campaign_widget.io.source import Source

    path = tmp_path / "c.yaml"
    path.write_text("cascade: {}\n")
    with pytest.raises(WorkloadFileError, match=r"c\.yaml:3: phase 'k': bw_util=-2 ") as caught:
        make_phase(
            Source(path), 3, "k", duration=1, compute_util=0.5, memory_util=-2, spelled={"memory_util": "bw_util"}
        )
    assert "memory_util" not in str(caught.value)


def test_class9_a_file_that_grows_while_read_is_refused_within_its_size_bound(tmp_path, monkeypatch):
    import tracemalloc

    from campaign_widget.io import source as source_module

    limit = 4 << 20
    path = tmp_path / "growing.yaml"
    path.write_bytes(b"#" * (2 * limit))
    real_fstat = os.fstat

    def stale_fstat(fd):  # the size seen at open: 100 bytes; the file then holds far more
        info = real_fstat(fd)
        return os.stat_result((*info[:6], 100, *info[7:]))

    monkeypatch.setattr(source_module, "MAX_FILE_BYTES", limit)
    monkeypatch.setattr(source_module.os, "fstat", stale_fstat)
    tracemalloc.start()
    try:
        with pytest.raises(WorkloadFileError, match="over 4,194,304 bytes"):
            source_module.Source(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * limit, f"{peak:,} bytes at peak for a bound of {limit:,}"


def test_class9_a_gzip_bomb_read_whole_is_refused_within_its_size_bound(tmp_path):
    import tracemalloc

    from campaign_widget.io._common import open_binary
    from campaign_widget.io.source import Source

    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gzip.compress(b" " * (32 << 20)))
    limit = 8 << 20
    for source in (None, Source(path)):
        tracemalloc.start()
        try:
            stream = open_binary(str(path), source, None if source else path, limit=limit)
            with pytest.raises(WorkloadFileError, match="over 8,388,608 bytes"):
                stream.read()
            stream.close()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 1.5 * limit, f"{peak:,} bytes at peak for a bound of {limit:,}"
