"""Measured timelines as schedules: Schedule.from_intervals, the trace importer's timeline mode
on a real PyTorch CPU trace with two threads, and the readout shares."""

from __future__ import annotations

import gzip
import json
import shutil
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest
from workloads import require_torch

import campaign_widget
from campaign_widget import Machine, Phase, Schedule, ScheduleError, Workload
from campaign_widget.figures.scene import build_scene
from campaign_widget.io import SkippedEventsWarning, read_torch_trace
from campaign_widget.model.timeline import Timeline, phase_gaps, shares

HOST = Machine(peak_compute=1e11, peak_bandwidth=2e10, name="test host")
STEPS = 2


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    """A real CPU trace: per profiler step, the main thread and a second Python thread each run
    record_function ranges of matrix products and ReLUs at the same time (profile_all_threads)."""
    torch = require_torch()
    from torch.profiler import ProfilerActivity, _ExperimentalConfig, profile, record_function, schedule

    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one core per Python thread: the two threads' products run side by side
    a = torch.randn(512, 512)  # ~10 ms per product: long enough to overlap even on a busy machine
    path = tmp_path_factory.mktemp("timeline") / "two_threads.json"

    together = threading.Barrier(2)

    def work(tag):
        together.wait()  # both threads start their ranges at the same time
        for _ in range(4):
            with record_function(tag):
                torch.mm(a, a)
                torch.relu(a)

    with (
        torch.no_grad(),
        profile(
            activities=[ProfilerActivity.CPU],
            record_shapes=True,
            schedule=schedule(wait=0, warmup=1, active=STEPS, repeat=1),
            on_trace_ready=lambda p: p.export_chrome_trace(str(path)),
            experimental_config=_ExperimentalConfig(profile_all_threads=True),
        ) as prof,
    ):
        for _ in range(STEPS + 1):
            side = threading.Thread(target=work, args=("side",))
            side.start()
            work("main")
            side.join()
            prof.step()
    torch.set_num_threads(threads)
    return path


def _read(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedEventsWarning)
        return read_torch_trace(path, machine=HOST, **kw)


def _outermost_events(path):
    """The trace's complete cpu_op events not enclosed by another one on their thread, by brute force."""
    events = [
        e
        for e in json.loads(Path(path).read_text())["traceEvents"]
        if e.get("ph") == "X" and e.get("cat") == "cpu_op" and e.get("dur", 0) > 0
    ]
    kept = []
    for e in events:
        s, t = e["ts"], e["ts"] + e["dur"]
        enclosed = any(
            o is not e
            and o["tid"] == e["tid"]
            and o["pid"] == e["pid"]
            and o["ts"] <= s
            and o["ts"] + o["dur"] >= t
            and (o["dur"] > e["dur"] or o["ts"] < s)
            for o in events
        )
        if not enclosed:
            kept.append(e)
    return kept


# -- the trace importer's timeline mode ----------------------------------------------------------------


def test_timeline_intervals_are_the_traces_outermost_events(trace):
    t = _read(trace, timeline=True)
    assert isinstance(t, Timeline) and isinstance(t, Schedule)
    expected = _outermost_events(trace)
    assert len(t) == len(expected) > 0
    got = sorted(zip((t.start + t.origin) / 1e-6, (t.end + t.origin) / 1e-6))
    want = sorted((e["ts"], e["ts"] + e["dur"]) for e in expected)
    np.testing.assert_allclose(np.array(got), np.array(want), rtol=0, atol=1e-3)
    # each interval on its thread's lane, named by phase
    lanes = sorted(np.array(t.lane_names, dtype=object)[t.lane].tolist())
    assert lanes == sorted(f"{e['pid']}/{e['tid']}" for e in expected)
    names = sorted(np.array(t.names, dtype=object)[t.phase].tolist())
    assert names == sorted(e["name"] for e in expected)


def test_timeline_threads_overlap_and_stack(trace):
    t = _read(trace, timeline=True)
    assert len(t.lane_names) >= 2
    overlap = (
        (t.start[:, None] < t.end[None, :]) & (t.start[None, :] < t.end[:, None]) & (t.lane[:, None] != t.lane[None, :])
    )
    assert overlap.any(), "the two threads' events should run at the same time"
    scene = build_scene(t)
    assert (scene.base_y > 0).any()  # something stacked on top of a concurrent interval


def test_timeline_workload_is_the_grouped_workload(trace):
    t = _read(trace, timeline=True)
    w = _read(trace)
    assert t.workload.names == w.names
    for key in ("duration", "ops", "bytes"):
        np.testing.assert_array_equal(t.workload.table()[key], w.table()[key])
    # the area under each phase's intervals is its volume (rates are the phase's)
    length = t.end - t.start
    for p, _name in enumerate(t.names):
        mine = t.phase == p
        assert length[mine].sum() == pytest.approx(w.table()["duration"][p], rel=1e-9)
        ops = (t.requested_compute[mine] * length[mine]).sum() * HOST.peak_compute
        assert ops == pytest.approx(w.table()["ops"][p], rel=1e-9)
        moved = (t.requested_memory[mine] * length[mine]).sum() * HOST.peak_bandwidth
        assert moved == pytest.approx(w.table()["bytes"][p], rel=1e-9)


def test_timeline_rates_are_each_events_own(tmp_path):
    """Two events of one name with different recorded FLOPs get different rates; an outer event without
    volumes carries those of the events nested in it."""
    events = [
        {
            "ph": "X",
            "cat": "cpu_op",
            "name": "aten::mm",
            "pid": 1,
            "tid": 1,
            "ts": 0,
            "dur": 10,
            "args": {"flops": 1e6, "dram__bytes_read.sum": 100, "dram__bytes_write.sum": 0},
        },
        {
            "ph": "X",
            "cat": "cpu_op",
            "name": "aten::mm",
            "pid": 1,
            "tid": 2,
            "ts": 5,
            "dur": 20,
            "args": {"flops": 6e6, "dram__bytes_read.sum": 50, "dram__bytes_write.sum": 50},
        },
        {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 40, "dur": 10},
        {
            "ph": "X",
            "cat": "cpu_op",
            "name": "aten::addmm",
            "pid": 1,
            "tid": 1,
            "ts": 41,
            "dur": 4,
            "args": {"flops": 2e6},
        },
        {
            "ph": "X",
            "cat": "cpu_op",
            "name": "aten::addmm",
            "pid": 1,
            "tid": 1,
            "ts": 45,
            "dur": 4,
            "args": {"flops": 3e6},
        },
    ]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"traceEvents": events}))
    fast = Machine(peak_compute=1e12, peak_bandwidth=2e10, name="fast")
    t = read_torch_trace(path, machine=fast, timeline=True)
    assert len(t) == 3 and t.names == ("aten::mm", "aten::linear")
    np.testing.assert_allclose(t.start, [0, 5e-6, 40e-6])
    # FLOPs / seconds / peak, by hand
    np.testing.assert_allclose(t.requested_compute, [1e6 / 10e-6 / 1e12, 6e6 / 20e-6 / 1e12, 5e6 / 10e-6 / 1e12])
    np.testing.assert_allclose(t.requested_memory, [100 / 10e-6 / 2e10, 100 / 20e-6 / 2e10, 0.0])
    assert t.shares(0.0)["idle"] == pytest.approx(15 / 50)  # nothing runs in [25, 40) µs


def test_load_timeline_returns_a_schedule_and_by_default_a_workload(trace):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkippedEventsWarning)
        t = campaign_widget.load(trace, machine=HOST, timeline=True)
        w = campaign_widget.load(trace, machine=HOST)
    assert isinstance(t, Timeline) and isinstance(w, Workload)
    assert t.workload.names == w.names


def test_timeline_bands_steps_and_windows(trace):
    t = _read(trace, timeline=True)
    raw = [
        e
        for e in json.loads(Path(trace).read_text())["traceEvents"]
        if e.get("ph") == "X" and e.get("cat") == "user_annotation"
    ]
    assert len(t.band_start) == len(raw)
    names = sorted(n for n, *_ in t.bands())
    assert names == sorted(e["name"] for e in raw)
    starts, ends = t.steps()
    assert starts.size == STEPS
    windows = t.cut()
    assert len(windows) == STEPS
    for w, a, b in zip(windows, starts, ends):
        assert w.makespan == pytest.approx(b - a)
        assert w.workload is t.workload
        inside = (t.end > a) & (t.start < b)
        assert len(w) == inside.sum()
        assert (w.start >= 0).all() and (w.end <= b - a + 1e-12).all()
    # every kept event falls in one step (the steps cover the profiled work)
    assert sum(len(w) for w in windows) >= len(t) - 1


def test_timeline_group_by_annotation(trace):
    t = _read(trace, timeline=True, group_by="annotation")
    assert set(t.workload.names) >= {"main", "side"}
    main = t.names.index("main")
    side = t.names.index("side")
    assert len(np.unique(t.lane[t.phase == main])) == 1
    assert np.unique(t.lane[t.phase == side]).tolist() != np.unique(t.lane[t.phase == main]).tolist()


def test_timeline_gzip_and_progress(trace, tmp_path):
    packed = tmp_path / "trace.json.gz"
    with open(trace, "rb") as f, gzip.open(packed, "wb") as g:
        shutil.copyfileobj(f, g)
    seen = []
    t = _read(packed, timeline=True, progress=lambda done, total, what: seen.append((done, total)))
    plain = _read(trace, timeline=True)
    np.testing.assert_array_equal(t.start, plain.start)
    assert seen and seen[-1][0] == seen[-1][1] == packed.stat().st_size
    assert all(d2 >= d1 for (d1, _), (d2, _) in zip(seen, seen[1:]))


def test_timeline_needs_a_machine(trace):
    with pytest.raises(ValueError, match="machine="):
        read_torch_trace(trace, timeline=True)


# -- from_intervals ------------------------------------------------------------------------------------


def _workload():
    return Workload(
        [
            Phase("A", duration=3, compute_util=0.5, memory_util=0.2),
            Phase("B", duration=1, compute_util=0.1, memory_util=0.9, after=["A"]),
            Phase("C", duration=2, compute_util=0.3, memory_util=0.3, after=["B"]),
        ],
        machine=Machine(peak_compute=1, peak_bandwidth=1),
    )


def _random_intervals(rng, n, lanes=3):
    phase = rng.integers(0, 3, n)
    start = rng.integers(0, 2000, n) / 64  # exact in binary: many shared instants, no float near-ties
    end = start + rng.integers(0, 400, n) / 64
    lane = rng.integers(0, lanes, n)
    return phase, start, end, lane


def _union_length(start, end):
    total, cur_s, cur_e = 0.0, None, None
    for s, e in sorted(zip(start.tolist(), end.tolist())):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    return total + ((cur_e - cur_s) if cur_e is not None else 0.0)


@pytest.mark.parametrize("seed", range(5))
def test_from_intervals_invariants(seed):
    rng = np.random.default_rng(seed)
    w = _workload()
    phase, start, end, lane = _random_intervals(rng, 60)
    t = Schedule.from_intervals(w, phase=phase, start=start, end=end, lane=lane)
    assert len(t) == 60
    # the intervals are the input, sorted by start; tile_id points back into the input
    np.testing.assert_array_equal(t.start, start[t.tile_id])
    np.testing.assert_array_equal(t.end, end[t.tile_id])
    np.testing.assert_array_equal(t.phase, phase[t.tile_id])
    np.testing.assert_array_equal(t.lane, lane[t.tile_id])
    assert (np.diff(t.start) >= 0).all()
    assert t.makespan == end.max()
    # tile numbers count each phase's intervals in order of start
    for p in range(3):
        assert sorted(t.tile[t.phase == p].tolist()) == list(range(int((phase == p).sum())))
    # rates default to the phase's volume spread over its intervals: the area under each phase's
    # intervals is its ops (and bytes); nothing is throttled or dilated
    length = t.end - t.start
    for p in range(3):
        mine = t.phase == p
        if mine.any():
            assert float((t.requested_compute[mine] * length[mine]).sum() * w.machine.peak_compute) == pytest.approx(
                float(w.arrays.ops[p]), rel=1e-9
            )
            assert float((t.requested_memory[mine] * length[mine]).sum() * w.machine.peak_bandwidth) == pytest.approx(
                float(w.arrays.bytes[p]), rel=1e-9
            )
    assert (t.edge_factor == 1).all() and not t.dilation.any() and not t.throttling.any()
    rc, rm = np.empty(len(t)), np.empty(len(t))  # each input interval's rates, in input order
    rc[t.tile_id], rm[t.tile_id] = t.requested_compute, t.requested_memory
    # the demand profile is the brute-force sum of running intervals at each segment's midpoint
    times, c, m = t.demand()
    mid = (times[:-1] + times[1:]) / 2
    running = (start[None, :] <= mid[:, None]) & (end[None, :] > mid[:, None])
    np.testing.assert_allclose(c, running @ rc, atol=1e-12)
    np.testing.assert_allclose(m, running @ rm, atol=1e-12)
    # readout: idle = makespan minus the union of the intervals; busy shares by brute force
    got = t.shares(threshold=0.6)
    assert got["idle"] == pytest.approx((t.makespan - _union_length(start, end)) / t.makespan, abs=1e-12)
    width = np.diff(times)
    hot_c = running.any(axis=1) & (running @ rc >= 0.6 - 1e-12)
    assert got["compute"] == pytest.approx(width[hot_c].sum() / t.makespan, abs=1e-12)
    # the scene stacks concurrent intervals: at each instant the pieces there pile up to the total demand
    scene = build_scene(t)
    covering = (scene.x0[None, :] <= mid[:, None]) & (scene.x1[None, :] > mid[:, None])
    top = np.where(covering, scene.line_y[None, :], 0.0).max(axis=1)
    heights = covering @ (scene.line_y.astype(float) - scene.base_y)
    np.testing.assert_allclose(top, c, atol=1e-6)
    np.testing.assert_allclose(heights, c, atol=1e-6)


def test_from_intervals_idle_gap_and_given_rates():
    w = _workload()
    t = Schedule.from_intervals(
        w,
        phase=["A", "B", "C"],
        start=[1, 2, 6],
        end=[2, 4, 7],
        lane=["x", "y", "x"],
        compute_rate=[0.9, 0.2, 0.5],
        memory_rate=[0.1, 0.8, 0.0],
    )
    assert t.lane_names == ("x", "y")
    assert t.shares(0.5) == {
        "idle": pytest.approx(3 / 7),
        "compute": pytest.approx(2 / 7),
        "memory": pytest.approx(2 / 7),
    }
    np.testing.assert_array_equal(t.requested_memory, [0.1, 0.8, 0.0])
    scene = build_scene(t)
    assert scene.x_max == 7
    assert not ((scene.x0 < 1) & (scene.x1 > 0)).any() and not ((scene.x0 < 6) & (scene.x1 > 4)).any()  # gaps


def test_shares_of_a_computed_schedule():
    w = _workload()
    s = w.schedule()
    got = shares(s, threshold=0.5)
    assert got["idle"] == 0.0
    assert got["compute"] == pytest.approx(3 / 6)
    assert got["memory"] == pytest.approx(1 / 6)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(phase=["A"], start=[1.0], end=[0.5]), r"end\[0\]=0.5 is before start\[0\]=1.0 \(phase 'A'\)"),
        (dict(phase=["A"], start=[-1.0], end=[0.5]), r"start\[0\]=-1.0 \(phase 'A'\) must be >= 0"),
        (dict(phase=["Z"], start=[0.0], end=[1.0]), r"phase 'Z' is not a phase of this workload"),
        (dict(phase=[7], start=[0.0], end=[1.0]), r"phase\[0\]=7 is not a phase index"),
        (dict(phase=["A", "B"], start=[0.0], end=[1.0]), r"phase has 2 entries; start has 1"),
        (dict(phase=["A"], start=[0.0], end=[np.nan]), r"end\[0\]=nan must be a finite number"),
        (dict(phase=["A"], start=[0.0], end=[1.0], compute_rate=[-0.5]), r"compute_rate\[0\]=-0.5 must be >= 0"),
        (dict(phase=["A"], start=[0.0], end=[1.0], lane=[1, 2]), r"lane has 2 entries"),
    ],
)
def test_from_intervals_bad_input_names_the_parameter(kwargs, message):
    with pytest.raises(ScheduleError, match=message):
        Schedule.from_intervals(_workload(), **kwargs)


def test_from_intervals_empty_and_shares_threshold():
    t = Schedule.from_intervals(_workload(), phase=[], start=[], end=[])
    assert len(t) == 0 and t.makespan == 0 and t.shares() == {"idle": 0.0, "compute": 0.0, "memory": 0.0}
    with pytest.raises(ScheduleError, match="threshold='x'"):
        shares(t, "x")


# -- the paper authors' cascade YAML with start times ----------------------------------------------------


def _cascade(tmp_path, kernels: str):
    path = tmp_path / "c.yaml"
    path.write_text("cascade:\n  name: c\n  kernels:\n" + kernels)
    return path


def test_cascade_start_times_are_honoured_with_idle_gaps(tmp_path):
    path = _cascade(
        tmp_path,
        "    - {name: A, duration: 2, compute_util: 0.5, bw_util: 0.2, start: 0}\n"
        "    - {name: B, duration: 3, compute_util: 0.4, bw_util: 0.6, start: 1}\n"
        "    - {name: A, duration: 2, compute_util: 0.7, bw_util: 0.2, start: 6}\n",
    )
    t = campaign_widget.load(path)
    assert isinstance(t, Timeline) and len(t) == 3
    np.testing.assert_array_equal(t.start, [0, 1, 6])
    np.testing.assert_array_equal(t.end, [2, 4, 8])
    np.testing.assert_array_equal(t.requested_compute, [0.5, 0.4, 0.7])
    assert t.workload.names == ["A", "B"]
    np.testing.assert_allclose(t.workload.arrays.duration, [4, 3])
    np.testing.assert_allclose(t.workload.arrays.compute_util, [0.6, 0.4])  # A: (2·0.5 + 2·0.7) / 4
    assert t.makespan == 8 and t.shares()["idle"] == pytest.approx(2 / 8)  # nothing runs in [4, 6)
    assert "start times honoured" in t.workload.import_report.notes[0]
    scene = build_scene(t)
    assert (scene.base_y > 0).any()  # B overlaps A in [1, 2): stacked


def test_cascade_without_starts_or_with_sequential_starts_is_a_workload(tmp_path):
    seq = _cascade(
        tmp_path,
        "    - {name: A, duration: 2, compute_util: 0.5, bw_util: 0.2, start: 0}\n"
        "    - {name: B, duration: 3, compute_util: 0.4, bw_util: 0.6, start: 2}\n"
        "    - {name: C, duration: 1, compute_util: 0.4, bw_util: 0.6}\n",
    )
    w = campaign_widget.load(seq)
    assert isinstance(w, Workload) and w.schedule().makespan == 6
    assert "in sequence" in w.import_report.notes[0]
    t = campaign_widget.load(seq, timeline=True)
    np.testing.assert_array_equal(t.start, [0, 2, 5])


def test_cascade_starts_dropped_on_request_and_bad_starts(tmp_path):
    gaps = _cascade(
        tmp_path,
        "    - {name: A, duration: 2, compute_util: 0.5, bw_util: 0.2, start: 1}\n"
        "    - {name: B, duration: 3, compute_util: 0.4, bw_util: 0.6, start: 9}\n",
    )
    w = campaign_widget.load(gaps, timeline=False)
    assert isinstance(w, Workload) and w.schedule().makespan == 5
    assert w.import_report.notes[0].startswith("timeline=False: kernel start times dropped")
    assert campaign_widget.load(gaps).makespan == 12
    bad = tmp_path / "bad.yaml"
    bad.write_text("cascade:\n  kernels:\n    - {name: A, duration: 2, start: -1}\n")
    with pytest.raises(campaign_widget.WorkloadFileError, match=r"cascade\.kernels\[0\]\.start.*must be a finite time"):
        campaign_widget.load(bad)


# -- readouts for the views ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_lane_shares_and_phase_gaps_by_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    w = _workload()
    phase, start, end, lane = _random_intervals(rng, 40)
    t = Schedule.from_intervals(w, phase=phase, start=start, end=end, lane=lane)
    got = t.lane_shares()
    for name in t.lane_names:
        mine = lane == name
        assert got[name] == pytest.approx(_union_length(start[mine], end[mine]) / t.makespan, abs=1e-12)
    bound = w.schedule()
    gaps = phase_gaps(t, bound)
    for p in range(3):
        mine = phase == p
        assert gaps["measured_busy"][p] == pytest.approx(_union_length(start[mine], end[mine]), abs=1e-12)
        assert gaps["bound_busy"][p] == pytest.approx(w.arrays.duration[p])
        assert gaps["measured_span"][p] == pytest.approx(end[mine].max() - start[mine].min())
    np.testing.assert_allclose(gaps["gap"], gaps["measured_busy"] - gaps["bound_busy"])
    other = Workload([Phase("X", duration=1, compute_util=0.1, memory_util=0.1)], machine=w.machine)
    with pytest.raises(ScheduleError, match="same phases"):
        phase_gaps(t, other.schedule())


def test_with_peaks_keeps_times_and_scales_rates():
    w = _workload()
    t = Schedule.from_intervals(
        w, phase=["A", "B"], start=[0, 1], end=[2, 4], compute_rate=[0.5, 0.2], memory_rate=[0.4, 0.8]
    )
    faster = t.with_peaks(peak_compute=2.0, peak_bandwidth=4.0)
    np.testing.assert_array_equal(faster.start, t.start)
    np.testing.assert_array_equal(faster.end, t.end)
    np.testing.assert_allclose(faster.requested_compute, [0.25, 0.1])
    np.testing.assert_allclose(faster.requested_memory, [0.1, 0.2])
    assert faster.workload.machine.peak_compute == 2.0 and faster.makespan == t.makespan


def test_cli_uses_a_timelines_phases_and_says_so(tmp_path, capsys):
    from campaign_widget.cli import main

    path = _cascade(
        tmp_path,
        "    - {name: A, duration: 2, compute_util: 0.5, bw_util: 0.2, start: 0}\n"
        "    - {name: B, duration: 3, compute_util: 0.4, bw_util: 0.6, start: 5}\n",
    )
    assert main(["summary", str(path)]) == 0
    captured = capsys.readouterr()
    assert "a timeline (kernel start times)" in captured.err and "without the start times" in captured.err
    assert "2 phases" in captured.out
