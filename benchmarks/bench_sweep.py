"""A sweep of 10^4 configurations of a 24-phase workload, in one process, in a local process pool
and on a local Dask cluster, timed side by side (issue 13).

    python benchmarks/bench_sweep.py               # 10^4 configurations, 2 workers, 3 rounds (~1-2 min)
    python benchmarks/bench_sweep.py --quick       # 2·10^3 configurations
    python benchmarks/bench_sweep.py --workers 4 --repeat 5
    python benchmarks/bench_sweep.py --quick --profile   # where a serial sweep's time goes, by stage

The workload is notebook 06's Mamba-1 layer (24 Einsums), fused into its 8 groups; the axes:
tiles 1…64 × policy × depth × peak compute × peak bandwidth, all pipelined. Every path's table is
checked equal to the serial one. The machine's load average is printed before and after: on a
shared machine the ratios, not the seconds, are what to compare, and only within one run.

Serial, pool and Dask run in ``--repeat`` interleaved rounds (a change in the machine's load hits
all three); the table shows each path's fastest run and the medians. The Dask cluster exists for
the whole run, so this process has threads and the pool starts its workers by forkserver, as it
does in a Jupyter kernel (a plain script without Dask would fork them).

Two CPU figures per run: "CPU" is every process' CPU time (this process, which also hosts the Dask
scheduler and client, plus the workers); "task CPU" is the CPU time spent inside the tasks
computing rows (``SweepResult.cpu_seconds``). When other work shares the cores, wall-clock
speed-ups shrink but these do not: ``workers × serial CPU / parallel CPU`` is the speed-up the same
run would get on idle cores, ``parallel task CPU / serial task CPU`` how much slower a row is
computed in a worker, and CPU minus task CPU the overhead of the executor. Dask's part of that is
mostly its background, printed for the idle cluster: the scheduler's and client's event loops in
this process (~6% of a core here) and the workers' (~8% together, half of it the statistical
profiler that samples every 10 ms; ``dask.config.set({"distributed.worker.profile.enabled":
False})`` before starting a cluster turns it off).
"""

from __future__ import annotations

import argparse
import importlib
import os
import time

import numpy as np

import campaign_widget as cw

sweep_module = importlib.import_module("campaign_widget.sweep")

# notebook 06-mamba.ipynb, cell 1 (Mamba-1 370M at batch 64, sequence 16384, BF16)
SIZES = dict(b=64, l=16384, d=1024, e=2048, n=16, r=64, k=4)
EINSUMS = {
    "sq": "SQ[b,l] = X[b,l,d] * X[b,l,d]",
    "rms": {"einsum": "RMS[b,l] = rsqrt(SQ[b,l])", "ops_per_point": 3},
    "norm": "XN[b,l,d] = X[b,l,d] * RMS[b,l] * WN[d]",
    "in_x": "XI[b,l,e] = XN[b,l,d] * WX[d,e]",
    "in_z": "Z[b,l,e] = XN[b,l,d] * WZ[d,e]",
    "conv": "XC[b,l,e] = XI[b,l-k,e] * WC[k,e]",
    "sig_x": {"einsum": "SX[b,l,e] = sigmoid(XC[b,l,e])", "ops_per_point": 4},
    "silu_x": "XS[b,l,e] = XC[b,l,e] * SX[b,l,e]",
    "x_dt": "DTR[b,l,r] = XS[b,l,e] * WDT[e,r]",
    "x_B": "BM[b,l,n] = XS[b,l,e] * WB[e,n]",
    "x_C": "CM[b,l,n] = XS[b,l,e] * WCM[e,n]",
    "dt_proj": "DTP[b,l,e] = DTR[b,l,r] * WP[r,e]",
    "dt_exp": {"einsum": "DTE[b,l,e] = exp(DTP[b,l,e] + BP[e])", "ops_per_point": 2},
    "softplus": {"einsum": "DT[b,l,e] = log1p(DTE[b,l,e])", "ops_per_point": 2},
    "dA": {"einsum": "DA[b,l,e,n] = exp(DT[b,l,e] * A[e,n])", "ops_per_point": 2},
    "dBx": "DBX[b,l,e,n] = DT[b,l,e] * BM[b,l,n] * XS[b,l,e]",
    "scan": {"einsum": "H[b,l,e,n] = DA[b,l,e,n] * H[b,l-1,e,n] + DBX[b,l,e,n]", "ops_per_point": 2},
    "y_C": "Y0[b,l,e] = H[b,l,e,n] * CM[b,l,n]",
    "y_D": {"einsum": "Y1[b,l,e] = Y0[b,l,e] + DS[e] * XS[b,l,e]", "ops_per_point": 2},
    "sig_z": {"einsum": "SZ[b,l,e] = sigmoid(Z[b,l,e])", "ops_per_point": 4},
    "silu_z": "GZ[b,l,e] = Z[b,l,e] * SZ[b,l,e]",
    "gate": "YG[b,l,e] = Y1[b,l,e] * GZ[b,l,e]",
    "out": "OUT[b,l,d] = YG[b,l,e] * WO[e,d]",
    "res": {"einsum": "RES[b,l,d] = OUT[b,l,d] + X[b,l,d]", "ops_per_point": 1},
}
GROUPS = {
    "RMSNorm": ["sq", "rms", "norm"],
    "in_proj": ["in_x", "in_z"],
    "conv + SiLU": ["conv", "sig_x", "silu_x"],
    "x_proj": ["x_dt", "x_B", "x_C"],
    "dt_proj + softplus": ["dt_proj", "dt_exp", "softplus"],
    "selective scan": ["dA", "dBx", "scan", "y_C", "y_D"],
    "gate": ["sig_z", "silu_z", "gate"],
    "out_proj + residual": ["out", "res"],
}


def mamba() -> cw.Workload:
    machine = cw.Machine(
        peak_compute=2 * 256 * 256 * 1.75e9 + 2 * 256 * 1.75e9,
        peak_bandwidth=2039e9,
        name="FuseMax-like, 2D + 1D @ 1.75 GHz",
        ops_unit="op",
    )
    return cw.Workload.from_einsums(EINSUMS, SIZES, machine=machine, element_bytes=2).fuse(GROUPS)


def axes(quick: bool, workload: cw.Workload) -> dict:
    pc, bw = workload.machine.peak_compute, workload.machine.peak_bandwidth
    n_bw = 5 if quick else 25
    return dict(
        tiles=[1, 2, 4, 8, 12, 16, 24, 32, 48, 64],  # 10
        pipeline=[True],
        policy=list(cw.POLICIES),  # 4
        depth=[1, 2],  # 2
        peak_compute=[pc * f for f in (0.5, 0.75, 1.0, 1.5, 2.0)],  # 5
        peak_bandwidth=list(bw * np.geomspace(0.25, 4.0, n_bw)),  # 25 (5 with --quick)
    )


def loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "n/a"


def no_workers() -> float:
    return 0.0


def pool_workers_cpu(result) -> float:
    """The pool's workers' process CPU time (from start to their last chunk, as each chunk reports
    it): forkserver workers are not this process' children, so getrusage cannot see them."""
    return sum(cpu for pid, cpu in result._worker_cpu.items() if pid != os.getpid())


def timed(label, fn, worker_cpu=no_workers, after=None):
    """Wall seconds, and the CPU seconds spent (this process + the workers: ``worker_cpu()`` before
    and after, or ``after(result)``): CPU / wall is how many cores the run actually got, which on a
    shared machine bounds any speed-up."""
    cpu0, workers0 = time.process_time(), worker_cpu()
    start = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - start
    own = time.process_time() - cpu0
    workers = after(result) if after is not None else worker_cpu() - workers0
    cpu = own + workers
    print(
        f"  {label:<34} {seconds:7.2f} s wall {cpu:7.2f} s CPU ({cpu / seconds:.2f} cores; this process "
        f"{own:.2f} s, workers {workers:.2f} s; task CPU {result.cpu_seconds:.2f} s in {result.tasks} tasks)"
        f"  [{result.executor_kind}, {result.retried} retried, load {loadavg().split()[0]}]",
        flush=True,
    )
    return seconds, cpu, result


STAGES = {  # where a serial sweep's time goes (--profile): function -> stage
    ("schedule.py", "_wavefront_works"): "wavefront, batched (per level, all configurations of a settings group)",
    ("schedule.py", "_wavefront_work"): "wavefront, one configuration",
    ("schedule.py", "_event_work"): "event simulation (fallback)",
    ("schedule.py", "_one_at_a_time_work"): "sequential tiles",
    ("schedule.py", "_profile"): "demand profile (sort of starts and ends)",
    ("schedule.py", "_assemble"): "throttling, Schedule arrays, oversubscription",
    ("sweep.py", "derived"): "re-derived workloads (peaks, size parameters; cached)",
    ("sweep.py", "_metrics"): "result row from a Schedule",
}


def profile_serial(w, ax) -> None:
    """One serial sweep under cProfile: the cumulative seconds of each stage and their share."""
    import cProfile
    import pstats

    sweep_module.IN_PROCESS_SECONDS = float("inf")
    prof = cProfile.Profile()
    prof.runcall(cw.sweep, w, progress=False, **ax)
    stats = pstats.Stats(prof).stats
    total = max(cum for (_, _, name), (_, _, _, cum, _) in stats.items() if name == "sweep")
    print(f"serial sweep under cProfile: {total:.2f} s (profiling slows it down; the shares are what count)")
    for (path, _, name), (_, _, _, cum, _) in sorted(stats.items(), key=lambda kv: -kv[1][3]):
        stage = STAGES.get((os.path.basename(path), name))
        if stage:
            print(f"  {cum:7.2f} s {cum / total:6.1%}  {stage} ({name})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2·10^3 configurations instead of 10^4")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="rounds of serial, pool and Dask, interleaved so that a change in the machine's load "
        "hits all three; the table shows each path's fastest (least disturbed) run",
    )
    parser.add_argument("--profile", action="store_true", help="only profile one serial sweep: where the time goes")
    args = parser.parse_args()
    if args.profile:
        w = mamba()
        profile_serial(w, axes(args.quick, w))
        return

    w = mamba()
    ax = axes(args.quick, w)
    n = int(np.prod([len(v) for v in ax.values()]))
    print(
        f"{len(w)}-phase workload (Mamba-1 layer, 8 fusion groups), {n:,} configurations "
        f"(tiles up to {max(ax['tiles'])}), {args.workers} workers, {os.cpu_count()} cores, {args.repeat} rounds"
    )
    print(f"load average before: {loadavg()}")
    sweep_module.POOL_WORKERS = args.workers

    def serial_sweep():  # executor=None, held in this process
        sweep_module.IN_PROCESS_SECONDS = float("inf")
        return cw.sweep(w, progress=False, **ax)

    def pool_sweep():  # executor=None, in the pool the sweep starts itself (forkserver: this process has threads)
        sweep_module.IN_PROCESS_SECONDS = 0.0
        return cw.sweep(w, progress=False, **ax)

    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=40
        ) as cluster,
        Client(cluster) as client,
    ):
        # warm-up, as the pool's workers are: the workers import the package before the clock starts
        client.run(importlib.import_module, "campaign_widget.sweep")

        def dask_workers_cpu():
            return sum(client.run(time.process_time).values())

        # Dask's own background (scheduler and client in this process, event loops, heartbeats and the
        # workers' 10 ms profiler), which a local pool does not have: measured on the idle cluster
        time.sleep(1.0)
        workers0, own0, t0 = dask_workers_cpu(), time.process_time(), time.perf_counter()
        time.sleep(2.0)
        idle = time.perf_counter() - t0
        print(
            f"idle Dask cluster: this process {(time.process_time() - own0) / idle:.1%} of a core, the workers "
            f"{(dask_workers_cpu() - workers0) / idle:.1%} together"
        )

        paths = {
            "serial": ("serial (one process)", serial_sweep, {}),
            "pool": (f"local process pool ({args.workers} workers)", pool_sweep, {"after": pool_workers_cpu}),
            "dask": (
                f"Dask LocalCluster ({args.workers} workers)",
                lambda: cw.sweep(w, executor=client, progress=False, **ax),
                {"worker_cpu": dask_workers_cpu},
            ),
        }
        runs: dict[str, list] = {k: [] for k in paths}
        for r in range(args.repeat):
            print(f"round {r + 1}/{args.repeat}")
            for k, (label, fn, cpu) in paths.items():
                runs[k].append(timed(label, fn, **cpu))
    print(f"load average after:  {loadavg()}")

    serial = runs["serial"][0][2]
    for name, rs in runs.items():
        for _, _, r in rs:
            for c in serial.columns:
                assert np.array_equal(r[c], serial[c]), f"{name}: column {c} differs from serial"
    best = {k: min(rs, key=lambda run: run[0]) for k, rs in runs.items()}
    median = {k: float(np.median([run[0] for run in rs])) for k, rs in runs.items()}
    serial_t, serial_cpu, serial = best["serial"]
    pool_t, pool_cpu, pool = best["pool"]
    dask_t, dask_cpu, dask = best["dask"]
    print()
    print(f"{'fastest run of each':<26}" + "".join(f"{k:>10}" for k in best))
    rows = [
        ("wall seconds", lambda k, t, c, r: f"{t:10.2f}"),
        ("speed-up (wall)", lambda k, t, c, r: f"{serial_t / t:10.2f}"),
        ("median wall seconds", lambda k, t, c, r: f"{median[k]:10.2f}"),
        ("CPU seconds", lambda k, t, c, r: f"{c:10.2f}"),
        ("task CPU seconds", lambda k, t, c, r: f"{r.cpu_seconds:10.2f}"),
        ("cores got (CPU / wall)", lambda k, t, c, r: f"{c / t:10.2f}"),
        ("tasks", lambda k, t, c, r: f"{r.tasks:10d}"),
        ("ms per configuration", lambda k, t, c, r: f"{1e3 * t / len(r):10.3f}"),
    ]
    for label, cell in rows:
        print(f"{label:<26}" + "".join(cell(k, *v) for k, v in best.items()))
    w_ = args.workers
    print(
        f"speed-up on idle cores ≈ {w_} × serial CPU / CPU: pool {w_ * serial_cpu / pool_cpu:.2f}×, "
        f"dask {w_ * serial_cpu / dask_cpu:.2f}×; a row costs {pool.cpu_seconds / serial.cpu_seconds:.2f}× "
        f"(pool), {dask.cpu_seconds / serial.cpu_seconds:.2f}× (dask) the serial CPU; overhead outside the tasks "
        f"{pool_cpu - pool.cpu_seconds:.2f} s (pool), {dask_cpu - dask.cpu_seconds:.2f} s (dask)"
    )
    print(
        f"pool vs serial: {serial_t / pool_t:.2f}× (medians {median['serial'] / median['pool']:.2f}×; target ≥ 1.7× "
        f"on idle cores); Dask / pool time: {dask_t / pool_t:.2f} (medians {median['dask'] / median['pool']:.2f}; "
        "target ≤ 1.20); all tables equal"
    )


if __name__ == "__main__":
    main()
