"""Empirical ceilings of the host (seed 002, stage 1): a STREAM-like kernel for bandwidth and a
large matrix product for compute, each the best of a few runs."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .progress import Progress

if TYPE_CHECKING:
    import numpy.typing as npt

ProgressCallback = Callable[[int, int, str], None]


def measure_peaks(
    *,
    stream_bytes: float = 256e6,
    matmul_n: int = 2048,
    repeats: int = 5,
    dtype: npt.DTypeLike = np.float64,
    progress: ProgressCallback | bool | None = None,
) -> tuple[float, float]:
    """Measure sustained compute (FLOP/s) and bandwidth (B/s) on this machine: ``(compute, bandwidth)``.

    Bandwidth: STREAM "add" (``c = a + b``), counting 3 × 8 bytes per element as STREAM does.
    Compute: ``A @ B`` of ``matmul_n``² matrices, 2·n³ floating-point operations.
    """
    if repeats < 1:
        raise ValueError(f"repeats={repeats!r} must be >= 1")
    steps = 2 * repeats
    report = Progress(True if progress is None else progress, total=steps, what="measuring", with_what=True)
    itemsize = np.dtype(dtype).itemsize
    n = max(1, int(stream_bytes // (3 * itemsize)))
    a, b = np.ones(n, dtype), np.full(n, 2.0, dtype)
    c = np.empty_like(a)
    best_stream = np.inf
    for k in range(repeats):
        started = time.perf_counter()
        np.add(a, b, out=c)
        best_stream = min(best_stream, time.perf_counter() - started)
        report(k + 1, "memory bandwidth")
    x = np.random.default_rng(0).standard_normal((matmul_n, matmul_n)).astype(dtype)
    best_matmul = np.inf
    for k in range(repeats):
        started = time.perf_counter()
        x @ x
        best_matmul = min(best_matmul, time.perf_counter() - started)
        report(repeats + k + 1, "compute")
    bandwidth = 3 * itemsize * n / best_stream
    compute = 2 * matmul_n**3 / best_matmul
    return compute, bandwidth
