"""An Nsight Compute CSV's table read into kernel launches: both layouts ncu writes (``--page details``,
long; ``--page raw``, wide, with a units row), after any lines the profiled program printed, each metric's
value in base units (``unit_scale``)."""

from __future__ import annotations

import csv
import io

from ..errors import WorkloadError, short_repr
from ._common import error, parse_number

DURATION = "gpu__time_duration.sum"
COMPUTE_UTIL = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
DRAM_UTIL = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
MEMORY_UTIL = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
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


class Launch:
    __slots__ = ("id", "kernel", "labels", "line", "metrics", "device")

    def __init__(self, launch_id, kernel, line, device=""):
        self.id, self.kernel, self.line, self.device = launch_id, kernel, line, device
        self.metrics: dict[str, tuple[str, str, int]] = {}  # name → (unit, value text, line)
        self.labels: dict[str, str] = {}  # metric name → the file's own label, where it differs

    def label(self, metric: str) -> str:
        return self.labels.get(metric, metric)


def parse_table(name: str, text: str):
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
                + ("; it said: " + " / ".join(clip_text(ln, 120) for ln in said[:3]) if said else "")
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
            f"{clip(first)}",
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
            f"unknown CSV layout: no 'Kernel Name' column; columns: {clip(', '.join(header[:12]))}",
            line=header_line,
            field="column 'Kernel Name'",
        )
    if "Metric Name" in col:
        for c in LONG_COLUMNS:
            if c not in col:
                raise error(
                    name,
                    f"unknown CSV layout: a details (long) page needs column {c!r}; columns: {clip(', '.join(header))}",
                    line=header_line,
                    field=f"column {c!r}",
                )
        launches: dict[str, Launch] = {}
        section = col.get("Section Name")
        for line, row in parsed[1:]:
            if len(row) <= max(col[c] for c in LONG_COLUMNS):
                raise error(name, f"the row has {len(row)} fields; the header has {len(header)}", line=line)
            launch_id = row[col["ID"]].strip()
            launch = launches.get(launch_id)
            if launch is None:
                device = row[col["CC"]].strip() if "CC" in col else ""
                launch = launches[launch_id] = Launch(launch_id, row[col["Kernel Name"]], line, device)
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
            f"such as {DURATION!r} (--page raw); columns: {clip(', '.join(header[:12]))}",
            line=header_line,
            field="header",
        )
    if len(parsed) < 2:
        raise error(name, "a raw page needs a units row under the header", line=header_line)
    units_line, units = parsed[1]
    if units and units[col["ID"]].strip() not in ("",):
        raise error(
            name,
            f"a raw page has a units row (first cell empty) under the header; found {clip(units[:3])}",
            line=units_line,
            field="units row",
        )
    launches_list = []
    for line, row in parsed[2:]:
        if len(row) != len(header):
            raise error(name, f"the row has {len(row)} fields; the header has {len(header)}", line=line)
        launch = Launch(row[col["ID"]].strip(), row[col["Kernel Name"]], line)
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


def metric_value(name: str, launch: Launch, metric: str, what: str | None = None):
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


def clip(value) -> str:
    return short_repr(value)


def clip_text(text: str, width: int = 160) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
