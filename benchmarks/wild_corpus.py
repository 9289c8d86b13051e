"""Load every file under a folder the way a new user would, and check the totals against the file's own.

    PYTHONPATH=$PWD python benchmarks/wild_corpus.py DIR [--machine NAME] [--param NAME=VALUE ...] [--size N]

For each file (recursively; ``*.md`` skipped) it prints one line:

    format | outcome | what had to be given | totals: ours vs the file's own | seconds

The loader first gets nothing but the path. When the reader's error asks for a machine (``field`` is
``machine``, or the message says ``machine=``), it is retried with ``--machine`` (default ``h100-sxm``); when
an SDFG has symbols without values, with ``--param`` values and, for symbols not given, ``--size``
(default 32). "Totals" compare the workload's summed phase durations with what the file itself says,
computed here independently of the readers: the summed ``dur`` of a trace's GPU kernel events, the summed
kernel durations of an Nsight Compute export (``gpu__time_duration.sum`` or ``Duration``, else elapsed
cycles / clock), the ``Cycles:`` of a Timeloop stats file. SDFGs state no time of their own: their line
gives the workload's ops and bytes. Seconds are wall time of the load (the machine may be shared).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import re
import sys
import time
import warnings
from pathlib import Path

from campaign_widget.errors import CampaignWidgetError
from campaign_widget.formatting import plural
from campaign_widget.io import detect, load
from campaign_widget.io.sdfg import extract_sdfg

KERNEL_CATEGORIES = {"kernel", "Kernel", "gpu_memcpy", "gpu_memset", "Memcpy", "Memset"}
CYCLE_PAIRS = (
    ("gpc__cycles_elapsed.max", "gpc__cycles_elapsed.avg.per_second"),
    ("sm__cycles_elapsed.max", "sm__cycles_elapsed.avg.per_second"),
    ("sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second"),
    ("smsp__cycles_elapsed.avg", "smsp__cycles_elapsed.avg.per_second"),
    ("Elapsed Cycles", "SM Frequency"),
)
_TIME = {"nsecond": 1e-9, "ns": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3, "second": 1.0}
_HZ = {"hz": 1.0, "cycle/second": 1.0, "cycle/nsecond": 1e9, "cycle/usecond": 1e6, "Ghz": 1e9, "Mhz": 1e6}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Load every workload file under DIR; one line per file.")
    parser.add_argument("folder", metavar="DIR")
    parser.add_argument("--machine", default="h100-sxm", help="preset for files that need one (default h100-sxm)")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="an SDFG symbol's value")
    parser.add_argument("--size", type=int, default=32, help="value of SDFG symbols not given by --param")
    args = parser.parse_args(argv)
    params = {}
    for item in args.param:
        key, _, value = item.partition("=")
        params[key.strip()] = int(value)
    files = sorted(p for p in Path(args.folder).rglob("*") if p.is_file() and p.suffix != ".md")
    loaded = 0
    for path in files:
        line, ok = one(path, args.machine, params, args.size)
        loaded += ok
        print(f"{path.relative_to(args.folder)}: {line}", flush=True)
    print(f"{loaded} of {len(files)} files loaded")
    return 0


def one(path: Path, machine: str, params: dict, size: int) -> tuple[str, bool]:
    try:
        fmt = detect(path).name
    except (CampaignWidgetError, OSError) as e:
        fmt = "?"
        detect_error = _clip(e)
    else:
        detect_error = None
    given: dict = {}
    start = time.perf_counter()
    outcome, workload = "", None
    if detect_error is None:
        for _ in range(3):  # nothing; then what the error asks for (a machine, SDFG sizes)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    workload = load(path, **given)
                break
            except CampaignWidgetError as e:
                asks = _asks_for(e, path, given, machine, params, size)
                if not asks:
                    outcome = "refused: " + _clip(e)
                    break
                given.update(asks)
            except Exception as e:  # noqa: BLE001 - a crash is what this script exists to find
                outcome = f"CRASH {type(e).__name__}: {_clip(e)}"
                break
    else:
        outcome = "refused: " + detect_error
    seconds = time.perf_counter() - start
    if workload is not None:
        workload = getattr(workload, "workload", workload)
        outcome = f"loaded, {plural(len(workload), 'phase')}"
    gave = ", ".join(f"{k}={_show(v)}" for k, v in given.items()) or "nothing"
    totals = _totals(path, fmt, workload)
    return f"{fmt} | {outcome} | gave {gave} | {totals} | {seconds:.2f} s", workload is not None


def _asks_for(error, path, given, machine, params, size) -> dict:
    text = str(error)
    field = getattr(error, "field", None)
    if "machine" not in given and (field == "machine" or "machine=" in text):
        return {"machine": machine}
    if "params" not in given and field == "params":
        try:
            symbols = extract_sdfg(path).parameters
        except CampaignWidgetError:
            return {}
        return {"params": {s: params.get(s, size) for s in symbols}}
    return {}


def _totals(path: Path, fmt: str, workload) -> str:
    try:
        own = _own_total(path, fmt)
    except Exception as e:  # noqa: BLE001 - the file's own numbers are best effort
        own = None
        why = f"({type(e).__name__})"
    else:
        why = ""
    if workload is None:
        return f"file's own: {_fmt(own)}" if own is not None else "—"
    a = workload.arrays
    ours = float(a.duration.sum())
    unit = workload.machine.time_unit
    if fmt == "dace-sdfg":
        return f"ops {float(a.ops.sum()):.4g}, bytes {float(a.bytes.sum()):.4g} (no time of its own)"
    if own is None:
        return f"ours {ours:.6g} {unit}; file's own: unknown {why}".rstrip()
    value, own_unit = own
    if fmt == "timeloop-stats" and unit not in ("cycle", "cycles"):
        clocks = {p.details.get("clock") for p in workload.import_report.phases}
        if len(clocks) == 1 and None not in clocks:  # durations back in cycles, at the clock they were read with
            ours, unit = ours * clocks.pop(), "cycles"
    rel = abs(ours - value) / value if value else abs(ours)
    verdict = "equal" if rel <= 1e-9 else f"differ by {100 * rel:.3g}%"
    return f"ours {ours:.6g} {unit} vs file {value:.6g} {own_unit}: {verdict}"


def _own_total(path: Path, fmt: str):
    if fmt == "pytorch-trace":
        raw = path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        events = json.loads(raw)
        events = events.get("traceEvents", []) if isinstance(events, dict) else events
        total = sum(e.get("dur", 0) for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "Kernel"))
        return total * 1e-6, "s (GPU kernel events)"
    if fmt == "timeloop-stats":
        cycles = re.findall(r"^Cycles:\s*([0-9.eE+]+)\s*$", path.read_text(), flags=re.M)
        return (sum(float(c) for c in cycles), "cycles") if cycles else None
    if fmt == "nsight-compute-csv":
        return _ncu_total(path.read_text(errors="replace"))
    return None


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _ncu_total(text: str):
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith('"ID",')), None)
    if start is None:
        return None
    rows = list(csv.reader(io.StringIO("\n".join(ln for ln in lines[start:] if not ln.startswith("==")))))
    header = rows[0]
    metrics: dict = {}
    if "Metric Name" in header:
        c = {h: j for j, h in enumerate(header)}
        for row in rows[1:]:
            if len(row) > c["Metric Value"]:
                m = metrics.setdefault(row[c["ID"]], {})
                m.setdefault(row[c["Metric Name"]], (row[c["Metric Unit"]], row[c["Metric Value"]]))
    else:
        units = rows[1]
        for row in rows[2:]:
            metrics[row[0]] = {h: (units[j], row[j]) for j, h in enumerate(header)}
    total = 0.0
    for m in metrics.values():
        for key in ("gpu__time_duration.sum", "Duration"):
            if key in m:
                unit, value = m[key]
                total += _number(value) * _TIME[unit]
                break
        else:
            for cycles, clock in CYCLE_PAIRS:
                if cycles in m and clock in m:
                    total += _number(m[cycles][1]) / (_number(m[clock][1]) * _HZ.get(m[clock][0], 1.0))
                    break
            else:
                return None
    return total, "s (kernel durations)"


def _fmt(own) -> str:
    return f"{own[0]:.6g} {own[1]}"


def _show(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {v}" for k, v in value.items()) + "}"
    return str(value)


def _clip(error, width: int = 160) -> str:
    text = " ".join(str(error).split())
    return text if len(text) <= width else text[: width - 1] + "…"


if __name__ == "__main__":
    sys.exit(main())
