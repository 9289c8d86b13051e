"""The repeating blocks of a loop-nest trace, whose distances the kernel copies instead of simulating."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._kernel import njit

STEADY_MAX = 1 << 16  # blocks repeating a block that does not repeat: counted apart when at most this long
PLAN = None


def plan(
    rel: np.ndarray, ref_base: np.ndarray, shift: int, block_points: np.ndarray, jump: np.ndarray, run: np.ndarray
) -> None:
    """The repeating blocks of a loop-nest trace whose distances the kernel copies instead of simulating.

    Access t's line is (rel[t] + ref_base[t mod R]) >> shift, R = len(ref_base) accesses per point (the
    trace's offsets plus the base of the tensor of the reference, a whole number of lines).

    A block of level l is ``block_points[l]`` consecutive points (one iteration of the loop around the
    innermost loops; level 0, one point, is handled by the kernel on the fly). Block b *repeats* when its
    lines equal block b-1's, access for access. After any block with line sequence S, the LRU stack holds
    S's distinct lines on top, in the order of their last use in S, above the older lines in their old
    order (and so does each set's stack, restricted to its lines). So a repeating block leaves every stack
    as it found it, and each of its distances (fully associative, and within its set) depends on S alone.
    When block b-1 repeats too, block b's distances are therefore block b-1's, and the kernel copies them
    without touching its state. Consecutive copied blocks of one level form a run: jump[its first point]
    = the period m (in points), run[its first point] = its length in points (the longest run starting
    there wins; jump and run have one entry per block of the smallest level, jump[p] stands for
    jump[p / block_points[0]]). A block that repeats the block before it, which does not, gets jump = -m (blocks of at
    most STEADY_MAX accesses): the kernel counts its distances from the two blocks' lines alone."""
    n = rel.size
    nref = ref_base.size
    unit = n // nref // jump.size  # jump and run hold one entry per block of the smallest level (no
    for level in range(block_points.size):  # per-point arrays: their fresh pages cost more than the plan)
        m = block_points[level]
        size = m * nref
        before = False
        start = -1
        length = 0
        for b in range(1, n // size):
            s = b * size
            same = True
            q = s
            while q < s + size:  # same reference one block apart: same base, compare rel's lines
                e = min(q + 64, s + size)
                a = rel[q:e]  # (views: plain loops from 0, no negative index, so they vectorize)
                c = rel[q - size : e - size]
                diff = a[0] ^ c[0]
                for u in range(1, e - q):
                    diff |= a[u] ^ c[u]
                if diff >> shift != 0:  # a bit at or above the line's differs in some pair
                    same = False
                    break
                q = e
            if same and before:
                if start < 0:
                    start = b * m
                    length = 0
                length += m
                if length > run[start // unit]:
                    jump[start // unit] = m
                    run[start // unit] = length
            else:
                start = -1
                if same and size <= STEADY_MAX and jump[b * m // unit] == 0:
                    jump[b * m // unit] = -m  # repeats the block before, which does not: see the kernel
            before = same


def planner() -> Callable[..., None]:
    """``plan``, compiled."""
    global PLAN
    if PLAN is None:
        PLAN = njit(plan)
    return PLAN
