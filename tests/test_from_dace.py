"""Workload.from_dace: a @dace.program, an SDFG or its JSON document read by the SDFG reader without a file,
checked against the same reader on the program saved to a file (docs/from-code.md#dace)."""

import sys

import numpy as np
import pytest

from campaign_widget import Workload, WorkloadError, WrongTypeError, read_sdfg

try:
    import dace
except ImportError:  # CI installs the [dace] extra (.ci/run): a missing dace fails, never skips
    pytest.fail("DaCe is needed for these tests: pip install -e '.[dace]'", pytrace=False)

N = dace.symbol("N")
M = dace.symbol("M")


@dace.program
def jacobi(A: dace.float64[N, N], B: dace.float64[N, N]):
    B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])


@dace.program
def gemm_relu(A: dace.float32[M, N], B: dace.float32[N, N], C: dace.float32[M, N]):
    C[:] = np.maximum(A @ B, 0)


def same(a: Workload, b: Workload) -> None:
    assert a.names == b.names
    assert a.params == b.params
    np.testing.assert_array_equal(a.arrays.ops, b.arrays.ops)
    np.testing.assert_array_equal(a.arrays.bytes, b.arrays.bytes)
    assert a.tensors == b.tensors


@pytest.mark.parametrize(("program", "params"), [(jacobi, {"N": 64}), (gemm_relu, {"M": 32, "N": 48})])
def test_a_program_reads_as_the_same_program_saved_to_a_file(tmp_path, program, params):
    path = tmp_path / f"{program.name}.sdfg"
    program.to_sdfg().save(str(path))
    from_file = read_sdfg(path, params=params)
    from_code = Workload.from_dace(program, params=params)
    same(from_code, from_file)
    assert from_code.arrays.ops.sum() > 0
    assert any("read in memory by the SDFG reader" in n for n in from_code.import_report.notes)
    assert any(n.startswith("fused by: DaCe") for n in from_code.import_report.notes)


def test_an_sdfg_and_its_json_document_read_alike_and_symbols_stay_parameters():
    sdfg = jacobi.to_sdfg()
    as_sdfg = Workload.from_dace(sdfg, params={"N": 64})
    as_json = Workload.from_dace(sdfg.to_json(), params={"N": 64})
    same(as_sdfg, as_json)
    bigger = as_sdfg.with_params(N=128)
    # the stencil's interior grows as (N - 2)**2
    assert bigger.arrays.ops.sum() / as_sdfg.arrays.ops.sum() == pytest.approx((126 / 62) ** 2)


def test_the_dataflow_view_opens_from_the_code():
    from campaign_widget import DataflowView

    view = DataflowView(Workload.from_dace(jacobi, params={"N": 32}, machine="h100-sxm"))
    assert "6 phases" in repr(view)


def test_a_symbol_without_a_value_is_named():
    with pytest.raises(WorkloadError, match=r"symbols \['N'\] need values: pass params=\{'N': \.\.\.\}"):
        Workload.from_dace(jacobi)


def test_a_program_dace_cannot_parse_is_named():
    @dace.program
    def unparsable(A: dace.float64[N]):
        A[:] = no_such_function(A)  # noqa: F821 - the point: DaCe's parser refuses it

    with pytest.raises(WorkloadError, match="DaCe could not parse the program 'unparsable'"):
        Workload.from_dace(unparsable, params={"N": 4})


def test_what_is_no_program_nor_sdfg_is_refused():
    with pytest.raises(WrongTypeError, match="@dace.program, a dace.SDFG"):
        Workload.from_dace("jacobi.sdfg")


def test_without_dace_a_program_names_the_extra_and_a_document_still_reads(monkeypatch):
    document = jacobi.to_sdfg().to_json()
    monkeypatch.setitem(sys.modules, "dace", None)
    with pytest.raises(ImportError, match=r"pip install 'campaign_widget\[dace\]'") as caught:
        Workload.from_dace(object())
    assert "\n" not in str(caught.value)
    assert len(Workload.from_dace(document, params={"N": 16})) == 6
