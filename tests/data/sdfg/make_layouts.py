"""Write the small hand-made SDFGs of tests/test_sdfg_layouts.py: the layouts DaCe writes, reduced to what
the reader looks at. Run from the repository root: ``python tests/data/sdfg/make_layouts.py``.

Each builds the JSON dace would save (node and edge fields as dace 0.13–2.0 write them) for a program
whose numbers the tests work out by hand:

- ``loop_copy.sdfg``: DaCe's documentation example reduced: ``for _ in range(T): A[:] *= 2`` then
  ``B[:] = A`` (init → guard ⇄ body, guard → copy).
- ``independent_maps.sdfg``: one state of six maps that share nothing (``Y_k = X_k + 1``).
- ``tiled_gemm.sdfg``: ``C += A @ B`` tiled 32×32 by DaCe's MapTiling: an outer map over the tiles,
  an inner one over ``tile_i .. min(M - 1, tile_i + 31)``.
- ``regions_dace2.sdfg``: dace 2.x control-flow regions: a ``LoopRegion`` holding a state and a
  ``ConditionalBlock`` of two branches, a state after the loop.
- ``approx_2019.sdfg``: a 2019-era file: no ``dace_version``, ``start_state``, expressions written as
  ``{"main": ..., "approx": ...}``.
- ``dynamic_memlet.sdfg``: a map reading ``A`` through a dynamic memlet (volume 0 in the file).
- ``remainder_tiles.sdfg``: ``B = A + 1`` in tiles of 8 as DaCe's soft-hier kernels write it: a map over
  the tiles holding a nested SDFG whose ``if_guard`` state chooses a full tile (``i = 0..7``) or the
  remainder (``i = 0 .. min(8, M - b) - 1``).
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent


def rng(*triples):
    return {"type": "Range", "ranges": [{"start": a, "end": b, "step": s, "tile": "1"} for a, b, s in triples]}


def memlet(data, subset, volume, *, wcr=None, dynamic=False):
    return {
        "type": "Memlet",
        "attributes": {"volume": volume, "dynamic": dynamic, "subset": subset, "data": data, "wcr": wcr},
    }


def edge(src, dst, data=None, subset=None, volume="1", *, src_conn=None, dst_conn=None, wcr=None, dynamic=False):
    m = memlet(data, subset, volume, wcr=wcr, dynamic=dynamic) if data else {"type": "Memlet", "attributes": {}}
    return {
        "type": "MultiConnectorEdge",
        "attributes": {"data": m},
        "src": str(src),
        "dst": str(dst),
        "src_connector": src_conn,
        "dst_connector": dst_conn,
    }


def access(nid, data, scope=None):
    return {"type": "AccessNode", "label": data, "attributes": {"data": data}, "id": nid, "scope_entry": scope}


def map_entry(nid, label, params, ranges, scope=None):
    attrs = {"label": label, "params": params, "range": ranges}
    return {"type": "MapEntry", "label": label, "attributes": attrs, "id": nid, "scope_entry": scope}


def map_exit(nid, label, entry):
    return {"type": "MapExit", "label": label, "attributes": {}, "id": nid, "scope_entry": str(entry)}


def tasklet(nid, label, code, scope):
    attrs = {"label": label, "code": {"string_data": code, "language": "Python"}}
    return {"type": "Tasklet", "label": label, "attributes": attrs, "id": nid, "scope_entry": str(scope)}


def state(sid, label, nodes=(), edges=(), executions=None):
    attrs = {} if executions is None else {"executions": executions, "dynamic_executions": False}
    return {
        "type": "SDFGState",
        "label": label,
        "id": sid,
        "attributes": attrs,
        "nodes": list(nodes),
        "edges": list(edges),
    }


def interstate(src, dst, condition="1", assignments=None):
    attrs = {"condition": {"string_data": condition, "language": "Python"}, "assignments": assignments or {}}
    return {
        "type": "Edge",
        "src": str(src),
        "dst": str(dst),
        "attributes": {"data": {"type": "InterstateEdge", "attributes": attrs}},
    }


def array(dtype, *shape):
    return {"type": "Array", "attributes": {"dtype": dtype, "shape": list(shape), "transient": False}}


def sdfg(name, arrays, symbols, nodes, edges=(), *, version="0.13.3", start=0, start_key="start_state"):
    doc = {
        "type": "SDFG",
        "attributes": {"name": name, "_arrays": arrays, "symbols": symbols, "constants_prop": {}},
        "nodes": list(nodes),
        "edges": list(edges),
        start_key: start,
    }
    if version is not None:
        doc["dace_version"] = version
    return doc


def elementwise(first_id, label, source, target, size="N", code="__out = (__in1 * 2)", executions=None, sid=0):
    """A state ``target[i] = f(source[i])`` over ``0..size-1``: access, map entry, tasklet, map exit, access."""
    a, e, t, x, b = range(first_id, first_id + 5)
    whole, one = rng(("0", f"{size} - 1", "1")), rng(("i", "i", "1"))
    nodes = [
        access(a, source),
        map_entry(e, f"{label}_map", ["i"], whole),
        tasklet(t, label, code, e),
        map_exit(x, f"{label}_map", e),
        access(b, target),
    ]
    edges = [
        edge(a, e, source, whole, size, dst_conn="IN_1"),
        edge(e, t, source, one, "1", src_conn="OUT_1", dst_conn="__in1"),
        edge(t, x, target, one, "1", src_conn="__out", dst_conn="IN_1"),
        edge(x, b, target, whole, size, src_conn="OUT_1"),
    ]
    return state(sid, label, nodes, edges, executions)


def loop_copy():
    body = elementwise(0, "double", "A", "A", executions="T", sid=1)
    whole = rng(("0", "N - 1", "1"))
    copy = state(3, "assign", [access(0, "A"), access(1, "B")], [edge(0, 1, "B", whole, "N")], executions="1")
    nodes = [state(0, "init", executions="1"), body, state(2, "guard", executions="T + 1"), copy]
    edges = [
        interstate(0, 2, assignments={"_": "0"}),
        interstate(1, 2, assignments={"_": "(_ + 1)"}),
        interstate(2, 1, condition="(_ < T)"),
        interstate(2, 3, condition="(not (_ < T))"),
    ]
    arrays = {"A": array("float64", "N"), "B": array("float64", "N")}
    return sdfg("loop_copy", arrays, {"N": "int32", "T": "int32", "_": "int64"}, nodes, edges)


def independent_maps():
    nodes, edges = [], []
    arrays = {}
    for k in range(6):
        st = elementwise(5 * k, f"add{k}", f"X{k}", f"Y{k}", code="__out = (__in1 + 1)")
        nodes += st["nodes"]
        edges += st["edges"]
        arrays[f"X{k}"] = array("float32", "N")
        arrays[f"Y{k}"] = array("float32", "N")
    return sdfg("independent_maps", arrays, {"N": "int32"}, [state(0, "all", nodes, edges, "1")])


def tiled_gemm():
    tiles = rng(("0", "M - 1", "32"), ("0", "N - 1", "32"))
    inner = rng(
        ("tile_i", "Min(M - 1, tile_i + 31)", "1"), ("tile_j", "Min(N - 1, tile_j + 31)", "1"), ("0", "K - 1", "1")
    )
    nodes = [
        access(0, "A"),
        access(1, "B"),
        map_entry(2, "gemm_tiles", ["tile_i", "tile_j"], tiles),
        map_entry(3, "gemm", ["i", "j", "k"], inner, scope="2"),
        tasklet(4, "mult", "__out = (__a * __b)", 3),
        map_exit(5, "gemm", 3),
        map_exit(6, "gemm_tiles", 2),
        access(7, "C"),
    ]
    nodes[2]["scope_exit"] = "6"
    a_tile = rng(("tile_i", "Min(M - 1, tile_i + 31)", "1"), ("0", "K - 1", "1"))
    b_tile = rng(("0", "K - 1", "1"), ("tile_j", "Min(N - 1, tile_j + 31)", "1"))
    c_tile = rng(("tile_i", "Min(M - 1, tile_i + 31)", "1"), ("tile_j", "Min(N - 1, tile_j + 31)", "1"))
    edges = [
        edge(0, 2, "A", rng(("0", "M - 1", "1"), ("0", "K - 1", "1")), "M*N*K", dst_conn="IN_A"),
        edge(1, 2, "B", rng(("0", "K - 1", "1"), ("0", "N - 1", "1")), "M*N*K", dst_conn="IN_B"),
        edge(2, 3, "A", a_tile, "K*Min(32, M - tile_i)*Min(32, N - tile_j)", src_conn="OUT_A", dst_conn="IN_A"),
        edge(2, 3, "B", b_tile, "K*Min(32, M - tile_i)*Min(32, N - tile_j)", src_conn="OUT_B", dst_conn="IN_B"),
        edge(3, 4, "A", rng(("i", "i", "1"), ("k", "k", "1")), "1", src_conn="OUT_A", dst_conn="__a"),
        edge(3, 4, "B", rng(("k", "k", "1"), ("j", "j", "1")), "1", src_conn="OUT_B", dst_conn="__b"),
        edge(
            4,
            5,
            "C",
            rng(("i", "i", "1"), ("j", "j", "1")),
            "1",
            src_conn="__out",
            dst_conn="IN_C",
            wcr="(lambda a, b: (a + b))",
        ),
        edge(
            5,
            6,
            "C",
            c_tile,
            "K*Min(32, M - tile_i)*Min(32, N - tile_j)",
            src_conn="OUT_C",
            dst_conn="IN_C",
            wcr="(lambda a, b: (a + b))",
        ),
        edge(
            6,
            7,
            "C",
            rng(("0", "M - 1", "1"), ("0", "N - 1", "1")),
            "M*N*K",
            src_conn="OUT_C",
            wcr="(lambda a, b: (a + b))",
        ),
    ]
    arrays = {"A": array("float32", "M", "K"), "B": array("float32", "K", "N"), "C": array("float32", "M", "N")}
    st = state(0, "gemm", nodes, edges, "1")
    return sdfg(
        "tiled_gemm", arrays, {"M": "int32", "N": "int32", "K": "int32"}, [st], version="1.0.2", start_key="start_block"
    )


def region(kind, rid, label, nodes, edges=(), **extra):
    out = {"type": kind, "label": label, "id": rid, "nodes": list(nodes), "edges": list(edges), "start_block": 0}
    out.update(extra)
    return out


def regions_dace2():
    first = elementwise(0, "scale", "A", "B", sid=0)  # 1 op per element
    body = elementwise(0, "square", "B", "C", code="__out = (__in1 * __in1)", sid=0)
    then = region("ControlFlowRegion", 0, "then", [elementwise(0, "inc", "C", "D", code="__out = (__in1 + 1)")])
    orelse = region("ControlFlowRegion", 1, "else", [elementwise(0, "fma", "C", "D", code="__out = ((__in1 * 3) + 1)")])
    cond = {
        "type": "ConditionalBlock",
        "label": "if_positive",
        "id": 1,
        "branches": [[{"string_data": "(x > 0)", "language": "Python"}, then], [None, orelse]],
        "attributes": {},
    }
    loop_attrs = {
        "loop_variable": "t",
        "init_statement": {"string_data": "t = 0", "language": "Python"},
        "loop_condition": {"string_data": "(t < T)", "language": "Python"},
        "update_statement": {"string_data": "t = (t + 1)", "language": "Python"},
        "executions": "1",
        "dynamic_executions": False,
    }
    loop = region("LoopRegion", 1, "for_t", [body, cond], [interstate(0, 1)], attributes=loop_attrs)
    after = elementwise(0, "halve", "D", "E", code="__out = (__in1 / 2)", sid=2)
    arrays = {name: array("float64", "N") for name in "ABCDE"}
    arrays["x"] = {"type": "Scalar", "attributes": {"dtype": "float64", "shape": ["1"]}}
    nodes = [first, loop, after]
    return sdfg(
        "regions",
        arrays,
        {"N": "int32", "T": "int32"},
        nodes,
        [interstate(0, 1), interstate(1, 2)],
        version="2.0.0",
        start_key="start_block",
    )


def approx(text):
    return {"main": text, "approx": text}


def approx_2019():
    doc = sdfg(
        "approx",
        {"A": array("float64", "N"), "B": array("float64", "N")},
        {"N": "int32"},
        [elementwise(0, "negate", "A", "B", code="b = -a")],
        version=None,
    )
    doc = json.loads(json.dumps(doc))  # no shared ranges: each is rewritten once
    for e in doc["nodes"][0]["edges"]:
        m = e["attributes"]["data"]["attributes"]
        m["num_accesses"] = approx(m.pop("volume"))
        for r in m["subset"]["ranges"]:
            r["end"] = approx(r["end"])
    for n in doc["nodes"][0]["nodes"]:
        if n["type"] == "MapEntry":
            for r in n["attributes"]["range"]["ranges"]:
                r["start"], r["end"], r["step"] = approx(r["start"]), approx(r["end"]), approx(r["step"])
    return doc


def dynamic_memlet():
    doc = sdfg(
        "dynamic",
        {"A": array("float64", "N"), "B": array("float64", "N")},
        {"N": "int32"},
        [elementwise(0, "gather", "A", "B", code="__out = __in1")],
        version="0.9.5",
    )
    m = doc["nodes"][0]["edges"][0]["attributes"]["data"]["attributes"]
    m["volume"], m["dynamic"] = "0", True  # as dace writes a data-dependent read: the count is not known
    return doc


def remainder_tiles():
    def body(label, end):
        st = elementwise(0, label, "a", "c", size="8", code="__out = (__in1 + 1)", sid=1 if label == "full" else 2)
        st["nodes"][1]["attributes"]["range"] = rng(("0", end, "1"))
        return st

    inner_arrays = {"a": array("float32", "8"), "c": array("float32", "8")}
    nodes = [state(0, "if_guard"), body("full", "7"), body("rest", "Min(8, M - b) - 1"), state(3, "complete")]
    edges = [
        interstate(0, 1, condition="((b + 8) <= M)"),
        interstate(0, 2, condition="(not ((b + 8) <= M))"),
        interstate(1, 3),
        interstate(2, 3),
    ]
    inner = sdfg("tile", inner_arrays, {"M": "int32", "b": "int32"}, nodes, edges, version="0.16.1")
    del inner["dace_version"]
    nested = {
        "type": "NestedSDFG",
        "label": "tile",
        "id": 2,
        "scope_entry": "1",
        "attributes": {"label": "tile", "sdfg": inner, "symbol_mapping": {"M": "M", "b": "b"}},
    }
    tiles = rng(("0", "M - 1", "8"))
    nodes = [access(0, "A"), map_entry(1, "tiles", ["b"], tiles), nested, map_exit(3, "tiles", 1), access(4, "B")]
    piece = rng(("b", "b + 7", "1"))
    edges = [
        edge(0, 1, "A", rng(("0", "M - 1", "1")), "M", dst_conn="IN_A"),
        edge(1, 2, "A", piece, "8", src_conn="OUT_A", dst_conn="a"),
        edge(2, 3, "B", piece, "8", src_conn="c", dst_conn="IN_B"),
        edge(3, 4, "B", rng(("0", "M - 1", "1")), "M", src_conn="OUT_B"),
    ]
    arrays = {"A": array("float32", "M"), "B": array("float32", "M")}
    return sdfg(
        "remainder",
        arrays,
        {"M": "int32"},
        [state(0, "main", nodes, edges, "1")],
        version="0.16.1",
        start_key="start_block",
    )


FIXTURES = {
    "loop_copy.sdfg": loop_copy,
    "independent_maps.sdfg": independent_maps,
    "tiled_gemm.sdfg": tiled_gemm,
    "regions_dace2.sdfg": regions_dace2,
    "approx_2019.sdfg": approx_2019,
    "dynamic_memlet.sdfg": dynamic_memlet,
    "remainder_tiles.sdfg": remainder_tiles,
}

if __name__ == "__main__":
    for name, build in FIXTURES.items():
        (HERE / name).write_text(json.dumps(build(), indent=1) + "\n")
        print("wrote", HERE / name)
