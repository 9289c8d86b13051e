"""Make the gloo fixtures: a small model trained with torch.distributed (gloo, CPU) under the profiler.

    python tests/data/gloo/make_gloo_job.py OUT_DIR --ranks 2 [--steps 3] [--seed 0]

Each of ``--ranks`` processes trains a two-layer MLP with DistributedDataParallel, whose gradients are
all-reduced over gloo, and the profiler writes that rank's Kineto trace, ``rank{N}.json.gz``, with its
``distributedInfo`` (backend, rank, world size) and the ``gloo:all_reduce`` collectives. Rank 1 sleeps a
little in each step, so that the job has a straggler and the other ranks wait in the collectives. The
fixtures in ``tests/data/gloo/`` were made with torch 2.13.0 (CPU) by this script.
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
import socket
import time
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rank(rank: int, world: int, port: int, out: str, steps: int, seed: int) -> None:
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(seed)
    model = DistributedDataParallel(
        torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 64))
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.randn(64, 256, generator=torch.Generator().manual_seed(seed + rank))
    path = Path(out) / f"rank{rank}.json"
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=0, warmup=1, active=steps), record_shapes=True, with_flops=True,
                 on_trace_ready=lambda p: p.export_chrome_trace(str(path))) as prof:  # fmt: skip
        for _ in range(steps + 1):
            with record_function("forward"):
                loss = model(data).square().mean()
            with record_function("backward"):
                loss.backward()
            if rank == 1:
                with record_function("straggle"):
                    time.sleep(0.004)  # the straggler: the others wait for it in the all-reduce
            with record_function("optimizer"):
                opt.step()
                opt.zero_grad()
            prof.step()
    dist.destroy_process_group()
    with open(path, "rb") as f, gzip.open(str(path) + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    path.unlink()


def main() -> None:
    import torch.multiprocessing as mp

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    mp.spawn(_rank, args=(args.ranks, _free_port(), str(args.out), args.steps, args.seed), nprocs=args.ranks)


if __name__ == "__main__":
    main()
