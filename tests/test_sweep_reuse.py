"""What a sweep reuses across configurations: the dependency graph and the
wavefront's tile order per (tiles, depth), in ``schedule.Plans``. A reused plan must give exactly
the schedule computed afresh, and a plan must never serve a workload of another structure."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import campaign_widget as cw
from campaign_widget import POLICIES, Machine, Phase, Workload

engine = importlib.import_module("campaign_widget.model.schedule")
sweep_module = importlib.import_module("campaign_widget.sweep")

SCHEDULE_ARRAYS = (
    "phase",
    "tile",
    "start",
    "end",
    "compute_rate",
    "memory_rate",
    "requested_compute",
    "requested_memory",
    "dilation",
    "throttling",
    "tile_id",
    "tile_start",
    "tile_end",
    "edge_time",
    "edge_factor",
    "edge_requested_compute",
    "edge_requested_memory",
    "over_t0",
    "over_t1",
    "over_demand",
)


def assert_identical(a, b):
    """Bit for bit: every array and number of two schedules."""
    for name in SCHEDULE_ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.makespan == b.makespan and a.peak_demand == b.peak_demand and a.oversubscribed == b.oversubscribed


def mixed(producers: list[list[int]], seed: int = 0) -> Workload:
    """Phases by volume, some compute-bound and some memory-bound: a change of one peak changes the
    durations (so the tiles) of some phases and not of others."""
    rng = np.random.default_rng(seed)
    out = [float(rng.uniform(1, 5)) for _ in producers]  # the tensor each phase writes
    phases = []
    for i, after in enumerate(producers):
        compute_bound = i % 2 == 0
        ops = float(rng.uniform(50, 100) if compute_bound else rng.uniform(1, 10))
        weights = float(rng.uniform(1, 5) if compute_bound else rng.uniform(50, 100))
        reads = {f"T{j}": out[j] for j in after} | {f"W{i}": weights}
        phases.append(Phase(f"p{i}", ops=ops, reads=reads, writes={f"T{i}": out[i]}, after=[f"p{j}" for j in after]))
    return Workload(phases, machine=Machine(peak_compute=10.0, peak_bandwidth=10.0))


CHAIN = [[], [0], [1], [2], [3]]
DIAMOND = [[], [0], [0], [1, 2], [3]]
FAN_IN = [[], [], [0, 1], [], [2, 3]]


def test_a_sweep_of_one_peak_equals_the_schedule_of_each_configuration():
    """Only peak_bandwidth changes: memory-bound phases get other tiles, compute-bound ones keep
    theirs; the plan is reused for every configuration and the rows are exactly the schedules."""
    w = mixed(DIAMOND, seed=3)
    bandwidths = [2.0, 5.0, 10.0, 20.0, 80.0]
    for policy in POLICIES:
        r = cw.sweep(
            w, progress=False, executor=None, tiles=[6], pipeline=[True], policy=[policy], peak_bandwidth=bandwidths
        )
        for i, bw in enumerate(bandwidths):
            s = w.with_peaks(peak_bandwidth=bw).schedule(tiles=6, pipeline=True, policy=policy)
            assert r["makespan"][i] == s.makespan
            assert r["peak_demand_memory"][i] == s.peak_demand["memory"]
            assert r["peak_demand_compute"][i] == s.peak_demand["compute"]
            assert bool(r["feasible"][i]) == (not s.oversubscribed)
    # the phases' durations do change with the bandwidth, and differently for different phases
    d = np.array([w.with_peaks(peak_bandwidth=bw).arrays.duration for bw in bandwidths])
    assert np.ptp(d[:, 1]) > 0 and np.ptp(d[:, 0]) == 0


def test_the_sweep_builds_one_plan_per_tiles_and_depth(monkeypatch):
    """4 tiles × 3 depths × 4 policies × 3 bandwidths, in one chunk: one wavefront plan per (tiles,
    buffer depth), not 144; a depth at or above the tile count is the one unbounded buffer (tiles=2:
    depths 2 and 3 share a plan)."""
    built = []
    original = engine.Plans.wavefront

    def counting(self, workload, tiles, depth):
        before = self.built
        out = original(self, workload, tiles, depth)
        built.extend([(tiles, depth)] * (self.built - before))
        return out

    monkeypatch.setattr(engine.Plans, "wavefront", counting)
    w = mixed(FAN_IN, seed=5)
    axes = dict(
        tiles=[2, 3, 5, 8], depth=[1, 2, 3], policy=list(POLICIES), pipeline=[True], peak_bandwidth=[3.0, 10.0, 40.0]
    )
    r = cw.sweep(w, progress=False, **axes)
    assert sorted(built) == sorted({(t, min(d, t)) for t, d in itertools.product(axes["tiles"], axes["depth"])})
    for i in range(len(r)):
        cfg = r.configuration(i)
        s = w.with_peaks(peak_bandwidth=cfg["peak_bandwidth"]).schedule(
            **{k: cfg[k] for k in ("tiles", "depth", "policy", "pipeline")}
        )
        assert r["makespan"][i] == s.makespan, cfg


@pytest.mark.parametrize("first, second", [(CHAIN, DIAMOND), (DIAMOND, FAN_IN), (FAN_IN, CHAIN)])
def test_a_plan_never_serves_another_structure(first, second):
    """One Plans used for two workloads with as many phases but other dependencies: the second gets
    its own graph and plans (a cache keyed on tiles and depth alone would give it the first one's)."""
    plans = engine.Plans()
    a, b = mixed(first), mixed(second)
    for tiles, depth, policy in itertools.product([3, 5], [1, 2], POLICIES):
        for w in (a, b):
            kw = dict(tiles=tiles, pipeline=True, policy=policy, depth=depth)
            assert_identical(engine.build_schedule(w, **kw, _plans=plans), engine.build_schedule(w, **kw))
    # and fused vs not fused: the same phases and dependencies, other streaming groups
    fused = a.fuse({"front": ["p0", "p1"], "back": ["p3", "p4"]})
    for w in (a, fused, a):
        kw = dict(tiles=4, pipeline=True, policy="dilate+throttle", depth=2)
        assert_identical(engine.build_schedule(w, **kw, _plans=plans), engine.build_schedule(w, **kw))


def test_derived_workloads_share_the_plans():
    """with_peaks and with_settings keep the structure: one graph, one plan per (tiles, depth)."""
    plans = engine.Plans()
    w = mixed(DIAMOND)
    for bw, tiles in itertools.product([1.0, 10.0, 100.0], [2, 4]):
        v = w.with_peaks(peak_bandwidth=bw).with_settings(policy="throttle")
        kw = dict(tiles=tiles, pipeline=True, policy="dilate", depth=2)
        assert_identical(engine.build_schedule(v, **kw, _plans=plans), engine.build_schedule(v, **kw))
    assert plans.built == 2


@st.composite
def structures(draw):
    n = draw(st.integers(1, 6))
    producers = [draw(st.lists(st.integers(0, i - 1), unique=True, max_size=min(i, 3))) if i else [] for i in range(n)]
    return producers


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shapes=st.lists(st.tuples(structures(), st.integers(0, 99)), min_size=1, max_size=3),
    calls=st.lists(
        st.tuples(
            st.integers(0, 2),
            st.integers(1, 7),
            st.integers(1, 3),
            st.sampled_from(POLICIES),
            st.sampled_from([0.5, 1.0, 7.0]),
        ),
        min_size=1,
        max_size=12,
    ),
)
def test_one_plans_object_across_any_sequence_gives_fresh_schedules(shapes, calls):
    """Any sequence of workloads (random DAGs, their peaks changed), tiles, depths and policies
    through one Plans: every schedule is bit for bit the one computed without it."""
    plans = engine.Plans()
    workloads = [mixed(p, seed) for p, seed in shapes]
    for k, tiles, depth, policy, bw in calls:
        w = workloads[k % len(workloads)].with_peaks(peak_bandwidth=bw)
        kw = dict(tiles=tiles, pipeline=True, policy=policy, depth=depth)
        assert_identical(engine.build_schedule(w, **kw, _plans=plans), engine.build_schedule(w, **kw))


def test_plans_are_per_thread():
    """A payload hands each thread its own engine (a Plans is not thread-safe)."""
    import threading

    payload, _, _ = sweep_module._prepare(mixed(CHAIN), False, False, {"tiles": [1, 2]}, None)
    mine = payload.engine()
    assert payload.engine() is mine
    other = []
    t = threading.Thread(target=lambda: other.append(payload.engine()))
    t.start()
    t.join()
    assert other[0] is not mine


# -- many configurations with one settings tuple: one wavefront run for all (schedule.build_schedules) --


def variants(w: Workload, peaks: list[tuple[float, float]]) -> list[Workload]:
    return [w.with_peaks(pc, bw) for pc, bw in peaks]


PEAKS = st.lists(
    st.tuples(st.sampled_from([0.5, 2.0, 10.0, 37.5]), st.sampled_from([0.7, 3.0, 10.0, 80.0])), min_size=4, max_size=9
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shape=structures(),
    seed=st.integers(0, 99),
    peaks=PEAKS,
    tiles=st.integers(1, 7),
    depth=st.integers(1, 3),
    policy=st.sampled_from(POLICIES),
    fuse=st.booleans(),
)
def test_schedules_of_many_peaks_at_once_equal_each_schedule(shape, seed, peaks, tiles, depth, policy, fuse):
    w = mixed(shape, seed)
    if fuse and len(w) >= 2:
        names = w.names
        w = w.fuse({"g": names[:2]})
    ws = variants(w, peaks)
    kw = dict(tiles=tiles, pipeline=True, policy=policy, depth=depth)
    batch = engine.build_schedules(ws, **kw, plans=engine.Plans())
    assert len(batch) == len(ws)
    for v, s in zip(ws, batch):
        assert_identical(s, engine.build_schedule(v, **kw))


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(
    "dag", [[[], [0], [0], [1, 2]], [[], [0], [0, 1]], [[], [0], [1], [0, 2]], [[], [], [0], [1, 2]]]
)
def test_ties_and_skips_at_once(dag, policy):
    """Equal durations (ties along paths, levels whose tiles do not start together: the renumbered
    levels and the event simulation) for rows that differ in their peaks."""
    phases = [
        Phase(f"p{i}", ops=6.0, bytes=1.0 + (i == 2), after=[f"p{j}" for j in after]) for i, after in enumerate(dag)
    ]
    w = Workload(phases, machine=Machine(peak_compute=3.0, peak_bandwidth=10.0))
    ws = variants(w, [(3.0, 10.0), (1.0, 0.2), (6.0, 10.0), (3.0, 0.5), (2.0, 4.0)])
    for tiles in (2, 3, 5):
        kw = dict(tiles=tiles, pipeline=True, policy=policy, depth=2)
        for v, s in zip(ws, engine.build_schedules(ws, **kw, plans=engine.Plans())):
            assert_identical(s, engine.build_schedule(v, **kw))


def test_a_sweep_runs_the_wavefront_once_per_settings_in_a_chunk(monkeypatch):
    """One chunk, 2 tiles × 2 policies × 6 bandwidths: 4 wavefront runs of 6 rows each, not 24 runs
    (so the row-by-row equality tests above and in test_sweep.py exercise the batched path)."""
    runs = []
    original = engine._wavefront_works

    def counting(plan, durations, dilate):
        runs.append(durations.shape[0])
        return original(plan, durations, dilate)

    monkeypatch.setattr(engine, "_wavefront_works", counting)
    monkeypatch.setattr(sweep_module, "INLINE_CHUNKS", 1)  # one chunk for the 24 configurations
    w = mixed(DIAMOND, seed=1)
    bws = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
    r = cw.sweep(
        w, progress=False, tiles=[3, 6], pipeline=[True], policy=["none", "dilate+throttle"], peak_bandwidth=bws
    )
    assert sorted(runs) == [6, 6, 6, 6]
    for i in range(len(r)):
        cfg = r.configuration(i)
        s = w.with_peaks(peak_bandwidth=cfg["peak_bandwidth"]).schedule(
            tiles=cfg["tiles"], pipeline=True, policy=cfg["policy"]
        )
        assert r["makespan"][i] == s.makespan
        assert r["peak_demand_memory"][i] == s.peak_demand["memory"]


def test_a_failure_in_a_batch_is_reported_with_its_own_configuration(monkeypatch):
    """The batch fails (one configuration cannot be scheduled): it is redone one at a time, and only
    that configuration is reported."""
    original = engine.build_schedule

    def failing(w, **kw):
        if w.machine.peak_bandwidth == 5.0:
            raise RuntimeError("simulated failure")
        return original(w, **kw)

    def failing_batch(workloads, **kw):
        raise RuntimeError("batch failed")

    monkeypatch.setattr(engine, "build_schedule", failing)
    monkeypatch.setattr(engine, "build_schedules", failing_batch)
    w = mixed(CHAIN)
    with pytest.raises(
        cw.SweepFailed,
        match=r"1 of 6 configurations have failed:\n  configuration #2 "
        r"\{'tiles': 4, 'peak_bandwidth': 5.0\}: RuntimeError: simulated failure",
    ):
        cw.sweep(w, progress=False, tiles=[4], peak_bandwidth=[1.0, 2.0, 5.0, 10.0, 20.0, 50.0])


def test_rows_that_need_renumbered_levels_keep_their_own_results(monkeypatch):
    """Whether a level's tiles start together is decided per row; rows that fail take the renumbered
    levels. Force some rows to fail (it rarely differs between rows with one structure): each row of
    the batch is still exactly that row run alone with the same outcome."""
    original = engine._lockstep_rows
    fail: list[bool] = []

    def forced(bounds, slots, flat, length, start_at, end_at):
        stretched, ok = original(bounds, slots, flat, length, start_at, end_at)
        if fail and len(ok) == len(fail):  # the first attempt of this batch: the rows marked fail
            ok = ok & ~np.array(fail)
            fail.clear()
        return stretched, ok

    monkeypatch.setattr(engine, "_lockstep_rows", forced)
    w = mixed(DIAMOND, seed=2)
    durations = np.stack([v.arrays.duration for v in variants(w, [(1, 1), (10, 3), (2, 80), (37.5, 10), (0.5, 2)])])
    for tiles, depth in [(3, 2), (5, 1), (4, 3)]:
        graph, plan = engine.Plans().wavefront(w, tiles, depth)
        pattern = [False, True, False, True, True]
        fail[:] = pattern
        batch = engine._wavefront_works(plan, durations, dilate=True)
        assert not fail, "the forced outcome was applied"
        for r, flag in enumerate(pattern):
            fail[:] = [flag]
            alone = engine._wavefront_works(plan, durations[r : r + 1], dilate=True)[0]
            if alone is None:
                assert batch[r] is None
                continue
            for name in ("start", "end", "stretch", "level", "requested"):
                assert np.array_equal(getattr(batch[r], name), getattr(alone, name)), (tiles, depth, r, name)


# -- chunks: guided self-scheduling ---------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(
    costs=st.lists(st.floats(1e-5, 0.05), min_size=1, max_size=3000),
    workers=st.integers(1, 16),
    smallest=st.sampled_from([0.005, 0.1, 0.5]),
    align=st.sampled_from([1, 7, 125]),
)
def test_chunks_cover_every_configuration_once_in_order(costs, workers, smallest, align):
    costs = np.array(costs)
    chunks = sweep_module._chunks(costs, workers, smallest, align)
    # a chunk of at least `align` configurations holds whole runs of them (same-settings groups stay whole)
    assert all(b == costs.size or b - a < align or (b - a) % align == 0 for a, b in chunks)
    assert chunks[0][0] == 0 and chunks[-1][1] == costs.size
    assert all(a < b for a, b in chunks) and all(b == c for (_, b), (c, _) in zip(chunks, chunks[1:]))
    work = [float(costs[a:b].sum()) for a, b in chunks]
    cap = sweep_module.MAX_CHUNK_SECONDS + costs.max() * (align // 2)  # rounding to the nearest multiple of align
    # no chunk much above the cap (one configuration can cross it), and none but the last below half
    # the smallest size unless it is a single configuration
    assert all(w <= cap + costs.max() + 1e-12 for w in work)
    assert all(w >= smallest / 2 or b - a == 1 for w, (a, b) in zip(work[:-1], chunks[:-1]))


def test_a_chunk_rounded_to_its_run_length_never_drops_below_half_the_smallest():
    # seven cheap configurations, then two costly: the first chunk crosses the smallest size at the
    # ninth; rounding to the nearest multiple of 7 would cut it at the seventh, with almost no work
    costs = np.array([1e-5] * 7 + [0.05, 0.05])
    chunks = sweep_module._chunks(costs, 1, 0.1, 7)
    work = [float(costs[a:b].sum()) for a, b in chunks]
    assert all(w >= 0.05 for w in work[:-1]) and chunks[-1][1] == costs.size


def test_chunks_shrink_towards_the_end_and_dask_takes_bigger_ones():
    costs = np.full(10_000, 1e-3)  # 10 s of estimated work
    pool = sweep_module._chunks(costs, 2)
    dask = sweep_module._chunks(costs, 2, sweep_module.DASK_CHUNK_SECONDS)
    sizes = [b - a for a, b in pool]
    assert sizes[0] > 10 * sizes[-1]
    assert all(x >= y - 1 for x, y in zip(sizes[:-2], sizes[1:-1]))  # non-increasing (the last takes the tail)
    assert len(dask) < len(pool) <= 40  # few tasks: each costs the executor a fixed overhead
    assert min(b - a for a, b in dask[:-1]) * 1e-3 >= sweep_module.DASK_CHUNK_SECONDS - 1e-9


def test_run_length_is_the_product_of_the_axes_after_the_last_setting():
    w = mixed(CHAIN)
    for axes, run in [
        (dict(tiles=[1, 2], peak_compute=[1.0, 2.0, 3.0], peak_bandwidth=[1.0, 2.0]), 6),
        (dict(peak_bandwidth=[1.0, 2.0], tiles=[1, 2]), 1),
        (dict(policy=list(POLICIES), depth=[1, 2], peak_bandwidth=[1.0, 2.0, 3.0]), 3),
        (dict(peak_bandwidth=[1.0, 2.0, 3.0]), 3),
    ]:
        payload, _, _ = sweep_module._prepare(w, False, False, axes, None)
        assert sweep_module._run_length(payload) == run, axes
    zipped, _, _ = sweep_module._prepare(w, True, False, dict(tiles=[1, 2], peak_bandwidth=[1.0, 2.0]), None)
    assert sweep_module._run_length(zipped) == 1


# -- Dask: results arrive with as_completed(with_results=True); a task that raises is retried, then reported --


def _raise_in_task(payload, start, stop):
    raise RuntimeError("worker-side failure")


@pytest.mark.slow  # starts a Dask cluster
def test_a_dask_task_that_keeps_failing_is_reported_with_its_configurations(monkeypatch):
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.run(
            lambda: setattr(importlib.import_module("campaign_widget.sweep._tasks"), "_evaluate", _raise_in_task)
        )
        with pytest.raises(cw.SweepFailed, match=r"no result after 3 attempts on the Dask cluster") as err:
            cw.sweep(mixed(CHAIN), progress=False, executor=client, tiles=[1, 2, 3])
        assert "worker-side failure" in str(err.value)
        assert len(err.value.missing) == 3
        # and the same cluster, its workers put right, gives the right table
        client.restart()
        r = cw.sweep(mixed(CHAIN), progress=False, executor=client, tiles=[1, 2, 3], pipeline=[True])
        assert list(r["makespan"]) == [mixed(CHAIN).schedule(tiles=t, pipeline=True).makespan for t in (1, 2, 3)]


def test_a_lockstep_workload_is_swept_one_configuration_at_a_time_with_the_same_rows():
    """stepping='lockstep' (a workload setting) has no wavefront to reuse: each row is still its schedule."""
    w = mixed(CHAIN).with_settings(stepping="lockstep", pipeline=True)
    r = cw.sweep(w, progress=False, tiles=[2, 5], policy=list(POLICIES), peak_bandwidth=[1.0, 3.0, 10.0, 30.0])
    for i in range(len(r)):
        cfg = r.configuration(i)
        s = w.with_peaks(peak_bandwidth=cfg["peak_bandwidth"]).schedule(tiles=cfg["tiles"], policy=cfg["policy"])
        assert s.stepping == "lockstep"
        assert r["makespan"][i] == s.makespan and r["peak_demand_memory"][i] == s.peak_demand["memory"]


def test_in_process_chunks_are_small_enough_for_a_live_view():
    """In this process a chunk costs nothing to send: at least INLINE_CHUNKS of them, none above
    INLINE_CHUNK_SECONDS of estimated work (beyond one configuration), so a live view fills in."""
    w = Workload(
        [
            Phase(f"p{i}", duration=1 + i % 5, compute_util=0.3, memory_util=0.5, after=[f"p{i - 1}"] if i else [])
            for i in range(24)
        ],
        machine=Machine.unit(),
    )
    for axes in (
        dict(tiles=list(range(4, 68, 4)), pipeline=[True], policy=list(POLICIES), depth=[1, 2, 3]),
        dict(tiles=[1, 64], pipeline=[True], peak_bandwidth=[float(b) for b in range(1, 200)]),
    ):
        payload, _, _ = sweep_module._prepare(w, False, False, axes, None)
        costs = sweep_module._costs(payload)
        chunks = sweep_module._inline_chunks(costs, payload)
        assert len(chunks) >= sweep_module.INLINE_CHUNKS
        limit = sweep_module.INLINE_CHUNK_SECONDS + costs.max() * sweep_module._run_length(payload)
        assert all(costs[a:b].sum() <= limit for a, b in chunks)
        seen: list[int] = []
        r = cw.sweep(w, progress=lambda done, total, seen=seen: seen.append(done), **axes)
        assert len(seen) >= sweep_module.INLINE_CHUNKS and seen[-1] == len(r) and r.executor_kind == "inline"
