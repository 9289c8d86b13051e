"""What the trace importer and its timeline mode share: the options, the scan of the events into
compact columns, the categories in every spelling Kineto has written, the work of GPU kernels, the
nesting of events and the phases built from them."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass

import msgspec
import numpy as np

from ..errors import TraceSyntaxError
from ..formatting import shorten_middle
from ..model.import_report import ImportReport, PhaseReport
from ..model.phase import MAX_NAME
from . import op_models
from ._common import build_workload, check_machine, check_percent, error, source_of
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


def checked_options(path, *, machine, categories, group_by, nested, ignore_annotations, percent) -> Options:
    """The reader's options checked, categories in their current spelling."""
    name, source, file_path = source_of(path)
    check_percent(name, percent)
    check_machine(machine)
    if group_by not in ("name", "annotation"):
        raise ValueError(f"group_by={group_by!r} must be 'name' or 'annotation'")
    if nested not in ("outer", "all"):
        raise ValueError(f"nested={nested!r} must be 'outer' or 'all'")
    if isinstance(categories, str):
        categories = tuple(c for c in categories.split(",") if c.strip()) if "," in categories else (categories,)
    if categories is not None:
        categories = tuple(canonical_category(str(c)) for c in categories)
        if not categories:
            raise ValueError("categories must name at least one event category")
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
    kind = ev.code_kind[code]
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


# -- the shared read path -----------------------------------------------------------------------------------


@dataclass
class Read:
    """A scanned trace: its events, the selected ones, the chosen categories and the report so far."""

    options: Options
    events: Events
    sel: np.ndarray
    categories: tuple[str, ...]
    metadata: dict
    report: ImportReport


def read_events(options: Options, stream, *, keep_ignored: bool, counters=None) -> Read:
    """Scan the trace, choose the categories, give GPU events their work and select the phase events.

    ``keep_ignored``: keep the ignored annotations too (the timeline's bands); otherwise they are counted
    in the report. Raises when no complete event of the chosen categories is in the trace, listing the
    categories that are.
    """
    name, categories, machine = options.name, options.categories, options.machine
    report = ImportReport(path=name, format=FORMAT, machine_source=machine.name or "given")
    read = set(ALWAYS_READ) | set(categories or ())
    events = Events(read, options.ignore, keep_ignored)
    metadata: dict = {}
    try:
        scan(name, stream, events, metadata, report)
    finally:
        stream.close()
    events.finish()
    categories = chosen_categories(events, categories, report)
    if options.group_by == "name" and not keep_ignored:
        for used in (events.annotations_used, events.annotations_ignored):
            if used:
                report.skipped["wrong category"] += sum(used.values())
                report.skipped_detail.setdefault("wrong category", Counter())["user_annotation"] += sum(used.values())
    elif not keep_ignored:
        report.skipped_detail["annotations used"] = events.annotations_used
        if events.annotations_ignored:
            report.skipped["ignored annotation"] += sum(events.annotations_ignored.values())
            report.skipped_detail["ignored annotation"] = events.annotations_ignored
    sel = events.select(categories)
    if sel.size == 0:
        found = ", ".join(f"{c} ({n})" for c, n in events.category_count.most_common(8))
        other = report.skipped_detail.get("wrong category", Counter())
        found = ", ".join(x for x in (found, ", ".join(f"{c} ({n})" for c, n in other.most_common(8))) if x)
        raise error(
            name,
            f"no complete events of categories {', '.join(categories)} in this trace; complete "
            f"events found by category: {found or 'none'}",
            field="categories",
        )
    give_gpu_work(events, sel, report, machine=machine, counters=counters)
    for key in ("record_shapes", "with_flops"):
        if key in metadata:
            report.notes.append(f"trace metadata: {key}={metadata[key]}")
    return Read(options, events, sel, categories, metadata, report)


def chosen_categories(events: Events, categories, report: ImportReport) -> tuple[str, ...]:
    """The event categories kept (default: GPU kernels when the trace has any, else CPU operators);
    the others read are counted as skipped in the report."""
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


# -- nesting and phases -------------------------------------------------------------------------------------


def nesting(thread: np.ndarray, ts: np.ndarray, dur: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per event, the innermost other event on its thread that encloses it (-1: none), and the order
    (per thread, by start, longer first) in which every parent comes before its children."""
    n = ts.size
    order = np.lexsort((-dur, ts, thread))
    parent = np.full(n, -1, dtype=np.int64)
    eps = 1e-3  # µs: Kineto rounds to the nanosecond
    o_thread, o_ts, o_end = thread[order], ts[order], (ts + dur)[order]
    same = o_thread[1:] == o_thread[:-1]
    if not (same & ((o_ts[1:] < o_end[:-1]) | (o_end[1:] - eps <= o_end[:-1]))).any():
        return parent, order  # each event starts after the previous one on its thread ends: none nests
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


def roll_up_nested(parent, order, flops, flops_src, nbytes, bytes_src) -> tuple[np.ndarray, ...]:
    """``nested="outer"``: an event's volumes are its own, else the sums of the events nested in it
    (recorded FLOPs before any other kind; the bytes' source the strongest of theirs). Returns
    flops, flops_src, nbytes, bytes_src."""
    n = parent.size
    src_f, src_b = flops_src.tolist(), bytes_src.tolist()
    rec_mask = flops_src == FLOPS_RECORDED
    has_rec = rec_mask.tolist()
    has_comp = ((flops_src != FLOPS_UNKNOWN) & ~rec_mask).tolist()
    rec = np.where(rec_mask, flops, 0.0).tolist()
    comp = np.where((flops_src != FLOPS_UNKNOWN) & ~rec_mask, flops, 0.0).tolist()
    comp_src = src_f[:]
    vol = nbytes.tolist()
    child_rec, child_comp, child_bytes = [0.0] * n, [0.0] * n, [0.0] * n
    child_has_rec, child_has_comp, child_bytes_src = [False] * n, [False] * n, [BYTES_UNKNOWN] * n
    child_comp_src = [FLOPS_UNKNOWN] * n
    up = parent.tolist()
    for i in order[::-1].tolist():  # children before their parents
        if not has_rec[i] and child_has_rec[i]:
            rec[i], has_rec[i] = child_rec[i], True
        if not has_comp[i] and child_has_comp[i]:
            comp[i], has_comp[i], comp_src[i] = child_comp[i], True, child_comp_src[i]
        if src_b[i] == BYTES_UNKNOWN and child_bytes_src[i] != BYTES_UNKNOWN:
            vol[i], src_b[i] = child_bytes[i], child_bytes_src[i]
        p = up[i]
        if p >= 0:
            if has_rec[i]:
                child_rec[p] += rec[i]
                child_has_rec[p] = True
            if has_comp[i]:
                child_comp[p] += comp[i]
                child_has_comp[p] = True
                child_comp_src[p] = max(child_comp_src[p], comp_src[i])
            if src_b[i] != BYTES_UNKNOWN:
                child_bytes[p] += vol[i]
                child_bytes_src[p] = max(child_bytes_src[p], src_b[i])
    rec_a, comp_a = np.asarray(rec), np.asarray(comp)
    has_rec_a, has_comp_a = np.asarray(has_rec, dtype=bool), np.asarray(has_comp, dtype=bool)
    flops_out = np.where(has_rec_a, rec_a, np.where(has_comp_a, comp_a, 0.0))
    src_out = np.where(has_rec_a, FLOPS_RECORDED, np.where(has_comp_a, np.asarray(comp_src), FLOPS_UNKNOWN))
    return flops_out, src_out.astype(np.int8), np.asarray(vol, dtype=np.float64), np.asarray(src_b, dtype=np.int8)


@dataclass
class Selected:
    """The selected events' columns, their nesting and (``nested="outer"``) their rolled-up volumes."""

    thread: np.ndarray
    ts: np.ndarray
    dur: np.ndarray
    names: np.ndarray
    flops: np.ndarray
    flops_src: np.ndarray
    nbytes: np.ndarray
    bytes_src: np.ndarray
    parent: np.ndarray
    order: np.ndarray
    keep: np.ndarray


def selected(ev: Events, sel: np.ndarray, nested: str) -> Selected:
    thread, ts, dur = ev.thread[sel], ev.ts[sel], ev.dur[sel]
    flops, flops_src, nbytes, bytes_src = ev.flops[sel], ev.flops_src[sel], ev.bytes[sel], ev.bytes_src[sel]
    parent, order = nesting(thread, ts, dur)
    if nested == "outer":
        flops, flops_src, nbytes, bytes_src = roll_up_nested(parent, order, flops, flops_src, nbytes, bytes_src)
        keep = parent < 0
    else:
        keep = np.ones(sel.size, bool)
    return Selected(thread, ts, dur, ev.name[sel], flops, flops_src, nbytes, bytes_src, parent, order, keep)


def phases(r: Read, s: Selected):
    """The workload: one phase per group of kept events, in order of their first event."""
    ev, report, group_by = r.events, r.report, r.options.group_by
    n = s.ts.size
    inner = int(n - s.keep.sum()) if r.options.nested == "outer" else int((s.parent >= 0).sum())
    if inner and r.options.nested == "outer":
        report.notes.append(
            f"{inner} events nested inside other selected events were counted within their "
            "outermost event (nested='outer'), not as phases of their own"
        )
    elif inner:
        report.notes.append(
            f"nested='all': {inner} events run inside other selected events, so their time is counted twice"
        )
    idx = np.flatnonzero(s.keep)
    if group_by == "name":
        keys = [ev.id_to_name[int(i)] for i in s.names[idx].tolist()]
    else:
        keys = annotation_keys(ev, s.thread, s.ts, s.dur, idx)
        if OUTSIDE in keys:
            report.notes.append(f"{keys.count(OUTSIDE)} events outside every annotation form the phase {OUTSIDE!r}")
    groups: dict[str, list[int]] = defaultdict(list)
    for key, i in zip(keys, idx.tolist()):
        groups[key].append(i)
    ordered = sorted(groups, key=lambda k: s.ts[groups[k]].min())
    shown = _phase_names(ordered, report)
    durations, ops, volumes = [], [], []
    for key, label in zip(ordered, shown):
        members = np.asarray(groups[key])
        d = float(s.dur[members].sum()) * US
        fs, bs = s.flops_src[members], s.bytes_src[members]
        f = float(s.flops[members][fs != FLOPS_UNKNOWN].sum())
        b = float(s.nbytes[members][bs != BYTES_UNKNOWN].sum())
        durations.append(d)
        ops.append(f)
        volumes.append(b)
        known_f, known_b = fs != FLOPS_UNKNOWN, bs != BYTES_UNKNOWN
        either = known_f | known_b
        report.phases.append(
            PhaseReport(
                name=label,
                duration=d,
                ops=f,
                bytes=b,
                flops=mix(fs, FLOPS_NAMES, FLOPS_UNKNOWN, "+"),
                bytes_source=mix(bs, BYTES_NAMES, BYTES_UNKNOWN, " + "),
                events=int(members.size),
                partial_flops=bool((~known_f).any() and known_f.any()),
                partial_bytes=bool((~known_b).any() and known_b.any()),
                details={
                    "flops_events": {FLOPS_NAMES[k]: int((fs == k).sum()) for k in FLOPS_NAMES},
                    "bytes_events": {BYTES_NAMES[k]: int((bs == k).sum()) for k in BYTES_NAMES},
                    "work": "known" if either.all() else ("unknown" if not either.any() else "partial"),
                    "full name": key,
                },
            )
        )
    name = r.options.name
    return build_workload(
        name, shown, duration=durations, ops=ops, bytes_=volumes, machine=r.options.machine, report=report
    )


def _phase_names(keys: list[str], report: ImportReport) -> list[str]:
    """The phase names: the keys, unless one is longer than a phase name may be (then shortened in the
    middle, the full name kept in ``PhaseReport.details["full name"]``)."""
    if all(len(k) <= MAX_NAME for k in keys):
        return keys
    out, seen = [], set(keys)
    for k in keys:
        if len(k) > MAX_NAME:
            short = shorten_middle(k, MAX_NAME - 8)
            label, n = short, 1
            while label in seen:
                n += 1
                label = f"{short} #{n}"
            seen.add(label)
            k = label
        out.append(k)
    long = sum(1 for k in keys if len(k) > MAX_NAME)
    report.notes.append(
        f"{long} phase names are over {MAX_NAME:,} characters (the limit for a phase's name): shortened in "
        "the middle; the full names are in PhaseReport.details['full name']"
    )
    return out


def mix(codes, names, unknown, sep) -> str:
    present = sorted({int(c) for c in codes} - {unknown})
    if not present:
        return names[unknown]
    return sep.join(names[c] for c in present)


def annotation_keys(ev: Events, thread, ts, dur, idx) -> list[str]:
    """Per kept event: the innermost annotation that encloses it on the same thread/stream.

    Innermost = the latest-starting annotation (ties: the shortest) with start <= the event's start
    and end >= the event's end (1 ns tolerance). O((events + annotations) log annotations): events
    and annotations are swept by decreasing end, a Fenwick tree over annotations in start order
    answering "the last one started by then among those not yet ended".
    """
    if not ev.ann_ts.size:
        return [OUTSIDE] * idx.size
    a_thread, a_ts, a_end, a_name = ev.ann_thread, ev.ann_ts, ev.ann_end, ev.ann_name
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
                keys[e] = ev.id_to_name[int(a_name[members[best]])]
    return keys


# -- the work of GPU events ------------------------------------------------------------------------------------


def give_gpu_work(ev: Events, sel: np.ndarray, report: ImportReport, *, machine, counters=None) -> None:
    """Give the GPU events (kernels, memcpys, memsets) the FLOPs and bytes that the trace itself does not
    record: from a Nsight Compute report of the same run (``counters``), else from the CPU operator that
    launched them; list in the report those whose work stays unknown."""
    gpu_ids = [ev.cats[c] for c in GPU_CATEGORIES if c in ev.cats]
    gpu = np.flatnonzero(np.isin(ev.cat, gpu_ids))
    if gpu.size == 0:
        return
    if counters is not None:
        _counters(ev, gpu, report, machine, counters)
    _inherit(ev, gpu, report)
    chosen = np.intersect1d(gpu, sel, assume_unique=True)
    unknown = chosen[(ev.flops_src[chosen] == FLOPS_UNKNOWN) & (ev.bytes_src[chosen] == BYTES_UNKNOWN)]
    if unknown.size:
        names = Counter(ev.id_to_name[i] for i in ev.name[unknown].tolist())
        report.skipped_detail[WORK_UNKNOWN] = names
        share = float(ev.dur[unknown].sum() / max(ev.dur[chosen].sum(), 1e-300))
        report.notes.append(
            f"work unknown for {unknown.size:,} of {chosen.size:,} GPU events ({share:.1%} of their time, "
            f"{len(names):,} kernel names): the trace records no FLOPs or bytes for them, no Nsight Compute "
            "report (counters=) gives them, and no launching operator has shapes a work model covers "
            f"(record_shapes=True); see import_report.skipped_detail[{WORK_UNKNOWN!r}]"
        )


def _inherit(ev: Events, gpu: np.ndarray, report: ImportReport) -> None:
    """Each GPU event inherits the work of the operator that launched it, split across that operator's
    GPU events by duration.

    The launching operator: the one whose External id the GPU event carries, else the innermost operator
    around the runtime launch with the event's correlation id, on the launch's thread. The operator whose
    work is inherited: the outermost one with a nonzero modelled volume among the launching operator and
    the operators enclosing it (``aten::linear`` for the GEMM its ``aten::addmm`` runs, ``aten::conv2d``
    for every kernel of the convolution), so that no work is counted twice."""
    cpu_id = ev.cats.get("cpu_op")
    need = gpu[(ev.flops_src[gpu] == FLOPS_UNKNOWN) | (ev.bytes_src[gpu] == BYTES_UNKNOWN)]
    if cpu_id is None or need.size == 0:
        return
    cpu = np.flatnonzero(ev.cat == cpu_id)
    launches = np.flatnonzero(np.isin(ev.cat, [ev.cats[c] for c in LAUNCH_CATEGORIES if c in ev.cats]))
    rows = np.concatenate([cpu, launches])  # operators first: row k < cpu.size is an operator
    parent, order = nesting(ev.thread[rows], ev.ts[rows], ev.dur[rows])
    f, fs, b, bs = ev.flops[rows], ev.flops_src[rows], ev.bytes[rows], ev.bytes_src[rows]
    modelled = (((fs != FLOPS_UNKNOWN) & (f > 0)) | ((bs != BYTES_UNKNOWN) & (b > 0))).tolist()
    owner = [-1] * rows.size
    up = parent.tolist()
    for i in order.tolist():  # parents before their children
        p = up[i]
        owner[i] = owner[p] if p >= 0 and owner[p] >= 0 else (i if modelled[i] else -1)
    owner = np.asarray(owner, dtype=np.int64)
    ext, corr = ev.ext[need], ev.corr[need]
    ext = np.where(ext == corr, -1, ext)  # some Kineto versions write the correlation id as External id
    by_ext = _lookup(ev.ext[cpu], np.arange(cpu.size), ext)
    by_launch = _lookup(ev.corr[launches], np.arange(cpu.size, rows.size), corr)
    row = np.where(by_ext >= 0, by_ext, by_launch)
    who = np.where(row >= 0, owner[np.maximum(row, 0)], -1)
    take = who >= 0
    if not take.any():
        return
    gpu_rows, who = need[take], who[take]
    total = np.bincount(who, weights=ev.dur[gpu_rows], minlength=rows.size)
    share = ev.dur[gpu_rows] / total[who]
    set_f = (ev.flops_src[gpu_rows] == FLOPS_UNKNOWN) & (fs[who] != FLOPS_UNKNOWN)
    ev.flops[gpu_rows[set_f]] = f[who[set_f]] * share[set_f]
    ev.flops_src[gpu_rows[set_f]] = FLOPS_INHERITED
    set_b = (ev.bytes_src[gpu_rows] == BYTES_UNKNOWN) & (bs[who] != BYTES_UNKNOWN)
    ev.bytes[gpu_rows[set_b]] = b[who[set_b]] * share[set_b]
    ev.bytes_src[gpu_rows[set_b]] = BYTES_INHERITED
    report.notes.append(
        f"{int((set_f | set_b).sum()):,} GPU events inherit the FLOPs and bytes of the operator that launched "
        "them (computed from its recorded shapes, split across its GPU events by duration)"
    )


def _lookup(keys: np.ndarray, values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """``values`` at the first position of each ``wanted`` key in ``keys`` (-1 where absent or negative)."""
    ok = keys >= 0
    keys, values = keys[ok], values[ok]
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    at = np.searchsorted(keys, wanted)
    at_c = np.minimum(at, max(keys.size - 1, 0))
    hit = (wanted >= 0) & (at < keys.size) & (keys[at_c] == wanted) if keys.size else np.zeros(wanted.size, bool)
    out = np.full(wanted.size, -1, dtype=np.int64)
    out[hit] = values[at_c[hit]]
    return out


def kernel_base(name: str) -> str:
    """A kernel's function name without return type, namespaces, template and call arguments:
    ``void at::native::elementwise_kernel<128, 4>(int, F)`` → ``elementwise_kernel``."""
    k = name.strip()
    depth, out = 0, []
    for ch in k:  # drop template and call arguments, whatever they hold
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    k = "".join(out).strip()
    if " " in k:
        k = k.rsplit(" ", 1)[-1]
    return k.rsplit("::", 1)[-1] or name.strip()


def _counters(ev: Events, gpu: np.ndarray, report: ImportReport, machine, counters) -> None:
    """FLOPs and bytes of the kernels from a Nsight Compute CSV of the same run: its launches matched to
    the trace's kernels by kernel name, in launch order."""
    from .nsight import read_nsight_csv

    ncu = read_nsight_csv(counters, machine=machine, require=("duration",)).import_report
    kernel_id = ev.cats.get("kernel")
    kernels = gpu[ev.cat[gpu] == kernel_id] if kernel_id is not None else gpu[:0]
    kernels = kernels[np.argsort(ev.ts[kernels], kind="stable")]
    base_of: dict[int, str] = {}
    queue: dict[str, list[int]] = defaultdict(list)
    for row, nid in zip(kernels.tolist(), ev.name[kernels].tolist()):
        base = base_of.get(nid)
        if base is None:
            base = base_of[nid] = kernel_base(ev.id_to_name[nid])
        queue[base].append(row)
    taken: Counter = Counter()
    matched = unmatched = 0
    for p in ncu.phases:
        base = kernel_base(str(p.details.get("kernel", p.name.rsplit(" #", 1)[0])))
        rows = queue.get(base, ())
        k = taken[base]
        if k >= len(rows):
            unmatched += 1
            continue
        taken[base] += 1
        row = rows[k]
        matched += 1
        if p.flops != "unknown" and ev.flops_src[row] in (FLOPS_UNKNOWN, FLOPS_COMPUTED):
            ev.flops[row], ev.flops_src[row] = p.ops, FLOPS_COUNTERS
        if p.bytes_source != "unknown" and ev.bytes_src[row] != BYTES_COUNTED:
            ev.bytes[row], ev.bytes_src[row] = p.bytes, BYTES_COUNTED
    note = f"counters: {matched:,} of {len(ncu.phases):,} Nsight Compute launches in {counters} matched to kernels"
    if unmatched:
        note += f" ({unmatched:,} with no kernel of that name left in the trace)"
    report.notes.append(note + " by name and launch order")
