"""Fuzzing every reader (issue 9, "Tests that keep it closed").

For each format, hypothesis mutates a real file of that format (byte edits, truncation, repeats, and
hostile splices: deep nesting, aliases, huge numbers, control characters, long cells) and asserts that
``load`` and the CLI

- raise only the package's own errors (``WorkloadFileError`` naming the file; the CLI: exit status 1
  or 2 and one line on stderr naming the file), never a traceback, and
- stay within a CPU-time and a memory bound (CPU time, not wall time: the machine is shared; memory
  as tracemalloc's peak, which sees Python and numpy allocations).

And, for ``save``: a write that fails part way, or a document that cannot be encoded, leaves the
previous file byte for byte.
"""

import contextlib
import gzip
import io
import json
import os
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign_widget import Machine, Phase, Workload, WorkloadError
from campaign_widget.cli import main
from campaign_widget.io import WorkloadFileError, load, save

DATA = Path(__file__).parent / "data"
M = Machine(1e12, 1e11, name="fuzz")
CPU_SECONDS = 3.0  # per load of a file of at most a few hundred kB
MEMORY = 64 << 20  # tracemalloc peak per load, plus 40 x the file's size


def _trace_seed() -> bytes:
    events = [{"ph": "X", "cat": "user_annotation", "name": "step", "ts": 0, "dur": 100, "pid": 1, "tid": 1}]
    events += [
        {
            "ph": "X",
            "cat": "cpu_op",
            "name": "aten::mm",
            "ts": 10 * i,
            "dur": 5,
            "pid": 1,
            "tid": 1,
            "args": {"Input Dims": [[4, 8], [8, 2]], "Input type": ["float", "float"]},
        }
        for i in range(5)
    ]
    events += [
        {
            "ph": "X",
            "cat": "cpu_op",
            "name": "aten::conv2d",
            "ts": 60,
            "dur": 5,
            "pid": 1,
            "tid": 1,
            "args": {
                "Input Dims": [[1, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], []],
                "Input type": ["float", "float", "", "", "", "", ""],
                "Concrete Inputs": ["", "", "", "1", "0", "1", "1"],
            },
        }
    ]
    return json.dumps({"traceEvents": events}, indent=1).encode()


TIMELOOP = DATA / "importers" / "timeloop-conv1d-2level-os" / "timeloop-model.stats.txt"
SDFG = DATA / "sdfg"
SEEDS = {  # name: (file name, content, load options, CLI options)
    "schema-yaml": ("w.yaml", (DATA / "figure-8.yaml").read_bytes(), {}, []),
    "schema-json": ("w.json", (DATA / "seed002-kernels.json").read_bytes(), {}, []),
    "cascade": ("c.yaml", (DATA / "figure-10-cascade.yaml").read_bytes(), {}, []),
    "einsum-csv": ("e.csv", (DATA / "einsums.csv").read_bytes(), {"machine": M}, ["--machine", "h100-sxm"]),
    "trace": ("t.json", _trace_seed(), {"machine": M}, ["--machine", "h100-sxm"]),
    "trace-gz": ("t.json.gz", gzip.compress(_trace_seed()), {"machine": M}, ["--machine", "h100-sxm"]),
    "ncu-details": (
        "n.csv",
        (DATA / "importers" / "ncu-details-saxpy-rtx5070.csv").read_bytes(),
        {"machine": M, "require": ("duration", "bytes"), "format": "nsight-compute-csv"},
        ["--machine", "h100-sxm"],
    ),
    "ncu-raw": ("r.csv", (DATA / "importers" / "handmade-ncu-raw-roofline.csv").read_bytes(), {}, []),
    "timeloop": (
        "timeloop-model.stats.txt",
        TIMELOOP.read_bytes(),
        {"clock": 1e9, "format": "timeloop-stats"},
        ["--clock", "1G"],
    ),
    "sdfg": ("s.sdfg", (SDFG / "loop_copy.sdfg").read_bytes(), {"params": {"N": 8, "T": 3}}, []),
    "sdfg-dace2": ("r.sdfg", (SDFG / "regions_dace2.sdfg").read_bytes(), {"params": {"N": 8, "T": 3}}, []),
    "sdfgz": ("m.sdfgz", (SDFG / "mlp.sdfgz").read_bytes(), {"params": {"B": 2, "D": 3, "H": 4, "O": 5}}, []),
}

HOSTILE = [
    b"[" * 5000,
    b"{" * 5000,
    b"- " * 5000,
    b"&a [x, x]\n",
    b"*a",
    b"!!python/object:os.system x",
    b"9" * 400,
    b"9" * 5000,
    b"1e999",
    b"-1",
    b"nan",
    b".nan",
    b"NaN",
    b"Infinity",
    b"\x00",
    b"\x1b[2J",
    b"\xff\xfe",
    b"\xed\xa0\x80",
    "\ud800".encode("utf-8", "surrogatepass"),
    b'"',
    b"'",
    b",",
    b"\n" * 100,
    b" " * 10000,
    b"a" * 140_000,
    b'"pid": [1]',
    b'"dur": 0',
    b'"ts": 1e400',
    b"null",
    b"[]",
    b"{}",
    b"Cycles: 1.2.3",
    b"Computes = nan",
    b'"\xc2\xb2"',
    b"(" * 3000,
    b"<" * 3000,
    b"/" * 3000,
]


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "delete", "insert", "hostile", "repeat", "truncate"]))
        at = draw(st.integers(0, len(data)))
        if kind == "flip" and data:
            at = min(at, len(data) - 1)
            data[at] = draw(st.integers(0, 255))
        elif kind == "delete":
            del data[at : at + draw(st.integers(1, 64))]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "hostile":
            data[at:at] = draw(st.sampled_from(HOSTILE))
        elif kind == "repeat" and data:
            piece = bytes(data[at : at + draw(st.integers(1, 200))])
            data[at:at] = piece * draw(st.integers(2, 200))
        elif kind == "truncate":
            del data[at:]
    return bytes(data)


def bounded_load(path: Path, options: dict):
    """(workload or error, CPU seconds, peak bytes) of ``load(path, **options)``."""
    tracemalloc.start()
    start = time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = load(path, **options)
    except Exception as e:  # noqa: BLE001 - checked by the caller
        result = e
    seconds = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return result, seconds, peak


def check_load(path: Path, options: dict) -> None:
    result, seconds, peak = bounded_load(path, options)
    size = path.stat().st_size
    assert seconds < CPU_SECONDS, f"{seconds:.2f} s of CPU for a {size:,}-byte file"
    assert peak < MEMORY + 40 * size, f"{peak:,} bytes at peak for a {size:,}-byte file"
    if isinstance(result, Exception):
        assert isinstance(result, WorkloadFileError), f"{type(result).__name__}: {str(result)[:300]}"
        assert str(path) in str(result)
        assert len(str(result)) < 2000
    else:
        assert isinstance(result, Workload)


def check_cli(path: Path, cli_options: list) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["summary", str(path), *cli_options])
    text = err.getvalue()
    assert "Traceback" not in text
    for stream in (out.getvalue(), text):  # no control characters reach the terminal
        assert not any((ord(c) < 32 and c != "\n") or 0x7F <= ord(c) < 0xA0 for c in stream)
    if code == 0:
        return
    assert code in (1, 2)
    errors = [line for line in text.splitlines() if ": error: " in line]
    assert len(errors) == 1, text
    assert str(path) in errors[0] or code == 2


FUZZ = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("fmt", list(SEEDS))
def test_the_unmodified_seed_files_load(tmp_path, fmt):
    name, content, options, _ = SEEDS[fmt]
    path = tmp_path / name
    path.write_bytes(content)
    result, _, _ = bounded_load(path, options)
    assert isinstance(result, Workload), result


@pytest.mark.parametrize("fmt", list(SEEDS))
def test_load_of_a_mutated_file_raises_only_our_errors_within_bounds(tmp_path_factory, fmt):
    name, content, options, _ = SEEDS[fmt]

    @FUZZ
    @given(mutated(content))
    def run(data):
        path = tmp_path_factory.mktemp(fmt) / name
        path.write_bytes(data)
        check_load(path, options)

    run()


@pytest.mark.parametrize("fmt", ["schema-yaml", "einsum-csv", "trace", "ncu-raw", "timeloop"])
def test_the_cli_on_a_mutated_file_prints_one_line_errors(tmp_path_factory, fmt):
    name, content, _, cli_options = SEEDS[fmt]

    @settings(FUZZ, max_examples=15)
    @given(mutated(content))
    def run(data):
        path = tmp_path_factory.mktemp(fmt) / name
        path.write_bytes(data)
        check_cli(path, cli_options)

    run()


@pytest.mark.parametrize("name", ["w.yaml", "w.json", "c.csv", "t.json.gz", "x.txt"])
@FUZZ
@given(data=st.binary(max_size=2000))
def test_load_of_random_bytes_raises_only_our_errors(tmp_path_factory, name, data):
    path = tmp_path_factory.mktemp("random") / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    check_load(path, {"machine": M})


def test_non_regular_files_are_refused_without_blocking(tmp_path):
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    for path in (Path("/dev/zero"), Path("/dev/null"), fifo):
        result, seconds, _ = bounded_load(path, {})
        assert isinstance(result, WorkloadFileError) and "regular file" in str(result) and seconds < 1


# -- save: a failing write leaves the previous file byte for byte ------------------------------------------


NAMES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=12)


@st.composite
def workloads(draw):
    names = draw(st.lists(NAMES, min_size=1, max_size=5, unique=True))
    phases = [Phase(n, ops=draw(st.floats(0, 1e15)), bytes=draw(st.floats(1, 1e12))) for n in names]
    return Workload(phases, machine=M)


class _FailingFile(io.RawIOBase):
    """A file object that accepts ``budget`` bytes, then fails as a full disk does."""

    def __init__(self, inner, budget: int):
        self.inner, self.budget = inner, budget

    def writable(self):
        return True

    def write(self, data):
        if len(data) > self.budget:
            self.inner.write(bytes(data[: self.budget]))
            self.budget = 0
            raise OSError(28, "No space left on device")
        self.budget -= len(data)
        return self.inner.write(data)

    def fileno(self):
        return self.inner.fileno()

    def flush(self):
        if not self.inner.closed:
            self.inner.flush()

    def close(self):
        super().close()
        self.inner.close()


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(old=workloads(), new=workloads(), budget=st.integers(0, 400))
def test_a_save_that_fails_part_way_leaves_the_previous_file_byte_for_byte(
    tmp_path_factory, monkeypatch, suffix, old, new, budget
):
    import campaign_widget.atomic as atomic

    folder = tmp_path_factory.mktemp("save")
    path = save(old, folder / f"w{suffix}")
    before = path.read_bytes()
    real_fdopen = os.fdopen
    with monkeypatch.context() as patch:
        patch.setattr(atomic.os, "fdopen", lambda fd, *a, **k: _FailingFile(real_fdopen(fd, "wb"), budget))
        try:
            save(new, path)
        except OSError as e:
            assert str(path) in str(e)
            assert path.read_bytes() == before
        else:  # the whole document fitted in the budget: the file is the new one, whole
            assert load(path).names == new.names
    assert sorted(p.name for p in folder.iterdir()) == [path.name]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(old=workloads(), where=st.integers(0, 50))
def test_a_document_with_a_lone_surrogate_never_replaces_a_saved_file(tmp_path_factory, monkeypatch, old, where):
    from campaign_widget.io import schema

    path = save(old, tmp_path_factory.mktemp("surrogate") / "w.json")
    before = path.read_bytes()
    text = schema.dumps(old, "json")
    with monkeypatch.context() as patch:
        patch.setattr(schema, "dumps", lambda workload, fmt: text[:where] + "\ud800" + text[where:])
        with pytest.raises(WorkloadFileError, match="surrogate|encode"):
            save(old, path)
    assert path.read_bytes() == before
    with pytest.raises((WorkloadError, TypeError)):
        Phase("x\ud800", ops=1, bytes=1)


def test_the_fuzz_bounds_are_met_by_a_large_valid_file(tmp_path):
    """The bounds above leave room: a valid 20,000-phase Einsum CSV loads well within them."""
    rows = ["Einsum,runtime,Compute_Utilization,Memory_Utilization,Starting_Time,End_Time"]
    rows += [f"e{i},1,0.5,0.5,{i},{i + 1}" for i in range(20_000)]
    path = tmp_path / "big.csv"
    path.write_text("\n".join(rows) + "\n")
    result, seconds, peak = bounded_load(path, {"machine": M})
    assert isinstance(result, Workload) and len(result) == 20_000
    assert np.isfinite(result.arrays.duration).all()
    assert seconds < 10 * CPU_SECONDS and peak < MEMORY + 400 * path.stat().st_size
