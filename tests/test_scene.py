"""Scene geometry (docs/semantics.md#what-a-campaign-diagram-draws) from schedules."""

import dataclasses

import numpy as np
import pytest
from workloads import chain, figure_2b, two_phases

from campaign_widget.figures.scene import COMPUTE_OVER, MEMORY_OVER, PIPE_WIDTH, build_scene

W = PIPE_WIDTH


def test_sequential_pieces_sit_on_the_axis():
    s = build_scene(figure_2b().schedule())
    np.testing.assert_allclose(s.x0, [0, 3, 13])
    np.testing.assert_allclose(s.x1, [3, 13, 15])
    np.testing.assert_allclose(s.base_y, 0)
    np.testing.assert_allclose(s.line_y, [0.7, 0.2, 0.6], rtol=1e-6)
    np.testing.assert_allclose(s.well_top, np.array([0.7, 0.2, 0.6]) + W, rtol=1e-6)
    np.testing.assert_allclose(s.fill_top, np.array([0.7, 0.2, 0.6]) + W * np.array([0.25, 0.9, 0.4]), rtol=1e-6)
    assert not s.flags.any() and s.x_max == 15
    assert s.y_max == pytest.approx(1.0)  # every pipe tops out below 1.0: no empty band above it


def test_stacked_tiles_add_compute_and_shrink_the_upper_well():
    s = build_scene(two_phases().schedule(tiles=4, pipeline=True))
    both = s.x0 == 0.75
    bottom, top = np.flatnonzero(both & (s.phase == 1)), np.flatnonzero(both & (s.phase == 0))
    assert bottom.size == top.size == 1
    b, t = bottom[0], top[0]
    # B (heavier memory user) at the bottom, A stacked on it: lines add, A's well is what B leaves
    assert s.line_y[b] == pytest.approx(0.2) and s.base_y[t] == pytest.approx(0.2)
    assert s.line_y[t] == pytest.approx(0.9)
    assert s.well_top[t] - s.line_y[t] == pytest.approx(W * (1 - 0.9), rel=1e-5)
    assert s.fill_top[t] - s.line_y[t] == pytest.approx(W * 0.6, rel=1e-5)
    assert s.flags[t] & MEMORY_OVER and not s.flags[b] & MEMORY_OVER
    # nothing under B changes when A's tile ends, so B's tile stays one piece
    assert s.x1[b] == pytest.approx(3.25)
    assert s.over_t0.tolist() == [0.75, 3.25, 5.75] and set(s.over_resource.tolist()) == {1}


def test_compute_oversubscription_is_flagged():
    s = build_scene(chain(("A", 3, 0.7, 0.1), ("B", 10, 0.5, 0.9)).schedule(tiles=4, pipeline=True))
    assert (s.flags & COMPUTE_OVER).any()
    assert s.line_y.max() == pytest.approx(1.2)
    assert s.y_max == pytest.approx(max(s.well_top.max(), s.fill_top.max()))
    assert s.y_max >= 1.2


def test_added_time_is_dashed_at_the_end_of_each_tile():
    s = build_scene(two_phases().schedule(tiles=4, pipeline=True, policy="dilate+throttle"))
    dilated_a = np.flatnonzero((s.phase == 0) & (s.x0 == 0.75))[0]
    assert s.dash_from[dilated_a] == pytest.approx(0.75 + 0.75)  # solid for A's own 0.75
    assert s.x1[dilated_a] == pytest.approx(0.75 + 2.7)
    alone = np.flatnonzero((s.phase == 0) & (s.x0 == 0))[0]
    assert s.dash_from[alone] == pytest.approx(s.x1[alone])


def test_pieces_are_sorted_by_time_and_cover_each_interval_exactly():
    sched = chain(("A", 5, 0.2, 0.8), ("B", 10, 0.3, 0.6), ("C", 5, 0.8, 0.25)).schedule(tiles=3, pipeline=True)
    s = build_scene(sched)
    assert np.all(np.diff(s.x0) >= 0)
    for p in range(3):
        np.testing.assert_allclose((s.x1 - s.x0)[s.phase == p].sum(), (sched.end - sched.start)[sched.phase == p].sum())


def test_a_scene_too_large_to_stack_is_refused_with_its_size(monkeypatch):
    import campaign_widget.figures.scene as scene_module

    monkeypatch.setattr(scene_module, "MAX_PIECES", 10)
    sched = chain(("A", 1, 0.5, 0.5), ("B", 1.3, 0.5, 0.5), ("C", 0.7, 0.5, 0.5)).schedule(tiles=8, pipeline=True)
    with pytest.raises(scene_module.SceneTooLargeError, match="limit of 10"):
        build_scene(sched)
    assert scene_module.empty_scene(sched).x_max == sched.makespan


# -- the scene against the pre-issue-12 scene of the pre-issue-12 engine (tests/schedule_reference.py) --

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schedule_reference import reference_scene, reference_schedule  # noqa: E402
from test_schedule import DAGS, _equal_duration_dag, dag_workloads  # noqa: E402

from campaign_widget import POLICIES  # noqa: E402


def _columns(scene, at):
    """At each instant of ``at``, the pieces drawn there: (phase, tile, base, line, well, fill, dash,
    flags), one row per tile, sorted by phase and tile."""
    out = []
    for t in at:
        here = np.flatnonzero((scene.x0 <= t) & (t < scene.x1))
        rows = np.stack(
            [
                scene.phase[here],
                scene.tile[here],
                scene.base_y[here],
                scene.line_y[here],
                scene.well_top[here],
                scene.fill_top[here],
                scene.dash_from[here],
                scene.flags[here],
            ],
            axis=1,
        )
        out.append(rows[np.lexsort((rows[:, 1], rows[:, 0]))])
    return out


def assert_same_scene(new, old):
    scale = max(1.0, old.x_max)
    assert abs(new.x_max - old.x_max) <= 1e-9 * scale and new.y_max == pytest.approx(old.y_max, abs=1e-6)
    bounds = np.union1d(np.r_[new.x0, new.x1], np.r_[old.x0, old.x1])
    gaps = np.diff(bounds)
    at = ((bounds[1:] + bounds[:-1]) / 2)[gaps > 1e-9 * scale]
    for t, mine, theirs in zip(at, _columns(new, at), _columns(old, at)):
        assert mine.shape == theirs.shape, f"at t={t}: {mine[:, :2].tolist()} drawn, expected {theirs[:, :2].tolist()}"
        np.testing.assert_array_equal(mine[:, [0, 1, 7]], theirs[:, [0, 1, 7]], err_msg=f"at t={t}")
        np.testing.assert_allclose(mine[:, 2:6], theirs[:, 2:6], atol=1e-6, err_msg=f"at t={t}")
        np.testing.assert_allclose(mine[:, 6], theirs[:, 6], atol=1e-9 * scale, err_msg=f"at t={t}")
    for key in ("over_t0", "over_t1", "over_demand"):
        np.testing.assert_allclose(getattr(new, key), getattr(old, key), rtol=1e-9, atol=1e-9 * scale)
    np.testing.assert_array_equal(new.over_resource, old.over_resource)
    # not more pieces than before: the scene merges what does not change
    assert len(new) <= len(old)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    w=dag_workloads(),
    tiles=st.integers(1, 6),
    pipeline=st.booleans(),
    policy=st.sampled_from(POLICIES),
    depth=st.integers(1, 3),
)
def test_scene_equals_the_reference_scene(w, tiles, pipeline, policy, depth):
    kwargs = dict(tiles=tiles, pipeline=pipeline, policy=policy, depth=depth)
    assert_same_scene(build_scene(w.schedule(**kwargs)), reference_scene(reference_schedule(w, **kwargs)))


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("dag", DAGS)
def test_scene_of_ties_and_skips_equals_the_reference_scene(policy, dag):
    w = _equal_duration_dag(len(DAGS[dag]), DAGS[dag], (1, 2, 0.7, 1.9), [0.5, 0.6, 0.3, 0.7], [0.6, 0.2, 0.9, 0.4])
    kwargs = dict(tiles=6, pipeline=True, policy=policy)
    assert_same_scene(build_scene(w.schedule(**kwargs)), reference_scene(reference_schedule(w, **kwargs)))


def test_a_throttled_tile_is_cut_where_the_factor_changes():
    """The schedule keeps a throttled tile whole; the scene draws it at the rate of each moment."""
    sched = two_phases().schedule(tiles=4, pipeline=True, policy="throttle")
    s = build_scene(sched)
    b_first = np.flatnonzero((sched.phase == 1) & (sched.tile == 0))[0]
    pieces = np.flatnonzero((s.phase == 1) & (s.tile == 0))
    assert pieces.size > 1  # B1 runs alone (0.9 memory), then beside A2 (1.5 requested: throttled to 1/1.5)
    times, factor = sched.throttle_timeline()
    heights = s.line_y[pieces] - s.base_y[pieces]
    for k, piece in zip(range(pieces.size), pieces):
        f = factor[np.searchsorted(times, s.x0[piece], side="right") - 1]
        assert heights[k] == pytest.approx(sched.requested_compute[b_first] * f, rel=1e-6)
    assert {round(float(h), 6) for h in heights} == {round(0.2, 6), round(0.2 / 1.5, 6)}


@pytest.mark.parametrize(
    "settings",
    [
        dict(),
        dict(tiles=4, pipeline=True),
        dict(tiles=7, pipeline=True, policy="none"),
        dict(tiles=5, pipeline=True, policy="throttle"),
        dict(tiles=3, pipeline=True, policy="dilate+throttle", depth=2),
    ],
)
def test_piece_ends_index_the_schedules_instants_so_the_wire_form_needs_no_sort(settings):
    from campaign_widget.views.diagram import decode_scene_state, scene_state

    s = build_scene(chain(("A", 3, 0.7, 0.6), ("B", 10, 0.2, 0.9), ("C", 2, 0.9, 0.8)).schedule(**settings))
    np.testing.assert_array_equal(s.edges[s.x0_edge], s.x0)  # exactly, not approximately
    np.testing.assert_array_equal(s.edges[s.x1_edge], s.x1)
    sorted_form = scene_state(dataclasses.replace(s, edges=None, x0_edge=None, x1_edge=None))
    indexed_form = scene_state(s)
    for key in ("x0", "x1", "dash_from"):  # both wire forms decode to the same times
        np.testing.assert_array_equal(decode_scene_state(indexed_form)[key], decode_scene_state(sorted_form)[key])


@pytest.mark.parametrize(
    "settings",
    [
        dict(tiles=6, pipeline=True, policy="dilate+throttle"),
        dict(tiles=4, pipeline=True, policy="dilate", stepping="lockstep"),
    ],
)
def test_one_piece_per_interval_stacks_as_the_general_cut_and_merge_does(settings):
    from campaign_widget.figures.scene import _stack, _stack_cut, _stack_whole

    schedule = chain(("A", 3, 0.7, 0.6), ("B", 3, 0.2, 0.9), ("C", 3, 0.9, 0.8)).schedule(**settings)
    spans = schedule.end_edge - schedule.start_edge
    assert np.all(spans == 1)  # the case the shortcut takes: equal phases in lockstep
    n = spans.size
    rank = np.empty(n, dtype=np.int64)
    rank[np.lexsort((schedule.phase, -schedule.requested_memory, schedule.start))] = np.arange(n)
    whole, cut = _stack_whole(schedule, rank), _stack_cut(schedule, rank, spans)
    for a, b in zip(whole, cut, strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(_stack(schedule), whole, strict=True):
        np.testing.assert_array_equal(a, b)
