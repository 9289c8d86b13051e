"""The memory a schedule takes per tile interval, at the peak of building it (tracemalloc), for every
policy, pipelined and not: the figure behind ``campaign_widget.model.schedule.BYTES_PER_INTERVAL``.

    python benchmarks/schedule_memory.py             # 2 phases × 500,000 tiles
    python benchmarks/schedule_memory.py --tiles 100000
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from campaign_widget import Machine, Phase, Workload
from campaign_widget.model.schedule import BYTES_PER_INTERVAL, POLICIES


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tiles", type=int, default=500_000)
    tiles = parser.parse_args().tiles
    w = Workload(
        [Phase("A", duration=1, compute_util=0.5, memory_util=0.5),
         Phase("B", duration=1, compute_util=0.5, memory_util=0.5, after=["A"])],
        machine=Machine(1e12, 1e11),
    )  # fmt: skip
    worst = 0.0
    for pipeline in (False, True):
        for policy in POLICIES:
            tracemalloc.start()
            start = time.process_time()
            schedule = w.schedule(tiles=tiles, pipeline=pipeline, policy=policy)
            kept, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            n = len(schedule)
            del schedule
            worst = max(worst, peak / n)
            print(f"pipeline={pipeline!s:5} policy={policy:16} {n:,} intervals: peak {peak / n:6.1f} B/interval, "
                  f"kept {kept / n:6.1f}, {time.process_time() - start:.2f} s CPU")  # fmt: skip
    print(f"worst peak {worst:.1f} bytes per interval; BYTES_PER_INTERVAL = {BYTES_PER_INTERVAL}")


if __name__ == "__main__":
    main()
