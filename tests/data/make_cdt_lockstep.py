"""Make tests/data/cdt_lockstep.json: random chains scheduled by the paper authors' tool.

The tool (campaign_diagram_tools, https://github.com/jsemer/campaign_diagram_tools: kernel.py,
intervals.py, cascade.py) is not a dependency: it lives in its own venv, and only its numbers are
committed. Run it there:

    "$CDT_VENV/bin/python" tests/data/make_cdt_lockstep.py "$CDT_SRC"   # its venv, and a checkout of the tool

For each chain and policy: ``Cascade(kernels, sequential=True).split(tiles).pipeline(stages=phases,
spread=dilate)``, then ``.throttle()`` for the throttling policies — the tool's own pipeline. Per
tile (the pieces of one original kernel, joined): its start and end, per phase in tile order.
"""

import json
import os
import random
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
from campaign_diagram import Cascade, Kernel  # noqa: E402

POLICIES = ("none", "dilate", "throttle", "dilate+throttle")


def chains(count, seed=12):
    rng = random.Random(seed)
    for _ in range(count):
        n = rng.randint(2, 5)
        specs = [
            (f"P{p}", round(rng.uniform(0.5, 10), 3), round(rng.uniform(0.05, 1), 2), round(rng.uniform(0.05, 1), 2))
            for p in range(n)
        ]
        yield specs, rng.randint(1, 6)


def tool(specs, tiles, policy):
    kernels = [Kernel(name, duration=d, compute_util=c, bw_util=m) for name, d, c, m in specs]
    split = Cascade(kernels, sequential=True).split(tiles)
    for k, kernel in enumerate(split.kernels):  # tile-major: name each tile (names do not time anything)
        kernel.name = f"{kernel.name}/{k // len(specs)}"
    cascade = split.pipeline(stages=len(specs), spread="dilate" in policy)
    if "throttle" in policy:
        cascade = cascade.throttle()
    spans = {}  # a tile's pieces (the tool cuts kernels into intervals) joined back
    for piece in cascade.kernels:
        start, end = spans.get(piece.name, (piece.start, piece.end))
        spans[piece.name] = (min(start, piece.start), max(end, piece.end))
    per_phase = {name: [None] * tiles for name, *_ in specs}
    for key, (start, end) in spans.items():
        name, i = key.rsplit("/", 1)
        per_phase[name][int(i)] = [start, end]
    return {"makespan": max(end for _, end in spans.values()), "spans": per_phase}


def main():
    cases = []
    for specs, tiles in chains(60):
        for policy in POLICIES:
            cases.append({"phases": specs, "tiles": tiles, "policy": policy, **tool(specs, tiles, policy)})
    counter = [("P0", 8, 0.6, 0.9), ("P1", 5, 0.3, 0.5), ("P2", 4, 0.4, 0.8)]
    for policy in POLICIES:
        cases.append({"phases": counter, "tiles": 2, "policy": policy, **tool(counter, 2, policy)})
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cdt_lockstep.json")
    with tempfile.NamedTemporaryFile("w", dir=os.path.dirname(out), delete=False, suffix=".tmp") as f:
        json.dump(
            {
                "tool": "campaign_diagram_tools (jsemer): kernel.py@005f440c, intervals.py@76b7f628, "
                "cascade.py@21c37a1f",
                "cases": cases,
            },
            f,
        )
    os.chmod(f.name, 0o644)
    os.replace(f.name, out)
    print(f"{len(cases)} cases -> {out}")


if __name__ == "__main__":
    main()
