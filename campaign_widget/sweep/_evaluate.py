"""Evaluating a range of configurations: one array per result field, and each failure with its
configuration."""

from __future__ import annotations

import os
import time

import numpy as np

from ..model.settings import DEFAULTS as DEFAULT_SETTINGS
from ..model.settings import Policy
from ..model.workload import BOUND_COMPUTE, BOUND_LATENCY, BOUND_MEMORY, Workload
from ._axes import SETTING_AXES
from ._payload import _Payload

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
            errors[k] = exc
            continue
        eff_pipeline = pipeline if pipeline is not None else w.settings.get("pipeline", DEFAULT_SETTINGS["pipeline"])
        call_policy, call_depth = policy, depth
        if not eff_pipeline:
            # Without pipelining no two tiles overlap: dilation and the buffer depth change nothing
            # (docs/semantics.md#pipelining), so these configurations share one schedule.
            eff_policy = policy if policy is not None else w.settings.get("policy", DEFAULT_SETTINGS["policy"])
            call_policy = Policy.named(eff_policy).undilated().name
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
                    rows[(params, peaks, settings)] = exc
    for k, key in where:
        row = rows[key]
        if isinstance(row, BaseException):
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
    memory_side = (bound == BOUND_MEMORY) | (bound == BOUND_LATENCY)  # a latency-bound phase waits on memory
    m_share = float(length[memory_side].sum()) / total if total > 0 else 0.0
    r0, r1 = s.resource_names
    # feasible: no oversubscribed interval (``s.oversubscribed`` is the list made from these arrays)
    return (s.makespan, s.peak_demand.get(r0, 0.0), s.peak_demand.get(r1, 0.0), s.over_t0.size == 0, c_share, m_share)
