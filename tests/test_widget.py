"""The widget without a browser: traits in, binary buffers out, PNG protocol (js/CONTRACT.md)."""

import time

import numpy as np
import pytest
import traitlets
from ipywidgets.widgets.widget import _remove_buffers

from campaign_widget import CampaignDiagram, Machine, Phase, Workload
from campaign_widget.buffers import from_payload
from campaign_widget.scene import build_scene
from campaign_widget.widget import decode_scene_state

PNG_BYTES = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


@pytest.fixture
def by_volume():
    return Workload([Phase("load", ops=1e9, bytes=8e9), Phase("gemm", ops=4e12, bytes=1e9, after=["load"])],
                    machine=Machine(peak_compute=1e12, peak_bandwidth=1e10))


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
    np.testing.assert_allclose(np.asarray(w.phase_table["compute_util"]), [.35, .1, .3])


def test_schedule_controls_recompute(by_volume):
    w = CampaignDiagram(by_volume)
    sequential = w.makespan
    w.tiles, w.pipeline = 8, True
    assert w.makespan < sequential
    assert w.makespan == pytest.approx(by_volume.schedule(tiles=8, pipeline=True).makespan)


@pytest.mark.parametrize("trait, value", [("peak_compute", 0.0), ("peak_bandwidth", float("nan")),
                                          ("peak_bandwidth", -1.0), ("tiles", 0), ("depth", 0),
                                          ("policy", "fast"), ("y_axis", "log")])
def test_bad_trait_values_are_refused_by_name(figure_2b, trait, value):
    w = CampaignDiagram(figure_2b)
    with pytest.raises(traitlets.TraitError, match=trait):
        setattr(w, trait, value)


def test_unknown_keyword_is_a_type_error(figure_2b):
    with pytest.raises(TypeError, match="peak_bandwith"):
        CampaignDiagram(figure_2b, peak_bandwith=3)


def test_measured_utilization_above_one_reaches_the_readout():
    with pytest.warns(UserWarning, match="'hot'"):
        w = Workload([Phase("hot", duration=1, compute_util=1.4, memory_util=.2)])
    d = CampaignDiagram(w)
    assert any("'hot'" in line and "1.4" in line for line in d.warnings)


def test_repr_does_not_dump_the_buffers(figure_2b):
    text = repr(CampaignDiagram(figure_2b))
    assert "3 phases" in text and "buffer" not in text and len(text) < 200


# -- PNG export through a view ---------------------------------------------------------------------

def test_save_png_without_a_view_raises_at_once(figure_2b, tmp_path):
    w = CampaignDiagram(figure_2b)
    started = time.monotonic()
    with pytest.raises(RuntimeError, match="displayed view"):
        w.save_png(tmp_path / "x.png")
    assert time.monotonic() - started < 1


def test_save_png_writes_the_first_reply_and_drops_duplicates(figure_2b, tmp_path):
    w = CampaignDiagram(figure_2b)
    sent = []
    w._png._send = sent.append
    w._on_view_message(w, {"type": "view-ready"}, [])
    w._on_view_message(w, {"type": "view-ready"}, [])
    export = w.save_png(tmp_path / "fig.png", scale=2)
    assert not export.done and sent[0]["type"] == "png-request" and sent[0]["scale"] == 2
    reply = {"type": "png-reply", "id": sent[0]["id"], "width": 1600, "height": 720}
    w._on_view_message(w, reply, [memoryview(PNG_BYTES)])
    w._on_view_message(w, reply, [memoryview(b"\x89PNG\r\n\x1a\nsecond view")])
    assert export.done and export.error is None and export.size == (1600, 720)
    assert (tmp_path / "fig.png").read_bytes() == PNG_BYTES


def test_save_png_times_out_with_a_clear_error(figure_2b, tmp_path):
    w = CampaignDiagram(figure_2b)
    w._png._send = lambda msg: None
    w._on_view_message(w, {"type": "view-ready"}, [])
    with pytest.warns(RuntimeWarning, match="no view answered"):
        export = w.save_png(tmp_path / "late.png", timeout=0.2)
        assert export.wait(2)
    assert "no view answered" in export.error and not (tmp_path / "late.png").exists()


def test_save_png_rejects_non_png_bytes_and_closed_views(figure_2b, tmp_path):
    w = CampaignDiagram(figure_2b)
    sent = []
    w._png._send = sent.append
    w._on_view_message(w, {"type": "view-ready"}, [])
    export = w.save_png(tmp_path / "bad.png")
    w._on_view_message(w, {"type": "png-reply", "id": sent[0]["id"]}, [memoryview(b"<html>")])
    assert "not a PNG" in export.error and not (tmp_path / "bad.png").exists()
    w._on_view_message(w, {"type": "view-closed"}, [])
    with pytest.raises(RuntimeError):
        w.save_png(tmp_path / "gone.png")


def test_a_scene_too_large_for_the_browser_is_not_sent(by_volume, monkeypatch):
    import campaign_widget.widget as widget_module

    monkeypatch.setattr(widget_module, "MAX_VIEW_PIECES", 10)
    w = CampaignDiagram(by_volume, tiles=8, pipeline=True)
    assert w.scene["n"] == 0 and any("more than the 10 a browser view" in line for line in w.warnings)
    assert w.makespan == pytest.approx(by_volume.schedule(tiles=8, pipeline=True).makespan)


def _scene_bytes(widget) -> int:
    import json

    stripped, _, buffers = _remove_buffers(widget.get_state(["scene"]))
    return len(json.dumps(stripped)) + sum(len(b) for b in buffers)


def test_a_scene_piece_costs_at_most_32_bytes_on_the_wire():
    chain = Workload([Phase(f"p{i}", duration=1 + i % 3, compute_util=.3, memory_util=.5,
                            after=[f"p{i - 1}"] if i else []) for i in range(24)])
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
    assert resent and {"scene", "makespan", "phase_names"} <= set(resent[-1]["state"]), \
        "the kernel's values go back to the view"


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
    assert w.legend_features == {"spill": False, "compute_over": False, "dashed": True}


def test_fusion_group_bands_are_drawn_where_their_phases_run():
    from campaign_widget.group_bands import group_spans

    # Group 0 runs on [0, 2) and [5, 6); group 1 on [1, 5) (overlapping group 0's first run).
    spans = group_spans(start=np.array([0.0, 1.0, 1.5, 5.0, 9.0]), end=np.array([2.0, 4.0, 5.0, 6.0, 10.0]),
                        group=np.array([0, 1, 1, 0, -1]))
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
