"""Empirical ceilings of the host (seed 002, stage 1): a STREAM-like kernel for bandwidth and a
large matrix product for compute, each the best of a few runs; per memory level, a bandwidth sweep
and a pointer-chase latency sweep over working-set sizes (docs/memory-hierarchy.md#measuring-the-levels-on-this-host)."""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..errors import ArgumentError, MeasurementWarning, short_repr
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
SPREAD = 0.5  # repeats of one size further apart than this fraction of the best contradict each other
ORDER_SLACK = 0.05  # a farther level within this fraction of a nearer one is read as equal, not out of order
LINE = 64  # bytes per cache line: the pointer chase puts one pointer per line


@dataclass(frozen=True, eq=False)
class LevelSweep:
    """A quantity measured at each working-set size, and the plateaus read off it as levels.

    ``sizes`` (bytes) and ``values`` (the best repeat of each size) are the sweep, ``runs`` (sizes,
    repeats) every repeat; ``caches`` the host's data caches as (name, bytes), nearest first; ``levels``
    one (name, value) per cache and one for memory (``"DRAM"``), each the median of the sweep's points
    whose working set fits that level and not the one before. ``problems`` says where the
    measurement contradicts itself after it was measured again
    (docs/memory-hierarchy.md#measuring-the-levels-on-this-host): a nearer level worse than a farther
    one, or repeats apart by more than the spread.
    """

    sizes: np.ndarray
    values: np.ndarray
    caches: tuple[tuple[str, int], ...]
    levels: tuple[tuple[str, float], ...]
    runs: np.ndarray | None = None
    problems: tuple[str, ...] = ()

    falling: ClassVar[bool] = True  # values fall away from compute (bandwidth); False: they rise (latency)
    title: ClassVar[str] = ""
    ylabel: ClassVar[str] = ""
    shown: ClassVar[tuple[float, str]] = (1.0, "")  # a level's label: value × scale, in that unit

    def label(self, value: float) -> str:
        scale, unit = self.shown
        return f"{value * scale:.3g} {unit}".rstrip()

    @property
    def monotone(self) -> bool:
        """True when no level is worse than a level farther from compute."""
        return not hierarchy_problems(self.levels, falling=self.falling)

    def plot(self, ax=None):
        """The sweep on log axes with the spread of its repeats, each level's plateau and each
        cache's size marked; returns the matplotlib Figure."""
        return _plot_sweep(self, ax)


class BandwidthSweep(LevelSweep):
    """Bandwidth (B/s) of STREAM add at each working-set size (bytes of its three arrays); see ``LevelSweep``."""

    title, ylabel, shown = "memory bandwidth", "bandwidth (B/s)", (1e-9, "GB/s")
    bandwidth = property(lambda self: self.values, doc="The best repeat's bandwidth per size (B/s).")


class LatencySweep(LevelSweep):
    """Load-to-use latency (seconds per dependent load) of a pointer chase at each working-set size
    (bytes of the chain); see ``LevelSweep``."""

    falling, title, ylabel, shown = False, "load latency", "latency (s)", (1e9, "ns")
    latency = property(lambda self: self.values, doc="The best repeat's seconds per load per size.")


def _plot_sweep(sweep: LevelSweep, ax):
    import matplotlib.pyplot as plt

    figure = ax.figure if ax is not None else plt.figure(figsize=(6, 3.2), layout="constrained")
    ax = ax if ax is not None else figure.add_subplot()
    ink = plt.rcParams["text.color"]  # the style's own: the sweep reads on a light or a dark style alike
    if sweep.runs is not None and sweep.runs.shape[1] > 1:
        ax.fill_between(
            sweep.sizes, sweep.runs.min(axis=1), sweep.runs.max(axis=1), color=ink, alpha=0.2, lw=0, label="repeats"
        )
    ax.loglog(sweep.sizes, sweep.values, "o-", ms=3, lw=1, color=ink, alpha=0.8, label="measured")
    bounds = _level_bounds(sweep.caches, sweep.sizes)
    for (name, value), (low, high) in zip(sweep.levels, bounds):
        ax.hlines(value, max(low, sweep.sizes[0]), min(high, sweep.sizes[-1]), lw=3, alpha=0.6)
        ax.annotate(
            f"{name} {sweep.label(value)}",
            (max(low, sweep.sizes[0]), value),
            textcoords="offset points",
            xytext=(2, 4),
            fontsize=8,
        )
    for _, size in sweep.caches:
        ax.axvline(size, color=ink, alpha=0.3, lw=0.8, ls="--")
    ax.set_xlabel("working set (bytes)")
    ax.set_ylabel(sweep.ylabel)
    ax.set_title(f"{sweep.title} by working-set size" + ("" if sweep.monotone else " (levels not monotone)"))
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
    spread: float = SPREAD,
    progress: ProgressCallback | bool | None = None,
) -> BandwidthSweep:
    """STREAM "add" (``c = a + b``, 3 × 8 bytes per element) at working sets from 4 KiB to
    ``DRAM_FACTOR`` × the last cache (two sizes per octave), each timed over enough passes to take
    ``seconds_per_size``, best of ``repeats``; the plateaus become levels (see ``BandwidthSweep``).
    Sizes whose repeats differ by more than ``spread`` (a fraction of the best), and the levels of a
    hierarchy that is not monotone, are measured again once; what still contradicts itself is warned
    about (``MeasurementWarning``) and kept in ``problems``."""
    caches = cache_sizes() if caches is None else tuple(caches)
    sizes = _checked_sizes(sizes, caches, per_octave=2, smallest=24)
    kernel = _stream_add_kernel()

    def measure(size: float) -> list[float]:
        n = max(1, int(size // 24))
        a, b, c = np.ones(n), np.full(n, 2.0), np.empty(n)
        kernel(a, b, c, 1)  # compiles once; warms the caches
        passes = max(1, int(seconds_per_size * 2e10 / (24 * n)) // repeats)  # at ~20 GB/s: enough passes
        runs = []
        for _ in range(repeats):
            started = time.perf_counter()
            kernel(a, b, c, passes)
            runs.append(24 * n * passes / max(time.perf_counter() - started, 1e-9))
        return runs

    best, runs, levels, problems = measured_sweep(
        sizes, measure, caches, falling=True, spread=spread, what="bandwidth sweep", progress=progress
    )
    return BandwidthSweep(sizes=sizes, values=best, caches=caches, levels=levels, runs=runs, problems=problems)


def latency_sweep(*, seconds_per_size: float = 0.01, **options) -> LatencySweep:
    """A pointer chase (each load's address is the value the last one read, through one random cycle
    over the working set's cache lines) at working sets from 4 KiB to ``DRAM_FACTOR`` × the last
    cache, one size per octave; each repeat chases for about ``seconds_per_size / repeats``, so the
    sweep's time is bounded by the sizes × ``seconds_per_size`` (and building the chains). The
    latency is seconds per load, best of ``repeats``; the plateaus become levels and contradictions
    are measured again, then warned about, as in ``bandwidth_sweep``, whose other keywords it takes
    (``sizes``, ``caches``, ``repeats=3``, ``spread``, ``progress``)."""
    return _latency_sweep(seconds_per_size, **options)


def _latency_sweep(
    seconds_per_size: float, *, sizes=None, caches=None, repeats: int = 3, spread: float = SPREAD, progress=None
) -> LatencySweep:
    caches = cache_sizes() if caches is None else tuple(caches)
    sizes = _checked_sizes(sizes, caches, per_octave=1, smallest=2 * LINE)
    kernel = _chase_kernel()
    rng = np.random.default_rng(0)

    def measure(size: float) -> list[float]:
        lines = max(2, int(size // LINE))
        chain, starts = pointer_chain(lines, rng)
        at = kernel(chain, int(starts[0]), lines)  # compiles once; warms the caches
        started = time.perf_counter()
        at = kernel(chain, at, 1000)
        guess = max((time.perf_counter() - started) / 1000, 1e-10)
        steps = int(min(max(seconds_per_size / repeats / guess, 1000), 1e9))
        runs = []
        for _ in range(repeats):
            started = time.perf_counter()
            at = kernel(chain, at, steps)  # on from where the last run stopped: lines not just visited
            runs.append((time.perf_counter() - started) / steps)
        return runs

    best, runs, levels, problems = measured_sweep(
        sizes, measure, caches, falling=False, spread=spread, what="latency sweep", progress=progress, stacklevel=4
    )
    return LatencySweep(sizes=sizes, values=best, caches=caches, levels=levels, runs=runs, problems=problems)


def memory_working_set(caches: tuple[tuple[str, int], ...] | None = None) -> int:
    """The largest working set a sweep measures: ``2 × DRAM_FACTOR`` × the last cache (at least 8 MiB's)."""
    caches = cache_sizes() if caches is None else caches
    return max([size for _, size in caches] + [8 << 20]) * DRAM_FACTOR * 2


def _checked_sizes(sizes, caches, *, per_octave: int, smallest: int) -> np.ndarray:
    if sizes is None:
        largest = memory_working_set(caches)
        octaves = np.arange(12, np.log2(largest) + 0.01, 1 / per_octave)
        sizes = np.unique(np.round(2.0**octaves / smallest) * smallest)
    sizes = np.asarray(sizes, dtype=np.float64)
    if sizes.ndim != 1 or sizes.size == 0 or not np.all(np.isfinite(sizes)) or np.any(sizes < smallest):
        raise ArgumentError(f"sizes must be working sets of at least {smallest} bytes, got {short_repr(sizes)}")
    return sizes


def measured_sweep(sizes, measure, caches, *, falling: bool, spread: float, what: str, progress=None, stacklevel=3):
    """``measure(size)`` (the repeats' values) at every size, the best per size (the highest when
    values ``falling`` outward, as bandwidth; the lowest, as latency), the levels read off the best,
    and the contradictions left after the sizes involved are measured once more: ``(best, runs,
    levels, problems)``; each problem left is also a ``MeasurementWarning``."""
    if not 0 < spread:
        raise ArgumentError(f"spread={short_repr(spread)} must be > 0 (a fraction of the best repeat)")
    report = Progress(True if progress is None else progress, total=len(sizes), what=what, with_what=True)
    runs = []
    for k, size in enumerate(sizes):
        runs.append(measure(size))
        report(k + 1, f"working set {int(size):,} B")
    table = np.array(runs, dtype=np.float64).reshape(len(sizes), -1)
    again = _contradicting_sizes(sizes, table, caches, falling=falling, spread=spread)
    for j in np.flatnonzero(again):
        table[j] = measure(sizes[j])
    best = table.max(axis=1) if falling else table.min(axis=1)
    levels = plateaus(sizes, best, caches)
    problems = hierarchy_problems(levels, falling=falling) + spread_problems(sizes, table, spread=spread)
    for line in problems:
        warnings.warn(f"{what}: {line}", MeasurementWarning, stacklevel=stacklevel)  # at the caller's sweep
    return best, table, levels, tuple(problems)


def _contradicting_sizes(sizes, table, caches, *, falling: bool, spread: float) -> np.ndarray:
    """Sizes to measure again: repeats beyond ``spread``, and every size read as a level that is out
    of order with another."""
    best = table.max(axis=1) if falling else table.min(axis=1)
    again = _beyond_spread(table, spread=spread)
    levels = plateaus(sizes, best, caches)
    masks = _level_masks(sizes, caches)
    for near, far in _out_of_order(levels, falling=falling):
        again |= masks[near] | masks[far]
    return again


def _beyond_spread(table, *, spread: float) -> np.ndarray:
    """Per size: True where the worst repeat is more than ``1 + spread`` times off the best."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = table.max(axis=1) / table.min(axis=1)
    return ~(ratio <= 1 + spread)


def _out_of_order(levels, *, falling: bool) -> list[tuple[int, int]]:
    """(near, far) index pairs of levels out of order beyond ``ORDER_SLACK``: a farther level faster
    (``falling``, bandwidth) or with a shorter latency than a nearer one."""
    values = [value for _, value in levels]
    pairs = []
    for near in range(len(values)):
        for far in range(near + 1, len(values)):
            a, b = values[near], values[far]
            if (b > a * (1 + ORDER_SLACK)) if falling else (a > b * (1 + ORDER_SLACK)):
                pairs.append((near, far))
    return pairs


def hierarchy_problems(levels, *, falling: bool) -> list[str]:
    """One line per pair of levels out of order: a nearer level slower than a farther one."""
    better = "faster" if falling else "quicker"
    return [
        f"{levels[near][0]} ({levels[near][1]:.3g}) is not {better} than {levels[far][0]} ({levels[far][1]:.3g}): "
        "a nearer level measured slower than a farther one (a loaded host?)"
        for near, far in _out_of_order(levels, falling=falling)
    ]


def spread_problems(sizes, table, *, spread: float) -> list[str]:
    """One line for the sizes whose repeats are more than ``1 + spread`` times apart (none: [])."""
    beyond = np.flatnonzero(_beyond_spread(table, spread=spread))
    if not beyond.size:
        return []
    ratio = table.max(axis=1) / table.min(axis=1)
    worst = int(beyond[np.argmax(ratio[beyond])])
    return [
        f"repeats more than {1 + spread:.3g}× apart at {beyond.size} of {len(sizes)} working sets (up to "
        f"{ratio[worst]:.3g}× at {int(sizes[worst]):,} B): the host is busy; the best repeat of each is kept"
    ]


def _level_bounds(caches, sizes) -> list[tuple[float, float]]:
    """Working-set ranges read as each level: a cache's from its predecessor's size to half its
    own (room for the rest of the program), memory from ``DRAM_FACTOR`` × the last cache on."""
    bounds, low = [], 0.0
    for _, size in caches:
        bounds.append((low, size / 2))
        low = float(size)
    bounds.append((low * DRAM_FACTOR if caches else 0.0, np.inf))
    return bounds


def _level_masks(sizes, caches) -> list[np.ndarray]:
    """Per level (each cache, then memory), the sizes read as it: those in its range, or the nearest
    size where none falls inside."""
    masks = []
    for low, high in _level_bounds(caches, sizes):
        inside = (sizes > low) & (sizes <= high)
        if not inside.any():
            middle = low * 2 if np.isinf(high) else (max(low, 1.0) * high) ** 0.5
            inside = np.abs(np.log(sizes / middle)) == np.abs(np.log(sizes / middle)).min()
        masks.append(inside)
    return masks


def plateaus(sizes, bandwidth, caches) -> tuple[tuple[str, float], ...]:
    """One (name, value) per cache and one ``"DRAM"``: the median value (bandwidth or latency) of the
    working sets in each level's range, or of the nearest size where none falls inside."""
    sizes, bandwidth = np.asarray(sizes, float), np.asarray(bandwidth, float)
    names = [name for name, _ in caches] + ["DRAM"]
    return tuple(
        (name, float(np.median(bandwidth[inside]))) for name, inside in zip(names, _level_masks(sizes, caches))
    )


def pointer_chain(lines: int, rng: np.random.Generator, chains: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Pointer chains over ``lines`` cache lines: one int64 index per line, 8 per line, each line's
    first slot holding the next line's, in ``chains`` random cycles that share the lines out (no
    prefetcher predicts them; every load of a chain depends on the one before, the chains do not
    depend on each other). Returns the array and each chain's first index."""
    order = rng.permutation(lines) * (LINE // 8)
    chain = np.zeros(lines * (LINE // 8), dtype=np.int64)
    cycles = np.array_split(order, max(1, min(int(chains), lines)))
    for cycle in cycles:
        chain[cycle] = np.roll(cycle, -1)
    return chain, np.array([cycle[0] for cycle in cycles], dtype=np.int64)


_CHASE = None


def _chase_kernel():
    global _CHASE
    if _CHASE is None:
        from numba import njit

        @njit(cache=True, nogil=True)
        def chase(chain, start, steps):
            p = start
            for _ in range(steps):
                p = chain[p]
            return p  # returned: the loads cannot be elided, and the next run goes on from here

        _CHASE = chase
    return _CHASE


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
