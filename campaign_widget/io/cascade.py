"""The paper authors' cascade YAML: ``cascade: {name, kernels: [{name, duration, compute_util, bw_util}]}``;
kernels run in sequence."""

from __future__ import annotations

from .checks import (check_keys, check_unique_names, expect_map, make_phase, make_workload, no_options, read_name,
                     read_number, show)
from .source import Source, line_of
from ..workload import Workload

FORMAT = "cascade-yaml"
CASCADE_KERNEL_KEYS = ("name", "duration", "compute_util", "bw_util")
CASCADE_IGNORED_KEYS = ("start", "bw_util_limit", "throttled_duration")  # the tool's Kernel() state, not inputs


def sniff(source: Source) -> bool:
    if not source.mentions("cascade"):
        return False
    doc = source.try_document()
    return isinstance(doc, dict) and "cascade" in doc


def read(source: Source, *, machine=None, percent=False, **options) -> Workload:
    no_options(source, options)
    doc = source.document()
    expect_map(source, doc, "the top level")
    check_keys(source, doc, ("cascade",), "the top level")
    cascade = doc["cascade"]
    expect_map(source, cascade, "cascade", line_of(doc, "cascade"))
    check_keys(source, cascade, ("name", "kernels"), "cascade")
    kernels = cascade.get("kernels")
    if not isinstance(kernels, list) or not kernels:
        raise source.error(f"must be a non-empty list of kernels, got {show(kernels)}",
                           line=line_of(cascade, "kernels") if "kernels" in cascade else line_of(cascade),
                           field="cascade.kernels")
    scale = 0.01 if percent else 1.0
    phases, previous = [], ()
    for i, kernel in enumerate(kernels):
        where, line = f"cascade.kernels[{i}]", line_of(kernels, i)
        expect_map(source, kernel, where, line)
        check_keys(source, kernel, CASCADE_KERNEL_KEYS + CASCADE_IGNORED_KEYS, where)
        name = read_name(source, kernel.get("name"), f"{where}.name", line_of(kernel, "name") if "name" in kernel else line)
        if kernel.get("duration") is None:
            raise source.error("missing 'duration'", line=line, field=where)
        duration = read_number(source, kernel["duration"], f"{where}.duration", line_of(kernel, "duration"))
        # the tool's Kernel() defaults a missing utilization to 0
        uc = read_number(source, kernel.get("compute_util", 0), f"{where}.compute_util", line_of(kernel, "compute_util"))
        um = read_number(source, kernel.get("bw_util", 0), f"{where}.bw_util", line_of(kernel, "bw_util"))
        phases.append(make_phase(source, line, name, duration=duration, compute_util=uc * scale,
                             memory_util=um * scale, after=previous))
        previous = (name,)
    lines = [line_of(kernels, i) for i in range(len(phases))]
    check_unique_names(source, list(zip((p.name for p in phases), lines)))
    return make_workload(source, phases, machine, None, lines)
