"""Runs the kernel over a trace: line ids from the trace's offsets, the kernel's arrays, chunks, progress."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..progress import Progress
from ._blocks import planner
from ._kernel import TOP, kernel

if TYPE_CHECKING:
    from .tracing import Trace

# ``progress=``: None (a bar on stderr for long traces), True/False, or a callback ``(done, total)``
ProgressArg = bool | Callable[[int, int], object] | None

CHUNK = 1 << 20  # accesses per kernel call (progress is reported between calls)
PROGRESS_FROM = 2 * 10**6  # traces at least this long show a progress bar on stderr by default


def run(
    rel: np.ndarray,
    universe: int,
    progress: ProgressArg = None,
    *,
    ref_base: np.ndarray | None = None,
    shift: int = 0,
    jump: tuple[np.ndarray, np.ndarray] | None = None,
    set_low: int = 0,
    sets: int = 0,
    ways: int = 0,
    what: str = "stack distances",
    fa: bool = True,
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, int]:
    """Stack distances of the line ids (rel + ref_base[t mod R]) >> shift (in [0, universe); plain ids:
    the defaults), their histogram, and (sets > 0) each access's position within its set of a W-way LRU
    cache (set = (id + set_low) mod sets) with the number of its misses that are not cold.
    ``jump``: (jump, run) per point of R accesses, from ``_blocks.plan``: the repeating blocks to copy.
    ``fa`` False: the sets only (the distances then say only which accesses are cold, -1)."""
    n = rel.size
    ref_base = np.zeros(1, np.int64) if ref_base is None else np.asarray(ref_base, np.int64)
    out = np.empty(n, np.int32)  # distances < universe < 2^31
    out_set = np.empty(n if sets else 0, np.int8)  # -1 … ways <= DIRECT_WAYS
    hist = np.zeros(min(universe, n) + 1, np.int64)
    if n == 0:
        return out, (out_set if sets else None), hist[:0], 0
    lines = min(universe, n)
    size = 1 << max(6, (4 * lines - 1).bit_length())  # >= 4 × the lines: a renumbering every >= 3·lines
    # the kernel's state in int32 (times < MAX_ACCESSES, lines and stamps < 2^31): half the bytes per compare
    top_line = np.full(TOP, -1, np.int32)
    top_time = np.full(TOP, -1, np.int32)
    where_top = np.full(universe, -1, np.int32)
    last = np.full(universe, -1, np.int32)
    owner = np.full(size, -1, np.int32)
    bits = np.zeros(size // 64, np.uint64)
    tree = np.zeros(size // 64 + 1, np.int32)
    state = np.zeros(7, np.int64)
    if sets >= universe > 0:  # each line in a set of its own: one row per line, whatever the number of sets
        sets, set_of = universe, np.arange(universe, dtype=np.int32)
    elif sets:
        set_of = ((np.arange(universe, dtype=np.int64) + int(set_low) % sets) % sets).astype(np.int32)
    else:
        set_of = np.zeros(0, np.int32)
    set_line = np.full((sets, ways) if sets else (0, 1), -1, np.int32)
    set_time = np.full(set_line.shape, -1, np.int32)
    where_set = np.full(universe if sets else 0, -1, np.int32)
    set_fill = np.zeros(sets, np.int32)
    jump, run = (np.zeros(0, np.int32),) * 2 if jump is None else jump
    steady = -int(jump.min()) * ref_base.size if jump.size and jump.min() < 0 else 0  # longest such block
    first_pos = np.full(universe if steady else 0, -1, np.int32)
    last_pos = np.full(universe if steady else 0, -1, np.int32)
    sfx = np.zeros(steady + 1, np.int32)
    fen = np.zeros(steady + 1, np.int32)
    ids = np.zeros(steady, np.int32)
    compiled = kernel()
    bases = tuple(ref_base.tolist())  # a tuple: the kernel is compiled per length, its loops over references unrolled
    report = Progress(progress, total=n, what=what, unit=" accesses", default=n >= PROGRESS_FROM)
    for start in range(0, n, CHUNK):
        stop = min(n, start + CHUNK)
        compiled(
            rel,
            bases,
            int(shift),
            jump,
            run,
            stop,
            top_line,
            top_time,
            where_top,
            last,
            owner,
            bits,
            tree,
            state,
            set_of,
            set_line,
            set_time,
            where_set,
            set_fill,
            out,
            out_set,
            hist,
            first_pos,
            last_pos,
            sfx,
            fen,
            ids,
            fa,
        )
        report(stop)
    used = np.flatnonzero(hist)
    return out, (out_set if sets else None), hist[: used[-1] + 1 if used.size else 0], int(state[5])


def kernel_input(trace: Trace, line: int, align: int | None = None) -> dict:
    """How the kernel reads ``trace``'s line ids at ``line`` bytes, the tensors' bases rounded up to
    ``align`` bytes (a multiple of ``line``; None: ``line``): when every access is kept and the lines
    are few enough to index directly, straight from the offsets and each reference's base (no id array),
    with the repeating blocks of the loop nest that ``_blocks.plan`` finds (``jump``); else dense ids (the line
    numbers minus the lowest, or np.unique ranks for sparse lines). Line number = id + ``set_low``
    (None: the ids are ranks)."""
    shift = line.bit_length() - 1
    bases = trace.bases_for(line if align is None else align)
    span = -(-(int(bases[-1]) + trace.extents[-1]) // line) if len(trace.tensors) else 0
    n = len(trace)
    if trace.kept is None and n and span < max(4 * n, 1 << 22):
        nref = len(trace.refs)
        ref_base = bases[[r.tensor for r in trace.refs]].astype(np.int64)
        blocks, m = [], 1
        for size in reversed([trace.sizes[i] for i in trace.loop_order]):  # the innermost loop, the two
            if m > 1 and n // (m * nref) >= 3 and (not blocks or blocks[-1] != m):  # innermost, ...
                blocks.append(m)  # (points: in the kernel)
            m *= size
        jump = None
        if blocks:
            jump = np.zeros(n // nref // blocks[0], np.int32), np.zeros(n // nref // blocks[0], np.int32)
            planner()(trace.rel, ref_base, shift, np.array(blocks, np.int64), *jump)
        return dict(rel=trace.rel, ref_base=ref_base, shift=shift, universe=span, jump=jump, set_low=0)
    ids, universe, low = dense_low(trace.addresses(line if align is None else align) >> shift)
    return dict(rel=ids, universe=universe, set_low=low)


def dense(lines: np.ndarray) -> tuple[np.ndarray, int]:
    """Line numbers as dense int32 ids (the numbers minus the lowest when their range is small)."""
    return dense_low(lines)[:2]


def dense_low(lines: np.ndarray) -> tuple[np.ndarray, int, int | None]:
    """Dense int32 ids, their count, and the offset ``low`` with line = id + low (None: ids are ranks)."""
    if lines.size == 0:
        return lines.astype(np.int32), 0, 0
    low, high = int(lines.min()), int(lines.max())
    if high - low < max(4 * lines.size, 1 << 22):
        return (lines - low).astype(np.int32), high - low + 1, low
    uniq, inverse = np.unique(lines, return_inverse=True)
    return inverse.astype(np.int32), uniq.size, None
