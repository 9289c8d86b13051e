"""The concurrency roof (docs/memory-hierarchy.md#latency-and-the-concurrency-roof): a phase's memory
time at min(peak bandwidth, bytes in flight / latency), in the schedule, the bound and the roofline,
on cases computed by hand; nothing changes without a latency or without bytes in flight."""

import dataclasses
import math

import numpy as np
import pytest

import campaign_widget as cw
from campaign_widget.errors import CampaignWidgetError, WorkloadError
from campaign_widget.figures.roofline import phase_details, roofline_geometry
from campaign_widget.model.roofline import GUIDANCE, LATENCY_BOUND, roofline_ceilings, workload_roofline
from campaign_widget.static_figure.panels import roofline_panel_for
from campaign_widget.static_figure.render import render_figure
from campaign_widget.views.roofline_canvas import RooflinePlot

P, BW, LAT = 1e12, 1e11, 100e-9  # 1 TFLOP/s, 100 GB/s, 100 ns


def two_phases(machine, in_flight=64.0):
    # "chase" keeps 64 B in flight: 64 B / 100 ns = 640 MB/s; "stream" gives none: the peak
    return cw.Workload(
        [
            cw.Phase("chase", ops=1e6, bytes=1e8, bytes_in_flight=in_flight),
            cw.Phase("stream", ops=1e6, bytes=1e8, after=["chase"]),
        ],
        machine=machine,
    )


def test_memory_time_is_bytes_over_in_flight_over_latency_in_the_schedule_and_the_bound():
    w = two_phases(cw.Machine(P, BW, latency=LAT))
    t = w.table()
    # chase: 1e8 B at 6.4e8 B/s = 0.15625 s; stream: 1e8 B at 1e11 B/s = 1e-3 s
    assert list(t["duration"]) == [0.15625, 1e-3]
    assert list(t["bound"]) == ["latency", "memory"]
    # the pipe: a phase that reaches 640 MB/s of 100 GB/s uses 0.64% of its width
    assert t["memory_util"][0] == pytest.approx(6.4e8 / 1e11, rel=1e-12) and t["memory_util"][1] == 1.0
    assert float(w.schedule().makespan) == pytest.approx(0.15625 + 1e-3, rel=1e-12)


def test_enough_bytes_in_flight_reach_the_peak_and_stay_memory_bound():
    # 1e5 B / 100 ns = 1e12 B/s > 1e11: the bandwidth roof is the lower one
    t = two_phases(cw.Machine(P, BW, latency=LAT), in_flight=1e5).table()
    assert list(t["duration"]) == [1e-3, 1e-3] and list(t["bound"]) == ["memory", "memory"]


def test_a_latency_in_cycles_is_cycles_over_the_clock_and_requests_times_their_size_are_bytes():
    seconds = two_phases(cw.Machine(P, BW, latency=LAT)).table()["duration"]
    cycles = cw.Machine(P, BW, latency=300, latency_unit="cycles", clock=3e9)  # 300 / 3 GHz = 100 ns
    assert cycles.latencies.tolist() == pytest.approx([1e-7], rel=1e-15)
    w = cw.Workload(
        [
            cw.Phase("chase", ops=1e6, bytes=1e8, requests_in_flight=8, request_bytes=8),
            cw.Phase("stream", ops=1e6, bytes=1e8, after=["chase"]),
        ],
        machine=cycles,
    )
    assert w.table()["duration"] == pytest.approx(seconds, rel=1e-12)


def test_on_several_levels_each_level_caps_the_phase_and_the_slowest_bounds_it():
    m = cw.Machine(P, levels={"L2": 1e12, "DRAM": 1e11}, latency={"L2": 20e-9, "DRAM": 100e-9})
    w = cw.Workload([cw.Phase("walk", ops=1e3, bytes={"L2": 1e9, "DRAM": 1e8}, bytes_in_flight=1024)], machine=m)
    # L2: 1024 B / 20 ns = 5.12e10 B/s → 1e9 B in 0.01953125 s; DRAM: 1.024e10 B/s → 1e8 B in 0.009765625 s
    a, t = w.arrays, w.table()
    assert a.attainable.tolist() == [[5.12e10, 1.024e10]]
    assert float(a.duration[0]) == pytest.approx(1e9 / 5.12e10, rel=1e-12)
    assert t["bound"][0] == "latency" and t["bound_resource"][0] == "L2"
    assert t["memory_util_L2"][0] == pytest.approx(5.12e10 / 1e12, rel=1e-12)


def test_the_roofline_judges_a_phase_against_its_concurrency_roof_and_draws_it():
    w = two_phases(cw.Machine(P, BW, latency=LAT))
    r = workload_roofline(w)
    # OI = 1e6 / 1e8 = 0.01 FLOP/B: under the concurrency roof 6.4e8 × 0.01 = 6.4e6 FLOP/s
    assert r.bound.tolist() == pytest.approx([6.4e6, 1e9], rel=1e-12)
    assert list(r.regime) == [LATENCY_BOUND, "memory-bound"]
    assert r.efficiency.tolist() == pytest.approx([1.0, 1.0])
    g = roofline_geometry(w, w.schedule())
    ((name, x, y),) = g.ceilings
    assert name == "64 B in flight"
    x_lo, x_hi = g.x_range
    assert x.tolist() == pytest.approx([x_lo, P / 6.4e8, x_hi], rel=1e-12)
    assert y.tolist() == pytest.approx([6.4e8 * x_lo, P, P], rel=1e-12)


def test_latency_bound_guidance_asks_for_concurrency_not_blocking():
    for near in (True, False):
        text = GUIDANCE[(LATENCY_BOUND, near)]
        assert "in flight" in text and "prefetch" in text and "threads" in text and "blocking does not" in text
    w = two_phases(cw.Machine(P, BW, latency=LAT))
    lines = phase_details(roofline_geometry(w, w.schedule()), w, 0.7, 0)
    assert lines[2].startswith(LATENCY_BOUND) and lines[3] == GUIDANCE[(LATENCY_BOUND, True)]
    h = w.with_machine(cw.Machine(P, levels={"L2": 1e12, "DRAM": BW}, latency={"DRAM": LAT}))
    assert phase_details(roofline_geometry(h, h.schedule()), h, 0.7, 0)[2].startswith("DRAM latency-bound")


def test_every_view_draws_the_concurrency_ceiling_with_its_label():
    w = two_phases(cw.Machine(P, BW, latency=LAT))
    diagram = cw.CampaignDiagram(w)
    assert [c["name"] for c in RooflinePlot(diagram).geometry["ceilings"]] == ["64 B in flight"]
    live = cw.Explorer(w).roofline
    assert list(live.ceiling_slope_labels.text) == ["64 B in flight"] and live.ceilings.visible
    rendered = render_figure([], roofline=roofline_panel_for(w), width=6, dpi=60)
    texts = [t.get_text() for t in rendered.figure.findobj(lambda a: hasattr(a, "get_text"))]
    assert "64 B in flight" in texts


def test_a_machine_ceiling_comes_before_the_concurrency_roofs_and_levels_name_theirs():
    m = cw.Machine(
        P,
        levels={"L2": 1e12, "DRAM": BW},
        latency={"L2": 20e-9, "DRAM": LAT},
        ceilings=(cw.Ceiling("no FMA", compute=P / 2),),
    )
    w = two_phases(m)
    # 64 B / 20 ns = 3.2 GB/s < 1 TB/s and 64 B / 100 ns = 640 MB/s < 100 GB/s: both levels cap it
    assert [(c.name, c.bandwidth) for c in roofline_ceilings(w)] == [
        ("no FMA", None),
        ("64 B in flight at L2", pytest.approx(3.2e9)),
        ("64 B in flight at DRAM", pytest.approx(6.4e8)),
    ]


def _same(a, b):
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if x is None or y is None:
            assert x is y, f.name
        else:
            assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), f.name


@pytest.mark.parametrize("case", ["no latency", "no bytes in flight", "latency on another level"])
def test_without_a_latency_or_bytes_in_flight_every_number_is_exactly_todays(case):
    plain = cw.Machine(P, levels={"L2": 1e12, "DRAM": BW})

    def phases(in_flight=None):
        return [
            cw.Phase("walk", ops=1e6, bytes={"L2": 1e9, "DRAM": 1e8}, bytes_in_flight=in_flight),
            cw.Phase("gemm", ops=1e12, bytes=1e8, after=["walk"]),
            cw.Phase("measured", duration=2e-3, compute_util=0.5, memory_util=0.25, after=["gemm"]),
        ]

    today = cw.Workload(phases(), machine=plain)
    if case == "no latency":
        other = cw.Workload(phases(64.0), machine=plain)
    elif case == "no bytes in flight":
        other = cw.Workload(phases(), machine=dataclasses.replace(plain, latency={"DRAM": LAT}))
    else:  # L2 has no latency; at DRAM 1 MB in flight over 100 ns is 1e13 B/s, above the peak
        other = cw.Workload(phases(1e6), machine=dataclasses.replace(plain, latency={"DRAM": LAT}))
    _same(dataclasses.replace(today.arrays, attainable=None), dataclasses.replace(other.arrays, attainable=None))
    for settings in ({}, {"tiles": 4, "pipeline": True, "policy": "throttle"}):
        assert other.schedule(**settings).makespan == today.schedule(**settings).makespan
    assert workload_roofline(other).guidance.tolist() == workload_roofline(today).guidance.tolist()
    if case != "latency on another level":
        assert other.arrays.attainable is None  # nothing to cap: the derivation is today's, untouched


@pytest.mark.parametrize("bad", [-1.0, 0, math.nan, math.inf])
def test_a_latency_that_is_not_a_positive_finite_number_is_refused_naming_its_level(bad):
    with pytest.raises(WorkloadError, match="latency"):
        cw.Machine(P, BW, latency=bad)
    with pytest.raises(WorkloadError, match="'DRAM' latency"):
        cw.Machine(P, levels={"L2": 1e12, "DRAM": BW}, latency={"DRAM": bad})


@pytest.mark.parametrize("bad", [-1.0, 0, math.nan, math.inf])
def test_bytes_in_flight_that_are_not_a_positive_finite_number_are_refused_naming_the_phase(bad):
    with pytest.raises(WorkloadError, match="phase 'chase': bytes_in_flight"):
        cw.Phase("chase", ops=1, bytes=1, bytes_in_flight=bad)
    with pytest.raises(WorkloadError, match="phase 'chase': requests_in_flight"):
        cw.Phase("chase", ops=1, bytes=1, requests_in_flight=bad, request_bytes=64)
    if math.isnan(bad):
        return  # a NaN in a column of from_arrays means "not given", as in every column there
    with pytest.raises(WorkloadError, match="phase 'b': bytes_in_flight"):
        cw.Workload.from_arrays(
            ["a", "b"], ops=[1, 1], bytes=[1, 1], bytes_in_flight=[64, bad], machine=cw.Machine(P, BW)
        )


def test_cycles_without_a_clock_and_other_misfits_are_our_errors():
    cases = [
        lambda: cw.Machine(P, BW, latency=300, latency_unit="cycles"),  # no clock
        lambda: cw.Machine(P, BW, latency=300, latency_unit="ns"),
        lambda: cw.Machine(P, BW, latency=1e-7, clock=-1),
        lambda: cw.Machine(P, levels={"L2": 1e12, "DRAM": BW}, latency=1e-7),  # which level?
        lambda: cw.Machine(P, levels={"L2": 1e12, "DRAM": BW}, latency={"HBM": 1e-7}),
        lambda: cw.Machine(P, BW, latency="100ns"),
        lambda: cw.Phase("chase", ops=1, bytes=1, requests_in_flight=8),  # no request size
        lambda: cw.Phase("chase", ops=1, bytes=1, bytes_in_flight=64, requests_in_flight=8, request_bytes=8),
    ]
    for make in cases:
        with pytest.raises(CampaignWidgetError):
            make()
    with pytest.raises(WorkloadError, match="no clock"):
        cases[0]()


def test_concurrency_roofs_too_close_to_label_apart_are_thinned_out():
    # 64 B / 100 ns = 640 MB/s, then 128 B (2× the first: its label would lie on it), 256 B (4×), 1 KiB (16×)
    w = cw.Workload(
        [cw.Phase(f"walk {q}", ops=1e3, bytes=1e8, bytes_in_flight=q) for q in (64, 128, 256, 1024)],
        machine=cw.Machine(P, BW, latency=LAT),
    )
    assert [c.name for c in roofline_ceilings(w)] == ["64 B in flight", "256 B in flight", "1.02 kB in flight"]
    # every phase is still judged against its own roof
    assert workload_roofline(w).bound.tolist() == pytest.approx([q / LAT * 1e-5 for q in (64, 128, 256, 1024)])


def test_a_workload_file_keeps_latency_and_bytes_in_flight_and_names_a_bad_one(tmp_path):
    m = cw.Machine(P, levels={"L2": 1e12, "DRAM": BW}, latency={"DRAM": 300}, latency_unit="cycles", clock=3e9)
    w = two_phases(m)
    for suffix in ("yaml", "json"):
        back = cw.load(cw.save(w, tmp_path / f"w.{suffix}"))
        assert back.machine == w.machine and back.bytes_in_flight.tolist()[0] == 64.0
        assert back.arrays.duration.tolist() == w.arrays.duration.tolist()
    text = (tmp_path / "w.yaml").read_text().replace("DRAM: 300.0", "DRAM: -3")
    (tmp_path / "bad.yaml").write_text(text)
    with pytest.raises(cw.WorkloadFileError, match="'DRAM' latency=-3"):
        cw.load(tmp_path / "bad.yaml")
    text = (tmp_path / "w.yaml").read_text().replace("bytes_in_flight: 64.0", "bytes_in_flight: 0")
    (tmp_path / "zero.yaml").write_text(text)
    with pytest.raises(cw.WorkloadFileError, match="bytes_in_flight"):
        cw.load(tmp_path / "zero.yaml")


def test_the_command_line_summary_calls_a_latency_bound_phase_so_and_asks_for_concurrency(tmp_path, capsys):
    from campaign_widget.cli import main

    path = cw.save(two_phases(cw.Machine(P, BW, latency=LAT)), tmp_path / "walks.yaml")
    assert main(["summary", str(path)]) == 0
    out = capsys.readouterr().out
    chase = next(line for line in out.splitlines() if line.startswith("chase"))
    assert "latency-bound" in chase and "more bytes in flight" in chase and "156.2 ms" in chase


def test_moving_a_peak_keeps_the_latency_and_a_higher_peak_does_not_lift_a_latency_bound_phase():
    w = two_phases(cw.Machine(P, BW, latency=LAT))
    faster = w.with_peaks(peak_bandwidth=10 * BW)  # the diagram's bandwidth slider
    assert faster.machine.latency == w.machine.latency
    t = faster.table()
    assert t["duration"][0] == 0.15625 and t["duration"][1] == pytest.approx(1e-4)  # only the stream gains
    assert t["memory_util"][0] == pytest.approx(6.4e8 / 1e12)  # a narrower pipe of a wider peak
