"""DaCe SDFGs in: fixtures made by dace 1.0.2 (tests/data/sdfg/make_fixtures.py), read without dace.

Every expected number below is worked out by hand from the program in make_fixtures.py; the
arithmetic is in the comment next to it.
"""

import copy
import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import campaign_widget as cw
from campaign_widget import Machine, WorkloadFileError
from campaign_widget.io import sdfg as sdfg_module
from campaign_widget.io.sdfg import (
    DYNAMIC,
    NEGATIVE,
    NOT_PYTHON,
    NOT_UNDERSTOOD,
    UNKNOWN_LIBRARY,
    ZERO,
    count_tasklet_ops,
    extract_sdfg,
    read_sdfg,
)
from campaign_widget.io.sdfg import _file as sdfg_file

DATA = Path(__file__).parent / "data" / "sdfg"
MATMUL = {"M": 3, "N": 5, "K": 7}
MLP = {"B": 8, "D": 16, "H": 32, "O": 4}


def deps(w):
    """{phase: set of the phases it runs after}."""
    indptr, indices = w.producers
    return {name: {w.names[j] for j in indices[indptr[i] : indptr[i + 1]]} for i, name in enumerate(w.names)}


def table(w):
    """{phase: (ops, bytes, reads, writes)}."""
    out = {}
    for i, (name, (reads, writes)) in enumerate(zip(w.names, w.tensors)):
        out[name] = (float(w.arrays.ops[i]), float(w.arrays.bytes[i]), reads, writes)
    return out


def document(name):
    raw = (DATA / name).read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


def write(tmp_path, name, doc, *, compress=True):
    path = tmp_path / name
    text = json.dumps(doc).encode()
    path.write_bytes(gzip.compress(text) if compress else text)
    return path


def nodes_of(doc, state=0):
    return doc["nodes"][state]["nodes"]


def edges_of(doc, state=0):
    return doc["nodes"][state]["edges"]


def memlet_to(doc, data, *, state=0):
    """The memlet attributes of the first top-level edge whose memlet names ``data``."""
    for e in edges_of(doc, state):
        m = e["attributes"]["data"]["attributes"]
        if m.get("data") == data:
            return m
    raise AssertionError(data)


# -- the matmul, two ways ---------------------------------------------------------------------------


def test_matmul_library_node_by_hand():
    w = read_sdfg(DATA / "matmul_lib.sdfgz", params=MATMUL)
    assert w.names == ["_MatMult_"]
    ops, bytes_, reads, writes = table(w)["_MatMult_"]
    assert ops == 210  # MatMul: 2·M·N·K = 2·3·5·7
    assert reads == {"A": 84, "B": 140}  # float32: A 4·M·K = 4·3·7, B 4·K·N = 4·7·5
    assert writes == {"C": 60}  # C 4·M·N = 4·3·5
    assert bytes_ == 284  # 84 + 140 + 60
    assert not w.import_report.skipped


def test_matmul_explicit_map_by_hand():
    w = read_sdfg(DATA / "matmul_map.sdfgz", params=MATMUL)
    assert w.names == ["matmul_map_38"]
    ops, bytes_, reads, writes = table(w)["matmul_map_38"]
    # per iteration: one multiply in the tasklet + one add for the WCR sum into C; M·N·K = 105 iterations
    assert ops == 210  # (1 + 1)·3·5·7
    # the memlets' logical volumes: every iteration reads A[i,k], B[k,j] and writes C[i,j]: 105 elements each
    assert reads == {"A": 420, "B": 420}  # 4·105
    assert writes == {"C": 420}
    assert bytes_ == 1260
    assert not w.import_report.skipped


def test_matmul_parameters_are_the_symbols():
    program = extract_sdfg(DATA / "matmul_map.sdfgz")
    assert program.parameters == ["K", "M", "N"]
    assert program.dace_version == "1.0.2"
    (phase,) = program.phases
    assert phase.kind == "map"


def test_parameters_change_the_numbers():
    w = read_sdfg(DATA / "matmul_lib.sdfgz", params={"M": 10, "N": 20, "K": 30})
    assert float(w.arrays.ops[0]) == 12000  # 2·10·20·30


# -- the MLP ----------------------------------------------------------------------------------------


def test_mlp_by_hand():
    w = read_sdfg(DATA / "mlp.sdfgz", params=MLP)
    t = table(w)
    # B=8, D=16, H=32, O=4, float32
    assert t["_MatMult_"] == (8192, 3584, {"x": 512, "W1": 2048}, {"__tmp0": 1024})
    # 2·B·D·H = 2·8·16·32; x 4·8·16, W1 4·16·32, out 4·8·32; bytes 512+2048+1024
    assert t["_Add__map"] == (256, 3072, {"__tmp0": 1024, "b1": 1024}, {"__tmp1": 1024})
    # one add per element, B·H = 256; b1 broadcast: one element read per output, 4·256
    assert t["_numpy_maximum__map"] == (256, 2048, {"__tmp1": 1024}, {"h": 1024})
    # max(x, 0) counts 1 per element (the cast dace.float32(0) counts 0)
    assert t["_MatMult_#2"] == (2048, 1664, {"h": 1024, "W2": 512}, {"__tmp3": 128})
    # 2·B·H·O = 2·8·32·4; W2 4·32·4, out 4·8·4; bytes 1024+512+128
    assert t["_Add__map#2"] == (32, 384, {"__tmp3": 128, "b2": 128}, {"__tmp4": 128})
    assert t["_numpy_maximum__map#2"] == (32, 256, {"__tmp4": 128}, {"y": 128})
    order = ["_MatMult_", "_Add__map", "_numpy_maximum__map", "_MatMult_#2", "_Add__map#2", "_numpy_maximum__map#2"]
    assert w.names == order
    d = deps(w)
    assert d == {order[0]: set(), **{order[i]: {order[i - 1]} for i in range(1, 6)}}
    assert extract_sdfg(DATA / "mlp.sdfgz").parameters == ["B", "D", "H", "O"]
    assert float(w.arrays.ops.sum()) == 10816  # 8192 + 256 + 256 + 2048 + 32 + 32


def test_machine_times_the_phases():
    m = Machine(peak_compute=100.0, peak_bandwidth=10.0)
    w = read_sdfg(DATA / "matmul_lib.sdfgz", params=MATMUL, machine=m)
    assert float(w.arrays.duration[0]) == pytest.approx(28.4)  # max(210/100, 284/10)
    assert w.import_report.phase("_MatMult_").duration == pytest.approx(28.4)


def test_element_bytes_override():
    w = read_sdfg(DATA / "matmul_lib.sdfgz", params=MATMUL, element_bytes=2)
    assert table(w)["_MatMult_"][2] == {"A": 42, "B": 70}  # 2·21, 2·35
    w = read_sdfg(DATA / "matmul_lib.sdfgz", params=MATMUL, element_bytes={"B": 8})
    assert table(w)["_MatMult_"][2] == {"A": 84, "B": 280}  # A keeps float32; B 8·35
    with pytest.raises(ValueError, match="element_bytes=0"):
        read_sdfg(DATA / "matmul_lib.sdfgz", params=MATMUL, element_bytes=0)


# -- stencils ---------------------------------------------------------------------------------------


def test_stencil_takes_its_constant():
    w = cw.load(DATA / "stencil5.sdfg")
    ops, bytes_, reads, writes = table(w)["stencil5_51"]
    # N = 64 from the SDFG's constants; (N-2)² = 3844 points, 4 adds + 1 multiply each, float64
    assert ops == 19220  # 5·3844
    assert reads == {"A": 153760}  # 5 reads per point: 8·5·3844
    assert writes == {"B": 30752}  # 8·3844
    w = read_sdfg(DATA / "stencil5.sdfg", params={"N": 10})
    assert float(w.arrays.ops[0]) == 320  # params= wins over the constant: 5·8²


def test_jacobi_loop_executions_and_versions():
    w = read_sdfg(DATA / "jacobi_2d.sdfgz", params={"N": 10, "T": 3})
    t = table(w)
    # the loop body runs T-1 = 2 times; (N-2)² = 64 points; 5 ops and 5 float64 reads per point
    assert t["jacobi_2d_58"] == (640, 6144, {"A": 5120}, {"B": 1024})  # 2·5·64; 2·5·64·8; 2·64·8
    # the second sweep writes A again: a new version, so A stays acyclic
    assert t["jacobi_2d_60"] == (640, 6144, {"B": 5120}, {"A@2": 1024})
    assert deps(w)["jacobi_2d_60"] == {"jacobi_2d_58"}
    assert not w.import_report.skipped


def test_hdiff_loads():
    w = cw.load(DATA / "hdiff.sdfgz", params={"I": 8, "J": 8, "KZ": 5})
    assert len(w) == 20
    assert "out_field" in {t for _, writes in w.tensors for t in writes}
    assert np.all(w.arrays.bytes > 0)


# -- load() by suffix and by content ----------------------------------------------------------------


def test_load_by_suffix(tmp_path):
    w = cw.load(DATA / "matmul_lib.sdfgz", params=MATMUL)
    assert w.import_report.format == "dace-sdfg"


@pytest.mark.parametrize("name", ["program.json", "program.gz"])
def test_load_by_content(tmp_path, name):
    doc = document("matmul_lib.sdfgz")
    path = write(tmp_path, name, doc, compress=name.endswith(".gz"))
    w = cw.load(path, params=MATMUL)
    assert w.import_report.format == "dace-sdfg"
    assert float(w.arrays.ops[0]) == 210


def test_symbols_without_values_are_listed():
    with pytest.raises(WorkloadFileError, match=r"mlp.sdfgz: params: symbols \['B', 'D', 'H', 'O'\] need values"):
        cw.load(DATA / "mlp.sdfgz")
    with pytest.raises(WorkloadFileError, match=r"symbols \['D', 'O'\] need values"):
        read_sdfg(DATA / "mlp.sdfgz", params={"B": 1, "H": 2})


def test_params_that_are_not_symbols():
    with pytest.raises(WorkloadFileError, match=r"params \['Q'\] are not symbols of this SDFG"):
        read_sdfg(DATA / "matmul_lib.sdfgz", params={**MATMUL, "Q": 1})
    for bad in ("many", 0, 2.5, True):
        with pytest.raises(
            WorkloadFileError,
            match=rf"params\['M'\]: symbol 'M'={bad!r} \(from params=\) must be "
            r"a whole number >= 1",
        ):
            read_sdfg(DATA / "matmul_lib.sdfgz", params={**MATMUL, "M": bad})


# -- what is reported, never summed -----------------------------------------------------------------


def test_dynamic_volume_counts_its_subset_as_an_upper_bound(tmp_path):
    doc = document("matmul_lib.sdfgz")
    memlet_to(doc, "B")["dynamic"] = True
    memlet_to(doc, "B")["volume"] = "0"  # as dace writes a dynamic memlet: its count known only at run time
    w = read_sdfg(write(tmp_path, "d.sdfgz", doc), params=MATMUL)
    assert table(w)["_MatMult_"][2] == {"A": 84, "B": 140}  # B's subset [0:K, 0:N]: 4·7·5, the most it can read
    assert not w.import_report.skipped
    report = w.import_report
    assert report.phase("_MatMult_").bytes_source == "memlet volumes (upper bound: dynamic memlets)"
    (note,) = [n for n in report.notes if "dynamic memlets" in n]
    assert note.startswith("1 dynamic memlets") and "an upper bound" in note and "'B'" in note


def test_dynamic_volume_without_a_subset_is_reported_not_summed(tmp_path):
    doc = document("matmul_lib.sdfgz")
    memlet_to(doc, "B")["dynamic"] = True
    memlet_to(doc, "B")["volume"] = "0"
    memlet_to(doc, "B")["subset"] = None
    with pytest.warns(UserWarning, match="left out"):
        w = read_sdfg(write(tmp_path, "d.sdfgz", doc), params=MATMUL)
    assert table(w)["_MatMult_"][2] == {"A": 84}  # B's read left out
    assert w.import_report.skipped[DYNAMIC] == 1
    assert "'B'" in w.import_report.skipped_detail[DYNAMIC][0]


@pytest.mark.parametrize(
    "volume, reason", [("0", ZERO), ("M - 10", NEGATIVE), ("Mod(M, 2)", NOT_UNDERSTOOD), ("i*K", NOT_UNDERSTOOD)]
)
def test_bad_volumes_are_reported(tmp_path, volume, reason):
    doc = document("matmul_lib.sdfgz")
    memlet_to(doc, "A")["volume"] = volume
    with pytest.warns(UserWarning):
        w = read_sdfg(write(tmp_path, "v.sdfgz", doc), params=MATMUL)
    assert table(w)["_MatMult_"][2] == {"B": 140}
    assert w.import_report.skipped[reason] == 1
    assert volume in w.import_report.skipped_detail[reason][0]
    assert w.import_report.phase("_MatMult_").partial_bytes


def test_unknown_library_node_is_reported(tmp_path):
    doc = document("matmul_lib.sdfgz")
    lib = next(n for n in nodes_of(doc) if n["type"] == "LibraryNode")
    lib["classpath"] = "dace.libraries.fancy.nodes.Frobnicate"
    with pytest.warns(UserWarning):
        w = read_sdfg(write(tmp_path, "l.sdfgz", doc), params=MATMUL)
    assert float(w.arrays.ops[0]) == 0 and float(w.arrays.bytes[0]) == 284
    assert w.import_report.skipped[UNKNOWN_LIBRARY] == 1
    assert w.import_report.phase("_MatMult_").flops == "unknown"


def test_non_python_tasklet_is_reported(tmp_path):
    doc = document("matmul_map.sdfgz")
    tasklet = next(n for n in nodes_of(doc) if n["type"] == "Tasklet" and "*" in n["attributes"]["code"]["string_data"])
    tasklet["attributes"]["code"] = {"string_data": "__out = __in1 * __in2;", "language": "CPP"}
    with pytest.warns(UserWarning):
        w = read_sdfg(write(tmp_path, "c.sdfgz", doc), params=MATMUL)
    assert float(w.arrays.ops[0]) == 105  # only the WCR sum is left: 1·3·5·7
    assert w.import_report.skipped[NOT_PYTHON] == 1


def test_tasklet_ops_are_counted_not_run():
    assert count_tasklet_ops("__out = (__in1 + __in2)") == (1, [])
    assert count_tasklet_ops("__out = -a * b + c / d") == (4, [])  # unary -, *, +, /
    assert count_tasklet_ops("x += y ** 2") == (2, [])  # += and **
    assert count_tasklet_ops("o = (0 if a > b else c)") == (1, [])  # one comparison
    assert count_tasklet_ops("o = math.exp(a) + np.float32(b)") == (2, [])  # exp and + (the cast is free)
    ops, unknown = count_tasklet_ops("o = __import__('os').system('x')")
    assert (ops, sorted(unknown)) == (0, ["__import__", "system"])


# -- bad files --------------------------------------------------------------------------------------


def test_truncated_plain_json(tmp_path):
    raw = (DATA / "stencil5.sdfg").read_bytes()
    path = tmp_path / "t.sdfg"
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(WorkloadFileError, match=r"t.sdfg:\d+: truncated JSON"):
        cw.load(path)


def test_truncated_gzip(tmp_path):
    raw = (DATA / "mlp.sdfgz").read_bytes()
    path = tmp_path / "t.sdfgz"
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(WorkloadFileError, match=r"t.sdfgz: truncated gzip data"):
        cw.load(path, params=MLP)


@pytest.mark.parametrize(
    "content, message",
    [
        (b"hello, world", r"not JSON"),
        (b"\xff\xfe\x00garbage", r"not UTF-8 text"),
        (b"[1, 2, 3]", r"not an SDFG: the JSON document is a list"),
        (b'{"type": "Workload", "nodes": []}', r"type: not an SDFG: type='Workload'"),
        (b"\x1f\x8b\x08\x00garbage", r"corrupt gzip data|truncated gzip"),
    ],
)
def test_not_an_sdfg(tmp_path, content, message):
    path = tmp_path / "bad.sdfg"
    path.write_bytes(content)
    with pytest.raises(WorkloadFileError, match=message) as info:
        cw.load(path)
    assert str(path) in str(info.value)


def test_a_newer_version_is_read_and_an_unknown_construct_names_itself_and_the_version(tmp_path):
    doc = document("matmul_lib.sdfgz")
    doc["dace_version"] = "7.0.0"
    assert float(read_sdfg(write(tmp_path, "v.sdfgz", doc), params=MATMUL).arrays.ops[0]) == 210
    doc["nodes"][0]["type"] = "QuantumRegion"
    with pytest.raises(
        WorkloadFileError,
        match=r"v.sdfgz: nodes\[0\]\.type: the control-flow block 'QuantumRegion' \(written by dace 7.0.0\) "
        r"is not a construct this reader knows \(SDFGState, LoopRegion, ConditionalBlock",
    ):
        read_sdfg(write(tmp_path, "v.sdfgz", doc), params=MATMUL)
    del doc["dace_version"]
    with pytest.raises(WorkloadFileError, match=r"'QuantumRegion' \(written by a dace version that did not record"):
        read_sdfg(write(tmp_path, "v.sdfgz", doc), params=MATMUL)


def test_missing_field_is_named(tmp_path):
    doc = document("matmul_lib.sdfgz")
    index = next(i for i, n in enumerate(nodes_of(doc)) if n["type"] == "AccessNode")
    del nodes_of(doc)[index]["attributes"]["data"]
    with pytest.raises(WorkloadFileError, match=rf"nodes\[0\]\.nodes\[{index}\]\.attributes\.data: missing"):
        read_sdfg(write(tmp_path, "m.sdfgz", doc), params=MATMUL)


def test_wrong_type_is_named_with_its_value(tmp_path):
    doc = document("matmul_lib.sdfgz")
    edges_of(doc)[0]["attributes"]["data"]["attributes"]["volume"] = ["M"]
    with pytest.raises(
        WorkloadFileError,
        match=r"nodes\[0\]\.edges\[0\]\.attributes\.data\.attributes\.volume: "
        r"\['M'\] is not a",
    ):
        read_sdfg(write(tmp_path, "w.sdfgz", doc), params=MATMUL)


def test_dangling_edge_is_named(tmp_path):
    doc = document("matmul_lib.sdfgz")
    edges_of(doc)[0]["src"] = "99"
    with pytest.raises(WorkloadFileError, match=r"nodes\[0\]\.edges\[0\]\.src: '99' is not the id of a node"):
        read_sdfg(write(tmp_path, "e.sdfgz", doc), params=MATMUL)


def test_gzip_bomb_stops_at_the_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(sdfg_file, "MAX_BYTES", 1 << 20)
    path = tmp_path / "bomb.sdfgz"
    path.write_bytes(gzip.compress(b'{"type": "SDFG", "x": "' + b" " * (4 << 20) + b'"}'))
    assert path.stat().st_size < 10_000
    with pytest.raises(WorkloadFileError, match=r"bomb.sdfgz: the decompressed content is over 1,048,576 bytes"):
        cw.load(path)


def test_deep_nesting(tmp_path):
    path = tmp_path / "deep.sdfg"
    path.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(WorkloadFileError, match="deep.sdfg"):
        cw.load(path)


FIXTURES = {
    "matmul_lib.sdfgz": MATMUL,
    "matmul_map.sdfgz": MATMUL,
    "mlp.sdfgz": MLP,
    "stencil5.sdfg": {"N": 12},
    "jacobi_2d.sdfgz": {"N": 12, "T": 3},
}
RAW = {name: (DATA / name).read_bytes() for name in FIXTURES}
PLAIN = {name: gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw for name, raw in RAW.items()}


@settings(max_examples=60, deadline=5000, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(sorted(FIXTURES)),
    plain=st.booleans(),
    cut=st.floats(0, 1),
    flips=st.lists(st.tuples(st.floats(0, 1), st.integers(0, 255)), max_size=6),
)
def test_garbled_fixtures_only_raise_workload_file_errors(tmp_path, name, plain, cut, flips):
    data = bytearray(PLAIN[name] if plain else RAW[name])
    for where, byte in flips:
        data[int(where * (len(data) - 1))] = byte
    data = bytes(data[: max(1, int(cut * len(data)))]) if cut < 1 else bytes(data)
    path = tmp_path / ("g.sdfg" if plain else "g.sdfgz")
    path.write_bytes(data)
    try:
        w = read_sdfg(path, params=FIXTURES[name])
    except WorkloadFileError as e:
        assert str(path) in str(e)
    else:
        assert len(w) >= 1


def test_sniff_does_not_claim_other_json(tmp_path):
    path = tmp_path / "w.json"
    path.write_text('{"format": "campaign-workload", "version": 1, "phases": [{"name": "x", "type": "SDFG"}]}')
    assert not sdfg_module.sniff(cw.io.Source(path))
    path = tmp_path / "p.json"
    shutil.copy(DATA / "stencil5.sdfg", path)
    assert sdfg_module.sniff(cw.io.Source(path))


# -- nested SDFGs, state order, formulas at any size ------------------------------------------------


def test_nested_sdfg_ops_through_the_symbol_mapping():
    w = read_sdfg(DATA / "stencil5_nested.sdfgz", params={"N": 10})
    ops, bytes_, reads, writes = table(w)["stencil5_51"]
    # the map body is a nested SDFG of one state per operation: 4 adds + 1 multiply per point, (N-2)² = 64
    assert ops == 320  # 5·64
    assert writes == {"B": 512}  # 8·64
    assert extract_sdfg(DATA / "stencil5_nested.sdfgz").phases[0].kind == "map"


def two_states(doc, *, empty_between=False):
    """The matmul state twice in a row (the second writes C again), optionally with an empty state between."""
    first = doc["nodes"][0]
    second = copy.deepcopy(first)
    second["id"], second["label"] = 2, "again"
    doc["nodes"].append(second)
    if empty_between:
        doc["nodes"].append({"type": "SDFGState", "label": "empty", "id": 1, "nodes": [], "edges": []})
        doc["edges"] = [
            {"type": "Edge", "src": "0", "dst": "1", "attributes": {}},
            {"type": "Edge", "src": "1", "dst": "2", "attributes": {}},
        ]
    else:
        doc["edges"] = [{"type": "Edge", "src": "0", "dst": "2", "attributes": {}}]
    return doc


@pytest.mark.parametrize("empty_between", [False, True])
def test_state_order_is_a_dependency(tmp_path, empty_between):
    doc = two_states(document("matmul_lib.sdfgz"), empty_between=empty_between)
    w = read_sdfg(write(tmp_path, "s.sdfgz", doc), params=MATMUL)
    assert w.names == ["_MatMult_", "_MatMult_#2"]
    # no data flows from the first product to the second (both read A and B); the state edge orders them
    assert deps(w) == {"_MatMult_": set(), "_MatMult_#2": {"_MatMult_"}}
    assert w.tensors[1] == ({"A": 84, "B": 140}, {"C@2": 60})  # C written again: its second version


def test_states_reversed_in_the_file_keep_their_order(tmp_path):
    doc = two_states(document("matmul_lib.sdfgz"))
    doc["nodes"].reverse()
    doc["start_block"] = 0  # the first state keeps id 0, now listed last
    w = read_sdfg(write(tmp_path, "r.sdfgz", doc), params=MATMUL)
    assert deps(w)["_MatMult_#2"] == {"_MatMult_"}
    assert w.import_report.phase("_MatMult_").details["state"] != "again"


@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 300), n=st.integers(1, 300), k=st.integers(1, 300))
def test_matmul_formulas_at_any_size(m, n, k):
    lib = read_sdfg(DATA / "matmul_lib.sdfgz", params={"M": m, "N": n, "K": k})
    assert float(lib.arrays.ops[0]) == 2 * m * n * k
    assert float(lib.arrays.bytes[0]) == 4 * (m * k + k * n + m * n)
    explicit = read_sdfg(DATA / "matmul_map.sdfgz", params={"M": m, "N": n, "K": k})
    assert float(explicit.arrays.ops[0]) == 2 * m * n * k
    assert float(explicit.arrays.bytes[0]) == 3 * 4 * m * n * k


# -- the symbols are the workload's parameters ------------------------------------------------------


def test_symbols_become_workload_parameters():
    w = read_sdfg(DATA / "mlp.sdfgz", params=MLP)
    assert w.params == MLP
    bigger = w.with_params(B=16)
    t = table(bigger)
    assert t["_MatMult_"][:2] == (16384, 5120)  # 2·16·16·32; 4·(16·16 + 16·32 + 16·32) = 4·1280
    assert t["_numpy_maximum__map#2"][:2] == (64, 512)  # B·O = 16·4; 4·64 read + 4·64 written
    assert table(w)["_MatMult_"][:2] == (8192, 3584)  # the original is unchanged
    report = w.import_report.phase("_MatMult_").details
    assert report["ops"] == "2*B*H*D" and report["writes"] == {"__tmp0": "(B*H)*4"}


def test_constants_become_parameters_too():
    w = cw.load(DATA / "stencil5.sdfg")
    assert w.params == {"N": 64}
    assert float(w.with_params(N=10).arrays.ops[0]) == 320  # 5·(10-2)²


def test_a_volume_zero_at_these_sizes_follows_the_parameters(tmp_path):
    doc = document("matmul_lib.sdfgz")
    memlet_to(doc, "A")["volume"] = "M - 3"
    with pytest.warns(UserWarning, match="left out 1 records"):
        w = read_sdfg(write(tmp_path, "z.sdfgz", doc), params=MATMUL)  # M = 3: A's read is 0 bytes here
    assert w.import_report.skipped[ZERO] == 1
    assert table(w.with_params(M=5))["_MatMult_"][2]["A"] == 8  # 4·(5 - 3)


def test_stencil_in_slices_by_hand():
    w = read_sdfg(DATA / "stencil5_slices.sdfgz", params={"N": 10})
    t = table(w)
    # one map per operator over the (N-2)² = 64 interior points, float64 (8 bytes)
    assert t["_Add__map"] == (64, 1536, {"A": 1024}, {"__tmp0": 512})  # A[1:-1,1:-1] + A[1:-1,:-2]: 2·8·64 in
    for i, (previous, made) in enumerate((("__tmp0", "__tmp1"), ("__tmp1", "__tmp2"), ("__tmp2", "__tmp3")), 2):
        assert t[f"_Add__map#{i}"] == (64, 1536, {"A": 512, previous: 512}, {made: 512})  # one more slice of A
    assert t["_Mult__map"] == (64, 1024, {"__tmp3": 512}, {"B": 512})  # 0.2·x
    assert float(w.arrays.ops.sum()) == 320  # 5·64, as the single-map sweep


def test_views_are_the_container_they_view(tmp_path):
    doc = document("matmul_lib.sdfgz")
    state = doc["nodes"][0]
    doc["attributes"]["_arrays"]["Av"] = {"type": "ArrayView", "attributes": {"dtype": "float32", "shape": ["M", "K"]}}
    a = next(n for n in state["nodes"] if n["type"] == "AccessNode" and n["attributes"]["data"] == "A")
    state["nodes"].append(
        {
            "type": "AccessNode",
            "label": "Av",
            "attributes": {"data": "Av"},
            "id": 99,
            "scope_entry": None,
            "scope_exit": None,
        }
    )
    read = next(e for e in state["edges"] if e["src"] == str(a["id"]))
    view_edge = copy.deepcopy(read)
    view_edge["dst"], view_edge["dst_connector"] = "99", None
    read["src"] = "99"  # A → Av → MatMul
    state["edges"].append(view_edge)
    w = read_sdfg(write(tmp_path, "view.sdfgz", doc), params=MATMUL)
    assert w.names == ["_MatMult_"]  # the view is not a copy
    assert table(w)["_MatMult_"][2] == {"A": 84, "B": 140}


def test_data_after_the_gzip_stream(tmp_path):
    path = tmp_path / "two.sdfgz"
    path.write_bytes((DATA / "matmul_lib.sdfgz").read_bytes() + gzip.compress(b'{"type": "SDFG"}'))
    # gzip members in a row are one stream (as gunzip reads them): two documents are not JSON
    with pytest.raises(WorkloadFileError, match=r"two.sdfgz:\d+: not JSON: Extra data"):
        read_sdfg(path, params=MATMUL)


def test_loop_state_without_executions_is_reported(tmp_path):
    doc = document("jacobi_2d.sdfgz")
    body = next(s for s in doc["nodes"] if s["nodes"])
    body["attributes"] = {}  # as saved without propagate_states
    with pytest.warns(UserWarning, match="left out 1 records"):
        w = read_sdfg(write(tmp_path, "loop.sdfgz", doc), params={"N": 10, "T": 3})
    assert w.import_report.skipped[sdfg_module.LOOP_EXECUTIONS] == 1
    assert float(w.arrays.ops[0]) == 320  # counted once: 5·64, not (T-1)·5·64


def test_copy_between_access_nodes_is_a_phase():
    w = read_sdfg(DATA / "matmul_lib_copy.sdfgz", params=MATMUL)
    assert w.names == ["_MatMult_", "copy __tmp0 → C"]
    t = table(w)
    assert t["_MatMult_"] == (210, 284, {"A": 84, "B": 140}, {"__tmp0": 60})  # 2·3·5·7; the product to a transient
    assert t["copy __tmp0 → C"] == (0, 120, {"__tmp0": 60}, {"C": 60})  # a copy moves 4·M·N twice, computes nothing
    assert deps(w)["copy __tmp0 → C"] == {"_MatMult_"}
    assert w.import_report.phase("copy __tmp0 → C").details["kind"] == "copy"
