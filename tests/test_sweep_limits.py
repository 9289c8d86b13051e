"""A sweep refuses what it cannot hold before it builds anything, and hands the caller the
exceptions it met (as ``__cause__``), not only their text."""

from __future__ import annotations

import concurrent.futures as cf
import importlib
import threading
import tracemalloc

import pytest
from workloads import two_phases

import campaign_widget as cw
from campaign_widget import ScheduleError, SweepError, SweepFailed

sweep_module = importlib.import_module("campaign_widget.sweep")
engine = importlib.import_module("campaign_widget.model.schedule")


def _peak_bytes(call) -> int:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_configurations_are_counted_from_the_lengths_before_any_axis_is_read():
    def run():
        with pytest.raises(SweepError, match=r"3000000 tiles\), above the limit of 1,000,000"):
            cw.sweep(two_phases(), progress=False, tiles=range(1, 3_000_001))

    assert _peak_bytes(run) < 2 * 2**20  # the axis' values would be tens of megabytes
    with pytest.raises(SweepError, match=r"99,999,999 configurations"):
        cw.sweep(two_phases(), progress=False, tiles=range(1, 10**8))
    with pytest.raises(SweepError, match=r"2 policy × 999999 depth\), above the limit"):
        cw.sweep(two_phases(), progress=False, policy=["none", "throttle"], depth=range(1, 10**6))


def test_an_axis_longer_than_any_index_is_refused_even_when_large_is_allowed():
    with pytest.raises(SweepError, match="above the limit"):
        cw.sweep(two_phases(), progress=False, tiles=range(10**30))
    with pytest.raises(SweepError, match="more than any table can index"):
        cw.sweep(two_phases(), progress=False, allow_large=True, tiles=range(10**30))


def test_an_iterator_axis_is_read_no_further_than_the_limit(monkeypatch):
    monkeypatch.setattr(sweep_module, "MAX_CONFIGURATIONS", 10)
    taken = []

    def values():
        for i in range(1, 10**9):
            taken.append(i)
            yield i

    with pytest.raises(SweepError, match=r"11 configurations"):
        cw.sweep(two_phases(), progress=False, tiles=values())
    assert len(taken) == 11
    assert sweep_module.MAX_CONFIGURATIONS == 10  # set on the package, read where the sweep checks it


def test_zipped_lengths_are_compared_before_reading():
    with pytest.raises(SweepError, match="equal lengths"):
        cw.sweep(two_phases(), progress=False, zip=True, tiles=range(1, 10**8), depth=[1, 2])


def test_a_bad_setting_is_a_sweep_error_caused_by_the_models_own_error():
    with pytest.raises(SweepError, match=r"depth=0 must be.*in configuration #1") as err:
        cw.sweep(two_phases(), progress=False, depth=[1, 0])
    assert isinstance(err.value.__cause__, ScheduleError)
    with pytest.raises(SweepError, match="baseline") as err:
        cw.sweep(two_phases(), progress=False, tiles=[1], baseline={"depth": 10**30})
    assert isinstance(err.value.__cause__, ScheduleError)


class Boom(RuntimeError):
    pass


class Unpicklable(RuntimeError):
    def __init__(self, message, extra):  # rebuilt from args=(message,) only: unpickling fails
        super().__init__(message)
        self.extra = extra
        # and a lock, which no pickler takes: tblib (installed by dask.distributed) rebuilds
        # exceptions without calling __init__, so the first reason alone is not enough
        self.lock = threading.Lock()


@pytest.mark.parametrize("where", ["inline", "threads"])
def test_a_failed_configuration_hands_over_its_exception(monkeypatch, where):
    original = engine.build_schedule

    def failing(w, *, tiles, **kw):
        if tiles == 3:
            raise Boom("simulated failure")
        return original(w, tiles=tiles, **kw)

    monkeypatch.setattr(engine, "build_schedule", failing)
    executor = cf.ThreadPoolExecutor(2) if where == "threads" else None
    try:
        with pytest.raises(SweepFailed, match=r"\{'tiles': 3\}: Boom: simulated failure") as err:
            cw.sweep(two_phases(), progress=False, executor=executor, tiles=[1, 2, 3, 4])
    finally:
        if executor is not None:
            executor.shutdown()
    assert isinstance(err.value.__cause__, Boom)


def test_an_exception_that_cannot_travel_comes_back_as_a_sweep_error(monkeypatch):
    original = engine.build_schedule

    def failing(w, *, tiles, **kw):
        if tiles == 2:
            raise Unpicklable("cannot travel", extra=1)
        return original(w, tiles=tiles, **kw)

    monkeypatch.setattr(engine, "build_schedule", failing)
    with cf.ThreadPoolExecutor(1) as executor:
        with pytest.raises(SweepFailed, match=r"Unpicklable: cannot travel") as err:
            cw.sweep(two_phases(), progress=False, executor=executor, tiles=[1, 2])
    assert isinstance(err.value.__cause__, SweepError)


def test_the_package_pickles_by_name_and_takes_its_settings():
    import pickle

    cloudpickle = pytest.importorskip("cloudpickle")  # what Dask sends a module back with
    assert pickle.loads(pickle.dumps(sweep_module)) is sweep_module
    assert cloudpickle.loads(cloudpickle.dumps(sweep_module)) is sweep_module
    tuning = importlib.import_module("campaign_widget.sweep._tuning")
    old = sweep_module.POOL_WORKERS
    try:
        sweep_module.POOL_WORKERS = 3
        assert tuning.POOL_WORKERS == 3 == sweep_module.POOL_WORKERS
    finally:
        sweep_module.POOL_WORKERS = old
    assert "POOL_WORKERS" in dir(sweep_module)
