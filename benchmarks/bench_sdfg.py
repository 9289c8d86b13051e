"""Time reading a large SDFG: the MLP fixture's state repeated as a chain of states.

    PYTHONPATH=. python benchmarks/bench_sdfg.py            # 10, 100, 1,000 states (6 phases each)
    PYTHONPATH=. python benchmarks/bench_sdfg.py --quick    # 10 and 100

Each line: states, phases, gzip size, seconds to read (best of --repeat) and seconds for one
``with_params`` step (a parameter slider moving).
"""

from __future__ import annotations

import argparse
import copy
import gzip
import json
import tempfile
import time
import warnings
from pathlib import Path

from campaign_widget.io.sdfg import read_sdfg

FIXTURE = Path(__file__).parent.parent / "tests" / "data" / "sdfg" / "mlp.sdfgz"
PARAMS = {"B": 8, "D": 1024, "H": 4096, "O": 1024}


def chained(states: int) -> bytes:
    doc = json.loads(gzip.decompress(FIXTURE.read_bytes()))
    state = doc["nodes"][0]
    doc["nodes"] = []
    for i in range(states):
        s = copy.deepcopy(state)
        s["id"], s["label"] = i, f"layer {i}"
        doc["nodes"].append(s)
    doc["edges"] = [{"type": "Edge", "src": str(i), "dst": str(i + 1), "attributes": {}} for i in range(states - 1)]
    return gzip.compress(json.dumps(doc).encode())


def best(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = (10, 100) if args.quick else (10, 100, 1000)
    with tempfile.TemporaryDirectory() as folder:
        for states in sizes:
            path = Path(folder) / f"chain{states}.sdfgz"
            path.write_bytes(chained(states))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                seconds, w = best(lambda: read_sdfg(path, params=PARAMS), args.repeat)
                step, _ = best(lambda: w.with_params(B=16), args.repeat)
            print(
                f"{states:>6} states  {len(w):>6} phases  {path.stat().st_size / 1e3:>8.1f} kB  "
                f"read {seconds:7.3f} s  with_params {step:7.3f} s"
            )


if __name__ == "__main__":
    main()
