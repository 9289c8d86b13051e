"""The cache type in words: computed once (``Cache.kind``), synced by the local view as text."""

import pytest

from campaign_widget.cache import Cache

MATMUL = "C[i,j] = A[i,k] * B[k,j]"


@pytest.mark.parametrize(
    ("cache", "kind"),
    [
        (Cache(lines=8), "fully associative"),
        (Cache(lines=8, ways=8), "fully associative"),  # one set of 8 ways
        (Cache(lines=1, ways=1), "fully associative"),  # one set of one way
        (Cache(lines=8, ways=1), "direct-mapped"),
        (Cache(lines=8, ways=4), "4-way set-associative"),
    ],
)
def test_cache_kind_names_one_set_fully_associative(cache, kind):
    assert cache.kind == kind
    assert f" {kind} cache" in cache.describe()


def test_local_view_syncs_the_kind_and_words_its_note_with_it():
    from campaign_widget.views.local import LocalView

    view = LocalView(None, MATMUL, {"i": 3, "j": 4, "k": 5}, cache=Cache(lines=8, ways=8))
    assert view.cache_kind == "fully associative"
    assert view.readout["lines"][0].startswith("fully associative LRU cache of 8 lines")
    view.ways = 2
    assert view.cache_kind == "2-way set-associative"
    assert view.readout["lines"][0].startswith("2-way set-associative LRU cache of 8 lines")
    view.ways = 1
    assert view.cache_kind == "direct-mapped"
    view.capacity = 1
    assert view.cache_kind == "fully associative"
    assert view.get_state()["cache_kind"] == "fully associative"
