"""The commands: ``render`` (a figure file), ``summary`` (per-phase numbers and makespans) and
``--list-machines``."""

from __future__ import annotations

import numpy as np

from ..atomic import atomic_path
from ..errors import InputError, ScheduleError, UsageError, WorkloadError, short_repr
from ..formatting import plural
from ..model.presets import MACHINES
from ..model.settings import POLICIES
from ._loading import load_workload, reported, transformer_notes, unreadable
from ._output import EXIT_OK, PROG, num, pct, print_line, si, table

FIGURE_SUFFIXES = (".png", ".svg", ".pdf")


def list_machines() -> int:
    rows = [
        [key, si(m.peak_compute, m.compute_unit), si(m.peak_bandwidth, m.bandwidth_unit), m.name]
        for key, m in MACHINES.items()
    ]
    for line in table(["preset", "compute", "bandwidth", "name"], rows, right={1, 2}):
        print_line(line)
    return EXIT_OK


def render(args) -> int:
    from pathlib import Path

    suffix = Path(args.output).suffix.lower()
    if suffix not in FIGURE_SUFFIXES:
        raise UsageError(
            f"{PROG} render: error: argument -o/--output: unknown suffix {Path(args.output).suffix!r} "
            f"in {args.output!r}; use {', '.join(FIGURE_SUFFIXES)}"
        )
    if args.file is not None and Path(args.file).is_dir():  # a job's folder of rank traces: its stacked ranks
        from ._job import render_job

        return render_job(args)
    workload, settings, _ = load_workload(args)
    try:
        from ..static_figure import save_workload_figure
    except ImportError as e:
        raise InputError(f"render needs the static renderer and matplotlib ({e}); pip install matplotlib") from None
    try:
        with reported(args.file), atomic_path(args.output) as temporary:  # the old OUT stays whole if drawing fails
            save_workload_figure(workload, temporary, roofline=args.roofline, title=args.title, **settings)
        path = args.output
    except OSError as e:
        raise unreadable(e, args.output) from None
    except (WorkloadError, ScheduleError, ValueError) as e:
        raise InputError(f"{args.file}: {e}") from None
    except (TypeError, ArithmeticError, RuntimeError) as e:  # the plotting library, at numbers it cannot lay out
        raise InputError(
            f"{args.file}: the figure could not be drawn at these peaks ({type(e).__name__}: {short_repr(str(e))}); "
            f"nothing was written to {args.output}"
        ) from None
    for line in transformer_notes(args, workload):
        print_line(line)
    print_line(f"wrote {path}")
    return EXIT_OK


def summary(args) -> int:
    from ..model.roofline import unknown_bytes, workload_roofline

    workload, settings, origin = load_workload(args)
    schedules = {}
    try:
        for policy in POLICIES:
            schedules[policy] = workload.schedule(**{**settings, "policy": policy})
    except ScheduleError as e:
        raise InputError(f"{args.file}: {e}") from None
    m = workload.machine
    a = workload.arrays
    roof = workload_roofline(workload, threshold=args.threshold)
    intensity_unit = "" if m.normalized else f" {m.ops_unit}/{m.bytes_unit}"
    out = [
        f"{args.file}: {plural(len(workload), 'phase')} on {m.name or 'an unnamed machine'}",
        f"peaks: {m.compute_name} {si(m.peak_compute, m.compute_unit)}, {m.memory_name} "
        f"{si(m.peak_bandwidth, m.bandwidth_unit)}; ridge point {num(m.ridge_point)}{intensity_unit}"
        + (f"; efficiency threshold {num(args.threshold)}" if args.threshold != 0.7 else ""),
        "",
    ]
    out[-1:-1] = transformer_notes(args, workload)
    # nearer memory levels (docs/memory-hierarchy.md#phases-per-level): a column each, and the bounding one
    levels = m.level_names[:-1]
    if levels:
        out.insert(
            -1, "memory levels: " + ", ".join(f"{name} {si(bw, m.bandwidth_unit)}" for name, bw in m.memory_levels)
        )
    header = [
        "phase",
        "duration",
        m.compute_name,
        *levels,
        m.memory_name,
        "OI",
        "bound",
        "roof",
        "efficiency",
        "guidance",
    ]
    if levels:
        header.insert(header.index("bound") + 1, "bound by")
    rows = []
    unknown = unknown_bytes(workload)  # a quantity the file does not give reads "unknown", not 0
    for i, name in enumerate(workload.names):
        near = [
            "unknown" if unknown[i] else pct(a.level_util[i, k]) if np.isfinite(a.level_util[i, k]) else "—"
            for k in range(len(levels))
        ]
        row = [
            name,
            si(a.duration[i], m.time_unit),
            pct(a.compute_util[i]),
            *near,
            "unknown" if unknown[i] else pct(a.memory_util[i]),
            num(roof.intensity[i]),
            str(roof.regime[i]),
            *([str(a.bound_resource[i])] if levels else []),
            si(roof.bound[i], m.compute_unit),
            pct(roof.efficiency[i]),
            str(roof.guidance[i]),
        ]
        rows.append(row)
    numeric = {1, 2, *range(3, 3 + len(levels)), 3 + len(levels), 4 + len(levels), 6 + len(levels) + bool(levels)}
    numeric.add(7 + len(levels) + bool(levels))
    out += table(header, rows, right=numeric)
    chosen = settings["policy"]
    mode = (
        f"{settings['tiles']} tile{'s' if settings['tiles'] != 1 else ''}, "
        + ("pipelined" if settings["pipeline"] else "one at a time")
        + (f", depth {settings['depth']}" if settings["pipeline"] else "")
    )
    # each phase's ops at its own data type's peak on a machine of typed peaks (docs/llm-inference.md#a-peak-per-data-type)
    compute = (a.ops / workload.compute_peaks).sum() if m.peaks else a.ops.sum() / m.peak_compute
    lower = max(compute, a.bytes.sum() / m.peak_bandwidth)

    def time(value: float) -> str:  # one format for every makespan printed (six digits: a table to compare)
        return si(value, m.time_unit, 6)

    counted = f"; bytes unknown for {plural(int(unknown.sum()), 'phase')}, counted as 0" if unknown.any() else ""
    out += [
        "",
        f"makespan ({mode}); sequential {time(a.duration.sum())} (the phases one after another); "
        f"lower bound {time(lower)} (every operation at peak compute or every byte at peak bandwidth, "
        f"whichever takes longer: no feasible schedule is shorter{counted}):",
    ]
    policy_rows = []
    for policy, s in schedules.items():
        note = s.infeasibility() + " (not achievable)" if not s.feasible else "feasible"
        policy_rows.append([("* " if policy == chosen else "  ") + policy, time(s.makespan), note])
    out += table(None, policy_rows, right={1}, indent="  ")
    out.append(
        f"  (* = the policy {origin['policy']})" if origin["policy"] != "the default" else "  (* = the default policy)"
    )
    for line in out:
        print_line(line)
    return EXIT_OK
