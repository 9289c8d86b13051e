"""Reader scaling (issue 9): CPU seconds of ``load`` at growing input sizes, and the hostile inputs.

    PYTHONPATH=$PWD python benchmarks/bench_readers.py

Each reader should scale linearly (or n log n): doubling the input should roughly double the time.
CPU time (time.process_time), not wall time: the machine is shared.
"""

import gzip
import json
import sys
import tempfile
import time
from pathlib import Path

from campaign_widget import Machine
from campaign_widget.io import WorkloadFileError, load, read_torch_trace

M = Machine(1e12, 1e11)
TMP = Path(tempfile.mkdtemp())


def cpu(f):
    start = time.process_time()
    try:
        f()
        outcome = "ok"
    except WorkloadFileError as e:
        outcome = "refused: " + str(e).split(": ", 1)[-1][:70]
    return time.process_time() - start, outcome


def einsum_csv(n):
    rows = ["Einsum,runtime,Compute_Utilization,Memory_Utilization,Starting_Time,End_Time"]
    rows += [f"e{i},1,0.5,0.5,{i},{i + 1}" for i in range(n)]
    path = TMP / f"seq{n}.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def waves_csv(n):
    rows = ["Einsum,runtime,Compute_Utilization,Memory_Utilization,Starting_Time,End_Time"]
    rows += [f"a{i},1,0.5,0.5,{i % 2},{10 + i % 2}" for i in range(n // 2)]
    rows += [f"b{i},1,0.5,0.5,{20 + i % 2},{30 + i % 2}" for i in range(n // 2)]
    path = TMP / f"waves{n}.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def annotated_trace(n):
    events = [{"ph": "X", "cat": "user_annotation", "name": "outer", "ts": 0, "dur": 10**9, "pid": 1, "tid": 1}]
    events += [
        {"ph": "X", "cat": "user_annotation", "name": f"s{i % 7}", "ts": 10 * i, "dur": 2, "pid": 1, "tid": 1}
        for i in range(n)
    ]
    events += [
        {"ph": "X", "cat": "cpu_op", "name": "op", "ts": 10 * i + 5, "dur": 1, "pid": 1, "tid": 1} for i in range(n)
    ]
    path = TMP / f"ann{n}.json"
    path.write_text(json.dumps({"traceEvents": events}))
    return path


def yaml_file(n):
    rows = ["format: campaign-workload", "machine: {peak_compute: 1.0e12, peak_bandwidth: 1.0e11}", "phases:"]
    rows += [f"- {{name: p{i}, ops: {i + 1}, bytes: 2}}" for i in range(n)]
    path = TMP / f"w{n}.yaml"
    path.write_text("\n".join(rows) + "\n")
    return path


def main():
    scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    print("scaling (CPU seconds; the ratio per doubling should stay near 2):")
    for label, make, sizes, run in [
        ("Einsum CSV, a sequence", einsum_csv, (25_000, 50_000, 100_000), lambda p: load(p, machine=M)),
        (
            "trace grouped by annotation",
            annotated_trace,
            (25_000, 50_000, 100_000),
            lambda p: read_torch_trace(p, machine=M, group_by="annotation", warn=False),
        ),
        ("our YAML", yaml_file, (5_000, 10_000, 20_000), load),
    ]:
        times = []
        for n in sizes:
            path = make(int(n * scale))
            seconds, outcome = cpu(lambda: run(path))
            times.append(seconds)
            print(
                f"  {label:30s} n={int(n * scale):>7,}  {path.stat().st_size / 1e6:7.2f} MB  {seconds:6.2f} s  {outcome}"
            )
        print(f"  {'':30s} ratios: " + ", ".join(f"{b / a:.2f}" for a, b in zip(times, times[1:]) if a > 0))
    print("hostile inputs:")
    bomb = TMP / "bomb.yaml"
    rows = ["- &a0 [x, x, x, x, x, x, x, x, x]"] + [
        f"- &a{k} [" + ", ".join([f"*a{k - 1}"] * 9) + "]" for k in range(1, 9)
    ]
    bomb.write_text("format: campaign-workload\nphases:\n" + "\n".join(rows) + "\n")
    blank = TMP / "blank.json.gz"
    blank.write_bytes(gzip.compress(b" " * (200 << 20)))
    big_event = TMP / "event.json"
    big_event.write_text(
        '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "ts": 0, "dur": 1, "args": '
        '{"x": "' + "a" * (40 << 20) + '"}}]}'
    )
    deep = TMP / "deep.yaml"
    deep.write_text("format: campaign-workload\nphases: " + "[" * 100_000 + "]" * 100_000 + "\n")
    for label, f in [
        ("465-byte YAML alias bomb", lambda: load(bomb)),
        ("/dev/zero", lambda: load("/dev/zero")),
        ("gzip of 200 MB of blanks", lambda: load(blank, machine=M, format="pytorch-trace")),
        ("one 40 MB trace event", lambda: load(big_event, machine=M)),
        ("YAML nested 100,000 deep", lambda: load(deep)),
        ("Einsum CSV in 2 waves of 1,500", lambda: load(waves_csv(3000), machine=M)),
    ]:
        seconds, outcome = cpu(f)
        print(f"  {label:32s} {seconds:6.2f} s  {outcome}")


if __name__ == "__main__":
    main()
