"""The nesting of a trace's events and the phases built from them (by name, or by annotation)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from ..formatting import shorten_middle
from ..model.import_report import ImportReport
from ..model.phase import MAX_NAME
from ._common import build_workload, record_phase
from ._torch_scan import (
    BYTES_NAMES,
    BYTES_UNKNOWN,
    FLOPS_NAMES,
    FLOPS_RECORDED,
    FLOPS_UNKNOWN,
    OUTSIDE,
    US,
    Events,
    Read,
)

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
        known_f, known_b = fs != FLOPS_UNKNOWN, bs != BYTES_UNKNOWN
        either = known_f | known_b
        record_phase(
            report,
            (durations, ops, volumes),
            label,
            d,
            f,
            b,
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
