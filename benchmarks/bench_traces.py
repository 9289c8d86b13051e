"""Trace loading speed: MB/s of JSON for a plain load of a Kineto trace, ours and HTA's side by side.

    PYTHONPATH=$PWD python benchmarks/bench_traces.py                    # generates an 87 MB, 340k-event trace
    PYTHONPATH=$PWD python benchmarks/bench_traces.py --hta-python VENV/bin/python --before OTHER_CHECKOUT
    PYTHONPATH=$PWD python benchmarks/bench_traces.py --events 100000    # a smaller generated trace
    PYTHONPATH=$PWD python benchmarks/bench_traces.py --trace run.json   # a trace of your own (.json or .gz)
    PYTHONPATH=$PWD python benchmarks/bench_traces.py --memory           # also the peak memory (tracemalloc)

The generated trace is laid out as Kineto writes it (one key group per line, ``args`` on its own lines) and
holds what a GPU training step holds: CPU operators with recorded shapes (``Input Dims``, ``Input type``),
``cudaLaunchKernel`` runtime calls, the kernels they launch (2% of them with a templated name of
1,900 characters), ``ac2g`` flow events, memcpys, memsets, annotations and metadata.

Each reader is run ``--repeat`` times (default 3) and the best wall time is shown, with its CPU time
(the machine is shared: CPU time says what the reader itself costs). MB/s is the decompressed JSON's size
over the wall time, MB/s CPU over the CPU time. HTA (``pip install HolisticTraceAnalysis``, module ``hta``; also published as ``traceinsight``) is timed loading the same
file with its own parser when it is installed, or by ``--hta-python`` (the Python of a separate venv that
has it: ``python -m venv /tmp/hta && /tmp/hta/bin/pip install HolisticTraceAnalysis``) in a subprocess;
the last line gives our reader's speed over HTA's. ``--before DIR`` times the reader of another checkout
(e.g. a worktree of ``main``) on the same file in a subprocess, for a before/after in one run.

The row ``msgspec, the whole document`` is the parser alone decoding the whole file at once into the
reader's typed events: what "a well-kept parser over the whole file" costs, with nothing built from it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

# an A100-like machine; campaign_widget is imported only where it reads (HTA's venv has none)
MACHINE = (19.5e12, 1.55e12)
LONG_KERNEL = (
    "void at::native::unrolled_elementwise_kernel<at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>, "
    + ", ".join(f"TrivialOffsetCalculator<{k}, unsigned int>" for k in range(40))
    + ">(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)"
)
KERNELS = [
    "volta_sgemm_128x64_nn",
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>(int, float*)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >(int, float*)",
]
OPS = [
    ("aten::addmm", [[512], [64, 1024], [1024, 512], [], []], ["float", "float", "float", "Scalar", "Scalar"]),
    ("aten::gelu", [[256, 512], []], ["float", ""]),
    ("aten::add", [[256, 512], [256, 512], []], ["float", "float", "Scalar"]),
]


def _block(ev: dict, indent: str = "  ") -> str:
    """One event in Kineto's own layout."""
    head = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in ev.items() if k not in ("ts", "dur", "args"))
    lines = [indent + "{", f"{indent}  {head},"]
    times = ", ".join(f'"{k}": {json.dumps(ev[k])}' for k in ("ts", "dur") if k in ev)
    if "args" in ev:
        lines.append(f"{indent}  {times},")
        args = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in ev["args"].items())
        lines += [f'{indent}  "args": {{', f"{indent}    {args}", f"{indent}  }}"]
    else:
        lines.append(f"{indent}  {times}")
    lines.append(indent + "}")
    return "\n".join(lines)


def write_trace(path: Path, events: int, seed: int = 0) -> int:
    """Write a Kineto-style trace of about ``events`` events; returns the number written."""
    rng = random.Random(seed)
    out = []
    written = 0
    t_cpu, t_gpu, ext, corr = 1_000_000.0, 1_000_000.0, 0, 100_000
    with open(path, "w", encoding="utf-8") as f:
        f.write('{\n  "schemaVersion": 1,\n  "record_shapes": 1,\n  "traceEvents": [\n')
        step = 0
        while written < events:
            if written % 20_000 == 0:
                out.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": 1, "tid": 1,
                            "ts": t_cpu, "dur": 20_000.0 * 9, "args": {"External id": ext}})  # fmt: skip
                step += 1
                ext += 1
            k = rng.randrange(3)
            name, dims, types = OPS[k]
            ext += 1
            corr += 1
            op_dur = 9.0 + rng.random()
            out.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": round(t_cpu, 3),
                        "dur": round(op_dur, 3), "args": {"External id": ext, "Ev Idx": written, "Input Dims": dims,
                        "Input type": types, "Sequence number": ext, "Fwd thread id": 0}})  # fmt: skip
            launch = {"External id": ext, "cbid": 211, "correlation": corr}
            out.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                        "ts": round(t_cpu + 2, 3), "dur": 5.0, "args": launch})  # fmt: skip
            out.append({"ph": "s", "id": corr, "pid": 1, "tid": 1, "ts": round(t_cpu + 2, 3), "cat": "ac2g",
                        "name": "ac2g"})  # fmt: skip
            t_gpu = max(t_gpu, t_cpu + 8)
            kdur = 3.0 + 10 * rng.random()
            out.append({"ph": "X", "cat": "kernel", "name": LONG_KERNEL if rng.random() < 0.02 else KERNELS[k], "pid": 0, "tid": 7, "ts": round(t_gpu, 3),
                        "dur": round(kdur, 3), "args": {"External id": ext, "queued": 0, "device": 0, "context": 1,
                        "stream": 7, "correlation": corr, "registers per thread": 32, "shared memory": 0,
                        "blocks per SM": 0.5, "warps per SM": 2.0, "grid": [80, 1, 1], "block": [128, 1, 1],
                        "est. achieved occupancy %": 3}})  # fmt: skip
            out.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": round(t_gpu, 3), "cat": "ac2g",
                        "name": "ac2g", "bp": "e"})  # fmt: skip
            if rng.random() < 0.05:
                out.append({"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7,
                            "ts": round(t_gpu + kdur, 3), "dur": 1.0, "args": {"External id": ext, "device": 0,
                            "context": 1, "stream": 7, "correlation": corr, "bytes": 4096,
                            "memory bandwidth (GB/s)": 4.1}})  # fmt: skip
            t_gpu += kdur + 1
            t_cpu += op_dur + 1
            if len(out) >= 5000:
                f.write((",\n" if written else "") + ",\n".join(_block(e) for e in out))
                written += len(out)
                out = []
        for tid in (1, 7):
            out.append({"name": "thread_name", "ph": "M", "ts": 1_000_000.0, "pid": int(tid == 1), "tid": tid,
                        "args": {"name": f"thread {tid}"}})  # fmt: skip
        f.write((",\n" if written else "") + ",\n".join(_block(e) for e in out))
        written += len(out)
        f.write('\n  ],\n  "traceName": "bench"\n}\n')
    return written


def _best(run, repeat: int, memory: bool):
    walls, cpus, result, peak = [], [], None, None
    for _ in range(repeat):
        gc.collect()
        w0, c0 = time.perf_counter(), time.process_time()
        result = run()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    if memory:
        result = None
        gc.collect()
        tracemalloc.start()
        run()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    best = min(range(repeat), key=walls.__getitem__)
    return walls[best], cpus[best], peak, result


def _hta_loader():
    """HTA's own trace parser, or None when HTA is not installed."""
    try:
        from hta.common.trace_parser import parse_trace_dataframe
        from hta.configs.parser_config import ParserConfig
    except ImportError:
        return None

    def load(path: Path):
        return parse_trace_dataframe(str(path), ParserConfig.get_default_cfg())

    return load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=340_000, help="events in the generated trace (87 MB)")
    parser.add_argument("--hta-python", help="time HTA with this Python (a venv with HolisticTraceAnalysis)")
    parser.add_argument("--before", type=Path, help="also time the reader of this checkout (a subprocess)")
    parser.add_argument("--one", choices=("ours", "hta"), help=argparse.SUPPRESS)  # the subprocesses' part
    parser.add_argument("--trace", type=Path, help="time this trace instead of a generated one")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--memory", action="store_true", help="also measure the peak memory (tracemalloc)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_traces_"))
    try:
        if args.trace is None:
            path = tmp / "trace.json"
            n = write_trace(path, args.events)
            print(f"generated {path.name}: {n:,} events")
        else:
            path = args.trace
        size = _json_size(path)
        print(f"trace: {path}, {size / 1e6:.1f} MB of JSON ({path.stat().st_size / 1e6:.1f} MB on disk)")
        print(f"{'reader':<44} {'wall s':>7} {'CPU s':>7} {'MB/s':>7} {'MB/s CPU':>8} {'peak MB':>8}")

        def ours():
            from campaign_widget import Machine, UtilizationAboveOneWarning
            from campaign_widget.io import SkippedEventsWarning, read_torch_trace

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SkippedEventsWarning)
                warnings.simplefilter("ignore", UtilizationAboveOneWarning)  # a generated trace's made-up times
                return read_torch_trace(path, machine=Machine(*MACHINE, name="A100-like"))

        if args.one is not None:  # a subprocess timing one reader: its best wall and CPU seconds
            run = ours if args.one == "ours" else (lambda: _hta_loader()(path))
            wall, cpu, _, _ = _best(run, args.repeat, False)
            print(f"RESULT {wall} {cpu}")
            return
        rows = []
        if args.before is not None:
            rows.append(
                (
                    f"before: {args.before.name} read_torch_trace",
                    _elsewhere(sys.executable, args.before, path, args, "ours"),
                )
            )
        rows += [
            ("campaign_widget read_torch_trace (kernels)", ours),
            ("msgspec, the whole document", lambda: _whole(path)),
        ]
        hta = _hta_loader()
        if hta is not None:
            rows.append(("HTA parse_trace_dataframe", lambda: hta(path)))
        elif args.hta_python:
            rows.append(("HTA parse_trace_dataframe (its venv)", _elsewhere(args.hta_python, None, path, args, "hta")))
        walls = {}
        for label, run in rows:
            wall, cpu, peak, _ = run() if getattr(run, "elsewhere", False) else _best(run, args.repeat, args.memory)
            walls[label] = wall
            shown = f"{peak / 1e6:8.1f}" if peak is not None else f"{'-':>8}"
            print(f"{label:<44} {wall:7.2f} {cpu:7.2f} {size / 1e6 / wall:7.1f} {size / 1e6 / cpu:8.1f} {shown}")
        hta_wall = next((w for label, w in walls.items() if label.startswith("HTA")), None)
        if hta_wall is None:
            print("(HTA not installed: pip install HolisticTraceAnalysis, or --hta-python VENV/bin/python)")
        else:
            print(
                f"read_torch_trace is {hta_wall / walls['campaign_widget read_torch_trace (kernels)']:.1f}x HTA's speed"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _whole(path: Path):
    """The whole file decoded by msgspec in one call into the reader's typed events, nothing else."""
    import gzip

    import msgspec

    from campaign_widget.io._jsonstream import AnyEvent

    trace = msgspec.defstruct("Trace", [("traceEvents", list[AnyEvent])])

    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return msgspec.json.decode(data, type=trace)


def _elsewhere(python: str, checkout: Path | None, path: Path, args, which: str):
    """A reader timed in a subprocess (another venv, or another checkout on PYTHONPATH)."""

    def run():
        env = dict(os.environ)
        if checkout is not None:
            env["PYTHONPATH"] = str(checkout)
        command = [python, __file__, "--trace", str(path), "--repeat", str(args.repeat), "--one", which]
        out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
        wall, cpu = next(line for line in out.splitlines() if line.startswith("RESULT")).split()[1:]
        return float(wall), float(cpu), None, None

    run.elsewhere = True  # type: ignore[attr-defined]
    return run


def _json_size(path: Path) -> int:
    import gzip

    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    if not gz:
        return path.stat().st_size
    total = 0
    with gzip.open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            total += len(chunk)
    return total


if __name__ == "__main__":
    main()
