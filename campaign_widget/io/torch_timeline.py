"""A PyTorch profiler / Chrome trace as a measured timeline (issue 14): ``read_torch_trace(path,
machine=..., timeline=True)`` and ``load(path, machine=..., timeline=True)``.

Returns a :class:`~campaign_widget.timeline.Timeline` (a ``Schedule``) whose ``workload`` is exactly the
workload ``read_torch_trace`` gives without ``timeline`` (one phase per group, so the roofline keeps one
point per phase) and whose intervals are the kept events — the selected complete events, only the
outermost ones with ``nested="outer"`` — each at its measured start and end, on its thread or stream
(``"pid/tid"``) as a lane. Times are seconds from the earliest kept event or annotation.

Rates: each interval runs at the rates of its own event's FLOPs and bytes over its duration, as
fractions of the machine's peaks (an outermost event without volumes of its own carries those of the
events nested in it, exactly as the phase import counts them; unknown volumes count 0), so the area
under a phase's intervals is the phase's FLOPs and bytes.

Annotation ranges (``record_function`` → ``user_annotation``, ``ProfilerStep#N``) on any thread become
the timeline's bands, ``ProfilerStep#N`` included (it is left out only of the grouping);
``timeline.steps()`` and ``timeline.cut()`` cut the timeline into comparable steps.

Memory: the file is read incrementally (``_jsonstream``), keeping ~60 bytes per selected event and 32 per
annotation, never the events themselves. ``progress``: ``None`` shows a progress bar (in a notebook, an
ipywidgets bar; else a line on stderr) for files above 32 MB, ``True``/``False`` always/never, or a
callable ``progress(done_bytes, total_bytes, what)``.
"""

from __future__ import annotations

import numpy as np

from ..progress import Progress
from ..timeline import from_intervals
from . import torch_trace as tt
from ._common import ImportReport, error, open_binary

PROGRESS_ABOVE = 32 << 20


def read_torch_timeline(
    path,
    *,
    machine=None,
    categories=None,
    group_by: str = "name",
    nested: str = "outer",
    ignore_annotations=tt.IGNORED_ANNOTATIONS,
    percent: bool = False,
    warn: bool = True,
    progress=None,
):
    """Read a PyTorch profiler (Kineto) / Chrome trace as a ``Timeline``; the options are those of
    ``read_torch_trace`` plus ``progress`` (see the module docstring)."""
    name, source, file_path, categories, ignore = tt.checked_options(
        path,
        machine=machine,
        categories=categories,
        group_by=group_by,
        nested=nested,
        ignore_annotations=ignore_annotations,
        percent=percent,
    )

    report = ImportReport(path=name, format=tt.FORMAT, machine_source=machine.name or "given")
    events = tt._Events()
    metadata: dict = {}
    candidates = set(categories) if categories is not None else {"cpu_op", "kernel"}
    total = len(source.raw) if source is not None else file_path.stat().st_size
    stream = open_binary(name, source, file_path, limit=tt.MAX_TRACE_BYTES)
    show = Progress(progress, total=total, what="trace", unit="B", default=total >= PROGRESS_ABOVE, with_what=True)
    try:
        # every annotation is kept (for the bands); the ignored ones are set apart below
        tt._scan(
            name, _Counting(stream, total, show) if show.active else stream, events, metadata, report, candidates, ()
        )
    finally:
        stream.close()
    bands = _set_apart_ignored(events, ignore)

    categories = tt.chosen_categories(events, categories, report)
    if group_by == "annotation":
        report.skipped_detail["annotations used"] = events.annotations_used
    report.notes.append(
        f"timeline: {sum(events.annotations_used.values()) + sum(events.annotations_ignored.values())} "
        "annotation ranges kept as bands"
    )

    sel = events.select(categories)
    if sel.size == 0:
        found = ", ".join(f"{c} ({n})" for c, n in events.category_count.most_common(8)) or "none"
        raise error(
            name,
            f"no complete events of categories {', '.join(categories)} in this trace; complete "
            f"events found by category: {found}",
            field="categories",
        )
    workload = tt._phases(name, events, sel, group_by, nested, machine, report)
    timeline = _timeline(events, sel, workload, group_by, nested, bands, report)
    for key in ("record_shapes", "with_flops"):
        if key in metadata:
            report.notes.append(f"trace metadata: {key}={metadata[key]}")
    if warn:
        report.warn_skipped(stacklevel=3)
    return timeline


def _set_apart_ignored(ev: tt._Events, ignore):
    """Move the annotations matching ``ignore`` out of the grouping arrays; return every annotation
    as band arrays ``(thread, start µs, end µs, name id)``."""
    a_thread = np.frombuffer(ev.ann_thread, dtype=np.int64).copy() if len(ev.ann_thread) else np.zeros(0, np.int64)
    a_ts = np.frombuffer(ev.ann_ts, dtype=np.float64).copy() if len(ev.ann_ts) else np.zeros(0)
    a_end = np.frombuffer(ev.ann_end, dtype=np.float64).copy() if len(ev.ann_end) else np.zeros(0)
    a_name = np.frombuffer(ev.ann_name, dtype=np.int64).copy() if len(ev.ann_name) else np.zeros(0, np.int64)
    id_to_name = {i: s for s, i in ev.names.items()}
    ignored_ids = {i for i in np.unique(a_name).tolist() if any(p.fullmatch(id_to_name[i]) for p in ignore)}
    if ignored_ids:
        drop = np.isin(a_name, list(ignored_ids))
        keep = ~drop
        from array import array

        ev.ann_thread, ev.ann_ts = array("q", a_thread[keep].tolist()), array("d", a_ts[keep].tolist())
        ev.ann_end, ev.ann_name = array("d", a_end[keep].tolist()), array("q", a_name[keep].tolist())
        for i in ignored_ids:
            label = id_to_name[i]
            ev.annotations_ignored[label] += ev.annotations_used.pop(label, 0)
    return a_thread, a_ts, a_end, a_name


def _timeline(ev: tt._Events, sel, workload, group_by, nested, bands, report):
    thread = np.frombuffer(ev.thread, dtype=np.int64)[sel]
    ts = np.frombuffer(ev.ts, dtype=np.float64)[sel]
    dur = np.frombuffer(ev.dur, dtype=np.float64)[sel]
    names = np.frombuffer(ev.name, dtype=np.int64)[sel]
    parent, order = tt._nesting(thread, ts, dur)
    keep = parent < 0 if nested == "outer" else np.ones(sel.size, bool)
    idx = np.flatnonzero(keep)
    flops, nbytes = _volumes(ev, sel, parent, order, nested)
    seconds = dur[idx] * tt.US
    machine = workload.machine
    id_to_name = {i: s for s, i in ev.names.items()}
    phase_of = {n: i for i, n in enumerate(workload.names)}
    if group_by == "name":
        per_name = np.full(max(ev.names.values(), default=-1) + 2, -1, dtype=np.int64)
        for text, i in ev.names.items():
            per_name[i] = phase_of.get(text, -1)
        phase = per_name[names[idx]]
    else:
        keys = tt._annotation_keys(ev, thread, ts, dur, idx, id_to_name)
        phase = np.array([phase_of[k] for k in keys], dtype=np.int64)
    b_thread, b_ts, b_end, b_name = bands
    origin = min(float(ts[idx].min()), float(b_ts.min(initial=np.inf)))
    lanes_used = np.unique(np.r_[thread[idx], b_thread])
    thread_names = {i: key for key, i in ev.threads.items()}
    lane_names = tuple(_lane_label(thread_names[int(t)]) for t in lanes_used.tolist())
    lane = np.searchsorted(lanes_used, thread[idx])
    band_ids, band_name = np.unique(b_name, return_inverse=True)
    start = (ts[idx] - origin) * tt.US
    timeline = from_intervals(
        workload,
        phase=phase,
        start=start,
        end=start + seconds,  # lengths exactly the durations
        compute_rate=flops[idx] / seconds / machine.peak_compute,
        memory_rate=nbytes[idx] / seconds / machine.peak_bandwidth,
        lane=lane,
        lane_names=lane_names,
        origin=origin * tt.US,
        bands=(
            (b_ts - origin) * tt.US,
            (b_ts - origin) * tt.US + (b_end - b_ts) * tt.US,
            band_name.ravel(),
            np.searchsorted(lanes_used, b_thread),
            tuple(id_to_name[i] for i in band_ids.tolist()),
        ),
    )
    report.notes.append(
        f"timeline: {len(timeline):,} intervals (the kept events) on {len(lane_names)} lanes; "
        "each runs at the rates of its own FLOPs and bytes"
    )
    return timeline


def _volumes(ev: tt._Events, sel, parent, order, nested):
    """Per event, the FLOPs and bytes its interval carries: its own, or (``nested="outer"``) when it has
    none, the sum of those of the events nested in it (recorded FLOPs before computed ones), as the
    phase import counts them, so that a phase's intervals add up to its volumes."""
    flops = np.frombuffer(ev.flops, dtype=np.float64)[sel]
    flops_src = np.frombuffer(ev.flops_src, dtype=np.int8)[sel]
    nbytes = np.frombuffer(ev.bytes, dtype=np.float64)[sel]
    bytes_src = np.frombuffer(ev.bytes_src, dtype=np.int8)[sel]
    if nested == "outer":
        flops, flops_src, nbytes, bytes_src = tt._roll_up_nested(parent, order, flops, flops_src, nbytes, bytes_src)
    return np.where(flops_src != tt.FLOPS_UNKNOWN, flops, 0.0), np.where(bytes_src != tt.BYTES_UNKNOWN, nbytes, 0.0)


def _lane_label(key) -> str:
    pid, tid = key
    return f"{pid}/{tid}"


class _Counting:
    """A read-only stream that reports how far into the raw file the reading is."""

    def __init__(self, stream, total, show):
        self.stream, self.total, self.show = stream, max(int(total), 1), show
        self.raw = getattr(stream, "fileobj", None) or stream  # a GzipFile's compressed file

    def read(self, size=-1):
        data = self.stream.read(size)
        try:
            done = self.raw.tell()
        except (OSError, ValueError, AttributeError):
            done = self.total
        self.show(self.total if not data else min(done, self.total), "reading the trace")
        return data

    def close(self):
        self.stream.close()
