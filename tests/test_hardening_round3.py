"""Hardening, round three (issue 30): one test per class of problem, written from the class's description
with inputs synthesised here (several variants each), never from the real file that showed it.

The SDFGs below are made by ``sdfg_document``: a region of states, each state one copy or one map, with the
control-flow edges, symbols and memlets each class is about.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

import campaign_widget as cw
from campaign_widget import Machine, expr
from campaign_widget.errors import WorkloadFileError
from campaign_widget.io import read_sdfg, read_torch_trace

M = Machine(1e12, 1e11, name="test")


# -- SDFGs made to order ------------------------------------------------------------------------------------


def _range(pairs):
    return {"type": "Range", "ranges": [{"start": s, "end": e, "step": "1", "tile": "1"} for s, e in pairs]}


def memlet(data, pairs, volume, *, dynamic=False):
    attrs = {"volume": volume, "dynamic": dynamic, "subset": _range(pairs), "data": data, "wcr": None}
    return {"type": "MultiConnectorEdge", "attributes": {"data": {"type": "Memlet", "attributes": attrs}}}


def edge(src, dst, data, *, src_connector=None, dst_connector=None):
    return {**data, "src": str(src), "dst": str(dst), "src_connector": src_connector, "dst_connector": dst_connector}


def access(i, data):
    return {"type": "AccessNode", "label": data, "attributes": {"data": data}, "id": i, "scope_entry": None}


def copy_state(i, label, src, dst, n="N"):
    """A state that copies ``src`` to ``dst`` (one copy phase, ``n`` elements)."""
    nodes = [access(0, src), access(1, dst)]
    edges = [edge(0, 1, memlet(dst, [("0", f"{n} - 1")], n))]
    return {"type": "SDFGState", "label": label, "id": i, "nodes": nodes, "edges": edges, "attributes": {}}


def sdfg_document(states, control_edges, *, arrays=None, symbols=None, start_block=None):
    attrs = {
        "name": "made",
        "_arrays": arrays or {},
        "symbols": {"N": "int32"} if symbols is None else symbols,
        "constants_prop": {},
    }
    doc = {
        "type": "SDFG",
        "attributes": attrs,
        "nodes": states,
        "edges": [{"type": "Edge", "src": str(a), "dst": str(b), "attributes": {}} for a, b in control_edges],
    }
    if start_block is not None:
        doc["start_block"] = start_block
    return doc


def vector(shape="N", dtype="float64"):
    shape = shape if isinstance(shape, list) else [shape]
    return {"type": "Array", "attributes": {"dtype": dtype, "shape": shape, "transient": False}}


def written(tmp_path, doc, name="made.sdfg"):
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def chain(n, order):
    """``n`` copy states a → b → c ... listed in the file in ``order`` (ids = positions in the list)."""
    labels = [f"s{k}" for k in range(n)]
    position = {k: p for p, k in enumerate(order)}
    states = [copy_state(position[k], labels[k], f"X{k}", f"X{k + 1}") for k in order]
    arrays = {f"X{k}": vector() for k in range(n + 1)}
    edges = [(position[k], position[k + 1]) for k in range(n - 1)]
    return states, edges, arrays


def copy_order(w):
    return [name.split("→")[0].split()[-1] for name in w.names]  # "copy X0 → X1" → "X0"


# 1. a stale start_block: the single source block starts the region, whatever start_block says


@pytest.mark.parametrize("seed", range(6))
def test_the_one_source_block_starts_the_region_whatever_start_block_says(tmp_path, seed):
    rng = random.Random(seed)
    n = rng.randint(3, 6)
    order = list(range(n))
    rng.shuffle(order)
    states, edges, arrays = chain(n, order)
    expected = [f"X{k}" for k in range(n)]
    for stale in (n + rng.randint(0, 20), order.index(n - 1), order.index(1), None):  # out of range, in range
        w = read_sdfg(written(tmp_path, sdfg_document(states, edges, arrays=arrays, start_block=stale)),
                      params={"N": 8})  # fmt: skip
        assert copy_order(w) == expected, stale


def test_start_block_chooses_among_several_sources_and_is_refused_only_there(tmp_path):
    arrays = {f"X{k}": vector() for k in range(4)}
    states = [copy_state(0, "a", "X0", "X1"), copy_state(1, "b", "X2", "X3")]  # two sources, no edge
    for start, first in ((0, "X0"), (1, "X2")):
        w = read_sdfg(written(tmp_path, sdfg_document(states, [], arrays=arrays, start_block=start)), params={"N": 4})
        assert copy_order(w)[0] == first
    with pytest.raises(WorkloadFileError, match="start_block.*names no block"):
        read_sdfg(written(tmp_path, sdfg_document(states, [], arrays=arrays, start_block=7)), params={"N": 4})


# 2. DaCe 2.x writes a symbol N as $N in expressions


@pytest.mark.parametrize("text,value", [("$N", 5), ("(1 + $N)*$M", 18), ("$N_1 - N_1", 0), ("max($M, 2)", 3)])
def test_a_dollar_symbol_is_the_name(text, value):
    assert expr.evaluate(text, {"N": 5, "M": 3, "N_1": 9}) == value
    assert expr.parse(text).names <= {"N", "M", "N_1"}


@pytest.mark.parametrize("text", ["$", "$1", "N$", "$$N"])
def test_a_dollar_that_names_no_symbol_is_still_refused(text):
    with pytest.raises(cw.CampaignWidgetError):
        expr.evaluate(text, {"N": 1})


@pytest.mark.parametrize("n", [3, 17])
def test_an_sdfg_in_dollar_symbols_reads_as_the_same_sdfg_in_names(tmp_path, n):
    def made(s):
        states = [copy_state(0, "a", "A", "B", n=s), copy_state(1, "b", "B", "C", n=f"2*{s}")]
        arrays = {k: vector([s, "2"]) for k in "ABC"}
        return sdfg_document(states, [(0, 1)], arrays=arrays)

    plain = read_sdfg(written(tmp_path, made("N"), "plain.sdfg"), params={"N": n})
    dollar = read_sdfg(written(tmp_path, made("$N"), "dollar.sdfg"), params={"N": n})
    assert dollar.names == plain.names and len(dollar.names) == 2
    assert dollar.table()["bytes"].tolist() == plain.table()["bytes"].tolist() == [16 * n, 32 * n]


# 3. the 2019 serializer: symbols in undefined_symbols / scalar_parameters, reductions as "Reduce" nodes


@pytest.mark.parametrize("where", ["top", "attributes"])
@pytest.mark.parametrize(
    "spelling",
    [
        lambda name: [name, {"type": "Scalar", "attributes": {"dtype": "int32"}}],
        lambda name: [name, "int32"],
        lambda name: name,
    ],
)
def test_2019_symbols_are_the_sdfgs_symbols(tmp_path, where, spelling):
    states = [copy_state(0, "a", "A", "B", n="N*K")]
    doc = sdfg_document(states, [], arrays={"A": vector("N*K"), "B": vector("N*K")}, symbols={})
    del doc["attributes"]["symbols"]
    holder = doc if where == "top" else doc["attributes"]
    holder["undefined_symbols"] = [spelling("N")]
    holder["scalar_parameters"] = [spelling("K")]
    w = read_sdfg(written(tmp_path, doc), params={"N": 6, "K": 2})
    assert w.table()["bytes"].tolist() == [2 * 12 * 8]
    assert set(w.params) >= {"N", "K"}


@pytest.mark.parametrize("shape", [["N"], ["N", "4"], ["2", "N", "3"]])
def test_a_2019_reduce_node_counts_one_op_per_input_element(tmp_path, shape):
    reduce_node = {"type": "Reduce", "label": "Reduce", "id": 1, "scope_entry": None,
                   "attributes": {"wcr": "lambda a, b: a + b", "axes": None}}  # fmt: skip
    size = " * ".join(shape)
    state = {
        "type": "SDFGState", "label": "r", "id": 0, "attributes": {},
        "nodes": [access(0, "A"), reduce_node, access(2, "S")],
        "edges": [
            edge(0, 1, memlet("A", [("0", f"{s} - 1") for s in shape], size), dst_connector="_in"),
            edge(1, 2, memlet("S", [("0", "0")], "1"), src_connector="_out"),
        ],
    }  # fmt: skip
    doc = sdfg_document([state], [], arrays={"A": vector(shape), "S": vector("1")})
    w = read_sdfg(written(tmp_path, doc), params={"N": 5})
    elements = math.prod(5 if s == "N" else int(s) for s in shape)
    assert w.table()["ops"].tolist() == [elements]
    assert not [i for i in w.import_report.skipped_detail.get("issues", [])]


# 5. a dynamic memlet's bound never runs past its array


def map_state(array, shape, outer):
    """A map over i in 0..N-1 reading ``array`` through a dynamic memlet whose outer subset is ``outer``."""
    entry = {"type": "MapEntry", "label": "m", "id": 1, "scope_entry": None,
             "attributes": {"label": "m", "params": ["i"], "range": _range([("0", "N - 1")])}}  # fmt: skip
    tasklet = {"type": "Tasklet", "label": "t", "id": 2, "scope_entry": "1",
               "attributes": {"label": "t", "code": {"string_data": "b = a + 1", "language": "Python"}}}  # fmt: skip
    exit_ = {"type": "MapExit", "label": "m", "id": 3, "scope_entry": "1", "attributes": {}}
    nodes = [access(0, array), entry, tasklet, exit_, access(4, "OUT")]
    edges = [
        edge(0, 1, memlet(array, outer, "0", dynamic=True), dst_connector="IN_a"),
        edge(1, 2, memlet(array, [("i", "i")] + [("0", "0")] * (len(shape) - 1), "1", dynamic=True),
             src_connector="OUT_a", dst_connector="a"),
        edge(2, 3, memlet("OUT", [("i", "i")], "1"), src_connector="b", dst_connector="IN_b"),
        edge(3, 4, memlet("OUT", [("0", "N - 1")], "N"), src_connector="OUT_b"),
    ]  # fmt: skip
    return {"type": "SDFGState", "label": "s", "id": 0, "nodes": nodes, "edges": edges, "attributes": {}}


@pytest.mark.parametrize("extra", [1, 2, 5])
@pytest.mark.parametrize("planes", [["K"], ["K", "J"], ["J", "K"]])
def test_a_dynamic_bound_is_clipped_to_its_array(tmp_path, extra, planes):
    shape = planes
    outer = [("0", f"{d} + {extra} - 1") for d in shape]  # every dimension runs `extra` past the array
    doc = sdfg_document([map_state("A", shape, outer)], [], arrays={"A": vector(shape), "OUT": vector("N")},
                        symbols={"N": "int32", "K": "int32", "J": "int32"})  # fmt: skip
    w = read_sdfg(written(tmp_path, doc), params={"N": 4, "K": 6, "J": 3})
    reads, _ = w.tensors[0]
    assert reads == {"A": 6 * (3 if len(shape) == 2 else 1) * 8}  # the whole array at most
    inside = [("0", f"{d} - 2") for d in shape]  # a bound inside the array stays as it is
    doc = sdfg_document([map_state("A", shape, inside)], [], arrays={"A": vector(shape), "OUT": vector("N")},
                        symbols={"N": "int32", "K": "int32", "J": "int32"})  # fmt: skip
    reads, _ = read_sdfg(written(tmp_path, doc), params={"N": 4, "K": 6, "J": 3}).tensors[0]
    assert reads == {"A": 5 * (2 if len(shape) == 2 else 1) * 8}


# 4. PyTorch 1.8 wrote ProfilerStep#N as an "Operator" event


def torch18_trace(path, steps, *, category="Operator", annotation_too=False):
    events, t = [], 0
    for k in range(steps):
        events.append({"ph": "X", "cat": category, "name": f"ProfilerStep#{k + 3}", "ts": t, "dur": 100,
                       "pid": 1, "tid": 1})  # fmt: skip
        if annotation_too:
            events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k + 3}", "ts": t,
                           "dur": 100, "pid": 1, "tid": 2})  # fmt: skip
        events.append({"ph": "X", "cat": category, "name": "aten::mm", "ts": t + 10, "dur": 50, "pid": 1, "tid": 1})
        events.append({"ph": "X", "cat": "Kernel", "name": "gemm", "ts": t + 20, "dur": 30, "pid": 0, "tid": 7})
        t += 150
    path.write_text(json.dumps({"traceEvents": events}))
    return path


@pytest.mark.parametrize("steps", [1, 4])
@pytest.mark.parametrize("category", ["Operator", "cpu_op", "operator"])
@pytest.mark.parametrize("annotation_too", [False, True])
def test_step_markers_written_as_operators_are_steps(tmp_path, steps, category, annotation_too):
    path = torch18_trace(tmp_path / "t.json", steps, category=category, annotation_too=annotation_too)
    t = read_torch_trace(path, machine=M, timeline=True, categories=("cpu_op", "kernel"), warn=False)
    start, end = t.steps()
    assert len(start) == steps
    assert np.allclose(end - start, 100e-6)
    w = read_torch_trace(path, machine=M, categories=("cpu_op", "kernel"), warn=False)
    assert not [n for n in w.names if n.startswith("ProfilerStep")]  # a step is never a phase
    assert sorted(w.names) == ["aten::mm", "gemm"]


# 6. litter: a save killed on the way leaves its temporary file; the next write into that folder, or the
# next load from it, removes what is provably ours and stale (and nothing else)

_KILLED_IN_FSYNC = """
import os, sys
from campaign_widget import atomic
def dying_fsync(fd):
    os.kill(os.getpid(), 9)
os.fsync = dying_fsync
if sys.argv[2] == "path":
    with atomic.atomic_path(sys.argv[1]) as temporary:
        temporary.write_bytes(b"half")
else:
    with atomic.atomic_write(sys.argv[1], "w") as handle:
        handle.write("half of it")
"""


def killed_in_fsync(target, how):
    import subprocess
    import sys

    env = {**__import__("os").environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", _KILLED_IN_FSYNC, str(target), how], check=False, env=env)
    assert done.returncode == -9


@pytest.mark.parametrize("how", ["file", "path"])
def test_the_next_write_or_load_in_the_folder_removes_a_killed_saves_debris(tmp_path, how):
    import os
    import time

    from campaign_widget import atomic

    killed_in_fsync(tmp_path / "figure.pdf", how)
    (first,) = [p.name for p in tmp_path.iterdir()]
    killed_in_fsync(tmp_path / "w.yaml", how)  # a write to another file of the folder removed the first
    (second,) = [p.name for p in tmp_path.iterdir()]
    assert first.startswith(".figure.pdf.") and second.startswith(".w.yaml.") and ".tmp" in second
    foreign = [".figure.pdf.swp", ".w.yaml.123-notours.tmp", "notes.1-00000000-00000000.tmp", ".live.txt.1-x.tmp"]
    for name in foreign:
        (tmp_path / name).write_text("someone else's")
    other_host = tmp_path / f".w.yaml.{os.getpid() + 1}-00000000-0123abcd.tmp"  # another host's: no proof yet
    other_host.write_text("x")
    old = tmp_path / ".w.yaml.4242-00000000-0123abcd.tmp"  # another host's, but untouched for two days
    old.write_text("x")
    os.utime(old, (time.time() - 2 * 86400,) * 2)
    workload = cw.Workload([cw.Phase("A", duration=1, compute_util=0.5, memory_util=0.5)], machine=M)
    cw.save(workload, tmp_path / "kept.yaml")  # the folder's first write removes them all at once
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(foreign + [other_host.name, "kept.yaml"]), left
    for next_step in (
        lambda: atomic.write_atomic(tmp_path / "third.txt", "x"),
        lambda: cw.save(workload, tmp_path / "kept.yaml"),
        lambda: cw.load(tmp_path / "kept.yaml"),
    ):
        killed_in_fsync(tmp_path / "again.txt", how)
        assert [p for p in tmp_path.iterdir() if p.name.startswith(".again.txt.")]
        next_step()
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".again.txt.")]
        assert set(left) - {"kept.yaml"} <= {p.name for p in tmp_path.iterdir()}


def test_a_file_another_user_owns_in_a_sticky_folder_is_refused_before_anything_is_built(tmp_path, monkeypatch):
    import os
    import stat

    from campaign_widget import atomic

    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)
    target = folder / "w.yaml"
    target.write_text("theirs")
    target.chmod(0o666)
    owner = os.stat(target).st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1000)  # we are someone else now
    built = []
    monkeypatch.setattr(cw.io.schema, "dumps", lambda *a, **k: built.append(1) or "")
    workload = cw.Workload([cw.Phase("A", duration=1, compute_util=0.5, memory_util=0.5)], machine=M)
    for write in (lambda: cw.save(workload, target), lambda: atomic.write_atomic(target, "x")):
        with pytest.raises(PermissionError, match="sticky") as info:
            write()
        assert info.value.filename == str(target)
    assert not built and target.read_text() == "theirs"
    folder.chmod(0o777)  # not sticky: replacing it is allowed
    atomic.write_atomic(target, "ours")
    assert target.read_text() == "ours" and not stat.S_ISVTX & os.stat(folder).st_mode


# 7. memory: a schedule's tiles × phases are bounded in bytes before anything is allocated, and the
# expression cache by the bytes it holds


def chain_of(n):
    phases = [cw.Phase(f"p{i}", duration=1, compute_util=0.5, memory_util=0.5, after=[f"p{i - 1}"] if i else [])
              for i in range(n)]  # fmt: skip
    return cw.Workload(phases, machine=M)


@pytest.mark.parametrize("phases", [1, 2, 7])
@pytest.mark.parametrize("pipeline", [False, True])
def test_a_schedule_too_large_for_its_memory_bound_is_refused_before_allocating(phases, pipeline):
    import time
    import tracemalloc

    from campaign_widget.model.schedule import BYTES_PER_INTERVAL, MAX_SCHEDULE_BYTES

    w = chain_of(phases)
    tiles = MAX_SCHEDULE_BYTES // BYTES_PER_INTERVAL // phases + 1
    tracemalloc.start()
    start = time.process_time()
    try:
        with pytest.raises(cw.ScheduleError, match="tiles") as info:
            w.schedule(tiles=tiles, pipeline=pipeline)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.process_time() - start < 1 and peak < 1 << 20
    assert "GiB" in str(info.value) and f"{tiles * phases:,}" in str(info.value)


def test_the_bound_per_interval_holds_for_every_policy():
    import tracemalloc

    from campaign_widget.model.schedule import BYTES_PER_INTERVAL, POLICIES

    w = chain_of(3)
    for pipeline in (False, True):
        for policy in POLICIES:
            tracemalloc.start()
            try:
                s = w.schedule(tiles=20_000, pipeline=pipeline, policy=policy)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert peak / len(s) <= BYTES_PER_INTERVAL, (pipeline, policy, peak / len(s))


def test_the_command_line_refuses_too_many_tiles_at_once_naming_the_flag(tmp_path, capsys):
    import time

    from campaign_widget.cli import main
    from campaign_widget.model.schedule import MAX_TILE_INTERVALS

    path = cw.save(chain_of(2), tmp_path / "w.yaml")
    for tiles in (MAX_TILE_INTERVALS // 2 + 1, 5_000_000, 10**9):
        start = time.process_time()
        assert main(["summary", str(path), "--tiles", str(tiles)]) == 1
        assert time.process_time() - start < 2
        err = capsys.readouterr().err
        assert "--tiles" in err and f"{MAX_TILE_INTERVALS:,}" in err


@pytest.mark.parametrize("shape", ["long names", "many nodes", "long numbers"])
def test_the_expression_cache_is_bounded_by_the_bytes_it_holds(monkeypatch, shape):
    import gc
    import tracemalloc

    from campaign_widget.model import expr as expr_module

    bound = 4 << 20
    monkeypatch.setattr(expr_module, "MAX_CACHED_BYTES", bound, raising=False)
    monkeypatch.setattr(expr_module, "_CACHE", type(expr_module._CACHE)())
    monkeypatch.setattr(expr_module, "_cached_bytes", 0, raising=False)
    rng = random.Random(1)
    gc.collect()
    tracemalloc.start()
    try:
        for k in range(150 if shape == "many nodes" else 3000):  # each shape past the bound twice over
            if shape == "long names":
                text = f"n{k}_" + "x" * 990
            elif shape == "many nodes":
                text = "+".join(f"N*{rng.randint(1, 9)}" for _ in range(200))[:990].rstrip("N*+")
            else:
                text = f"0.{k}" + "7" * 900 + "+N"
            expr_module.parse(text)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert kept < 2 * bound, f"{kept:,} bytes kept by the parse cache"


# 8. tracebacks at the public boundary: our error family, naming the argument


def small_workload():
    return cw.Workload(
        [
            cw.Phase("A", duration=1, compute_util=0.5, memory_util=0.5),
            cw.Phase("B", duration=2, compute_util=0.2, memory_util=0.9, after=["A"]),
        ],
        machine=M,
    )


@pytest.mark.parametrize("diagram", ["not a diagram", None, 5, [1], "workload"])
def test_a_roofline_view_of_what_is_no_diagram_names_its_argument(diagram):
    diagram = small_workload() if diagram == "workload" else diagram
    with pytest.raises(cw.WrongTypeError, match="RooflineView takes the CampaignDiagram"):
        cw.RooflineView(diagram)


@pytest.mark.parametrize("baseline", [10**9, -(10**9), 2, -3, 10**400])
def test_a_baseline_index_past_the_configurations_names_baseline(baseline):
    with pytest.raises(cw.SweepError, match="baseline=") as info:
        cw.sweep(small_workload(), tiles=[1, 2], baseline=baseline, progress=False)
    assert len(str(info.value)) < 300


@pytest.mark.parametrize("axis", ["peak_compute", "peak_bandwidth"])
@pytest.mark.parametrize("value", [10**400, -(10**400), 10**309, float("nan")])
def test_a_peak_beyond_a_float_names_the_axis(axis, value):
    with pytest.raises(cw.SweepError, match=f"{axis}=") as info:
        cw.sweep(small_workload(), **{axis: [1e12, value]}, progress=False)
    assert len(str(info.value)) < 600  # the huge integer is shortened, never printed whole


def test_a_configuration_index_out_of_range_is_ours_and_an_index_error():
    r = cw.sweep(small_workload(), tiles=[1, 2], progress=False)
    for i in (2, -3, 10**30):
        for call in (r.row, r.configuration, r.workload_for, r.schedule):
            with pytest.raises(IndexError) as info:
                call(i)
            assert isinstance(info.value, cw.CampaignWidgetError)


@pytest.mark.parametrize("address", ["not an address", "tcp://", "tcp://host", "127.0.0.1", "tcp://h:port", ""])
def test_an_executor_that_is_no_scheduler_address_is_refused_before_any_work(address):
    import time

    start = time.monotonic()
    with pytest.raises(cw.SweepError, match="executor="):
        cw.sweep(small_workload(), tiles=[1, 2], executor=address, progress=False)
    assert time.monotonic() - start < 5


def test_a_refused_connection_to_a_scheduler_fails_at_once():
    import socket
    import time

    with socket.socket() as s:  # a port with nothing listening: bound, never listened on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        for address in (f"tcp://127.0.0.1:{port}", f"127.0.0.1:{port}"):
            start = time.monotonic()
            with pytest.raises(cw.SweepError, match="no Dask scheduler answered"):
                cw.sweep(small_workload(), tiles=[1, 2], executor=address, progress=False)
            assert time.monotonic() - start < 5


@pytest.mark.parametrize("loop_order", [5, 2.5, None, [1, 2, 3], ["m", 2, "k"], b"mnk", {"m": 1}, object()])
def test_a_loop_order_that_is_no_index_names_is_ours(loop_order):
    from campaign_widget.cache import trace

    if loop_order is None:
        assert trace("Z[m,n] = A[m,k] * B[k,n]", {"m": 2, "n": 2, "k": 2}, loop_order=None) is not None
        return
    with pytest.raises(cw.CampaignWidgetError, match="loop_order="):
        trace("Z[m,n] = A[m,k] * B[k,n]", {"m": 2, "n": 2, "k": 2}, loop_order=loop_order)


@pytest.mark.parametrize("suffix", ["pdf", "png", "svg"])
@pytest.mark.parametrize("on_top", [AttributeError, ValueError, KeyError, RuntimeError])
def test_a_full_disk_under_a_writer_comes_out_as_the_os_error_naming_the_file(tmp_path, monkeypatch, suffix, on_top):
    import errno

    from campaign_widget import atomic
    from campaign_widget.static_figure import render

    target = tmp_path / f"figure.{suffix}"
    target.write_bytes(b"old")

    def broken_writer(figure, handle, fmt, **kwargs):  # a writer that breaks on the disk's error ...
        try:
            handle.write(b"x" * 10)
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError:
            raise on_top("'NoneType' object has no attribute 'write'") from None  # ... and raises its own

    monkeypatch.setattr(render, "write_figure", broken_writer)
    with pytest.raises(OSError) as info:
        render.save_workload_figure(small_workload(), target)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(target)
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == [target.name]
    with pytest.raises(KeyboardInterrupt):  # an interrupt is never turned into anything else
        with atomic.atomic_write(tmp_path / "x.bin"):
            try:
                raise OSError(errno.ENOSPC, "No space left on device")
            except OSError:
                raise KeyboardInterrupt from None


# 9. silently wrong: what the view sends is validated as the same assignment from Python is


HOSTILE_VALUES = [2**70, 10**400, 0, -1, 2.5, float("nan"), float("inf"), "7", True, None, [], {}, 8, 1e300]


def view_twins(cls, workload):
    return cls(workload), cls(workload)


@pytest.mark.parametrize("view", ["CampaignDiagram", "DataflowView"])
@pytest.mark.parametrize("seed", range(3))
def test_what_the_view_sends_is_stored_only_as_python_would_store_it(view, seed):
    import warnings

    rng = random.Random(seed)
    w = cw.Workload([cw.Phase("A", ops="S*S*1e6", bytes="S*1e3", duration=None)], machine=M, params={"S": 4})
    cls = getattr(cw, view)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sent, assigned = view_twins(cls, w)
        traits = sorted(n for n in cls.view_writable if n not in ("theme", "selected_phase", "hovered_phase"))
        for _ in range(25):
            name = rng.choice(traits)
            value = rng.choice(HOSTILE_VALUES)
            state = {"S": value} if name == "params" else value
            sent.set_state({name: state})
            try:
                setattr(assigned, name, state)
            except Exception:  # noqa: BLE001 - refused from Python: the trait stays as it was
                pass
            assert getattr(sent, name) == getattr(assigned, name), (name, state)
            if name == "params":
                assert sent.params == dict(sent._workload.params)  # what is shown is what is stored


@pytest.mark.parametrize("computed_at, cache_line", [(64, 32), (32, 64), (128, 64), (64, 128)])
@pytest.mark.parametrize("shape", ["fully associative", "set associative", "hierarchy"])
def test_distances_at_another_line_size_are_refused(computed_at, cache_line, shape):
    from campaign_widget.cache import Cache, CacheModelError, simulate, stack_distances, trace

    t = trace("C[i,j] = A[i,k] * B[k,j]", {"i": 8, "j": 8, "k": 8}, elem_bytes=8)
    other = stack_distances(t, computed_at)
    cache = Cache(lines=8, line=cache_line, ways=None if shape == "fully associative" else 2)
    given = [cache, Cache(lines=64, line=cache_line)] if shape == "hierarchy" else cache
    with pytest.raises(CacheModelError, match=f"line={computed_at}.*{cache_line}"):
        simulate(t, given, distances=other)
    same = stack_distances(t, cache_line)  # at its own line they are reused, and agree with none given
    ours, fresh = simulate(t, given, distances=same), simulate(t, given)
    first = (ours[0], fresh[0]) if shape == "hierarchy" else (ours, fresh)
    assert first[0].misses == first[1].misses


# every on/off option takes True or False (numpy's too), never a truthy stand-in


def _flag_calls(tmp_path):
    from campaign_widget.cache import Cache, simulate, trace
    from campaign_widget.figures import colour_scale
    from campaign_widget.io import register_format
    from campaign_widget.static_figure.render import save_workload_figure

    w = small_workload()
    t = trace("Z[m] = A[m]", {"m": 4})
    return {
        "colors(reverse=)": lambda v: colour_scale.colors([0.1, 0.9], reverse=v),
        "rgb(reverse=)": lambda v: colour_scale.rgb([0.1, 0.9], reverse=v),
        "demand(requested=)": lambda v: w.schedule().demand(requested=v),
        "register_format(replace=)": lambda v: register_format(
            "test-flag", lambda s: False, lambda s, **k: w, replace=v
        ),
        "register_format(fallback=)": lambda v: register_format(
            "test-flag2", lambda s: False, lambda s, **k: w, fallback=v, replace=True
        ),  # fmt: skip
        "save_workload_figure(roofline=)": lambda v: save_workload_figure(w, tmp_path / "f.png", roofline=v, dpi=20),
        "CampaignDiagram.savefig(roofline=)": lambda v: cw.CampaignDiagram(w).savefig(
            tmp_path / "g.png", roofline=v, dpi=20
        ),  # fmt: skip
        "simulate(inclusive=)": lambda v: simulate(t, [Cache(lines=4), Cache(lines=8)], inclusive=v),
        "sweep(zip=)": lambda v: cw.sweep(w, tiles=[1], zip=v, progress=False),
        "load(percent=)": lambda v: cw.load(
            cw.save(w, tmp_path / "w.yaml"), percent=v if not isinstance(v, (bool, np.bool_)) else False
        ),
    }


@pytest.mark.parametrize("value", ["yes", "false", "", 1, 0, 2.0, None, [True], np.array([True])])
def test_every_on_off_option_takes_only_a_bool(tmp_path, value):
    import warnings

    from campaign_widget.io import unregister_format

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for name, call in _flag_calls(tmp_path).items():
                with pytest.raises(cw.CampaignWidgetError, match="must be True or False"):
                    call(value)
                    pytest.fail(f"{name}: {value!r} taken as on/off")
                for good in (True, np.True_):
                    call(good)  # and the real ones are taken
    finally:
        for name in ("test-flag", "test-flag2"):
            try:
                unregister_format(name)
            except cw.CampaignWidgetError:
                pass


@pytest.mark.parametrize("argument", [{"reverse": "yes"}, {"overlay": "flops"}, {"buckets": "x"}, {"height": -5}])
def test_a_views_argument_its_trait_refuses_is_ours(argument):
    import traitlets

    with pytest.raises(cw.CampaignWidgetError) as info:
        cw.DataflowView(small_workload(), **argument)
    assert isinstance(info.value, traitlets.TraitError) and "DataflowView" in str(info.value)


# 11. words: a foreign file's fields by the file's names, a machine error in a file names the file, and
# no standard-library message without our field


CSV_HEADER = "Einsum,runtime,Memory_Utilization,Compute_Utilization,Starting_Time,End_Time\n"


@pytest.mark.parametrize(
    "row, theirs, ours",
    [
        ("Z,-2,0.4,0.6,0,2", "runtime", "duration"),
        ("Z,2,-0.4,0.6,0,2", "Memory_Utilization", "memory_util"),
        ("Z,2,0.4,-0.6,0,2", "Compute_Utilization", "compute_util"),
        ("Z,0,0.4,0.6,0,0", "runtime", "duration"),
    ],
)
def test_an_einsum_csvs_bad_value_is_named_by_its_column(tmp_path, row, theirs, ours):
    path = tmp_path / "e.csv"
    path.write_text(CSV_HEADER + row + "\n")
    with pytest.raises(WorkloadFileError) as info:
        cw.load(path, machine=M)
    assert theirs in str(info.value) and f"{ours}=" not in str(info.value) and str(path) in str(info.value)


@pytest.mark.parametrize("field, value", [("bw_util", -0.5), ("bw_util", "x"), ("compute_util", -1), ("duration", -3)])
def test_a_cascade_kernels_bad_value_is_named_by_its_key(tmp_path, field, value):
    kernel = {"name": "K", "duration": 2, "compute_util": 0.5, "bw_util": 0.5, field: value}
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps({"cascade": {"name": "c", "kernels": [kernel]}}))
    with pytest.raises(WorkloadFileError) as info:
        cw.load(path, machine=M)
    assert field in str(info.value) and "memory_util" not in str(info.value)


@pytest.mark.parametrize("ceiling", [{"name": "x"}, {"name": "x", "compute": None}, {"name": "x", "bandwidth": None}])
def test_a_machine_error_inside_a_workload_file_names_the_file_and_the_field(tmp_path, ceiling):
    doc = {
        "format": "campaign-workload", "version": 1,
        "machine": {"name": "m", "peak_compute": 1e12, "peak_bandwidth": 1e11, "ceilings": [ceiling]},
        "phases": [{"name": "A", "duration": 1, "compute_util": 0.5, "memory_util": 0.5}],
    }  # fmt: skip
    path = tmp_path / "m.yaml"
    path.write_text(json.dumps(doc))
    with pytest.raises(WorkloadFileError) as info:  # a ceiling with no roof
        cw.load(path)
    assert str(path) in str(info.value) and "ceilings[0]" in str(info.value)


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda: cw.Workload(None), "phases"),
        (lambda: cw.Workload(5), "phases"),
        (lambda: cw.Workload(cw.Phase("a", duration=1, compute_util=0.5, memory_util=0.5)), "phases"),
        (lambda: cw.Phase("a", ops=1, bytes=1, reads={"t": None}), "reads['t']"),
        (lambda: cw.Phase("a", ops=1, bytes=1, writes={"t": None}), "writes['t']"),
        (lambda: small_workload().fuse(5), "groups"),
        (lambda: cw.einsum.einsum_phases({"e": "mk,kn->mn"}, {"m": 2, "n": 2, "k": 2}), "mk,kn->mn"),
        (
            lambda: cw.einsum.einsum_phases({"e": {"einsum": "Z[m] = A[m]", "ops_per_point": "abc"}}, {"m": 2}),
            "ops_per_point",
        ),
    ],
)
def test_no_standard_library_message_without_our_field(call, field):
    with pytest.raises(cw.CampaignWidgetError) as info:
        call()
    assert field in str(info.value)
    assert "argument must be" not in str(info.value) and "not iterable" not in str(info.value)
