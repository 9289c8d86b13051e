"""The public entry points: :func:`sweep` and :func:`start_sweep` (its signature is ``sweep``'s)."""

from __future__ import annotations

import threading
from inspect import signature

from ..errors import SweepError, check_flag
from ..model.workload import Workload
from ._result import SweepResult
from ._run import _run
from ._validate import _executor_kind, _prepare, _require_distributed


def _start(workload, executor, zipped, allow_large, baseline, axes) -> SweepResult:
    _executor_kind(executor)  # a wrong executor fails before anything else is computed
    if isinstance(executor, str):
        _require_distributed()
    zipped, allow_large = check_flag(zipped, "zip", SweepError), check_flag(allow_large, "allow_large", SweepError)
    payload, base_makespan, base_index = _prepare(workload, zipped, allow_large, axes, baseline)
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
      (starting a pool has a fixed cost that only larger sweeps repay). Or any
      ``concurrent.futures.Executor``; or a ``dask.distributed.Client`` — the same call on a
      cluster: ``sweep(w, executor=Client("tcp://scheduler:8786"), tiles=range(1, 257))`` (a
      scheduler address string works too; needs ``pip install 'campaign_widget[dask]'``). The
      workload travels once per worker and tasks are chunks of 0.5–2 s of work; on a small local
      cluster, Dask's own event loops and its worker profiler take part of a core
      (``dask.config.set({"distributed.worker.profile.enabled": False})`` before starting the
      cluster turns the profiler off).
    - ``progress``: True prints a progress line; a callable gets ``(done, total)``; False: quiet.
    - More than ``MAX_CONFIGURATIONS`` (10^6) configurations need ``allow_large=True``; they are
      counted from the axes' lengths before any axis is read.

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


def start_sweep(workload: Workload, **options) -> SweepResult:
    """Like :func:`sweep`, with the same options (``progress`` off by default), but returns at once with a
    :class:`SweepResult` that fills in from a background thread (for a live
    :class:`~campaign_widget.views.sweep.SweepView`). Bad input still raises here, before any work starts;
    ``result.wait()`` re-raises a failure of the run."""
    call = _START_SIGNATURE.bind(workload, **options)  # sweep's keywords, or a TypeError naming the odd one
    call.apply_defaults()
    given = call.arguments
    executor, progress = given["executor"], given["progress"]
    result = _start(workload, executor, given["zip"], given["allow_large"], given["baseline"], given["axes"])

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


#: ``sweep``'s signature with ``progress=False``: the one ``start_sweep`` takes and shows.
_START_SIGNATURE = signature(sweep).replace(
    parameters=[p.replace(default=False) if p.name == "progress" else p for p in signature(sweep).parameters.values()]
)
start_sweep.__signature__ = _START_SIGNATURE
