"""Machine.measure() returns this host's empirical ceilings and reports progress."""

import math

from campaign_widget import Machine


def test_measure_gives_plausible_peaks_and_reports_progress():
    seen = []
    m = Machine.measure(stream_bytes=24e6, matmul_n=256, repeats=2, progress=lambda d, t, w: seen.append((d, t, w)))
    assert math.isfinite(m.peak_bandwidth) and 1e8 < m.peak_bandwidth < 1e13  # 0.1 GB/s … 10 TB/s
    assert math.isfinite(m.peak_compute) and 1e7 < m.peak_compute < 1e14
    assert [d for d, _, _ in seen] == [1, 2, 3, 4] and {w for _, _, w in seen} == {"memory bandwidth", "compute"}
    assert "measured" in m.name
