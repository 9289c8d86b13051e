"""The schedule engine against docs/semantics.md#reference-numbers: the reference table, exactly, and its invariants."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schedule_reference import reference_schedule
from workloads import TWO_PHASES, chain, two_phases

from campaign_widget import POLICIES, Machine, Phase, ScheduleError, Workload
from campaign_widget.model.schedule import MAX_TILE_INTERVALS, build_schedule

REFERENCE = [
    # (phases, tiles, pipeline, policy, makespan, {resource: peak requested demand})
    (TWO_PHASES, 1, False, "none", 13.0, {}),
    (TWO_PHASES, 4, True, "none", 10.75, {"memory": 1.5}),
    (TWO_PHASES, 4, True, "dilate+throttle", 11.35, {"memory": 1.08}),
    ((("A", 3, 0.7, 0.1), ("B", 10, 0.5, 0.9)), 4, True, "dilate+throttle", 10.75, {"compute": 0.71}),
    ((("A", 5, 0.2, 0.8), ("B", 10, 0.3, 0.6), ("C", 5, 0.8, 0.25)), 4, True, "dilate+throttle", 13.125, {}),
    ((("A", 5, 0.2, 0.8), ("B", 10, 0.3, 0.6), ("C", 5, 0.8, 0.25)), 1, False, "none", 20.0, {}),
]


@pytest.mark.parametrize("specs, tiles, pipeline, policy, makespan, peaks", REFERENCE)
def test_reference_table(specs, tiles, pipeline, policy, makespan, peaks):
    s = chain(*specs).schedule(tiles=tiles, pipeline=pipeline, policy=policy)
    assert abs(s.makespan - makespan) <= 1e-9
    for resource, peak in peaks.items():
        assert abs(s.peak_demand[resource] - peak) <= 1e-9


def test_memory_oversubscription_is_reported_where_it_happens():
    s = two_phases().schedule(tiles=4, pipeline=True, policy="none")
    assert [(round(t0, 9), round(t1, 9), r, round(d, 9)) for t0, t1, r, d in s.oversubscribed] == [
        (0.75, 1.5, "memory", 1.5),
        (3.25, 4.0, "memory", 1.5),
        (5.75, 6.5, "memory", 1.5),
    ]
    throttled = two_phases().schedule(tiles=4, pipeline=True, policy="dilate+throttle")
    assert throttled.oversubscribed == []


def test_compute_oversubscription_then_dilation_resolves_it():
    w = chain(("A", 3, 0.7, 0.1), ("B", 10, 0.5, 0.9))
    assert {r for _, _, r, _ in w.schedule(tiles=4, pipeline=True).oversubscribed} == {"compute"}
    assert w.schedule(tiles=4, pipeline=True).peak_demand["compute"] == pytest.approx(1.2)
    assert w.schedule(tiles=4, pipeline=True, policy="dilate").oversubscribed == []


def test_tiled_not_pipelined_runs_tile_major():
    s = chain(("A", 1, 0.5, 0.5), ("B", 2, 0.5, 0.5), ("C", 3, 0.5, 0.5)).schedule(tiles=2)
    assert [s.names[p] + str(i + 1) for p, i in zip(s.phase, s.tile)] == ["A1", "B1", "C1", "A2", "B2", "C2"]
    np.testing.assert_allclose(s.start, [0, 0.5, 1.5, 3, 3.5, 4.5])
    assert s.makespan == 6


def test_dilation_and_throttling_are_accounted_per_interval():
    s = two_phases().schedule(tiles=4, pipeline=True, policy="dilate+throttle")
    a_middle = (s.phase == 0) & (s.tile == 1)
    assert s.dilation[a_middle].sum() == pytest.approx(2.5 - 0.75)
    assert s.throttling[a_middle].sum() == pytest.approx(2.5 * 0.08)
    np.testing.assert_allclose(s.tile_added[s.tile_id[a_middle]], 2.7 - 0.75)
    # the prologue and epilogue tiles run alone and are not stretched
    assert s.dilation[(s.phase == 0) & (s.tile == 0)].sum() == 0
    assert s.dilation[(s.phase == 1) & (s.tile == 3)].sum() == 0


def test_pipelining_on_a_diamond_dag_respects_every_dependency():
    w = Workload(
        [
            Phase("src", duration=2, compute_util=0.3, memory_util=0.3),
            Phase("left", duration=4, compute_util=0.3, memory_util=0.3, after=["src"]),
            Phase("right", duration=1, compute_util=0.3, memory_util=0.3, after=["src"]),
            Phase("sink", duration=2, compute_util=0.3, memory_util=0.3, after=["left", "right"]),
        ]
    )
    s = w.schedule(tiles=3, pipeline=True)
    _assert_dependencies(w, s, depth=2)
    assert s.makespan < w.schedule().makespan


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"tiles": 0}, "tiles=0"),
        ({"tiles": 2.5}, "tiles=2.5"),
        ({"tiles": True}, "tiles=True"),
        ({"policy": "fastest"}, "'none', 'dilate', 'throttle', 'dilate\\+throttle'"),
        ({"depth": 0}, "depth=0"),
        ({"pipeline": "yes"}, "pipeline='yes'"),
        ({"tiles": MAX_TILE_INTERVALS}, f"limit of {MAX_TILE_INTERVALS:,}"),
    ],
)
def test_bad_settings(kwargs, message):
    with pytest.raises(ScheduleError, match=message):
        chain(("A", 1, 0.5, 0.5), ("B", 1, 0.5, 0.5)).schedule(**kwargs)


def test_untileable_phase_refuses_tiles():
    w = Workload([Phase("measured", duration=1, compute_util=0.5, tileable=False)])
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
        phases.append(
            Phase(
                f"p{i}",
                duration=draw(st.floats(0.1, 10)),
                compute_util=draw(st.floats(0, 1)),
                memory_util=draw(st.floats(0, 1)),
                after=[f"p{j}" for j in producers],
            )
        )
    return Workload(phases)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    w=dag_workloads(),
    tiles=st.integers(1, 6),
    pipeline=st.booleans(),
    policy=st.sampled_from(POLICIES),
    depth=st.integers(1, 3),
)
def test_invariants(w, tiles, pipeline, policy, depth):
    s = w.schedule(tiles=tiles, pipeline=pipeline, policy=policy, depth=depth)
    a = w.arrays
    length = s.end - s.start
    assert np.all(length >= -1e-12)
    # volumes are preserved: rate × time summed over a phase's intervals
    for p in range(len(w)):
        mine = s.phase == p
        np.testing.assert_allclose(
            (s.compute_rate[mine] * length[mine]).sum(), a.compute_util[p] * a.duration[p], rtol=1e-9, atol=1e-12
        )
        np.testing.assert_allclose(
            (s.memory_rate[mine] * length[mine]).sum(), a.memory_util[p] * a.duration[p], rtol=1e-9, atol=1e-12
        )
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
        for q in producers[indptr[p] : indptr[p + 1]]:
            assert np.all(start[p] >= end[q] - 1e-9), "consumer tile before its producer tile"
            assert np.all(start[q, depth:] >= end[p, : tiles - depth] - 1e-9), "producer overran the buffers"
        assert np.all(start[p, 1:] >= end[p, :-1] - 1e-9), "a phase's tiles overlap"


# -- the engine against tests/schedule_reference.py, a slow plain oracle that simulates every event --


def _canonical_pieces(tile_id, start, end, compute, memory):
    """Pieces sorted by (tile, start), adjacent pieces of one tile with equal rates merged: the same
    rates over time however a float wobble of the throttle factor cut them."""
    order = np.lexsort((start, tile_id))
    tile_id, start, end, compute, memory = (x[order] for x in (tile_id, start, end, compute, memory))
    same = np.r_[
        False,
        (tile_id[1:] == tile_id[:-1])
        & np.isclose(compute[1:], compute[:-1], rtol=1e-9, atol=1e-12)
        & np.isclose(memory[1:], memory[:-1], rtol=1e-9, atol=1e-12),
    ]
    keep = ~same
    last = np.r_[np.flatnonzero(keep)[1:] - 1, keep.size - 1]
    return tile_id[keep], start[keep], end[last], compute[keep], memory[keep]


def _step_values(times, values, at):
    k = np.searchsorted(times, at, side="right") - 1
    return values[k]


def assert_same_schedule(new, old):
    """``new`` (tiles whole, one throttle timeline) describes exactly ``old`` (every piece)."""
    scale = max(1.0, old.makespan)
    close = dict(rtol=1e-9, atol=1e-9 * scale)
    assert len(new) == old.tile_start.size  # one interval per tile
    assert abs(new.makespan - old.makespan) <= 1e-9 * scale
    np.testing.assert_allclose(new.tile_start, old.tile_start, **close)
    np.testing.assert_allclose(new.tile_end, old.tile_end, **close)
    np.testing.assert_allclose(new.tile_requested, old.tile_requested, **close)
    np.testing.assert_allclose(new.tile_added, old.tile_added, **close)
    assert np.all(np.diff(new.start) >= 0), "intervals are sorted by start"
    np.testing.assert_array_equal(new.start, new.tile_start[new.tile_id])
    np.testing.assert_array_equal(
        new.phase * new.tiles + new.tile if new.pipeline else new.tile * len(new.names) + new.phase, new.tile_id
    )
    # per tile, the added time split into dilation and throttling, summed over the old pieces
    for name in ("dilation", "throttling"):
        per_tile = np.bincount(old.tile_id, weights=getattr(old, name), minlength=len(new))
        np.testing.assert_allclose(getattr(new, name), per_tile[new.tile_id], **close)
    # the constant-rate pieces
    p = new.pieces()
    mine = _canonical_pieces(new.tile_id[p["interval"]], p["start"], p["end"], p["compute_rate"], p["memory_rate"])
    theirs = _canonical_pieces(old.tile_id, old.start, old.end, old.compute_rate, old.memory_rate)
    np.testing.assert_array_equal(mine[0], theirs[0])
    for x, y in zip(mine[1:], theirs[1:]):
        np.testing.assert_allclose(x, y, **close)
    # the demand, before and after throttling, as functions of time
    for requested in (False, True):
        t_new, c_new, m_new = new.demand(requested=requested)
        t_old, c_old, m_old = old.demand(requested=requested)
        assert abs(t_new[-1] - t_old[-1]) <= 1e-9 * scale
        edges = np.union1d(t_new, t_old)
        mid = (edges[1:] + edges[:-1]) / 2
        mid = mid[(np.diff(edges) > 1e-9 * scale) & (mid < min(t_new[-1], t_old[-1]))]
        for a, b in ((c_new, c_old), (m_new, m_old)):
            np.testing.assert_allclose(_step_values(t_new, a, mid), _step_values(t_old, b, mid), rtol=1e-9, atol=1e-9)
    assert new.peak_demand.keys() == old.peak_demand.keys()
    for resource, peak in old.peak_demand.items():
        assert abs(new.peak_demand[resource] - peak) <= 1e-9
    assert len(new.oversubscribed) == len(old.oversubscribed)
    for (a0, a1, ar, ad), (b0, b1, br, bd) in zip(new.oversubscribed, old.oversubscribed):
        assert ar == br and abs(a0 - b0) <= 1e-9 * scale and abs(a1 - b1) <= 1e-9 * scale and abs(ad - bd) <= 1e-9


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    w=dag_workloads(),
    tiles=st.integers(1, 7),
    pipeline=st.booleans(),
    policy=st.sampled_from(POLICIES),
    depth=st.integers(1, 3),
)
def test_equals_the_reference_engine(w, tiles, pipeline, policy, depth):
    settings_ = dict(tiles=tiles, pipeline=pipeline, policy=policy, depth=depth)
    assert_same_schedule(w.schedule(**settings_), reference_schedule(w, **settings_))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=dag_workloads(), tiles=st.integers(2, 7), policy=st.sampled_from(POLICIES), depth=st.integers(1, 3))
def test_event_simulation_equals_the_reference_engine(w, tiles, policy, depth):
    """The exact event-by-event path (the wavefront's fallback) on its own."""
    settings_ = dict(tiles=tiles, pipeline=True, policy=policy, depth=depth)
    assert_same_schedule(build_schedule(w, _wavefront=False, **settings_), reference_schedule(w, **settings_))


def _equal_duration_dag(n, producers, durations, uc, um):
    return Workload(
        [
            Phase(
                f"p{i}",
                duration=durations[i],
                compute_util=uc[i],
                memory_util=um[i],
                after=[f"p{j}" for j in producers[i]],
            )
            for i in range(n)
        ]
    )


DAGS = {
    "diamond": [[], [0], [0], [1, 2]],
    "skip": [[], [0], [0, 1]],
    "long skip": [[], [0], [1], [0, 2]],
    "two sources": [[], [], [0], [1, 2]],
}


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(
    "durations", [(1, 1, 1, 1), (1, 2, 3, 1), (3, 1, 1, 2), (0.1, 0.2, 0.3, 0.1), (1, 2, 0.7, 1.9)]
)
@pytest.mark.parametrize("dag", DAGS)
def test_ties_skips_and_diamonds_equal_the_reference_engine(policy, durations, dag):
    """Equal and sum-equal durations make tiles finish at the same instant along different paths,
    the case where a dilation batch can straddle two wavefront levels or two instants differ by a
    rounding; skip edges make levels whose tiles do not start together. The engine must still
    produce the event simulation's batches."""
    producers = DAGS[dag]
    w = _equal_duration_dag(len(producers), producers, durations, [0.5, 0.6, 0.3, 0.7], [0.6, 0.2, 0.9, 0.4])
    for tiles in (3, 5, 8):
        for depth in (1, 2, 3):
            settings_ = dict(tiles=tiles, pipeline=True, policy=policy, depth=depth)
            assert_same_schedule(w.schedule(**settings_), reference_schedule(w, **settings_))


def test_fused_groups_equal_the_reference_engine():
    w = Workload(
        [
            Phase("load", ops=4e9, reads={"x": 8e9}, writes={"a": 4e9}),
            Phase("mm", ops=6e10, reads={"a": 4e9, "wt": 2e9}, writes={"b": 4e9}),
            Phase("side", ops=1e9, reads={"y": 1e9}, writes={"c": 1e9}),
            Phase("act", ops=2e9, reads={"b": 4e9, "c": 1e9}, writes={"d": 4e9}),
            Phase("out", ops=1e9, reads={"d": 4e9}, writes={"z": 2e9}),
        ],
        machine=Machine(peak_compute=1e12, peak_bandwidth=1e11),
    ).fuse([["load", "mm"], ["act", "out"]])
    assert len(w.fusion_groups) == 2
    for policy in POLICIES:
        for tiles, depth in ((1, 2), (4, 2), (6, 1), (9, 3)):
            settings_ = dict(tiles=tiles, pipeline=True, policy=policy, depth=depth)
            assert_same_schedule(w.schedule(**settings_), reference_schedule(w, **settings_))


def test_throttled_size_is_linear_in_tiles_and_events():
    """Under throttling every running tile is slowed at every change of the shared factor; the old
    engine stored a piece per tile per change (events × concurrency), the schedule stores tiles."""
    w = Workload.from_arrays(
        [f"p{i}" for i in range(40)],
        duration=np.linspace(1, 3, 40),
        compute_util=np.full(40, 0.3),
        memory_util=np.linspace(0.2, 0.9, 40),
        after=[()] + [(f"p{i}",) for i in range(39)],
    )
    s = w.schedule(tiles=40, pipeline=True, policy="throttle")
    old = reference_schedule(w, tiles=40, pipeline=True, policy="throttle")
    assert len(s) == 40 * 40
    assert s.edge_time.size <= 2 * len(s) and s.edge_factor.size == s.edge_time.size - 1
    assert len(old) > 10 * len(s)  # what the per-piece representation cost
    assert len(s.pieces()["start"]) == len(old)
    times, factor = s.throttle_timeline()
    assert factor.min() < 1 and np.all(factor[1:] != factor[:-1]) and times.size == factor.size + 1
    # the factor is 1 / the worst requested demand wherever that exceeds 1
    _, c, m = s.demand(requested=True)
    np.testing.assert_allclose(s.edge_factor, 1 / np.maximum(1, np.maximum(c, m)), rtol=1e-12)
    with pytest.raises(ScheduleError, match="limit of 100"):
        s.pieces(limit=100)


def test_dataframe_has_one_row_per_tile():
    pd = pytest.importorskip("pandas")
    s = two_phases().schedule(tiles=4, pipeline=True, policy="dilate+throttle")
    df = s.to_dataframe()
    assert isinstance(df, pd.DataFrame) and len(df) == len(s) == 8
    assert list(df.columns[:6]) == ["phase", "tile", "start", "end", "compute_rate", "memory_rate"]
    volume = (df.compute_rate * (df.end - df.start)).groupby(df.phase).sum()
    assert volume["A"] == pytest.approx(3 * 0.7) and volume["B"] == pytest.approx(10 * 0.2)


def test_when_the_wavefront_cannot_vouch_for_its_batches_the_event_simulation_decides(monkeypatch):
    import campaign_widget.model.schedule as engine

    ran = []
    event_work = engine._event_work
    monkeypatch.setattr(engine, "_batches_are_levels", lambda work, profile: False)
    monkeypatch.setattr(engine, "_event_work", lambda *a, **k: ran.append(1) or event_work(*a, **k))
    w = _equal_duration_dag(4, DAGS["diamond"], (1, 2, 0.7, 1.9), [0.5, 0.6, 0.3, 0.7], [0.6, 0.2, 0.9, 0.4])
    for policy in ("dilate", "dilate+throttle"):
        settings_ = dict(tiles=5, pipeline=True, policy=policy)
        assert_same_schedule(w.schedule(**settings_), reference_schedule(w, **settings_))
    assert len(ran) == 2


@pytest.mark.parametrize("thin", [0, 10**9], ids=["numpy per level", "python per tile"])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=dag_workloads(), tiles=st.integers(2, 9), policy=st.sampled_from(POLICIES), depth=st.integers(1, 3))
def test_both_sweeps_equal_the_reference_engine(thin, w, tiles, policy, depth):
    """The wavefront sweeps a level with numpy, or tile by tile when levels are thin: force each."""
    import campaign_widget.model.schedule as engine

    saved, engine._THIN_LEVELS = engine._THIN_LEVELS, thin
    try:
        settings_ = dict(tiles=tiles, pipeline=True, policy=policy, depth=depth)
        assert_same_schedule(w.schedule(**settings_), reference_schedule(w, **settings_))
    finally:
        engine._THIN_LEVELS = saved


# -- stepping="lockstep": campaign_diagram_tools' rule, against the tool's own numbers --

CDT = json.loads((Path(__file__).parent / "data" / "cdt_lockstep.json").read_text())["cases"]


@pytest.mark.parametrize(
    "case", CDT, ids=[f"{len(c['phases'])}x{c['tiles']}-{c['policy']}-{k}" for k, c in enumerate(CDT)]
)
def test_lockstep_equals_campaign_diagram_tools(case):
    """tests/data/cdt_lockstep.json: random chains run through the tool (tests/data/make_cdt_lockstep.py)."""
    w = chain(*case["phases"])
    s = w.schedule(tiles=case["tiles"], pipeline=True, policy=case["policy"], stepping="lockstep")
    assert s.stepping == "lockstep"
    scale = max(1.0, case["makespan"])
    assert abs(s.makespan - case["makespan"]) <= 1e-9 * scale
    starts, ends = s.tile_start.reshape(len(w), s.tiles), s.tile_end.reshape(len(w), s.tiles)
    for p, name in enumerate(w.names):
        spans = np.array(case["spans"][name])
        np.testing.assert_allclose(starts[p], spans[:, 0], rtol=1e-9, atol=1e-9 * scale)
        np.testing.assert_allclose(ends[p], spans[:, 1], rtol=1e-9, atol=1e-9 * scale)


def test_with_dilation_both_steppings_agree_with_the_tool():
    """Dilation stretches every batch to its longest tile, so the event rule runs in lock step too."""
    for case in CDT:
        if "dilate" in case["policy"]:
            s = chain(*case["phases"]).schedule(tiles=case["tiles"], pipeline=True, policy=case["policy"])
            assert abs(s.makespan - case["makespan"]) <= 1e-9 * max(1.0, case["makespan"]), case


def test_the_counterexample_in_both_steppings():
    """P0 (8, .6, .9) → P1 (5, .3, .5) → P2 (4, .4, .8), 2 tiles, throttled. Lock-step waits
    for the step's longest tile (P0's second tile waits for P1's first and starts P2's first with it);
    ours starts each tile when its producer and buffers allow."""
    w = chain(("P0", 8, 0.6, 0.9), ("P1", 5, 0.3, 0.5), ("P2", 4, 0.4, 0.8))
    event = w.schedule(tiles=2, pipeline=True, policy="throttle")
    lockstep = w.schedule(tiles=2, pipeline=True, policy="throttle", stepping="lockstep")
    assert abs(event.makespan - 14.7) <= 1e-9 and abs(lockstep.makespan - 14.1) <= 1e-9
    # lock-step: the tiles of one step start together (work time), whatever ends first
    assert lockstep.tile_start[1] == lockstep.tile_start[2]  # P0 tile 2 with P1 tile 1
    assert lockstep.tile_start[3] == lockstep.tile_start[4]  # P1 tile 2 with P2 tile 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(w=dag_workloads(), tiles=st.integers(1, 6), policy=st.sampled_from(POLICIES))
def test_lockstep_invariants(w, tiles, policy):
    s = w.schedule(tiles=tiles, pipeline=True, policy=policy, stepping="lockstep")
    a = w.arrays
    length = s.end - s.start
    for p in range(len(w)):
        mine = s.phase == p
        np.testing.assert_allclose(
            (s.compute_rate[mine] * length[mine]).sum(), a.compute_util[p] * a.duration[p], rtol=1e-9, atol=1e-12
        )
    _, c, m = s.demand()
    if "throttle" in policy:
        assert c.max(initial=0) <= 1 + 1e-9 and m.max(initial=0) <= 1 + 1e-9
    # a tile starts after its producers' tile and its own previous tile (buffers are not modelled)
    start, end = s.tile_start.reshape(len(w), tiles), s.tile_end.reshape(len(w), tiles)
    indptr, producers = w.producers
    for p in range(len(w)):
        for q in producers[indptr[p] : indptr[p + 1]]:
            assert np.all(start[p] >= end[q] - 1e-9)
        assert np.all(start[p, 1:] >= end[p, :-1] - 1e-9)
    # a step lasts no longer than its tiles one after another, throttled or not
    assert s.makespan <= w.schedule(policy=policy).makespan + 1e-9


def test_bad_stepping_and_lockstep_with_fusion_groups():
    w = chain(("A", 1, 0.5, 0.5), ("B", 1, 0.5, 0.5))
    with pytest.raises(ScheduleError, match="stepping='together' is not one of 'event', 'lockstep'"):
        w.schedule(tiles=2, pipeline=True, stepping="together")
    fused = Workload(
        [
            Phase("a", ops=1e9, reads={"x": 1e9}, writes={"y": 1e9}),
            Phase("b", ops=1e9, reads={"y": 1e9}, writes={"z": 1e9}),
        ],
        machine=Machine(peak_compute=1e12, peak_bandwidth=1e11),
    ).fuse([["a", "b"]])
    with pytest.raises(ScheduleError, match="lockstep.*fusion groups"):
        fused.schedule(tiles=2, pipeline=True, stepping="lockstep")
