"""What the trace importer and its timeline mode share: the read path (scan, categories chosen, GPU work
given, phase events selected) and, through ``__all__``, the names of the modules behind it they use:
``_torch_scan`` (options, categories, the scan), ``_torch_work`` (the work of GPU events) and
``_torch_phases`` (nesting, phases)."""

from __future__ import annotations

from collections import Counter

from ..model.import_report import ImportReport
from ._common import error
from ._torch_phases import Selected, annotation_keys, phases, selected
from ._torch_scan import (
    ALWAYS_READ,
    ANNOTATION_CATEGORIES,
    BYTES_COUNTED,
    BYTES_ESTIMATED,
    BYTES_INPUTS_ONLY,
    BYTES_UNKNOWN,
    FLOPS_COMPUTED,
    FLOPS_RECORDED,
    FLOPS_UNKNOWN,
    FORMAT,
    IGNORED_ANNOTATIONS,
    MAX_TRACE_BYTES,
    OUTSIDE,
    US,
    Events,
    Options,
    Read,
    checked_options,
    scan,
)
from ._torch_work import give_gpu_work

__all__ = [
    "ANNOTATION_CATEGORIES",
    "BYTES_COUNTED",
    "BYTES_ESTIMATED",
    "BYTES_INPUTS_ONLY",
    "BYTES_UNKNOWN",
    "FLOPS_COMPUTED",
    "FLOPS_RECORDED",
    "FLOPS_UNKNOWN",
    "FORMAT",
    "IGNORED_ANNOTATIONS",
    "MAX_TRACE_BYTES",
    "OUTSIDE",
    "Options",
    "US",
    "Events",
    "Read",
    "Selected",
    "annotation_keys",
    "checked_options",
    "chosen_categories",
    "phases",
    "read_events",
    "selected",
]


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
