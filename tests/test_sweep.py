"""campaign_widget.sweep: the same numbers as schedule(), whatever runs the work."""

from __future__ import annotations

import concurrent.futures as cf
import doctest
import importlib
import itertools
import multiprocessing
import os
import signal
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from workloads import two_phases

import campaign_widget as cw
from campaign_widget import POLICIES, Machine, Phase, SweepError, SweepFailed, Workload

sweep_module = importlib.import_module("campaign_widget.sweep")  # the attribute cw.sweep is the function
engine = importlib.import_module("campaign_widget.model.schedule")

RESULT_COLUMNS = (
    "makespan",
    "speedup",
    "peak_demand_compute",
    "peak_demand_memory",
    "feasible",
    "compute_bound_share",
    "memory_bound_share",
)


def dag_workload(n_phases: int, seed: int, *, tileable=True) -> Workload:
    """A random DAG of phases given by volumes, on a machine (so peaks change their durations)."""
    rng = np.random.default_rng(seed)
    phases = []
    for i in range(n_phases):
        after = [f"p{j}" for j in range(i) if rng.random() < 0.35]
        phases.append(
            Phase(
                f"p{i}",
                ops=float(rng.uniform(1, 100)),
                bytes=float(rng.uniform(1, 100)),
                after=after,
                tileable=tileable,
            )
        )
    return Workload(phases, machine=Machine(peak_compute=10.0, peak_bandwidth=10.0))


def expected_row(workload: Workload, config: dict) -> dict:
    """One configuration computed by hand through the public model."""
    w = workload
    if "peak_compute" in config or "peak_bandwidth" in config:
        w = w.with_peaks(config.get("peak_compute"), config.get("peak_bandwidth"))
    s = w.schedule(**{k: config[k] for k in ("tiles", "pipeline", "policy", "depth") if k in config})
    length = s.end - s.start
    bound = w.table()["bound"][s.phase]
    return {
        "makespan": s.makespan,
        "peak_demand_compute": s.peak_demand["compute"],
        "peak_demand_memory": s.peak_demand["memory"],
        "feasible": not s.oversubscribed,
        "compute_bound_share": length[bound == "compute"].sum() / length.sum(),
        "memory_bound_share": length[bound == "memory"].sum() / length.sum(),
    }


def assert_same(a, b):
    assert len(a) == len(b)
    assert a.columns == b.columns
    for c in a.columns:
        assert np.array_equal(a[c], b[c]), c


AXIS_VALUES = {
    "tiles": st.lists(st.integers(1, 6), min_size=1, max_size=3),
    "pipeline": st.lists(st.booleans(), min_size=1, max_size=2),
    "policy": st.lists(st.sampled_from(POLICIES), min_size=1, max_size=3),
    "depth": st.lists(st.integers(1, 3), min_size=1, max_size=2),
    "peak_compute": st.lists(st.sampled_from([2.0, 10.0, 37.5]), min_size=1, max_size=2),
    "peak_bandwidth": st.lists(st.sampled_from([3.0, 10.0, 80.0]), min_size=1, max_size=2),
}


@st.composite
def sweeps(draw):
    names = draw(st.lists(st.sampled_from(sorted(AXIS_VALUES)), min_size=1, max_size=4, unique=True))
    return {n: draw(AXIS_VALUES[n]) for n in names}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_phases=st.integers(1, 5), seed=st.integers(0, 10_000), axes=sweeps(), zipped=st.booleans())
def test_each_row_equals_schedule_of_its_configuration(n_phases, seed, axes, zipped):
    w = dag_workload(n_phases, seed)
    if zipped:  # paired axes need equal lengths
        n = min(len(v) for v in axes.values())
        axes = {k: v[:n] for k, v in axes.items()}
        configs = [dict(zip(axes, vals)) for vals in zip(*axes.values())]
    else:
        configs = [dict(zip(axes, vals)) for vals in itertools.product(*axes.values())]
    result = cw.sweep(w, progress=False, zip=zipped, **axes)
    assert len(result) == len(configs)
    first = expected_row(w, configs[0])["makespan"]
    for i, config in enumerate(configs):
        for k, v in config.items():
            assert result[k][i] == v
        want = expected_row(w, config)
        for k, v in want.items():
            assert result[k][i] == v, (i, config, k)
        assert result["speedup"][i] == first / want["makespan"]
        assert result.configuration(i) == config


# -- the same numbers whatever runs them -------------------------------------------------------------

BIG_AXES = dict(
    tiles=[1, 2, 8, 16],
    pipeline=[False, True],
    policy=list(POLICIES),
    depth=[1, 2, 3],
    peak_bandwidth=[5.0, 10.0, 40.0],
)


@pytest.fixture(scope="module")
def big():
    """12 phases, 288 configurations: seconds of work, so a pool is worth its start."""
    w = dag_workload(12, 7)
    return w, cw.sweep(w, progress=False, executor=None, **BIG_AXES)


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")  # installed by the test extra
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.mark.slow  # starts worker processes or a Dask cluster
def test_in_process_below_the_threshold_and_pool_above(big, monkeypatch):
    w, reference = big
    small = cw.sweep(w, progress=False, tiles=[1, 2])
    assert small.executor_kind == "inline"
    monkeypatch.setattr(sweep_module, "IN_PROCESS_SECONDS", 1e9)
    inline = cw.sweep(w, progress=False, **BIG_AXES)
    assert inline.executor_kind == "inline"
    monkeypatch.setattr(sweep_module, "IN_PROCESS_SECONDS", 0.0)
    pooled = cw.sweep(w, progress=False, **BIG_AXES)
    assert pooled.executor_kind == "pool"
    assert_same(inline, pooled)
    assert not np.isnan(pooled["makespan"]).any()


@pytest.mark.slow  # starts worker processes or a Dask cluster
def test_any_executor_gives_the_same_table(big):
    w, reference = big
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:
        assert_same(cw.sweep(w, progress=False, executor=ex, **BIG_AXES), reference)
    with cf.ThreadPoolExecutor(2) as ex:
        assert_same(cw.sweep(w, progress=False, executor=ex, **BIG_AXES), reference)


@pytest.mark.slow  # starts worker processes or a Dask cluster
def test_a_dask_local_cluster_gives_the_same_table(big, dask_client):
    w, reference = big
    result = cw.sweep(w, progress=False, executor=dask_client, **BIG_AXES)
    assert result.executor_kind == "dask"
    assert_same(result, reference)


@pytest.mark.slow  # starts worker processes or a Dask cluster
def test_a_dask_scheduler_address_works_too(big, dask_client):
    w, reference = big
    result = cw.sweep(w, progress=False, executor=dask_client.scheduler.address, tiles=[1, 4], policy=["throttle"])
    direct = cw.sweep(w, progress=False, tiles=[1, 4], policy=["throttle"])
    assert_same(result, direct)


# -- lost workers -------------------------------------------------------------------------------------


@pytest.mark.slow  # starts worker processes or a Dask cluster
def test_a_pool_worker_killed_mid_sweep_is_survived(big, monkeypatch):
    w, reference = big
    monkeypatch.setattr(sweep_module, "IN_PROCESS_SECONDS", 0.0)
    monkeypatch.setattr(sweep_module, "CHUNK_SECONDS", 0.005)  # many small chunks: some still to come after a kill
    killed = []
    others = {p.pid for p in multiprocessing.active_children()}  # e.g. a Dask cluster's nannies

    def kill_one_worker(done, total):
        if not killed and done < total:
            workers = [p for p in multiprocessing.active_children() if p.is_alive() and p.pid not in others]
            assert workers, "no pool worker to kill"
            os.kill(workers[0].pid, signal.SIGKILL)
            killed.append((workers[0].pid, done))

    result = cw.sweep(w, progress=kill_one_worker, **BIG_AXES)
    assert killed and killed[0][1] < len(reference), "the worker was not killed mid-sweep"
    assert result.retried >= 1
    assert_same(result, reference)


@pytest.mark.slow  # starts worker processes or a Dask cluster
def test_a_dask_worker_killed_mid_sweep_is_survived(big, dask_client, monkeypatch):
    w, reference = big
    monkeypatch.setattr(sweep_module, "DASK_CHUNK_SECONDS", 0.005)  # many small chunks: some still to come after a kill
    pids = dask_client.run(os.getpid)
    killed = []

    def kill_one_worker(done, total):
        if not killed and done < total:
            pid = sorted(pids.values())[0]
            os.kill(pid, signal.SIGKILL)
            killed.append((pid, done))

    result = cw.sweep(w, progress=kill_one_worker, executor=dask_client, **BIG_AXES)
    assert killed and killed[0][1] < len(reference)
    with pytest.raises(ProcessLookupError):
        os.kill(killed[0][0], 0)  # that process is gone: the rest ran elsewhere
    assert_same(result, reference)
    dask_client.wait_for_workers(2, timeout=60)  # the nanny restarted it for the next test


@pytest.mark.slow  # starts worker processes or a Dask cluster
def test_a_broken_user_pool_is_reported_with_the_configurations(big, monkeypatch):
    w, reference = big
    monkeypatch.setattr(sweep_module, "CHUNK_SECONDS", 0.005)  # many small chunks: some still to come after a kill
    others = {p.pid for p in multiprocessing.active_children()}  # e.g. a Dask cluster's nannies
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:
        killed = []

        def kill(done, total):
            if not killed:
                for p in multiprocessing.active_children():
                    if p.pid not in others:
                        os.kill(p.pid, signal.SIGKILL)
                killed.append(done)

        with pytest.raises(SweepFailed) as err:
            cw.sweep(w, progress=kill, executor=ex, **BIG_AXES)
    e = err.value
    assert "configuration #" in str(e) and "executor=None" in str(e)
    missing = np.isnan(e.partial["makespan"])
    assert len(e.missing) == missing.sum() > 0
    key = lambda cfg: tuple(sorted(cfg.items()))
    assert sorted(map(key, e.missing)) == sorted(key(e.partial.configuration(int(i))) for i in np.flatnonzero(missing))
    have = ~missing  # what was computed is kept, and right
    assert np.array_equal(e.partial["makespan"][have], reference["makespan"][have])


# -- bad input, before any work ----------------------------------------------------------------------


@pytest.fixture
def no_schedule(monkeypatch):
    """Counts schedules computed, by Workload.schedule or by the engine entry point the sweep calls."""
    calls = []
    original, engine_original = Workload.schedule, engine.build_schedule

    def counting(self, *a, **k):
        calls.append((a, k))
        return original(self, *a, **k)

    def engine_counting(*a, **k):
        calls.append((a, k))
        return engine_original(*a, **k)

    monkeypatch.setattr(Workload, "schedule", counting)
    monkeypatch.setattr(engine, "build_schedule", engine_counting)
    return calls


@pytest.mark.parametrize(
    "axes, message",
    [
        ({}, "at least one axis"),
        (
            {"tile": [1, 2]},
            "unknown sweep axis 'tile'; valid axes: tiles, pipeline, policy, depth, peak_compute, peak_bandwidth",
        ),
        ({"tiles": []}, "axis tiles is empty"),
        ({"tiles": 4}, "must be a list of values, e.g. tiles=[4]"),
        ({"policy": "none"}, "must be a list of values"),
        ({"tiles": [1, 0], "policy": ["none"]}, "tiles=0 must be >= 1, in configuration #1 (tiles=0, policy='none')"),
        ({"tiles": [1, 2.5]}, "tiles=2.5 must be a whole number >= 1"),
        ({"policy": ["none", "fast"], "tiles": [1, 2]}, "policy='fast' is not one of"),
        ({"policy": ["none", "fast"], "tiles": [1, 2]}, "configuration #2 (policy='fast', tiles=1)"),
        ({"depth": [0]}, "depth=0 must be a whole number >= 1"),
        ({"pipeline": ["yes"]}, "pipeline='yes' must be True or False"),
        ({"peak_bandwidth": [1.0, -2.0]}, "peak_bandwidth=-2.0 must be a finite number > 0, in configuration #1"),
        ({"peak_compute": [float("nan")]}, "peak_compute=nan must be a finite number > 0"),
        ({"tiles": [10**9]}, "above the limit of"),
    ],
)
def test_bad_axes_are_refused_before_any_work(axes, message, no_schedule):
    with pytest.raises(SweepError) as err:
        cw.sweep(two_phases(), progress=False, **axes)
    assert message in str(err.value)
    assert no_schedule == []


def test_untileable_phase_is_named(no_schedule):
    untileable = Workload(
        [
            Phase("A", duration=3, compute_util=0.7, memory_util=0.6, tileable=False),
            Phase("B", duration=10, compute_util=0.2, memory_util=0.9, after=["A"]),
        ]
    )
    with pytest.raises(SweepError, match=r"tiles=4: phase 'A' is marked tileable=False, in configuration #1"):
        cw.sweep(untileable, progress=False, tiles=[1, 4])
    assert no_schedule == []


def test_zip_needs_equal_lengths(no_schedule):
    with pytest.raises(SweepError, match=r"equal lengths; got \{'tiles': 2, 'depth': 3\}"):
        cw.sweep(two_phases(), progress=False, zip=True, tiles=[1, 2], depth=[1, 2, 3])
    assert no_schedule == []


def test_product_above_the_limit_needs_allow_large(no_schedule, monkeypatch):
    with pytest.raises(
        SweepError,
        match=r"1,002,001 configurations \(1001 tiles × 1001 depth\), above the limit "
        r"of 1,000,000; pass allow_large=True",
    ):
        cw.sweep(two_phases(), progress=False, tiles=range(1, 1002), depth=range(1, 1002))
    assert no_schedule == []
    # allowed, it starts (a smaller limit keeps the test short)
    monkeypatch.setattr(sweep_module, "MAX_CONFIGURATIONS", 3)
    with pytest.raises(SweepError, match="above the limit of 3"):
        cw.sweep(two_phases(), progress=False, tiles=[1, 2, 3, 4])
    assert len(cw.sweep(two_phases(), progress=False, allow_large=True, tiles=[1, 2, 3, 4])) == 4


@pytest.mark.parametrize("executor", [42, object(), cf.Future(), [None]])
def test_wrong_executor_type(executor, no_schedule):
    with pytest.raises(TypeError, match=r"must be None, a concurrent.futures.Executor .*dask.distributed.Client"):
        cw.sweep(two_phases(), progress=False, executor=executor, tiles=[1, 2])
    assert no_schedule == []


def test_without_dask_the_error_says_what_to_install(monkeypatch, no_schedule):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(ImportError, match=r"pip install 'campaign_widget\[dask\]'"):
        cw.sweep(two_phases(), progress=False, executor="tcp://127.0.0.1:1", tiles=[1, 2])
    assert no_schedule == []


def test_bad_baseline(no_schedule):
    with pytest.raises(SweepError, match="baseline has unknown axis 'tile'; valid axes: tiles"):
        cw.sweep(two_phases(), progress=False, baseline={"tile": 1}, tiles=[1, 2])
    with pytest.raises(SweepError, match="baseline: policy='x' is not one of"):
        cw.sweep(two_phases(), progress=False, baseline={"policy": "x"}, tiles=[1, 2])
    with pytest.raises(IndexError, match="configuration 5 out of range for 2"):
        cw.sweep(two_phases(), progress=False, baseline=5, tiles=[1, 2])
    assert no_schedule == []


def test_not_a_workload():
    with pytest.raises(TypeError, match="sweep takes a campaign_widget.Workload, got list"):
        cw.sweep([1, 2], tiles=[1])


# -- the table ---------------------------------------------------------------------------------------


def test_table_order_columns_and_baselines():
    w = two_phases()
    r = cw.sweep(w, progress=False, policy=["none", "dilate+throttle"], tiles=[1, 4], pipeline=[True])
    assert list(zip(r["policy"], r["tiles"])) == [
        ("none", 1),
        ("none", 4),
        ("dilate+throttle", 1),
        ("dilate+throttle", 4),
    ]
    # docs/semantics.md#reference-numbers's reference table: 13, 10.75 (memory at 1.5, infeasible), 11.35
    assert np.allclose(r["makespan"], [13.0, 10.75, 13.0, 11.35], rtol=0, atol=1e-9)
    assert r["feasible"].tolist() == [True, False, True, True]
    assert np.isclose(r["peak_demand_memory"][1], 1.5)
    assert np.array_equal(r["speedup"], r["makespan"][0] / r["makespan"])
    by_index = cw.sweep(
        w, progress=False, baseline=1, policy=["none", "dilate+throttle"], tiles=[1, 4], pipeline=[True]
    )
    assert np.array_equal(by_index["speedup"], r["makespan"][1] / r["makespan"])
    outside = cw.sweep(
        w, progress=False, baseline={"tiles": 2, "pipeline": True, "peak_bandwidth": 2.0}, policy=["none"], tiles=[4]
    )
    ref = w.with_peaks(peak_bandwidth=2.0).schedule(tiles=2, pipeline=True).makespan
    assert outside["speedup"][0] == ref / outside["makespan"][0]
    assert r.best() == 3  # the fastest feasible one (10.75 is infeasible)
    assert r.row(3)["policy"] == "dilate+throttle" and r.row(3)["makespan"] == r["makespan"][3]
    assert r.schedule(3).makespan == r["makespan"][3]
    df = r.to_dataframe()
    assert list(df.columns) == r.columns and len(df) == 4
    assert df["makespan"].tolist() == r["makespan"].tolist()
    with pytest.raises(KeyError, match="'speed' is not a column of this sweep; columns: policy, tiles"):
        r["speed"]


def test_numpy_values_and_ranges_are_accepted():
    r = cw.sweep(two_phases(), progress=False, tiles=np.arange(1, 4), depth=range(1, 3), pipeline=np.array([True]))
    assert r["tiles"].dtype == np.int64 and r["pipeline"].dtype == bool
    assert len(r) == 6


def test_progress_callback_counts_up_to_the_total():
    seen = []
    cw.sweep(two_phases(), progress=lambda done, total: seen.append((done, total)), tiles=range(1, 40))
    assert seen[-1] == (39, 39)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_start_sweep_fills_in_and_notifies():
    updates = []
    r = cw.start_sweep(two_phases(), tiles=range(1, 30), pipeline=[True])
    r.on_update(lambda res: updates.append(res.completed))
    r.wait(60)
    assert r.done and r.completed == 29 and not np.isnan(r["makespan"]).any()
    direct = cw.sweep(two_phases(), progress=False, tiles=range(1, 30), pipeline=[True])
    assert_same(r, direct)


def test_failures_inside_a_configuration_are_reported_with_it(monkeypatch):
    original = engine.build_schedule  # what the sweep calls for each configuration

    def failing(w, *, tiles, **kw):
        if tiles == 3:
            raise RuntimeError("simulated failure")
        return original(w, tiles=tiles, **kw)

    monkeypatch.setattr(engine, "build_schedule", failing)
    with pytest.raises(SweepFailed, match=r"configuration #2 \{'tiles': 3\}: RuntimeError: simulated failure") as err:
        cw.sweep(two_phases(), progress=False, tiles=[1, 2, 3, 4])
    assert err.value.missing[0] == {"tiles": 3}
    assert {"tiles": 3} not in err.value.missing[1:]
    have = ~np.isnan(err.value.partial["makespan"])
    assert len(err.value.missing) == (~have).sum()
    assert err.value.partial["makespan"][0] == two_phases().schedule(tiles=1).makespan


def test_docstring_examples():
    api = importlib.import_module("campaign_widget.sweep._api")
    result = doctest.testmod(api, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_best_by_speedup_is_the_largest():
    r = cw.sweep(two_phases(), progress=False, tiles=[1, 4], pipeline=[True], policy=["throttle"])
    assert r.best("speedup") == r.best("makespan") == int(np.argmax(r["speedup"]))
    assert r["speedup"][r.best("speedup")] > 1


# -- size parameters (workload.params) as axes ---------------------------------------------------------


def parametric() -> Workload:
    return Workload(
        [
            Phase("gemm", ops="2*M*N*K", reads={"A": "4*M*K", "B": "4*K*N"}, writes={"C": "4*M*N"}),
            Phase("scale", ops="M*N", reads={"C": "4*M*N"}, writes={"D": "4*M*N"}),
        ],
        machine=Machine(1e12, 1e11),
        params={"M": 64, "N": 64, "K": 64},
    )


PARAM_AXES = dict(M=[64, 128, 256], K=[32, 64], tiles=[1, 4], pipeline=[True], peak_bandwidth=[5e10, 1e11])


@pytest.mark.slow  # starts worker processes or a Dask cluster
def test_size_parameters_are_axes(monkeypatch):
    w = parametric()
    r = cw.sweep(w, progress=False, **PARAM_AXES)
    configs = [dict(zip(PARAM_AXES, v)) for v in itertools.product(*PARAM_AXES.values())]
    assert len(r) == len(configs)
    for i, cfg in enumerate(configs):
        by_hand = (
            w.with_params(M=cfg["M"], K=cfg["K"])
            .with_peaks(peak_bandwidth=cfg["peak_bandwidth"])
            .schedule(tiles=cfg["tiles"], pipeline=True)
        )
        assert r["makespan"][i] == by_hand.makespan, cfg
        assert r["M"][i] == cfg["M"] and r.workload_for(i).params == {"M": cfg["M"], "N": 64, "K": cfg["K"]}
    monkeypatch.setattr(sweep_module, "IN_PROCESS_SECONDS", 0.0)
    pooled = cw.sweep(w, progress=False, **PARAM_AXES)
    assert pooled.executor_kind == "pool"
    assert_same(pooled, r)


def test_bad_size_parameters_are_named_with_the_configuration(no_schedule):
    with pytest.raises(
        SweepError,
        match=r"size parameters M=0 give an invalid workload, in configuration #2 "
        r"\{'tiles': 1, 'M': 0\}: .*'M'=0",
    ):
        cw.sweep(parametric(), progress=False, tiles=[1, 4], M=[64, 128, 0])
    with pytest.raises(
        SweepError,
        match=r"unknown sweep axis 'Q'; valid axes: tiles, pipeline, policy, depth, "
        r"peak_compute, peak_bandwidth, M, N, K",
    ):
        cw.sweep(parametric(), progress=False, Q=[1])
    assert no_schedule == []
