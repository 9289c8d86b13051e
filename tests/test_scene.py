"""Scene geometry (design.md §4) from schedules."""

import numpy as np
import pytest
from workloads import chain

from campaign_widget.scene import COMPUTE_OVER, MEMORY_OVER, PIPE_WIDTH, build_scene

W = PIPE_WIDTH


def test_sequential_pieces_sit_on_the_axis():
    s = build_scene(chain(("A", 3, .7, .25), ("B", 10, .2, .9), ("C", 2, .6, .4)).schedule())
    np.testing.assert_allclose(s.x0, [0, 3, 13])
    np.testing.assert_allclose(s.x1, [3, 13, 15])
    np.testing.assert_allclose(s.base_y, 0)
    np.testing.assert_allclose(s.line_y, [.7, .2, .6], rtol=1e-6)
    np.testing.assert_allclose(s.well_top, np.array([.7, .2, .6]) + W, rtol=1e-6)
    np.testing.assert_allclose(s.fill_top, np.array([.7, .2, .6]) + W * np.array([.25, .9, .4]), rtol=1e-6)
    assert not s.flags.any() and s.x_max == 15
    assert s.y_max == pytest.approx(1.0)  # every pipe tops out below 1.0: no empty band above it


def test_stacked_tiles_add_compute_and_shrink_the_upper_well():
    s = build_scene(chain(("A", 3, .7, .6), ("B", 10, .2, .9)).schedule(tiles=4, pipeline=True))
    both = (s.x0 == 0.75)
    bottom, top = np.flatnonzero(both & (s.phase == 1)), np.flatnonzero(both & (s.phase == 0))
    assert bottom.size == top.size == 1
    b, t = bottom[0], top[0]
    # B (heavier memory user) at the bottom, A stacked on it: lines add, A's well is what B leaves
    assert s.line_y[b] == pytest.approx(.2) and s.base_y[t] == pytest.approx(.2)
    assert s.line_y[t] == pytest.approx(.9)
    assert s.well_top[t] - s.line_y[t] == pytest.approx(W * (1 - .9), rel=1e-5)
    assert s.fill_top[t] - s.line_y[t] == pytest.approx(W * .6, rel=1e-5)
    assert s.flags[t] & MEMORY_OVER and not s.flags[b] & MEMORY_OVER
    # nothing under B changes when A's tile ends, so B's tile stays one piece
    assert s.x1[b] == pytest.approx(3.25)
    assert s.over_t0.tolist() == [0.75, 3.25, 5.75] and set(s.over_resource.tolist()) == {1}


def test_compute_oversubscription_is_flagged():
    s = build_scene(chain(("A", 3, .7, .1), ("B", 10, .5, .9)).schedule(tiles=4, pipeline=True))
    assert (s.flags & COMPUTE_OVER).any()
    assert s.line_y.max() == pytest.approx(1.2)
    assert s.y_max == pytest.approx(max(s.well_top.max(), s.fill_top.max()))
    assert s.y_max >= 1.2


def test_added_time_is_dashed_at_the_end_of_each_tile():
    s = build_scene(chain(("A", 3, .7, .6), ("B", 10, .2, .9)).schedule(tiles=4, pipeline=True,
                                                                    policy="dilate+throttle"))
    dilated_a = np.flatnonzero((s.phase == 0) & (s.x0 == 0.75))[0]
    assert s.dash_from[dilated_a] == pytest.approx(0.75 + 0.75)   # solid for A's own 0.75
    assert s.x1[dilated_a] == pytest.approx(0.75 + 2.7)
    alone = np.flatnonzero((s.phase == 0) & (s.x0 == 0))[0]
    assert s.dash_from[alone] == pytest.approx(s.x1[alone])


def test_pieces_are_sorted_by_time_and_cover_each_interval_exactly():
    sched = chain(("A", 5, .2, .8), ("B", 10, .3, .6), ("C", 5, .8, .25)).schedule(tiles=3, pipeline=True)
    s = build_scene(sched)
    assert np.all(np.diff(s.x0) >= 0)
    for p in range(3):
        np.testing.assert_allclose((s.x1 - s.x0)[s.phase == p].sum(), (sched.end - sched.start)[sched.phase == p].sum())


def test_a_scene_too_large_to_stack_is_refused_with_its_size(monkeypatch):
    import campaign_widget.scene as scene_module

    monkeypatch.setattr(scene_module, "MAX_PIECES", 10)
    sched = chain(("A", 1, .5, .5), ("B", 1.3, .5, .5), ("C", .7, .5, .5)).schedule(tiles=8, pipeline=True)
    with pytest.raises(scene_module.SceneTooLargeError, match="limit of 10"):
        build_scene(sched)
    assert scene_module.empty_scene(sched).x_max == sched.makespan
