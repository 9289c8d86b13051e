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


def test_plateaus_are_the_median_of_each_levels_working_sets():
    from campaign_widget.model.host import plateaus

    caches = (("L1", 32 << 10), ("L2", 1 << 20))
    sizes = [4e3, 8e3, 16e3, 64e3, 256e3, 512e3, 2e6, 8e6, 16e6]
    bandwidth = [300, 310, 305, 150, 140, 130, 60, 20, 22]
    assert plateaus(sizes, bandwidth, caches) == (("L1", 305.0), ("L2", 140.0), ("DRAM", 21.0))


def test_a_level_with_no_size_in_its_range_takes_the_nearest():
    from campaign_widget.model.host import plateaus

    levels = plateaus([1e3, 1e8], [100.0, 10.0], (("L1", 32 << 10),))
    assert levels == (("L1", 100.0), ("DRAM", 10.0))


def test_cache_sizes_read_sysfs_spellings():
    from campaign_widget.model.host import _parse_size, cache_sizes

    assert (_parse_size("32K"), _parse_size("1024K"), _parse_size("32M"), _parse_size("512")) == (
        32768,
        1 << 20,
        32 << 20,
        512,
    )
    names = [name for name, _ in cache_sizes()]
    assert names == sorted(names) and all(name.startswith("L") for name in names)


def test_the_sweep_measures_every_size_and_gives_a_machine_its_levels():
    from campaign_widget.model.host import bandwidth_sweep

    sweep = bandwidth_sweep(
        sizes=[24e3, 4e6], caches=(("L1", 48 << 10),), seconds_per_size=0.002, repeats=1, progress=False
    )
    assert sweep.bandwidth.shape == (2,) and all(1e8 < b < 1e13 for b in sweep.bandwidth)
    assert [name for name, _ in sweep.levels] == ["L1", "DRAM"]
    m = Machine(1e9, levels=dict(sweep.levels))
    assert m.level_names == ("L1", "DRAM")
    figure = sweep.plot()
    assert figure.axes[0].get_xscale() == "log"
