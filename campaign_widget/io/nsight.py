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
  default ``--page details`` export holds. Such phases are given by utilizations (design.md §1): with no
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
import io
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
    parse_number,
    read_text,
    record_phase,
    source_of,
)
from .registry import preset_or_machine
from .source import Source

FORMAT = "nsight-compute-csv"
DURATION = "gpu__time_duration.sum"
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
COMPUTE_UTIL = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
DRAM_UTIL = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
MEMORY_UTIL = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
LEVEL_BYTES = (("L1", ("l1tex__t_bytes.sum",)), ("L2", ("lts__t_bytes.sum",)))
# the hierarchical roofline's roofs, as ncu computes them: bytes per cycle at peak × cycles per second
LEVEL_PEAKS = (
    ("L1", "l1tex__t_bytes.sum.peak_sustained", "l1tex__cycles_elapsed.avg.per_second"),
    ("L2", "lts__t_bytes.sum.peak_sustained", "lts__cycles_elapsed.avg.per_second"),
)
# the details page's Speed Of Light rows and the metrics they show (labels of several ncu versions)
SPEED_OF_LIGHT = {
    "Duration": DURATION,
    "Elapsed Cycles": "gpc__cycles_elapsed.max",
    "SM Frequency": "gpc__cycles_elapsed.avg.per_second",
    "Compute (SM) Throughput": COMPUTE_UTIL,
    "Compute (SM) [%]": COMPUTE_UTIL,
    "SM [%]": COMPUTE_UTIL,
    "DRAM Throughput": DRAM_UTIL,
    "DRAM [%]": DRAM_UTIL,
    "Memory Throughput": MEMORY_UTIL,
    "Memory [%]": MEMORY_UTIL,
}
ALTERNATIVES = {DRAM_UTIL: ("dram__throughput.avg.pct_of_peak_sustained_elapsed",)}
BASES = ("counters", "utilizations")
LONG_COLUMNS = ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value")
IDENTITY_COLUMNS = (
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "Section Name",
    "Rule Name",
    "Rule Type",
    "Rule Description",
    "Estimated Speedup Type",
    "Estimated Speedup",
)
REQUIRE_ALL = ("duration", "flops", "bytes")
MAX_CHARS = 256 << 20

_TIME = {
    "nsecond": 1e-9,
    "ns": 1e-9,
    "usecond": 1e-6,
    "us": 1e-6,
    "µs": 1e-6,
    "msecond": 1e-3,
    "ms": 1e-3,
    "second": 1.0,
    "s": 1.0,
    "sec": 1.0,
}
_PREFIX = {"": 1.0, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BINARY = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
_COUNTS = ("byte", "inst", "cycle", "warp", "sector", "request", "op", "flop", "thread", "instruction", "")


def unit_scale(unit: str) -> float:
    """The factor from a value in ncu's ``unit`` to base units (bytes, instructions, cycles, seconds).

    ``"Kbyte"`` → 1e3, ``"usecond"`` → 1e-6, ``"cycle/nsecond"`` → 1e9, ``"byte/cycle"`` → 1.
    Raises ``WorkloadError`` (a ``ValueError``) for a unit it does not know.
    """
    unit = unit.strip()
    if len(unit) > 40 or unit.count("/") > 1:
        raise WorkloadError(f"unknown unit {short_repr(unit)}")
    if "/" in unit:
        num, den = unit.split("/", 1)
        return unit_scale(num) / unit_scale(den)
    if unit in _TIME:
        return _TIME[unit]
    if unit in _BINARY:
        return float(_BINARY[unit])
    if unit.lower() in ("hz", "khz", "mhz", "ghz"):  # ncu writes "hz" on the details page
        return {"hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9}[unit.lower()]
    if unit in ("B", "KB", "MB", "GB", "TB"):
        return _PREFIX[unit[:-1]]
    for base in _COUNTS:
        if base and unit.endswith(base) and unit[: -len(base)] in _PREFIX:
            return _PREFIX[unit[: -len(base)]]
        if base and unit.endswith(base + "s") and unit[: -len(base) - 1] in _PREFIX:
            return _PREFIX[unit[: -len(base) - 1]]
    if unit in ("", "%"):
        return 1.0
    raise WorkloadError(f"unknown unit {short_repr(unit)}")


class _Launch:
    __slots__ = ("id", "kernel", "labels", "line", "metrics", "device")

    def __init__(self, launch_id, kernel, line, device=""):
        self.id, self.kernel, self.line, self.device = launch_id, kernel, line, device
        self.metrics: dict[str, tuple[str, str, int]] = {}  # name → (unit, value text, line)
        self.labels: dict[str, str] = {}  # metric name → the file's own label, where it differs

    def label(self, metric: str) -> str:
        return self.labels.get(metric, metric)


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
        launches, layout = _parse(name, text)
    except csv.Error as e:  # e.g. a cell over csv.field_size_limit() (131,072 characters)
        raise error(name, f"malformed CSV: {str(e)[:200]}") from None
    report = ImportReport(path=name, format=FORMAT)
    report.notes.append(f"layout: {layout}")
    for launch in launches:
        if len(launch.id) > 100:
            raise error(
                name,
                f"launch ID {_clip(launch.id)} is {len(launch.id):,} characters long (at most 100)",
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
    d = _value(name, launch, DURATION, "duration")
    how = DURATION
    if d is None:
        for cycles_metric, clock_metric in CYCLE_PAIRS:
            cycles = _value(name, launch, cycles_metric, "elapsed cycles")
            clock = _value(name, launch, clock_metric, "clock")
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
        value = _value(name, launch, metric, "utilization")
        for other in ALTERNATIVES.get(metric, ()):
            if value is None:
                value = _value(name, launch, other, "utilization")
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
        values = [_value(name, launch, m, "bytes") for m in metrics]
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


def _parse(name: str, text: str):
    """The kernel launches of the file and its layout (``"details (long)"`` or ``"raw (wide)"``)."""
    lines = text.splitlines()
    header_at = None
    for i, line in enumerate(lines):
        if line.startswith('"ID",') or line.startswith("ID,"):
            header_at = i
            break
    if header_at is None:
        said = [ln.strip() for ln in lines if ln.startswith(("==ERROR==", "==WARNING=="))]
        if said or any(ln.startswith("==PROF==") for ln in lines):
            raise error(
                name,
                "an Nsight Compute log with no table of results: ncu ran but wrote no kernel metrics"
                + ("; it said: " + " / ".join(_clip_text(ln, 120) for ln in said[:3]) if said else "")
                + (
                    " (ERR_NVGPUCTRPERM: profile as a user allowed to read the GPU counters, see "
                    "https://developer.nvidia.com/ERR_NVGPUCTRPERM)"
                    if any("ERR_NVGPUCTRPERM" in ln for ln in said)
                    else ""
                ),
                line=next((i for i, ln in enumerate(lines, start=1) if ln.startswith("==ERROR==")), None),
            )
        first = next((ln for ln in lines if ln.strip() and not ln.startswith("==")), "")
        raise error(
            name,
            "not an Nsight Compute CSV layout this reader knows: no header line starting with "
            f'"ID" (ncu --csv writes "ID","Process ID",...,"Kernel Name",...); first line: '
            f"{_clip(first)}",
            line=1,
            field="header",
        )
    body = [
        (i + 1, ln) for i, ln in enumerate(lines[header_at:], start=header_at) if ln.strip() and not ln.startswith("==")
    ]
    rows = csv.reader(io.StringIO("\n".join(ln for _, ln in body)))
    parsed = [(body[k][0], row) for k, row in enumerate(rows)]
    header_line, header = parsed[0]
    header = [h.strip() for h in header]
    col = {}
    for j, h in enumerate(header):
        col.setdefault(h, j)
    if "Kernel Name" not in col:
        raise error(
            name,
            f"unknown CSV layout: no 'Kernel Name' column; columns: {_clip(', '.join(header[:12]))}",
            line=header_line,
            field="column 'Kernel Name'",
        )
    if "Metric Name" in col:
        for c in LONG_COLUMNS:
            if c not in col:
                raise error(
                    name,
                    f"unknown CSV layout: a details (long) page needs column {c!r}; columns: "
                    f"{_clip(', '.join(header))}",
                    line=header_line,
                    field=f"column {c!r}",
                )
        launches: dict[str, _Launch] = {}
        section = col.get("Section Name")
        for line, row in parsed[1:]:
            if len(row) <= max(col[c] for c in LONG_COLUMNS):
                raise error(name, f"the row has {len(row)} fields; the header has {len(header)}", line=line)
            launch_id = row[col["ID"]].strip()
            launch = launches.get(launch_id)
            if launch is None:
                device = row[col["CC"]].strip() if "CC" in col else ""
                launch = launches[launch_id] = _Launch(launch_id, row[col["Kernel Name"]], line, device)
            metric = row[col["Metric Name"]].strip()
            entry = (row[col["Metric Unit"]].strip(), row[col["Metric Value"]], line)
            if metric in SPEED_OF_LIGHT and section is not None and "Speed Of Light" in row[section]:
                canonical = SPEED_OF_LIGHT[metric]  # the details page's label for a metric
                if canonical not in launch.metrics:
                    launch.labels[canonical] = metric
                metric = canonical
            launch.metrics.setdefault(metric, entry)
        if not launches:
            raise error(name, "no kernel launches: the file has a header but no rows", line=header_line)
        return _sorted(list(launches.values())), "details (long)"
    metric_columns = [h for h in header if h not in IDENTITY_COLUMNS and "__" in h]
    if not metric_columns:
        raise error(
            name,
            "unknown CSV layout: neither a 'Metric Name' column (--page details) nor metric columns "
            f"such as {DURATION!r} (--page raw); columns: {_clip(', '.join(header[:12]))}",
            line=header_line,
            field="header",
        )
    if len(parsed) < 2:
        raise error(name, "a raw page needs a units row under the header", line=header_line)
    units_line, units = parsed[1]
    if units and units[col["ID"]].strip() not in ("",):
        raise error(
            name,
            f"a raw page has a units row (first cell empty) under the header; found {_clip(units[:3])}",
            line=units_line,
            field="units row",
        )
    launches_list = []
    for line, row in parsed[2:]:
        if len(row) != len(header):
            raise error(name, f"the row has {len(row)} fields; the header has {len(header)}", line=line)
        launch = _Launch(row[col["ID"]].strip(), row[col["Kernel Name"]], line)
        for metric in metric_columns:
            j = col[metric]
            launch.metrics[metric] = (units[j].strip() if j < len(units) else "", row[j], line)
        launches_list.append(launch)
    if not launches_list:
        raise error(name, "no kernel launches: the file has a header and units but no rows", line=units_line)
    return _sorted(launches_list), "raw (wide)"


def _sorted(launches):
    def key(launch):
        plain = launch.id.isascii() and launch.id.isdigit() and len(launch.id) <= 18  # int() takes any digit
        return (0, int(launch.id), "") if plain else (1, 0, launch.id)

    return sorted(launches, key=key)


def _value(name: str, launch: _Launch, metric: str, what: str | None = None):
    entry = launch.metrics.get(metric)
    if entry is None:
        return None
    unit, text, line = entry
    try:
        number = parse_number(text)
    except ValueError as e:
        raise error(name, str(e), line=line, field=f"metric {metric!r}") from None
    if number is None:
        return None
    try:
        return number * unit_scale(unit)
    except ValueError as e:
        raise error(name, f"{e} for {what or 'this metric'}", line=line, field=f"metric {metric!r}") from None


def _flops(name, launch):
    total, present = 0.0, set()
    for metric in FLOP_METRICS:
        value = _value(name, launch, metric)
        if value is None:
            value = _value(name, launch, metric.replace("sm__", "smsp__", 1))
        if value is None:
            continue
        present.add(metric)
        total += 2 * value if metric.endswith("fma_pred_on.sum") else value
    return total, present


def _bytes(name, launch):
    for metrics in BYTES_METRICS:
        values = [_value(name, launch, m, "bytes") for m in metrics]
        if all(v is not None for v in values):
            return sum(values), metrics
    return 0.0, None


def _machine(name, launches, precision, report) -> Machine:
    for launch in launches:
        fma = _value(name, launch, PEAK_FMA[precision])
        sm_clock = _value(name, launch, SM_CLOCK)
        dram = _value(name, launch, DRAM_PEAK)
        dram_clock = _value(name, launch, DRAM_CLOCK)
        if None not in (fma, sm_clock, dram, dram_clock):
            compute = fma * 2 * sm_clock
            bandwidth = dram * dram_clock
            report.machine_source = (
                f"from the file (launch ID {launch.id}): {PEAK_FMA[precision]} × 2 × {SM_CLOCK} "
                f"= {compute:.4g} FLOP/s; {DRAM_PEAK} × {DRAM_CLOCK} = {bandwidth:.4g} B/s"
            )
            levels = {}
            for level, peak, clock in LEVEL_PEAKS:
                per_cycle, per_second = _value(name, launch, peak), _value(name, launch, clock)
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
        + (f" (the file's GPU: compute capability {_clip_text(', '.join(devices), 40)})" if devices else ""),
        field=f"metric {missing[0]!r}" if missing else None,
    )


_ARGS = re.compile(r"\((?:[^()]|\([^()]*\))*\)\s*$")


def _clip(value) -> str:
    return short_repr(value)


def _clip_text(text: str, width: int = 160) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


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
