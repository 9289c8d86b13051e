"""LocalView on a map of a DaCe SDFG: each memlet crossing the map's entry is one read
per iteration, the memlet into its exit the write, their single-element subsets the index expressions.

Fixtures: tests/data/sdfg (made by dace 1.0.2, read here without dace). Expected accesses come from the
programs in make_fixtures.py, written by hand as Einsums, and from the memlets read straight from the
JSON in the test — never from the code under test.
"""

from __future__ import annotations

import copy
import gzip
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from campaign_widget import WorkloadError
from campaign_widget.cache import Cache, simulate, trace
from campaign_widget.io.sdfg import map_accesses, read_sdfg
from campaign_widget.model.expr import evaluate
from campaign_widget.views.local import LocalView

DATA = Path(__file__).parent / "data" / "sdfg"
# make_fixtures.py: for i, j in dace.map[1:N - 1, 1:N - 1]:
#     B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j])
# with the loop indices from 0 (i stands for i + 1, j for j + 1), in the program's order:
STENCIL = "B[i+1,j+1] = 0.2 * (A[i+1,j+1] + A[i+1,j] + A[i+1,j+2] + A[i+2,j+1] + A[i,j+1])"


def _load(name: str) -> dict:
    raw = (DATA / name).read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


def _quiet_read(path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_sdfg(path, **kwargs)


def test_stencil_map_traces_the_memlets_of_the_program():
    view = LocalView.from_sdfg(DATA / "stencil5.sdfg", "stencil5_51", {"i": 6, "j": 6}, cache=Cache(line=64, lines=8))
    want = trace(STENCIL, {"i": 6, "j": 6}, elem_bytes=8)  # float64, as the program declares
    got = view.trace
    assert got.tensors == want.tensors == ("A", "B")
    assert got.shapes == want.shapes == ((8, 8), (7, 7))
    assert np.array_equal(got.address, want.address), "the same accesses, in the same order"
    assert np.array_equal(got.is_write, want.is_write)
    want_misses = simulate(want, Cache(line=64, lines=8))
    assert view.readout["rows"][-1][2] == want_misses.misses
    # the map's ranges start at 1: said, and kept
    found = view.sdfg_map
    assert found.params == ("i", "j") and found.starts == {"i": 1, "j": 1}
    assert found.sizes == {"i": 62, "j": 62}  # N - 2 at the SDFG's constant N = 64
    assert "the loop indices run from 0: the map's i is i + 1, the map's j is j + 1" in found.notes
    assert "the map's i is i + 1" in " ".join(view.readout["lines"]), "the view says so under its table"
    assert not view.can_apply


def test_stencil_index_expressions_are_the_memlet_subsets_shifted_to_start_at_zero():
    doc = _load("stencil5.sdfg")
    state = doc["nodes"][0]
    entry = next(n for n in state["nodes"] if n["type"] == "MapEntry")
    starts = {p: int(r["start"]) for p, r in zip(entry["attributes"]["params"], entry["attributes"]["range"]["ranges"])}
    memlets = [e["attributes"]["data"]["attributes"] for e in state["edges"] if str(e["src"]) == str(entry["id"])]
    found = map_accesses(DATA / "stencil5.sdfg", "stencil5_51")
    assert len(found.einsum.input_exprs) == len(memlets) == 5
    rng = np.random.default_rng(3)
    for (tensor, exprs), memlet in zip(found.einsum.input_exprs, memlets):
        assert tensor == memlet["data"]
        original = [r["start"] for r in memlet["subset"]["ranges"]]
        for _ in range(5):  # the shifted expression at i, j = the memlet's at i + 1, j + 1
            i, j = (int(v) for v in rng.integers(0, 60, 2))
            shifted = [evaluate(x, {"i": i, "j": j}) for x in exprs]
            direct = [evaluate(x, {"i": i + starts["i"], "j": j + starts["j"]}) for x in original]
            assert shifted == direct, (exprs, original)


def test_matmul_map_is_the_matrix_product_einsum_access_for_access():
    sizes = {"i": 8, "j": 8, "k": 8}
    view = LocalView.from_sdfg(
        DATA / "matmul_map.sdfgz",
        "matmul_map_38",
        sizes,
        params={"M": 8, "N": 8, "K": 8},
        cache=Cache(line=64, lines=8),
    )
    einsum_view = LocalView(None, "C[i,j] = A[i,k] * B[k,j]", sizes, cache=Cache(line=64, lines=8), elem_bytes=4)
    assert np.array_equal(view.trace.address, einsum_view.trace.address)
    assert view.readout["rows"] == einsum_view.readout["rows"]
    view.loop_order = "ikj"
    einsum_view.loop_order = "ikj"
    assert view.readout["rows"] == einsum_view.readout["rows"]
    assert any("write-conflict resolution" in note for note in view.sdfg_map.notes)  # C[i, j] += …


def test_hdiff_map_from_an_imported_workload():
    w = _quiet_read(DATA / "hdiff.sdfgz", params={"I": 256, "J": 256, "KZ": 160})
    # the phase whose memlets read in_field at (__i0 + 2, __i1 + 2) and (__i0 + 2, __i1 + 1): from the JSON
    doc = _load("hdiff.sdfgz")
    wanted = None
    for state in doc["nodes"]:
        ids = {str(n["id"]): n for n in state["nodes"]}
        for n in state["nodes"]:
            if n["type"] != "MapEntry":
                continue
            reads = [
                (
                    e["attributes"]["data"]["attributes"]["data"],
                    tuple(r["start"] for r in e["attributes"]["data"]["attributes"]["subset"]["ranges"]),
                )
                for e in state["edges"]
                if str(e["src"]) == str(n["id"])
            ]
            if reads == [
                ("in_field", ("__i0 + 2", "__i1 + 2", "__i2")),
                ("in_field", ("__i0 + 2", "__i1 + 1", "__i2")),
            ]:
                wanted = (n["attributes"]["label"], reads, ids)
    assert wanted is not None
    label = wanted[0]
    candidates = [name for name in w.names if name.split("#")[0] == label]
    views = {name: LocalView.from_sdfg(w, name, {"__i0": 8, "__i1": 8, "__i2": 5}) for name in candidates}
    match = [
        name
        for name, v in views.items()
        if [(t, tuple(x.replace(" ", "") for x in xs)) for t, xs in v.trace.einsum.input_exprs]
        == [(t, tuple(x.replace(" ", "") for x in xs)) for t, xs in wanted[1]]
    ]
    assert len(match) == 1, (candidates, match)
    view = views[match[0]]
    k = view.trace.tensors.index("in_field")
    assert view.trace.shapes[k] == (10, 10, 5)  # indices up to __i0 + 2 = 9, __i1 + 2 = 9, __i2 = 4
    assert view.sdfg_map.sizes["__i2"] == 160  # KZ from the workload's parameters
    assert view.trace.elem_bytes[k] == 8  # float64


def _write(tmp_path, doc, name="edited.sdfg") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


def test_errors_name_the_phase_the_memlet_and_the_value(tmp_path):
    with pytest.raises(WorkloadError, match=r"has no phase 'nope'; its maps: \['stencil5_51'\]"):
        map_accesses(DATA / "stencil5.sdfg", "nope")
    with pytest.raises(WorkloadError, match=r"is a library, not a map; its maps: \[\]"):
        map_accesses(
            DATA / "matmul_lib.sdfgz", _quiet_read(DATA / "matmul_lib.sdfgz", params={"M": 2, "N": 2, "K": 2}).names[0]
        )
    base = _load("stencil5.sdfg")
    state_edges = base["nodes"][0]["edges"]
    entry_id = next(str(n["id"]) for n in base["nodes"][0]["nodes"] if n["type"] == "MapEntry")
    first_read = next(k for k, e in enumerate(state_edges) if str(e["src"]) == entry_id)

    ranged = copy.deepcopy(base)  # a read of a whole row piece: A[i, j:j+2]
    ranged["nodes"][0]["edges"][first_read]["attributes"]["data"]["attributes"]["subset"]["ranges"][1]["end"] = "j + 2"
    with pytest.raises(
        WorkloadError,
        match=r"the read of 'A' \(.*edges\[\d+\]\) moves A\[i, j:j \+ 2\], a range, "
        r"not one element",
    ):
        LocalView.from_sdfg(_write(tmp_path, ranged), "stencil5_51", {"i": 4, "j": 4})

    loose = copy.deepcopy(base)  # an index in a name that has no value
    loose["nodes"][0]["edges"][first_read]["attributes"]["data"]["attributes"]["subset"]["ranges"][1]["start"] = "j - M"
    loose["nodes"][0]["edges"][first_read]["attributes"]["data"]["attributes"]["subset"]["ranges"][1]["end"] = "j - M"
    with pytest.raises(WorkloadError, match=r"index 'j - M' uses \['M'\], which have no values"):
        map_accesses(_write(tmp_path, loose, "loose.sdfg"), "stencil5_51")

    two = copy.deepcopy(base)  # a second write memlet into the exit
    exit_id = next(str(n["id"]) for n in base["nodes"][0]["nodes"] if n["type"] == "MapExit")
    write = next(e for e in state_edges if str(e["dst"]) == exit_id)
    two["nodes"][0]["edges"].append(copy.deepcopy(write))
    with pytest.raises(
        WorkloadError,
        match=r"writes 2 memlets \['B \(.*\)', 'B \(.*\)'\]; the local view traces maps "
        "with one written element per iteration",
    ):
        map_accesses(_write(tmp_path, two, "two.sdfg"), "stencil5_51")

    with pytest.raises(WorkloadError, match=r"params \['Q'\] are not symbols of this SDFG"):
        map_accesses(DATA / "stencil5.sdfg", "stencil5_51", params={"Q": 3})
    with pytest.raises(WorkloadError, match="not read from an SDFG file"):
        from campaign_widget import Machine, Workload

        w = Workload.from_einsums(
            {"gemm": "C[i,j] = A[i,k] * B[k,j]"},
            {"i": 4, "j": 4, "k": 4},
            machine=Machine(peak_compute=1.0, peak_bandwidth=1.0),
        )
        LocalView.from_sdfg(w, "gemm", {"i": 2, "j": 2, "k": 2})


def test_the_importer_still_reads_the_fixtures_as_before():
    """The map memlets are recorded beside the phases; what read_sdfg reports is unchanged."""
    w = _quiet_read(DATA / "stencil5.sdfg")
    # make_fixtures.py: 5 reads of A per point over (N-2)^2 = 62^2 points, float64; one write of B
    assert w.names == ["stencil5_51"]
    assert w.tensors[0] == ({"A": 5 * 62 * 62 * 8}, {"B": 62 * 62 * 8})


def test_a_map_the_view_cannot_read_does_not_stop_the_import(tmp_path):
    doc = _load("stencil5.sdfg")
    entry_id = next(str(n["id"]) for n in doc["nodes"][0]["nodes"] if n["type"] == "MapEntry")
    edge = next(e for e in doc["nodes"][0]["edges"] if str(e["src"]) == entry_id)
    edge["attributes"]["data"]["attributes"]["subset"]["type"] = "SubsetUnion"  # not a subset type the reader knows
    path = _write(tmp_path, doc, "union.sdfg")
    w = _quiet_read(path)
    assert w.names == ["stencil5_51"] and w.tensors[0][0] == {"A": 5 * 62 * 62 * 8}  # as from the unedited file
    with pytest.raises(
        WorkloadError,
        match=r"map 'stencil5_51' cannot be traced: .*the subset type 'SubsetUnion' \(written by dace 1.0.2\) is not a construct",
    ):
        map_accesses(path, "stencil5_51")
