"""Several memory levels (docs/memory-hierarchy.md#machines-with-levels): machines, phases, per-phase quantities."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import campaign_widget as cw

# docs/memory-hierarchy.md#reference-numbers's reference machine and chain
L2_DRAM = dict(peak_compute=100, levels={"L2": 40, "DRAM": 10})


def chain(machine=None):
    machine = machine or cw.Machine(**L2_DRAM)
    return cw.Workload(
        [
            cw.Phase("A", ops=300, bytes={"L2": 200, "DRAM": 20}),
            cw.Phase("B", ops=200, bytes={"L2": 40, "DRAM": 60}, after=["A"]),
        ],
        machine=machine,
    )


def test_machine_levels_nearest_first_and_the_farthest_is_peak_bandwidth():
    m = cw.Machine(**L2_DRAM)
    assert m.level_names == ("L2", "DRAM")
    assert m.resource_names == ("compute", "L2", "DRAM")
    assert (m.peak_bandwidth, m.memory_name, m.bandwidth("L2")) == (10.0, "DRAM", 40.0)
    assert m.with_peaks(peak_bandwidth=20).memory_levels == (("L2", 40.0), ("DRAM", 20.0))
    assert m.with_level("L2", 80).bandwidth("L2") == 80.0


def test_a_one_level_machine_is_todays_machine_however_it_is_spelled():
    assert cw.Machine(1, levels={"memory": 2}) == cw.Machine(1, 2)
    assert cw.Machine(1, 2).levels == () and cw.Machine(1, 2).memory_levels == (("memory", 2.0),)
    assert cw.Machine(1, levels={"HBM": 3}).memory_name == "HBM"


@pytest.mark.parametrize(
    "levels, words",
    [
        ([("L2", 40), ("L2", 10)], ["'L2'", "twice"]),
        ({"L2": 0, "DRAM": 10}, ["'L2'", "bandwidth=0"]),
        ({"L2": math.nan, "DRAM": 10}, ["'L2'", "nan"]),
        ({"compute": 5, "DRAM": 10}, ["'compute'", "compute"]),
        ({}, ["empty"]),
    ],
)
def test_bad_levels_are_refused_naming_the_level_and_value(levels, words):
    with pytest.raises(cw.WorkloadError) as error:
        cw.Machine(100, levels=levels)
    for word in words:
        assert word in str(error.value)


def test_peak_bandwidth_beside_levels_must_be_the_farthest_levels():
    with pytest.raises(cw.WorkloadError, match="farthest level 'DRAM'"):
        cw.Machine(100, 5, levels={"L2": 40, "DRAM": 10})


def test_peaks_take_numpy_scalars_and_fractions():
    m = cw.Machine(np.float32(2), Fraction(1, 4), levels=None)
    assert (m.peak_compute, m.peak_bandwidth) == (2, 0.25)


def test_reference_chain_durations_and_bounding_levels():
    w = chain()
    a = w.arrays
    assert a.duration.tolist() == [5.0, 6.0]
    assert a.bound_resource.tolist() == ["L2", "DRAM"]
    assert float(w.schedule().makespan) == 11.0
    np.testing.assert_array_equal(a.level_bytes, [[200, 20], [40, 60]])
    np.testing.assert_allclose(a.level_util, [[1.0, 0.4], [1 / 6, 1.0]])


def test_a_level_without_a_number_is_unknown_not_zero():
    w = cw.Workload([cw.Phase("A", ops=300, bytes={"L2": 200})], machine=cw.Machine(**L2_DRAM))
    t = w.table()
    assert math.isnan(t["bytes_DRAM"][0]) and t["bytes_L2"][0] == 200
    assert math.isnan(t["intensity_DRAM"][0]) and t["intensity_L2"][0] == 1.5
    assert t["bound_resource"][0] == "L2" and t["duration"][0] == 5


def test_a_plain_number_means_the_farthest_level():
    w = cw.Workload([cw.Phase("A", ops=300, bytes=20)], machine=cw.Machine(**L2_DRAM))
    t = w.table()
    assert t["bytes_DRAM"][0] == 20 and math.isnan(t["bytes_L2"][0])
    assert t["bound_resource"][0] == "compute"


def test_utilizations_per_level_become_bytes_over_the_measured_duration():
    w = cw.Workload(
        [cw.Phase("A", duration=2, compute_util=0.5, memory_util={"L2": 0.5, "DRAM": 0.25})],
        machine=cw.Machine(**L2_DRAM),
    )
    t = w.table()
    assert (t["bytes_L2"][0], t["bytes_DRAM"][0], t["ops"][0]) == (40.0, 5.0, 100.0)


def test_per_level_expressions_follow_the_parameters():
    w = cw.Workload([cw.Phase("A", ops=100, bytes={"L2": "4*n"})], machine=cw.Machine(**L2_DRAM), params={"n": 100})
    assert w.arrays.duration[0] == 10.0
    assert w.with_params(n=200).arrays.duration[0] == 20.0


def test_bytes_for_a_level_the_machine_lacks_name_the_phase_level_and_value():
    with pytest.raises(cw.WorkloadError, match=r"phase 'A': bytes\['L3'\]=5: .*L2, DRAM"):
        cw.Workload([cw.Phase("A", ops=1, bytes={"L3": 5})], machine=cw.Machine(**L2_DRAM))
    with pytest.raises(cw.WorkloadError, match="phase 'A': bytes for memory level 'L2'"):
        chain().with_machine(cw.Machine(1, 1))


def test_one_level_tables_gain_only_the_bounding_resource():
    w = cw.Workload([cw.Phase("A", ops=4, bytes=1)], machine=cw.Machine(1, 1))
    t = w.table()
    assert t["bound_resource"].tolist() == ["compute"]
    assert not any(key.startswith("bytes_") and key != "bytes_source" for key in t)


def test_the_hierarchical_roofline_has_a_point_per_known_level():
    from campaign_widget.model.roofline import level_roofline

    w = cw.Workload(
        [cw.Phase("A", ops=300, bytes={"L2": 200, "DRAM": 20}), cw.Phase("B", ops=200, bytes={"L2": 40})],
        machine=cw.Machine(**L2_DRAM),
    )
    r = level_roofline(w)
    assert r.levels == ("L2", "DRAM")
    np.testing.assert_allclose(r.intensity[0], [1.5, 15.0])
    assert r.intensity[1, 0] == 5.0 and math.isnan(r.intensity[1, 1])
    assert r.known().tolist() == [[True, True], [True, False]]
    np.testing.assert_allclose(r.achieved, [60.0, 200 / 2])  # A: 300 ops in 5 s; B: compute-bound, 2 s
    assert r.ridge("L2") == 2.5 and r.ridge("DRAM") == 10.0
    assert r.roof("L2", [1.0, 100.0]).tolist() == [40.0, 100.0]
    x_lo, x_hi, y_lo, y_hi = r.axis_limits()
    assert x_lo < 1.5 and x_hi > 15 and y_hi == 200


def test_readout_numbers_read_in_the_makespans_unit():
    from campaign_widget.figures.readout import readout_lines
    from campaign_widget.figures.scene import build_scene

    w = cw.Workload(
        [
            cw.Phase("A", duration=3e-3, compute_util=0.7, memory_util=0.6),
            cw.Phase("B", duration=10e-3, compute_util=0.2, memory_util=0.9, after=["A"]),
        ]
    )
    s = w.schedule(tiles=4, pipeline=True)
    lines = [text for text, _ in readout_lines(build_scene(s), units={"time": "s"}, makespan=s.makespan)]
    assert lines[0] == "makespan 10.75 ms"
    assert lines[1].startswith("memory oversubscribed") and lines[1].endswith(" ms")
    assert "e-0" not in " ".join(lines)


def test_an_unknown_preset_name_is_quoted_bounded():
    from campaign_widget.model.presets import machine

    with pytest.raises(cw.WorkloadError) as error:
        machine("x" * 100_000)
    assert len(str(error.value)) < 1_000


def test_a_cache_hierarchy_predicts_every_levels_bytes_and_moves_the_phase():
    from campaign_widget.cache import Cache, predicted_level_bytes, simulate, trace

    m = cw.Machine(1e9, levels={"L1": 4e9, "L2": 2e9, "DRAM": 1e9})
    sizes = {"i": 16, "j": 16, "k": 16}
    w = cw.Workload.from_einsums({"gemm": "C[i,j] = A[i,k] * B[k,j]"}, sizes, machine=m, element_bytes=8)
    l1, l2 = Cache(lines=8, ways=2), Cache(lines=64, ways=4)
    served = predicted_level_bytes(w, "gemm", [l1, l2])
    t = trace("C[i,j] = A[i,k] * B[k,j]", sizes, elem_bytes=8)
    r1, r2 = simulate(t, [l1, l2])
    # docs/memory-hierarchy.md#a-cache-hierarchy-in-the-local-view: the first cache serves every access; each level below, line × misses above
    assert served == {"L1": 8.0 * len(t), "L2": 64.0 * r1.misses, "DRAM": 64.0 * r2.misses}
    p = cw.cache.with_predicted_traffic(w, "gemm", [l1, l2])
    np.testing.assert_array_equal(p.arrays.level_bytes[0], [served["L1"], served["L2"], served["DRAM"]])
    assert p.table()["bytes_source"][0] == "predicted"
    assert p.predicted["gemm"]["level_bytes"] == {"L1": served["L1"], "L2": served["L2"]}
    # a loop interchange changes what the levels serve, so it moves the phase at the level it changed
    q = cw.cache.with_predicted_traffic(w, "gemm", [l1, l2], loop_order="ikj")
    assert q.arrays.level_bytes[0, 1] != p.arrays.level_bytes[0, 1]


def test_cache_levels_must_be_the_machines_nearer_levels():
    from campaign_widget.cache import Cache

    m = cw.Machine(1e9, levels={"L1": 4e9, "DRAM": 1e9})
    w = cw.Workload.from_einsums({"g": "C[i] = A[i]"}, {"i": 64}, machine=m)
    with pytest.raises(cw.CacheModelError, match="'L3' is not one of the machine's nearer memory levels"):
        cw.cache.with_predicted_traffic(w, "g", {"L3": Cache(lines=8)})
    with pytest.raises(cw.CacheModelError, match="write-backs"):
        cw.cache.with_predicted_traffic(w, "g", [Cache(lines=8)], write_back=True)


def _ncu_with_levels(tmp_path, with_peaks=True):
    import csv
    from pathlib import Path

    source = Path(__file__).parent / "data" / "importers" / "handmade-ncu-raw-roofline.csv"
    lines = source.read_text().splitlines()
    rows = list(csv.reader(lines[1:]))
    extra = {"l1tex__t_bytes.sum": ("Mbyte", "100"), "lts__t_bytes.sum": ("Mbyte", "50")}
    if with_peaks:
        extra |= {
            "l1tex__t_bytes.sum.peak_sustained": ("byte/cycle", "16,384"),
            "l1tex__cycles_elapsed.avg.per_second": ("cycle/nsecond", "1.41"),
            "lts__t_bytes.sum.peak_sustained": ("byte/cycle", "5,120"),
            "lts__cycles_elapsed.avg.per_second": ("cycle/nsecond", "1.41"),
        }
    rows[0] += list(extra)
    rows[1] += [unit for unit, _ in extra.values()]
    for row in rows[2:]:
        row += [value for _, value in extra.values()]
    path = tmp_path / "levels.csv"
    with path.open("w", newline="") as f:
        f.write(lines[0] + "\n")
        csv.writer(f, quoting=csv.QUOTE_ALL).writerows(rows)
    return path


def test_nsight_level_counters_give_three_points_per_kernel(tmp_path):
    from campaign_widget.model.roofline import level_roofline

    w = cw.read_nsight_csv(_ncu_with_levels(tmp_path))
    assert w.machine.level_names == ("L1", "L2", "DRAM")
    assert w.machine.bandwidth("L1") == pytest.approx(16384 * 1.41e9)
    assert w.machine.bandwidth("L2") == pytest.approx(5120 * 1.41e9)
    t = w.table()
    assert t["bytes_L1"][0] == pytest.approx(100e6) and t["bytes_L2"][0] == pytest.approx(50e6)
    r = level_roofline(w)
    assert r.known().all() and r.intensity.shape == (len(w), 3)


def test_nsight_level_counters_fill_a_given_machines_levels(tmp_path):
    machine = cw.Machine(1e13, levels={"L2": 5e12, "HBM": 2e12})
    w = cw.read_nsight_csv(_ncu_with_levels(tmp_path, with_peaks=False), machine=machine)
    t = w.table()
    assert t["bytes_L2"][0] == pytest.approx(50e6)
    assert not any(key == "bytes_L1" for key in t)


@pytest.mark.parametrize(
    "tiles, pipeline, policy, makespan, peak",
    [
        (1, False, "none", 11.0, None),
        (2, True, "none", 8.5, (0.9333333333, 1.1666666667, 1.4)),
        (2, True, "dilate+throttle", 9.5, (0.8333333333, 1.0, 1.3333333333)),
        (4, True, "throttle", 8.75, (0.9333333333, 1.1666666667, 1.4)),
    ],
)
def test_design_8_reference_schedules(tiles, pipeline, policy, makespan, peak):
    s = chain().schedule(tiles=tiles, pipeline=pipeline, policy=policy)
    assert s.makespan == pytest.approx(makespan, abs=1e-9)
    if peak is not None:
        assert list(s.peak_demand) == ["compute", "L2", "DRAM"]
        assert [s.peak_demand[k] for k in ("compute", "L2", "DRAM")] == pytest.approx(peak, abs=1e-9)


def test_oversubscription_is_reported_per_level_by_name():
    s = chain().schedule(tiles=2, pipeline=True, policy="none")
    assert {(t0, t1, name) for t0, t1, name, _ in s.oversubscribed} == {(2.5, 5.0, "DRAM"), (2.5, 5.0, "L2")}
    assert s.level_names == ("L2",) and s.requested_levels.shape == (len(s), 1)


def test_throttling_keeps_every_level_within_its_peak():
    s = chain().schedule(tiles=4, pipeline=True, policy="throttle")
    assert s.oversubscribed == []
    t, factor = s.throttle_timeline()
    assert np.all(s.edge_requested_levels[:, 0] * s.edge_factor <= 1 + 1e-9)
    assert np.all(s.edge_requested_memory * s.edge_factor <= 1 + 1e-9)


def test_a_nearer_level_alone_can_throttle():
    # DRAM is idle; two concurrent L2-heavy tiles oversubscribe L2 only
    m = cw.Machine(peak_compute=100, levels={"L2": 10, "DRAM": 1000})
    w = cw.Workload(
        [cw.Phase("A", ops=10, bytes={"L2": 80}), cw.Phase("B", ops=10, bytes={"L2": 80}, after=["A"])], machine=m
    )
    free = w.schedule(tiles=4, pipeline=True, policy="none")
    throttled = w.schedule(tiles=4, pipeline=True, policy="throttle")
    assert free.peak_demand["L2"] == pytest.approx(2.0) and free.peak_demand["DRAM"] == 0.0
    assert throttled.makespan > free.makespan and throttled.oversubscribed == []


def test_the_diagram_draws_any_level_as_its_pipe():
    from campaign_widget.figures.scene import build_scene
    from campaign_widget.model.levels import default_level, for_level

    w = chain()
    s = w.schedule(tiles=2, pipeline=True, policy="none")
    # A is L2-bound for 5 s and B DRAM-bound for 6 s: DRAM bounds the most time
    assert default_level(w) == "DRAM"
    l2 = for_level(s, "L2")
    assert l2.resource_names == ("compute", "L2")
    np.testing.assert_allclose(l2.requested_memory, s.requested_levels[:, 0])
    assert [name for _, _, name, _ in l2.oversubscribed] == ["L2"]
    dram = for_level(s, None)
    assert [name for _, _, name, _ in dram.oversubscribed] == ["DRAM"]
    scene_l2, scene_dram = build_scene(s, level="L2"), build_scene(s)
    assert not np.array_equal(scene_l2.fill_top, scene_dram.fill_top)
    with pytest.raises(cw.ScheduleError, match="'L3' is not a memory level"):
        build_scene(s, level="L3")


def test_one_level_scenes_are_unchanged_by_the_level_argument():
    from campaign_widget.figures.scene import build_scene

    w = cw.Workload(
        [
            cw.Phase("A", duration=3, compute_util=0.7, memory_util=0.6),
            cw.Phase("B", duration=10, compute_util=0.2, memory_util=0.9, after=["A"]),
        ]
    )
    s = w.schedule(tiles=4, pipeline=True)
    a, b = build_scene(s), build_scene(s, level="memory")
    np.testing.assert_array_equal(a.fill_top, b.fill_top)


def test_the_hierarchy_view_stacks_one_diagram_per_level_on_one_time_axis(tmp_path):
    from campaign_widget.static_figure import hierarchy_panels, savefig

    w = chain()
    s = w.schedule(tiles=2, pipeline=True, policy="none")
    panels = hierarchy_panels(w, s)
    assert [p.resource_names for p in panels] == [("compute", "L2"), ("compute", "DRAM")]
    assert {p.time_max for p in panels} == {s.makespan}
    assert not np.array_equal(panels[0].scene.fill_top, panels[1].scene.fill_top)
    out = savefig(tmp_path / "levels.png", panels)
    assert out.stat().st_size > 1000


def test_a_trace_whose_kernels_have_no_work_says_so_in_the_readout():
    from pathlib import Path

    from campaign_widget.figures.readout import work_note
    from campaign_widget.static_figure import panel_for
    from campaign_widget.static_figure.campaign import readout_lines

    trace = Path(__file__).parent / "data" / "torch"
    candidates = sorted(trace.glob("*.json"))
    found = None
    for path in candidates:
        try:
            w = cw.read_torch_trace(path, machine=cw.Machine(1e12, 1e11))
        except cw.CampaignWidgetError:
            continue
        if work_note(w):
            found = w
            break
    assert found is not None, "a fixture with a kernel of unknown work"
    note = work_note(found)
    assert note.startswith("work unknown for ") and "of the time" in note
    lines = readout_lines(panel_for(found, found.schedule()))
    assert (note, "note") in lines
    assert work_note(chain()) is None


def test_the_cli_summary_shows_every_level_and_the_bounding_one(tmp_path, capsys):
    from campaign_widget.cli import main

    path = cw.save(chain(), tmp_path / "levels.yaml")
    assert main(["summary", str(path)]) == 0
    out = capsys.readouterr().out
    assert "memory levels: L2 40 B/s, DRAM 10 B/s" in out
    header = next(line for line in out.splitlines() if line.startswith("phase"))
    assert header.split()[:5] == ["phase", "duration", "compute", "L2", "DRAM"] and "bound by" in header
    rows = {line.split()[0]: line for line in out.splitlines() if line.split()[:1] in (["A"], ["B"])}
    assert " L2 " in rows["A"] and " DRAM " in rows["B"]


def test_the_live_diagram_draws_the_level_chosen_as_its_pipe():
    d = cw.CampaignDiagram(chain(), tiles=2, pipeline=True)
    assert d.levels == ["L2", "DRAM"] and d.level == "" and d.pipe_level == "DRAM"
    dram_fill = np.asarray(d._scene.fill_top).copy()
    d.set_state({"level": "L2"})  # as the view's menu writes it
    assert d.resource_names == ["compute", "L2"] and d.pipe_level == "L2"
    assert not np.array_equal(np.asarray(d._scene.fill_top), dram_fill)
    assert any("L2 oversubscribed" in text for text, _ in d.readout_lines)
    assert d.panel().resource_names == ("compute", "L2")
    with pytest.raises(Exception, match="'L3' is not a memory level"):
        d.level = "L3"
    assert d.level == "L2"
