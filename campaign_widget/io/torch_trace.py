"""PyTorch profiler / Chrome trace JSON (plain or gzip) → a Workload of measured phases.

>>> from campaign_widget.io import read_torch_trace          # doctest: +SKIP
>>> w = read_torch_trace("trace.json", machine=Machine.measure())  # doctest: +SKIP
>>> print(w.import_report)                                          # doctest: +SKIP

What becomes a phase
  Complete events (``"ph": "X"``) of the chosen ``categories`` (default ``("kernel",)`` when the trace
  has GPU kernels, else ``("cpu_op",)``), grouped by event name (``group_by="name"``) or by the
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
  has them: *recorded*. Otherwise *computed* from ``args["Input Dims"]`` for matrix products
  (``aten::mm, matmul, bmm, addmm, linear``: 2·M·K·N per product, as PyTorch's ``with_flops`` counts)
  and convolutions (``aten::conv1d/2d/3d, convolution, _convolution``: 2·N·C_out·C_in/groups·∏kernel·
  ∏output, stride/padding/dilation/groups from ``args["Concrete Inputs"]``). Other operators: *unknown*
  (their phase keeps ops = 0). Note that PyTorch 2.x's ``export_chrome_trace`` does not write the
  FLOPs it computes with ``with_flops=True`` into the trace, so a trace straight from PyTorch gives
  *computed* FLOPs; :func:`add_recorded_flops` copies the profiler's own numbers into a trace.

Bytes
  ``args["dram__bytes_read.sum"] + args["dram__bytes_write.sum"]`` when present: *counted*. Otherwise
  *estimated* from ``Input Dims`` × the element size of ``Input type``: every tensor input read once and
  the output written once (output shape inferred for matrix products, convolutions and elementwise
  operators; other operators are *estimated (inputs only)*). View operators (``aten::view, t,
  transpose, …``) move nothing. Estimates ignore caches: they are the algorithmic minimum.

Nothing is dropped silently: ``workload.import_report.skipped`` counts the events left out by reason
(``wrong category``, ``not complete`` (``ph`` other than ``X``), ``zero duration``, ``malformed``) and
a :class:`SkippedEventsWarning` gives the counts.

Memory: the file is parsed incrementally (see ``_jsonstream``); the reader keeps ~60 bytes per
selected event (for the nesting and grouping analysis), not the events themselves.
"""

from __future__ import annotations

import json
import math
import re
from array import array
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from ..atomic import write_atomic
from ._common import (
    ImportReport,
    PhaseReport,
    build_workload,
    check_machine,
    check_percent,
    error,
    head_text,
    open_binary,
    source_of,
)
from ._jsonstream import TraceSyntaxError, iter_trace
from .source import Source

FORMAT = "pytorch-trace"
ANNOTATION_CATEGORIES = ("user_annotation", "gpu_user_annotation")
OUTSIDE = "(outside annotations)"
US = 1e-6

FLOPS_UNKNOWN, FLOPS_RECORDED, FLOPS_COMPUTED = 0, 1, 2
BYTES_UNKNOWN, BYTES_COUNTED, BYTES_ESTIMATED, BYTES_INPUTS_ONLY = 0, 1, 2, 3
_FLOPS_NAMES = {FLOPS_UNKNOWN: "unknown", FLOPS_RECORDED: "recorded", FLOPS_COMPUTED: "computed"}
_BYTES_NAMES = {
    BYTES_UNKNOWN: "unknown",
    BYTES_COUNTED: "counted",
    BYTES_ESTIMATED: "estimated",
    BYTES_INPUTS_ONLY: "estimated (inputs only)",
}

ELEMENT_BYTES = {
    "float": 4,
    "double": 8,
    "c10::Half": 2,
    "c10::BFloat16": 2,
    "long int": 8,
    "int": 4,
    "short int": 2,
    "signed char": 1,
    "unsigned char": 1,
    "bool": 1,
    "c10::complex<float>": 8,
    "c10::complex<double>": 16,
    "c10::complex<c10::Half>": 4,
    "c10::Float8_e4m3fn": 1,
    "c10::Float8_e5m2": 1,
    "c10::Float8_e4m3fnuz": 1,
    "c10::Float8_e5m2fnuz": 1,
    "unsigned short": 2,
    "unsigned int": 4,
    "unsigned long": 8,
}
NOT_TENSORS = {
    "",
    "Scalar",
    "ScalarList",
    "TensorList",
    "GenericList",
    "None",
    "Device",
    "Layout",
    "ScalarType",
    "MemoryFormat",
    "bool_list",
    "int_list",
}
MATMUL_OPS = {"aten::mm", "aten::matmul", "aten::bmm", "aten::addmm", "aten::linear"}
CONV_OPS = {"aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::convolution", "aten::_convolution"}
VIEW_OPS = {
    "aten::view",
    "aten::t",
    "aten::transpose",
    "aten::permute",
    "aten::expand",
    "aten::as_strided",
    "aten::flatten",
    "aten::unflatten",
    "aten::squeeze",
    "aten::unsqueeze",
    "aten::detach",
    "aten::alias",
    "aten::slice",
    "aten::select",
    "aten::narrow",
    "aten::empty",
    "aten::empty_strided",
    "aten::resolve_conj",
    "aten::resolve_neg",
    "aten::_unsafe_view",
    "aten::lift_fresh",
    "aten::split",
    "aten::chunk",
    "aten::unbind",
    "aten::expand_as",
    "aten::view_as",
    "aten::numpy_T",
}
ELEMENTWISE_OPS = {
    "aten::relu",
    "aten::relu_",
    "aten::gelu",
    "aten::silu",
    "aten::sigmoid",
    "aten::tanh",
    "aten::exp",
    "aten::log",
    "aten::neg",
    "aten::abs",
    "aten::sqrt",
    "aten::rsqrt",
    "aten::clamp",
    "aten::clamp_min",
    "aten::clamp_max",
    "aten::threshold",
    "aten::hardtanh",
    "aten::leaky_relu",
    "aten::elu",
    "aten::dropout",
    "aten::add",
    "aten::add_",
    "aten::sub",
    "aten::mul",
    "aten::mul_",
    "aten::div",
    "aten::div_",
    "aten::pow",
    "aten::where",
    "aten::maximum",
    "aten::minimum",
    "aten::softmax",
    "aten::_softmax",
    "aten::log_softmax",
    "aten::_log_softmax",
    "aten::copy_",
    "aten::clone",
    "aten::contiguous",
    "aten::to",
    "aten::_to_copy",
    "aten::layer_norm",
    "aten::native_layer_norm",
    "aten::batch_norm",
    "aten::native_batch_norm",
    "aten::masked_fill",
    "aten::fill_",
    "aten::zero_",
}
INPLACE_OPS = {"aten::copy_", "aten::fill_", "aten::zero_"}
IGNORED_ANNOTATIONS = (r"ProfilerStep#\d+",)
MAX_TRACE_BYTES = 4 << 30  # the (decompressed) trace is read up to 4 GiB, one event up to 16 MiB
MAX_DIM = 1 << 40  # a tensor dimension above this is not a shape (FLOPs and bytes then unknown)


# -- reading -------------------------------------------------------------------------------------------


def chosen_categories(events, categories, report: ImportReport) -> tuple[str, ...]:
    """The event categories kept (default: GPU kernels when the trace has any, else CPU operators);
    the others are counted as skipped in the report."""
    if categories is None:
        categories = ("kernel",) if events.category_count.get("kernel") else ("cpu_op",)
        report.notes.append(
            f"categories: {categories[0]!r} (default: 'kernel' when the trace has GPU kernels, else 'cpu_op')"
        )
    else:
        report.notes.append(f"categories: {', '.join(map(repr, categories))}")
    for cat, n in events.category_count.items():
        if cat not in categories:
            report.skipped["wrong category"] += n
            report.skipped_detail.setdefault("wrong category", Counter())[cat] += n
    return categories


def checked_options(path, *, machine, categories, group_by, nested, ignore_annotations, percent):
    """The reader's options checked (shared with the timeline mode): ``(name, source, file_path,
    categories as a tuple or None, compiled annotation patterns)``."""
    name, source, file_path = source_of(path)
    check_percent(name, percent)
    check_machine(machine)
    if group_by not in ("name", "annotation"):
        raise ValueError(f"group_by={group_by!r} must be 'name' or 'annotation'")
    if nested not in ("outer", "all"):
        raise ValueError(f"nested={nested!r} must be 'outer' or 'all'")
    if isinstance(categories, str):
        categories = (categories,)
    if categories is not None:
        categories = tuple(categories)
        if not categories:
            raise ValueError("categories must name at least one event category")
    if machine is None:
        raise error(
            name,
            "a trace holds no peaks: pass machine= (e.g. campaign_widget.Machine.measure() for "
            "a CPU trace, or a preset for a GPU)",
        )
    return name, source, file_path, categories, [re.compile(p) for p in ignore_annotations or ()]


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
):
    """Read a PyTorch profiler (Kineto) / Chrome trace (``.json`` or gzip) into a ``Workload``.

    ``machine``: the Machine the phases ran on (required: a trace holds no peaks; e.g.
    ``Machine.measure()`` for a CPU trace). ``categories``: event categories to import (default
    ``("kernel",)`` if the trace has GPU kernels, else ``("cpu_op",)``). ``group_by``: ``"name"`` or
    ``"annotation"``. ``nested``: ``"outer"`` or ``"all"`` (see the module docstring).

    Each phase's duration is the **summed** ``dur`` of its events. The workload carries
    ``workload.import_report`` (an :class:`ImportReport`): per phase, whether FLOPs were recorded,
    computed or unknown and whether bytes were counted or estimated; and the events left out, by reason.

    ``timeline=True``: a ``campaign_widget.timeline.Timeline`` (a ``Schedule``) instead, whose
    ``.workload`` is this workload and whose intervals are the kept events at their measured times
    (``campaign_widget.io.torch_timeline``; ``progress`` shows a bar for large files).

    Raises ``WorkloadFileError`` naming the file, the line and the event index of malformed or
    truncated JSON.
    """
    if timeline:
        from .torch_timeline import read_torch_timeline

        return read_torch_timeline(
            path,
            machine=machine,
            categories=categories,
            group_by=group_by,
            nested=nested,
            ignore_annotations=ignore_annotations,
            percent=percent,
            warn=warn,
            progress=progress,
        )
    name, source, file_path, categories, ignore = checked_options(
        path,
        machine=machine,
        categories=categories,
        group_by=group_by,
        nested=nested,
        ignore_annotations=ignore_annotations,
        percent=percent,
    )

    report = ImportReport(path=name, format=FORMAT, machine_source=machine.name or "given")
    events = _Events()
    metadata: dict = {}
    candidates = set(categories) if categories is not None else {"cpu_op", "kernel"}
    stream = open_binary(name, source, file_path, limit=MAX_TRACE_BYTES)
    try:
        _scan(name, stream, events, metadata, report, candidates, ignore)
    finally:
        stream.close()

    categories = chosen_categories(events, categories, report)
    if group_by == "name":
        for used in (events.annotations_used, events.annotations_ignored):
            if used:
                report.skipped["wrong category"] += sum(used.values())
                report.skipped_detail.setdefault("wrong category", Counter())["user_annotation"] += sum(used.values())
    else:
        report.skipped_detail["annotations used"] = events.annotations_used
        if events.annotations_ignored:
            report.skipped["ignored annotation"] += sum(events.annotations_ignored.values())
            report.skipped_detail["ignored annotation"] = events.annotations_ignored

    sel = events.select(categories)
    if sel.size == 0:
        found = ", ".join(f"{c} ({n})" for c, n in events.category_count.most_common(8)) or "none"
        raise error(
            name,
            f"no complete events of categories {', '.join(categories)} in this trace; complete "
            f"events found by category: {found}",
            field="categories",
        )
    workload = _phases(name, events, sel, group_by, nested, machine, report)
    for key in ("record_shapes", "with_flops"):
        if key in metadata:
            report.notes.append(f"trace metadata: {key}={metadata[key]}")
    if warn:
        report.warn_skipped(stacklevel=3)
    return workload


class _Events:
    """Compact per-event columns of the selected candidate events, plus the annotation ranges."""

    def __init__(self):
        self.thread = array("q")
        self.ts = array("d")
        self.dur = array("d")
        self.name = array("q")
        self.cat = array("q")
        self.flops = array("d")
        self.flops_src = array("b")
        self.bytes = array("d")
        self.bytes_src = array("b")
        self.names: dict[str, int] = {}
        self.cats: dict[str, int] = {}
        self.threads: dict = {}
        self.category_count: Counter = Counter()
        self.ann_thread = array("q")
        self.ann_ts = array("d")
        self.ann_end = array("d")
        self.ann_name = array("q")
        self.annotations_used: Counter = Counter()
        self.annotations_ignored: Counter = Counter()

    def intern(self, table: dict, key) -> int:
        i = table.get(key)
        if i is None:
            i = table[key] = len(table)
        return i

    def select(self, categories) -> np.ndarray:
        wanted = [self.cats[c] for c in categories if c in self.cats]
        cat = np.frombuffer(self.cat, dtype=np.int64) if len(self.cat) else np.zeros(0, np.int64)
        return np.flatnonzero(np.isin(cat, wanted))


def _scan(name, stream, events: _Events, metadata, report: ImportReport, candidates, ignore):
    skipped = report.skipped
    not_complete = Counter()
    try:
        for index, line, ev in iter_trace(stream, metadata, report.notes):
            if not isinstance(ev, dict):
                skipped["malformed"] += 1
                continue
            ph = ev.get("ph")
            if ph != "X":
                skipped["not complete"] += 1
                not_complete[str(ph)] += 1
                continue
            cat_field = ev.get("cat")
            ev_name = ev.get("name")
            dur, ts = ev.get("dur"), ev.get("ts")
            pid, tid = ev.get("pid"), ev.get("tid")
            if (
                not isinstance(cat_field, str)
                or not isinstance(ev_name, str)
                or not _number(ts)
                or not _number(dur)
                or dur < 0
                or not _ident(pid)
                or not _ident(tid)
                or not ev_name
                or len(ev_name) > 1000
                or "\x00" in ev_name
            ):
                skipped["malformed"] += 1
                _first(report, "malformed", f"event #{index} (line {line})")
                continue
            cats = cat_field.split(",") if "," in cat_field else (cat_field,)
            if any(c in ANNOTATION_CATEGORIES for c in cats):
                if dur > 0 and not any(p.fullmatch(ev_name) for p in ignore):
                    thread = events.intern(events.threads, (pid, tid))
                    events.ann_thread.append(thread)
                    events.ann_ts.append(float(ts))
                    events.ann_end.append(float(ts) + float(dur))
                    events.ann_name.append(events.intern(events.names, ev_name))
                    events.annotations_used[ev_name] += 1
                else:
                    events.annotations_ignored[ev_name] += 1
                continue
            cat = next((c for c in cats if c in candidates), None)
            if cat is None:
                skipped["wrong category"] += 1
                report.skipped_detail.setdefault("wrong category", Counter())[cats[0]] += 1
                continue
            if dur == 0:
                skipped["zero duration"] += 1
                continue
            args = ev.get("args")
            if args is not None and not isinstance(args, dict):
                skipped["malformed"] += 1
                _first(report, "malformed", f"event #{index} (line {line}): args is not an object")
                continue
            flops, flops_src, nbytes, bytes_src = _volumes(ev_name, args or {})
            events.category_count[cat] += 1
            events.thread.append(events.intern(events.threads, (pid, tid)))
            events.ts.append(float(ts))
            events.dur.append(float(dur))
            events.name.append(events.intern(events.names, ev_name))
            events.cat.append(events.intern(events.cats, cat))
            events.flops.append(flops)
            events.flops_src.append(flops_src)
            events.bytes.append(nbytes)
            events.bytes_src.append(bytes_src)
    except TraceSyntaxError as e:
        where = f"event #{e.event}: " if e.event is not None else ""
        raise error(name, where + str(e), line=e.line) from None
    except UnicodeDecodeError as e:
        raise error(name, f"not UTF-8 text: {e.reason}") from None
    except (OSError, EOFError) as e:  # a damaged gzip stream
        raise error(name, f"cannot read the file: {e}") from None
    if not_complete:
        report.skipped_detail["not complete"] = not_complete


def _first(report, reason, where):
    report.skipped_detail.setdefault(reason + " (first)", where)


def _number(x) -> bool:
    """A finite JSON number (an integer too large for a float is not one)."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _ident(x) -> bool:
    """A pid or tid: a number, a string or absent (a list or an object is malformed)."""
    return x is None or (isinstance(x, str) and len(x) <= 1000) or (_number(x))


# -- FLOPs and bytes of one event -------------------------------------------------------------------------


def _volumes(name: str, args: dict) -> tuple[float, int, float, int]:
    flops, flops_src = 0.0, FLOPS_UNKNOWN
    for key in ("flops", "kernel_flop"):
        value = args.get(key)
        if _number(value) and value >= 0:
            flops, flops_src = float(value), FLOPS_RECORDED
            break
    read, write = args.get("dram__bytes_read.sum"), args.get("dram__bytes_write.sum")
    if _number(read) and _number(write):
        nbytes, bytes_src = float(read) + float(write), BYTES_COUNTED
    else:
        nbytes, bytes_src = 0.0, BYTES_UNKNOWN
    if flops_src == FLOPS_UNKNOWN or bytes_src == BYTES_UNKNOWN:
        shapes = _shapes(args)
        if shapes is not None:
            try:
                return _computed(name, shapes, flops, flops_src, nbytes, bytes_src)
            except OverflowError:  # shapes whose products exceed a float: not a real tensor
                pass
    return flops, flops_src, nbytes, bytes_src


def _computed(name, shapes, flops, flops_src, nbytes, bytes_src):
    """The volumes not recorded, computed from the event's shapes where possible."""
    dims, types, concrete = shapes
    if flops_src == FLOPS_UNKNOWN:
        computed = compute_flops(name, dims, concrete)
        if computed is not None:
            flops, flops_src = computed, FLOPS_COMPUTED
    if bytes_src == BYTES_UNKNOWN:
        estimate = estimate_bytes(name, dims, types, concrete)
        if estimate is not None:
            nbytes, bytes_src = estimate
    return flops, flops_src, nbytes, bytes_src


def _shapes(args):
    dims = args.get("Input Dims")
    if not isinstance(dims, list):
        return None
    types = args.get("Input type")
    if not isinstance(types, list) or len(types) != len(dims):
        types = [None] * len(dims)
    concrete = args.get("Concrete Inputs")
    if not isinstance(concrete, list) or len(concrete) != len(dims):
        concrete = None
    clean = []
    for d in dims:
        if (
            isinstance(d, list)
            and len(d) <= 16
            and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MAX_DIM for x in d)
        ):
            clean.append(d)
        else:
            clean.append(None)  # a TensorList or something else: not a plain tensor shape
    return clean, types, concrete


def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


def _matmul_shapes(name, dims):
    """(flops, output shape) of a matrix product, or None."""
    tensors = [d for d in dims]
    if name == "aten::mm" and len(tensors) >= 2 and _is(tensors[0], 2) and _is(tensors[1], 2):
        (m, k), (k2, n) = tensors[0], tensors[1]
        return (2 * m * k * n, [m, n]) if k == k2 else None
    if name == "aten::addmm" and len(tensors) >= 3 and _is(tensors[1], 2) and _is(tensors[2], 2):
        (m, k), (k2, n) = tensors[1], tensors[2]
        return (2 * m * k * n, [m, n]) if k == k2 else None
    if name == "aten::bmm" and len(tensors) >= 2 and _is(tensors[0], 3) and _is(tensors[1], 3):
        (b, m, k), (b2, k2, n) = tensors[0], tensors[1]
        return (2 * b * m * k * n, [b, m, n]) if k == k2 and b == b2 else None
    if name == "aten::linear" and len(tensors) >= 2 and tensors[0] and _is(tensors[1], 2):
        x, (n, k) = tensors[0], tensors[1]
        if x[-1] != k:
            return None
        return 2 * _prod(x[:-1]) * k * n, list(x[:-1]) + [n]
    if name == "aten::matmul" and len(tensors) >= 2 and tensors[0] and tensors[1]:
        a, b = list(tensors[0]), list(tensors[1])
        squeeze_a, squeeze_b = len(a) == 1, len(b) == 1
        if squeeze_a:
            a = [1] + a
        if squeeze_b:
            b = b + [1]
        m, k = a[-2], a[-1]
        k2, n = b[-2], b[-1]
        if k != k2:
            return None
        batch = _broadcast(a[:-2], b[:-2])
        if batch is None:
            return None
        out = batch + ([] if squeeze_a else [m]) + ([] if squeeze_b else [n])
        return 2 * _prod(batch) * m * k * n, out
    return None


def _is(d, rank) -> bool:
    return d is not None and len(d) == rank


def _broadcast(a, b):
    out = []
    for x, y in zip(reversed([1] * (len(b) - len(a)) + list(a)), reversed([1] * (len(a) - len(b)) + list(b))):
        if x != y and 1 not in (x, y):
            return None
        out.append(max(x, y))
    return list(reversed(out))


def _ints(text, count):
    """``"[1, 1]"`` or ``"2"`` from Concrete Inputs as ``count`` ints, or None."""
    if not isinstance(text, str) or text == "" or len(text) > 1000:
        return None
    try:
        value = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return [value] * count if abs(value) <= MAX_DIM else None
    if isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) and abs(v) <= MAX_DIM for v in value
    ):
        if len(value) == 1:
            return value * count
        return value if len(value) == count else None
    return None


def _conv_shapes(name, dims, concrete):
    """(flops, output shape) of a convolution, or None when shapes or parameters are missing."""
    if len(dims) < 2 or dims[0] is None or dims[1] is None or concrete is None:
        return None
    x, w = dims[0], dims[1]
    spatial = len(x) - 2
    if spatial < 1 or len(w) != len(x):
        return None
    if name in ("aten::conv1d", "aten::conv2d", "aten::conv3d"):
        positions = {"stride": 3, "padding": 4, "dilation": 5, "groups": 6}
        transposed, output_padding = False, [0] * spatial
    else:  # aten::convolution / aten::_convolution
        positions = {"stride": 3, "padding": 4, "dilation": 5, "groups": 8}
        transposed = concrete[6] == "True" if len(concrete) > 6 else False
        output_padding = _ints(concrete[7], spatial) if len(concrete) > 7 else [0] * spatial
    if len(concrete) <= positions["groups"]:
        return None
    stride = _ints(concrete[positions["stride"]], spatial)
    dilation = _ints(concrete[positions["dilation"]], spatial)
    groups = _ints(concrete[positions["groups"]], 1)
    pad_text = concrete[positions["padding"]]
    if pad_text in ("same", "valid"):
        padding = None if pad_text == "same" else [0] * spatial
    else:
        padding = _ints(pad_text, spatial)
        if padding is None:
            return None
    if stride is None or dilation is None or groups is None or output_padding is None or groups[0] <= 0:
        return None
    if min(stride) < 1 or min(dilation) < 1 or min(output_padding) < 0 or (padding and min(padding) < 0):
        return None  # stride 0 or negative padding: not a convolution PyTorch would run
    g = groups[0]
    n, c_in = x[0], x[1]
    kernel = w[2:]
    if not transposed:
        c_out = w[0]
        if padding is None:  # "same"
            out = list(x[2:])
        else:
            out = [
                (x[2 + i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(spatial)
            ]
        if any(o <= 0 for o in out):
            return None
        return 2 * n * c_out * (c_in // g) * _prod(kernel) * _prod(out), [n, c_out] + out
    c_out = w[1] * g
    if padding is None:
        return None
    out = [
        (x[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1) + output_padding[i] + 1
        for i in range(spatial)
    ]
    return 2 * n * c_in * (c_out // g) * _prod(kernel) * _prod(x[2:]), [n, c_out] + out


def compute_flops(name: str, dims, concrete=None) -> float | None:
    """FLOPs of a matrix product or convolution from its input shapes (None when not computable)."""
    if name in MATMUL_OPS:
        shapes = _matmul_shapes(name, dims)
    elif name in CONV_OPS:
        shapes = _conv_shapes(name, dims, concrete)
    elif name in VIEW_OPS:
        return 0.0
    else:
        return None
    return None if shapes is None else float(shapes[0])


def estimate_bytes(name: str, dims, types, concrete=None):
    """``(bytes, BYTES_ESTIMATED | BYTES_INPUTS_ONLY)`` from tensor shapes, or None."""
    if name in VIEW_OPS:
        return 0.0, BYTES_ESTIMATED
    total = 0
    sizes = []
    first_type = None
    for d, t in zip(dims, types):
        if not isinstance(t, (str, type(None))):
            return None
        if d is None or t in NOT_TENSORS:
            continue
        if t is None or t not in ELEMENT_BYTES:
            return None  # a tensor of unknown element size: no estimate rather than a wrong one
        first_type = first_type or t
        total += _prod(d) * ELEMENT_BYTES[t]
        sizes.append(d)
    if first_type is None:
        return None
    out = None
    if name in MATMUL_OPS:
        shapes = _matmul_shapes(name, dims)
        out = None if shapes is None else shapes[1]
    elif name in CONV_OPS:
        shapes = _conv_shapes(name, dims, concrete)
        out = None if shapes is None else shapes[1]
    elif name in ELEMENTWISE_OPS and sizes:
        out = sizes[0]
        for s in sizes[1:]:
            out = _broadcast(out, s) or out
        if name in INPLACE_OPS:
            out = sizes[0]
    if out is None:
        return float(total), BYTES_INPUTS_ONLY
    return float(total + _prod(out) * ELEMENT_BYTES[first_type]), BYTES_ESTIMATED


# -- phases ------------------------------------------------------------------------------------------------


def _nesting(thread: np.ndarray, ts: np.ndarray, dur: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per event, the innermost other event on its thread that encloses it (-1: none), and the order
    (per thread, by start, longer first) in which every parent comes before its children."""
    n = ts.size
    order = np.lexsort((-dur, ts, thread))
    parent = np.full(n, -1, dtype=np.int64)
    eps = 1e-3  # µs: Kineto rounds to the nanosecond
    end_of = (ts + dur).tolist()
    thread_of = thread.tolist()
    stack: list[int] = []
    last_thread = None
    for i in order.tolist():
        if thread_of[i] != last_thread:
            stack.clear()
            last_thread = thread_of[i]
        end = end_of[i]
        while stack and end_of[stack[-1]] < end - eps:
            stack.pop()
        if stack:
            parent[i] = stack[-1]
        stack.append(i)
    return parent, order


def _roll_up_nested(
    parent: np.ndarray,
    order: np.ndarray,
    flops: np.ndarray,
    flops_src: np.ndarray,
    nbytes: np.ndarray,
    bytes_src: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """``nested="outer"``: an event's volumes are its own, else the sums of the events nested in it
    (recorded FLOPs before computed ones; the bytes' source the strongest of theirs). Returns
    flops, flops_src, nbytes, bytes_src."""
    n = parent.size
    has_rec = (flops_src == FLOPS_RECORDED).tolist()
    has_comp = (flops_src == FLOPS_COMPUTED).tolist()
    rec = np.where(flops_src == FLOPS_RECORDED, flops, 0.0).tolist()
    comp = np.where(flops_src == FLOPS_COMPUTED, flops, 0.0).tolist()
    vol, vol_src = nbytes.tolist(), bytes_src.tolist()
    child_rec, child_comp, child_bytes = [0.0] * n, [0.0] * n, [0.0] * n
    child_has_rec, child_has_comp, child_bytes_src = [False] * n, [False] * n, [BYTES_UNKNOWN] * n
    up = parent.tolist()
    for i in order[::-1].tolist():  # children before their parents
        if not has_rec[i] and child_has_rec[i]:
            rec[i], has_rec[i] = child_rec[i], True
        if not has_comp[i] and child_has_comp[i]:
            comp[i], has_comp[i] = child_comp[i], True
        if vol_src[i] == BYTES_UNKNOWN and child_bytes_src[i] != BYTES_UNKNOWN:
            vol[i], vol_src[i] = child_bytes[i], child_bytes_src[i]
        p = up[i]
        if p >= 0:
            if has_rec[i]:
                child_rec[p] += rec[i]
                child_has_rec[p] = True
            if has_comp[i]:
                child_comp[p] += comp[i]
                child_has_comp[p] = True
            if vol_src[i] != BYTES_UNKNOWN:
                child_bytes[p] += vol[i]
                child_bytes_src[p] = max(child_bytes_src[p], vol_src[i])
    rec_a, comp_a, has_rec_a, has_comp_a = np.asarray(rec), np.asarray(comp), np.asarray(has_rec), np.asarray(has_comp)
    flops_out = np.where(has_rec_a, rec_a, np.where(has_comp_a, comp_a, 0.0))
    src_out = np.where(has_rec_a, FLOPS_RECORDED, np.where(has_comp_a, FLOPS_COMPUTED, FLOPS_UNKNOWN)).astype(np.int8)
    return flops_out, src_out, np.asarray(vol, dtype=np.float64), np.asarray(vol_src, dtype=np.int8)


def _phases(name, ev: _Events, sel, group_by, nested, machine, report: ImportReport):
    thread = np.frombuffer(ev.thread, dtype=np.int64)[sel]
    ts = np.frombuffer(ev.ts, dtype=np.float64)[sel]
    dur = np.frombuffer(ev.dur, dtype=np.float64)[sel]
    names = np.frombuffer(ev.name, dtype=np.int64)[sel]
    flops = np.frombuffer(ev.flops, dtype=np.float64)[sel]
    flops_src = np.frombuffer(ev.flops_src, dtype=np.int8)[sel]
    nbytes = np.frombuffer(ev.bytes, dtype=np.float64)[sel]
    bytes_src = np.frombuffer(ev.bytes_src, dtype=np.int8)[sel]
    n = sel.size
    parent, order = _nesting(thread, ts, dur)

    if nested == "outer":
        flops, flops_src, nbytes, bytes_src = _roll_up_nested(parent, order, flops, flops_src, nbytes, bytes_src)
        keep = parent < 0
        inner = int(n - keep.sum())
        if inner:
            report.notes.append(
                f"{inner} events nested inside other selected events were counted within their "
                "outermost event (nested='outer'), not as phases of their own"
            )
    else:
        keep = np.ones(n, bool)
        inner = int((parent >= 0).sum())
        if inner:
            report.notes.append(
                f"nested='all': {inner} events run inside other selected events, so their time is counted twice"
            )

    idx = np.flatnonzero(keep)
    id_to_name = {i: s for s, i in ev.names.items()}
    if group_by == "name":
        keys = [id_to_name[int(names[i])] for i in idx]
    else:
        keys = _annotation_keys(ev, thread, ts, dur, idx, id_to_name)
        if OUTSIDE in keys:
            report.notes.append(f"{keys.count(OUTSIDE)} events outside every annotation form the phase {OUTSIDE!r}")
    groups: dict[str, list[int]] = defaultdict(list)
    for key, i in zip(keys, idx.tolist()):
        groups[key].append(i)
    ordered = sorted(groups, key=lambda k: ts[groups[k]].min())
    durations, ops, volumes = [], [], []
    for key in ordered:
        members = np.asarray(groups[key])
        d = float(dur[members].sum()) * US
        fs = flops_src[members]
        bs = bytes_src[members]
        f = float(flops[members][fs != FLOPS_UNKNOWN].sum())
        b = float(nbytes[members][bs != BYTES_UNKNOWN].sum())
        durations.append(d)
        ops.append(f)
        volumes.append(b)
        report.phases.append(
            PhaseReport(
                name=key,
                duration=d,
                ops=f,
                bytes=b,
                flops=_mix(fs, _FLOPS_NAMES, FLOPS_UNKNOWN, "+"),
                bytes_source=_mix(bs, _BYTES_NAMES, BYTES_UNKNOWN, " + "),
                events=int(members.size),
                partial_flops=bool((fs == FLOPS_UNKNOWN).any() and (fs != FLOPS_UNKNOWN).any()),
                partial_bytes=bool((bs == BYTES_UNKNOWN).any() and (bs != BYTES_UNKNOWN).any()),
                details={
                    "flops_events": {_FLOPS_NAMES[k]: int((fs == k).sum()) for k in _FLOPS_NAMES},
                    "bytes_events": {_BYTES_NAMES[k]: int((bs == k).sum()) for k in _BYTES_NAMES},
                },
            )
        )
    return build_workload(name, ordered, duration=durations, ops=ops, bytes_=volumes, machine=machine, report=report)


def _mix(codes, names, unknown, sep) -> str:
    present = sorted({int(c) for c in codes} - {unknown})
    if not present:
        return names[unknown]
    return sep.join(names[c] for c in present)


def _annotation_keys(ev: _Events, thread, ts, dur, idx, id_to_name) -> list[str]:
    """Per kept event: the innermost annotation that encloses it on the same thread/stream.

    Innermost = the latest-starting annotation (ties: the shortest) with start <= the event's start
    and end >= the event's end (1 ns tolerance). O((events + annotations) log annotations): events
    and annotations are swept by decreasing end, a Fenwick tree over annotations in start order
    answering "the last one started by then among those not yet ended".
    """
    if not len(ev.ann_ts):
        return [OUTSIDE] * idx.size
    a_thread = np.frombuffer(ev.ann_thread, dtype=np.int64)
    a_ts = np.frombuffer(ev.ann_ts, dtype=np.float64)
    a_end = np.frombuffer(ev.ann_end, dtype=np.float64)
    a_name = np.frombuffer(ev.ann_name, dtype=np.int64)
    eps = 1e-3
    keys = [OUTSIDE] * idx.size
    e_thread = thread[idx]
    e_start = ts[idx]
    e_end = ts[idx] + dur[idx]
    for t in np.unique(a_thread):
        members = np.flatnonzero(a_thread == t)
        members = members[np.lexsort((-(a_end[members] - a_ts[members]), a_ts[members]))]  # by start, longer first
        starts, ends = a_ts[members], a_end[members]
        events = np.flatnonzero(e_thread == t)
        if events.size == 0:
            continue
        m = members.size
        tree = [-1] * (m + 1)  # Fenwick tree of prefix maxima of inserted positions (1-based)
        by_end = np.argsort(-ends, kind="stable").tolist()
        ends_sorted = ends[by_end]
        ev_order = events[np.argsort(-e_end[events], kind="stable")]
        limit = np.searchsorted(starts, e_start[ev_order] + eps, side="right").tolist()
        need = (e_end[ev_order] - eps).tolist()
        k = 0
        for j, e in enumerate(ev_order.tolist()):
            while k < m and ends_sorted[k] >= need[j]:  # insert every annotation ending at or after this event
                p = by_end[k] + 1
                while p <= m:
                    if tree[p] < by_end[k]:
                        tree[p] = by_end[k]
                    p += p & -p
                k += 1
            best, p = -1, limit[j]
            while p > 0:
                if tree[p] > best:
                    best = tree[p]
                p -= p & -p
            if best >= 0:
                keys[e] = id_to_name[int(a_name[members[best]])]
    return keys


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


def sniff(source: Source) -> bool:
    head = head_text(source, 65536).lstrip()
    if head.startswith("{"):
        return '"traceEvents"' in head
    if head.startswith("["):
        return '"ph"' in head and ('"ts"' in head or '"name"' in head)
    return False


def read(source: Source, *, machine=None, percent=False, **options):
    return read_torch_trace(source, machine=machine, percent=percent, **options)
