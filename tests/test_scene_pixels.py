"""A scene aggregated to the pixel columns of a window before it is sent (scene_pixels.py)."""

import math

import numpy as np
import pytest
from workloads import chain

from campaign_widget import CampaignDiagram
from campaign_widget.figures.scene import MEMORY_OVER, build_scene
from campaign_widget.figures.scene_pixels import MERGED, aggregate_scene
from campaign_widget.views import diagram as widget_module
from campaign_widget.views.buffers import from_payload
from campaign_widget.views.diagram import decode_scene_state


def many_tiles(tiles=400, policy="dilate+throttle"):
    w = chain(("A", 3, 0.7, 0.6), ("B", 5, 0.2, 0.9), ("C", 2, 0.9, 0.8))
    return build_scene(w.schedule(tiles=tiles, pipeline=True, policy=policy))


def reference_cells(scene, t0, t1, columns):
    """The merge rule of js/diagram/aggregate.js, one piece at a time in plain Python."""
    cells, wide = {}, []
    per = columns / (t1 - t0)
    for i in range(len(scene)):
        x0, x1 = float(scene.x0[i]), float(scene.x1[i])
        if not (x1 > t0 and x0 < t1):
            continue
        if (x1 - x0) * per >= 1:
            wide.append(i)
            continue
        column = min(columns - 1, max(0, math.floor(((x0 + x1) / 2 - t0) * per)))
        cells.setdefault((column, int(scene.phase[i])), []).append(i)
    return cells, wide


def test_sub_column_pieces_merge_per_column_and_phase_by_the_views_rule():
    scene = many_tiles()
    t0, t1, columns = 0.0, scene.x_max, 64
    out = aggregate_scene(scene, None, columns)
    cells, wide = reference_cells(scene, t0, t1, columns)
    merged = {k: v for k, v in cells.items() if len(v) > 1}
    assert merged and len(out) == len(wide) + len(cells) < len(scene)
    is_merged = (out.flags & MERGED) > 0
    assert int(is_merged.sum()) == len(merged)
    per = columns / (t1 - t0)
    found = {(int(round((out.x0[k] - t0) * per)), int(out.phase[k])): k for k in np.flatnonzero(is_merged)}
    for (column, phase), members in merged.items():
        k = found[(column, phase)]
        well = max(float(scene.well_top[i]) for i in members)
        spill = max(0.0, *(float(scene.fill_top[i] - scene.well_top[i]) for i in members))
        inside = max(min(float(scene.fill_top[i]), float(scene.well_top[i])) for i in members)
        assert out.base_y[k] == pytest.approx(min(float(scene.base_y[i]) for i in members))
        assert out.line_y[k] == pytest.approx(max(float(scene.line_y[i]) for i in members))
        assert out.well_top[k] == pytest.approx(well)
        assert out.fill_top[k] == pytest.approx(well + spill if spill > 0 else inside)
        assert bool(out.flags[k] & MEMORY_OVER) == (spill > 0 or any(scene.flags[i] & MEMORY_OVER for i in members))
        assert out.tile[k] == scene.tile[min(members)]  # the earliest piece of the cell names it
        assert out.x1[k] - out.x0[k] == pytest.approx(1 / per)
    # a column holding one piece of a phase keeps that piece exactly
    for members in (v for v in cells.values() if len(v) == 1):
        i = members[0]
        hit = np.flatnonzero((out.x0 == scene.x0[i]) & (out.x1 == scene.x1[i]) & (out.phase == scene.phase[i]))
        assert hit.size == 1 and not out.flags[hit[0]] & MERGED


def test_a_window_keeps_only_its_pieces_and_a_narrow_one_brings_every_piece_back():
    scene = many_tiles()
    t0, t1 = scene.x_max * 0.40, scene.x_max * 0.41
    inside = np.flatnonzero((scene.x1 > t0) & (scene.x0 < t1))
    out = aggregate_scene(scene, (t0, t1), 4096)  # far more columns than pieces in the window
    assert not (out.flags & MERGED).any() and len(out) == inside.size
    np.testing.assert_array_equal(out.x0, scene.x0[inside])
    np.testing.assert_array_equal(out.line_y, scene.line_y[inside])
    coarse = aggregate_scene(scene, (0.0, scene.x_max), 16)
    assert ((coarse.x1 > t0) & (coarse.x0 < t1)).sum() < inside.size  # merged at full view


def test_the_widget_sends_a_big_scene_aggregated_and_the_zoomed_window_in_detail(monkeypatch):
    monkeypatch.setattr(widget_module, "LOD_ABOVE", 500)
    monkeypatch.setattr(widget_module, "LOD_COLUMNS", 128)
    w = chain(("A", 3, 0.7, 0.6), ("B", 5, 0.2, 0.9), ("C", 2, 0.9, 0.8))
    d = CampaignDiagram(w, tiles=400, pipeline=True)
    full = len(d._scene)
    assert full > 500 and d.scene["n"] < full  # sent aggregated
    readout = d.readout_lines
    t0, t1 = d.makespan * 0.3, d.makespan * 0.302
    d.time_window = [t0, t1]  # the view zoomed
    state = d.get_state(["scene"])["scene"]  # the payloads actually sent
    sent = decode_scene_state({k: from_payload(v) if isinstance(v, dict) else v for k, v in state.items()})
    scene = d._scene
    inside = np.flatnonzero((scene.x1 > t0) & (scene.x0 < t1))
    assert d.scene["n"] == inside.size  # every piece of the window, none merged
    np.testing.assert_array_equal(np.asarray(sent["x0"]), scene.x0[inside])
    assert d.readout_lines == readout  # computed from the whole scene, whatever the view is sent
    d.time_window = []
    assert d.scene["n"] < full
    monkeypatch.setattr(widget_module, "LOD_ABOVE", 10**9)
    d.tiles = 401  # below the threshold the scene goes whole
    assert d.scene["n"] == len(d._scene)
