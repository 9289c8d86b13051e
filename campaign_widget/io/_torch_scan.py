"""A PyTorch trace read into compact columns: the reader's options, the categories in every spelling Kineto
has written, the scan of the events batch by batch."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

import msgspec
import numpy as np

from ..errors import ArgumentError, TraceSyntaxError
from ..model.import_report import ImportReport
from . import op_models
from ._common import check_percent, error, preset_or_machine, source_of
from ._jsonstream import PHASE_OF, Event, iter_batches

FORMAT = "pytorch-trace"
ANNOTATION_CATEGORIES = ("user_annotation", "gpu_user_annotation")
GPU_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")
OUTSIDE = "(outside annotations)"
US = 1e-6
IGNORED_ANNOTATIONS = (r"ProfilerStep#\d+",)
MAX_TRACE_BYTES = 4 << 30  # the (decompressed) trace is read up to 4 GiB, one event up to 16 MiB
MAX_IDENT = 1000  # a pid or tid string longer than this is not a thread's name

FLOPS_UNKNOWN, FLOPS_RECORDED, FLOPS_COMPUTED, FLOPS_INHERITED, FLOPS_COUNTERS = 0, 1, 2, 3, 4
BYTES_UNKNOWN, BYTES_COUNTED, BYTES_ESTIMATED, BYTES_INPUTS_ONLY, BYTES_INHERITED = 0, 1, 2, 3, 4
FLOPS_NAMES = {
    FLOPS_UNKNOWN: "unknown",
    FLOPS_RECORDED: "recorded",
    FLOPS_COMPUTED: "computed",
    FLOPS_INHERITED: "inherited",
    FLOPS_COUNTERS: "counters",
}
BYTES_NAMES = {
    BYTES_UNKNOWN: "unknown",
    BYTES_COUNTED: "counted",
    BYTES_ESTIMATED: "estimated",
    BYTES_INPUTS_ONLY: "estimated (inputs only)",
    BYTES_INHERITED: "inherited",
}
READ, ANNOTATION, OTHER, BAD = 0, 1, 2, 3  # what a category is to the scan
WORK_UNKNOWN = "work unknown"  # the import report's key for the GPU events whose work nothing gives

# Every spelling of a category that Kineto has written, to the current one: PyTorch 1.8-1.9 wrote
# "Operator", "Kernel", "Runtime", "Memcpy", "Memset", "Python" (and "cpu_op"-style names since 1.10).
CATEGORY_SPELLINGS = {
    "operator": "cpu_op",
    "cpu_op": "cpu_op",
    "kernel": "kernel",
    "runtime": "cuda_runtime",
    "cuda_runtime": "cuda_runtime",
    "driver": "cuda_driver",
    "cuda_driver": "cuda_driver",
    "memcpy": "gpu_memcpy",
    "gpu_memcpy": "gpu_memcpy",
    "memset": "gpu_memset",
    "gpu_memset": "gpu_memset",
    "python": "python_function",
    "python_function": "python_function",
    "user_annotation": "user_annotation",
    "user annotation": "user_annotation",
    "gpu_user_annotation": "gpu_user_annotation",
    "gpu user annotation": "gpu_user_annotation",
}
LAUNCH_CATEGORIES = ("cuda_runtime", "cuda_driver")
# read whatever the chosen categories are: kernels take their work from operators and launches
ALWAYS_READ = ("cpu_op", "kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver")


def canonical_category(cat: str) -> str:
    """The current spelling of an event category (``"Kernel"`` → ``"kernel"``); unknown ones as written."""
    return CATEGORY_SPELLINGS.get(cat.strip().lower(), cat)


# -- options -------------------------------------------------------------------------------------------------


@dataclass
class Options:
    name: str
    source: object
    file_path: object
    categories: tuple[str, ...] | None
    ignore: list
    group_by: str
    nested: str
    machine: object


def checked_options(path, machine, categories, group_by, nested, ignore_annotations, percent) -> Options:
    """The reader's options checked, categories in their current spelling (the arguments in the readers'
    order and names, so that a reader passes its own: ``checked_options(path, machine, categories, ...)``)."""
    name, source, file_path = source_of(path)
    check_percent(name, percent)
    machine = preset_or_machine(name, machine)
    if group_by not in ("name", "annotation"):
        raise ArgumentError(f"group_by={group_by!r} must be 'name' or 'annotation'")
    if nested not in ("outer", "all"):
        raise ArgumentError(f"nested={nested!r} must be 'outer' or 'all'")
    if isinstance(categories, str):
        categories = tuple(c for c in categories.split(",") if c.strip()) if "," in categories else (categories,)
    if categories is not None:
        categories = tuple(canonical_category(str(c)) for c in categories)
        if not categories:
            raise ArgumentError("categories must name at least one event category")
    if machine is None:
        raise error(
            name,
            "a trace holds no peaks: pass machine= (e.g. campaign_widget.Machine.measure() for "
            "a CPU trace, or a preset for a GPU)",
        )
    ignore = [re.compile(p) for p in ignore_annotations or ()]
    return Options(name, source, file_path, categories, ignore, group_by, nested, machine)


# -- the scan --------------------------------------------------------------------------------------------------


class Events:
    """Compact per-event columns of the complete events of the categories read, plus the annotations.

    Filled batch by batch (Python lists of numbers), then :meth:`finish` makes them numpy arrays:
    ``thread, ts, dur`` (µs), ``name, cat`` (ids into ``names``, ``cats``), ``flops, flops_src, bytes,
    bytes_src`` and ``ext, corr`` (the External id and correlation id, -1 when absent).
    """

    COLUMNS = ("thread", "ts", "dur", "name", "cat", "flops", "flops_src", "bytes", "bytes_src", "ext", "corr")
    DTYPES = ("i8", "f8", "f8", "i8", "i8", "f8", "i1", "f8", "i1", "i8", "i8")
    PIECES = ("ts", "dur", "cat")  # filled with numpy arrays per batch, the others with Python numbers

    def __init__(self, read_categories, ignore, keep_ignored: bool):
        self.cols = {c: [] for c in self.COLUMNS}
        self.names: dict[str, int] = {}
        self.cats: dict[str, int] = {}
        self.threads: dict = {}
        self.category_count: Counter = Counter()
        self.present: Counter = Counter()  # complete events by category as written, for error messages
        self.ann = {"thread": [], "ts": [], "end": [], "name": []}
        self.annotations_used: Counter = Counter()
        self.annotations_ignored: Counter = Counter()
        self.read_categories = set(read_categories)
        self.ignore = ignore
        self.keep_ignored = keep_ignored
        self.codes: dict = {None: 0}  # category as written → its code
        self.code_kind = np.array([BAD], dtype=np.int8)  # per code: READ, ANNOTATION, OTHER or BAD
        self.code_category = [None]  # per code: the current spelling
        self.code_cat_id = np.array([-1], dtype=np.int64)  # per code: the id in cats (READ codes)
        self.cat_names: list[str] = []
        self._ignored_name: dict[str, bool] = {}
        self._volumes: dict = {}

    def intern(self, table: dict, key) -> int:
        i = table.get(key)
        if i is None:
            i = table[key] = len(table)
        return i

    def add_code(self, cat) -> None:
        """A code for a category as written (``"Kernel"``, ``"kernel,cuda"``), with what it is."""
        if not isinstance(cat, str):
            return
        parts = [canonical_category(c) for c in cat.split(",")] if "," in cat else [canonical_category(cat)]
        cat_id = -1
        if any(p in ANNOTATION_CATEGORIES for p in parts):
            kind, canonical = ANNOTATION, next(p for p in parts if p in ANNOTATION_CATEGORIES)
        else:
            canonical = next((p for p in parts if p in self.read_categories), None)
            kind = READ if canonical is not None else OTHER
            canonical = canonical or parts[0]
            if kind == READ:
                cat_id = self.cats.get(canonical)
                if cat_id is None:
                    cat_id = self.intern(self.cats, canonical)
                    self.cat_names.append(canonical)
        self.codes[cat] = len(self.code_category)
        self.code_category.append(canonical)
        self.code_kind = np.append(self.code_kind, np.int8(kind))
        self.code_cat_id = np.append(self.code_cat_id, cat_id)

    def finish(self) -> None:
        for c, dtype in zip(self.COLUMNS, self.DTYPES):
            if c in self.PIECES:
                column = np.concatenate(self.cols[c]).astype(dtype) if self.cols[c] else np.zeros(0, dtype)
            else:
                column = np.asarray(self.cols[c], dtype=dtype)
            setattr(self, c, column)
        self.cols = None
        for c, dtype in zip(("thread", "ts", "end", "name"), ("i8", "f8", "f8", "i8")):
            setattr(self, "ann_" + c, np.asarray(self.ann[c], dtype=dtype))
        self.id_to_name = {i: s for s, i in self.names.items()}

    def select(self, categories) -> np.ndarray:
        wanted = [self.cats[c] for c in categories if c in self.cats]
        return np.flatnonzero(np.isin(self.cat, wanted))

    def ignored_name(self, name: str) -> bool:
        hit = self._ignored_name.get(name)
        if hit is None:
            hit = self._ignored_name[name] = any(p.fullmatch(name) for p in self.ignore)
        return hit


def scan(name, stream, events: Events, metadata, report: ImportReport) -> None:
    """Read every event of the trace into ``events``; count what is left out in ``report``."""
    not_complete: Counter = Counter()
    try:
        for index, line, batch, all_typed in iter_batches(stream, metadata, report.notes):
            typed = batch if all_typed else [e for e in batch if isinstance(e, msgspec.Struct)]
            if len(typed) < len(batch):
                for offset, e in enumerate(batch):
                    if not isinstance(e, msgspec.Struct):
                        _loose(e, index + offset, line, report, not_complete)
            if typed:
                _batch(typed, index, line, events, report, not_complete)
    except TraceSyntaxError as e:
        where = f"event #{e.event}: " if e.event is not None else ""
        raise error(name, where + str(e), line=e.line) from None
    except UnicodeDecodeError as e:
        raise error(name, f"not UTF-8 text: {e.reason}") from None
    except (OSError, EOFError) as e:  # a damaged gzip stream
        raise error(name, f"cannot read the file: {e}") from None
    if not_complete:
        report.skipped_detail["not complete"] = not_complete


def _loose(value, index, line, report, not_complete) -> None:
    """An event whose fields have unexpected types: not complete if its ``ph`` says so, else malformed."""
    if isinstance(value, dict) and value.get("ph") != "X":
        report.skipped["not complete"] += 1
        not_complete[str(value.get("ph"))] += 1
        return
    report.skipped["malformed"] += 1
    report.skipped_detail.setdefault("malformed (first)", f"event #{index} (near line {line})")


def _bad_ident(x) -> bool:
    if isinstance(x, str):
        return len(x) > MAX_IDENT
    return isinstance(x, float) and not math.isfinite(x)


def _batch(batch, index, line, ev: Events, report: ImportReport, not_complete: Counter) -> None:
    """One batch of typed events into the columns, column by column (a Python loop per event would cost
    more than parsing them)."""
    skipped = report.skipped
    complete = [e for e in batch if type(e) is Event]
    if len(complete) < len(batch):
        skipped["not complete"] += len(batch) - len(complete)
        phases = Counter([type(e) for e in batch])
        del phases[Event]
        for cls, n in phases.items():
            not_complete[PHASE_OF[cls]] += n
    if not complete:
        return
    try:
        ts = np.array([e.ts for e in complete], dtype=np.float64)
        dur = np.array([e.dur for e in complete], dtype=np.float64)
    except OverflowError:  # an integer beyond a float: those events are malformed
        ts = np.array([float(e.ts) if abs(e.ts) < 1e300 else math.nan for e in complete])
        dur = np.array([float(e.dur) if abs(e.dur) < 1e300 else math.nan for e in complete])
    bad = ~(np.isfinite(ts) & np.isfinite(dur) & (dur >= 0))
    names = [e.name for e in complete]
    odd = {n for n in set(names) if not n or "\x00" in n}
    if odd:
        bad |= np.array([n in odd for n in names], dtype=bool)
    codes = ev.codes
    try:
        code = np.array([codes[e.cat] for e in complete], dtype=np.int64)
    except KeyError:
        for c in {e.cat for e in complete} - codes.keys():
            ev.add_code(c)
        code = np.array([codes[e.cat] for e in complete], dtype=np.int64)
    keys = [(e.pid, e.tid) for e in complete]
    distinct = set(keys)
    odd = {k for k in distinct if _bad_ident(k[0]) or _bad_ident(k[1])}
    if odd:
        bad |= np.array([k in odd for k in keys], dtype=bool)
    kind = _step_markers_as_annotations(ev, names, code, ev.code_kind[code])
    bad |= kind == BAD
    if bad.any():
        skipped["malformed"] += int(bad.sum())
        first = int(np.flatnonzero(bad)[0])
        report.skipped_detail.setdefault("malformed (first)", f"event #{index + batch.index(complete[first])}")
    good = ~bad
    other = good & (kind == OTHER)
    if other.any():
        wrong = report.skipped_detail.setdefault("wrong category", Counter())
        for c, n in zip(*np.unique(code[other], return_counts=True)):
            wrong[ev.code_category[int(c)]] += int(n)
        skipped["wrong category"] += int(other.sum())
    for i in np.flatnonzero(good & (kind == ANNOTATION)).tolist():
        nm = names[i]
        if dur[i] > 0 and (ev.keep_ignored or not ev.ignored_name(nm)):
            ann = ev.ann
            ann["thread"].append(ev.intern(ev.threads, keys[i]))
            ann["ts"].append(float(ts[i]))
            ann["end"].append(float(ts[i]) + float(dur[i]))
            ann["name"].append(ev.intern(ev.names, nm))
            ev.annotations_used[nm] += 1
        else:
            ev.annotations_ignored[nm] += 1
    read = good & (kind == READ)
    zero = read & (dur == 0)
    if zero.any():
        skipped["zero duration"] += int(zero.sum())
    take = np.flatnonzero(read & (dur > 0))
    if take.size == 0:
        return
    cols = ev.cols
    cols["ts"].append(ts[take])  # numpy pieces, joined by finish()
    cols["dur"].append(dur[take])
    cat_ids = ev.code_cat_id[code[take]]
    cols["cat"].append(cat_ids)
    for c, n in zip(*np.unique(cat_ids, return_counts=True)):
        ev.category_count[ev.cat_names[int(c)]] += int(n)
    rows = take.tolist()
    threads = ev.threads
    for k in distinct - threads.keys():
        ev.intern(threads, k)
    cols["thread"].extend([threads[keys[i]] for i in rows])
    table = ev.names
    chosen_names = [names[i] for i in rows]
    try:
        cols["name"].extend([table[n] for n in chosen_names])
    except KeyError:
        for n in set(chosen_names) - table.keys():
            ev.intern(table, n)
        cols["name"].extend([table[n] for n in chosen_names])
    args = [complete[i].args for i in rows]
    ext = [(a.external_id if a.external_id is not None else a.external_id_lower) if a else None for a in args]
    cols["ext"].extend([x if type(x) is int and 0 <= x < _ID_LIMIT else -1 for x in ext])
    corr = [a.correlation if a else None for a in args]
    cols["corr"].extend([x if type(x) is int and 0 <= x < _ID_LIMIT else -1 for x in corr])
    n = len(rows)
    flops, fsrc, nbytes, bsrc = [0.0] * n, [FLOPS_UNKNOWN] * n, [0.0] * n, [BYTES_UNKNOWN] * n
    categories = ev.cat_names
    volume_cats = [i for i, c in enumerate(categories) if c not in LAUNCH_CATEGORIES]  # launches carry none
    some = np.flatnonzero(np.isin(cat_ids, volume_cats)).tolist() if len(volume_cats) < len(categories) else range(n)
    has = [
        k
        for k in some
        if (a := args[k]) and (a.input_dims or a.flops is not None or a.kernel_flop is not None
                               or a.dram_read is not None or a.bytes is not None)
    ]  # fmt: skip
    for k in has:
        flops[k], fsrc[k], nbytes[k], bsrc[k] = _volumes(ev, chosen_names[k], categories[cat_ids[k]], args[k])
    cols["flops"].extend(flops)
    cols["flops_src"].extend(fsrc)
    cols["bytes"].extend(nbytes)
    cols["bytes_src"].extend(bsrc)


_ID_LIMIT = 1 << 62
STEP_MARKER = re.compile(IGNORED_ANNOTATIONS[0])


def _step_markers_as_annotations(ev: Events, names: list, code: np.ndarray, kind: np.ndarray) -> np.ndarray:
    """``kind`` per event, with the profiler's step markers (``ProfilerStep#N``) recorded as operators
    (PyTorch 1.8 wrote them as ``Operator`` events) taken as the annotations they are: a step is a range
    of the timeline, never a phase."""
    operator = [i for i, c in enumerate(ev.code_category) if c == "cpu_op"]
    if not operator:
        return kind
    steps = {n for n in set(names) if STEP_MARKER.fullmatch(n)}
    if not steps:
        return kind
    marker = np.isin(code, operator) & np.array([n in steps for n in names], dtype=bool) & (kind != BAD)
    return np.where(marker, np.int8(ANNOTATION), kind)


def _number(x) -> bool:
    """A finite JSON number (an integer too large for a float is not one)."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:
        return False


def _volumes(ev: Events, name: str, category: str, a) -> tuple[float, int, float, int]:
    """The FLOPs and bytes of one event: recorded by the profiler, else computed from its shapes."""
    flops, flops_src = 0.0, FLOPS_UNKNOWN
    for value in (a.flops, a.kernel_flop):
        if value is not None and _number(value) and value >= 0:
            flops, flops_src = float(value), FLOPS_RECORDED
            break
    nbytes, bytes_src = 0.0, BYTES_UNKNOWN
    if a.dram_read is not None and _number(a.dram_read) and _number(a.dram_write):
        nbytes, bytes_src = float(a.dram_read) + float(a.dram_write), BYTES_COUNTED
    elif category in ("gpu_memcpy", "gpu_memset") and _number(a.bytes) and a.bytes >= 0:
        nbytes, bytes_src = float(a.bytes), BYTES_COUNTED  # the size the copy or set moved
    if (flops_src == FLOPS_UNKNOWN or bytes_src == BYTES_UNKNOWN) and len(a.input_dims):
        key = (name, bytes(a.input_dims), bytes(a.input_type), bytes(a.concrete_inputs))
        computed = ev._volumes.get(key)
        if computed is None:
            computed = ev._volumes[key] = _computed(name, a)
        cf, cb, counted = computed
        if flops_src == FLOPS_UNKNOWN and cf is not None:
            flops, flops_src = cf, FLOPS_COMPUTED
        if bytes_src == BYTES_UNKNOWN and cb is not None:
            nbytes, bytes_src = cb, (BYTES_ESTIMATED if counted else BYTES_INPUTS_ONLY)
    return flops, flops_src, nbytes, bytes_src


def _computed(name: str, a):
    """(flops, bytes, output counted) from the shapes an operator recorded; volumes None when unknown."""
    try:
        dims = msgspec.json.decode(a.input_dims)
        types = msgspec.json.decode(a.input_type) if len(a.input_type) else None
        concrete = msgspec.json.decode(a.concrete_inputs) if len(a.concrete_inputs) else None
    except (msgspec.DecodeError, RecursionError):
        return None, None, False
    if not isinstance(dims, list):
        return None, None, False
    if not isinstance(types, list) or len(types) != len(dims):
        types = [None] * len(dims)
    if not isinstance(concrete, list) or len(concrete) != len(dims):
        concrete = None
    clean = [
        d
        if isinstance(d, list)
        and len(d) <= 16
        and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= op_models.MAX_DIM for x in d)
        else None  # a TensorList or something else: not a plain tensor shape
        for d in dims
    ]
    return op_models.work(name, clean, types, concrete)


@dataclass
class Read:
    """A scanned trace: its events, the selected ones, the chosen categories and the report so far."""

    options: Options
    events: Events
    sel: np.ndarray
    categories: tuple[str, ...]
    metadata: dict
    report: ImportReport
