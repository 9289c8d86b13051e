"""Seed 002's worked examples, to the digit, and its guidance for each regime and side of 0.7."""

import numpy as np
import pytest

from campaign_widget import Machine, Phase, Workload
from campaign_widget.model.roofline import GUIDANCE, roofline, schedule_roofline, workload_roofline

P, BW = 200e9, 50e9
n = 1024


def test_ridge_point_is_4_flop_per_byte():
    assert roofline(P, BW, [1], [1], [1]).ridge == 4


def test_saxpy_blocked_and_naive_gemm():
    ops = np.array([2 * n, 2 * n**3, 2 * n**3], dtype=float)
    bytes_ = np.array([24 * n, 4 * n**3 / 64, 8 * n**3], dtype=float)
    r = roofline(P, BW, ops, bytes_, time=ops / 1e9)
    np.testing.assert_allclose(r.intensity, [1 / 12, 32, 0.25])
    assert round(r.bound[0] / 1e9, 2) == 4.17
    assert r.bound[1] == 200e9 and r.bound[2] == 12.5e9
    assert list(r.regime) == ["memory-bound", "compute-bound", "memory-bound"]


@pytest.mark.parametrize("efficiency, near", [(0.93, True), (0.7, True), (0.69, False), (0.1, False)])
@pytest.mark.parametrize("intensity, regime", [(1 / 12, "memory-bound"), (32, "compute-bound")])
def test_guidance_for_each_regime_and_side_of_the_threshold(efficiency, near, intensity, regime):
    ops = 1e9
    bound = min(P, BW * intensity)
    r = roofline(P, BW, [ops], [ops / intensity], [ops / (efficiency * bound)])
    assert r.regime[0] == regime
    assert r.efficiency[0] == pytest.approx(efficiency)
    assert r.guidance[0] == GUIDANCE[(regime, near)]
    assert r.guidance[0].startswith("Near roof" if near else "Below roof")


def test_threshold_is_adjustable():
    r = roofline(P, BW, [1e9], [1e9 / 32], [1e9 / (0.8 * P)], threshold=0.9)
    assert r.guidance[0].startswith("Below roof")
    with pytest.raises(ValueError, match="threshold=1.5"):
        roofline(P, BW, [1], [1], [1], threshold=1.5)


def test_workload_points_and_the_aggregate_point():
    w = Workload(
        [Phase("saxpy", ops=2e9, bytes=24e9), Phase("gemm", ops=400e9, bytes=12.5e9, after=["saxpy"])],
        machine=Machine(peak_compute=P, peak_bandwidth=BW),
    )
    phases = workload_roofline(w)
    np.testing.assert_allclose(phases.efficiency, 1.0)
    total = schedule_roofline(w, w.schedule())
    assert total.intensity[0] == pytest.approx(402e9 / 36.5e9)
    assert total.achieved[0] == pytest.approx(402e9 / (0.48 + 2.0))
