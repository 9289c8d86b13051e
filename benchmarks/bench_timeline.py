"""Time and memory of the trace importer's timeline mode on a synthetic trace of N events.

    python benchmarks/bench_timeline.py                 # 10^6 events (writes a ~130 MB trace to a temp dir)
    python benchmarks/bench_timeline.py --events 200000
    python benchmarks/bench_timeline.py --no-memory     # times without tracemalloc

The trace: N complete ``cpu_op`` events, back to back on 2 threads (so they overlap across threads), 8
operator names, plus one ``ProfilerStep#k`` annotation per 10,000 events. Reports the file size, the
wall and CPU seconds of ``read_torch_trace(..., timeline=True)``, the peak memory Python allocated
while reading (tracemalloc: numpy arrays included), that peak per kept event, and the time to build
the diagram's scene from the timeline and to cut it into steps.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

from campaign_widget import Machine
from campaign_widget.figures.scene import SceneTooLargeError, build_scene
from campaign_widget.io import SkippedEventsWarning, read_torch_trace

NAMES = [f"aten::op{k}" for k in range(8)]


def write_trace(path: Path, n: int) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"schemaVersion": 1, "traceEvents": [\n')
        per_thread = [0.0, 0.5]
        first = True
        for i in range(n):
            tid = i % 2
            dur = 3.0 + (i % 7)
            ev = {
                "ph": "X",
                "cat": "cpu_op",
                "name": NAMES[i % 8],
                "pid": 1,
                "tid": tid,
                "ts": per_thread[tid],
                "dur": dur,
                "args": {"External id": i},
            }
            per_thread[tid] += dur + 1.0
            f.write(("" if first else ",\n") + json.dumps(ev))
            first = False
        step, t = 0, 0.0
        end = max(per_thread)
        while t < end:
            span = min(10_000 * 5.0, end - t)
            f.write(
                ",\n"
                + json.dumps(
                    {
                        "ph": "X",
                        "cat": "user_annotation",
                        "name": f"ProfilerStep#{step}",
                        "pid": 1,
                        "tid": 0,
                        "ts": t,
                        "dur": span,
                    }
                )
            )
            t += span
            step += 1
        f.write("\n]}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--no-memory", action="store_true", help="time without tracemalloc (which slows the reading)")
    args = parser.parse_args()
    machine = Machine(peak_compute=1e11, peak_bandwidth=2e10, name="bench")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "trace.json"
        started = time.perf_counter()
        write_trace(path, args.events)
        print(
            f"wrote {args.events:,} events: {path.stat().st_size / 1e6:.0f} MB in {time.perf_counter() - started:.1f} s"
        )
        if not args.no_memory:
            tracemalloc.start()
        wall, cpu = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SkippedEventsWarning)
            t = read_torch_trace(path, machine=machine, timeline=True, progress=False)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        peak = tracemalloc.get_traced_memory()[1] if not args.no_memory else None
        tracemalloc.stop()
        print(
            f"timeline import: {len(t):,} intervals on {len(t.lane_names)} lanes, {len(t.workload)} phases, "
            f"{len(t.band_start)} bands; {wall:.1f} s wall, {cpu:.1f} s CPU"
        )
        if peak is not None:
            print(
                f"peak memory while reading: {peak / 1e6:.0f} MB = {peak / len(t):.0f} bytes per kept event "
                f"(file: {path.stat().st_size / len(t):.0f} bytes per event)"
            )
        started = time.perf_counter()
        try:
            scene = build_scene(t)
            print(f"scene: {len(scene):,} pieces in {time.perf_counter() - started:.2f} s")
        except SceneTooLargeError as e:
            print(f"scene: too large ({e})")
        started = time.perf_counter()
        steps = t.cut()
        print(f"cut into {len(steps)} steps in {time.perf_counter() - started:.2f} s; shares {t.shares()}")


if __name__ == "__main__":
    main()
