"""The paper authors' cascade YAML: ``cascade: {name, kernels: [{name, duration, compute_util, bw_util, start}]}``.

Without ``start`` times the kernels run in sequence (the tool's sequential cascade): a ``Workload``, one
phase per kernel, each after the previous one. A kernel's ``start`` is honoured: when the
starts leave idle gaps or overlap (anything but each kernel starting where the previous one ends), or a
name repeats, ``load`` returns a measured timeline (``campaign_widget.model.timeline.Timeline``, a
``Schedule``) with each kernel at its start, idle gaps kept, and its ``.workload`` one phase per name.
A kernel without ``start`` starts where the previous one ended. ``timeline=True`` always gives the
timeline, ``timeline=False`` the sequential workload (starts dropped). The import report
(``workload.import_report``) says which semantics was used.
"""

from __future__ import annotations

import math

from ..model.import_report import ImportReport
from .checks import (
    check_keys,
    check_unique_names,
    expect_map,
    flag_or,
    make_phase,
    make_workload,
    no_options,
    read_name,
    read_number,
    show,
)
from .source import Source, line_of

FORMAT = "cascade-yaml"
SPELLED = {"memory_util": "bw_util"}  # the file's own field name, for messages
CASCADE_KERNEL_KEYS = ("name", "duration", "compute_util", "bw_util", "start")
CASCADE_IGNORED_KEYS = ("bw_util_limit", "throttled_duration")  # the tool's Kernel() state, not inputs
SEQUENTIAL = "kernels run in sequence, each where the previous one ends (no start times, or starts that say so)"
HONOURED = "kernel start times honoured: each kernel at its start, idle gaps and overlaps kept (a timeline)"


def sniff(source: Source) -> bool:
    if not source.mentions("cascade"):
        return False
    doc = source.try_document()
    return isinstance(doc, dict) and "cascade" in doc


def read(source: Source, *, machine=None, percent=False, timeline=None, **options):
    no_options(source, options)
    timeline = flag_or(
        timeline,
        f"{source.name}: timeline",
        also=lambda v: v is None,
        said="True, False or None (decide from the starts)",
    )
    doc = source.document()
    expect_map(source, doc, "the top level")
    check_keys(source, doc, ("cascade",), "the top level")
    cascade = doc["cascade"]
    expect_map(source, cascade, "cascade", line_of(doc, "cascade"))
    check_keys(source, cascade, ("name", "kernels"), "cascade")
    kernels = cascade.get("kernels")
    if not isinstance(kernels, list) or not kernels:
        raise source.error(
            f"must be a non-empty list of kernels, got {show(kernels)}",
            line=line_of(cascade, "kernels") if "kernels" in cascade else line_of(cascade),
            field="cascade.kernels",
        )
    scale = 0.01 if percent else 1.0
    rows = []  # (name, duration, compute, memory, start or None, line)
    for i, kernel in enumerate(kernels):
        where, line = f"cascade.kernels[{i}]", line_of(kernels, i)
        expect_map(source, kernel, where, line)
        check_keys(source, kernel, CASCADE_KERNEL_KEYS + CASCADE_IGNORED_KEYS, where)
        name = read_name(
            source, kernel.get("name"), f"{where}.name", line_of(kernel, "name") if "name" in kernel else line
        )
        if kernel.get("duration") is None:
            raise source.error("missing 'duration'", line=line, field=where)
        duration = read_number(source, kernel["duration"], f"{where}.duration", line_of(kernel, "duration"))
        # the tool's Kernel() defaults a missing utilization to 0
        uc = read_number(
            source, kernel.get("compute_util", 0), f"{where}.compute_util", line_of(kernel, "compute_util")
        )
        um = read_number(source, kernel.get("bw_util", 0), f"{where}.bw_util", line_of(kernel, "bw_util"))
        start = None
        if kernel.get("start") is not None:
            start = read_number(source, kernel["start"], f"{where}.start", line_of(kernel, "start"))
            if not math.isfinite(start) or start < 0:
                raise source.error(
                    f"start={show(start)} must be a finite time >= 0",
                    line=line_of(kernel, "start"),
                    field=f"{where}.start",
                )
        rows.append((name, duration, uc * scale, um * scale, start, line))
    starts, previous_end = [], 0.0
    for _name, duration, _, _, start, _ in rows:  # a kernel without a start runs where the previous one ended
        starts.append(previous_end if start is None else float(start))
        previous_end = starts[-1] + float(duration)
    sequential = all(s == e for s, e in zip(starts, [0.0] + [a + float(r[1]) for a, r in zip(starts, rows)]))
    repeated = len({r[0] for r in rows}) < len(rows)
    if timeline or (timeline is None and (not sequential or repeated)):
        return _timeline(source, rows, starts, machine)
    notes = [SEQUENTIAL if sequential else "timeline=False: kernel start times dropped; " + SEQUENTIAL]
    phases, previous = [], ()
    for name, duration, uc, um, _, line in rows:
        phases.append(
            make_phase(
                source, line, name, duration=duration, compute_util=uc, memory_util=um, after=previous, spelled=SPELLED
            )
        )
        previous = (name,)
    lines = [r[5] for r in rows]
    check_unique_names(source, list(zip((p.name for p in phases), lines)))
    workload = make_workload(source, phases, machine, None, lines, spelled=SPELLED)
    return workload.with_import_report(ImportReport(path=source.name, format=FORMAT, notes=notes))


def _timeline(source: Source, rows, starts, machine):
    """One phase per kernel name (durations summed, rates averaged by duration), in order of first
    start, each after the previous; one interval per kernel at its start."""
    from ..model.timeline import from_intervals

    order: dict[str, list[int]] = {}
    for i in sorted(range(len(rows)), key=lambda i: (starts[i], i)):
        order.setdefault(rows[i][0], []).append(i)
    phases, previous = [], ()
    for name, members in order.items():
        total = sum(float(rows[i][1]) for i in members)
        uc, um = (
            sum(float(rows[i][1]) * rows[i][k] for i in members) / total if total > 0 else rows[members[0]][k]
            for k in (2, 3)
        )
        phases.append(
            make_phase(
                source,
                rows[members[0]][5],
                name,
                duration=total,
                compute_util=uc,
                memory_util=um,
                after=previous,
                spelled=SPELLED,
            )
        )
        previous = (name,)
    workload = make_workload(source, phases, machine, None, [rows[m[0]][5] for m in order.values()], spelled=SPELLED)
    workload = workload.with_import_report(ImportReport(path=source.name, format=FORMAT, notes=[HONOURED]))
    try:
        return from_intervals(
            workload,
            phase=[r[0] for r in rows],
            start=starts,
            end=[s + float(r[1]) for s, r in zip(starts, rows)],
            compute_rate=[r[2] for r in rows],
            memory_rate=[r[3] for r in rows],
        )
    except ValueError as e:
        raise source.error(str(e)) from e
