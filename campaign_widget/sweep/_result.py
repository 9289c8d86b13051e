"""The sweep's table: one row per configuration, filled in as chunks arrive."""

from __future__ import annotations

import numbers
import threading
import warnings
from collections.abc import Callable

import numpy as np

from ..errors import ConfigurationIndexError, SweepError, WrongTypeError, short_repr
from ..model.workload import Workload
from ._axes import SETTING_AXES
from ._evaluate import RESULT_FIELDS
from ._payload import _Payload

#: the objectives ``SweepResult.best`` knows by name, as the column or quantity each ranks
OBJECTIVES = {"latency": "makespan", "makespan": "makespan", "throughput": "throughput", "speedup": "speedup"}
#: how each objective is said beside the best configuration ("◆ best (shortest makespan): ...")
OBJECTIVE_WORDS = {"makespan": "shortest makespan", "throughput": "highest throughput", "speedup": "largest speedup"}


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
            raise KeyError(f"{short_repr(name)} is not a column of this sweep; columns: {', '.join(self.columns)}")
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
        """Index of the best configuration among the feasible ones (all, if none is feasible) by the
        objective ``by`` (docs/views/sweep-view.md#what-best-optimises): ``"makespan"`` or ``"latency"``
        (the shortest makespan: one pass as fast as possible), ``"throughput"`` (the most operations per
        second: all the work of a configuration over its makespan, what a larger batch buys), ``"speedup"``
        (the largest), or any other column (its smallest: a peak demand)."""
        by = OBJECTIVES.get(by, by)
        values = np.asarray(self.throughput() if by == "throughput" else self[by], dtype=float)
        ok = self._have & self._fields["feasible"]
        if not ok.any():
            ok = self._have
        if not ok.any():
            raise SweepError("no configuration has a result yet")
        candidates = np.flatnonzero(ok)
        pick = np.argmax if by in ("speedup", "throughput") else np.argmin
        return int(candidates[pick(values[candidates])])

    def throughput(self) -> np.ndarray:
        """Per configuration, its workload's operations over its makespan (ops per second; NaN where not
        computed): the work done per unit of time, which a batch sweep maximises where the makespan of one
        pass would pick the smallest batch. The operations depend on the size parameters only."""
        p = self._payload
        ops: dict[tuple, float] = {}
        out = np.full(len(self), np.nan)
        for i in np.flatnonzero(self._have):
            cfg = self.configuration(int(i))
            key = tuple(cfg[n] for n in p.param_names)
            if key not in ops:
                ops[key] = float(p.derived(key, (None, None)).arrays.ops.sum())
            out[i] = ops[key] / self._fields["makespan"][i]
        return out

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

    def table(self) -> dict[str, np.ndarray]:
        return {c: self[c] for c in self.columns}

    def to_dataframe(self):
        """The table as a pandas DataFrame (needs pandas: ``pip install pandas``)."""
        from .._optional import require_pandas

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
        raise WrongTypeError(f"configuration index {i!r} must be an integer")
    j = int(i) + (n if i < 0 else 0)
    if not 0 <= j < n:
        raise ConfigurationIndexError(f"configuration {short_repr(i)} out of range for {n} configurations")
    return j
