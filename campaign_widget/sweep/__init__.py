"""Design-space sweeps: thousands of what-ifs as one table.

``sweep(workload, tiles=[1, 4, 16], policy=["none", "dilate+throttle"], peak_bandwidth=[1e12, 2e12])``
schedules the workload once per configuration of the product of the axes (or, with ``zip=True``,
of the axes paired up) and returns a :class:`SweepResult`: one row per configuration, in input
order whatever the executor.

How the work is done, one module each:

* ``_validate``: everything is checked before any work starts, the configurations counted from the
  axes' lengths before any axis is read in full.
* ``_payload``: every configuration is an index into the product; workers receive the workload and
  the axes once (a *payload*) and then only ``(start, stop)`` index ranges, so a task is a few bytes.
* ``_chunks``: work goes out in chunks sized by guided self-scheduling: each chunk takes
  ``1 / (GUIDED × workers)`` of the estimated work still to hand out, between ``CHUNK_SECONDS``
  (``DASK_CHUNK_SECONDS`` on Dask, whose per-task cost is higher) and ``MAX_CHUNK_SECONDS``: few
  tasks while much work remains, small ones at the end (the workers finish together), and a live
  view fills in steadily.
* ``_engine`` and ``_evaluate``: inside a worker, what does not change across configurations is
  computed once: the workload is validated and topologically ordered once (in the caller, before
  any work); the re-derived workload for each distinct ``(size parameters, peak_compute,
  peak_bandwidth)`` is cached; the settings are resolved and checked once per distinct ``(tiles,
  pipeline, policy, depth)``; the dependency graph once, and the wavefront's tile order and
  dependency slots once per ``(tiles, depth)`` (``schedule.Plans``, per worker thread): a
  configuration then costs only what depends on its durations. The configurations of a chunk that
  share their settings (they differ in peaks or size parameters) are scheduled as one batch
  (``schedule.build_schedules``), and chunks end at multiples of the run of such configurations.
  Configurations that are the same schedule (without pipelining, ``depth`` and dilation have no
  effect — docs/semantics.md#schedules) are scheduled once per chunk. Every row is exactly what
  ``workload.schedule(...)`` gives for its configuration.
* ``_run`` and ``_tasks``: a task that fails or is lost (a worker killed) is retried up to
  ``MAX_ATTEMPTS`` times; a configuration that still has no result raises :class:`SweepFailed`
  naming it, with the partial result attached and the first failure as its ``__cause__``. Nothing
  is silently dropped.
* ``_result``: the table (:class:`SweepResult`); ``_tuning``: the numbers above, which can be set
  on this package (``campaign_widget.sweep.POOL_WORKERS = 4``).
"""

from __future__ import annotations

import importlib
import sys
import types

from ..errors import SweepError, SweepFailed
from . import _tuning
from ._api import start_sweep, sweep
from ._axes import PEAK_AXES, SETTING_AXES, STANDARD_AXES
from ._chunks import _chunks, _costs, _inline_chunks, _run_length
from ._evaluate import RESULT_FIELDS
from ._result import OBJECTIVE_WORDS, OBJECTIVES, SweepResult
from ._validate import _prepare

__all__ = [
    "OBJECTIVES",
    "OBJECTIVE_WORDS",
    "PEAK_AXES",
    "RESULT_FIELDS",
    "SETTING_AXES",
    "STANDARD_AXES",
    "SweepError",
    "SweepFailed",
    "SweepResult",
    "start_sweep",
    "sweep",
]  # the tunables (sweep.POOL_WORKERS, …: _tuning.TUNABLE) are properties of the package's module class

# the internals the tests and benchmarks reach
_INTERNALS = (_chunks, _costs, _inline_chunks, _run_length, _prepare)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_tuning.TUNABLE))


def _tunable(name: str) -> property:
    # A data descriptor on the module's class: reading, setting and restoring the name (as any
    # pytest's monkeypatch does, whether it restores by setattr or checks the module's __dict__
    # first) all go to ``_tuning``, where the sweep reads it at call time.
    def get(module: types.ModuleType):
        return getattr(_tuning, name)

    def set_(module: types.ModuleType, value) -> None:
        setattr(_tuning, name, value)

    def delete(module: types.ModuleType) -> None:
        raise AttributeError(f"{name} is a setting of the sweep; set it to another value instead")

    return property(get, set_, delete, doc=f"``_tuning.{name}``, read at call time")


class _Package(types.ModuleType):
    """The package's module: its tunables are properties over ``_tuning``."""

    def __reduce__(self):
        return importlib.import_module, (self.__name__,)  # by name, as pickle takes any module


for _name in _tuning.TUNABLE:
    setattr(_Package, _name, _tunable(_name))
del _name

sys.modules[__name__].__class__ = _Package
