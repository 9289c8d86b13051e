"""The cache model's bounds: nothing allocated per cache line or per largest index, no int64 wrap-around.

Each class of hostile input is refused with the field named before any allocation, or (a huge cache
over a small trace) simulated exactly in memory that follows the trace, not the cache.
"""

import tracemalloc

import numpy as np
import pytest

from campaign_widget.cache import Cache, CacheModelError, Layout, simulate, trace
from campaign_widget.errors import CampaignWidgetError

MATMUL = "C[i,j] = A[i,k] * B[k,j]"


def peak_bytes(fn):
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Cache(lines=2**40, ways=1), r"Cache lines=1099511627776 is more than MAX_LINES = 2\*\*32"),
        (lambda: Cache(lines=2**40), r"MAX_LINES"),
        (lambda: Cache(line=2**30), r"Cache line=1073741824 is more than MAX_LINE_BYTES = 2\*\*20"),
        (lambda: Cache.of_bytes(2**60), r"MAX_LINES"),
    ],
)
def test_a_cache_beyond_the_stated_bounds_is_refused(make, message):
    with pytest.raises(CacheModelError, match=message):
        make()


def test_a_huge_cache_over_a_small_trace_allocates_per_line_of_the_trace():
    t = trace(MATMUL, {"i": 8, "j": 8, "k": 8}, elem_bytes=8)
    simulate(t, Cache(lines=4, ways=1))  # compile and warm up outside the measurement
    cache = Cache(lines=2**26, ways=1)  # 2**26 sets: one row per set would be 512 MiB
    peak = peak_bytes(lambda: simulate(t, cache, progress=False))
    assert peak < 32 * 2**20, peak
    result = simulate(t, cache)
    assert result.misses == result.cold  # every line in a set of its own: only cold misses


def test_an_index_that_jumps_is_refused_before_any_per_element_allocation():
    def jump():
        with pytest.raises(CacheModelError, match=r"tensor 'A' has shape \(3000000001,\).*MAX_ELEMENTS = 100,000,000"):
            trace("Y[i] = A[1000000000*i]", {"i": 4})

    assert peak_bytes(jump) < 2**20


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"layouts": {"A": Layout(strides=(2**61,))}}, r"layouts\['A'\]\.strides\[0\]"),
        ({"layouts": {"A": Layout(offset=2**61)}}, r"layouts\['A'\]\.offset"),
        ({"layouts": {"A": Layout(byte_offset=2**62)}}, r"layouts\['A'\]\.byte_offset"),
        ({"layouts": {"A": Layout(elem_bytes=2**61)}}, r"elem_bytes"),
        ({"elem_bytes": 2**61}, r"elem_bytes"),
        ({"layouts": {"A": Layout(strides=(2**60, 1))}, "sizes": {"i": 8, "j": 2}}, r"strides\[0\]"),
    ],
)
def test_layouts_that_wrap_int64_addresses_are_refused_naming_the_field(options, field):
    sizes = options.pop("sizes", {"i": 4})
    spec = "Y[i] = A[i, j]" if "j" in sizes else "Y[i] = A[i]"
    with pytest.raises(CacheModelError, match=rf"tensor 'A' reaches .*{field}.*MAX_ADDRESS = 2\*\*62"):
        trace(spec, sizes, **options)


@pytest.mark.parametrize("index", ["i**64", "i*2**62", "2**62 + 2**62 - i", "(i + 2**40) * (i + 2**40)"])
def test_index_expressions_that_wrap_int64_are_refused_naming_the_expression(index):
    with pytest.raises(CampaignWidgetError, match=r"A\[dimension 0\]: index expression .* beyond the 64-bit"):
        trace(f"Y[i] = A[{index}]", {"i": 4})


def test_large_exact_index_values_that_fit_are_kept():
    t = trace("Y[i] = A[i**40]", {"i": 2})  # 0 and 1: exact, nothing wraps
    assert t.shapes[t.tensor_index("A")] == (2,)
    np.testing.assert_array_equal(t.element[t.tensor == t.tensor_index("A")], [0, 1])
