"""Cache model vs pycachesim on the n = 64 float64 matrix-product trace: one cache, and a two-level hierarchy.

    python benchmarks/bench_cache.py              # n = 64: 786,432 accesses; plus one 10^7-access trace
    python benchmarks/bench_cache.py --quick      # skip the 10^7-access trace
    python benchmarks/bench_cache.py --repeat 21  # more runs per median (a busy machine)

Ours (one run, trace generation included): trace → stack distances (misses of a fully associative
cache of *every* capacity, read off the histogram) → one set-associative cache (8-way 32 KiB), in one
``simulate`` call. pycachesim (RRZE-HPC, test-only dependency): one cache simulated on the same
addresses, handed over as a ready Python list (the list conversion is not counted against it), for
each of the caches below.

Hierarchy: ``simulate(trace, [L1, L2])`` (trace generation included) against pycachesim's same two
levels chained with ``load_from``/``store_to`` (``CacheSimulator``), fed the same addresses as loads;
both sides' per-level miss counts are printed and must agree.

Both sides run interleaved (ours, then each pycachesim cache, --repeat times), so a busy machine slows
both alike; the numbers are medians of wall time and of CPU time (``time.process_time``), and the
ratio "ours faster" is pycachesim's median over ours. A warm-up call runs first, so numba's one-off
compile (or load from its on-disk cache) is excluded from the medians and printed on its own line.
The load average is printed with the numbers (the machine is shared). Both sides' miss counts are
printed and must agree.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from campaign_widget.cache import Cache, simulate, trace

SPEC = "C[i,j] = A[i,k] * B[k,j]"
CACHES = {
    "FA 32 lines": Cache(lines=32),
    "FA 512 lines": Cache(lines=512),
    "8-way 32 KiB": Cache(lines=512, ways=8),
    "4-way 4 KiB": Cache(lines=64, ways=4),
    "direct 2 KiB": Cache(lines=32, ways=1),
}
OURS_CACHE = CACHES["8-way 32 KiB"]
HIERARCHY = {"L1": Cache(lines=512, ways=8), "L2": Cache(lines=4096, ways=16)}  # 32 KiB 8-way, 256 KiB 16-way


def ours(n: int, loop_order: str, cache: Cache = OURS_CACHE):
    t = trace(SPEC, {"i": n, "j": n, "k": n}, elem_bytes=8, loop_order=loop_order)
    r = simulate(t, cache, progress=False)  # one pass: FA stack distances + the W-way sets
    every = r.fa_misses(np.arange(1, r.distances.max + 2))  # FA misses for every capacity 1 … max+1 lines
    return t, every, r


def ours_hierarchy(n: int, loop_order: str, levels: dict = HIERARCHY):
    t = trace(SPEC, {"i": n, "j": n, "k": n}, elem_bytes=8, loop_order=loop_order)
    return [r.misses for r in simulate(t, levels, progress=False)]


def pycachesim_hierarchy(addresses: list, levels: dict) -> list[int]:
    """Misses per level of pycachesim's chain of ``levels`` (nearest to compute first)."""
    from cachesim import Cache as PCache
    from cachesim import CacheSimulator, MainMemory

    below, made = None, []
    for name, c in reversed(list(levels.items())):
        below = PCache(name, c.sets, c.associativity, c.line, "LRU", store_to=below, load_from=below)
        made.insert(0, below)
    mem = MainMemory()
    mem.load_to(made[-1])
    mem.store_from(made[-1])
    CacheSimulator(made[0], mem).load(addresses, length=8)
    return [level.backend.MISS_count for level in made]


def timed(fn):
    """(wall s, CPU s, result) of one call."""
    start, start_cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - start, time.process_time() - start_cpu, out


def pycachesim_misses(addresses: list, cache: Cache) -> int:
    from cachesim import Cache as PCache
    from cachesim import MainMemory

    mem = MainMemory()
    level = PCache("L1", cache.sets, cache.associativity, cache.line, "LRU")
    mem.load_to(level)
    mem.store_from(level)
    level.backend.iterload(addresses, 8)
    return level.backend.MISS_count


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} CPUs"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=11, help="runs per median (default 11)")
    parser.add_argument("--quick", action="store_true", help="skip the 10^7-access trace")
    args = parser.parse_args()
    repeat = max(1, args.repeat)

    wall, cpu, _ = timed(lambda: ours(4, "ijk", Cache(lines=4, ways=2)))
    print(
        f"warm-up (numba compile, or load from numba's cache): {wall:.2f} s wall, {cpu:.2f} s CPU — not in the "
        "medians below"
    )
    print(load())
    n = 64
    for order in ("ijk", "ikj"):
        t, every, r = ours(n, order)  # warm (page cache, allocator) and the results
        addresses = t.address.tolist()
        mine = {
            name: int(every[c.lines - 1]) if c.ways is None else simulate(t, c, distances=r.distances).misses
            for name, c in CACHES.items()
        }
        times = {"ours": ([], [])} | {name: ([], []) for name in CACHES}
        for _ in range(repeat):  # interleaved: both sides see the same load
            w, c, _ = timed(lambda: ours(n, order))
            times["ours"][0].append(w)
            times["ours"][1].append(c)
            for name, cache in CACHES.items():
                w, c, misses = timed(lambda: pycachesim_misses(addresses, cache))
                assert misses == mine[name], (order, name, misses, mine[name])
                times[name][0].append(w)
                times[name][1].append(c)
        med = {k: (statistics.median(v[0]), statistics.median(v[1])) for k, v in times.items()}
        ow, oc = med["ours"]
        print(
            f"\nn = {n}, loop order {order}: {len(t):,} accesses; medians of {repeat} interleaved runs, "
            f"wall ms / CPU ms; {load()}"
        )
        print(
            f"  ours, trace + distances + FA misses for all {every.size} capacities + 8-way 32 KiB: "
            f"{ow * 1e3:6.1f} / {oc * 1e3:6.1f}   (8-way misses {r.misses:,}, FA 512 misses {int(every[511]):,})"
        )
        for name in CACHES:
            pw, pc = med[name]
            print(
                f"  pycachesim, one cache, {name:>13}: {pw * 1e3:6.1f} / {pc * 1e3:6.1f}   misses "
                f"{mine[name]:>9,} (equal)   ours faster: {pw / ow:4.1f}x wall, {pc / oc:4.1f}x CPU"
            )
        fastest = min(CACHES, key=lambda name: med[name][1])
        print(
            f"  => vs pycachesim's fastest cache ({fastest}): ours faster {med[fastest][0] / ow:.1f}x wall, "
            f"{med[fastest][1] / oc:.1f}x CPU"
        )
        mine = ours_hierarchy(n, order)
        hier = {"ours": ([], []), "pycachesim": ([], [])}
        for _ in range(repeat):  # interleaved
            w, c, misses = timed(lambda: ours_hierarchy(n, order))
            hier["ours"][0].append(w)
            hier["ours"][1].append(c)
            w, c, misses = timed(lambda: pycachesim_hierarchy(addresses, HIERARCHY))
            assert misses == mine, (order, misses, mine)
            hier["pycachesim"][0].append(w)
            hier["pycachesim"][1].append(c)
        (hw, hc), (pw, pc) = ((statistics.median(v[0]), statistics.median(v[1])) for v in hier.values())
        print(
            "  two levels, L1 8-way 32 KiB -> L2 16-way 256 KiB, misses per level "
            f"{', '.join(f'{m:,}' for m in mine)} (equal):\n"
            f"    ours (trace + both levels) {hw * 1e3:6.1f} / {hc * 1e3:6.1f}   pycachesim {pw * 1e3:6.1f} / "
            f"{pc * 1e3:6.1f}   ours faster: {pw / hw:4.1f}x wall, {pc / hc:4.1f}x CPU"
        )
    if not args.quick:
        n = 149  # 149³ points × 3 accesses = 9,923,847, just under MAX_ACCESSES = 10^7
        start, start_cpu = time.perf_counter(), time.process_time()
        t = trace(SPEC, {"i": n, "j": n, "k": n}, elem_bytes=8, loop_order="ikj")
        r = simulate(t, Cache(lines=512, ways=8))  # one pass: FA distances + the 8-way sets, with a bar
        print(
            f"\n{len(t):,} accesses (n = {n}, ikj): trace + distances + 8-way 32 KiB in "
            f"{time.perf_counter() - start:.2f} s wall, {time.process_time() - start_cpu:.2f} s CPU; "
            f"{r.summary()}; {load()}"
        )


if __name__ == "__main__":
    main()
