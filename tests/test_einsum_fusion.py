"""Einsum workloads (ops, tensors, dependencies) and computed fusion (docs/semantics.md#fusion)."""

import numpy as np
import pytest

from campaign_widget import Machine, Phase, Workload, WorkloadError

M = Machine(peak_compute=1e12, peak_bandwidth=1e11)
SIZES = {"m": 64, "n": 32, "k": 16}


def test_both_spellings_give_the_same_phase():
    a = Workload.from_einsums({"gemm": "Z[m,n] = A[m,k] * B[k,n]"}, SIZES, machine=M)
    b = Workload.from_einsums([("gemm", ("mk,kn->mn", ["A", "B"], "Z"))], SIZES, machine=M)
    for w in (a, b):
        assert w.arrays.ops[0] == 2 * 64 * 32 * 16
        assert w.arrays.bytes[0] == 4 * (64 * 16 + 16 * 32 + 64 * 32)
        assert w.tensors[0] == ({"A": 4 * 64 * 16, "B": 4 * 16 * 32}, {"Z": 4 * 64 * 32})


def test_op_count_conventions():
    w = Workload.from_einsums(
        {
            "gemm": "Z[m,n] = A[m,k] * B[k,n]",  # multiply-add: 2 per point
            "scale": "Y[m,n] = Z[m,n] * s[n]",  # one multiply per point
            "exp": {"einsum": "E[m,n] = exp(Y[m,n])", "ops_per_point": 8},
            "sum": "S[m] = E[m,n]",  # a reduction of one input: 1 per point
        },
        SIZES,
        machine=M,
        element_bytes={"*": 2, "Z": 4},
    )
    np.testing.assert_allclose(w.arrays.ops, [2 * 64 * 32 * 16, 64 * 32, 8 * 64 * 32, 64 * 32])
    assert w.tensors[0][1] == {"Z": 4 * 64 * 32} and w.tensors[1][0]["s"] == 2 * 32
    one = Workload.from_einsums({"gemm": "Z[m,n] = A[m,k] * B[k,n]"}, SIZES, machine=M, mac_ops=1)
    assert one.arrays.ops[0] == 64 * 32 * 16


def test_dependencies_follow_tensor_names_and_recurrences_count_once():
    w = Workload.from_einsums(
        {
            "out": "O[m] = H[m,n] * C[n]",
            "scan": "H[m,n] = D[m,n] * H[m-1,n] + X[m,n]",
            "make": "D[m,n] = exp(A[m,n])",
        },
        SIZES,
        machine=M,
    )
    assert w.names == ["make", "scan", "out"]
    reads = w.tensors[1][0]
    assert set(reads) == {"D", "X"}


@pytest.mark.parametrize(
    "einsums, message",
    [
        (
            {"a": "Z[m,n] = A[m,k] * B[k,n]", "b": "Y[m] = A[m] * Z[m,n]"},
            r"'b'.*tensor 'A'.*\['m'\].*\['m', 'k'\].*'a'",
        ),
        ({"a": "Z[m,q] = A[m,q]"}, r"'a'.*index 'q'.*no size"),
        ({"a": ("mk,kn->mn", ["A"], "Z")}, r"'a'.*2 input subscripts.*1 input"),
        ({"a": "Z = A * B"}, r"'a'.*left side"),
        ({"a": 42}, r"'a'.*neither"),
    ],
)
def test_bad_einsums_name_the_einsum(einsums, message):
    with pytest.raises(WorkloadError, match=message):
        Workload.from_einsums(einsums, SIZES, machine=M)


# -- fusion -----------------------------------------------------------------------------------


def three_step():
    return Workload.from_einsums(
        {
            "A": "T1[m,n] = X[m,k] * W1[k,n]",
            "B": "T2[m,n] = exp(T1[m,n])",
            "C": "Y[m,n] = T2[m,n] * T1[m,n]",
        },
        SIZES,
        machine=M,
    )


def test_tensors_inside_a_group_move_no_bytes():
    w = three_step()
    fused = w.fuse({"AB": ["A", "B"]})
    mn = 4 * 64 * 32
    # A still writes T1 (C, outside the group, reads it); B no longer reads T1 nor... writes T2 for C
    np.testing.assert_allclose(fused.arrays.bytes, [w.arrays.bytes[0], mn, 2 * mn + mn])
    everything = w.fuse([["A", "B", "C"]])
    np.testing.assert_allclose(everything.arrays.bytes, [4 * (64 * 16 + 16 * 32), 0, mn])
    assert everything.arrays.duration.sum() < w.arrays.duration.sum()
    assert list(everything.fusion_group) == [0, 0, 0] and everything.fusion_groups == ("group 1",)
    np.testing.assert_allclose(everything.arrays.ops, w.arrays.ops)


def test_a_tensor_read_twice_in_a_group_is_loaded_once():
    w = Workload.from_einsums({"p": "P[m] = X[m,k]", "q": "Q[m] = X[m,k] * P[m]"}, SIZES, machine=M)
    fused = w.fuse([["p", "q"]])
    assert fused.arrays.bytes.sum() == 4 * 64 * 16 + 4 * 64


def test_fusion_errors():
    w = three_step()
    with pytest.raises(WorkloadError, match=r"'nope'"):
        w.fuse([["A", "nope"]])
    with pytest.raises(WorkloadError, match=r"'A' is in fusion groups"):
        w.fuse([["A", "B"], ["A", "C"]])
    with pytest.raises(WorkloadError, match=r"cycle between groups"):
        w.fuse({"AC": ["A", "C"]})  # B sits between A and C: AC -> B -> AC
    measured = Workload(
        [
            Phase("k1", duration=1, ops=1, bytes=1, reads={"a": 1}, writes={"b": 1}),
            Phase("k2", duration=1, ops=1, bytes=1, reads={"b": 1}, writes={"c": 1}),
        ],
        machine=M,
    )
    with pytest.raises(WorkloadError, match=r"'k1'.*measured duration"):
        measured.fuse([["k1", "k2"]])


def test_pipelining_a_fused_workload_streams_only_inside_groups():
    w = three_step().fuse({"AB": ["A", "B"]})
    s = w.schedule(tiles=4, pipeline=True)
    start = s.tile_start.reshape(3, 4)
    end = s.tile_end.reshape(3, 4)
    assert start[1, 0] == pytest.approx(end[0, 0])  # B streams from A inside the group
    assert start[2, 0] >= end[0, 3] - 1e-12  # C (another group) waits for A's last tile
    assert start[2, 0] >= end[1, 3] - 1e-12


def test_fusion_groups_become_bands_in_the_scene():
    from campaign_widget.figures.scene import build_scene

    w = three_step().fuse({"AB": ["A", "B"]})
    s = w.schedule()
    scene = build_scene(s, fusion_group=w.fusion_group)
    assert scene.group_id.tolist() == [0]
    assert scene.group_t0[0] == 0 and scene.group_t1[0] == pytest.approx(s.end[s.phase == 1].max())


# -- the boundary: every bad spec or size named with its value, before numpy or float() sees it --------


@pytest.mark.parametrize(
    "einsums, sizes, message",
    [
        ({"a": {"inputs": ["A"], "output": "Z"}}, {}, r"'a'.*no 'einsum' key"),
        ({"a": {"einsum": "mk,kn->mn", "inputs": ["A", "B"]}}, {}, r"'a'.*'inputs' and 'output' together"),
        ({"a": {"einsum": "Z[m] = A[m]", "ops_per_point": True}}, {"m": 4}, r"'a'.*ops_per_point=True"),
        ({"a": {"einsum": "Z[m] = A[m]", "ops_per_point": "2"}}, {"m": 4}, r"'a'.*ops_per_point='2'"),
        ({"a": ("m->m->m", ["A"], "Z")}, {"m": 4}, r"'a'.*numpy-style"),
        ({"a": ("m->m", 5, "Z")}, {"m": 4}, r"'a'.*inputs=5"),
        ({"a": ("m.->m", ["A"], "Z")}, {"m": 4}, r"'a'.*'\.' among its subscripts"),
        ({"a": ("m->m", [None], "Z")}, {"m": 4}, r"'a'.*tensor name None"),
        ({"a": "Z[m,n] = A[m,k] * B[k,n]"}, {"m": 10**200, "n": 1, "k": 1}, r"size 'm'=.* from 1 to 1e\+30"),
        ({"a": "Z[m,n] = A[m,k] * B[k,n]"}, {"m": 10**20, "n": 10**20, "k": 1}, r"'a': ops is over 1e\+30"),
        ({"a": "Z[m] = A[m]"}, {"m": 0}, r"size 'm'=0 must be from 1"),
    ],
)
def test_bad_einsum_specs_and_sizes_name_the_field_and_the_value(einsums, sizes, message):
    from campaign_widget.model.einsum import einsum_phases

    with pytest.raises(WorkloadError, match=message):
        einsum_phases(einsums, sizes)
