"""The local-view cache model (docs/data-movement.md#stack-distances): traces, layouts, stack distances and LRU misses.

Exactness is checked against pycachesim (RRZE-HPC, a test-only dependency) access for access, and
against a plain LRU simulator written here.
"""

from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaign_widget.cache import (
    MAX_ACCESSES,
    Cache,
    CacheModelError,
    Layout,
    _blocks,
    _driver,
    _kernel,
    simulate,
    stack_distances,
    trace,
)

MATMUL = "C[i,j] = A[i,k] * B[k,j]"


# ------------------------------------------------------------------------------------------------
# pycachesim, access for access
# ------------------------------------------------------------------------------------------------


def pycachesim_misses(addresses, is_write, cache: Cache, elem_bytes: int) -> np.ndarray:
    """Per-access misses of pycachesim's LRU, write-allocate cache on the same address trace.

    Two facts about pycachesim 0.3.1 decide how the trace is fed:
    - a store that hits does not refresh the line's LRU position (only loads reorder the queue), while
      docs/data-movement.md#stack-distances's LRU counts every access as a reference; a store that misses write-allocates through
      a load. So each write is fed as a load (the reference: a miss here is the write-allocate) and then
      a store of the same address (marks the line dirty, always hits);
    - its single-address ``load``/``store`` parse the address with a 32-bit format into a 64-bit field
      (the upper half is left uninitialised), so we use ``iterload``/``iterstore``, which read it whole.
    """
    cachesim = pytest.importorskip("cachesim")
    memory = cachesim.MainMemory()
    level = cachesim.Cache("L1", cache.sets, cache.associativity, cache.line, "LRU")
    memory.load_to(level)
    memory.store_from(level)
    backend = level.backend
    load, store = backend.iterload, backend.iterstore
    miss = np.empty(len(addresses), bool)
    before = 0
    for k, (address, write) in enumerate(zip(addresses.tolist(), is_write.tolist())):
        load((address,), elem_bytes)
        if write:
            store((address,), elem_bytes)
        now = backend.MISS_count
        miss[k] = now != before
        before = now
    return miss


PYCACHESIM_CACHES = {
    "FA 32 lines": Cache(line=64, lines=32),
    "FA 512 lines": Cache(line=64, lines=512),
    "8-way 32 KiB": Cache.of_bytes(32 * 1024, line=64, ways=8),
    "4-way 4 KiB": Cache.of_bytes(4 * 1024, line=64, ways=4),
    "direct-mapped 2 KiB": Cache.of_bytes(2 * 1024, line=64, ways=1),
}


@pytest.mark.parametrize("n", [16, 32, pytest.param(64, marks=pytest.mark.slow)])
@pytest.mark.parametrize("loop_order", ["ijk", "ikj"])
def test_matmul_misses_equal_pycachesim_access_for_access(n, loop_order):
    t = trace(MATMUL, {"i": n, "j": n, "k": n}, elem_bytes=8, loop_order=loop_order)
    assert len(t) == 3 * n**3
    distances = stack_distances(t, 64, progress=False)
    for name, cache in PYCACHESIM_CACHES.items():
        ours = simulate(t, cache, progress=False)
        reference = pycachesim_misses(t.address, t.is_write, cache, 8)
        assert ours.misses == int(reference.sum()), name
        np.testing.assert_array_equal(ours.miss, reference, err_msg=name)
        if cache.ways is None:  # fully associative: read off the one-pass histogram too
            assert distances.misses(cache.lines) == int(reference.sum()), name


def test_write_backs_equal_pycachesim_evictions_plus_final_flush():
    cachesim = pytest.importorskip("cachesim")
    t = trace(MATMUL, {"i": 16, "j": 16, "k": 16}, elem_bytes=8, loop_order="ikj")
    for cache in (Cache(lines=8, ways=2), Cache(lines=16), Cache(lines=4, ways=1)):
        memory = cachesim.MainMemory()
        level = cachesim.Cache("L1", cache.sets, cache.associativity, cache.line, "LRU")
        memory.load_to(level)
        memory.store_from(level)
        for address, write in zip(t.address.tolist(), t.is_write.tolist()):
            level.backend.iterload((address,), 8)
            if write:
                level.backend.iterstore((address,), 8)
        level.backend.force_write_back()  # the dirty lines still cached are written back at the end
        assert sum(simulate(t, cache).write_backs().values()) == level.backend.EVICT_count


# ------------------------------------------------------------------------------------------------
# a plain LRU simulator and the miss rule
# ------------------------------------------------------------------------------------------------


def lru_misses(lines, capacity, sets=1):
    """Per-access misses of an LRU cache with ``sets`` sets of ``capacity // sets`` ways."""
    ways = capacity // sets
    stacks = [OrderedDict() for _ in range(sets)]
    out = []
    for line in lines:
        s = stacks[line % sets]
        if line in s:
            s.move_to_end(line)
            out.append(False)
        else:
            out.append(True)
            s[line] = None
            if len(s) > ways:
                s.popitem(last=False)
    return np.array(out, bool)


def naive_distances(lines):
    out = []
    for t, line in enumerate(lines):
        earlier = [k for k in range(t) if lines[k] == line]
        out.append(-1 if not earlier else len(set(lines[earlier[-1] + 1 : t])))
    return np.array(out, np.int64)


def stack_of_lines(lines):
    """Stack distances by an explicit LRU stack (most recent first): the position of the line."""
    stack, out = [], []
    for line in lines:
        try:
            position = stack.index(line)
        except ValueError:
            out.append(-1)
        else:
            out.append(position)
            del stack[position]
        stack.insert(0, line)
    return np.array(out, np.int64)


def gather(n, a, b, m, c, m2):
    """A trace with an irregular, repeating pattern: index expressions with % (docs/data-movement.md#sizes-and-parameters evaluator)."""
    return trace(
        f"Y[i % 64] = X[({a}*i+{b}) % {m}] * Z[({c}*i) % {m2}]",
        {"i": n},
        elem_bytes=4,
        layouts={"X": Layout(shape=(m,)), "Z": Layout(shape=(m2,))},
    )


def test_misses_are_cold_plus_distances_at_least_capacity_for_every_capacity():
    t = gather(600, 37, 5, 211, 11, 97)
    d = stack_distances(t, 16)
    lines = (t.addresses(16) // 16).tolist()
    capacities = np.arange(1, d.max + 3)
    every = d.misses(capacities)
    for c in capacities:
        expected = d.cold + int(np.count_nonzero(d.distance >= c))
        assert every[c - 1] == expected == int(lru_misses(lines, int(c)).sum())
    assert d.cold == len(set(lines))
    assert d.histogram.sum() + d.cold == len(t)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 300),
    a=st.integers(1, 50),
    b=st.integers(0, 50),
    m=st.integers(1, 120),
    c=st.integers(1, 50),
    m2=st.integers(1, 60),
    line=st.sampled_from([4, 8, 16, 32, 64]),
    lines=st.integers(1, 24),
    ways=st.sampled_from([None, 1, 2, 4, 8]),
)
def test_random_traces_against_a_plain_lru_simulator(n, a, b, m, c, m2, line, lines, ways):
    t = gather(n, a, b, m, c, m2)
    if ways is not None:
        lines = max(ways, lines // ways * ways)
    cache = Cache(line=line, lines=lines, ways=ways)
    ids = (t.addresses(line) // line).tolist()
    result = simulate(t, cache)
    np.testing.assert_array_equal(result.miss, lru_misses(ids, lines, cache.sets))
    np.testing.assert_array_equal(result.fa_miss, lru_misses(ids, lines, 1))
    np.testing.assert_array_equal(stack_distances(t, line).distance, naive_distances(ids))
    assert result.cold + result.capacity + result.conflict == result.misses


def test_many_ways_take_the_set_by_set_path_and_agree_with_lru():
    t = gather(3000, 13, 1, 1500, 7, 900)
    cache = Cache(line=16, lines=2 * 128, ways=128)  # 2 sets of 128 ways
    ids = (t.addresses(16) // 16).tolist()
    np.testing.assert_array_equal(simulate(t, cache).miss, lru_misses(ids, 256, 2))


@pytest.mark.slow
def test_long_traces_renumber_stamps_and_chunks_resume(monkeypatch):
    """180,000 accesses over ~1,400 lines (stamps for 8,192): stamps run out and are renumbered many times."""
    t = gather(60000, 31, 3, 2000, 17, 700)
    ids = (t.addresses(8) // 8).tolist()
    whole = stack_distances(t, 8)
    np.testing.assert_array_equal(whole.distance, stack_of_lines(ids))
    for lines, ways in ((64, 4), (512, 8)):
        np.testing.assert_array_equal(
            simulate(t, Cache(line=8, lines=lines, ways=ways)).miss, lru_misses(ids, lines, lines // ways)
        )
    monkeypatch.setattr(_driver, "CHUNK", 7777)
    seen = []
    chunked = stack_distances(t, 8, progress=lambda done, total: seen.append((done, total)))
    np.testing.assert_array_equal(whole.distance, chunked.distance)
    assert seen[-1] == (len(t), len(t)) and len(seen) == -(-len(t) // 7777)


def test_sparse_lines_take_the_dense_rank_path():
    # a stride of 2^22 elements: the lines are too sparse to index directly
    t = trace("Y[i] = X[i, j]", {"i": 6, "j": 40}, layouts={"X": Layout(strides=(1 << 22, 1))})
    ids = (t.addresses(64) // 64).tolist()
    d = stack_distances(t, 64)
    np.testing.assert_array_equal(d.distance, naive_distances(ids))
    np.testing.assert_array_equal(simulate(t, Cache(lines=4, ways=2)).miss, lru_misses(ids, 4, 2))


def repeated_block_trace(spec, sizes, order, elem_bytes, strides=None):
    layouts = {"A": Layout(strides=strides)} if strides else None
    return trace(spec, sizes, elem_bytes=elem_bytes, loop_order=order, layouts=layouts)


@settings(max_examples=60, deadline=None)
@given(
    spec=st.sampled_from(
        [MATMUL, "C[i,j] = A[i,k] * B[j,k]", "Y[i,j] = X[i,j] * X[i,k] * W[k]", "Z[i] = A[i,k] * B[k,j] * A[i,j]"]
    ),
    sizes=st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9)),
    order=st.sampled_from(["ijk", "ikj", "kij", "jki"]),
    elem_bytes=st.sampled_from([1, 4, 8]),
    line=st.sampled_from([8, 16, 64]),
    lines=st.integers(1, 12),
    ways=st.sampled_from([None, 1, 2, 4]),
    chunk=st.sampled_from([None, 1, 5, 16]),
)
def test_repeating_loop_nest_blocks_are_copied_exactly(spec, sizes, order, elem_bytes, line, lines, ways, chunk):
    """Loop nests whose points and inner loops repeat the line sequence before them (the kernel copies
    their distances, or counts them among the last lines) against the plain LRU simulator, with kernel
    calls split anywhere (``chunk``: a run of copied points across a call's end)."""
    t = trace(spec, dict(zip("ijk", sizes)), elem_bytes=elem_bytes, loop_order=order)
    if ways is not None:
        lines = max(ways, lines // ways * ways)
    cache = Cache(line=line, lines=lines, ways=ways)
    ids = (t.addresses(line) // line).tolist()
    with pytest.MonkeyPatch.context() as patch:
        if chunk is not None:
            patch.setattr(_driver, "CHUNK", chunk)
        result = simulate(t, cache, progress=False)
        d = stack_distances(t, line, progress=False)
    np.testing.assert_array_equal(result.miss, lru_misses(ids, lines, cache.sets))
    np.testing.assert_array_equal(result.fa_miss, lru_misses(ids, lines, 1))
    assert result.misses == int(lru_misses(ids, lines, cache.sets).sum())
    np.testing.assert_array_equal(d.distance, stack_of_lines(ids))
    np.testing.assert_array_equal(d.histogram, np.bincount(d.distance[d.distance >= 0], minlength=d.histogram.size))


def test_matmul_traces_take_the_repeat_paths():
    """The premise of the test above on real loop nests: ijk copies whole inner loops or counts them from
    their lines (level 1), ikj copies and counts points (level 0); both agree with the explicit LRU stack."""
    for order in ("ijk", "ikj"):
        t = trace(MATMUL, {"i": 16, "j": 16, "k": 16}, elem_bytes=8, loop_order=order)
        source = _driver.kernel_input(t, 64)
        ids = (t.addresses(64) // 64).tolist()
        np.testing.assert_array_equal(stack_distances(t, 64).distance, stack_of_lines(ids))
        rows = np.asarray(ids).reshape(-1, 3)
        if order == "ijk":
            jump, run = source["jump"]
            assert (jump == 16).any() and run.sum() > len(t) // 3 // 2  # most k-loops copied
            assert (jump == -16).any()  # k-loops repeating one that does not: counted from the lines
        else:  # consecutive points with the same three lines: 7 of every 8
            same = (rows[1:] == rows[:-1]).all(axis=1)
            assert same.mean() > 0.8


def test_points_repeating_with_shared_or_colliding_lines_give_the_plain_lru():
    """Points whose lines equal the point before's, when two references of a point share a line (counted
    among the last lines, not the R - 1 shortcut), when the point's other lines fill its set (distance
    within the set capped at the ways: misses), with 2, 3 and 4 references per point."""
    cases = [
        ("C[i,j] = A[i,j] * A[i,j+1]", {"i": 5, "j": 40}, "ij"),  # A's two lines shared
        (MATMUL, {"i": 3, "j": 32, "k": 5}, "ikj"),  # 7 of 8 points repeat
        ("Y[i,j] = X[i,j]", {"i": 4, "j": 48}, "ij"),
        ("D[i,j] = A[i,j] * B[i,j] * C[j,i]", {"i": 4, "j": 24}, "ij"),
    ]
    for spec, sizes, order in cases:
        t = trace(spec, sizes, elem_bytes=4, loop_order=order)
        ids = (t.addresses(64) // 64).tolist()
        rows = np.asarray(ids).reshape(t.points, -1)
        assert ((rows[1:] == rows[:-1]).all(axis=1)).mean() > 0.5, spec  # the premise: points repeat
        np.testing.assert_array_equal(stack_distances(t, 64, progress=False).distance, stack_of_lines(ids))
        for lines, ways in ((2, 1), (4, 2), (6, 3), (8, 1), (16, 4)):
            result = simulate(t, Cache(lines=lines, ways=ways), progress=False)
            expected = lru_misses(ids, lines, lines // ways)
            np.testing.assert_array_equal(result.miss, expected, err_msg=f"{spec} {lines} lines {ways} ways")
            assert result.misses == int(expected.sum())


def test_several_stamp_renumberings_give_the_plain_lru_distances():
    """Far more accesses leave the top of the stack than there are stamps (4 × the lines, rounded up to a
    power of two): the stamps are renumbered many times, and the distances stay exact."""
    t = gather(6000, 17, 3, 400, 29, 300)
    ids = (t.addresses(8) // 8).tolist()
    d = stack_distances(t, 8, progress=False)
    expected = stack_of_lines(ids)
    np.testing.assert_array_equal(d.distance, expected)
    distinct = len(set(ids))
    stamps = 1 << max(6, (4 * distinct - 1).bit_length())
    demoted = int(np.count_nonzero((expected < 0) | (expected >= _kernel.TOP))) - _kernel.TOP
    assert demoted > 3 * stamps, (demoted, stamps)  # at least 3 renumberings
    for lines, ways in ((16, 4), (64, 8), (8, 1)):
        np.testing.assert_array_equal(
            simulate(t, Cache(line=8, lines=lines, ways=ways)).miss, lru_misses(ids, lines, lines // ways)
        )


# ------------------------------------------------------------------------------------------------
# docs/data-movement.md#the-local-view-of-one-phase examples
# ------------------------------------------------------------------------------------------------


def fig5a(**layouts):
    return trace(MATMUL, {"i": 9, "j": 15, "k": 10}, elem_bytes=4, layouts={"B": Layout(order="F"), **layouts})


def test_fig5a_cache_lines_of_a_row_major_and_b_column_major():
    t = fig5a()
    assert t.shapes == ((9, 10), (10, 15), (9, 15))
    a00 = t.same_line("A", 0, line=64)
    # A[0,0]'s 64-byte line: A[0, 0..9] and A[1, 0..5]
    assert [divmod(int(e), 10) for e in a00] == [(0, j) for j in range(10)] + [(1, j) for j in range(6)]
    # B is column-major (flat index = row * 15 + column): B[0,1] shares its line with B[0..9, 0], B[0..5, 1]
    b01 = t.same_line("B", 1 * 0 + 1, line=64)
    assert sorted(divmod(int(e), 15) for e in b01) == sorted([(r, 0) for r in range(10)] + [(r, 1) for r in range(6)])
    # C[8,14]: C's base is 1024 (A: 360 B -> 384; B: 600 B -> 1024); its line holds C[8, 8..14]
    assert list(t.bases) == [0, 384, 1024]
    assert [divmod(int(e), 15) for e in t.same_line("C", 8 * 15 + 14, line=64)] == [(8, j) for j in range(8, 15)]


def test_a_padded_row_starts_on_its_own_line():
    t = fig5a(A=Layout.aligned_rows((9, 10), 16))  # rows of 10 float32 padded to 16 = one 64-byte line
    assert t.strides[0] == (16, 1)
    assert [divmod(int(e), 10) for e in t.same_line("A", 0, line=64)] == [(0, j) for j in range(10)]
    assert [divmod(int(e), 10) for e in t.same_line("A", 13, line=64)] == [(1, j) for j in range(10)]
    # the padding is in the extent: 9 rows of 64 bytes, the last row 40 bytes
    assert t.extents[0] == 8 * 64 + 40


def test_outer_product_related_accesses():
    t = trace("C[i,j] = A[i] * B[j]", {"i": 3, "j": 4})
    related = t.related("B", [0])
    np.testing.assert_array_equal(related["C"], [[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]])
    np.testing.assert_array_equal(related["A"], [1, 1, 1])
    np.testing.assert_array_equal(related["B"], [3, 0, 0, 0])
    # counts stack over several clicked elements
    both = t.related("B", [0, 1])
    np.testing.assert_array_equal(both["A"], [2, 2, 2])
    np.testing.assert_array_equal(both["C"][:, :2], np.ones((3, 2), int))


def test_trace_order_loop_order_and_index_values():
    t = trace(MATMUL, {"i": 2, "j": 3, "k": 4}, elem_bytes=8)
    assert t.loop_order == ("i", "j", "k")  # output indices, then the reduced one innermost
    assert [t.tensors[k] for k in t.tensor[:6]] == ["A", "B", "C", "A", "B", "C"]
    assert t.is_write.tolist()[:3] == [False, False, True]
    assert t.point.tolist()[:6] == [0, 0, 0, 1, 1, 1]
    values = t.index_values(5)  # i=0, j=1, k=1
    assert (int(values["i"]), int(values["j"]), int(values["k"])) == (0, 1, 1)
    # A[i,k] at point 5 is A[0,1]: element 1, address 8; B[1,1] -> element 4 at B's base (64) + 32
    assert t.element[15] == 1 and t.address[15] == 8
    assert t.element[16] == 4 and t.address[16] == 64 + 32
    u = trace(MATMUL, {"i": 2, "j": 3, "k": 4}, elem_bytes=8, loop_order="kij")
    assert u.loop_order == ("k", "i", "j") and int(u.index_values(1)["j"]) == 1


def test_bases_follow_the_line_size():
    t = trace("Y[i] = X[i]", {"i": 10}, elem_bytes=4)  # X: 40 bytes
    assert list(t.bases_for(64)) == [0, 64] and list(t.bases_for(16)) == [0, 48]
    assert t.addresses(16)[1] == 48


def test_index_expressions_shapes_and_out_of_range_reporting():
    # a stencil: X's shape comes from the largest index expression value + 1
    t = trace("Y[i] = X[i] * X[i+1] * X[i+2]", {"i": 5})
    assert t.shapes[t.tensor_index("X")] == (7,)
    assert t.accesses_per_element("X").tolist() == [1, 2, 3, 3, 3, 2, 1]
    # a recurrence reads H[l-1]: at l = 0 that is outside H (shape from the plain index l)
    with pytest.warns(UserWarning, match=r"H\[b, l-1\] at \{'b': 0, 'l': 0\} is \[0, -1\]"):
        r = trace("H[b,l] = H[b,l-1] * A[b,l]", {"b": 2, "l": 4})
    assert r.out_of_range == {"H": 2}
    assert len(r) == 2 * 4 * 3 - 2
    with pytest.raises(CacheModelError, match=r"out-of-range.*H\[b, l-1\]"):
        trace("H[b,l] = H[b,l-1] * A[b,l]", {"b": 2, "l": 4}, out_of_range="error")


# ------------------------------------------------------------------------------------------------
# bad input: errors name the field and the value
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Cache(line=48), r"Cache line=48 must be a power of two"),
        (lambda: Cache(line=64, lines=100, ways=8), r"lines=100 is not divisible by ways=8"),
        (lambda: Cache(lines=0), r"Cache lines=0 must be a whole number >= 1"),
        (lambda: Cache.of_bytes(1000, line=64), r"size=1000 bytes is not a whole number of 64-byte lines"),
        (lambda: Layout(order="X"), r"order='X' must be 'C' or 'F'"),
        (lambda: Layout(offset=-1), r"offset=-1"),
        (lambda: stack_distances(trace("Y[i] = X[i]", {"i": 4}), line=24), r"line=24 must be a power of two"),
        (
            lambda: trace(MATMUL, {"i": 9, "j": 15, "k": 10}, layouts={"A": Layout(strides=(5, 1))}),
            r"layout of 'A': strides=\(5, 1\) are shorter than shape \(9, 10\) allows",
        ),
        (
            lambda: trace(MATMUL, {"i": 9, "j": 15, "k": 10}, layouts={"A": Layout(strides=(1,))}),
            r"strides=\(1,\) has 1 entries but the tensor has 2 dimensions",
        ),
        (
            lambda: trace(MATMUL, {"i": 2, "j": 2, "k": 2}, layouts={"Q": Layout()}),
            r"layouts names unknown tensors \['Q'\]",
        ),
        (lambda: trace(MATMUL, {"i": 2, "j": 2}), r"loop indices \['k'\] have no size"),
        (lambda: trace(MATMUL, {"i": 2, "j": 2, "k": 2}, loop_order="ij"), r"loop_order='ij' must name each"),
        (lambda: trace(MATMUL, {"i": 2, "j": 2, "k": 0}), r"size 'k'=0 must be a positive whole number"),
        (lambda: trace(MATMUL, {"i": 2, "j": 2, "k": 2}, elem_bytes=0), r"elem_bytes=0"),
    ],
)
def test_bad_input_names_field_and_value(make, message):
    with pytest.raises((CacheModelError, ValueError), match=message):
        make()


def test_too_large_trace_names_the_limit_and_the_sizes():
    with pytest.raises(
        CacheModelError,
        match=r"\{'i': 200, 'j': 200, 'k': 200\} makes 8,000,000 points × 3 "
        r"accesses = 24,000,000 accesses; the limit is MAX_ACCESSES = 10,000,000",
    ):
        trace(MATMUL, {"i": 200, "j": 200, "k": 200})
    assert MAX_ACCESSES == 10**7


# ------------------------------------------------------------------------------------------------
# predicted traffic back into the workload
# ------------------------------------------------------------------------------------------------


def gemm_workload(n=32):
    from campaign_widget import Machine, Workload

    return Workload.from_einsums(
        {"gemm": MATMUL},
        {"i": n, "j": n, "k": n},
        element_bytes=8,
        machine=Machine(peak_compute=1e12, peak_bandwidth=1e10),
    )


def test_predicted_traffic_is_line_times_misses_per_tensor():
    from campaign_widget.cache import predicted_traffic

    w = gemm_workload(32)
    cache = Cache.of_bytes(4096, ways=4)
    t = trace(MATMUL, {"i": 32, "j": 32, "k": 32}, elem_bytes=8, loop_order="ikj")
    per_tensor = simulate(t, cache).per_tensor
    predicted = predicted_traffic(w, "gemm", cache, loop_order="ikj")
    assert predicted == {name: 64.0 * per_tensor[name]["misses"] for name in "ABC"}
    # a cache holding everything moves each tensor's lines once: 32·32·8 bytes each
    assert predicted_traffic(w, "gemm", Cache(lines=1024)) == {"A": 8192.0, "B": 8192.0, "C": 8192.0}


def test_loop_interchange_shortens_the_phase():
    from campaign_widget.cache import with_predicted_traffic

    w = gemm_workload(32)
    cache = Cache.of_bytes(4096, ways=4)
    ijk = with_predicted_traffic(w, "gemm", cache, loop_order="ijk")
    ikj = with_predicted_traffic(w, "gemm", cache, loop_order="ikj")
    d_ijk, d_ikj = ijk.table()["duration"][0], ikj.table()["duration"][0]
    assert d_ikj < d_ijk
    # memory-bound: the duration is the predicted bytes over the bandwidth
    assert d_ikj == pytest.approx(ikj.table()["bytes"][0] / 1e10)
    assert ikj.table()["ops"][0] == w.table()["ops"][0]
    assert ikj.predicted["gemm"]["loop_order"] == ("i", "k", "j")
    assert ikj.predicted["gemm"]["reads"].keys() == {"A", "B"} and ikj.predicted["gemm"]["writes"].keys() == {"C"}
    assert ikj.table()["bytes_source"][0] == "predicted" and w.table()["bytes_source"][0] == "logical"
    assert ikj.table()["bytes"][0] == sum(ikj.predicted["gemm"]["tensors"].values())


def test_write_backs_add_dirty_lines_of_the_output():
    from campaign_widget.cache import predicted_traffic

    w = gemm_workload(16)
    cache = Cache(lines=512)
    plain = predicted_traffic(w, "gemm", cache)
    backs = predicted_traffic(w, "gemm", cache, write_back=True)
    assert backs["C"] == plain["C"] + 64 * 32  # C's 32 lines written back once, at the final flush
    assert backs["A"] == plain["A"]


def test_ratio_mode_scales_the_local_miss_ratio_to_full_sizes():
    from campaign_widget.cache import predicted_traffic

    w = gemm_workload(32)
    cache = Cache.of_bytes(4096, ways=4)
    same = predicted_traffic(w, "gemm", cache, mode="ratio", local_sizes={"i": 32, "j": 32, "k": 32})
    assert same == predicted_traffic(w, "gemm", cache)
    local = predicted_traffic(w, "gemm", cache, mode="ratio", local_sizes={"i": 8})
    t = trace(MATMUL, {"i": 8, "j": 32, "k": 32}, elem_bytes=8)
    r = simulate(t, cache).per_tensor
    for name in "ABC":  # misses / local accesses × full accesses (32³), times the line
        assert local[name] == pytest.approx(64 * r[name]["misses"] / r[name]["accesses"] * 32**3)


def test_predicted_traffic_bad_input():
    from campaign_widget import Phase, Workload
    from campaign_widget.cache import predicted_traffic

    w = gemm_workload(8)
    with pytest.raises(CacheModelError, match=r"phase='nope' is not in the workload"):
        predicted_traffic(w, "nope", Cache())
    with pytest.raises(CacheModelError, match=r"mode='ratio' needs local_sizes"):
        predicted_traffic(w, "gemm", Cache(), mode="ratio")
    with pytest.raises(CacheModelError, match=r"mode='fast' must be 'exact' or 'ratio'"):
        predicted_traffic(w, "gemm", Cache(), mode="fast")
    with pytest.raises(CacheModelError, match=r"local_sizes names unknown indices \['z'\]"):
        predicted_traffic(w, "gemm", Cache(), mode="ratio", local_sizes={"z": 2})
    with pytest.raises(CacheModelError, match=r"MAX_ACCESSES = 10,000,000.*or use mode='ratio'"):
        predicted_traffic(gemm_workload(256), "gemm", Cache())
    plain = Workload([Phase("p", duration=1, compute_util=0.5, memory_util=0.5)])
    with pytest.raises(CacheModelError, match=r"build the workload with Workload.from_einsums"):
        predicted_traffic(plain, "p", Cache())


def test_docstring_examples():
    import doctest
    import importlib
    import pkgutil

    import campaign_widget.cache as package

    attempted = 0
    for module in pkgutil.iter_modules(package.__path__):
        result = doctest.testmod(importlib.import_module(f"{package.__name__}.{module.name}"))
        assert result.failed == 0, module.name
        attempted += result.attempted
    assert attempted >= 5


def test_progress_bar_on_stderr(capsys):
    t = gather(2000, 7, 1, 500, 3, 100)
    stack_distances(t, 64, progress=True)
    err = capsys.readouterr().err
    assert "stack distances: 100%" in err and f"{len(t)}/{len(t)}" in err
    stack_distances(t, 64)  # small traces: no bar by default
    assert capsys.readouterr().err == ""


def test_the_plain_python_kernel_agrees_with_the_compiled_one(monkeypatch):
    t = gather(400, 13, 2, 90, 5, 40)
    # and a loop nest with repeating points and inner loops (the copy paths), small enough for plain Python
    u = trace(MATMUL, {"i": 4, "j": 8, "k": 6}, elem_bytes=8, loop_order="ijk")
    v = trace(MATMUL, {"i": 4, "j": 8, "k": 6}, elem_bytes=8, loop_order="ikj")
    cases = [(t, Cache(line=16, lines=8, ways=2)), (u, Cache(lines=8, ways=2)), (v, Cache(lines=4, ways=1))]
    compiled = [simulate(x, cache) for x, cache in cases]
    monkeypatch.setattr(_kernel, "KERNEL", _kernel.distances)
    monkeypatch.setattr(_blocks, "PLAN", _blocks.plan)
    for (x, cache), fast in zip(cases, compiled):
        plain = simulate(x, cache)
        np.testing.assert_array_equal(fast.distances.distance, plain.distances.distance)
        np.testing.assert_array_equal(fast.set_distances, plain.set_distances)
        np.testing.assert_array_equal(fast.miss, plain.miss)
        assert fast.misses == plain.misses


def test_predicted_traffic_of_a_parametric_workload_follows_its_parameters():
    from campaign_widget import Machine, Workload
    from campaign_widget.cache import predicted_traffic

    w = Workload.from_einsums(
        {"gemm": MATMUL},
        {"i": "N", "j": "N", "k": "N"},
        params={"N": 16},
        element_bytes=8,
        machine=Machine(peak_compute=1e12, peak_bandwidth=1e10),
    )
    everything = Cache(lines=4096)
    assert predicted_traffic(w, "gemm", everything) == {"A": 2048.0, "B": 2048.0, "C": 2048.0}
    assert predicted_traffic(w.with_params(N=32), "gemm", everything) == {"A": 8192.0, "B": 8192.0, "C": 8192.0}


def test_predicted_traffic_uses_the_workloads_element_sizes_per_tensor():
    from campaign_widget import Machine, Workload
    from campaign_widget.cache import predicted_traffic

    w = Workload.from_einsums(
        {"gemm": MATMUL},
        {"i": 16, "j": 16, "k": 16},
        element_bytes={"A": 2, "*": 8},
        machine=Machine(peak_compute=1e12, peak_bandwidth=1e10),
    )
    everything = Cache(lines=4096)
    assert predicted_traffic(w, "gemm", everything) == {"A": 512.0, "B": 2048.0, "C": 2048.0}
    # a layout without its own elem_bytes keeps the workload's; one with it overrides
    assert predicted_traffic(w, "gemm", everything, layouts={"A": Layout(order="F")})["A"] == 512.0
    assert predicted_traffic(w, "gemm", everything, layouts={"A": Layout(elem_bytes=4)})["A"] == 1024.0
