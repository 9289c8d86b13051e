"""Design-space sweeps: thousands of what-ifs as one table (issue 13).

``sweep(workload, tiles=[1, 4, 16], policy=["none", "dilate+throttle"], peak_bandwidth=[1e12, 2e12])``
schedules the workload once per configuration of the product of the axes (or, with ``zip=True``,
of the axes paired up) and returns a :class:`SweepResult`: one row per configuration, in input
order whatever the executor.

How the work is done:

* Every configuration is an index into the product; workers receive the workload and the axes
  once (a *payload*) and then only ``(start, stop)`` index ranges, so a task is a few bytes.
* Work goes out in chunks sized by guided self-scheduling: each chunk takes ``1 / (GUIDED ×
  workers)`` of the estimated work still to hand out, between ``CHUNK_SECONDS`` (``DASK_CHUNK_SECONDS``
  on Dask, whose per-task cost is ~10× a local pool's) and ``MAX_CHUNK_SECONDS``: few tasks while much
  work remains (per-task overhead stays ~1%), small ones at the end (the workers finish together),
  and a live view fills in steadily.
* Inside a worker, what does not change across configurations is computed once: the workload is
  validated and topologically ordered once (in the caller, before any work); the re-derived
  workload for each distinct ``(size parameters, peak_compute, peak_bandwidth)`` is cached; the
  settings are resolved and checked once per distinct ``(tiles, pipeline, policy, depth)``; the
  dependency graph once, and the wavefront's tile order and dependency slots once per ``(tiles,
  depth)`` (``schedule.Plans``, per worker thread): a configuration then costs only what depends on
  its durations. The configurations of a chunk that share their settings (they differ in peaks or
  size parameters) are scheduled as one batch: the wavefront runs for all of them at once, one
  numpy step per level (``schedule.build_schedules``), and chunks end at multiples of the run of
  such configurations. Configurations that are the same schedule (without pipelining, ``depth``
  and dilation have no effect — design.md §3) are scheduled once per chunk. Every row is exactly
  what ``workload.schedule(...)`` gives for its configuration.
* A task that fails or is lost (a worker killed) is retried up to ``MAX_ATTEMPTS`` times; a
  configuration that still has no result raises :class:`SweepFailed` naming it, with the partial
  result attached. Nothing is silently dropped.
"""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import math
import multiprocessing
import numbers
import os
import pickle
import threading
import time
import uuid
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import schedule as _engine
from .errors import SweepError, SweepFailed  # noqa: F401
from .progress import Progress
from .settings import DEFAULTS as DEFAULT_SETTINGS
from .settings import Settings, check_setting
from .workload import BOUND_COMPUTE, BOUND_MEMORY, Workload

#: Axes every workload has. Workloads with size parameters (``workload.params``) add one axis per
#: parameter name.
SETTING_AXES = ("tiles", "pipeline", "policy", "depth")
PEAK_AXES = ("peak_compute", "peak_bandwidth")
STANDARD_AXES = SETTING_AXES + PEAK_AXES

#: A sweep with more configurations than this needs ``allow_large=True``: at about a millisecond to
#: tens of milliseconds per configuration, 10^6 configurations are hours of CPU time and their table
#: alone is ~100 MB; a typo in an axis (``range(1, 10**4)``) should not start that by accident.
MAX_CONFIGURATIONS = 1_000_000

#: ``executor=None`` runs in this process when the sweep's estimated serial time is below this many
#: seconds, and in a local process pool (one worker per core) above it. Starting a pool and sending
#: the workload to its workers costs about half a second on a loaded 2-core machine, so below ~2 s
#: of work a pool cannot win; above it the pool's speed-up grows towards the number of cores.
IN_PROCESS_SECONDS = 2.0

#: Workers of the pool ``executor=None`` starts; None: one per core (``os.cpu_count()``).
POOL_WORKERS: int | None = None

CHUNK_SECONDS = 0.1  # smallest chunk (estimated seconds) for a process pool: its ~1 ms per task is 1%
DASK_CHUNK_SECONDS = 0.5  # smallest chunk on Dask: ~5-15 ms per task (scheduler, client, worker) is 1-3%
MAX_CHUNK_SECONDS = 2.0  # largest chunk: a live view still updates, a lost worker loses little
GUIDED = 2  # each chunk takes 1 / (GUIDED × workers) of the estimated work not yet handed out
INLINE_CHUNK_SECONDS = 0.25  # in this process: chunks of at most this much work, and at least
INLINE_CHUNKS = 8  # this many of them, so that a live view fills in several times a second
MAX_ATTEMPTS = 3  # a task is tried this many times before its configurations are reported
_PAYLOAD_CACHE_SIZE = 4  # payloads a worker keeps (one per concurrent sweep is plenty)
_DERIVED_CACHE_SIZE = 256  # re-derived workloads (per params × peaks) a worker keeps per payload

# Rough serial cost model used only to size chunks and pick in-process vs pool (seconds; measured on
# the 24-phase Mamba layer of benchmarks/bench_sweep.py on the 2-core CI machine, under load).
# Pipelined configurations that share settings are scheduled together (per chunk), which makes the
# per-tile cost ~0.5 µs in groups of 100+ and ~2 µs in groups of 25.
_COST_PER_CONFIG = {False: 1.5e-4, True: 4e-4}  # sequential / pipelined
_COST_PER_TILE = {False: 1e-7, True: 1e-6}  # per phase·tile, sequential / pipelined


# -- the payload: what travels to each worker once -------------------------------------------------


@dataclass
class _Payload:
    token: str
    workload: Workload
    names: tuple[str, ...]  # swept axes, in the caller's order
    values: tuple[tuple, ...]  # their values
    zipped: bool
    param_names: tuple[str, ...]  # which swept axes are workload size parameters

    def __post_init__(self):
        self._derived: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._local = threading.local()

    def __getstate__(self):
        state = dict(self.__dict__)
        for cache in ("_derived", "_lock", "_local"):
            state.pop(cache, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._derived = OrderedDict()
        self._lock = threading.Lock()
        self._local = threading.local()

    def engine(self) -> _Engine:
        """This thread's schedule caches for this payload (a ``schedule.Plans`` is not thread-safe)."""
        engine = getattr(self._local, "engine", None)
        if engine is None:
            engine = self._local.engine = _Engine(self.workload)
        return engine

    @property
    def shape(self) -> tuple[int, ...]:
        return (len(self.values[0]),) if self.zipped else tuple(len(v) for v in self.values)

    def __len__(self) -> int:
        return len(self.values[0]) if self.zipped else math.prod(len(v) for v in self.values)

    def digits(self, index: np.ndarray) -> list[np.ndarray]:
        """Per axis, the position of each configuration's value (product: last axis fastest)."""
        if self.zipped:
            return [index for _ in self.values]
        return list(np.unravel_index(index, self.shape))

    def configuration(self, i: int) -> dict:
        d = self.digits(np.array([i]))
        return {name: self.values[a][int(d[a][0])] for a, name in enumerate(self.names)}

    def derived(self, params: tuple, peaks: tuple) -> Workload:
        """The workload with these size parameters and peaks, computed once per worker."""
        key = (params, peaks)
        with self._lock:
            hit = self._derived.get(key)
            if hit is not None:
                self._derived.move_to_end(key)
                return hit
        w = self.workload
        if params:
            w = w.with_params(**dict(zip(self.param_names, params)))
        if peaks != (None, None):
            w = w.with_peaks(*peaks)
        with self._lock:
            self._derived[key] = w
            while len(self._derived) > _DERIVED_CACHE_SIZE:
                self._derived.popitem(last=False)
        return w


_PAYLOADS: OrderedDict = OrderedDict()
_PAYLOADS_LOCK = threading.Lock()
_NEED_PAYLOAD = "campaign_widget.sweep: need payload"


def _install(payload: _Payload | bytes) -> _Payload:
    if isinstance(payload, (bytes, bytearray)):
        payload = pickle.loads(payload)
    with _PAYLOADS_LOCK:
        have = _PAYLOADS.get(payload.token)
        if have is not None:
            return have
        _PAYLOADS[payload.token] = payload
        while len(_PAYLOADS) > _PAYLOAD_CACHE_SIZE:
            _PAYLOADS.popitem(last=False)
    return payload


def _run_installed(token: str, start: int, stop: int):
    """Task of the pool this module starts: the payload came with the worker's initializer."""
    return _evaluate(_PAYLOADS[token], start, stop)


def _run_token(token: str, start: int, stop: int, payload_bytes: bytes | None):
    """Task for any Executor: the payload is attached to a worker's first task; later tasks carry
    only the token, and a worker that has not seen it asks for it (the caller resends)."""
    with _PAYLOADS_LOCK:
        payload = _PAYLOADS.get(token)
    if payload is None:
        if payload_bytes is None:
            return _NEED_PAYLOAD
        payload = _install(payload_bytes)
    return _evaluate(payload, start, stop)


def _run_dask(payload: _Payload, start: int, stop: int):
    """Task for a Dask client: ``payload`` is the worker's copy of the scattered payload."""
    return _evaluate(_install(payload), start, stop)


# -- evaluating configurations ---------------------------------------------------------------------


class _Engine:
    """``Workload.schedule`` for the configurations of one sweep, reusing what they share: the
    settings resolved and checked once per distinct ``(tiles, pipeline, policy, depth)``, the
    dependency graph and the wavefront's tile order once per ``(tiles, depth)`` (``schedule.Plans``),
    and, for configurations with the same settings (other peaks or size parameters), one wavefront
    run for all of them (``schedule.build_schedules``). Every workload scheduled here is the sweep's
    workload re-derived: the same phases, dependencies, fusion groups and settings; only durations
    differ. Each schedule is the one ``Workload.schedule`` gives, bit for bit."""

    def __init__(self, workload: Workload):
        self.settings = workload.settings
        self.plans = _engine.Plans()
        self._resolved: dict = {}

    def _chosen(self, key):
        chosen = self._resolved.get(key)
        if chosen is None:
            chosen = Settings.resolve(self.settings, dict(zip(SETTING_AXES, key))).as_dict()
            if chosen["pipeline"] and chosen["stepping"] == "lockstep":
                chosen = False  # not the wavefront: nothing to reuse
            self._resolved[key] = chosen
        return chosen

    def schedule(self, w: Workload, tiles, pipeline, policy, depth):
        """The schedule of ``w`` with these settings (None: the workload's own, else the defaults)."""
        chosen = self._chosen((tiles, pipeline, policy, depth))
        if chosen is False:
            return w.schedule(tiles=tiles, pipeline=pipeline, policy=policy, depth=depth)
        return _engine.build_schedule(w, **chosen, _plans=self.plans)

    def schedules(self, workloads: list[Workload], tiles, pipeline, policy, depth) -> list:
        """The schedules of several workloads with the same settings, at once where it pays."""
        chosen = self._chosen((tiles, pipeline, policy, depth))
        if chosen is False or len(workloads) == 1:
            return [self.schedule(w, tiles, pipeline, policy, depth) for w in workloads]
        return _engine.build_schedules(workloads, **chosen, plans=self.plans)


RESULT_FIELDS = ("makespan", "peak_demand_0", "peak_demand_1", "feasible", "compute_bound_share", "memory_bound_share")


def _evaluate(payload: _Payload, start: int, stop: int) -> dict:
    """Schedule configurations [start, stop) of the payload; one array per result field, and the CPU
    seconds this thread spent (``cpu``).

    Configurations with the same settings are scheduled together (one wavefront run for all their
    peaks and size parameters); a group that fails is redone one configuration at a time, so that
    an error is reported with its own configuration."""
    cpu0 = time.thread_time()
    index = np.arange(start, stop)
    digits = payload.digits(index)
    columns = {name: (payload.values[a], digits[a]) for a, name in enumerate(payload.names)}

    def value(name, k, default=None):
        if name not in columns:
            return default
        vals, d = columns[name]
        return vals[int(d[k])]

    n = stop - start
    out = {f: np.full(n, np.nan) for f in RESULT_FIELDS}
    out["feasible"] = np.zeros(n, bool)
    errors = {}
    engine = payload.engine()
    rows: dict = {}  # (params, peaks, settings) -> the result row
    where: list = []  # (k, that key) per configuration with a workload
    groups: dict = {}  # settings -> {(params, peaks): workload} to schedule
    for k in range(n):
        params = tuple(value(p, k) for p in payload.param_names)
        peaks = (value("peak_compute", k), value("peak_bandwidth", k))
        tiles, pipeline, policy, depth = (value(s, k) for s in SETTING_AXES)
        try:
            w = payload.derived(params, peaks)
        except Exception as exc:  # reported with its configuration by the caller
            errors[k] = f"{type(exc).__name__}: {exc}"
            continue
        eff_pipeline = pipeline if pipeline is not None else w.settings.get("pipeline", DEFAULT_SETTINGS["pipeline"])
        call_policy, call_depth = policy, depth
        if not eff_pipeline:
            # Without pipelining no two tiles overlap: dilation and the buffer depth change nothing
            # (design.md §3), so these configurations share one schedule.
            eff_policy = policy if policy is not None else w.settings.get("policy", DEFAULT_SETTINGS["policy"])
            call_policy = "throttle" if "throttle" in eff_policy else "none"
            call_depth = None
        settings = (tiles, pipeline, call_policy, call_depth)
        groups.setdefault(settings, {})[(params, peaks)] = w
        where.append((k, (params, peaks, settings)))
    for settings, members in groups.items():
        try:
            computed = engine.schedules(list(members.values()), *settings)
            for (params, peaks), w, sched in zip(members, members.values(), computed):
                rows[(params, peaks, settings)] = _metrics(w, sched)
        except Exception:
            for (params, peaks), w in members.items():  # one at a time: each error with its configuration
                try:
                    rows[(params, peaks, settings)] = _metrics(w, engine.schedule(w, *settings))
                except Exception as exc:
                    rows[(params, peaks, settings)] = f"{type(exc).__name__}: {exc}"
    for k, key in where:
        row = rows[key]
        if isinstance(row, str):
            errors[k] = row
            continue
        for f, v in zip(RESULT_FIELDS, row):
            out[f][k] = v
    return {
        "start": start,
        "stop": stop,
        "fields": out,
        "errors": [(start + k, e) for k, e in sorted(errors.items())],
        "cpu": time.thread_time() - cpu0,
        "worker": (os.getpid(), time.process_time()),
    }


def _metrics(workload: Workload, s) -> tuple:
    length = s.end - s.start
    total = float(length.sum())
    bound = workload.arrays.bound[s.phase]
    c_share = float(length[bound == BOUND_COMPUTE].sum()) / total if total > 0 else 0.0
    m_share = float(length[bound == BOUND_MEMORY].sum()) / total if total > 0 else 0.0
    r0, r1 = s.resource_names
    # feasible: no oversubscribed interval (``s.oversubscribed`` is the list made from these arrays)
    return (s.makespan, s.peak_demand.get(r0, 0.0), s.peak_demand.get(r1, 0.0), s.over_t0.size == 0, c_share, m_share)


# -- the result ------------------------------------------------------------------------------------


class SweepResult:
    """One row per configuration, in input order: the swept axes, then the results.

    Columns (numpy arrays, ``result["makespan"]``): one per swept axis; ``makespan``; ``speedup``
    (baseline makespan / makespan); ``peak_demand_<resource>`` for both machine resources (the peak
    requested demand, 1 = 100%); ``feasible`` (no resource above 100% at any instant);
    ``compute_bound_share`` and ``memory_bound_share`` (the share of the tiles' summed running time
    spent in phases bound by each resource; the rest is balanced phases).

    A result started by :func:`start_sweep` fills in as chunks arrive (rows not yet computed have a
    NaN makespan); ``done``, ``completed``, ``wait()`` and ``on_update()`` follow its progress.

    How it ran: ``executor_kind``, ``elapsed`` (wall seconds), ``tasks`` (chunks computed),
    ``retried``, and ``cpu_seconds``, the CPU time spent computing the rows summed over every worker
    (without transport or idle time): compared between runs it shows the parallel efficiency
    whatever else the machine is doing.
    """

    def __init__(self, payload: _Payload, baseline_makespan: float | None, baseline_index: int | None):
        self._payload = payload
        self.axes: dict[str, list] = {n: list(v) for n, v in zip(payload.names, payload.values)}
        self.zipped = payload.zipped
        self.workload = payload.workload
        self.resource_names = (payload.workload.machine.compute_name, payload.workload.machine.memory_name)
        n = len(payload)
        self._fields = {f: np.full(n, np.nan) for f in RESULT_FIELDS}
        self._fields["feasible"] = np.zeros(n, bool)
        self._have = np.zeros(n, bool)
        self._baseline_makespan = baseline_makespan
        self._baseline_index = baseline_index
        self._listeners: list[Callable] = []
        self._done = threading.Event()
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self.elapsed = 0.0
        self.executor_kind = ""  # "inline", "pool", "executor" or "dask", once started
        self.retried = 0  # tasks sent again after a failure or a lost worker
        self.cpu_seconds = 0.0  # CPU time spent computing the rows, summed over workers (not transport, not idle)
        self.tasks = 0  # chunks computed
        self._worker_cpu: dict[int, float] = {}  # pid -> its process CPU seconds at its last chunk
        digits = payload.digits(np.arange(n))
        self._axis_columns = {}
        for a, name in enumerate(payload.names):
            vals = payload.values[a]
            self._axis_columns[name] = _column(vals)[digits[a]]
            self._axis_columns[name].flags.writeable = False
        self._digits = digits

    # table access
    @property
    def columns(self) -> list[str]:
        r0, r1 = self.resource_names
        return [
            *self.axes,
            "makespan",
            "speedup",
            f"peak_demand_{r0}",
            f"peak_demand_{r1}",
            "feasible",
            "compute_bound_share",
            "memory_bound_share",
        ]

    def __len__(self) -> int:
        return int(self._have.size)

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self._axis_columns:
            return self._axis_columns[name]
        r0, r1 = self.resource_names
        if name == "speedup":
            return self._baseline() / self._fields["makespan"]
        internal = {f"peak_demand_{r0}": "peak_demand_0", f"peak_demand_{r1}": "peak_demand_1"}.get(name, name)
        if internal not in self._fields:
            raise KeyError(f"{name!r} is not a column of this sweep; columns: {', '.join(self.columns)}")
        out = self._fields[internal].copy()
        return out

    def _baseline(self) -> float:
        if self._baseline_makespan is not None:
            return self._baseline_makespan
        return float(self._fields["makespan"][self._baseline_index])

    def row(self, i: int) -> dict:
        """Configuration ``i`` and its results, as a dict of plain Python values."""
        i = _index(i, len(self))
        out = {}
        for c in self.columns:
            v = self[c][i]
            out[c] = v.item() if isinstance(v, np.generic) else v
        return out

    def configuration(self, i: int) -> dict:
        """The axis values of configuration ``i``."""
        return self._payload.configuration(_index(i, len(self)))

    def best(self, by: str = "makespan") -> int:
        """Index of the best configuration among the feasible ones (all, if none is feasible): the
        largest ``by`` for ``speedup``, the smallest for any other column (makespan, peak demand)."""
        values = np.asarray(self[by], dtype=float)
        ok = self._have & self._fields["feasible"]
        if not ok.any():
            ok = self._have
        if not ok.any():
            raise ValueError("no configuration has a result yet")
        candidates = np.flatnonzero(ok)
        pick = np.argmax if by == "speedup" else np.argmin
        return int(candidates[pick(values[candidates])])

    def workload_for(self, i: int) -> Workload:
        """The workload of configuration ``i``: its size parameters, peaks and schedule settings."""
        cfg = self.configuration(i)
        p = self._payload
        w = p.derived(tuple(cfg[n] for n in p.param_names), (cfg.get("peak_compute"), cfg.get("peak_bandwidth")))
        settings = {k: cfg[k] for k in SETTING_AXES if k in cfg}
        return w.with_settings(**settings) if settings else w

    def schedule(self, i: int):
        """The ``Schedule`` of configuration ``i`` (computed again, the same numbers)."""
        return self.workload_for(i).schedule()

    def diagram(self, i: int, **options):
        """A ``CampaignDiagram`` of configuration ``i``."""
        from .widget import CampaignDiagram

        return CampaignDiagram(self.workload_for(i), **options)

    def table(self) -> dict[str, np.ndarray]:
        return {c: self[c] for c in self.columns}

    def to_dataframe(self):
        """The table as a pandas DataFrame (needs pandas: ``pip install pandas``)."""
        from ._optional import require_pandas

        return require_pandas("SweepResult.to_dataframe").DataFrame(self.table())

    # progress
    @property
    def completed(self) -> int:
        return int(self._have.sum())

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> SweepResult:
        """Block until the sweep has finished; re-raise its error if it failed."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"sweep not finished after {timeout} s ({self.completed}/{len(self)} done)")
        if self._error is not None:
            raise self._error
        return self

    def cancel(self) -> None:
        """Ask a running sweep to stop after the chunks in flight."""
        self._cancel.set()

    def on_update(self, callback: Callable[[SweepResult], None]) -> None:
        """Call ``callback(result)`` whenever a chunk of results arrives and once when done."""
        self._listeners.append(callback)

    def _fill(self, chunk: dict) -> None:
        s, e = chunk["start"], chunk["stop"]
        with self._lock:
            for f, arr in chunk["fields"].items():
                self._fields[f][s:e] = arr
            ok = np.ones(e - s, bool)
            for i, _ in chunk["errors"]:
                ok[i - s] = False
            self._have[s:e] |= ok
            self.cpu_seconds += chunk.get("cpu", 0.0)
            self.tasks += 1
            if "worker" in chunk:  # the worker process' CPU time so far (benchmarks: pool workers are not our children)
                pid, cpu = chunk["worker"]
                self._worker_cpu[pid] = max(cpu, self._worker_cpu.get(pid, 0.0))
        self._notify()

    def _notify(self) -> None:
        for cb in list(self._listeners):
            try:
                cb(self)
            except Exception as exc:  # a broken listener must not lose the sweep
                warnings.warn(
                    f"campaign_widget.sweep: update callback {cb!r} failed: {exc!r}", RuntimeWarning, stacklevel=2
                )

    def _missing(self) -> list[int]:
        return np.flatnonzero(~self._have).tolist()

    def __repr__(self):
        state = "done" if self.done else f"{self.completed}/{len(self)} done"
        axes = ", ".join(f"{k}×{len(v)}" for k, v in self.axes.items())
        return f"<SweepResult of {len(self)} configurations ({axes}; {'zip' if self.zipped else 'product'}), {state}>"


def _column(values) -> np.ndarray:
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return np.array(values, dtype=bool)
    if all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in values):
        return np.array(values, dtype=np.int64)
    if all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in values):
        return np.array(values, dtype=np.float64)
    if all(isinstance(v, str) for v in values):
        return np.array(values, dtype=str)
    arr = np.empty(len(values), dtype=object)
    arr[:] = list(values)
    return arr


def _index(i, n) -> int:
    if isinstance(i, bool) or not isinstance(i, numbers.Integral):
        raise TypeError(f"configuration index {i!r} must be an integer")
    j = int(i) + (n if i < 0 else 0)
    if not 0 <= j < n:
        raise IndexError(f"configuration {i} out of range for {n} configurations")
    return j


# -- validation (before any work starts) -----------------------------------------------------------


def _valid_axes(workload) -> tuple[tuple[str, ...], tuple[str, ...]]:
    params = getattr(workload, "params", None)
    names = tuple(params) if isinstance(params, dict) else ()
    return STANDARD_AXES + tuple(n for n in names if n not in STANDARD_AXES), names


def _where(names, values, zipped, a, j) -> str:
    """'configuration #k (axis=value, …)': the first configuration that has value j of axis a."""
    if zipped:
        k, digits = j, [j] * len(values)
    else:
        digits = [0] * len(values)
        digits[a] = j
        k = int(np.ravel_multi_index(digits, tuple(len(v) for v in values)))
    cfg = ", ".join(f"{n}={values[b][digits[b]]!r}" for b, n in enumerate(names))
    return f"configuration #{k} ({cfg})"


def _check_value(name, v, workload) -> str | None:
    """Why value v of axis name is invalid, or None."""
    if name in SETTING_AXES:
        try:
            check_setting(name, v)  # the model's own check and wording (campaign_widget.settings)
        except Exception as exc:
            return str(exc)
        if name == "tiles":
            from . import schedule as _schedule

            limit = getattr(_schedule, "MAX_TILE_INTERVALS", None)
            if limit is not None and int(v) * len(workload) > limit:
                return f"tiles={v} × {len(workload)} phases is above the limit of {limit:,} tile intervals"
            if v > 1 and not workload.tileable.all():
                fixed = workload.names[int(np.flatnonzero(~workload.tileable)[0])]
                return f"tiles={v}: phase {fixed!r} is marked tileable=False"
        return None
    if name in PEAK_AXES:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not math.isfinite(v) or v <= 0:
            return f"{name}={v!r} must be a finite number > 0"
        return None
    return None  # size parameters: checked by the workload itself, per combination


def _normalize(v):
    """numpy scalars to Python ones, so that results pickle small and print plainly."""
    return v.item() if isinstance(v, np.generic) else v


def _prepare(workload, zipped, allow_large, axes, baseline):
    if not isinstance(workload, Workload):
        raise TypeError(f"sweep takes a campaign_widget.Workload, got {type(workload).__name__}")
    valid, param_names = _valid_axes(workload)
    if not axes:
        raise SweepError(f"sweep needs at least one axis, e.g. tiles=[1, 4, 16]; axes: {', '.join(valid)}")
    unknown = [n for n in axes if n not in valid]
    if unknown:
        raise SweepError(f"unknown sweep axis {', '.join(map(repr, unknown))}; valid axes: {', '.join(valid)}")
    names, values = [], []
    for name, given in axes.items():
        if isinstance(given, (str, bytes)) or not hasattr(given, "__iter__"):
            raise SweepError(f"axis {name}={given!r} must be a list of values, e.g. {name}=[{given!r}]")
        vals = tuple(_normalize(v) for v in (given.tolist() if isinstance(given, np.ndarray) else given))
        if not vals:
            raise SweepError(f"axis {name} is empty: give at least one value")
        names.append(name)
        values.append(vals)
    if zipped:
        lengths = {n: len(v) for n, v in zip(names, values)}
        if len(set(lengths.values())) > 1:
            raise SweepError(f"zip=True pairs the axes up, so they need equal lengths; got {lengths}")
        count = len(values[0])
    else:
        count = math.prod(len(v) for v in values)
    if count > MAX_CONFIGURATIONS and not allow_large:
        shape = " × ".join(f"{len(v)} {n}" for n, v in zip(names, values))
        raise SweepError(
            f"the sweep has {count:,} configurations ({shape}), above the limit of "
            f"{MAX_CONFIGURATIONS:,}; pass allow_large=True to run it anyway"
        )
    for a, (name, vals) in enumerate(zip(names, values)):
        for j, v in enumerate(vals):
            why = _check_value(name, v, workload)
            if why:
                raise SweepError(f"{why}, in {_where(names, values, zipped, a, j)}")
    swept_params = tuple(n for n in names if n in param_names)
    payload = _Payload(
        token=uuid.uuid4().hex,
        workload=workload,
        names=tuple(names),
        values=tuple(values),
        zipped=zipped,
        param_names=swept_params,
    )
    if swept_params:
        _check_params(payload)
    base_makespan, base_index = _baseline(payload, baseline, valid)
    return payload, base_makespan, base_index


def _check_params(payload: _Payload) -> None:
    """Every distinct combination of size parameters gives a valid workload (once each, cached)."""
    pos = [payload.names.index(p) for p in payload.param_names]
    if payload.zipped:
        combos = dict.fromkeys(tuple(payload.values[a][j] for a in pos) for j in range(len(payload)))
    else:
        combos = dict.fromkeys(itertools.product(*(payload.values[a] for a in pos)))
    for combo in combos:
        try:
            payload.derived(combo, (None, None))
        except Exception as exc:
            shown = ", ".join(f"{n}={v!r}" for n, v in zip(payload.param_names, combo))
            if payload.zipped:
                k = next(j for j in range(len(payload)) if tuple(payload.values[a][j] for a in pos) == combo)
            else:
                digits = [0] * len(payload.names)
                for a, v in zip(pos, combo):
                    digits[a] = payload.values[a].index(v)
                k = int(np.ravel_multi_index(digits, payload.shape))
            raise SweepError(
                f"size parameters {shown} give an invalid workload, in configuration #{k} "
                f"{payload.configuration(k)}: {exc}"
            ) from None


def _baseline(payload: _Payload, baseline, valid) -> tuple[float | None, int | None]:
    if baseline is None:
        return None, 0
    if isinstance(baseline, numbers.Integral) and not isinstance(baseline, bool):
        return None, _index(baseline, len(payload))
    if not isinstance(baseline, dict):
        raise SweepError(
            f"baseline={baseline!r} must be a configuration index or a dict of axis values, "
            "e.g. baseline={'tiles': 1}"
        )
    unknown = [k for k in baseline if k not in valid]
    if unknown:
        raise SweepError(f"baseline has unknown axis {', '.join(map(repr, unknown))}; valid axes: {', '.join(valid)}")
    for k, v in baseline.items():
        why = _check_value(k, v, payload.workload)
        if why:
            raise SweepError(f"baseline: {why}")
    w = payload.workload
    params = {k: v for k, v in baseline.items() if k in payload.param_names or k not in STANDARD_AXES}
    try:
        if params:
            w = w.with_params(**params)
        if "peak_compute" in baseline or "peak_bandwidth" in baseline:
            w = w.with_peaks(baseline.get("peak_compute"), baseline.get("peak_bandwidth"))
        s = w.schedule(**{k: baseline[k] for k in SETTING_AXES if k in baseline})
    except Exception as exc:
        raise SweepError(f"baseline {baseline!r} cannot be scheduled: {exc}") from None
    return float(s.makespan), None


def _executor_kind(executor) -> str:
    if executor is None:
        return "auto"
    if isinstance(executor, str):
        return "dask-address"
    mod = type(executor).__module__ or ""
    if mod.split(".")[0] == "distributed" and hasattr(executor, "scatter") and hasattr(executor, "submit"):
        return "dask"
    if isinstance(executor, cf.Executor):
        return "executor"
    raise TypeError(
        f"executor={executor!r} must be None, a concurrent.futures.Executor (ProcessPoolExecutor, "
        "ThreadPoolExecutor, …), a dask.distributed.Client, or a Dask scheduler address such as "
        "'tcp://scheduler:8786'"
    )


def _require_distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError(
            "sweeping on a Dask cluster needs dask.distributed: pip install 'campaign_widget[dask]' "
            "(or pip install 'dask[distributed]')"
        ) from None
    return distributed


# -- chunking --------------------------------------------------------------------------------------


def _costs(payload: _Payload) -> np.ndarray:
    """Estimated serial seconds per configuration (for chunk sizes and the in-process switch)."""
    n = len(payload)
    index = np.arange(n)
    digits = payload.digits(index)
    w = payload.workload
    cols = {name: np.asarray(_column(payload.values[a]))[digits[a]] for a, name in enumerate(payload.names)}
    tiles = cols.get("tiles", np.full(n, w.settings.get("tiles", DEFAULT_SETTINGS["tiles"]))).astype(float)
    pipe = cols.get("pipeline", np.full(n, bool(w.settings.get("pipeline", DEFAULT_SETTINGS["pipeline"])))).astype(bool)
    per_tile = np.where(pipe, _COST_PER_TILE[True], _COST_PER_TILE[False])
    return np.where(pipe, _COST_PER_CONFIG[True], _COST_PER_CONFIG[False]) + per_tile * tiles * len(w)


def _inline_chunks(costs: np.ndarray, payload: _Payload) -> list[tuple[int, int]]:
    """Chunks for this process: no per-task cost, so equal chunks of ``INLINE_CHUNK_SECONDS`` at most,
    ``INLINE_CHUNKS`` at least, for a live view's sake."""
    size = min(INLINE_CHUNK_SECONDS, float(costs.sum()) / INLINE_CHUNKS)
    return _chunks(costs, 1, size, _run_length(payload), largest=size)


def _run_length(payload: _Payload) -> int:
    """How many consecutive configurations share their settings: the product of the axes after the
    last setting axis (peaks, size parameters vary fastest). A chunk cut at a multiple of it keeps
    each group of same-settings configurations whole, so it is scheduled in one batch."""
    if payload.zipped:
        return 1
    run = 1
    for name, values in zip(reversed(payload.names), reversed(payload.values)):
        if name in SETTING_AXES:
            break
        run *= len(values)
    return run


def _chunks(
    costs: np.ndarray, workers: int, smallest: float | None = None, align: int = 1, largest: float | None = None
) -> list[tuple[int, int]]:
    """Consecutive ``(start, stop)`` ranges covering every configuration, by guided self-scheduling:
    each takes ``1 / (GUIDED × workers)`` of the estimated work not yet handed out, clipped to
    ``[smallest, largest]`` (defaults ``CHUNK_SECONDS``, ``MAX_CHUNK_SECONDS``; a tail below half of
    ``smallest`` joins the last chunk), and ends at a multiple of ``align`` when it holds that many."""
    smallest = CHUNK_SECONDS if smallest is None else smallest
    largest = MAX_CHUNK_SECONDS if largest is None else largest
    n = costs.size
    cum = np.cumsum(costs)
    total = float(cum[-1]) if n else 0.0
    edges = [0]
    done = 0.0
    while edges[-1] < n:
        size = min(largest, max(smallest, (total - done) / (GUIDED * max(workers, 1))))
        stop = int(np.searchsorted(cum, done + size, side="left")) + 1  # the configuration crossing it included
        if align > 1 and stop - edges[-1] >= align:
            stop = edges[-1] + (stop - edges[-1] + align // 2) // align * align  # the nearest multiple
        stop = min(n, max(stop, edges[-1] + 1))
        if total - float(cum[stop - 1]) < smallest / 2:
            stop = n
        edges.append(stop)
        done = float(cum[stop - 1])
    return [(a, b) for a, b in zip(edges[:-1], edges[1:])]


# -- running ---------------------------------------------------------------------------------------


def _pool_context():
    """fork when this process has a single thread (a script: fast, and no ``__main__`` guard needed);
    else forkserver (a Jupyter kernel or a Dask client has threads, and forking a threaded process
    can deadlock); spawn where neither exists."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["campaign_widget.sweep"])
        return ctx
    return multiprocessing.get_context("spawn")


def _run(result: SweepResult, executor, progress) -> None:
    payload = result._payload
    kind = _executor_kind(executor)
    costs = _costs(payload)
    report = Progress(progress, total=len(payload), what="sweep", unit=" configurations")
    own = None
    t0 = time.perf_counter()
    try:
        if kind == "dask-address":
            distributed = _require_distributed()
            own = distributed.Client(executor)
            executor, kind = own, "dask"
        if kind == "auto":
            cores = os.cpu_count() or 1
            if cores < 2 or float(costs.sum()) < IN_PROCESS_SECONDS or len(payload) < 2:
                kind = "inline"
            else:
                kind = "pool"
        result.executor_kind = kind
        if kind == "inline":
            _run_inline(result, _inline_chunks(costs, payload), report)
        elif kind == "pool":
            try:
                _run_pool(result, costs, report)
            except SweepFailed as exc:
                if result.completed:
                    raise
                # The pool never produced a result: its workers cannot start here (e.g. a script read
                # from stdin, which forkserver/spawn workers cannot re-import). Run in this process.
                warnings.warn(
                    f"campaign_widget.sweep: the process pool could not run ({str(exc).splitlines()[0]}); "
                    "running in this process instead",
                    RuntimeWarning,
                    stacklevel=3,
                )
                result.executor_kind = kind = "inline"
                _run_inline(result, _inline_chunks(costs, payload), report)
        elif kind == "dask":
            _run_dask_client(result, executor, costs, report)
        else:
            workers = getattr(executor, "_max_workers", None) or os.cpu_count() or 1
            _run_executor(result, executor, _chunks(costs, workers, align=_run_length(payload)), workers, report)
        missing = result._missing()
        if missing and not result._cancel.is_set():
            raise _failure(result, missing, "no result")
    finally:
        result.elapsed = time.perf_counter() - t0
        if own is not None:
            own.close()
        report(result.completed)
        report.close()


def _failure(result: SweepResult, indices, why: str, errors: dict | None = None) -> SweepFailed:
    """The error for configurations ``indices`` (with ``why``); ``missing`` lists every configuration
    without a result, those named here first, then any not computed because the sweep stopped."""
    errors = errors or {}
    named = list(indices)
    rest = sorted(set(result._missing()) - set(named))
    missing = [result.configuration(i) for i in named + rest]
    lines = []
    for i, cfg in zip(named[:10], missing):
        detail = f": {errors[i]}" if i in errors else ""
        lines.append(f"  configuration #{i} {cfg}{detail}")
    more = f"\n  … and {len(named) - 10} more" if len(named) > 10 else ""
    stopped = f"\n{len(rest)} more configurations were not computed (the sweep stopped)" if rest else ""
    return SweepFailed(
        f"{len(named)} of {len(result)} configurations have {why}:\n" + "\n".join(lines) + more + stopped,
        result,
        missing,
    )


def _accept(result: SweepResult, chunk: dict, report) -> None:
    result._fill(chunk)
    if chunk["errors"]:
        errors = dict(chunk["errors"])
        raise _failure(result, sorted(errors), "failed", errors)
    report(result.completed)


def _run_inline(result, chunks, report):
    payload = _install(result._payload)
    for s, e in chunks:
        if result._cancel.is_set():
            return
        _accept(result, _evaluate(payload, s, e), report)


def _run_pool(result, costs, report):
    """A local process pool this module owns: the payload goes with each worker's initializer;
    if a worker dies (the pool breaks), a new pool takes the unfinished chunks."""
    payload = result._payload
    workers = POOL_WORKERS or os.cpu_count() or 1
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    pending = {c: 0 for c in _chunks(costs, workers, align=_run_length(payload))}  # chunk -> attempts so far
    ctx = _pool_context()
    while pending:
        pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_install, initargs=(data,))
        broken = False
        try:
            futures = {pool.submit(_run_installed, payload.token, s, e): (s, e) for (s, e) in pending}
            for fut in cf.as_completed(futures):
                chunk = futures[fut]
                if result._cancel.is_set():
                    break
                try:
                    out = fut.result()
                except cf.process.BrokenProcessPool:
                    broken = True
                    pending[chunk] += 1
                    result.retried += 1
                    continue
                except Exception as exc:  # not a configuration's error (those come back in the chunk)
                    pending[chunk] += 1
                    result.retried += 1
                    if pending[chunk] >= MAX_ATTEMPTS:
                        idx = list(range(*chunk))
                        raise _failure(
                            result,
                            idx,
                            f"no result after {MAX_ATTEMPTS} attempts",
                            {i: f"{type(exc).__name__}: {exc}" for i in idx},
                        ) from exc
                    continue
                del pending[chunk]
                _accept(result, out, report)
        finally:
            pool.shutdown(wait=not broken, cancel_futures=True)
        if result._cancel.is_set():
            return
        exhausted = [c for c, n in pending.items() if n >= MAX_ATTEMPTS]
        if exhausted:
            idx = [i for s, e in sorted(exhausted) for i in range(s, e)]
            raise _failure(result, idx, f"no result after {MAX_ATTEMPTS} attempts (worker processes died)")


def _run_executor(result, executor, chunks, workers, report):
    """Any concurrent.futures.Executor: tasks carry the payload token; the payload rides along with
    the first task per worker and is resent only to a worker that asks for it."""
    payload = result._payload
    _install(payload)  # thread pools share this process' cache: they never need the bytes
    data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    attempts = {c: 0 for c in chunks}
    futures = {}
    for k, (s, e) in enumerate(chunks):
        futures[executor.submit(_run_token, payload.token, s, e, data if k < workers else None)] = (s, e)
    errors = {}
    while futures:
        done, _ = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
        for fut in done:
            chunk = futures.pop(fut)
            if result._cancel.is_set():
                continue
            try:
                out = fut.result()
            except cf.BrokenExecutor as exc:
                for f in futures:
                    f.cancel()
                idx = [i for s, e in [chunk, *futures.values()] for i in range(s, e)]
                raise _failure(
                    result,
                    idx,
                    f"no result: the executor broke ({exc}); pass executor=None to let the sweep restart its own pool",
                ) from exc
            except Exception as exc:
                attempts[chunk] += 1
                errors[chunk] = f"{type(exc).__name__}: {exc}"
                if attempts[chunk] >= MAX_ATTEMPTS:
                    idx = list(range(*chunk))
                    raise _failure(
                        result, idx, f"no result after {MAX_ATTEMPTS} attempts", {i: errors[chunk] for i in idx}
                    ) from exc
                futures[executor.submit(_run_token, payload.token, *chunk, data)] = chunk
                result.retried += 1
                continue
            if isinstance(out, str) and out == _NEED_PAYLOAD:
                futures[executor.submit(_run_token, payload.token, *chunk, data)] = chunk
                continue
            _accept(result, out, report)


def _run_dask_client(result, client, costs, report):
    """A dask.distributed Client: the payload is scattered to every worker once (broadcast);
    tasks lost with a worker are rescheduled by Dask, and failed ones resubmitted here."""
    distributed = _require_distributed()
    payload = result._payload
    info = client.scheduler_info()
    workers = max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))
    remote = client.scatter([payload], broadcast=True, hash=False)[0]
    chunks = _chunks(costs, workers, DASK_CHUNK_SECONDS, _run_length(payload))
    attempts = {c: 0 for c in chunks}
    errors = {}

    def submit(chunk):
        return client.submit(
            _run_dask,
            remote,
            *chunk,
            pure=False,
            retries=1,
            key=f"campaign-sweep-{payload.token[:8]}-{chunk[0]}-{chunk[1]}-{uuid.uuid4().hex[:6]}",
        )

    futures = {submit(c): c for c in chunks}
    # with_results: the client's event loop fetches each result as its task finishes, not this thread
    # one blocking round trip at a time
    ac = distributed.as_completed(list(futures), with_results=True, raise_errors=False)
    try:
        for fut, out in ac:
            chunk = futures.pop(fut)
            if result._cancel.is_set():
                break
            # an error comes as (type, exception, traceback): KilledWorker, a lost worker's data, a
            # worker-side error; a cancelled task as its CancelledError
            exc = out[1] if fut.status == "error" else out if isinstance(out, BaseException) else None
            if exc is not None:
                attempts[chunk] += 1
                errors[chunk] = f"{type(exc).__name__}: {exc}"
                if attempts[chunk] >= MAX_ATTEMPTS:
                    idx = list(range(*chunk))
                    raise _failure(
                        result,
                        idx,
                        f"no result after {MAX_ATTEMPTS} attempts on the Dask cluster",
                        {i: errors[chunk] for i in idx},
                    ) from exc
                if remote.status != "finished":  # every copy of the payload was lost with its workers
                    remote = client.scatter([payload], broadcast=True, hash=False)[0]
                new = submit(chunk)
                futures[new] = chunk
                ac.add(new)
                result.retried += 1
                continue
            fut.release()
            _accept(result, out, report)
    finally:
        for f in futures:
            f.cancel()
        remote.release()


# -- the public entry points -----------------------------------------------------------------------


def start_sweep(
    workload: Workload,
    *,
    executor=None,
    progress=False,
    zip: bool = False,
    baseline=None,
    allow_large: bool = False,
    **axes,
) -> SweepResult:
    """Like :func:`sweep`, but returns at once with a :class:`SweepResult` that fills in from a
    background thread (for a live :class:`~campaign_widget.sweep_view.SweepView`). Bad input still
    raises here, before any work starts; ``result.wait()`` re-raises a failure of the run."""
    result = _start(workload, executor, zip, allow_large, baseline, axes)

    def target():
        try:
            _run(result, executor, progress)
        except BaseException as exc:  # handed to wait()
            result._error = exc
        finally:
            result._done.set()
            result._notify()

    threading.Thread(target=target, name="campaign_widget-sweep", daemon=True).start()
    return result


def _start(workload, executor, zipped, allow_large, baseline, axes) -> SweepResult:
    _executor_kind(executor)  # a wrong executor fails before anything else is computed
    if isinstance(executor, str):
        _require_distributed()
    payload, base_makespan, base_index = _prepare(workload, bool(zipped), allow_large, axes, baseline)
    return SweepResult(payload, base_makespan, base_index)


def sweep(
    workload: Workload,
    *,
    executor=None,
    progress=True,
    zip: bool = False,
    baseline=None,
    allow_large: bool = False,
    **axes,
) -> SweepResult:
    """Schedule ``workload`` for every configuration of the axes; one row per configuration.

    Axes are lists of values for any of ``tiles``, ``pipeline``, ``policy``, ``depth``,
    ``peak_compute``, ``peak_bandwidth``, and, for a workload with size parameters
    (``workload.params``), any parameter name. A setting that is not swept comes from
    ``workload.settings`` (else the defaults), a peak from ``workload.machine``.

    - ``zip=False``: the full product, the last axis varying fastest (like ``itertools.product``);
      ``zip=True``: the axes paired up (equal lengths).
    - ``baseline``: ``speedup`` is the baseline's makespan over each makespan; None: the first
      configuration; an int: that configuration; a dict of axis values: that configuration
      scheduled on its own (it need not be in the sweep).
    - ``executor``: None runs in this process when the estimated work is below
      ``IN_PROCESS_SECONDS`` (2 s) and in a local process pool with one worker per core above it
      (starting a pool costs ~0.5 s: it only pays off for larger sweeps). Or any
      ``concurrent.futures.Executor``; or a ``dask.distributed.Client`` — the same call on a
      cluster: ``sweep(w, executor=Client("tcp://scheduler:8786"), tiles=range(1, 257))`` (a
      scheduler address string works too; needs ``pip install 'campaign_widget[dask]'``). The
      workload travels once per worker and tasks are chunks of 0.5–2 s of work; on a small local
      cluster, Dask's own event loops and its 10 ms worker profiler take ~10% of a core
      (``dask.config.set({"distributed.worker.profile.enabled": False})`` before starting the
      cluster halves the workers' part).
    - ``progress``: True prints a progress line; a callable gets ``(done, total)``; False: quiet.
    - More than ``MAX_CONFIGURATIONS`` (10^6) configurations need ``allow_large=True``.

    Bad input raises :class:`SweepError` (``TypeError`` for a wrong executor) before any work
    starts; a configuration that cannot be computed after ``MAX_ATTEMPTS`` tries raises
    :class:`SweepFailed` naming it, with the partial result attached.

    >>> from campaign_widget import Phase, Workload
    >>> w = Workload([Phase("A", duration=3, compute_util=0.7, memory_util=0.6),
    ...               Phase("B", duration=10, compute_util=0.2, memory_util=0.9, after=["A"])])
    >>> r = sweep(w, tiles=[1, 4], pipeline=[True], policy=["none", "dilate+throttle"], progress=False)
    >>> [round(float(m), 2) for m in r["makespan"]]
    [13.0, 13.0, 10.75, 11.35]
    >>> [bool(f) for f in r["feasible"]]
    [True, True, False, True]
    """
    result = _start(workload, executor, zip, allow_large, baseline, axes)
    try:
        _run(result, executor, progress)
    finally:
        result._done.set()
        result._notify()
    return result
