"""Nsight Compute CSV (``ncu --csv``) → a Workload with one measured phase per kernel launch.

Both layouts ncu writes are read, after any lines the profiled program printed first:

- ``--page details`` (the default): long format, one row per (launch ``ID``, ``Section Name``,
  ``Metric Name``, ``Metric Unit``, ``Metric Value``). Metrics asked for with ``--metrics`` appear
  under their names in the section ``Command line profiler metrics``.
- ``--page raw``: wide format, one row per launch, one column per metric, and a units row under the
  header.

Per launch:

- duration: ``gpu__time_duration.sum`` (or the ``Duration`` row of the *GPU Speed Of Light
  Throughput* section), in the unit the file gives (``nsecond``, ``usecond``, ``msecond``, ``second``);
  without it, elapsed cycles over their clock (``gpc__cycles_elapsed.max / gpc__cycles_elapsed.avg.per_second``,
  the same for ``sm__`` and ``smsp__``, or the section's ``Elapsed Cycles / SM Frequency``), and the
  report says so.
- FLOPs: ``sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum`` (``smsp__`` works too),
  add + mul + 2·fma over the precisions present.
- bytes: ``dram__bytes_read.sum + dram__bytes_write.sum``, else ``dram__bytes_op_read.sum +
  dram__bytes_op_write.sum`` (newer GPUs), else ``dram__bytes.sum``, in the file's unit (``byte``,
  ``Kbyte``, ``Mbyte``, ``Gbyte``: powers of 1000 as ncu prints them).
- utilizations, when the counters above are not in the file: the *GPU Speed Of Light Throughput*
  section's ``Compute (SM) Throughput`` and ``DRAM Throughput`` (``sm__throughput`` and
  ``gpu__dram_throughput .avg.pct_of_peak_sustained_elapsed``), percentages of the GPU's peaks — what ncu's
  default ``--page details`` export holds. Such phases are given by utilizations (docs/semantics.md#machines-phases-and-time): with no
  machine their volumes are in peak·time units. ``Memory Throughput`` (the busiest memory unit) is kept in
  the report. ``basis="counters"`` or ``"utilizations"`` picks one when the file holds both.
- the report also keeps each launch's bytes per level where the file counts them
  (``l1tex__t_bytes.sum``, ``lts__t_bytes.sum``, DRAM as above): ``details["bytes_by_level"]``.
- peaks, when the roofline section was collected (``--section SpeedOfLight_RooflineChart`` or
  ``--set full``, best read from ``--page raw``): compute ``sm__sass_thread_inst_executed_op_ffma_pred_on
  .sum.peak_sustained × 2 × sm__cycles_elapsed.avg.per_second`` (``precision="fp64"``: dfma), bandwidth
  ``dram__bytes.sum.peak_sustained × dram__cycles_elapsed.avg.per_second`` — the roofs ncu draws.

Numbers may carry thousands separators (``"1,234,567"``). A missing metric is an error naming the file
and the metric, unless ``require=`` leaves it out (then that volume is 0 and the report says so). A log
with no table (ncu ran but profiled nothing, e.g. without permission to read the counters) is an error
that quotes ncu's own ``==ERROR==`` / ``==WARNING==`` lines.
"""

from __future__ import annotations

import csv
import math
import re
from collections import Counter

from ..errors import ArgumentError, WorkloadError, WorkloadFileError, short_repr
from ..model.import_report import ImportReport, PhaseReport
from ..model.machine import Machine
from ..model.phase import LARGEST, SMALLEST
from ..model.workload import Workload
from ._common import (
    GZIP_MAGIC,
    chain,
    check_percent,
    error,
    function_name,
    head_text,
    preset_or_machine,
    read_text,
    record_phase,
    source_of,
)
from ._nsight_table import (
    COMPUTE_UTIL,
    DRAM_UTIL,
    DURATION,
    MEMORY_UTIL,
    clip,
    clip_text,
    metric_value,
    parse_table,
)
from ._nsight_table import unit_scale as unit_scale  # part of this module's API: ncu's units in base units
from .source import Source

FORMAT = "nsight-compute-csv"
FLOP_METRICS = tuple(
    f"sm__sass_thread_inst_executed_op_{p}{op}_pred_on.sum" for p in "dfh" for op in ("add", "mul", "fma")
)
FFMA = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"
BYTES_METRICS = (
    ("dram__bytes_read.sum", "dram__bytes_write.sum"),
    ("dram__bytes_op_read.sum", "dram__bytes_op_write.sum"),
    ("dram__bytes.sum",),
)
PEAK_FMA = {
    "fp32": "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
    "fp64": "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
    "fp16": "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained",
}
SM_CLOCK = "sm__cycles_elapsed.avg.per_second"
DRAM_PEAK = "dram__bytes.sum.peak_sustained"
DRAM_CLOCK = "dram__cycles_elapsed.avg.per_second"
# elapsed cycles and their clock, by unit: the first pair a launch has gives its duration
CYCLE_PAIRS = tuple(
    (f"{unit}__cycles_elapsed.{stat}", f"{unit}__cycles_elapsed.avg.per_second")
    for unit in ("gpc", "sm", "smsp")
    for stat in ("max", "avg")
)
LEVEL_BYTES = (("L1", ("l1tex__t_bytes.sum",)), ("L2", ("lts__t_bytes.sum",)))
# the hierarchical roofline's roofs, as ncu computes them: bytes per cycle at peak × cycles per second
LEVEL_PEAKS = (
    ("L1", "l1tex__t_bytes.sum.peak_sustained", "l1tex__cycles_elapsed.avg.per_second"),
    ("L2", "lts__t_bytes.sum.peak_sustained", "lts__cycles_elapsed.avg.per_second"),
)
ALTERNATIVES = {DRAM_UTIL: ("dram__throughput.avg.pct_of_peak_sustained_elapsed",)}
BASES = ("counters", "utilizations")
REQUIRE_ALL = ("duration", "flops", "bytes")
MAX_CHARS = 256 << 20


def read_nsight_csv(
    path,
    *,
    machine=None,
    require=REQUIRE_ALL,
    precision: str = "fp32",
    group_by: str = "launch",
    basis: str | None = None,
    percent: bool = False,
):
    """Read ``ncu --csv`` output (``--page details`` or ``--page raw``) into a ``Workload``.

    One phase per kernel launch (``group_by="launch"``, named ``"<kernel> #<ID>"``, in ID order), or
    one per kernel name (``group_by="kernel"``: durations and volumes summed over its launches).
    ``machine``: the GPU's peaks; when omitted they come from the roofline metrics in the file
    (``precision`` picks the FMA roof: ``"fp32"``, ``"fp64"`` or ``"fp16"``), else it is an error —
    except for phases given by utilizations, which need no peaks.
    ``require``: which of ``"duration"``, ``"flops"``, ``"bytes"`` must be in the file (a volume not
    required and not found is 0, and the report says so); utilizations stand for both volumes.
    ``basis``: ``"counters"`` (FLOP and byte counters), ``"utilizations"`` (the Speed Of Light
    percentages) or None (counters where every launch has them, else utilizations).
    The report is ``workload.import_report``.
    """
    name, source, file_path = source_of(path)
    check_percent(name, percent)
    machine = preset_or_machine(name, machine)
    if group_by not in ("launch", "kernel"):
        raise ArgumentError(f"group_by={short_repr(group_by)} must be 'launch' or 'kernel'")
    if precision not in PEAK_FMA:
        raise ArgumentError(f"precision={short_repr(precision)} must be one of {', '.join(PEAK_FMA)}")
    if basis is not None and basis not in BASES:
        raise ArgumentError(f"basis={short_repr(basis)} must be one of {', '.join(BASES)} (or None: either)")
    if isinstance(require, str):
        require = (require,)
    require = tuple(require)
    for r in require:
        if r not in REQUIRE_ALL:
            raise ArgumentError(f"require contains {short_repr(r)}; known: {', '.join(REQUIRE_ALL)}")
    if "duration" not in require:
        raise ArgumentError("require must contain 'duration': a phase needs its measured duration")
    text = read_text(name, source, file_path)
    if len(text) > MAX_CHARS:
        raise error(
            name,
            f"the file is over {MAX_CHARS:,} characters; Nsight Compute CSV files are read up to "
            f"{MAX_CHARS:,} (see docs/workload-files.md, Limits)",
        )
    try:
        launches, layout = parse_table(name, text)
    except csv.Error as e:  # e.g. a cell over csv.field_size_limit() (131,072 characters)
        raise error(name, f"malformed CSV: {str(e)[:200]}") from None
    report = ImportReport(path=name, format=FORMAT)
    report.notes.append(f"layout: {layout}")
    for launch in launches:
        if len(launch.id) > 100:
            raise error(
                name,
                f"launch ID {clip(launch.id)} is {len(launch.id):,} characters long (at most 100)",
                line=launch.line,
                field="column 'ID'",
            )
    if basis is None:
        basis = "counters" if all(_has_counters(name, launch, require) for launch in launches) else None
        if basis is None and all(_utilizations(name, launch) is not None for launch in launches):
            basis = "utilizations"
        basis = basis or "counters"  # the counters' error names what is missing

    names, durations, ops, volumes, cutil, mutil, by_level = [], [], [], [], [], [], []
    flops_seen: set[str] = set()
    bytes_seen: set[tuple] = set()
    from_cycles = []
    for launch in launches:
        d, how = _duration(name, launch)
        if how != DURATION:
            from_cycles.append(how)
        phase = f"{_short(launch.kernel)} #{launch.id}"
        details = {"kernel": launch.kernel, "id": launch.id, "duration_from": how}
        levels = _level_bytes(name, launch)
        by_level.append(levels)
        if levels:
            details["bytes_by_level"] = levels
        if basis == "utilizations":
            utils = _utilizations(name, launch)
            if utils is None:
                raise error(
                    name,
                    f"kernel launch ID {launch.id} ({_short(launch.kernel)}) has no "
                    "'Compute (SM) Throughput' and 'DRAM Throughput' (Speed Of Light section, or "
                    f"{COMPUTE_UTIL} and {DRAM_UTIL}) for basis='utilizations'",
                    line=launch.line,
                    field=f"metric {launch.label(COMPUTE_UTIL)!r}",
                )
            (u_c, u_m, memory_max) = utils
            details.update(compute_util=u_c, memory_util=u_m)
            if memory_max is not None:
                details["memory_throughput"] = memory_max
            f = b = math.nan
            flops, bytes_source = "utilization", "utilization"
        else:
            f, present = _flops(name, launch)
            if not present and "flops" in require:
                raise error(
                    name,
                    f"missing metric {FFMA!r} (and the other "
                    "sm__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum FLOP counters) "
                    f"for kernel launch ID {launch.id}; profile with --metrics, keep the Speed Of Light "
                    "section (its 'Compute (SM) Throughput' and 'DRAM Throughput'), or pass "
                    "require=('duration', 'bytes')",
                    line=launch.line,
                    field=f"metric {FFMA!r}",
                )
            flops_seen.update(present)
            b, used = _bytes(name, launch)
            if used is None and "bytes" in require:
                raise error(
                    name,
                    f"missing metric 'dram__bytes_read.sum' (or dram__bytes_op_read.sum, or "
                    f"dram__bytes.sum) for kernel launch ID {launch.id}; pass require=('duration', "
                    "'flops') to import without bytes",
                    line=launch.line,
                    field="metric 'dram__bytes_read.sum'",
                )
            if used is not None:
                bytes_seen.add(used)
            f, b = (f if present else 0.0), (b if used is not None else 0.0)
            for value, metrics in ((f, sorted(present)), (b, list(used or ()))):
                if value > LARGEST:  # refused here, where the file's metric can be named
                    raise error(
                        name,
                        f"kernel launch ID {launch.id}: {value:g} is out of range (at most {LARGEST:g})",
                        line=launch.metrics[metrics[0]][2] if metrics[0] in launch.metrics else launch.line,
                        field=f"metric {' + '.join(metrics)!r}",
                    )
            flops, bytes_source = ("computed" if present else "unknown"), ("counted" if used else "unknown")
            details.update(flop_metrics=sorted(present), bytes_metrics=list(used or ()))
            u_c = u_m = math.nan
        names.append(phase)
        cutil.append(u_c)
        mutil.append(u_m)
        record_phase(
            report, (durations, ops, volumes), phase, d, f, b, flops=flops, bytes_source=bytes_source, details=details
        )
    if from_cycles:
        report.notes.append(
            f"durations of {len(from_cycles)} launches from elapsed cycles / clock ("
            + ", ".join(sorted(set(from_cycles)))
            + f"): the file has no {DURATION}"
        )
    if basis == "utilizations":
        report.notes.append(
            "phases given by utilizations: 'Compute (SM) Throughput' and 'DRAM Throughput' (% of the GPU's "
            "peaks); volumes = utilization × peak × duration"
        )
    if flops_seen:
        missing = [m for m in FLOP_METRICS if m not in flops_seen]
        report.notes.append(
            "FLOPs = add + mul + 2·fma instruction counts (computed from counters)"
            + (f"; not in the file: {', '.join(missing)}" if missing else "")
        )
    if bytes_seen:
        report.notes.append("bytes from " + "; ".join(" + ".join(u) for u in sorted(bytes_seen)))
    if group_by == "kernel":
        by_level = _levels_by_kernel(by_level, launches)
        names, durations, ops, volumes, cutil, mutil = _by_kernel(
            report, names, durations, ops, volumes, cutil, mutil, launches
        )
    if len(set(names)) != len(names):
        dup = Counter(names).most_common(1)[0][0]
        raise error(name, f"two kernel launches are both named {dup!r} (duplicate ID?)", field="column 'ID'")
    if basis == "utilizations":
        report.machine_source = (machine.name or "given") if machine is not None else "none: unit peaks"
        return _build(name, names, report, machine, duration=durations, compute_util=cutil, memory_util=mutil)
    if machine is None:
        machine = _machine(name, launches, precision, report)
    else:
        report.machine_source = machine.name or "given"
    level_bytes = _nearer_level_bytes(machine, by_level)
    if level_bytes:
        report.notes.append(
            "bytes per memory level from l1tex__t_bytes.sum (L1) and lts__t_bytes.sum (L2), DRAM as above"
        )
    return _build(name, names, report, machine, duration=durations, ops=ops, bytes=volumes, level_bytes=level_bytes)


def _build(name, names, report, machine, **columns):
    try:
        w = Workload.from_arrays(names, after=chain(list(names)), machine=machine, **columns)
    except WorkloadError as e:
        raise WorkloadFileError(str(e), path=name) from e
    a = w.arrays
    for i, p in enumerate(report.phases):  # phases given by utilizations: the volumes they stand for
        if math.isnan(p.ops):
            p.ops, p.bytes = float(a.ops[i]), float(a.bytes[i])
    return w.with_import_report(report)


def _has_counters(name, launch, require) -> bool:
    return ("flops" not in require or bool(_flops(name, launch)[1])) and (
        "bytes" not in require or _bytes(name, launch)[1] is not None
    )


def _duration(name, launch) -> tuple[float, str]:
    """The launch's duration in seconds, and the metric(s) it comes from."""
    d = metric_value(name, launch, DURATION, "duration")
    how = DURATION
    if d is None:
        for cycles_metric, clock_metric in CYCLE_PAIRS:
            cycles = metric_value(name, launch, cycles_metric, "elapsed cycles")
            clock = metric_value(name, launch, clock_metric, "clock")
            if cycles is not None and clock is not None:
                how = f"{launch.label(cycles_metric)} / {launch.label(clock_metric)}"
                if not clock > 0:
                    raise error(
                        name,
                        f"kernel launch ID {launch.id}: the clock is {clock:g} Hz; it must be > 0",
                        line=launch.metrics[clock_metric][2],
                        field=f"metric {launch.label(clock_metric)!r}",
                    )
                d = cycles / clock
                break
    if d is None:
        raise error(
            name,
            f"kernel launch ID {launch.id} ({_short(launch.kernel)}) has no duration: neither {DURATION} "
            "(Duration) nor elapsed cycles with their clock (gpc__cycles_elapsed.max with "
            "gpc__cycles_elapsed.avg.per_second, or the sm__ / smsp__ ones)",
            line=launch.line,
            field=f"metric {DURATION!r}",
        )
    if not SMALLEST <= d <= LARGEST:
        metric = DURATION if how == DURATION else cycles_metric
        raise error(
            name,
            f"kernel launch ID {launch.id} ({_short(launch.kernel)}): a duration of {d:g} s (from {how}); "
            "a kernel's duration must be > 0",
            line=launch.metrics[metric][2],
            field=f"metric {launch.label(metric)!r}",
        )
    return d, how


def _utilizations(name, launch):
    """(compute, DRAM, busiest memory unit) fractions of peak, or None without compute and DRAM."""
    values = []
    for metric in (COMPUTE_UTIL, DRAM_UTIL, MEMORY_UTIL):
        value = metric_value(name, launch, metric, "utilization")
        for other in ALTERNATIVES.get(metric, ()):
            if value is None:
                value = metric_value(name, launch, other, "utilization")
        if value is not None and not 0 <= value <= 1e4:
            raise error(
                name,
                f"{value:g}% is not a utilization (0 to 100%, a little above when counters disagree)",
                line=launch.metrics[metric][2] if metric in launch.metrics else launch.line,
                field=f"metric {launch.label(metric)!r}",
            )
        values.append(None if value is None else value / 100)
    if values[0] is None or values[1] is None:
        return None
    return values[0], values[1], values[2]


def _level_bytes(name, launch) -> dict:
    levels = {}
    for level, metrics in LEVEL_BYTES:
        values = [metric_value(name, launch, m, "bytes") for m in metrics]
        if all(v is not None for v in values):
            levels[level] = sum(values)
    b, used = _bytes(name, launch)
    if used is not None:
        levels["DRAM"] = b
    return levels


def _levels_by_kernel(by_level: list[dict], launches) -> list[dict]:
    """Per kernel name, in first-launch order: each level's bytes summed over its launches (a level
    missing from any launch is unknown for the kernel)."""
    sums: dict[str, dict] = {}
    for launch, levels in zip(launches, by_level):
        kernel = _short(launch.kernel)
        if kernel not in sums:
            sums[kernel] = dict(levels)
        else:
            known = sums[kernel]
            sums[kernel] = {k: known[k] + levels[k] for k in known if k in levels}
    return list(sums.values())


def _nearer_level_bytes(machine: Machine, by_level: list[dict]) -> dict[str, list[float]]:
    """The file's L1/L2 bytes for the machine's nearer levels of those names (NaN: not counted)."""
    out = {}
    for level in machine.level_names[:-1]:
        values = [levels.get(level, math.nan) for levels in by_level]
        if any(not math.isnan(v) for v in values):
            out[level] = values
    return out


def _by_kernel(report, names, durations, ops, volumes, cutil, mutil, launches):
    """One phase per kernel name: durations and volumes summed, utilizations weighted by duration."""
    order: dict[str, int] = {}
    for launch in launches:
        order.setdefault(_short(launch.kernel), len(order))
    sums = {k: [0.0, 0.0, 0.0, 0, 0.0, 0.0] for k in order}
    for launch, d, f, b, u_c, u_m in zip(launches, durations, ops, volumes, cutil, mutil):
        s = sums[_short(launch.kernel)]
        s[0] += d
        s[1] += f
        s[2] += b
        s[3] += 1
        s[4] += u_c * d
        s[5] += u_m * d
    phases = []
    for k in order:
        members = [p for p, launch in zip(report.phases, launches) if _short(launch.kernel) == k]
        phases.append(
            PhaseReport(
                name=k,
                duration=sums[k][0],
                ops=sums[k][1],
                bytes=sums[k][2],
                flops=members[0].flops,
                bytes_source=members[0].bytes_source,
                events=sums[k][3],
                details={"launches": [p.details["id"] for p in members]},
            )
        )
    report.phases = phases
    columns = [[sums[k][j] for k in order] for j in range(3)]
    utils = [[sums[k][j] / sums[k][0] for k in order] for j in (4, 5)]
    return list(order), *columns, *utils


def _flops(name, launch):
    total, present = 0.0, set()
    for metric in FLOP_METRICS:
        value = metric_value(name, launch, metric)
        if value is None:
            value = metric_value(name, launch, metric.replace("sm__", "smsp__", 1))
        if value is None:
            continue
        present.add(metric)
        total += 2 * value if metric.endswith("fma_pred_on.sum") else value
    return total, present


def _bytes(name, launch):
    for metrics in BYTES_METRICS:
        values = [metric_value(name, launch, m, "bytes") for m in metrics]
        if all(v is not None for v in values):
            return sum(values), metrics
    return 0.0, None


def _machine(name, launches, precision, report) -> Machine:
    for launch in launches:
        fma = metric_value(name, launch, PEAK_FMA[precision])
        sm_clock = metric_value(name, launch, SM_CLOCK)
        dram = metric_value(name, launch, DRAM_PEAK)
        dram_clock = metric_value(name, launch, DRAM_CLOCK)
        if None not in (fma, sm_clock, dram, dram_clock):
            compute = fma * 2 * sm_clock
            bandwidth = dram * dram_clock
            report.machine_source = (
                f"from the file (launch ID {launch.id}): {PEAK_FMA[precision]} × 2 × {SM_CLOCK} "
                f"= {compute:.4g} FLOP/s; {DRAM_PEAK} × {DRAM_CLOCK} = {bandwidth:.4g} B/s"
            )
            levels = {}
            for level, peak, clock in LEVEL_PEAKS:
                per_cycle, per_second = metric_value(name, launch, peak), metric_value(name, launch, clock)
                if per_cycle is not None and per_second is not None:
                    levels[level] = per_cycle * per_second
            if levels:
                report.machine_source += "; " + ", ".join(f"{k} {v:.4g} B/s" for k, v in levels.items())
            return Machine(
                peak_compute=compute,
                levels={**levels, "DRAM": bandwidth},
                name=f"ncu roofline peaks ({precision}, {_short(launch.kernel)} #{launch.id})",
            )
    missing = [
        m
        for m in (PEAK_FMA[precision], SM_CLOCK, DRAM_PEAK, DRAM_CLOCK)
        if all(m not in launch.metrics for launch in launches)
    ]
    devices = sorted({launch.device for launch in launches if launch.device})
    raise error(
        name,
        "no machine: pass machine=, or profile with the roofline metrics (ncu --set full or "
        f"--section SpeedOfLight_RooflineChart, --page raw); missing: {', '.join(missing)}"
        + (f" (the file's GPU: compute capability {clip_text(', '.join(devices), 40)})" if devices else ""),
        field=f"metric {missing[0]!r}" if missing else None,
    )


_ARGS = re.compile(r"\((?:[^()]|\([^()]*\))*\)\s*$")


def _short(kernel: str) -> str:
    """``void ns::fused_kernel<float, 4>(Args...)`` → ``fused_kernel``."""
    k = kernel.strip()[:2000]  # the regex below is quadratic in the worst case: bound its input
    for _ in range(3):
        stripped = _ARGS.sub("", k).strip()
        if stripped == k:
            break
        k = stripped
    return (function_name(k, "<") or kernel.strip())[:200]


# -- the format registry -----------------------------------------------------------------------------------


def sniff(source: Source) -> bool:
    for line in head_text(source, 65536).splitlines():
        if line.startswith('"ID",') and '"Kernel Name"' in line:
            return True
        if line.startswith(("==PROF==", "==ERROR==")):  # ncu's own lines: a log, with or without a table
            return True
    return source.raw[:2] != GZIP_MAGIC and b'\n"ID","Process ID",' in source.raw  # after long program output


def read(source: Source, *, machine=None, percent=False, **options):
    return read_nsight_csv(source, machine=machine, percent=percent, **options)
