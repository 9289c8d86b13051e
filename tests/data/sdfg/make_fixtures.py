"""Build the SDFG test fixtures with the real DaCe (not a runtime dependency of campaign_widget).

Run with the separate venv that has dace (it pins numpy, so it never shares the package's env):

    python -m venv "$DACE_VENV"      # any folder of its own, e.g. DACE_VENV=$HOME/venvs/dace
    "$DACE_VENV/bin/pip" install dace "networkx<3.5"
    cd tests/data/sdfg && "$DACE_VENV/bin/python" make_fixtures.py

(dace 1.0.2's simplify pass fails with networkx 3.5+: ``KeyError`` in ``block_parent_tree``.)
Each program is parsed with ``to_sdfg()`` (which simplifies by default), its state execution counts
are propagated (``propagate_states``, so loop bodies carry ``executions``), and it is saved with
DaCe's own ``SDFG.save`` (``compress=True`` writes gzipped JSON). Nothing is compiled or run.
See SOURCES.md for what each file holds.
"""

import os
import sys

import dace
import numpy as np
from dace.sdfg.propagation import propagate_states

HERE = os.path.dirname(os.path.abspath(__file__))

M, N, K = (dace.symbol(s) for s in "MNK")
B, D, H, O = (dace.symbol(s) for s in "BDHO")
I, J, KZ = dace.symbol("I"), dace.symbol("J"), dace.symbol("KZ")
T = dace.symbol("T")


@dace.program
def matmul_lib(A: dace.float32[M, K], B: dace.float32[K, N], C: dace.float32[M, N]):
    C[:] = A @ B  # a MatMul library node


@dace.program
def matmul_map(A: dace.float32[M, K], B: dace.float32[K, N], C: dace.float32[M, N]):
    for i, j, k in dace.map[0:M, 0:N, 0:K]:
        C[i, j] += A[i, k] * B[k, j]  # write-conflict resolution: sum


@dace.program
def mlp(
    x: dace.float32[B, D],
    W1: dace.float32[D, H],
    b1: dace.float32[H],
    W2: dace.float32[H, O],
    b2: dace.float32[O],
    y: dace.float32[B, O],
):
    h = np.maximum(x @ W1 + b1, 0)
    y[:] = np.maximum(h @ W2 + b2, 0)


@dace.program
def stencil5(A: dace.float64[N, N], B: dace.float64[N, N]):
    for i, j in dace.map[1 : N - 1, 1 : N - 1]:
        B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j])


@dace.program
def jacobi_2d(A: dace.float64[N, N], B: dace.float64[N, N]):
    for t in range(1, T):  # noqa: B007 (a time loop: dace keeps it as states)
        for i, j in dace.map[1 : N - 1, 1 : N - 1]:
            B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j])
        for i, j in dace.map[1 : N - 1, 1 : N - 1]:
            A[i, j] = 0.2 * (B[i, j] + B[i, j - 1] + B[i, j + 1] + B[i + 1, j] + B[i - 1, j])


@dace.program
def hdiff(in_field: dace.float64[I + 4, J + 4, KZ], out_field: dace.float64[I, J, KZ], coeff: dace.float64[I, J, KZ]):
    # NPBench's horizontal diffusion (seed 001's local-view example), as written there
    lap_field = 4.0 * in_field[1 : I + 3, 1 : J + 3, :] - (
        in_field[2 : I + 4, 1 : J + 3, :]
        + in_field[0 : I + 2, 1 : J + 3, :]
        + in_field[1 : I + 3, 2 : J + 4, :]
        + in_field[1 : I + 3, 0 : J + 2, :]
    )

    res = lap_field[1:, 1 : J + 1, :] - lap_field[:-1, 1 : J + 1, :]
    flx_field = np.where((res * (in_field[2 : I + 3, 2 : J + 2, :] - in_field[1 : I + 2, 2 : J + 2, :]) > 0), 0, res)

    res2 = lap_field[1 : I + 1, 1:, :] - lap_field[1 : I + 1, :-1, :]  # NPBench reuses `res`; dace refuses
    fly_field = np.where((res2 * (in_field[2 : I + 2, 2 : J + 3, :] - in_field[2 : I + 2, 1 : J + 2, :]) > 0), 0, res2)

    out_field[:, :, :] = in_field[2 : I + 2, 2 : J + 2, :] - coeff[:, :, :] * (
        flx_field[1:, :, :] - flx_field[:-1, :, :] + fly_field[:, 1:, :] - fly_field[:, :-1, :]
    )


@dace.program
def stencil5_slices(A: dace.float64[N, N], B: dace.float64[N, N]):
    # the same sweep in NumPy slices: dace makes one map per operator and views of A
    B[1:-1, 1:-1] = 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])


def build(program, *, constants=None, simplify=True):
    sdfg = program.to_sdfg(simplify=simplify)
    for name, value in (constants or {}).items():
        sdfg.add_constant(name, value)
    propagate_states(sdfg)
    return sdfg


def main():
    outputs = {
        "matmul_lib.sdfgz": build(matmul_lib),
        "matmul_map.sdfgz": build(matmul_map),
        "mlp.sdfgz": build(mlp),
        "jacobi_2d.sdfgz": build(jacobi_2d),
        "hdiff.sdfgz": build(hdiff),
        "stencil5.sdfg": build(stencil5, constants={"N": 64}),
        # not simplified: the map body stays a nested SDFG of one state per operation
        "stencil5_nested.sdfgz": build(stencil5, simplify=False),
        "stencil5_slices.sdfgz": build(stencil5_slices),
        # not simplified: the product goes to a transient, then a copy to C
        "matmul_lib_copy.sdfgz": build(matmul_lib, simplify=False),
    }
    for filename, sdfg in outputs.items():
        path = os.path.join(HERE, filename)
        sdfg.save(path, compress=filename.endswith(".sdfgz"))
        print(f"{filename}: {os.path.getsize(path)} bytes", file=sys.stderr)
    print(f"dace {dace.__version__}", file=sys.stderr)


if __name__ == "__main__":
    main()
