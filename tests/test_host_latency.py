"""host.latency_sweep: a numba pointer chase, bounded in time, gives a latency per cache level's plateau
(docs/memory-hierarchy.md#measuring-the-levels-on-this-host), and Machine.measure can carry it."""

import time

import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from campaign_widget import Machine, Phase, Workload
from campaign_widget.errors import ArgumentError
from campaign_widget.model import host, machine


def test_the_chain_is_one_cycle_through_every_line_one_pointer_per_line():
    lines = 257
    chain, starts = host.pointer_chain(lines, np.random.default_rng(1))
    assert chain.size == lines * host.LINE // 8
    p, seen = int(starts[0]), []
    for _ in range(lines):
        seen.append(p)
        p = int(chain[p])
    assert p == starts[0] and sorted(seen) == [k * (host.LINE // 8) for k in range(lines)]
    assert [seen[k + 1] - seen[k] for k in range(5)] != [host.LINE // 8] * 5  # not a stride a prefetcher follows


def test_several_chains_share_the_lines_out_each_a_cycle_of_its_own():
    chain, starts = host.pointer_chain(100, np.random.default_rng(2), chains=4)
    seen = set()
    for start in starts:
        p, length = int(start), 0
        while True:
            seen.add(p)
            p, length = int(chain[p]), length + 1
            if p == start:
                break
        assert length == 25
    assert seen == {k * (host.LINE // 8) for k in range(100)}


def test_a_small_bounded_sweep_gives_plausible_latencies_nearest_level_quickest():
    started = time.perf_counter()
    sweep = host.latency_sweep(
        sizes=[4096, 8192, 2 << 20, 4 << 20],
        caches=(("L1", 32 << 10),),
        seconds_per_size=0.004,
        repeats=2,
        progress=False,
    )
    assert time.perf_counter() - started < 20  # sizes × seconds_per_size, the chains and numba's first compile
    assert sweep.latency.shape == (4,) and sweep.runs.shape == (4, 2)
    assert all(1e-10 < t < 1e-5 for t in sweep.latency)  # 0.1 ns … 10 µs per dependent load
    assert [name for name, _ in sweep.levels] == ["L1", "DRAM"]
    l1, far = (value for _, value in sweep.levels)
    assert far > 1.5 * l1  # 2-4 MiB of random lines is slower than a chain that sits in L1
    m = Machine(1e9, levels={"L1": 1e11, "DRAM": 1e10}, latency=dict(sweep.levels))
    assert m.latencies.tolist() == [l1, far]
    figure = sweep.plot()
    bands = [c for c in figure.axes[0].collections if isinstance(c, PolyCollection)]
    assert figure.axes[0].get_yscale() == "log" and len(bands) == 1  # the repeats' spread is drawn


def test_sizes_too_small_for_two_lines_are_refused():
    with pytest.raises(ArgumentError, match="at least 128 bytes"):
        host.latency_sweep(sizes=[64], progress=False)


def test_measure_fills_in_latency_per_level_beside_bandwidth(monkeypatch):
    levels = (("L1", 2e-9), ("L2", 5e-9), ("DRAM", 9e-8))
    fake = host.LatencySweep(np.array([1.0]), np.array([1.0]), (), levels)
    bandwidths = host.BandwidthSweep(np.array([1.0]), np.array([1.0]), (), (("L1", 3e11), ("L2", 1e11), ("DRAM", 2e10)))
    monkeypatch.setattr(machine, "measure_peaks", lambda **_: (1e11, 2e10))
    monkeypatch.setattr(machine, "latency_sweep", lambda **_: fake)
    monkeypatch.setattr(machine, "bandwidth_sweep", lambda **_: bandwidths)
    m = Machine.measure(levels=True, latency=True)
    assert m.level_names == ("L1", "L2", "DRAM") and m.latencies.tolist() == [2e-9, 5e-9, 9e-8]
    one = Machine.measure(latency=True)
    assert one.latencies.tolist() == [9e-8] and not Machine.measure().latency
    # the measured machine times a pointer chase: 64 B in flight over 90 ns
    w = Workload([Phase("chase", ops=0, bytes=6.4e3, bytes_in_flight=64)], machine=one)
    assert float(w.arrays.duration[0]) == pytest.approx(6.4e3 / (64 / 9e-8))
