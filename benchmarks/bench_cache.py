"""Cache model vs pycachesim on the n = 64 float64 matrix-product trace (issue 11's speed target).

    python benchmarks/bench_cache.py              # n = 64: 786,432 accesses; plus one 10^7-access trace
    python benchmarks/bench_cache.py --quick      # skip the 10^7-access trace

Ours (one run, trace generation included): trace → stack distances (misses of a fully associative
cache of *every* capacity, read off the histogram) → one set-associative cache (8-way 32 KiB).
pycachesim (RRZE-HPC, test-only dependency): one cache simulated on the same addresses, handed over
as a ready Python list (list conversion not counted against it), for each of issue 11's caches.
Times are the best of --repeat runs; the JIT is compiled before timing (its one-off compile time is
printed separately). Both sides' miss counts are printed and must agree.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from campaign_widget.cache import Cache, simulate, trace

SPEC = "C[i,j] = A[i,k] * B[k,j]"
CACHES = {"FA 32 lines": Cache(lines=32), "FA 512 lines": Cache(lines=512),
          "8-way 32 KiB": Cache(lines=512, ways=8), "4-way 4 KiB": Cache(lines=64, ways=4),
          "direct 2 KiB": Cache(lines=32, ways=1)}


def ours(n: int, loop_order: str, cache: Cache):
    t = trace(SPEC, {"i": n, "j": n, "k": n}, elem_bytes=8, loop_order=loop_order)
    r = simulate(t, cache, progress=False)           # one pass: FA stack distances + the W-way sets
    every = r.fa_misses(np.arange(1, r.distances.max + 2))  # FA misses for every capacity 1 … max+1 lines
    return t, every, r


def best(fn, repeat):
    """Best wall time and best CPU time (process time: steadier on a shared machine) of ``repeat`` runs."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return (min(wall), min(cpu)), out


def pycachesim_misses(addresses: list, cache: Cache) -> int:
    from cachesim import Cache as PCache
    from cachesim import MainMemory
    mem = MainMemory()
    level = PCache("L1", cache.sets, cache.associativity, cache.line, "LRU")
    mem.load_to(level)
    mem.store_from(level)
    level.backend.iterload(addresses, 8)
    return level.backend.MISS_count


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()

    start = time.perf_counter()
    ours(4, "ijk", Cache(lines=4, ways=2))
    print(f"numba kernel ready (compile or load from cache) in {time.perf_counter() - start:.2f} s")
    for order in ("ijk", "ikj"):
        n = 64
        main_cache = CACHES["8-way 32 KiB"]
        (ours_s, ours_cpu), (t, every, r) = best(lambda: ours(n, order, main_cache), args.repeat)
        (list_s, _), addresses = best(lambda: t.address.tolist(), args.repeat)
        print(f"\nn = {n}, loop order {order}: {len(t):,} accesses (wall ms / CPU ms, best of {args.repeat})")
        print(f"  ours: trace + distances + FA misses for all {every.size} capacities + 8-way 32 KiB: "
              f"{ours_s * 1e3:6.1f} / {ours_cpu * 1e3:6.1f}  (8-way misses {r.misses:,}, FA 512 misses "
              f"{int(every[511]):,})")
        print(f"  (the trace as a Python list for pycachesim: {list_s * 1e3:.1f} ms, not counted below)")
        for name, cache in CACHES.items():
            (pc_s, pc_cpu), pc_misses = best(lambda: pycachesim_misses(addresses, cache), args.repeat)
            mine = int(every[cache.lines - 1]) if cache.ways is None else simulate(t, cache, distances=r.distances).misses
            assert mine == pc_misses, (name, mine, pc_misses)
            print(f"  pycachesim {name:>13}: {pc_s * 1e3:6.1f} / {pc_cpu * 1e3:6.1f}  misses {pc_misses:>9,} "
                  f"(equal)  ours faster: {pc_s / ours_s:4.1f}x wall, {pc_cpu / ours_cpu:4.1f}x CPU")
    if not args.quick:
        n = 149  # 149³ points × 3 accesses = 9,923,847, just under MAX_ACCESSES = 10^7
        start = time.perf_counter()
        t = trace(SPEC, {"i": n, "j": n, "k": n}, elem_bytes=8, loop_order="ikj")
        r = simulate(t, Cache(lines=512, ways=8))   # one pass: FA distances + the 8-way sets, with a bar
        print(f"\n{len(t):,} accesses (n = {n}, ikj): trace + distances + 8-way 32 KiB in "
              f"{time.perf_counter() - start:.2f} s; {r.summary()}")


if __name__ == "__main__":
    main()
