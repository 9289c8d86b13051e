"""Issue 9, "Nothing lost, nothing hangs": one test (or a few) per numbered defect of the model, io/ and CLI.

Each was run against the code before its fix and failed there (see the commit messages).
"""

import gzip
import json
import math
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from campaign_widget import Ceiling, Machine, Phase, Workload, WorkloadError
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
            1 / 0
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
    w = Workload([Phase("a", ops=1, bytes=1, reads={"x": 1}, writes={"y": 1}),
                  Phase("b", ops=1, bytes=1, reads={"y": 1}, writes={"z": 1})], machine=M)
    with pytest.raises(TypeError, match=r"'g'.*'ab'"):
        w.fuse({"g": "ab"})
    with pytest.raises(TypeError, match=r"tileable='false'"):
        Phase("a", ops=1, bytes=1, tileable="false")
    with pytest.raises(TypeError, match=r"element_bytes='4'"):
        Workload.from_einsums({"z": "Z[m] = A[m] * B[m]"}, {"m": 4}, machine=M, element_bytes="4")
    with pytest.raises((TypeError, WorkloadError), match=r"'m'"):
        Workload.from_einsums({"z": "Z[m] = A[m] * B[m]"}, {"m": 1.5}, machine=M)


# -- defect 9: nothing invalid exists ----------------------------------------------------------------------


@pytest.mark.parametrize("make, match", [
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
])
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
    code, _, err = run_cli(capsys, "render", FIG8, "--peak-compute", "1.7e308", "--peak-bandwidth", "1.7e308",
                           "--roofline", "-o", tmp_path / "x.png")
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
        Phase("a", ops=10 ** 400, bytes=1)
    # the smallest durations still pipeline into many tiles without a division by zero
    w = Workload([Phase("a", duration=1e-30, compute_util=0.5, memory_util=0.5),
                  Phase("b", duration=1e-30, compute_util=0.5, memory_util=0.5, after=["a"])], machine=M)
    s = w.schedule(tiles=10_000, pipeline=True)
    assert 0 < s.makespan < 3e-30 and math.isfinite(s.makespan)


def test_defect11_nul_and_lone_surrogates_in_names_are_refused():
    for bad in ("a\x00", "x\ud800"):
        with pytest.raises(WorkloadError):
            Phase(bad, ops=1, bytes=1)
        with pytest.raises(WorkloadError):
            Phase("a", reads={bad: 1})
        with pytest.raises(WorkloadError):
            Machine(1, 1, name=bad)
