"""PyTorch profiler / Chrome trace JSON (plain or gzip) → a Workload of measured phases.

>>> from campaign_widget.io import read_torch_trace          # doctest: +SKIP
>>> w = read_torch_trace("trace.json", machine=Machine.measure())  # doctest: +SKIP
>>> print(w.import_report)                                          # doctest: +SKIP

What becomes a phase
  Complete events (``"ph": "X"``) of the chosen ``categories`` (default ``("kernel",)`` when the trace
  has GPU kernels, else ``("cpu_op",)``; every spelling Kineto has written is read: PyTorch 1.8-1.9's
  ``Kernel``, ``Operator``, ``Runtime``, ``Memcpy``, ``Memset`` are today's ``kernel``, ``cpu_op``,
  ``cuda_runtime``, ``gpu_memcpy``, ``gpu_memset``), grouped by event name (``group_by="name"``) or by the
  innermost ``user_annotation`` / ``gpu_user_annotation`` range that encloses them on the same thread
  or stream (``group_by="annotation"``; events outside every annotation form the phase
  ``"(outside annotations)"``). ``ProfilerStep#N`` ranges are ignored as annotations by default
  (``ignore_annotations=``).

  **A phase's duration is the sum of the ``dur`` of its events** (µs in the trace, seconds here) —
  busy time, not wall-clock span. Phases are ordered by their first event and each runs after the
  previous one.

  Operators nest: ``aten::linear`` calls ``aten::t`` and ``aten::addmm``. With ``nested="outer"``
  (default) only the outermost events of the chosen categories count, so no time is counted twice;
  their FLOPs and bytes come from the event itself or, when it has none, from the events nested in it.
  ``nested="all"`` counts every event (nested time is then counted twice; the report says how many
  events were nested).

FLOPs
  ``args["flops"]`` (or ``"kernel_flop"``, written by TorchInductor for its kernels) when the trace
  has them: *recorded*. Otherwise *computed* from the operator's ``args["Input Dims"]``, ``"Input type"``
  and ``"Concrete Inputs"`` by the work models of :mod:`campaign_widget.io.op_models` (matrix products,
  convolutions, attention, elementwise, softmax, norms, reductions, embedding, copies, views). Other
  operators: *unknown* (their phase keeps ops = 0). PyTorch 2.x's ``export_chrome_trace`` does not write
  the FLOPs it computes with ``with_flops=True`` into the trace; :func:`add_recorded_flops` copies the
  profiler's own numbers into a trace.

Bytes
  ``args["dram__bytes_read.sum"] + args["dram__bytes_write.sum"]`` when present, and a memcpy's or
  memset's ``args["bytes"]``: *counted*. Otherwise *estimated* by the same work models: every tensor
  input read once and the output written once (*estimated (inputs only)* when the output's size is
  unknown). Estimates ignore caches: they are the algorithmic minimum.

Work of GPU kernels
  A kernel records neither FLOPs nor bytes. In this order, it gets: the trace's own ``flops`` /
  ``dram__bytes_*`` fields; with ``counters="run.ncu.csv"``, the counters of a Nsight Compute report of
  the same run, its launches matched to the trace's kernels by kernel name and launch order (*counters*,
  *counted*); else the work of the CPU operator that launched it (*inherited*): linked by the kernel's
  External id (or its correlation id through the runtime launch), the outermost operator around the
  launch that a work model covers, its work split across its GPU events by duration. Kernels that none
  of these reach are listed in ``import_report.skipped_detail["work unknown"]`` (name → events) and a
  note; their phase's ``PhaseReport.details["work"]`` is ``"unknown"`` (``"partial"`` when some of its
  events have work, ``"known"`` when all do).

Names are kept whole, however long (templated CUDA kernels reach thousands of characters).

Nothing is dropped silently: ``workload.import_report.skipped`` counts the events left out by reason
(``wrong category``, ``not complete`` (``ph`` other than ``X``), ``zero duration``, ``malformed``) and
a :class:`SkippedEventsWarning` gives the counts.

Memory: the file is parsed in batches of events by msgspec (see ``_jsonstream``); the reader keeps
~90 bytes per complete event of the categories it reads (for the nesting, linking and grouping), not the
events themselves.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

from ..atomic import write_atomic
from ..errors import check_flag
from . import _torch_events as te
from . import op_models
from ._common import head_text, open_binary
from ._torch_timeline import timeline_of
from .checks import flag_or
from .op_models import ELEMENT_BYTES, MAX_DIM, NOT_TENSORS, compute_flops
from .source import Source

FORMAT = te.FORMAT
ANNOTATION_CATEGORIES = te.ANNOTATION_CATEGORIES
OUTSIDE = te.OUTSIDE
IGNORED_ANNOTATIONS = te.IGNORED_ANNOTATIONS
MAX_TRACE_BYTES = te.MAX_TRACE_BYTES
FLOPS_UNKNOWN, FLOPS_RECORDED, FLOPS_COMPUTED = te.FLOPS_UNKNOWN, te.FLOPS_RECORDED, te.FLOPS_COMPUTED
BYTES_UNKNOWN, BYTES_COUNTED, BYTES_ESTIMATED, BYTES_INPUTS_ONLY = (
    te.BYTES_UNKNOWN,
    te.BYTES_COUNTED,
    te.BYTES_ESTIMATED,
    te.BYTES_INPUTS_ONLY,
)
__all__ = [
    "ELEMENT_BYTES",
    "FORMAT",
    "MAX_DIM",
    "NOT_TENSORS",
    "add_recorded_flops",
    "compute_flops",
    "estimate_bytes",
    "read",
    "read_torch_trace",
    "sniff",
]


def estimate_bytes(name: str, dims, types, concrete=None):
    """``(bytes, BYTES_ESTIMATED | BYTES_INPUTS_ONLY)`` of one operator call from its shapes, or None."""
    estimate = op_models.estimate_bytes(name, dims, types, concrete)
    if estimate is None:
        return None
    return estimate[0], (BYTES_ESTIMATED if estimate[1] else BYTES_INPUTS_ONLY)


def read_torch_trace(
    path,
    *,
    machine=None,
    categories=None,
    group_by: str = "name",
    nested: str = "outer",
    ignore_annotations=IGNORED_ANNOTATIONS,
    percent: bool = False,
    warn: bool = True,
    timeline: bool = False,
    progress=None,
    counters=None,
):
    """Read a PyTorch profiler (Kineto) / Chrome trace (``.json`` or gzip) into a ``Workload``.

    ``machine``: the Machine the phases ran on, or a preset name (required: a trace holds no peaks; e.g.
    ``Machine.measure()`` for a CPU trace). ``categories``: event categories to import (default
    ``("kernel",)`` if the trace has GPU kernels, else ``("cpu_op",)``; any spelling Kineto wrote).
    ``group_by``: ``"name"`` or ``"annotation"``. ``nested``: ``"outer"`` or ``"all"`` (see the module
    docstring). ``counters``: a Nsight Compute CSV of the same run whose counters give the kernels
    their FLOPs and bytes.

    Each phase's duration is the **summed** ``dur`` of its events. The workload carries
    ``workload.import_report`` (an :class:`ImportReport`): per phase, whether FLOPs were recorded,
    computed, inherited, from counters or unknown and whether bytes were counted, estimated or inherited;
    the events left out, by reason; the GPU events whose work is unknown.

    ``timeline=True``: a ``campaign_widget.model.timeline.Timeline`` (a ``Schedule``) instead, whose
    ``.workload`` is this workload and whose intervals are the kept events at their measured times
    (``campaign_widget.io.torch_timeline``; ``progress`` shows a bar for large files).

    Raises ``WorkloadFileError`` naming the file, the line and the event index of malformed or
    truncated JSON.
    """
    # on/off options are True or False: bool('yes') and bool('false') would both read as on
    warn = check_flag(warn, "warn")
    progress = flag_or(progress, "progress", also=_own_progress, said="True, False, None or a callable")
    timeline = check_flag(timeline, "timeline")
    options = te.checked_options(path, machine, categories, group_by, nested, ignore_annotations, percent)
    if timeline:
        return timeline_of(options, warn=warn, progress=progress, counters=counters)
    stream = open_binary(options.name, options.source, options.file_path, limit=MAX_TRACE_BYTES)
    r = te.read_events(options, stream, keep_ignored=False, counters=counters)
    workload = te.phases(r, te.selected(r.events, r.sel, nested))
    if warn:
        r.report.warn_skipped(stacklevel=3)
    return workload


def _own_progress(progress) -> bool:
    """``progress`` that is neither True nor False: None (a bar for large files) or a callable."""
    return progress is None or callable(progress)


# -- recorded FLOPs from a live profiler --------------------------------------------------------------------


def add_recorded_flops(trace_path, profiler, out_path=None) -> Path:
    """Copy the FLOPs a ``torch.profiler.profile(with_flops=True)`` computed into its exported trace.

    PyTorch's ``export_chrome_trace`` leaves them out; this writes ``args["flops"]`` on each ``cpu_op``
    event, matching the profiler's events to the trace's by name and order of start. The importer then
    reports those FLOPs as *recorded*. Returns the path written (``out_path``, default in place).
    """
    trace_path = Path(trace_path)
    out_path = Path(out_path) if out_path is not None else trace_path
    recorded: dict[str, list] = defaultdict(list)
    for e in sorted(profiler.events(), key=lambda e: e.time_range.start):
        recorded[e.name].append(getattr(e, "flops", 0) or 0)
    doc = json.loads(trace_path.read_text(encoding="utf-8"))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    ops = sorted(
        (e for e in events if isinstance(e, dict) and e.get("cat") == "cpu_op" and e.get("ph") == "X"),
        key=lambda e: e["ts"],
    )
    seen: Counter = Counter()
    for e in ops:
        k = seen[e["name"]]
        seen[e["name"]] += 1
        values = recorded.get(e["name"], [])
        if k < len(values) and values[k] > 0:
            e.setdefault("args", {})["flops"] = int(values[k])
    write_atomic(out_path, json.dumps(doc))
    return out_path


# -- the format registry -----------------------------------------------------------------------------------


def _execution_trace(head: str) -> bool:
    """PyTorch's other JSON format (``ExecutionTraceObserver``): a graph of ``nodes``, no events."""
    return head.startswith("{") and '"nodes"' in head and '"schema"' in head and '"traceEvents"' not in head


def sniff(source: Source) -> bool:
    head = head_text(source, 65536).lstrip()
    if head.startswith("{"):
        return '"traceEvents"' in head or _execution_trace(head)  # the latter to say what it is
    if head.startswith("["):
        return '"ph"' in head and ('"ts"' in head or '"name"' in head)
    return False


def read(source: Source, *, machine=None, percent=False, **options):
    if _execution_trace(head_text(source, 65536).lstrip()):
        raise source.error(
            "this is a PyTorch execution trace (ExecutionTraceObserver: a graph of 'nodes'), not a profiler "
            "trace: load the trace torch.profiler exported (export_chrome_trace or tensorboard_trace_handler, "
            "a .pt.trace.json with 'traceEvents') instead"
        )
    return read_torch_trace(source, machine=machine, percent=percent, **options)
