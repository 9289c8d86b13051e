"""Profiler importers: PyTorch/Chrome traces, Nsight Compute CSV, Timeloop stats → measured Workloads.

Importing this package registers three formats with ``campaign_widget.files`` so that
``campaign_widget.load(path)`` recognizes them by content:

- ``pytorch-trace``: PyTorch profiler / Chrome trace JSON, plain or gzip (:func:`read_torch_trace`)
- ``nsight-compute-csv``: ``ncu --csv`` output, ``--page details`` or ``--page raw`` (:func:`read_nsight_csv`)
- ``timeloop-stats``: ``timeloop-model.stats.txt`` / ``timeloop-mapper.stats.txt`` (:func:`read_timeloop_stats`)

Each reader is also callable directly, with more options than ``load`` passes. Every imported workload
carries ``workload.import_report`` (:class:`ImportReport`): where each phase's FLOPs and bytes come
from (recorded, computed, counted, estimated, unknown) and what was left out, by reason.
"""

from ..files import register_format, formats
from ._common import ImportReport, PhaseReport, SkippedEventsWarning
from . import nsight, timeloop, torch_trace
from .nsight import read_nsight_csv
from .timeloop import read_timeloop_stats
from .torch_trace import add_recorded_flops, read_torch_trace

__all__ = ["ImportReport", "PhaseReport", "SkippedEventsWarning", "add_recorded_flops", "read_nsight_csv",
           "read_timeloop_stats", "read_torch_trace"]

_REGISTERED = {f.name for f in formats()}
for _name, _module, _suffixes, _description in (
        (torch_trace.FORMAT, torch_trace, (".json", ".gz"), "PyTorch profiler / Chrome trace JSON (plain or gzip)"),
        (nsight.FORMAT, nsight, (".csv",), "Nsight Compute CSV (ncu --csv, --page details or raw)"),
        (timeloop.FORMAT, timeloop, (".txt",), "Timeloop stats (timeloop-model.stats.txt)")):
    if _name not in _REGISTERED:  # importing twice (e.g. importlib.reload) must not fail
        register_format(_name, _module.sniff, _module.read, suffixes=_suffixes, description=_description)

from ..sdfg import register as _register_sdfg  # noqa: E402  DaCe SDFGs (.sdfg, .sdfgz)

_register_sdfg()
