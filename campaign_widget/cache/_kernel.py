"""The stack-distance kernel: one sequential pass over a trace's line ids, compiled by numba.

Bennett–Kruskal with a Fenwick tree over last-use stamps, compacted to O(lines). Written as plain
Python that numba compiles (it also runs without numba, slowly, e.g. under a debugger); ``kernel()``
gives the compiled function. Nothing else lives here: the arrays it works on are made by
``_driver.run``, the repeating blocks it copies are found by ``_blocks.plan``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

# numpy cannot vectorize this recurrence (each access's distance depends on every earlier access's
# last-use position), and the vectorized alternatives (offline 2-D dominance counting by sorting) need
# ~log n full sorts of the trace.

DIRECT_WAYS = 64  # sets of at most this many ways are simulated in the same pass as the distances
TOP = 4  # the most recent lines, kept in a small array in front of the Fenwick tree

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)


def _copy(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[:] = src, for two views that do not overlap (compiled: a vectorized loop)."""
    for q in range(dst.size):
        dst[q] = src[q]


def _repeat(a: np.ndarray, t: int, k: int, length: int) -> None:
    """a[t + q] = a[t + q - k] for q < length (the k values before t, repeated), in copies that double
    (each source ends where its target begins: no overlap, so each one vectorizes)."""
    done = 0
    while done < length:
        chunk = min(done + k, length - done)
        _copy(a[t + done : t + done + chunk], a[t - k : t - k + chunk])
        done += chunk


def _copy_run(out: np.ndarray, out_set: np.ndarray, hist: np.ndarray, t: int, k: int, length: int, w: int) -> int:
    """The ``length`` accesses from t on repeat the k before them (a run of blocks repeating a repeating
    block, period k): their distances, and within their sets (when ``out_set`` is not empty), are copied
    and counted. Returns the set misses among them."""
    _repeat(out, t, k, length)
    times = length // k  # each access of the block before the run is repeated this often
    for q in range(t - k, t):
        hist[out[q]] += times
    set_misses = 0
    if out_set.size > 0:
        _repeat(out_set, t, k, length)
        for q in range(t - k, t):
            if out_set[q] == w:
                set_misses += times
    return set_misses


def _steady(
    win: np.ndarray, t: int, set_of: np.ndarray, w: int, out: np.ndarray, out_set: np.ndarray, hist: np.ndarray
) -> int:
    """Distances of the point at t, whose R lines (win[R:]) equal the point before's (win[:R]), which
    did not repeat its own: each line's use before is the same reference one point ago or later, so
    its distance is the number of distinct lines between, and within its set likewise (out_set: capped
    at W). Returns the set misses (none are cold)."""
    nref = win.size // 2
    n_sets = out_set.size > 0
    misses = 0
    for r in range(nref):
        x = win[nref + r]
        c = 0
        c_set = 0
        q = nref + r - 1
        while win[q] != x:  # found at r or later
            y = win[q]
            seen = False
            for e in range(q + 1, nref + r):
                if win[e] == y:
                    seen = True
                    break
            if not seen:
                c += 1
                if n_sets and set_of[y] == set_of[x]:
                    c_set += 1
            q -= 1
        out[t + r] = c
        hist[c] += 1
        if n_sets:
            if c_set < w:
                out_set[t + r] = c_set
            else:
                out_set[t + r] = w
                misses += 1
    return misses


def _repeat_block(
    rel: np.ndarray,
    ref_base: np.ndarray,
    shift: int,
    t: int,
    k: int,
    first_pos: np.ndarray,
    last_pos: np.ndarray,
    sfx: np.ndarray,
    fen: np.ndarray,
    ids: np.ndarray,
    out: np.ndarray,
    hist: np.ndarray,
    set_of: np.ndarray,
    set_line: np.ndarray,
    set_time: np.ndarray,
    where_set: np.ndarray,
    set_fill: np.ndarray,
    out_set: np.ndarray,
    fa: bool,
) -> int:
    """Distances of the k accesses from t on, a block that repeats the block before it, which does not
    (see ``distances``); the W-way sets are simulated as usual (``fa`` False: only they). Returns the set
    misses."""
    nref = len(ref_base)
    n_sets = set_line.shape[0]
    w = set_line.shape[1]
    set_misses = 0
    for q0 in range(0, k, nref):  # the block's line ids (k is whole points; the loop over the
        for r in range(nref):  # references unrolled), first and last place of each line
            q = q0 + r
            x = (rel[t + q] + ref_base[r]) >> shift
            ids[q] = x
            if fa and first_pos[x] < 0:
                first_pos[x] = q
            if fa:
                last_pos[x] = q
    if fa:
        sfx[k] = 0  # sfx[q]: lines whose last place is q or later
        for q in range(k - 1, -1, -1):
            sfx[q] = sfx[q + 1] + (1 if last_pos[ids[q]] == q else 0)
    for q in range(k):
        a = t + q
        x = ids[q]
        if not fa:  # the sets only
            c = 0
        elif first_pos[x] == q:  # its use before is in the block before: its depth there
            lp = last_pos[x]  # (lines used later there) + lines moved above it since
            c = sfx[lp + 1]  # (used here before it, last used there before it)
            i = lp  # fen: a Fenwick tree over last places of lines seen here
            while i > 0:
                c += fen[i]
                i -= i & (-i)
            i = lp + 1
            while i <= k:
                fen[i] += 1
                i += i & (-i)
        else:  # its use before is in this block: as in the block before
            c = out[a - k]
        out[a] = c
        hist[c] += 1
        # the sets: simulated (the block leaves them as they were); the W-way update is written out here
        # and in ``distances``, because numba compiles a shared helper (inlined or called) into slower loops
        if n_sets > 0:
            row = set_of[x]
            j = where_set[x]
            if j >= 0:
                tx = set_time[row, j]
                c = 0
                for q2 in range(w):
                    c += set_time[row, q2] > tx
                out_set[a] = c
                set_time[row, j] = a
            else:
                out_set[a] = w
                set_misses += 1
                if set_fill[row] < w:
                    j = set_fill[row]
                    set_fill[row] += 1
                else:
                    j = 0
                    oldest = set_time[row, 0]
                    for q2 in range(1, w):
                        v = set_time[row, q2]
                        if v < oldest:
                            oldest = v
                            j = q2
                    where_set[set_line[row, j]] = -1
                set_line[row, j] = x
                set_time[row, j] = a
                where_set[x] = j
    if fa:
        for q in range(k):  # reset the scratch
            first_pos[ids[q]] = -1
            last_pos[ids[q]] = -1
        for q in range(k + 1):
            fen[q] = 0
    return set_misses


def _renumber(owner: np.ndarray, last: np.ndarray, bits: np.ndarray, tree: np.ndarray) -> int:
    """Stamps ran out: give the live ones 0..rank-1 in order (one scan of ``owner``, no sort), rebuild
    ``bits`` and the Fenwick tree ``tree``; returns rank, the next stamp."""
    size = owner.size
    n_words = bits.size
    rank = 0
    for q in range(size):
        z = owner[q]
        if z >= 0 and last[z] == q:
            last[z] = rank
            owner[rank] = z
            rank += 1
    for q in range(rank, size):
        owner[q] = -1
    for q in range(n_words):  # stamps 0..rank-1 live: full words, then a partial one
        if (q + 1) * 64 <= rank:
            bits[q] = ~np.uint64(0)
        elif q * 64 < rank:
            bits[q] = (np.uint64(1) << np.uint64(rank - q * 64)) - np.uint64(1)
        else:
            bits[q] = np.uint64(0)
    for i in range(1, n_words + 1):  # tree[i] counts stamps in words (i - lowbit(i), i]
        lo = (i - (i & (-i))) * 64
        hi = i * 64 if i * 64 < rank else rank
        tree[i] = hi - lo if hi > lo else 0
    return rank


def distances(
    rel: np.ndarray,
    ref_base: np.ndarray,
    shift: int,
    jump: np.ndarray,
    run: np.ndarray,
    stop: int,
    top_line: np.ndarray,
    top_time: np.ndarray,
    where_top: np.ndarray,
    last: np.ndarray,
    owner: np.ndarray,
    bits: np.ndarray,
    tree: np.ndarray,
    state: np.ndarray,
    set_of: np.ndarray,
    set_line: np.ndarray,
    set_time: np.ndarray,
    where_set: np.ndarray,
    set_fill: np.ndarray,
    out: np.ndarray,
    out_set: np.ndarray,
    hist: np.ndarray,
    first_pos: np.ndarray,
    last_pos: np.ndarray,
    sfx: np.ndarray,
    fen: np.ndarray,
    ids: np.ndarray,
    fa: bool,
) -> None:
    """Stack distances of the accesses from state[3] on, point by point (R = len(ref_base) accesses each),
    until ``stop`` is reached; it resumes the state. Access t's line id (dense, in [0, len(last))) is
    (rel[t] + ref_base[t mod R]) >> shift: the trace's offsets plus the base of the tensor of its
    reference, in lines (plain ids: ref_base = [0], shift = 0). hist[d] counts the distances d >= 0.

    Repeats (exact, see ``_blocks.plan``; jump and run hold one entry per block of ``unit`` points, jump[p] below
    stands for jump[p / unit]): a point p with jump[p] = m > 0 starts run[p] points whose distances
    repeat those m points before them: they are copied. jump[p] = -m: the m points from p on repeat the
    m points before them, which do not repeat theirs. A line's distance there is its distance in the
    block before when its use before is in the block; else (its first use in the block, its use before
    in the block before) the stack at the block's start holds the block's lines in the order of their
    last use in it, so its distance is #(lines last used after it there) + #(lines used in this block
    before it and last used before it there), counted with ``sfx`` and a Fenwick tree ``fen`` over the
    block's places (``first_pos``/``last_pos``: each line's first and last place in the block, -1
    outside). The sets are simulated as usual; the FA state is not touched. On the fly, a point whose lines equal the point
    before's (level 0) leaves the LRU stacks as they are: when that point repeated its own predecessor,
    its distances are copied from it; else they are counted among the last 2R lines (its line's
    previous use is the same reference one point ago, or later). Neither touches the state.

    The LRU stack is split in two. The TOP most recent lines sit in ``top_line`` with their last
    access time in ``top_time`` (``where_top[x]``: x's slot, or -1): a line found there has distance
    #(top entries used more recently). Every older live line has a last-use stamp (``last[x]``, or -1),
    a set bit in ``bits``; ``tree`` is a Fenwick tree over the words' counts, so its distance
    len(top) + #(live stamps > its stamp) is a popcount within its word plus a Fenwick suffix sum. The
    least recent top line makes room for a new one and takes the next stamp (it is more recent than
    every line in the tree). When stamps run out, live stamps are renumbered in order (one scan of
    ``owner``, no sort), so the tree stays a few times the number of distinct lines (small, in cache).
    state = [next stamp, lines in top, lines in the tree, next access, next point, set misses of lines
    seen before, the point before repeated its predecessor].

    Set-associative (``set_line`` has rows, one per set, of W ways; x's set is set_of[x]): each set
    keeps its lines with their last access times (``where_set[x]``: x's way, or -1), so a hit costs
    O(1) plus W comparisons for its position, and a miss evicts the least recent way.
    out_set[t] = the line's position in its set's LRU order (its distance within the set) on a hit,
    W on a miss of a line seen before, -1 when cold. ``fa`` False: the sets only (plain ids, no repeating
    blocks): ``out`` and ``hist`` then say only which accesses are cold (-1)."""
    size = bits.size * 64  # stamps 0..size-1, one bit each in ``bits``
    n_words = bits.size  # ``tree``: a Fenwick tree over the words' live-stamp counts
    stamp = state[0]
    in_top = state[1]
    n_tree = state[2]
    t = state[3]
    p = state[4]
    set_misses = state[5]
    before = state[6] != 0
    n_sets = set_line.shape[0]
    w = set_line.shape[1]
    nref = len(ref_base)
    n = rel.size
    jumps = jump.size > 0
    unit = n // nref // jump.size if jumps else 1  # jump[b], run[b]: the point b × unit (see _blocks.plan)
    check = p  # the next point that may start a block
    win = np.empty(2 * nref, np.int64)  # the lines of the point before (0..R-1) and of this point (R..2R-1)
    if t >= nref:
        for r in range(nref):
            win[r] = (rel[t - nref + r] + ref_base[r]) >> shift
    while t < stop:
        if jumps and p >= check:
            b = p // unit
            check = (b + 1) * unit
            m = jump[b] if b * unit == p else 0
            if m < 0:  # a block repeating the block before it, which does not (see _blocks.plan)
                k = -m * nref
                set_misses += _repeat_block(
                    rel,
                    ref_base,
                    shift,
                    t,
                    k,
                    first_pos,
                    last_pos,
                    sfx,
                    fen,
                    ids,
                    out,
                    hist,
                    set_of,
                    set_line,
                    set_time,
                    where_set,
                    set_fill,
                    out_set,
                    fa,
                )
                t += k
                p += -m
                for r in range(nref):
                    win[r] = (rel[t - nref + r] + ref_base[r]) >> shift
                before = False
                continue
            if m > 0:  # blocks repeating a repeating block: copy their distances
                length = run[b] * nref
                set_misses += _copy_run(out, out_set, hist, t, m * nref, length, w)
                t += length
                p += run[b]
                for r in range(nref):
                    win[r] = (rel[t - nref + r] + ref_base[r]) >> shift
                before = False  # (not known: the safe answer)
                continue
        same = t >= nref
        for r in range(nref):
            x = (rel[t + r] + ref_base[r]) >> shift
            win[nref + r] = x
            same = same and x == win[r]
        # the common paths below stay inline: a call to a compiled helper per point, or per run of points,
        # costs more than the path itself
        if same:  # this point's lines are the point before's: the stacks stay as they are
            counted = 0
            if before:  # which repeated its own: the same distances
                for r in range(nref):
                    out[t + r] = out[t - nref + r]
                    if n_sets > 0:
                        out_set[t + r] = out_set[t - nref + r]
            else:  # which did not: count among the last 2R lines
                distinct = True
                for r in range(1, nref):
                    for r2 in range(r):
                        distinct = distinct and win[r] != win[r2]
                if distinct:  # R distinct lines: between a line's two uses, the other R - 1 once each
                    for r in range(nref):
                        out[t + r] = nref - 1
                    if n_sets > 0:  # within its set: those of the other R - 1 in the same set
                        for r in range(nref):
                            row = set_of[win[r]]
                            c = 0
                            for r2 in range(nref):
                                c += (r2 != r) & (set_of[win[r2]] == row)
                            out_set[t + r] = c if c < w else w
                else:
                    set_misses += _steady(win, t, set_of, w, out, out_set, hist)
                    counted = 1
            e = t + nref  # and the points after it with the same lines (the bases are whole
            points = 1  # lines: compare the offsets' lines), copied as they are found
            while e + nref <= n:
                diff = rel[e] ^ rel[t]
                for r in range(1, nref):
                    diff |= rel[e + r] ^ rel[t + r]
                if diff >> shift != 0:
                    break
                for r in range(nref):
                    out[e + r] = out[t + r]
                if n_sets > 0:
                    for r in range(nref):
                        out_set[e + r] = out_set[t + r]
                e += nref
                points += 1
            times = points - counted
            for r in range(nref):
                hist[out[t + r]] += times
                if n_sets > 0 and out_set[t + r] == w:
                    set_misses += times
            before = True
            for r in range(nref):
                win[r] = win[nref + r]
            t = e
            p += points
            continue
        before = False
        for r in range(nref):
            x = win[nref + r]
            win[r] = x
            # --- fully associative (or, sets only, whether the line is seen for the first time)
            if fa:
                j = where_top[x]
                if j >= 0:
                    tx = top_time[j]
                    c = 0
                    for q in range(TOP):  # branch-free: the unused slots hold time -1
                        c += top_time[q] > tx
                    out[t] = c
                    hist[c] += 1
                    top_time[j] = t
                else:
                    pt = last[x]
                    if pt < 0:
                        out[t] = -1
                    else:
                        word = pt >> 6
                        above = bits[word] >> np.uint64(pt & 63) >> np.uint64(1)  # live stamps above pt in its word
                        above = above - ((above >> np.uint64(1)) & _M1)
                        above = (above & _M2) + ((above >> np.uint64(2)) & _M2)
                        above = (above + (above >> np.uint64(4))) & _M4
                        above = above + (above >> np.uint64(8))
                        above = above + (above >> np.uint64(16))
                        above = (above + (above >> np.uint64(32))) & np.uint64(127)
                        s = 0
                        i = word + 1
                        while i > 0:
                            s += tree[i]
                            i -= i & (-i)
                        c = in_top + (n_tree - s) + np.int64(above)  # s: live stamps in words 0..word
                        out[t] = c
                        hist[c] += 1
                        bits[word] &= ~(np.uint64(1) << np.uint64(pt & 63))
                        i = word + 1
                        while i <= n_words:
                            tree[i] -= 1
                            i += i & (-i)
                        last[x] = -1
                        n_tree -= 1
                    if in_top < TOP:
                        j = in_top
                        in_top += 1
                    else:
                        j = 0
                        oldest = top_time[0]
                        for q in range(1, TOP):
                            v = top_time[q]
                            if v < oldest:
                                oldest = v
                                j = q
                        y = top_line[j]  # demoted into the tree with the next stamp
                        where_top[y] = -1
                        if stamp == size:
                            rank = _renumber(owner, last, bits, tree)
                            stamp = rank
                        bits[stamp >> 6] |= np.uint64(1) << np.uint64(stamp & 63)
                        i = (stamp >> 6) + 1
                        while i <= n_words:
                            tree[i] += 1
                            i += i & (-i)
                        last[y] = stamp
                        owner[stamp] = y
                        stamp += 1
                        n_tree += 1
                    top_line[j] = x
                    top_time[j] = t
                    where_top[x] = j
            else:
                out[t] = -1 if last[x] < 0 else 0
                last[x] = 0
            # --- set associative
            if n_sets > 0:
                row = set_of[x]
                j = where_set[x]
                if j >= 0:
                    tx = set_time[row, j]
                    c = 0
                    for q in range(w):  # branch-free: the unused ways hold time -1
                        c += set_time[row, q] > tx
                    out_set[t] = c
                    set_time[row, j] = t
                else:
                    if out[t] < 0:
                        out_set[t] = -1
                    else:
                        out_set[t] = w
                        set_misses += 1
                    if set_fill[row] < w:
                        j = set_fill[row]
                        set_fill[row] += 1
                    else:
                        j = 0
                        oldest = set_time[row, 0]
                        for q in range(1, w):
                            v = set_time[row, q]
                            if v < oldest:
                                oldest = v
                                j = q
                        where_set[set_line[row, j]] = -1
                    set_line[row, j] = x
                    set_time[row, j] = t
                    where_set[x] = j
            t += 1
        p += 1
    state[0] = stamp
    state[1] = in_top
    state[2] = n_tree
    state[3] = t
    state[4] = p
    state[5] = set_misses
    state[6] = 1 if before else 0


def njit(function: Callable[..., None]) -> Callable[..., None]:
    """``function`` compiled by numba (cached on disk when the install is writable)."""
    import numba

    try:  # compiled once, then loaded from numba's cache; a read-only install compiles per process
        return numba.njit(cache=True, nogil=True)(function)
    except RuntimeError:
        return numba.njit(nogil=True)(function)


KERNEL = None


_HELPERS = (
    "_copy",
    "_repeat",
    "_copy_run",
    "_steady",
    "_repeat_block",
    "_renumber",
)  # the kernel's rare paths, compiled apart (keeps its loop lean)


def kernel() -> Callable[..., None]:
    """``distances``, compiled (with its helpers) on first use."""
    global KERNEL
    if KERNEL is None:
        names = globals()
        for name in _HELPERS:  # the kernel calls them by these names: numba must see compiled ones
            if not hasattr(names[name], "py_func"):
                names[name] = njit(names[name])
        KERNEL = njit(distances)
    return KERNEL
