"""The cache hierarchy (docs/memory-hierarchy.md#a-cache-hierarchy-in-the-local-view): levels chained as pycachesim chains them, level by level.

Checked against pycachesim (RRZE-HPC, test-only) on matrix products of several loop orders with 2- and
3-level hierarchies, and against a plain-Python chain of LRU caches on random traces.
"""

import warnings
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaign_widget.cache import Cache, CacheModelError, CacheResult, Layout, simulate, trace

MATMUL = "C[i,j] = A[i,k] * B[k,j]"

HIERARCHIES = {
    "L1 2-way 512 B, L2 4-way 4 KiB": [Cache(lines=8, ways=2), Cache(lines=64, ways=4)],
    "L1 FA 16 lines, L2 direct-mapped 2 KiB": [Cache(lines=16), Cache(lines=32, ways=1)],
    "L1 8-way 2 KiB, L2 8-way 8 KiB, L3 16-way 64 KiB": [
        Cache(lines=32, ways=8),
        Cache(lines=128, ways=8),
        Cache(lines=1024, ways=16),
    ],
    "32 B, 64 B, 128 B lines": [
        Cache(line=32, lines=8, ways=2),
        Cache(line=64, lines=64, ways=4),
        Cache(line=128, lines=256, ways=1),
    ],
    "L2 with 96 ways (set by set)": [Cache(lines=8, ways=2), Cache(lines=192, ways=96)],
}


def pycachesim_levels(addresses, levels, elem_bytes=8):
    """(misses, loads) per level of pycachesim's chain: each level loads from (and stores to) the next."""
    cachesim = pytest.importorskip("cachesim")
    memory = cachesim.MainMemory()
    below, made = None, []
    for k in range(len(levels) - 1, -1, -1):
        c = levels[k]
        level = cachesim.Cache(f"L{k + 1}", c.sets, c.associativity, c.line, "LRU", store_to=below, load_from=below)
        made.insert(0, level)
        below = level
    memory.load_to(made[-1])
    memory.store_from(made[-1])
    simulator = cachesim.CacheSimulator(made[0], memory)
    simulator.load(addresses, length=elem_bytes)  # every access as a load: the reference that allocates
    return [lv.backend.MISS_count for lv in made], [lv.backend.LOAD_count for lv in made]


@pytest.mark.parametrize("loop_order", ["ijk", "ikj", "jki", "kij"])
@pytest.mark.parametrize("name", list(HIERARCHIES))
def test_matmul_hierarchies_equal_pycachesim_level_by_level(loop_order, name):
    levels = HIERARCHIES[name]
    t = trace(MATMUL, {"i": 16, "j": 12, "k": 20}, elem_bytes=8, loop_order=loop_order)
    ours = simulate(t, levels, progress=False)
    align = max(c.line for c in levels)
    misses, loads = pycachesim_levels(t.addresses(align).tolist(), levels)
    assert [r.misses for r in ours] == misses
    assert [r.accesses for r in ours] == loads
    assert [r.level for r in ours] == [f"L{k + 1}" for k in range(len(levels))]
    for above, below in zip(ours, ours[1:]):
        assert below.accesses == above.misses  # each level is fed the misses of the one above
        if below.cache.line == above.cache.line:
            assert below.cold == above.cold  # a line's first reference misses every level
        assert below.cold + below.capacity + below.conflict == below.misses


def test_the_first_level_of_a_hierarchy_is_the_single_cache_result():
    t = trace(MATMUL, {"i": 8, "j": 8, "k": 8}, elem_bytes=8, loop_order="ikj")
    alone = simulate(t, Cache(lines=16, ways=4))
    first, _ = simulate(t, [Cache(lines=16, ways=4), Cache(lines=64, ways=8)])
    assert type(alone) is CacheResult and alone.level is None and alone.feed is None
    assert repr(alone).startswith("CacheResult(1,024 B 4-way set-associative cache")
    assert first.level == "L1" and first.feed is None
    assert (first.misses, first.cold, first.capacity, first.conflict) == (
        alone.misses,
        alone.cold,
        alone.capacity,
        alone.conflict,
    )
    np.testing.assert_array_equal(first.miss, alone.miss)


def test_a_mapping_names_the_levels_and_per_tensor_counts_follow_the_feed():
    t = trace(MATMUL, {"i": 12, "j": 12, "k": 12}, elem_bytes=8, loop_order="ijk")
    l1, l2, dram = simulate(t, {"L1": Cache(lines=8, ways=2), "L2": Cache(lines=32, ways=4), "LLC": Cache(lines=512)})
    assert (l1.level, l2.level, dram.level) == ("L1", "L2", "LLC")
    assert repr(l2).startswith("CacheResult(L2: 2,048 B 4-way")
    per = l2.per_tensor
    assert sum(v["accesses"] for v in per.values()) == l2.accesses == l1.misses
    assert {k: v["accesses"] for k, v in per.items()} == {k: v["misses"] for k, v in l1.per_tensor.items()}
    assert sum(v["misses"] for v in per.values()) == l2.misses
    element = l2.per_element("A")
    assert int(element["accesses"].sum()) == per["A"]["accesses"]
    assert int(element["misses"].sum()) == per["A"]["misses"]
    with pytest.raises(CacheModelError, match=r"write_backs: level 'L2' is fed by the misses of the level above"):
        l2.write_backs()


def lru_misses(lines, sets, ways):
    stacks = [OrderedDict() for _ in range(sets)]
    missed = []
    for k, line in enumerate(lines):
        s = stacks[line % sets]
        if line in s:
            s.move_to_end(line)
        else:
            missed.append(k)
            s[line] = None
            if len(s) > ways:
                s.popitem(last=False)
    return missed


def lru_chain(lines_per_level, levels):
    """Misses per level of a plain LRU chain: a level's misses, in order, are the next level's accesses;
    and per level, its accesses' lines."""
    stream, counts, streams = None, [], []
    for k, cache in enumerate(levels):
        lines = lines_per_level[k] if stream is None else [lines_per_level[k][t] for t in stream]
        feed = list(range(len(lines_per_level[k]))) if stream is None else stream
        sets, ways = cache.sets, cache.lines // cache.sets
        stacks = [OrderedDict() for _ in range(sets)]
        missed = []
        for t, line in zip(feed, lines):
            s = stacks[line % sets]
            if line in s:
                s.move_to_end(line)
            else:
                missed.append(t)
                s[line] = None
                if len(s) > ways:
                    s.popitem(last=False)
        counts.append(len(missed))
        streams.append(lines)
        stream = missed
    return counts, streams


level_strategy = st.tuples(st.integers(1, 16), st.sampled_from([None, 1, 2, 4]))


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 300),
    a=st.integers(1, 50),
    b=st.integers(0, 50),
    m=st.integers(1, 150),
    c=st.integers(1, 50),
    m2=st.integers(1, 80),
    shifts=st.lists(st.integers(0, 2), min_size=2, max_size=3),
    geometry=st.lists(level_strategy, min_size=3, max_size=3),
)
def test_random_traces_against_a_plain_lru_chain(n, a, b, m, c, m2, shifts, geometry):
    t = trace(
        f"Y[i % 64] = X[({a}*i+{b}) % {m}] * Z[({c}*i) % {m2}]",
        {"i": n},
        elem_bytes=4,
        layouts={"X": Layout(shape=(m,)), "Z": Layout(shape=(m2,))},
    )
    line, levels = 8, []
    for k, shift in enumerate(shifts):  # line sizes grow towards memory
        line <<= shift
        lines, ways = geometry[k]
        lines = lines if ways is None else max(ways, lines // ways * ways)
        levels.append(Cache(line=line, lines=lines * (k + 1), ways=ways))
    align = max(cache.line for cache in levels)
    addresses = t.addresses(align)
    per_level = [(addresses // cache.line).tolist() for cache in levels]
    ours = simulate(t, levels, progress=False)
    counts, streams = lru_chain(per_level, levels)
    assert [r.misses for r in ours] == counts
    for result, lines in zip(ours, streams):  # the classes of every level, from its own stream
        assert result.cold == len(set(lines))
        assert result.fa_misses(result.cache.lines) == len(lru_misses(lines, 1, result.cache.lines))
        assert result.cold + result.capacity + result.conflict == result.misses
        np.testing.assert_array_equal(
            np.flatnonzero(result.miss), lru_misses(lines, result.cache.sets, result.cache.lines // result.cache.sets)
        )


@pytest.mark.parametrize(
    ("levels", "message"),
    [
        ([], r"needs at least one level"),
        ([Cache(), "L2"], r"cache level 2 \(L2\) = 'L2' must be a Cache"),
        ({"L1": Cache(), "": Cache()}, r"cache level name '' must be a non-empty string"),
        ("L1", r"cache='L1' must be a Cache, or the levels of a hierarchy"),
        (42, r"cache=42 must be a Cache, or the levels"),
        ([Cache(line=128), Cache(line=64)], r"cache level L2 has 64-byte lines, shorter than the 128-byte lines of L1"),
    ],
)
def test_bad_hierarchies_name_the_level(levels, message):
    t = trace(MATMUL, {"i": 2, "j": 2, "k": 2})
    with pytest.raises(CacheModelError, match=message):
        simulate(t, levels)


def test_a_level_larger_than_the_one_below_warns_when_inclusive_sizes_are_asked_for():
    t = trace(MATMUL, {"i": 4, "j": 4, "k": 4})
    upside_down = [Cache(lines=64), Cache(lines=16)]
    with pytest.warns(
        UserWarning, match=r"cache level L1 \(4,096 B\) is larger than the level below it, L2 \(1,024 B\)"
    ):
        simulate(t, upside_down, inclusive=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simulate(t, upside_down)  # not asked: pycachesim's chain allows it
        simulate(t, [Cache(lines=16), Cache(lines=64)], inclusive=True)
    with pytest.raises(CacheModelError, match=r"inclusive='yes' must be True or False"):
        simulate(t, upside_down, inclusive="yes")


def test_distances_of_another_trace_are_refused():
    from campaign_widget.cache import stack_distances

    t = trace(MATMUL, {"i": 4, "j": 4, "k": 4})
    other = stack_distances(trace(MATMUL, {"i": 3, "j": 4, "k": 4}))
    with pytest.raises(CacheModelError, match=r"distances has 144 accesses but the trace has 192"):
        simulate(t, Cache(lines=8), distances=other)


@settings(max_examples=50, deadline=None)
@given(
    spec=st.sampled_from(
        [MATMUL, "C[i,j] = A[i,k] * B[j,k]", "Y[i,j] = X[i,j] * X[i,k] * W[k]", "Z[i] = A[i,k] * B[k,j] * A[i,j]"]
    ),
    sizes=st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 9)),
    order=st.sampled_from(["ijk", "ikj", "kij", "jki"]),
    elem_bytes=st.sampled_from([1, 4, 8]),
    geometry=st.lists(level_strategy, min_size=2, max_size=2),
)
def test_loop_nests_whose_blocks_repeat_against_a_plain_lru_chain(spec, sizes, order, elem_bytes, geometry):
    """The first level of a hierarchy counts its misses from the sets alone, through the kernel's copy
    paths for repeating points and blocks; every level's misses and classes against the plain chain."""
    t = trace(spec, dict(zip("ijk", sizes)), elem_bytes=elem_bytes, loop_order=order)
    levels = []
    for k, (lines, ways) in enumerate(geometry):
        lines = lines if ways is None else max(ways, lines // ways * ways)
        levels.append(Cache(line=16, lines=lines * (k + 1), ways=ways))
    per_level = [(t.addresses(16) // 16).tolist()] * 2
    counts, streams = lru_chain(per_level, levels)
    ours = simulate(t, levels, progress=False)
    assert [r.misses for r in ours] == counts
    for result, lines in zip(ours, streams):
        assert result.cold == len(set(lines))
        assert result.fa_misses(result.cache.lines) == len(lru_misses(lines, 1, result.cache.lines))
