"""Empirical ceilings of the host (seed 002, stage 1): a STREAM-like kernel for bandwidth and a
large matrix product for compute, each the best of a few runs."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ArgumentError, short_repr
from ..progress import Progress

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
        raise ArgumentError(f"repeats={repeats!r} must be >= 1")
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


# -- memory levels: a STREAM-style sweep over working-set sizes (as the Empirical Roofline Toolkit) --

DRAM_FACTOR = 4  # the memory level is measured on working sets at least this many times the last cache


@dataclass(frozen=True, eq=False)
class BandwidthSweep:
    """Bandwidth measured at each working-set size, and the plateaus read off it as levels.

    ``sizes`` (bytes of the three arrays of ``c = a + b``) and ``bandwidth`` (B/s) are the sweep;
    ``caches`` the host's data caches as (name, bytes), nearest first; ``levels`` one (name,
    bandwidth) per cache and one for memory (``"DRAM"``), each the median of the sweep's points
    whose working set fits that level and not the one before.
    """

    sizes: np.ndarray
    bandwidth: np.ndarray
    caches: tuple[tuple[str, int], ...]
    levels: tuple[tuple[str, float], ...]

    def plot(self, ax=None):
        """The sweep on log axes with each level's plateau and each cache's size marked; returns the
        matplotlib Figure."""
        import matplotlib.pyplot as plt

        figure = ax.figure if ax is not None else plt.figure(figsize=(6, 3.2), layout="constrained")
        ax = ax if ax is not None else figure.add_subplot()
        ax.loglog(self.sizes, self.bandwidth, "o-", ms=3, lw=1, color="0.3", label="measured")
        bounds = _level_bounds(self.caches, self.sizes)
        for (name, bandwidth), (low, high) in zip(self.levels, bounds):
            ax.hlines(bandwidth, max(low, self.sizes[0]), min(high, self.sizes[-1]), lw=3, alpha=0.6)
            ax.annotate(
                f"{name} {bandwidth / 1e9:.3g} GB/s",
                (max(low, self.sizes[0]), bandwidth),
                textcoords="offset points",
                xytext=(2, 4),
                fontsize=8,
            )
        for _, size in self.caches:
            ax.axvline(size, color="0.7", lw=0.8, ls="--")
        ax.set_xlabel("working set (bytes)")
        ax.set_ylabel("bandwidth (B/s)")
        ax.set_title("memory bandwidth by working-set size")
        return figure


def cache_sizes() -> tuple[tuple[str, int], ...]:
    """This host's data caches as (``"L1"``, bytes), … nearest first, from Linux's sysfs; empty
    where the host does not say."""
    root = Path("/sys/devices/system/cpu/cpu0/cache")
    found: dict[int, int] = {}
    for index in sorted(root.glob("index*")):
        try:
            kind = (index / "type").read_text().strip()
            level = int((index / "level").read_text().strip())
            size = _parse_size((index / "size").read_text().strip())
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and size > 0:
            found[level] = size
    return tuple((f"L{level}", found[level]) for level in sorted(found))


def _parse_size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text and text[-1].upper() in units:
        return int(text[:-1]) * units[text[-1].upper()]
    return int(text)


def bandwidth_sweep(
    *,
    sizes=None,
    caches: tuple[tuple[str, int], ...] | None = None,
    seconds_per_size: float = 0.02,
    repeats: int = 3,
    progress: ProgressCallback | bool | None = None,
) -> BandwidthSweep:
    """STREAM "add" (``c = a + b``, 3 × 8 bytes per element) at working sets from 4 KiB to
    ``DRAM_FACTOR`` × the last cache (two sizes per octave), each timed over enough passes to take
    ``seconds_per_size``, best of ``repeats``; the plateaus become levels (see ``BandwidthSweep``)."""
    caches = cache_sizes() if caches is None else tuple(caches)
    if sizes is None:
        largest = max([size for _, size in caches] + [8 << 20]) * DRAM_FACTOR * 2
        sizes = np.unique(np.round(2.0 ** np.arange(12, np.log2(largest) + 0.01, 0.5) / 24) * 24)
    sizes = np.asarray(sizes, dtype=np.float64)
    if sizes.ndim != 1 or sizes.size == 0 or not np.all(np.isfinite(sizes)) or np.any(sizes < 24):
        raise ArgumentError(f"sizes must be working sets of at least 24 bytes, got {short_repr(sizes)}")
    report = Progress(True if progress is None else progress, total=len(sizes), what="bandwidth sweep", with_what=True)
    kernel = _stream_add_kernel()
    measured = []
    for k, size in enumerate(sizes):
        n = max(1, int(size // 24))
        a, b, c = np.ones(n), np.full(n, 2.0), np.empty(n)
        kernel(a, b, c, 1)  # compiles once; warms the caches
        passes = max(1, int(seconds_per_size * 2e10 / (24 * n)) // repeats)  # at ~20 GB/s: enough passes
        best = np.inf
        for _ in range(repeats):
            started = time.perf_counter()
            kernel(a, b, c, passes)
            best = min(best, time.perf_counter() - started)
        measured.append(24 * n * passes / max(best, 1e-9))
        report(k + 1, f"working set {int(size):,} B")
    bandwidth = np.array(measured)
    return BandwidthSweep(sizes=sizes, bandwidth=bandwidth, caches=caches, levels=plateaus(sizes, bandwidth, caches))


def _level_bounds(caches, sizes) -> list[tuple[float, float]]:
    """Working-set ranges read as each level: a cache's from its predecessor's size to half its
    own (room for the rest of the program), memory from ``DRAM_FACTOR`` × the last cache on."""
    bounds, low = [], 0.0
    for _, size in caches:
        bounds.append((low, size / 2))
        low = float(size)
    bounds.append((low * DRAM_FACTOR if caches else 0.0, np.inf))
    return bounds


def plateaus(sizes, bandwidth, caches) -> tuple[tuple[str, float], ...]:
    """One (name, bandwidth) per cache and one ``"DRAM"``: the median bandwidth of the working
    sets in each level's range, or of the nearest size where none falls inside."""
    sizes, bandwidth = np.asarray(sizes, float), np.asarray(bandwidth, float)
    names = [name for name, _ in caches] + ["DRAM"]
    levels = []
    for name, (low, high) in zip(names, _level_bounds(caches, sizes)):
        inside = (sizes > low) & (sizes <= high)
        if not inside.any():
            middle = low * 2 if np.isinf(high) else (max(low, 1.0) * high) ** 0.5
            inside = np.abs(np.log(sizes / middle)) == np.abs(np.log(sizes / middle)).min()
        levels.append((name, float(np.median(bandwidth[inside]))))
    return tuple(levels)


_STREAM_ADD = None


def _stream_add_kernel():
    global _STREAM_ADD
    if _STREAM_ADD is None:
        from numba import njit

        @njit(cache=True, nogil=True)
        def stream_add(a, b, c, passes):
            for _ in range(passes):
                for i in range(a.size):
                    c[i] = a[i] + b[i]
                a[0] = c[a.size - 1]  # a data dependency between passes: no pass can be elided

        _STREAM_ADD = stream_add
    return _STREAM_ADD
