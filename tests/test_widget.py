"""The widget without a browser: traits in, binary buffers out, PNG protocol (js/diagram/CONTRACT.md)."""

import numpy as np
import pytest
import traitlets
from ipywidgets.widgets.widget import _remove_buffers

import campaign_widget.views.diagram as widget_module
from campaign_widget import CampaignDiagram, Machine, Phase, ScheduleError, Workload, settings
from campaign_widget.figures.scene import build_scene
from campaign_widget.model.settings import MAX_DEPTH, MAX_TILES, check_setting
from campaign_widget.views.buffers import from_payload
from campaign_widget.views.diagram import VIEW_WRITABLE, decode_scene_state

PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


@pytest.fixture
def by_volume():
    return Workload(
        [Phase("load", ops=1e9, bytes=8e9), Phase("gemm", ops=4e12, bytes=1e9, after=["load"])],
        machine=Machine(peak_compute=1e12, peak_bandwidth=1e10),
    )


def decoded_scene(widget):
    """The scene as the view decodes it, from the payloads actually sent (get_state → buffers)."""
    state = widget.get_state(["scene"])["scene"]
    return decode_scene_state({k: from_payload(v) if isinstance(v, dict) else v for k, v in state.items()})


def test_arrays_travel_as_binary_buffers_not_json(figure_2b):
    w = CampaignDiagram(figure_2b)
    state = w.get_state()
    stripped, paths, buffers = _remove_buffers(state)
    assert len(buffers) >= 14
    assert ["scene", "x0", "buffer"] in paths and ["phase_table", "duration", "buffer"] in paths
    for key, value in stripped["scene"].items():
        assert not isinstance(value, list), f"scene[{key!r}] went as a JSON list"


def test_scene_buffers_decode_to_the_model_geometry(figure_2b):
    w = CampaignDiagram(figure_2b)
    got = decoded_scene(w)
    want = build_scene(figure_2b.schedule())
    np.testing.assert_array_equal(got["x0"], want.x0)
    np.testing.assert_allclose(got["line_y"], want.line_y)
    np.testing.assert_array_equal(got["x1"], want.x1)
    np.testing.assert_array_equal(got["dash_from"], want.dash_from)
    np.testing.assert_array_equal(got["phase"], want.phase)
    assert got["phase"].dtype == np.uint8 and w.phase_names == ["A", "B", "C"]
    assert w.makespan == 15 and len(set(w.phase_colors)) == 3
    np.testing.assert_allclose(np.asarray(w.phase_table["duration"]), [3, 10, 2])


def test_peak_bandwidth_moves_analytical_geometry(by_volume):
    w = CampaignDiagram(by_volume)
    before = decoded_scene(w)
    w.peak_bandwidth = 4e10
    after = decoded_scene(w)
    assert w.makespan == pytest.approx(8e9 / 4e10 + 4.0)
    assert after["x1"][0] == pytest.approx(0.2) and before["x1"][0] == pytest.approx(0.8)
    assert not np.allclose(before["fill_top"], after["fill_top"])
    assert w.workload.machine.peak_bandwidth == 4e10


def test_peak_compute_moves_measured_utilizations_not_durations(figure_2b):
    w = CampaignDiagram(figure_2b)
    w.peak_compute = figure_2b.machine.peak_compute * 2
    np.testing.assert_allclose(np.asarray(w.phase_table["duration"]), [3, 10, 2])
    np.testing.assert_allclose(np.asarray(w.phase_table["compute_util"]), [0.35, 0.1, 0.3])


def test_schedule_controls_recompute(by_volume):
    w = CampaignDiagram(by_volume)
    sequential = w.makespan
    w.tiles, w.pipeline = 8, True
    assert w.makespan < sequential
    assert w.makespan == pytest.approx(by_volume.schedule(tiles=8, pipeline=True).makespan)


@pytest.mark.parametrize(
    "trait, value",
    [
        ("peak_compute", 0.0),
        ("peak_bandwidth", float("nan")),
        ("peak_bandwidth", -1.0),
        ("tiles", 0),
        ("depth", 0),
        ("policy", "fast"),
        ("y_axis", "log"),
    ],
)
def test_bad_trait_values_are_refused_by_name(figure_2b, trait, value):
    w = CampaignDiagram(figure_2b)
    with pytest.raises(traitlets.TraitError, match=trait):
        setattr(w, trait, value)


@pytest.mark.parametrize("value", [0, True, MAX_DEPTH + 1])
def test_depth_is_refused_by_the_settings_rule(figure_2b, value):
    """The widget checks depth as ``Workload.schedule`` does (settings.check_setting), words included."""
    with pytest.raises(ScheduleError) as expected:
        check_setting("depth", value)
    w = CampaignDiagram(figure_2b)
    with pytest.raises(traitlets.TraitError) as refused:
        w.depth = value
    assert str(refused.value) == str(expected.value)
    assert w.depth == 2


def test_policies_are_the_settings_table_and_read_only(figure_2b):
    """The view's policy menu is the synced ``policies`` trait, one entry per row of the settings table."""
    w = CampaignDiagram(figure_2b)
    assert w.policies == [p.name for p in settings._POLICY_TABLE] == list(settings.POLICIES)
    assert w.get_state(["policies"]) == {"policies": list(settings.POLICIES)}
    with pytest.raises(traitlets.TraitError, match="read-only"):
        w.policies = ["none"]
    assert "policies" not in VIEW_WRITABLE


def test_unknown_keyword_is_a_type_error(figure_2b):
    with pytest.raises(TypeError, match="peak_bandwith"):
        CampaignDiagram(figure_2b, peak_bandwith=3)


def test_measured_utilization_above_one_reaches_the_readout():
    with pytest.warns(UserWarning, match="'hot'"):
        w = Workload([Phase("hot", duration=1, compute_util=1.4, memory_util=0.2)])
    d = CampaignDiagram(w)
    assert any("'hot'" in line and "1.4" in line for line in d.warnings)


def test_repr_does_not_dump_the_buffers(figure_2b):
    text = repr(CampaignDiagram(figure_2b))
    assert "3 phases" in text and "buffer" not in text and len(text) < 200


# -- PNG export through a view ---------------------------------------------------------------------


def test_save_png_waits_in_a_trait_for_a_view_that_renders_later(figure_2b, tmp_path):
    # Run All: save_png runs in the next cell before the view of the previous one exists; a message
    # would be lost, the trait is not: the view reads it when it renders and answers
    w = CampaignDiagram(figure_2b)
    export = w.save_png(tmp_path / "fig.png", scale=2)
    assert not export.done
    assert [r["scale"] for r in w.png_requests] == [2.0]
    request_id = w.png_requests[0]["id"]
    assert w.get_state()["png_requests"] == [{"id": request_id, "scale": 2.0}]  # synced to every view
    w._on_view_message(w, {"type": "view-ready"}, [])
    reply = {"type": "png-reply", "id": request_id, "width": 1600, "height": 720}
    w._on_view_message(w, reply, [memoryview(PNG_BYTES)])
    w._on_view_message(w, reply, [memoryview(b"\x89PNG\r\n\x1a\nsecond view")])  # another view: dropped
    assert export.done and export.error is None and export.size == (1600, 720)
    assert (tmp_path / "fig.png").read_bytes() == PNG_BYTES
    assert w.png_requests == []  # answered: no view draws it again


def test_save_png_refuses_a_bad_path_at_once(figure_2b, tmp_path, monkeypatch):
    w = CampaignDiagram(figure_2b)
    with pytest.raises(IsADirectoryError, match=str(tmp_path)):
        w.save_png(tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        w.save_png(tmp_path / "no" / "such" / "fig.png")
    monkeypatch.setattr("campaign_widget.views.browser_png.os.access", lambda path, mode: False)
    with pytest.raises(PermissionError, match="fig.png"):
        w.save_png(tmp_path / "fig.png")
    assert w.png_requests == []  # nothing was left pending


def test_save_png_with_no_time_limit(figure_2b, tmp_path):
    w = CampaignDiagram(figure_2b)
    for timeout in (float("inf"), None):
        export = w.save_png(tmp_path / "fig.png", timeout=timeout)  # no timer thread, no OverflowError
        assert not export.done
    assert len(w.png_requests) == 2
    with pytest.raises(ValueError, match="timeout"):
        w.save_png(tmp_path / "fig.png", timeout=-1)


def test_save_png_times_out_with_a_clear_error(figure_2b, tmp_path):
    w = CampaignDiagram(figure_2b)
    w._on_view_message(w, {"type": "view-ready"}, [])
    with pytest.warns(RuntimeWarning, match="no view answered"):
        export = w.save_png(tmp_path / "late.png", timeout=0.2)
        assert export.wait(2)
    assert "no view answered" in export.error and not (tmp_path / "late.png").exists()


def test_save_png_rejects_non_png_bytes(figure_2b, tmp_path):
    w = CampaignDiagram(figure_2b)
    w._on_view_message(w, {"type": "view-ready"}, [])
    export = w.save_png(tmp_path / "bad.png")
    w._on_view_message(w, {"type": "png-reply", "id": w.png_requests[0]["id"]}, [memoryview(b"<html>")])
    assert "not a PNG" in export.error and not (tmp_path / "bad.png").exists()
    assert w.png_requests == []


def test_a_scene_too_large_for_the_browser_is_not_sent(by_volume, monkeypatch):
    import campaign_widget.views.diagram as widget_module

    monkeypatch.setattr(widget_module, "MAX_VIEW_PIECES", 10)
    w = CampaignDiagram(by_volume, tiles=8, pipeline=True)
    assert w.scene["n"] == 0 and any("more than the 10 a browser view" in line for line in w.warnings)
    assert w.makespan == pytest.approx(by_volume.schedule(tiles=8, pipeline=True).makespan)


def _scene_bytes(widget) -> int:
    import json

    stripped, _, buffers = _remove_buffers(widget.get_state(["scene"]))
    return len(json.dumps(stripped)) + sum(len(b) for b in buffers)


def test_a_scene_piece_costs_at_most_32_bytes_on_the_wire():
    chain = Workload(
        [
            Phase(f"p{i}", duration=1 + i % 3, compute_util=0.3, memory_util=0.5, after=[f"p{i - 1}"] if i else [])
            for i in range(24)
        ]
    )
    w = CampaignDiagram(chain, tiles=64, pipeline=True, policy="dilate+throttle")
    n = w.scene["n"]
    assert n >= 24 * 64
    assert _scene_bytes(w) / n <= 32, f"{_scene_bytes(w) / n:.1f} bytes per piece"


def test_dilated_pieces_keep_their_dash_start_to_a_65535th_of_their_width(by_volume):
    w = CampaignDiagram(by_volume, tiles=8, pipeline=True, policy="dilate+throttle")
    want = build_scene(w.schedule)
    got = decoded_scene(w)
    dashed = want.dash_from < want.x1
    assert dashed.any(), "the case should have dilated pieces"
    width = want.x1 - want.x0
    clipped = np.clip(want.dash_from, want.x0, want.x1)
    assert np.all(np.abs(got["dash_from"][dashed] - clipped[dashed]) <= width[dashed] / 65535 + 1e-15)
    np.testing.assert_array_equal(got["dash_from"][~dashed], want.x1[~dashed])


def test_the_view_cannot_overwrite_what_the_kernel_computes(figure_2b):
    w = CampaignDiagram(figure_2b)
    before = decoded_scene(w)
    sent = []
    w._send = lambda msg, buffers=None: sent.append(msg)
    w.set_state({"scene": {"n": 0}, "makespan": 1.0, "phase_names": ["x"], "tiles": 1})
    assert w.makespan == 15 and w.phase_names == ["A", "B", "C"]
    np.testing.assert_array_equal(decoded_scene(w)["x0"], before["x0"])
    resent = [m for m in sent if m.get("method") == "update"]
    assert resent and {"scene", "makespan", "phase_names"} <= set(resent[-1]["state"]), (
        "the kernel's values go back to the view"
    )


def test_the_view_bundle_is_a_path_on_the_class_for_hot_reload():
    from pathlib import Path

    import anywidget

    esm = CampaignDiagram._esm
    assert isinstance(esm, (Path, anywidget._file_contents.FileContents)), type(esm)
    assert str(getattr(esm, "_path", esm)).endswith("static/widget.js")


def test_readout_lines_and_legend_flags_are_computed_in_the_kernel(by_volume):
    w = CampaignDiagram(by_volume, tiles=8, pipeline=True, policy="none")
    assert w.readout_lines[0][1] == "makespan" and w.readout_lines[0][0].startswith("makespan ")
    over = [line for line in w.readout_lines if line[1] == "oversubscribed"]
    assert len(over) == len({int(r) for r in build_scene(w.schedule).over_resource})
    assert over, "pipelining this pair without a policy oversubscribes memory"
    assert w.legend_features["spill"] is True
    w.policy = "dilate+throttle"
    assert [line[1] for line in w.readout_lines] == ["makespan"]
    assert w.legend_features == {"spill": False, "compute_over": False, "dashed": True, "critical": False}


def test_fusion_group_bands_are_drawn_where_their_phases_run():
    from campaign_widget.figures.group_bands import group_spans

    # Group 0 runs on [0, 2) and [5, 6); group 1 on [1, 5) (overlapping group 0's first run).
    spans = group_spans(
        start=np.array([0.0, 1.0, 1.5, 5.0, 9.0]),
        end=np.array([2.0, 4.0, 5.0, 6.0, 10.0]),
        group=np.array([0, 1, 1, 0, -1]),
    )
    assert spans["group_id"].tolist() == [0, 0, 1]
    assert spans["group_t0"].tolist() == [0.0, 5.0, 1.0]
    assert spans["group_t1"].tolist() == [2.0, 6.0, 5.0]


def test_tiles_slider_maximum_grows_past_the_starting_value(figure_2b):
    w = CampaignDiagram(figure_2b, tiles=50)
    assert w.tiles_max >= 200
    w.tiles = 150
    assert w.tiles_max >= 300


def test_stacked_panels_share_one_time_axis_or_each_take_their_own(by_volume):
    from campaign_widget import StackedDiagrams

    stack = StackedDiagrams({"one": by_volume, "eight": (by_volume, {"tiles": 8, "pipeline": True})})
    longest = max(stack.makespans.values())
    assert [d.time_max for d in stack.diagrams.values()] == [longest, longest] and len(stack._links) == 1
    stack.time_toggle.value = False  # as the checkbox does
    assert [d.time_max for d in stack.diagrams.values()] == [0.0, 0.0] and stack._links == []
    stack.time_toggle.value = True
    assert [d.time_max for d in stack.diagrams.values()] == [longest, longest] and len(stack._links) == 1


# -- parameters ------------------------------------------------------------------

MLP = {"up": "H[b,f] = X[b,d] * W1[d,f]", "act": "A[b,f] = H[b,f]", "down": "Y[b,d] = A[b,f] * W2[f,d]"}
MLP_SIZES = {"b": "B*S", "d": "D", "f": "4*D"}


@pytest.fixture
def mlp():
    return Workload.from_einsums(
        MLP, MLP_SIZES, params={"B": 8, "S": 2048, "D": 1024}, machine=Machine(51.2e12, 3.35e12)
    )


def test_params_start_at_the_workloads_values_with_integer_log_slider_ranges(mlp):
    w = CampaignDiagram(mlp, param_ranges={"B": [1, 64]})
    assert w.params == {"B": 8, "S": 2048, "D": 1024}
    assert w.param_ranges["B"] == {"range": [1, 64], "log": False}  # 64/1 < 100: linear
    assert w.param_ranges["S"] == {"range": [128, 32768], "log": True}  # value/16 .. value×16
    assert "params" in w.get_state() and "param_ranges" in w.get_state()


def test_setting_params_re_evaluates_the_workload_and_the_schedule(mlp):
    w = CampaignDiagram(mlp)
    before = w.makespan
    w.params = {"S": 4096}  # a partial dict: the others keep their values
    assert w.params == {"B": 8, "S": 4096, "D": 1024}
    b, d, f = 8 * 4096, 1024, 4 * 1024
    ops = np.asarray(w.phase_table["ops"])
    assert ops[0] == 2 * b * d * f and ops[2] == 2 * b * f * d  # by hand: 2·b·d·f per matmul
    assert w.workload.params == w.params
    same = CampaignDiagram(mlp.with_params(S=4096))  # the model evaluated on its own
    assert w.makespan == same.makespan and w.makespan > before
    np.testing.assert_array_equal(decoded_scene(w)["x1"], decoded_scene(same)["x1"])
    w.peak_bandwidth = 1e12  # a peak change keeps the parameters
    assert w.workload.params["S"] == 4096 and np.asarray(w.phase_table["ops"])[0] == 2 * b * d * f
    w.set_params(S=2048)
    assert w.params["S"] == 2048 and np.asarray(w.phase_table["ops"])[0] == 2 * 8 * 2048 * d * f


@pytest.mark.parametrize(
    "value, words",
    [
        ({"Q": 1, "Z": 2}, ["unknown", "'Q'", "'Z'", "'B', 'S', 'D'"]),
        ({"S": 0}, ["params['S']=0", "positive integer"]),
        ({"S": -3}, ["params['S']=-3"]),
        ({"S": 1.5}, ["params['S']=1.5"]),
        ({"S": "x"}, ["params['S']='x'"]),
        ({"S": True}, ["params['S']=True"]),
        ({"S": float("nan")}, ["params['S']=nan"]),
    ],
)
def test_bad_params_are_refused_by_name_and_value_and_the_widget_stays_usable(mlp, value, words):
    w = CampaignDiagram(mlp)
    params, makespan, table = dict(w.params), w.makespan, np.asarray(w.phase_table["ops"]).copy()
    with pytest.raises(traitlets.TraitError) as error:
        w.params = value
    for word in words:
        assert word in str(error.value)
    assert w.params == params and w.makespan == makespan and w.workload.params == params
    np.testing.assert_array_equal(np.asarray(w.phase_table["ops"]), table)
    w.params = {"S": 1024}  # still usable
    assert w.params["S"] == 1024 and w.makespan < makespan


def test_params_whose_sizes_do_not_evaluate_are_refused_before_they_are_stored():
    wl = Workload.from_einsums(
        {"a": "Y[m,h] = X[m,h]"},
        {"m": "B*S", "h": "D/H"},
        params={"B": 2, "S": 4, "D": 64, "H": 4},
        machine=Machine(1e12, 1e11),
    )
    w = CampaignDiagram(wl)
    with pytest.raises(traitlets.TraitError, match=r"'H': 3.*D/H.*64/3"):
        w.params = {"H": 3}
    assert w.params["H"] == 4 and w.phase_table["bytes"][0] == 2 * (2 * 4) * (64 // 4) * 4  # read + write, fp32
    w.params = {"H": 8}
    assert w.phase_table["bytes"][0] == 2 * (2 * 4) * (64 // 8) * 4


def test_the_view_may_write_params_and_a_refused_write_keeps_the_kernels_value(mlp):
    w = CampaignDiagram(mlp)
    w.set_state({"params": {"B": 8, "S": 512, "D": 1024}})
    assert w.params["S"] == 512 and w.workload.params["S"] == 512
    w.set_state({"params": {"B": 8, "S": 0, "D": 1024}})  # from the view: refused, said, not raised
    assert w.params["S"] == 512 and any("'S'" in line for line in w.warnings), w.warnings


def test_param_ranges_are_checked_and_a_workload_without_parameters_has_none(mlp, by_volume):
    with pytest.raises(ValueError, match=r"param_ranges names 'Q'.*'B', 'S', 'D'"):
        CampaignDiagram(mlp, param_ranges={"Q": [1, 2]})
    with pytest.raises(ValueError, match=r"param_ranges\['S'\]=\[8, 2\]"):
        CampaignDiagram(mlp, param_ranges={"S": [8, 2]})
    w = CampaignDiagram(mlp)
    with pytest.raises(traitlets.TraitError, match=r"param_ranges\['S'\]=\[0, 10\]"):
        w.param_ranges = {"S": [0, 10]}
    w.param_ranges = {"S": [1, 1 << 20]}
    assert w.param_ranges["S"] == {"range": [1, 1 << 20], "log": True} and w.param_ranges["B"]["range"] == [1, 128]
    plain = CampaignDiagram(by_volume)
    assert plain.params == {} and plain.param_ranges == {}
    with pytest.raises(traitlets.TraitError, match=r"unknown parameter\(s\) 'S'.*none"):
        plain.params = {"S": 2}


def test_explorer_has_one_set_of_params_for_diagram_dataflow_and_roofline(mlp):
    from campaign_widget import Explorer

    e = Explorer(mlp)
    link = e._params_link
    assert (link.source, link.target) == ((e.diagram, "params"), (e.dataflow, "params"))
    assert e.dataflow.param_ranges == e.diagram.param_ranges
    x_before = list(e.roofline.points.x)
    refreshes = []
    original = e.roofline._fill_legend
    e.roofline._fill_legend = lambda: (refreshes.append(1), original())
    e.set_params(S=8192)
    assert e.params == e.diagram.params == e.dataflow.params == {"B": 8, "S": 8192, "D": 1024}
    assert e.dataflow.workload.params["S"] == 8192
    assert list(e.roofline.points.x) != x_before  # the roofline follows the diagram's new workload
    assert len(refreshes) == 1  # drawn once per change
    b, d, f = 8 * 8192, 1024, 4096
    ops, nbytes = 2 * b * d * f, 4 * (b * d + d * f + b * f)  # up: X, W1 read, H written (fp32)
    assert e.roofline.points.x[0] == pytest.approx(ops / nbytes)
    with pytest.raises(traitlets.TraitError):
        e.set_params(S=0)
    assert e.dataflow.params["S"] == 8192 and e.diagram.params["S"] == 8192


@pytest.mark.parametrize(
    "tiles, limit",
    [(10**9, f"above the limit of {MAX_TILES:,}"), (3_000_000, "more than the 1,000,000 pieces"), (0, "must be >= 1")],
)
def test_a_refused_control_from_the_view_leaves_the_widget_usable(figure_2b, tiles, limit, monkeypatch):
    # checked before it is stored, refused before anything is scheduled, said in the readout, sent back
    w = CampaignDiagram(figure_2b)
    sent = []
    w.send_state = lambda key=None: sent.append(key)
    makespan = w.makespan
    scheduled = []
    build = widget_module.build_schedule
    monkeypatch.setattr(widget_module, "build_schedule", lambda *a, **k: scheduled.append(k) or build(*a, **k))
    w.set_state({"tiles": tiles})
    assert scheduled == []
    assert w.tiles == 1 and w.makespan == makespan
    assert any(limit in line for line in w.warnings), w.warnings
    assert sent and "tiles" in sent[-1]  # the view's slider goes back to the kernel's value
    w.set_state({"tiles": 4, "pipeline": True})
    assert w.tiles == 4 and w.pipeline and w.makespan < makespan and not w.warnings


def test_a_measured_timeline_is_drawn_as_it_ran(tmp_path):
    # intervals at their measured times, idle gaps kept, the idle share in the readout
    from campaign_widget import Machine, Schedule, StackedDiagrams

    w = Workload(
        [Phase("A", ops=2e9, bytes=1e8), Phase("B", ops=1e8, bytes=4e8, after=["A"])], machine=Machine(1e12, 1e11)
    )
    timeline = Schedule.from_intervals(
        w,
        phase=["A", "B", "A", "B"],
        start=[0, 0.004, 0.010, 0.020],
        end=[0.003, 0.009, 0.014, 0.027],
        lane=[0, 0, 1, 1],
    )
    d = CampaignDiagram(timeline)
    assert d.makespan == pytest.approx(0.027)
    busy = 0.003 + 0.005 + 0.004 + 0.007  # no two intervals overlap here
    idle = round((0.027 - busy) / 0.027 * 100)
    assert any(f"idle {idle}%" in text for text, _ in d.readout_lines), d.readout_lines
    d.peak_bandwidth = 2e11  # rates rescale, the measured times stay
    assert d.makespan == pytest.approx(0.027)
    with pytest.raises(TypeError, match="no tiles"):
        CampaignDiagram(timeline, tiles=4)
    stack = StackedDiagrams({"measured": timeline, "bound": w})
    assert stack.makespans["measured"] == pytest.approx(0.027)
    assert stack.makespans["bound"] == pytest.approx(w.schedule().makespan)
    # the gap per phase: measured busy time (A: 3 + 4 ms, B: 5 + 7 ms) minus its bound (2e9/1e12, 4e8/1e11)
    np.testing.assert_allclose(stack.gaps()["measured"]["gap"], [0.007 - 0.002, 0.012 - 0.004])
    assert stack.gap_readout.value.startswith("measured over the bound") and "B +8" in stack.gap_readout.value


def test_stepping_is_a_control_of_the_diagram():
    # the paper authors' lock-step rule from the widget too, on the counterexample that tells it apart
    chain = Workload(
        [
            Phase("P0", duration=8, compute_util=0.6, memory_util=0.9),
            Phase("P1", duration=5, compute_util=0.3, memory_util=0.5, after=["P0"]),
            Phase("P2", duration=4, compute_util=0.4, memory_util=0.8, after=["P1"]),
        ]
    )
    d = CampaignDiagram(chain, tiles=2, pipeline=True, policy="throttle")
    assert d.stepping == "event" and round(d.makespan, 6) == 14.7
    d.set_state({"stepping": "lockstep"})  # as the view's select writes it
    assert round(d.makespan, 6) == 14.1 and d.schedule.stepping == "lockstep"
    d.set_state({"stepping": "sideways"})  # refused before it is stored, said in the readout
    assert d.stepping == "lockstep" and any("sideways" in line for line in d.warnings)


def test_set_workload_redraws_another_workload_with_the_same_controls(by_volume, mlp):
    w = CampaignDiagram(by_volume, tiles=4, pipeline=True)
    slower = Workload(
        [Phase("load", ops=1e9, bytes=16e9), Phase("gemm", ops=4e12, bytes=1e9, after=["load"])],
        machine=by_volume.machine,
    )
    before = w.makespan
    w.set_workload(slower)
    assert w.makespan > before and w.tiles == 4 and w.pipeline
    assert w.makespan == slower.schedule(tiles=4, pipeline=True).makespan
    w.set_workload(mlp)  # other phases and parameters: names, colours and sliders follow
    assert list(w.phase_names) == list(mlp.names) and w.params == mlp.params
    assert len(w.phase_colors) == len(mlp)
    w.params = {"S": 4096}  # parameters now re-evaluate the new workload
    assert w.workload.params["S"] == 4096


def test_set_workload_refuses_what_cannot_be_drawn_and_keeps_the_diagram(by_volume):
    w = CampaignDiagram(by_volume, tiles=4)
    before = (w.makespan, list(w.phase_names))
    fixed = Workload([Phase("x", ops=1e9, bytes=1e9, tileable=False)], machine=by_volume.machine)
    with pytest.raises(Exception, match="tileable"):
        w.set_workload(fixed)
    with pytest.raises(TypeError, match="Workload"):
        w.set_workload("not a workload")
    assert (w.makespan, list(w.phase_names)) == before


# -- a refused value never lands in a trait, from Python or from the view (set_state: what a
# message from the view does) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "state, words",
    [
        ({"peak_compute": 1e-320}, ["peak_compute", "out of range"]),
        ({"peak_bandwidth": 1e40}, ["peak_bandwidth", "out of range"]),
        ({"pipeline": True, "depth": 0}, ["depth=0"]),
        ({"tiles": 3, "policy": "dilate", "depth": -1}, ["depth=-1"]),
    ],
)
def test_a_refused_control_from_the_view_keeps_the_accepted_values(by_volume, state, words):
    w = CampaignDiagram(by_volume)
    before = w.get_state()
    w.set_state(state)
    after = w.get_state()
    for key in (*state, "makespan", "readout_lines"):
        assert after[key] == before[key], f"{key}: {before[key]!r} → {after[key]!r}"
    for word in words:
        assert word in w.warnings[0], w.warnings
    w.set_state({"tiles": 4, "pipeline": True, "depth": 3})  # accepted together, drawn once more
    assert (w.tiles, w.pipeline, w.depth) == (4, True, 3) and w.makespan == w.schedule.makespan


def test_a_refused_peak_from_python_raises_and_keeps_the_value(by_volume):
    w = CampaignDiagram(by_volume)
    with pytest.raises(traitlets.TraitError, match=r"peak_bandwidth=1e\+40: .*out of range"):
        w.peak_bandwidth = 1e40
    assert w.peak_bandwidth == by_volume.machine.peak_bandwidth


@pytest.mark.parametrize("size", [0, 10**200, 1e300])
def test_parameters_from_the_view_are_checked_before_they_are_stored(mlp, size):
    w = CampaignDiagram(mlp)
    before = w.get_state()
    w.set_state({"params": {"S": size}})  # a partial dict, as a slider of one parameter could send
    assert w.get_state()["params"] == before["params"] == {"B": 8, "S": 2048, "D": 1024}
    assert w.makespan == before["makespan"]
    assert "params" in w.warnings[0] and len(w.warnings[0]) < 400, "the message names the field, bounded"
    w.set_state({"params": {"S": 4096}})
    assert w.params == {"B": 8, "S": 4096, "D": 1024} and w.workload.params["S"] == 4096


def test_a_params_change_keeps_the_stepping(mlp):
    w = CampaignDiagram(mlp, tiles=4, pipeline=True, stepping="lockstep")
    w.params = {"S": 4096}
    same = CampaignDiagram(mlp.with_params(S=4096), tiles=4, pipeline=True, stepping="lockstep")
    assert w.schedule.stepping == "lockstep" and w.makespan == same.makespan


def test_every_view_refuses_unknown_keywords_and_takes_a_theme(by_volume):
    from campaign_widget.views.base import ViewWidget
    from campaign_widget.views.dataflow import DataflowView
    from campaign_widget.views.local import LocalView

    views = [
        lambda **kw: CampaignDiagram(by_volume, **kw),
        lambda **kw: DataflowView(by_volume, **kw),
        lambda **kw: LocalView(None, "C[i,j] = A[i,k] * B[k,j]", {"i": 2, "j": 2, "k": 2}, **kw),
    ]
    for make in views:
        view = make(theme="dark")
        assert isinstance(view, ViewWidget) and view.get_state()["theme"] == "dark"
        with pytest.raises(TypeError, match=f"{type(view).__name__} got unexpected keyword arguments: colour"):
            make(colour="red")
        with pytest.raises(traitlets.TraitError, match="unknown theme 'sepia'; valid: auto, light, dark"):
            view.theme = "sepia"
        view.set_state({"theme": "light"})  # the view may write it
        assert view.theme == "light"


def test_array_dict_traits_travel_as_buffers_and_come_back_as_arrays():
    from campaign_widget.views.buffers import ArrayDict, arrays_from_json, arrays_to_json

    class Holder(traitlets.HasTraits):
        data = ArrayDict()

    holder = Holder(data={"x": np.arange(3, dtype=np.float32), "n": 3})
    meta = Holder.class_traits()["data"].metadata
    assert meta["sync"] and meta["to_json"] is arrays_to_json and meta["from_json"] is arrays_from_json
    wire = arrays_to_json(holder.data)
    assert wire["n"] == 3 and wire["x"]["dtype"] == "float32" and isinstance(wire["x"]["buffer"], memoryview)
    back = arrays_from_json({"x": {**wire["x"], "buffer": bytes(wire["x"]["buffer"])}, "n": 3})
    np.testing.assert_array_equal(back["x"], holder.data["x"])
    assert back["x"].dtype == np.float32 and back["n"] == 3
    with pytest.raises(traitlets.TraitError, match=r"data\['y'\] is a int64 array; the view decodes"):
        holder.data = {"y": np.arange(3, dtype=np.int64)}
    assert list(holder.data) == ["x", "n"], "the refused value is not stored"
