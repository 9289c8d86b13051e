"""Workload files: every reader and writer, one module per format, behind ``load`` and ``save``.

``load(path)`` recognizes a file by its content (the suffix only breaks ties) among the registered
formats, in this order:

- ``campaign-workload`` (:mod:`.schema`): our schema, YAML (canonical) or JSON; the only format
  ``save`` writes (docs/workload-files.md).
- ``cascade-yaml`` (:mod:`.cascade`): the paper authors' tool's ``cascade: {name, kernels: [...]}``.
- ``einsum-csv`` (:mod:`.einsum_csv`): CSV exports of Einsum runs with start and end times.
- ``pytorch-trace`` (:mod:`.torch_trace`): PyTorch profiler / Chrome trace JSON, plain or gzip.
- ``nsight-compute-csv`` (:mod:`.nsight`): ``ncu --csv``, ``--page details`` or ``--page raw``, also as
  a log after the program's own output.
- ``timeloop-stats`` (:mod:`.timeloop`): ``timeloop-model.stats.txt``.
- ``dace-sdfg`` (:mod:`.sdfg`): DaCe SDFGs, ``.sdfg`` or gzip ``.sdfgz``; symbols become parameters.

More formats plug in with ``register_format(name, sniff, read)`` without touching ``load``.
Imported profiles carry ``workload.import_report`` (:class:`ImportReport`): where each phase's
numbers come from and what was left out.
"""

from __future__ import annotations

from ..model.import_report import ImportReport, PhaseReport, SkippedEventsWarning
from . import cascade, einsum_csv, nsight, schema, sdfg, timeloop, torch_trace
from . import from_code as from_code  # registers Workload.from_torch, from_jax and from_dace with the model
from .nsight import read_nsight_csv
from .registry import FileFormat, detect, formats, load, register_format, unregister_format
from .schema import dumps, save, to_document
from .sdfg import read_sdfg
from .source import Source, WorkloadFileError
from .timeloop import read_timeloop_stats
from .torch_trace import add_recorded_flops, read_torch_trace

__all__ = [
    "FileFormat",
    "ImportReport",
    "PhaseReport",
    "SkippedEventsWarning",
    "Source",
    "WorkloadFileError",
    "add_recorded_flops",
    "detect",
    "dumps",
    "formats",
    "load",
    "read_nsight_csv",
    "read_sdfg",
    "read_timeloop_stats",
    "read_torch_trace",
    "register_format",
    "save",
    "to_document",
    "unregister_format",
]

_BUILT_IN = (
    (
        schema.FORMAT,
        schema,
        schema.YAML_SUFFIXES + schema.JSON_SUFFIXES,
        True,
        "YAML or JSON with format: campaign-workload and phases:",
    ),
    (cascade.FORMAT, cascade, schema.YAML_SUFFIXES, False, "the paper authors' YAML, cascade: {name, kernels: [...]}"),
    (einsum_csv.FORMAT, einsum_csv, (".csv",), True, "CSV with columns " + ", ".join(einsum_csv.CSV_REQUIRED)),
    (torch_trace.FORMAT, torch_trace, (".json", ".gz"), False, "PyTorch profiler / Chrome trace JSON (plain or gzip)"),
    (
        nsight.FORMAT,
        nsight,
        (".csv", ".log"),
        False,
        "Nsight Compute CSV (ncu --csv, --page details or raw, also after the program's output in a log)",
    ),
    (timeloop.FORMAT, timeloop, (".txt",), False, "Timeloop stats (timeloop-model.stats.txt)"),
    (sdfg.FORMAT, sdfg, sdfg.SUFFIXES, False, "DaCe SDFG JSON (.sdfg, gzip .sdfgz)"),
)
_REGISTERED = {f.name for f in formats()}
for _name, _module, _suffixes, _fallback, _description in _BUILT_IN:
    if _name not in _REGISTERED:  # importing twice (e.g. importlib.reload) must not fail
        register_format(
            _name, _module.sniff, _module.read, suffixes=_suffixes, fallback=_fallback, description=_description
        )
