"""Host measurements that contradict themselves (issue: L2 printed at 8 GB/s, slower than L3 and DRAM,
fed a Machine): a hierarchy out of order, or repeats apart beyond their spread, is measured again,
then warned about; Machine.measure refuses it; the figure shows the spread
(docs/memory-hierarchy.md#measuring-the-levels-on-this-host)."""

import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from campaign_widget import Machine
from campaign_widget.errors import MeasurementError, MeasurementWarning
from campaign_widget.model import host, machine

CACHES = (("L1", 32 << 10), ("L2", 1 << 20), ("L3", 32 << 20))
SIZES = np.array([8e3, 16e3, 128e3, 256e3, 4e6, 8e6, 256e6, 512e6])
GOOD = {8e3: 300e9, 16e3: 300e9, 128e3: 100e9, 256e3: 100e9, 4e6: 60e9, 8e6: 60e9, 256e6: 20e9, 512e6: 20e9}


class Host:
    """A host whose L2 sizes measure at 8 GB/s for the first ``dips`` passes over them."""

    def __init__(self, dips):
        self.dips, self.calls = dips, []

    def __call__(self, size):
        self.calls.append(size)
        slow = size in (128e3, 256e3) and self.calls.count(size) <= self.dips
        return [8e9 if slow else GOOD[size]] * 3


def test_a_level_slower_than_farther_ones_is_measured_again_and_kept_when_it_recovers(recwarn):
    busy = Host(dips=1)
    best, runs, levels, problems = host.measured_sweep(
        SIZES, busy, CACHES, falling=True, spread=0.5, what="bandwidth sweep", progress=False
    )
    # every size read as L2, L3 or DRAM (the levels it was out of order with) measured twice, L1 once
    assert sorted(s for s in set(busy.calls) if busy.calls.count(s) == 2) == sorted(SIZES[2:])
    assert dict(levels)["L2"] == 100e9 and problems == () and not recwarn.list


def test_a_level_still_out_of_order_is_warned_about_naming_the_levels():
    with pytest.warns(MeasurementWarning, match=r"L2 \(8e\+09\) is not faster than L3 \(6e\+10\)"):
        best, runs, levels, problems = host.measured_sweep(
            SIZES, Host(dips=2), CACHES, falling=True, spread=0.5, what="bandwidth sweep", progress=False
        )
    assert any("L2" in p and "DRAM" in p for p in problems)
    sweep = host.BandwidthSweep(SIZES, best, CACHES, levels, runs, tuple(problems))
    assert not sweep.monotone
    assert "not monotone" in sweep.plot().axes[0].get_title()


def test_a_latency_hierarchy_is_in_order_when_it_rises_outward():
    assert host.hierarchy_problems((("L1", 1e-9), ("L2", 4e-9), ("DRAM", 9e-8)), falling=False) == []
    (line,) = host.hierarchy_problems((("L1", 1e-9), ("L2", 2e-7), ("DRAM", 9e-8)), falling=False)
    assert "L2" in line and "DRAM" in line
    # within the slack, two levels read as equal rather than out of order
    assert host.hierarchy_problems((("L3", 60e9), ("DRAM", 61e9)), falling=True) == []


def test_repeats_apart_beyond_the_spread_are_measured_again_then_warned_and_drawn():
    def noisy(size):
        return [GOOD[size], GOOD[size] / 4, GOOD[size]]  # one repeat at a quarter: 4× apart

    with pytest.warns(MeasurementWarning, match=r"repeats more than 1.5× apart at 8 of 8 working sets"):
        best, runs, levels, problems = host.measured_sweep(
            SIZES, noisy, CACHES, falling=True, spread=0.5, what="bandwidth sweep", progress=False
        )
    assert best.tolist() == [GOOD[s] for s in SIZES]  # the best repeat of each is kept
    sweep = host.BandwidthSweep(SIZES, best, CACHES, levels, runs, tuple(problems))
    axes = sweep.plot().axes[0]
    (band,) = [c for c in axes.collections if isinstance(c, PolyCollection)]  # between worst and best repeat
    ys = band.get_paths()[0].vertices[:, 1]
    assert ys.min() == pytest.approx(min(GOOD.values()) / 4) and ys.max() == pytest.approx(max(GOOD.values()))


def test_measure_refuses_levels_out_of_order(monkeypatch):
    out_of_order = host.BandwidthSweep(
        SIZES, SIZES, CACHES, (("L1", 300e9), ("L2", 8e9), ("L3", 60e9), ("DRAM", 20e9)), problems=("L2 …",)
    )
    monkeypatch.setattr(machine, "measure_peaks", lambda **_: (1e11, 2e10))
    monkeypatch.setattr(machine, "bandwidth_sweep", lambda **_: out_of_order)
    with pytest.raises(MeasurementError, match="out of order"):
        Machine.measure(levels=True)
