"""Time the model, schedule, scene and widget sync for growing workloads.

    python benchmarks/bench_model.py            # 10^2 … 10^5 phases, and the 1,000 × 1,000 pipeline
    python benchmarks/bench_model.py --quick    # skip the largest cases
    python benchmarks/bench_model.py --engine   # only the engine: 1,000 × 1,000 for every policy, with
                                                # two resources and then four (compute, L1, L2, DRAM)
    python benchmarks/bench_model.py --engine --before   # … and the pre-issue-12 engine beside it

The engine table (issue 12: 10^6 tiles in <= 1 s for every policy) schedules a pipelined chain of
1,000 phases × 1,000 tiles with each policy: wall seconds (best of --repeat) and CPU seconds of
that run (on this shared 2-core machine the wall time grows with other people's load; the CPU time
is what a quiet machine would show), tile intervals, timeline edges, the makespan, and the time to
build the diagram's scene (or its piece count when above the scene's limit). ``--before`` times
the previous engine, kept as the test oracle in tests/schedule_reference.py, once per policy
(``throttle`` only where its per-piece output fits in memory).

Each line: phases, tiles, what was run, seconds for each stage (best of --repeat runs), and the
bytes the widget syncs to the view (binary buffers plus JSON state).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from campaign_widget import Machine, Workload
from campaign_widget.figures.scene import SceneTooLargeError, build_scene


def chain(n: int, seed: int = 0, levels: int = 1) -> Workload:
    """A random n-phase chain; ``levels`` memory levels (1: two resources, 3: four with compute)."""
    rng = np.random.default_rng(seed)
    names = [f"phase {i}" for i in range(n)]
    dram = rng.uniform(1e8, 1e11, n)
    if levels == 1:
        machine, near = Machine(peak_compute=51.2e12, peak_bandwidth=3.35e12), None
    else:
        bandwidths = {f"L{k + 1}": 3.35e12 * 4 ** (levels - 1 - k) for k in range(levels - 1)} | {"DRAM": 3.35e12}
        machine = Machine(peak_compute=51.2e12, levels=bandwidths)
        near = {f"L{k + 1}": dram * rng.uniform(1, 4 ** (levels - 1 - k), n) for k in range(levels - 1)}
    return Workload.from_arrays(
        names,
        ops=rng.uniform(1e9, 1e12, n),
        bytes=dram,
        after=[()] + [(names[i - 1],) for i in range(1, n)],
        machine=machine,
        level_bytes=near,
    )


def best(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def synced_bytes(widget) -> int:
    from ipywidgets.widgets.widget import _remove_buffers

    state, _, buffers = _remove_buffers(widget.get_state())
    state.pop("_esm", None)
    return len(json.dumps(state)) + sum(len(b) for b in buffers)


def run_sizes(sizes, repeat):
    from campaign_widget import CampaignDiagram

    print(
        f"{'phases':>8} {'workload s':>11} {'schedule s':>11} {'scene s':>9} {'widget s':>9} {'synced MB':>10} "
        f"{'slider step s':>14}"
    )
    for n in sizes:
        t_work, w = best(lambda: chain(n), repeat)
        t_sched, s = best(lambda: w.schedule(), repeat)
        t_scene, _ = best(lambda: build_scene(s), repeat)
        t_widget, widget = best(lambda: _widget_and_state(CampaignDiagram, w), repeat)
        t_step, _ = best(lambda: _slider_step(widget), repeat)
        print(
            f"{n:>8} {t_work:>11.4f} {t_sched:>11.4f} {t_scene:>9.4f} {t_widget:>9.4f} "
            f"{synced_bytes(widget) / 1e6:>10.3f} {t_step:>14.4f}",
            flush=True,
        )


def _slider_step(widget):
    """What one slider event costs the kernel: recompute the model and serialize the changed state."""
    widget.peak_bandwidth = widget.peak_bandwidth * 1.01


def _widget_and_state(cls, workload):
    from ipywidgets.widgets.widget import _remove_buffers

    widget = cls(workload)
    _remove_buffers(widget.get_state())  # what ipywidgets does before sending
    return widget


def run_pipelines(cases, repeat):
    print(
        f"\n{'phases':>8} {'tiles':>7} {'intervals':>10} {'policy':>16} {'schedule s':>11} {'scene s':>9} {'makespan':>12}"
    )
    for n, tiles, policy in cases:
        w = chain(n)
        t_sched, s = best(lambda: w.schedule(tiles=tiles, pipeline=True, policy=policy), repeat)
        try:
            t_scene, _ = best(lambda: build_scene(s), 1)
            scene = f"{t_scene:>9.3f}"
        except SceneTooLargeError:
            scene = f"{'too big':>9}"
        print(f"{n:>8} {tiles:>7} {len(s):>10} {policy:>16} {t_sched:>11.3f} {scene} {s.makespan:>12.6g}", flush=True)


def run_engine(n, tiles, repeat, before=False, levels=1):
    """The engine target: an n-phase chain × tiles, pipelined, for every policy; ``levels`` memory
    levels (3: compute + L1 + L2 + DRAM, four resources, docs/memory-hierarchy.md#schedules-over-every-resource)."""
    from campaign_widget import POLICIES

    w = chain(n, levels=levels)
    print(f"\nengine: {n:,} phases × {tiles:,} tiles, pipelined chain, {levels + 1} resources")
    print(
        f"{'policy':>16} {'wall s':>8} {'cpu s':>7} {'intervals':>10} {'edges':>10} {'makespan':>14} "
        f"{'scene s':>8} {'pieces':>10}"
    )
    for policy in POLICIES:
        best_wall, best_cpu, s = float("inf"), float("inf"), None
        for _ in range(repeat):
            s = None
            wall, cpu = time.perf_counter(), time.process_time()
            s = w.schedule(tiles=tiles, pipeline=True, policy=policy)
            best_wall = min(best_wall, time.perf_counter() - wall)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        pieces = int((s.end_edge - s.start_edge).sum())
        try:
            start = time.perf_counter()
            scene = build_scene(s)
            scene_text, pieces = f"{time.perf_counter() - start:>8.3f}", len(scene)
        except SceneTooLargeError:
            scene_text = f"{'too big':>8}"  # `pieces` is then the count before merging, above the limit
        print(
            f"{policy:>16} {best_wall:>8.3f} {best_cpu:>7.3f} {len(s):>10,} {s.edge_time.size:>10,} "
            f"{s.makespan:>14.9g} {scene_text} {pieces:>10,}",
            flush=True,
        )
        del s
    if before:
        _run_engine_before(w, n, tiles)


def _run_engine_before(w, n, tiles):
    """The pre-issue-12 engine (tests/schedule_reference.py) on the same chain, timed once."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from schedule_reference import reference_schedule

    print(f"\nbefore (the previous engine): {n:,} phases × {tiles:,} tiles")
    print(f"{'policy':>16} {'wall s':>8} {'cpu s':>7} {'pieces':>10} {'makespan':>14}")
    for policy in ("none", "dilate", "throttle", "dilate+throttle"):
        if policy == "throttle" and n * tiles > 40_000:
            print(
                f"{policy:>16} not run: it stores a piece per running tile per change of the throttle factor "
                f"(284,185 at 100 × 100, 17.3 M at 400 × 400)",
                flush=True,
            )
            continue
        wall, cpu = time.perf_counter(), time.process_time()
        s = reference_schedule(w, tiles=tiles, pipeline=True, policy=policy)
        print(
            f"{policy:>16} {time.perf_counter() - wall:>8.3f} {time.process_time() - cpu:>7.3f} {len(s):>10,} "
            f"{s.makespan:>14.9g}",
            flush=True,
        )
        del s


def run_static_export(repeat):
    """Static PNG/SVG/PDF export of a ~10^5-piece pipelined scene (no browser)."""
    import tempfile
    from pathlib import Path

    from campaign_widget import Phase
    from campaign_widget.static_figure import panel_for, savefig

    w = Workload(
        [
            Phase("A", duration=3, compute_util=0.7, memory_util=0.6),
            Phase("B", duration=10, compute_util=0.2, memory_util=0.9, after=["A"]),
            Phase("C", duration=5, compute_util=0.3, memory_util=0.3, after=["B"]),
        ]
    )
    schedule = w.schedule(tiles=26_000, pipeline=True, policy="none")
    panel = panel_for(w, schedule)
    print(f"\nstatic export of {len(panel.scene):,} pieces")
    with tempfile.TemporaryDirectory() as folder:
        for suffix in (".png", ".svg", ".pdf"):
            seconds, path = best(lambda: savefig(Path(folder) / f"big{suffix}", [panel]), repeat)
            print(f"{suffix:>5} {seconds:8.3f} s {path.stat().st_size / 1e6:8.2f} MB", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="skip the largest cases")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--engine", action="store_true", help="only the engine table (1,000 × 1,000, every policy)")
    parser.add_argument("--before", action="store_true", help="also time the previous engine (slow: minutes)")
    parser.add_argument("--phases", type=int, default=1_000, help="phases of the engine's chain")
    parser.add_argument("--tiles", type=int, default=1_000, help="tiles of the engine's chain")
    args = parser.parse_args()
    if args.engine:
        run_engine(args.phases, args.tiles, args.repeat, before=args.before)
        run_engine(args.phases, args.tiles, args.repeat, levels=3)  # the same chain over four resources
        return
    sizes = [100, 1_000, 10_000] + ([] if args.quick else [100_000])
    run_sizes(sizes, args.repeat)
    cases = [(10, 100, "dilate+throttle"), (100, 100, "dilate+throttle"), (100, 100, "throttle")]
    run_pipelines(cases, 1)
    run_engine(300 if args.quick else args.phases, 300 if args.quick else args.tiles, args.repeat, before=args.before)
    run_static_export(args.repeat)


if __name__ == "__main__":
    main()
