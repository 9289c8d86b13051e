"""SDFGs as DaCe writes them: the state machine's order, nested tiled maps, dynamic memlets, dace 2.x
control-flow regions, 2019-era expressions, and the reader's bounds (thousands of states, gzip bombs).

Fixtures: tests/data/sdfg/make_layouts.py (each program is in its docstring); every expected number is
worked out by hand in the comment next to it.
"""

import gzip
import json
import os
import subprocess
import sys
import tracemalloc
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaign_widget import WorkloadFileError
from campaign_widget.io.sdfg import LOOP_EXECUTIONS, NO_WORK, extract_sdfg, read_sdfg
from campaign_widget.io.sdfg import _file as sdfg_file

DATA = Path(__file__).parent / "data" / "sdfg"
ROOT = Path(__file__).parent.parent


def deps(w):
    indptr, indices = w.producers
    return {name: {w.names[j] for j in indices[indptr[i] : indptr[i + 1]]} for i, name in enumerate(w.names)}


def quiet(path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_sdfg(path, **kwargs)


# -- the state machine's order ----------------------------------------------------------------------


def test_the_copy_after_a_loop_comes_after_the_loop():
    w = read_sdfg(DATA / "loop_copy.sdfg", params={"N": 10, "T": 3})
    # init → guard ⇄ body (A *= 2, T times), guard → copy B = A: the copy reads what the loop wrote
    assert w.names == ["double_map", "copy A → B"]
    assert deps(w) == {"double_map": set(), "copy A → B": {"double_map"}}
    assert w.tensors[1] == ({"A@2": 80}, {"B": 80})  # float64: 8·N, A after the loop
    assert float(w.arrays.ops[0]) == 30  # one multiply per element, T·N = 3·10


def test_the_order_does_not_depend_on_the_hash_seed():
    script = (
        "import warnings, sys; warnings.simplefilter('ignore'); "
        "from campaign_widget.io.sdfg import read_sdfg; "
        f"print(read_sdfg({str(DATA / 'independent_maps.sdfg')!r}, params={{'N': 4}}).names)"
    )
    seen = set()
    for seed in ("0", "1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        seen.add(out.stdout.strip())
    # six maps that share nothing: the file's order, under every seed
    assert seen == {str([f"add{k}_map" for k in range(6)])}


# -- nested maps ------------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 100), n=st.integers(1, 100), k=st.integers(1, 9))
def test_a_tiled_gemm_counts_two_m_n_k(m, n, k):
    w = read_sdfg(DATA / "tiled_gemm.sdfg", params={"M": m, "N": n, "K": k})
    # 32×32 tiles, the last one clipped to min(M - 1, tile_i + 31): one multiply and one WCR add per (i, j, k)
    assert float(w.arrays.ops[0]) == 2 * m * n * k
    assert not w.import_report.skipped


def test_a_tiled_gemm_follows_the_parameters():
    w = read_sdfg(DATA / "tiled_gemm.sdfg", params={"M": 64, "N": 64, "K": 64})
    assert float(w.arrays.ops[0]) == 2 * 64**3
    assert float(w.with_params(M=33, N=65, K=3).arrays.ops[0]) == 2 * 33 * 65 * 3  # not multiples of 32


def _ceil_tiled(tmp_path) -> Path:
    """The tiled GEMM as MapTiling's ceil ranges write it: tiles numbered 0.. int_ceil(M, 32) - 1, the
    inner range 32·tile_i .. min(M, 32·tile_i + 32) - 1."""
    doc = json.loads((DATA / "tiled_gemm.sdfg").read_text())
    outer, inner = (n for n in doc["nodes"][0]["nodes"] if n["type"] == "MapEntry")
    for r, size in zip(outer["attributes"]["range"]["ranges"], ("M", "N")):
        r.update(start="0", end=f"int_ceil({size}, 32) - 1", step="1")
    for r, (p, size) in zip(inner["attributes"]["range"]["ranges"], (("tile_i", "M"), ("tile_j", "N"))):
        r.update(start=f"32*{p}", end={"main": f"Min({size}, 32*{p} + 32) - 1", "approx": f"32*{p} + 31"})
    path = tmp_path / "ceil.sdfg"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (31, 33, 2), (64, 64, 3), (65, 100, 4)])
def test_a_tiled_gemm_in_ceil_ranges_counts_two_m_n_k(tmp_path, m, n, k):
    w = read_sdfg(_ceil_tiled(tmp_path), params={"M": m, "N": n, "K": k})
    assert float(w.arrays.ops[0]) == 2 * m * n * k


@settings(max_examples=25, deadline=None)
@given(m=st.integers(1, 100))
def test_remainder_tiles_under_a_branch_count_each_element_once(m):
    w = read_sdfg(DATA / "remainder_tiles.sdfg", params={"M": m})
    # tiles of 8: a full tile where b + 8 <= M (8 adds), else the remainder min(8, M - b): M adds in all
    assert float(w.arrays.ops[0]) == m
    assert not w.import_report.skipped
    assert any(n.startswith("2 terms summed over maps") for n in w.import_report.notes)


# -- dynamic memlets --------------------------------------------------------------------------------


def test_a_dynamic_memlet_counts_its_subset_as_an_upper_bound():
    w = read_sdfg(DATA / "dynamic_memlet.sdfg", params={"N": 10})
    assert w.tensors[0] == ({"A": 80}, {"B": 80})  # A[0:N] read at most once per element: 8·10
    report = w.import_report
    assert not report.skipped
    assert report.phase("gather_map").bytes_source == "memlet volumes (upper bound: dynamic memlets)"
    assert any(n.startswith("1 dynamic memlets") and "upper bound" in n and "'A'" in n for n in report.notes)
    assert float(w.with_params(N=20).arrays.bytes[0]) == 320  # the bound follows N: 8·20 + 8·20


# -- layouts ----------------------------------------------------------------------------------------


def test_dace2_loop_regions_and_conditional_blocks():
    w = read_sdfg(DATA / "regions_dace2.sdfg", params={"N": 10, "T": 3})
    # scale (before the loop) · for t in range(T): square, then if x > 0: inc else fma · halve (after the loop)
    assert w.names == ["scale_map", "square_map", "inc_map", "fma_map", "halve_map"]
    ops = dict(zip(w.names, w.arrays.ops.tolist()))
    assert ops == {"scale_map": 10, "square_map": 30, "inc_map": 30, "fma_map": 60, "halve_map": 10}
    # the loop body runs T = 3 times over N = 10 elements; fma is 2 ops; both branches counted
    d = deps(w)
    assert d["square_map"] == {"scale_map"}
    assert d["inc_map"] == d["fma_map"] == {"square_map"}
    assert d["halve_map"] == {"inc_map", "fma_map"}
    notes = " ".join(w.import_report.notes)
    assert "1 conditionals with every branch counted as if it ran, an upper bound" in notes
    assert float(w.with_params(T=5).arrays.ops[1]) == 50  # the trip count follows T
    assert "t" not in extract_sdfg(DATA / "regions_dace2.sdfg").symbols  # the loop variable is not a parameter


def test_a_loop_region_without_a_simple_trip_count_is_reported(tmp_path):
    doc = json.loads((DATA / "regions_dace2.sdfg").read_text())
    doc["nodes"][1]["attributes"]["loop_condition"]["string_data"] = "(A[t] > 0)"
    path = tmp_path / "while.sdfg"
    path.write_text(json.dumps(doc))
    w = quiet(path, params={"N": 10})
    assert w.import_report.skipped[LOOP_EXECUTIONS] == 1
    assert float(w.arrays.ops[1]) == 10  # counted once


def test_a_2019_file_with_main_and_approx_expressions():
    w = read_sdfg(DATA / "approx_2019.sdfg", params={"N": 10})
    assert extract_sdfg(DATA / "approx_2019.sdfg").dace_version is None
    assert w.names == ["negate_map"]
    assert float(w.arrays.ops[0]) == 10  # one unary minus per element
    assert w.tensors[0] == ({"A": 80}, {"B": 80})


def test_free_symbols_name_the_keyword_argument_and_list_what_is_missing():
    with pytest.raises(WorkloadFileError, match=r"params: symbols \['M', 'N'\] need values: pass params=") as info:
        read_sdfg(DATA / "tiled_gemm.sdfg", params={"K": 2})
    assert info.value.missing == ["M", "N"]


# -- bounds -----------------------------------------------------------------------------------------


def _chain(states: int) -> dict:
    """A real phase, then ``states`` states of two tasklets that do nothing, then a real phase again."""
    base = json.loads((DATA / "loop_copy.sdfg").read_text())
    first, last = base["nodes"][3], json.loads(json.dumps(base["nodes"][3]))
    nodes, edges = [dict(first, id=0)], []
    for s in range(1, states + 1):
        idle = [
            {"type": "Tasklet", "label": f"idle{s}_{k}", "id": k, "scope_entry": None,
             "attributes": {"code": {"string_data": "pass", "language": "Python"}}}
            for k in range(2)
        ]  # fmt: skip
        nodes.append({"type": "SDFGState", "label": f"s{s}", "id": s, "attributes": {}, "nodes": idle, "edges": []})
    nodes.append(dict(last, id=states + 1, label="again"))
    for s in range(states + 1):
        edges.append({"type": "Edge", "src": str(s), "dst": str(s + 1), "attributes": {}})
    base["nodes"], base["edges"] = nodes, edges
    return base


def test_five_thousand_states_of_no_work_resolve_in_one_pass(tmp_path):
    path = tmp_path / "chain.sdfg"
    path.write_text(json.dumps(_chain(5000)))
    w = quiet(path, params={"N": 4})
    # each idle state's two tasklets run after both of the state before: 2^5000 paths, one dependency
    assert w.names == ["copy A → B", "copy A → B#2"]
    assert deps(w)["copy A → B#2"] == {"copy A → B"}
    assert w.import_report.skipped[NO_WORK] == 10_000


def test_a_gzip_bomb_is_refused_while_streaming(tmp_path, monkeypatch):
    limit = 16 << 20
    monkeypatch.setattr(sdfg_file, "MAX_BYTES", limit)
    path = tmp_path / "bomb.sdfgz"
    with gzip.open(path, "wb", compresslevel=1) as out:
        out.write(b'{"type": "SDFG", "x": "')
        for _ in range(64):
            out.write(b" " * (1 << 20))
        out.write(b'"}')
    tracemalloc.start()
    try:
        with pytest.raises(WorkloadFileError, match=r"bomb.sdfgz: the decompressed content is over 16,777,216 bytes"):
            read_sdfg(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit // 4, f"{peak:,} bytes at peak"  # refused by counting, never holding the limit


def test_a_plain_file_over_the_limit_is_refused_on_the_bytes_read(tmp_path, monkeypatch):
    monkeypatch.setattr(sdfg_file, "MAX_BYTES", 1 << 16)
    path = tmp_path / "big.sdfg"
    path.write_bytes(b'{"type": "SDFG", "x": "' + b" " * (1 << 17) + b'"}')
    with pytest.raises(WorkloadFileError, match=r"big.sdfg: the file is over 65,536 bytes"):
        read_sdfg(path)


def test_a_nest_is_summed_in_blocks_within_its_bound():
    from campaign_widget.io.sdfg._nest import CHUNK, MAX_ITERATIONS, NestedSum, total

    triangle = NestedSum("1", (("i", "0", "N - 1", "1"), ("j", "0", "i", "1")))
    value, assumed, visited = total(triangle, {"N": 3000})
    assert value == 3000 * 3001 // 2 and not assumed  # j = 0..i for every i: N(N+1)/2
    assert visited > CHUNK  # more than one block of arrays
    assert total(triangle, {"N": 10**5})[0] is None  # 5·10^9 iterations: over MAX_ITERATIONS, not summed
    assert MAX_ITERATIONS < 10**10 // 2
    guarded = NestedSum("2", (("i", "0", "N - 1", "1"),), ("(i % 3) == 0", "(x > 0)"))
    assert total(guarded, {"N": 10}) == (8, True, 10)  # i = 0, 3, 6, 9; x has no value: taken as holding


def test_a_dynamic_memlet_with_a_volume_counts_that_bound(tmp_path):
    doc = json.loads((DATA / "dynamic_memlet.sdfg").read_text())
    doc["nodes"][0]["edges"][0]["attributes"]["data"]["attributes"]["volume"] = "N - 3"  # at most N - 3 elements
    path = tmp_path / "bounded.sdfg"
    path.write_text(json.dumps(doc))
    w = read_sdfg(path, params={"N": 10})
    assert w.tensors[0][0] == {"A": 56}  # 8·(10 - 3), dace's own bound
    assert any(n.startswith("1 dynamic memlets") for n in w.import_report.notes)
