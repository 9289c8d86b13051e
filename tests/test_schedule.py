"""The schedule engine against design.md §3: the reference table, exactly, and its invariants."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaign_widget import POLICIES, Phase, ScheduleError, Workload
from campaign_widget.schedule import MAX_TILE_INTERVALS

from workloads import chain

REFERENCE = [
    # (phases, tiles, pipeline, policy, makespan, {resource: peak requested demand})
    ((("A", 3, .7, .6), ("B", 10, .2, .9)), 1, False, "none", 13.0, {}),
    ((("A", 3, .7, .6), ("B", 10, .2, .9)), 4, True, "none", 10.75, {"memory": 1.5}),
    ((("A", 3, .7, .6), ("B", 10, .2, .9)), 4, True, "dilate+throttle", 11.35, {"memory": 1.08}),
    ((("A", 3, .7, .1), ("B", 10, .5, .9)), 4, True, "dilate+throttle", 10.75, {"compute": 0.71}),
    ((("A", 5, .2, .8), ("B", 10, .3, .6), ("C", 5, .8, .25)), 4, True, "dilate+throttle", 13.125, {}),
    ((("A", 5, .2, .8), ("B", 10, .3, .6), ("C", 5, .8, .25)), 1, False, "none", 20.0, {}),
]


@pytest.mark.parametrize("specs, tiles, pipeline, policy, makespan, peaks", REFERENCE)
def test_reference_table(specs, tiles, pipeline, policy, makespan, peaks):
    s = chain(*specs).schedule(tiles=tiles, pipeline=pipeline, policy=policy)
    assert abs(s.makespan - makespan) <= 1e-9
    for resource, peak in peaks.items():
        assert abs(s.peak_demand[resource] - peak) <= 1e-9


def test_memory_oversubscription_is_reported_where_it_happens():
    s = chain(("A", 3, .7, .6), ("B", 10, .2, .9)).schedule(tiles=4, pipeline=True, policy="none")
    assert [(round(t0, 9), round(t1, 9), r, round(d, 9)) for t0, t1, r, d in s.oversubscribed] == [
        (0.75, 1.5, "memory", 1.5), (3.25, 4.0, "memory", 1.5), (5.75, 6.5, "memory", 1.5)]
    throttled = chain(("A", 3, .7, .6), ("B", 10, .2, .9)).schedule(tiles=4, pipeline=True, policy="dilate+throttle")
    assert throttled.oversubscribed == []


def test_compute_oversubscription_then_dilation_resolves_it():
    w = chain(("A", 3, .7, .1), ("B", 10, .5, .9))
    assert {r for _, _, r, _ in w.schedule(tiles=4, pipeline=True).oversubscribed} == {"compute"}
    assert w.schedule(tiles=4, pipeline=True).peak_demand["compute"] == pytest.approx(1.2)
    assert w.schedule(tiles=4, pipeline=True, policy="dilate").oversubscribed == []


def test_tiled_not_pipelined_runs_tile_major():
    s = chain(("A", 1, .5, .5), ("B", 2, .5, .5), ("C", 3, .5, .5)).schedule(tiles=2)
    assert [s.names[p] + str(i + 1) for p, i in zip(s.phase, s.tile)] == ["A1", "B1", "C1", "A2", "B2", "C2"]
    np.testing.assert_allclose(s.start, [0, .5, 1.5, 3, 3.5, 4.5])
    assert s.makespan == 6


def test_dilation_and_throttling_are_accounted_per_interval():
    s = chain(("A", 3, .7, .6), ("B", 10, .2, .9)).schedule(tiles=4, pipeline=True, policy="dilate+throttle")
    a_middle = (s.phase == 0) & (s.tile == 1)
    assert s.dilation[a_middle].sum() == pytest.approx(2.5 - 0.75)
    assert s.throttling[a_middle].sum() == pytest.approx(2.5 * 0.08)
    np.testing.assert_allclose(s.tile_added[s.tile_id[a_middle]], 2.7 - 0.75)
    # the prologue and epilogue tiles run alone and are not stretched
    assert s.dilation[(s.phase == 0) & (s.tile == 0)].sum() == 0
    assert s.dilation[(s.phase == 1) & (s.tile == 3)].sum() == 0


def test_pipelining_on_a_diamond_dag_respects_every_dependency():
    w = Workload([Phase("src", duration=2, compute_util=.3, memory_util=.3),
                  Phase("left", duration=4, compute_util=.3, memory_util=.3, after=["src"]),
                  Phase("right", duration=1, compute_util=.3, memory_util=.3, after=["src"]),
                  Phase("sink", duration=2, compute_util=.3, memory_util=.3, after=["left", "right"])])
    s = w.schedule(tiles=3, pipeline=True)
    _assert_dependencies(w, s, depth=2)
    assert s.makespan < w.schedule().makespan


@pytest.mark.parametrize("kwargs, message", [
    ({"tiles": 0}, "tiles=0"), ({"tiles": 2.5}, "tiles=2.5"), ({"tiles": True}, "tiles=True"),
    ({"policy": "fastest"}, "'none', 'dilate', 'throttle', 'dilate\\+throttle'"),
    ({"depth": 0}, "depth=0"), ({"pipeline": "yes"}, "pipeline='yes'"),
    ({"tiles": MAX_TILE_INTERVALS}, "limit of 10,000,000"),
])
def test_bad_settings(kwargs, message):
    with pytest.raises(ScheduleError, match=message):
        chain(("A", 1, .5, .5), ("B", 1, .5, .5)).schedule(**kwargs)


def test_untileable_phase_refuses_tiles():
    w = Workload([Phase("measured", duration=1, compute_util=.5, tileable=False)])
    assert w.schedule(tiles=1, pipeline=True).makespan == 1
    with pytest.raises(ScheduleError, match="'measured'.*tileable=False"):
        w.schedule(tiles=4, pipeline=True)


# -- invariants over random DAGs and every policy ------------------------------------------------

@st.composite
def dag_workloads(draw):
    n = draw(st.integers(1, 6))
    phases = []
    for i in range(n):
        producers = draw(st.lists(st.integers(0, i - 1), unique=True, max_size=min(i, 3))) if i else []
        phases.append(Phase(f"p{i}", duration=draw(st.floats(0.1, 10)),
                            compute_util=draw(st.floats(0, 1)), memory_util=draw(st.floats(0, 1)),
                            after=[f"p{j}" for j in producers]))
    return Workload(phases)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=dag_workloads(), tiles=st.integers(1, 6), pipeline=st.booleans(), policy=st.sampled_from(POLICIES),
       depth=st.integers(1, 3))
def test_invariants(w, tiles, pipeline, policy, depth):
    s = w.schedule(tiles=tiles, pipeline=pipeline, policy=policy, depth=depth)
    a = w.arrays
    length = s.end - s.start
    assert np.all(length >= -1e-12)
    # volumes are preserved: rate × time summed over a phase's intervals
    for p in range(len(w)):
        mine = s.phase == p
        np.testing.assert_allclose((s.compute_rate[mine] * length[mine]).sum(), a.compute_util[p] * a.duration[p],
                                   rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose((s.memory_rate[mine] * length[mine]).sum(), a.memory_util[p] * a.duration[p],
                                   rtol=1e-9, atol=1e-12)
    _, c, m = s.demand()
    if "throttle" in policy:
        assert c.max(initial=0) <= 1 + 1e-9 and m.max(initial=0) <= 1 + 1e-9
        assert s.oversubscribed == []
    feasible = c.max(initial=0) <= 1 + 1e-9 and m.max(initial=0) <= 1 + 1e-9
    sequential = w.schedule().makespan
    if feasible:
        lower = max((a.compute_util * a.duration).sum(), (a.memory_util * a.duration).sum())
        assert lower - 1e-9 <= s.makespan
        assert s.makespan <= sequential + 1e-9
    if pipeline:
        _assert_dependencies(w, s, depth)


def _assert_dependencies(w, s, depth):
    tiles = s.tiles
    start, end = s.tile_start.reshape(len(w), tiles), s.tile_end.reshape(len(w), tiles)
    indptr, producers = w.producers
    for p in range(len(w)):
        for q in producers[indptr[p]:indptr[p + 1]]:
            assert np.all(start[p] >= end[q] - 1e-9), "consumer tile before its producer tile"
            assert np.all(start[q, depth:] >= end[p, :tiles - depth] - 1e-9), "producer overran the buffers"
        assert np.all(start[p, 1:] >= end[p, :-1] - 1e-9), "a phase's tiles overlap"
