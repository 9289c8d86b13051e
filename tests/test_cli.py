"""The campaign-widget command: render, summary, and one-line errors with the right exit status."""

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from campaign_widget import POLICIES, presets
from campaign_widget.cli import _si, main
from campaign_widget.io import load
from campaign_widget.model.roofline import workload_roofline

DATA = Path(__file__).parent / "data"
FIG8 = str(DATA / "figure-8.yaml")
CASCADE = str(DATA / "figure-10-cascade.yaml")
CSV = str(DATA / "einsums.csv")
JSON = str(DATA / "seed002-kernels.json")
MAKESPAN = re.compile(r"^\s*(\*?)\s*(none|dilate|throttle|dilate\+throttle)\s+([0-9.]+) s\s+(.*)$", re.M)


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def makespans(out):
    return {m.group(2): float(m.group(3)) for m in MAKESPAN.finditer(out)}


def one_line_error(err):
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


# -- render -------------------------------------------------------------------------------------------


def _is_png(data):
    return data.startswith(b"\x89PNG\r\n\x1a\n") and b"IEND" in data[-16:]


def _is_pdf(data):
    return data.startswith(b"%PDF-") and b"%%EOF" in data[-32:]


def _is_svg(data):
    return ET.fromstring(data).tag == "{http://www.w3.org/2000/svg}svg"


@pytest.mark.parametrize("suffix, valid", [(".png", _is_png), (".svg", _is_svg), (".pdf", _is_pdf)])
@pytest.mark.parametrize("source", [FIG8, CSV])
def test_render_writes_a_valid_figure(capsys, tmp_path, suffix, valid, source):
    out_path = tmp_path / f"figure{suffix}"
    code, out, err = run(capsys, "render", source, "-o", out_path, "--roofline", "--title", "Figure 8")
    assert (code, err) == (0, "")
    assert out.strip() == f"wrote {out_path}"
    assert valid(out_path.read_bytes())


def test_render_passes_the_files_settings_and_the_overrides(capsys, tmp_path, monkeypatch):
    import campaign_widget.static_figure as static_figure

    calls = []

    def fake(workload, path, **kwargs):
        calls.append((workload, kwargs))
        Path(path).write_bytes(b"x")
        return Path(path)

    monkeypatch.setattr(static_figure, "save_workload_figure", fake)
    assert run(capsys, "render", FIG8, "-o", tmp_path / "a.png")[0] == 0
    workload, kwargs = calls[-1]
    assert kwargs == {
        "tiles": 4,
        "pipeline": True,
        "policy": "dilate+throttle",
        "depth": 2,
        "stepping": "event",
        "roofline": False,
        "title": None,
    }
    assert workload.machine.peak_compute == 51.2e12
    assert (
        run(
            capsys,
            "render",
            FIG8,
            "-o",
            tmp_path / "b.svg",
            "--tiles",
            "2",
            "--no-pipeline",
            "--policy",
            "throttle",
            "--depth",
            "3",
            "--peak-compute",
            "1T",
            "--peak-bandwidth",
            "2e12",
            "--roofline",
            "--title",
            "t",
        )[0]
        == 0
    )
    workload, kwargs = calls[-1]
    assert kwargs == {
        "tiles": 2,
        "pipeline": False,
        "policy": "throttle",
        "depth": 3,
        "stepping": "event",
        "roofline": True,
        "title": "t",
    }
    assert (workload.machine.peak_compute, workload.machine.peak_bandwidth) == (1e12, 2e12)
    np.testing.assert_array_equal(workload.arrays.ops, load(FIG8).arrays.ops)  # peaks move, volumes stay
    assert run(capsys, "render", CASCADE, "-o", tmp_path / "c.pdf", "--machine", "FuseMax")[0] == 0
    workload, _ = calls[-1]
    assert workload.machine == presets.machine("fusemax")
    np.testing.assert_allclose(workload.arrays.compute_util, [0.2, 0.3, 0.8])  # utilizations of FuseMax's peaks


# -- summary ------------------------------------------------------------------------------------------


def test_summary_prints_every_phase_and_every_policys_makespan_from_the_model(capsys):
    code, out, err = run(capsys, "summary", FIG8)
    assert (code, err) == (0, "")
    w = load(FIG8)
    expected = {p: w.schedule(policy=p).makespan for p in POLICIES}
    got = makespans(out)
    assert set(got) == set(POLICIES)
    for policy in POLICIES:
        assert got[policy] == pytest.approx(expected[policy], rel=1e-5), policy
    assert got["dilate+throttle"] == pytest.approx(11.35)  # docs/semantics.md#reference-numbers
    assert "infeasible: memory 150% demand" in out  # pipelined with no policy: the paper's 150%
    starred = [m.group(2) for m in MAKESPAN.finditer(out) if m.group(1)]
    assert starred == ["dilate+throttle"]  # the file's policy
    roof = workload_roofline(w)
    for i, name in enumerate(w.names):
        row = next(line for line in out.splitlines() if line.startswith(name + " "))
        cells = row.split()
        assert cells[1:3] == [f"{w.arrays.duration[i]:g}", "s"]
        assert f"{100 * w.arrays.compute_util[i]:.1f}%" in cells
        assert f"{100 * w.arrays.memory_util[i]:.1f}%" in cells
        assert f"{100 * roof.efficiency[i]:.1f}%" in cells
        assert roof.regime[i] in cells
        assert row.endswith(roof.guidance[i])
    assert "51.2 TFLOP/s" in out and "3.35 TB/s" in out


def test_summary_overrides_tiles_pipeline_policy_and_threshold(capsys):
    code, out, _ = run(
        capsys, "summary", CASCADE, "--tiles", "4", "--pipeline", "--policy", "dilate+throttle", "--threshold", "0.85"
    )
    assert code == 0
    got = makespans(out)
    w = load(CASCADE)
    for policy in POLICIES:
        assert got[policy] == pytest.approx(w.schedule(tiles=4, pipeline=True, policy=policy).makespan, rel=1e-5)
    assert got["dilate+throttle"] == pytest.approx(13.125)  # docs/semantics.md#reference-numbers
    assert "sequential 20 s" in out
    roof = workload_roofline(w, threshold=0.85)
    assert all(g.startswith("Below roof") for g in roof.guidance)  # efficiencies .8, .6, .8 < .85
    for name, guidance in zip(w.names, roof.guidance):
        assert any(line.startswith(name + " ") and line.endswith(guidance) for line in out.splitlines())
    code, out, _ = run(capsys, "summary", FIG8, "--tiles", "2", "--no-pipeline")
    assert set(makespans(out).values()) == {13.0}


def test_summary_with_a_preset_machine_and_peak_overrides(capsys):
    code, out, _ = run(capsys, "summary", JSON, "--peak-bandwidth", "100G")
    assert code == 0
    w = load(JSON).with_peaks(peak_bandwidth=100e9)
    assert "memory 100 GB/s" in out
    row = next(line for line in out.splitlines() if line.startswith("saxpy "))
    assert "240 ms" in row  # 24 GB at 100 GB/s, analytical
    assert makespans(out)["none"] == pytest.approx(w.schedule().makespan, rel=1e-5)


def test_summary_reads_csv_and_lists_machines(capsys):
    code, out, _ = run(capsys, "summary", CSV)
    assert code == 0
    for name in ("X", "Y1", "Y2", "W", "Z"):
        assert re.search(rf"^{name}\s", out, re.M)
    assert makespans(out)["none"] == pytest.approx(19)
    code, out, _ = run(capsys, "--list-machines")
    assert code == 0
    for key in presets.MACHINES:
        assert re.search(rf"^{key}\s", out, re.M)
    assert "123.2 Top/s" in out  # FuseMax: 2 · 256 · 256 · 0.94 GHz


def test_utilizations_above_one_are_one_line_warnings(capsys):
    code, out, err = run(capsys, "summary", FIG8, "--peak-bandwidth", "1T")
    assert code == 0 and "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 2
    assert all(line.startswith(f"campaign-widget: warning: {FIG8}: phase ") for line in lines)
    assert "memory utilization 3.015 > 1" in err


def test_si_formatting():
    assert _si(3.35e12, "B/s") == "3.35 TB/s"
    assert _si(4.8e-4, "s") == "480 µs"
    assert _si(1500, "cycles") == "1.5 k cycles"
    assert _si(999.99, "s") == "1 ks"
    assert _si(13.125, "s", 6) == "13.125 s"
    assert _si(0, "s") == "0 s"
    assert _si(0.5, "× peak") == "0.5 × peak"


# -- errors: one line, the right exit status -----------------------------------------------------------


def test_missing_file(capsys, tmp_path):
    code, out, err = run(capsys, "summary", tmp_path / "nope.yaml")
    assert code == 1 and out == ""
    assert one_line_error(err) == f"campaign-widget: error: {tmp_path / 'nope.yaml'}: No such file or directory"


def test_malformed_yaml_names_file_and_line(capsys, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("phases:\n  - name: A\n    duration: 3\n   compute_util: [0.5\n")
    code, _, err = run(capsys, "render", path, "-o", tmp_path / "x.png")
    assert code == 1
    assert one_line_error(err).startswith(f"campaign-widget: error: {path}:4: malformed YAML")
    assert not (tmp_path / "x.png").exists()


def test_bad_number_in_csv_names_file_line_and_column(capsys, tmp_path):
    lines = (DATA / "einsums.csv").read_text().splitlines()
    lines[3] = lines[3].replace(",6,", ",six,", 1)
    path = tmp_path / "e.csv"
    path.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "summary", path)
    assert code == 1
    assert one_line_error(err) == f"campaign-widget: error: {path}:4: column 'runtime': 'six' is not a number"


def test_bad_settings_in_the_file(capsys, tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text((DATA / "figure-8.yaml").read_text().replace("policy: dilate+throttle", "policy: squash"))
    code, _, err = run(capsys, "summary", path)
    assert code == 1
    assert re.fullmatch(
        rf"campaign-widget: error: {re.escape(str(path))}:\d+: settings\.policy: policy='squash' is not "
        r"one of 'none', 'dilate', 'throttle', 'dilate\+throttle'",
        one_line_error(err),
    )


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["summary", FIG8, "--policy", "squeeze"], "argument --policy: invalid choice: 'squeeze'"),
        (["summary", FIG8, "--peak-compute", "nan"], "argument --peak-compute: 'nan' must be a finite number > 0"),
        (["summary", FIG8, "--peak-compute", "0"], "argument --peak-compute: '0' must be a finite number > 0"),
        (["render", FIG8, "-o", "x.png", "--peak-bandwidth", "-1"], "argument --peak-bandwidth: '-1' must be"),
        (["summary", FIG8, "--peak-bandwidth", "fast"], "argument --peak-bandwidth: 'fast' is not a number"),
        (["render", FIG8, "-o", "x.gif"], "argument -o/--output: unknown suffix '.gif'"),
        (["render", FIG8], "required: -o/--output"),
        (["summary", FIG8, "--machine", "B200"], "unknown machine preset 'B200'; known presets: h100-sxm"),
        (["summary", FIG8, "--tiles", "0"], "argument --tiles: '0' must be >= 1"),
        (["summary", FIG8, "--threshold", "2"], "argument --threshold: '2' must be in (0, 1]"),
        ([], "give a command: render or summary"),
        (["draw", FIG8], "invalid choice: 'draw'"),
    ],
)
def test_usage_errors_exit_2_with_one_line_naming_the_option(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    line = one_line_error(err)
    assert line.startswith("campaign-widget")
    assert needle in line


def test_settings_the_workload_cannot_honour_exit_1(capsys):
    code, _, err = run(capsys, "summary", JSON, "--tiles", "4")
    assert code == 1
    assert one_line_error(err) == (
        f"campaign-widget: error: {JSON}: phase 'gemm-naive' is marked tileable=False and "
        "cannot be split into tiles=4; use tiles=1 or mark it tileable"
    )


def test_unwritable_output_exits_1(capsys, tmp_path):
    out_path = tmp_path / "no" / "such" / "dir" / "x.svg"
    code, _, err = run(capsys, "render", FIG8, "-o", out_path)
    assert code == 1
    line = one_line_error(err)
    assert line.startswith("campaign-widget: error: ") and "No such file or directory" in line


def test_help_exits_0(capsys):
    code, out, _ = run(capsys, "render", "--help")
    assert code == 0 and "--peak-compute" in out and "--roofline" in out


# -- the installed command ------------------------------------------------------------------------------


def _command():
    exe = shutil.which("campaign-widget")
    return [exe] if exe else [sys.executable, "-m", "campaign_widget.cli"]


def test_console_script_runs_and_fails_cleanly(tmp_path):
    ok = subprocess.run(
        _command() + ["summary", CASCADE, "--tiles", "4", "--pipeline"], capture_output=True, text=True, timeout=120
    )
    assert ok.returncode == 0, ok.stderr
    assert makespans(ok.stdout)["dilate+throttle"] == pytest.approx(13.125)
    bad = subprocess.run(
        _command() + ["summary", str(tmp_path / "missing.csv")], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 1 and bad.stdout == ""
    assert one_line_error(bad.stderr).endswith("missing.csv: No such file or directory")
    usage = subprocess.run(
        _command() + ["summary", CASCADE, "--policy", "x"], capture_output=True, text=True, timeout=120
    )
    assert usage.returncode == 2 and "--policy" in one_line_error(usage.stderr)


# -- what readers need, from the command line ---------------------------------------------------------------

SDFG = str(DATA / "sdfg" / "matmul_map.sdfgz")
SOL = str(DATA / "nsight" / "handmade-details-sol.log")
SPARSE = str(DATA / "timeloop" / "handmade-sparseloop.stats.txt")


def test_param_gives_an_sdfgs_sizes(capsys):
    code, out, err = run(capsys, "summary", SDFG, "--param", "M=4", "--param", "N=8", "--param", "K=16")
    assert code == 0, err
    workload = load(SDFG, params={"M": 4, "N": 8, "K": 16})
    assert f"sequential {_si(workload.arrays.duration.sum(), workload.machine.time_unit, 6)} " in out
    assert f"{len(workload)} phase" in out


def test_reader_advice_is_worded_in_flags(capsys):
    code, _, err = run(capsys, "summary", SDFG, "--param", "M=4")
    line = one_line_error(err)
    assert code == 1 and "pass --param K=... --param N=..." in line and "params=" not in line
    assert "--param: symbols" in line  # the error's field, an option, named as its flag
    code, _, err = run(capsys, "summary", SPARSE)
    line = one_line_error(err)
    assert code == 1 and "pass --machine NAME" in line and "machine=" not in line
    assert all(name in line for name in presets.MACHINES)
    code, _, err = run(capsys, "summary", SOL, "--option", "basis=counters")
    line = one_line_error(err)
    assert "pass --option require=duration,bytes" in line and "require=(" not in line


def test_a_machine_is_all_timeloop_needs(capsys):
    code, out, err = run(capsys, "summary", SPARSE, "--machine", "fusemax")
    assert code == 0, err
    assert "1 phase on FuseMax" in out


@pytest.mark.parametrize(
    "message, worded",
    [
        ("pass params={'N': ..., 'M': ...} (the SDFG's constants give none)", "pass --param N=... --param M=..."),
        ("pass params={'N': 64}", "pass --param N=64"),
        ("no machine: pass machine=, or profile", "no machine: pass --machine NAME (presets: h100-sxm"),
        ("pass require=('duration', 'bytes') to import", "pass --option require=duration,bytes to import"),
        (
            "pass group_by='kernel' or memory_level= to choose",
            "--option group_by=kernel or --option memory_level=VALUE",
        ),
        ("percent=True applies to files holding utilizations", "--percent applies to files holding utilizations"),
        ("pass clock= (Hz, e.g. 1e9)", "pass --clock HZ (Hz, e.g. 1e9)"),
        ("pass categories=('kernel', 'cpu_op')", "pass --categories kernel,cpu_op"),
    ],
)
def test_for_command_line_words_keyword_advice_as_flags(message, worded):
    from campaign_widget.cli import for_command_line

    assert worded in for_command_line(message)


@pytest.mark.parametrize(
    "message",
    [
        "phase 'gemm' is marked tileable=False and cannot be split into tiles=4; use tiles=1",
        "dace_version='2.0.0a3': an SDFG layout this reader does not know",
        "phase 'x': duration=0.0 must be finite",
    ],
)
def test_for_command_line_leaves_descriptions_alone(message):
    from campaign_widget.cli import for_command_line

    assert for_command_line(message) == message


@pytest.fixture
def recording_format():
    """A registered format whose reader records the options it is given."""
    from campaign_widget import Workload
    from campaign_widget.io import register_format, unregister_format

    seen = {}

    def read(source, *, machine=None, percent=False, params=None, categories=None, counters=None, group_by=None):
        seen.update(params=params, categories=categories, counters=counters, group_by=group_by)
        return Workload.from_arrays(["a"], duration=[1.0], compute_util=[0.5], memory_util=[0.5])

    register_format("recording", lambda s: s.suffix == ".rec", read, suffixes=(".rec",))
    yield seen
    unregister_format("recording")


def test_reader_options_reach_the_reader(capsys, tmp_path, recording_format):
    path = tmp_path / "x.rec"
    path.write_text("anything\n")
    argv = ["summary", path, "--param", "N=64", "--param", "M=1.5", "--categories", "kernel,gpu_memcpy"]
    argv += ["--counters", "run.ncu.csv", "--option", "group_by=kernel"]
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    assert recording_format == {
        "params": {"N": 64, "M": 1.5},
        "categories": ("kernel", "gpu_memcpy"),
        "counters": "run.ncu.csv",
        "group_by": "kernel",
    }


def test_an_option_the_reader_does_not_take_is_a_usage_error(capsys, tmp_path, recording_format):
    path = tmp_path / "x.rec"
    path.write_text("anything\n")
    code, _, err = run(capsys, "summary", path, "--option", "bogus=1")
    line = one_line_error(err)
    assert code == 2 and "--option bogus=...: " in line and "takes no option 'bogus'" in line
    code, _, err = run(capsys, "summary", path, "--clock", "1G")
    assert code == 2 and "--clock: " in one_line_error(err) and "recording" in err


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--param", "N"], "argument --param: 'N' is not NAME=VALUE"),
        (["--param", "N=big"], "argument --param: 'N=big': the value of a size must be a number"),
        (["--option", "=3"], "argument --option: '=3' is not NAME=VALUE"),
        (["--option", "machine=h100-sxm"], "machine is given twice (or give it with --machine)"),
        (["--categories", ","], "argument --categories: ',' names no category"),
        (["--machine", "x" * 5000], "unknown machine preset 'xxxxxxx"),
    ],
)
def test_reader_option_usage_errors(capsys, argv, needle):
    code, _, err = run(capsys, "summary", FIG8, *argv)
    line = one_line_error(err)
    assert code == 2 and needle in line and len(line) < 400


# -- output for a person ---------------------------------------------------------------------------------

EVIL = "format: campaign-workload\nversion: 1\nmachine: h100-sxm\nphases:\n"


def _evil_file(tmp_path, long_name_length=900):
    path = tmp_path / "evil.yaml"
    names = ["evil\\e[2J\\a \\u00b5 name", "k" * long_name_length + "END"]
    text = EVIL + "".join(
        f'  - name: "{n}"\n    duration: {1e-6 * (i + 1)}\n    compute_util: 0.5\n    memory_util: 0.5\n'
        for i, n in enumerate(names)
    )
    path.write_text(text)
    return path


def test_control_characters_never_reach_the_terminal_and_long_names_are_shortened(capsys, tmp_path):
    path = _evil_file(tmp_path)
    code, out, err = run(capsys, "summary", path)
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "evil\\x1b[2J\\x07 µ name" in out
    assert max(len(line) for line in out.splitlines()) < 300  # the 903-character name is shortened
    assert re.search(r"\nk{20,}…k{20,}END ", out)  # in the middle: the end that tells names apart is kept


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_library_warnings_are_escaped_too(capsys, tmp_path):
    path = _evil_file(tmp_path, long_name_length=10)
    code, _, err = run(capsys, "render", path, "-o", tmp_path / "x.png")
    assert code == 0
    assert "\x1b" not in err and "\x07" not in err
    glyphs = [line for line in err.splitlines() if "Glyph" in line]
    assert glyphs and len(glyphs) == len(set(glyphs))  # said once each


def _sh(command, env=None, timeout=120):
    import os

    return subprocess.run(
        ["sh", "-c", command],
        capture_output=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def _quoted_command():
    import shlex

    return " ".join(shlex.quote(part) for part in _command())


def test_into_a_closed_pipe_it_exits_quietly(tmp_path):
    path = tmp_path / "many.yaml"
    phases = "".join(
        f"  - name: phase {i}\n    duration: 1\n    compute_util: 0.5\n    memory_util: 0.5\n" for i in range(3000)
    )
    path.write_text(EVIL + phases)
    done = _sh(f"{_quoted_command()} summary {path} | head -1")
    assert done.stdout.decode().startswith(str(path))
    assert done.stderr == b"", done.stderr.decode()  # no BrokenPipeError traceback, no "Exception ignored"
    import os

    process = subprocess.Popen(_command() + ["summary", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader goes away before a line is written
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0 and err == b"", err.decode()
    assert os.path.exists(path)


def test_with_stdout_closed_it_says_so_and_fails(tmp_path):
    done = _sh(f"{_quoted_command()} summary {FIG8} >&-")
    assert done.returncode == 1
    assert done.stderr.decode().strip() == (
        "campaign-widget: error: standard output is closed: nothing can be printed (redirect it to a file or /dev/null)"
    )


def test_an_ascii_terminal_gets_ascii(tmp_path):
    path = _evil_file(tmp_path, long_name_length=200)
    done = _sh(f"{_quoted_command()} summary {path}", env={"PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode("ascii")  # raises if a byte is not ASCII
    assert "1 us" in out and "evil\\x1b[2J\\x07 u name" in out and re.search(r"k{20,}\.\.\.k{20,}END ", out)
    bad = _sh(f"{_quoted_command()} summary {tmp_path / 'missing-µ.yaml'}", env={"PYTHONIOENCODING": "ascii"})
    assert bad.returncode == 1 and "Traceback" not in bad.stderr.decode("ascii")


def test_a_figure_the_plotting_library_cannot_lay_out_is_one_line(capsys, tmp_path):
    out_path = tmp_path / "x.png"
    argv = ["render", FIG8, "-o", out_path, "--roofline", "--peak-bandwidth", "1e-25", "--peak-compute", "1e29"]
    code, _, err = run(capsys, *argv)
    assert "Traceback" not in err
    if code == 0:  # a renderer that lays out any accepted peaks draws it
        assert _is_png(out_path.read_bytes())
    else:
        assert code == 1 and err.splitlines()[-1].startswith(f"campaign-widget: error: {FIG8}: ")
        assert not out_path.exists()
