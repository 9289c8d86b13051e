"""Building a measured timeline from a trace's kept events and annotations (what
``read_torch_trace(path, timeline=True)`` returns; see ``campaign_widget.io.torch_timeline``)."""

from __future__ import annotations

import numpy as np

from ..model.timeline import Timeline, from_intervals
from ..progress import Progress
from . import _torch_events as te
from ._common import open_binary

PROGRESS_ABOVE = 32 << 20


def timeline_of(options: te.Options, *, warn: bool, progress, counters) -> Timeline:
    """The ``Timeline`` of a trace whose reader options are checked (``read_torch_trace(timeline=True)``)."""
    group_by, nested = options.group_by, options.nested
    source, file_path = options.source, options.file_path
    total = len(source.raw) if source is not None else file_path.stat().st_size
    stream = open_binary(options.name, source, file_path, limit=te.MAX_TRACE_BYTES)
    show = Progress(progress, total=total, what="trace", unit="B", default=total >= PROGRESS_ABOVE, with_what=True)
    # every annotation is kept (for the bands); the ignored ones are set apart from the grouping below
    r = te.read_events(options, _Counting(stream, total, show) if show.active else stream, keep_ignored=True,
                       counters=counters)  # fmt: skip
    events = r.events
    bands = _set_apart_ignored(events, options.ignore)
    if group_by == "annotation":
        r.report.skipped_detail["annotations used"] = events.annotations_used
    r.report.notes.append(
        f"timeline: {sum(events.annotations_used.values()) + sum(events.annotations_ignored.values())} "
        "annotation ranges kept as bands"
    )
    s = te.selected(events, r.sel, nested)
    workload = te.phases(r, s)
    timeline = _timeline(events, s, workload, group_by, bands, r.report)
    if warn:
        r.report.warn_skipped(stacklevel=3)
    return timeline


def _set_apart_ignored(ev: te.Events, ignore):
    """Move the annotations matching ``ignore`` out of the grouping arrays; return every annotation
    as band arrays ``(thread, start µs, end µs, name id)``."""
    bands = ev.ann_thread, ev.ann_ts, ev.ann_end, ev.ann_name
    ignored_ids = {i for i in np.unique(ev.ann_name).tolist() if any(p.fullmatch(ev.id_to_name[i]) for p in ignore)}
    if ignored_ids:
        keep = ~np.isin(ev.ann_name, list(ignored_ids))
        ev.ann_thread, ev.ann_ts, ev.ann_end, ev.ann_name = (a[keep] for a in bands)
        for i in ignored_ids:
            label = ev.id_to_name[i]
            ev.annotations_ignored[label] += ev.annotations_used.pop(label, 0)
    return bands


def _timeline(ev: te.Events, s: te.Selected, workload, group_by, bands, report):
    """The kept events as intervals at their measured times, each at the rates of its own FLOPs and bytes
    (or, with ``nested="outer"``, those of the events nested in it, as the phase import counts them)."""
    idx = np.flatnonzero(s.keep)
    flops = np.where(s.flops_src != te.FLOPS_UNKNOWN, s.flops, 0.0)
    nbytes = np.where(s.bytes_src != te.BYTES_UNKNOWN, s.nbytes, 0.0)
    seconds = s.dur[idx] * te.US
    machine = workload.machine
    phase_of = {p.details["full name"]: i for i, p in enumerate(report.phases)}  # keys as grouped
    if group_by == "name":
        per_name = np.full(max(ev.names.values(), default=-1) + 2, -1, dtype=np.int64)
        for text, i in ev.names.items():
            per_name[i] = phase_of.get(text, -1)
        phase = per_name[s.names[idx]]
    else:
        keys = te.annotation_keys(ev, s.thread, s.ts, s.dur, idx)
        phase = np.array([phase_of[k] for k in keys], dtype=np.int64)
    b_thread, b_ts, b_end, b_name = bands
    origin = min(float(s.ts[idx].min()), float(b_ts.min(initial=np.inf)))
    lanes_used = np.unique(np.r_[s.thread[idx], b_thread])
    thread_names = {i: key for key, i in ev.threads.items()}
    lane_names = tuple(_lane_label(thread_names[int(t)]) for t in lanes_used.tolist())
    lane = np.searchsorted(lanes_used, s.thread[idx])
    band_ids, band_name = np.unique(b_name, return_inverse=True)
    start = (s.ts[idx] - origin) * te.US
    timeline = from_intervals(
        workload,
        phase=phase,
        start=start,
        end=start + seconds,  # lengths exactly the durations
        compute_rate=flops[idx] / seconds / machine.peak_compute,
        memory_rate=nbytes[idx] / seconds / machine.peak_bandwidth,
        lane=lane,
        lane_names=lane_names,
        origin=origin * te.US,
        bands=(
            (b_ts - origin) * te.US,
            (b_ts - origin) * te.US + (b_end - b_ts) * te.US,
            band_name.ravel(),
            np.searchsorted(lanes_used, b_thread),
            tuple(ev.id_to_name[i] for i in band_ids.tolist()),
        ),
    )
    report.notes.append(
        f"timeline: {len(timeline):,} intervals (the kept events) on {len(lane_names)} lanes; "
        "each runs at the rates of its own FLOPs and bytes"
    )
    return timeline


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
