"""The critical path highlighted in the diagram (docs/distributed-jobs.md#the-critical-path-in-the-diagram):
scene flag bit 3 on exactly the path's pieces, for a modelled schedule as the controls change it and on
each rank's panel of a job; the static figure draws it as the browser does; a rank's achieved-over-bound
view; ``render FOLDER`` draws a job's stack."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from workloads import figure_2b, hopper

import campaign_widget as cw
from campaign_widget.cli import main
from campaign_widget.errors import ArgumentError, WrongTypeError
from campaign_widget.figures.critical import with_critical_path
from campaign_widget.figures.scene import CRITICAL, build_scene
from campaign_widget.static_figure.style import theme
from campaign_widget.views.job import rank_view

GLOO = Path(__file__).parent / "data" / "gloo"


def marked(diagram) -> set:
    """The (phase name, tile) of the pieces the diagram's scene flags as on the critical path."""
    s = diagram._scene
    names = diagram.phase_names
    return {(names[int(p)], int(t)) for p, t, f in zip(s.phase, s.tile, s.flags) if f & CRITICAL}


def test_figure_2b_pipelined_in_two_tiles_flags_a0_b0_b1_c1():
    """tests/test_critical_path.py computes the path by hand: A0 [0, 1.5], B0 [1.5, 6.5], B1 [6.5, 11.5],
    C1 [11.5, 12.5]; A1 and C0 have slack. Only their pieces carry the bit, and the legend says so."""
    d = cw.CampaignDiagram(figure_2b(machine=hopper()), tiles=2, pipeline=True, critical_path=True)
    assert marked(d) == {("A", 0), ("B", 0), ("B", 1), ("C", 1)}
    assert d.legend_features["critical"] is True
    assert "critical path" in [e["label"] for e in cw.static_figure.legend.legend_entries([d.panel()])]


def test_off_by_default_and_the_bit_means_nothing_else():
    d = cw.CampaignDiagram(figure_2b(machine=hopper()), tiles=2, pipeline=True)
    assert marked(d) == set() and d.legend_features["critical"] is False
    w = figure_2b(machine=hopper())
    s = w.schedule(tiles=2, pipeline=True)
    scene = build_scene(s)
    flagged = with_critical_path(scene, s, [])
    assert np.array_equal(flagged.flags, scene.flags & ~np.uint8(CRITICAL))


def test_pipelining_and_dilation_change_the_path_and_the_diagram_follows():
    """Unpipelined, each tile waits for the one before: every piece is on the path. Pipelined, A1 and C0
    leave it. Dilated, C0 is stretched to end with B0's neighbour and C1 waits for it: the path turns to
    C0, and the flags are the dilated schedule's own path."""
    w = figure_2b(machine=hopper())
    d = cw.CampaignDiagram(w, tiles=2, pipeline=True, critical_path=True)
    d.pipeline = False
    assert marked(d) == {(p, t) for p in "ABC" for t in (0, 1)}
    d.pipeline = True
    free = marked(d)
    assert ("A", 1) not in free and ("C", 0) not in free
    d.policy = "dilate"
    s = d.schedule
    expected = {(s.names[s.phase[i]], int(s.tile[i])) for i in s.critical_path(w).intervals}
    assert marked(d) == expected and ("C", 0) in expected and expected != free


def test_the_option_can_be_turned_on_and_off_after_construction():
    d = cw.CampaignDiagram(figure_2b(machine=hopper()), tiles=2, pipeline=True)
    d.critical_path = True
    assert marked(d) == {("A", 0), ("B", 0), ("B", 1), ("C", 1)}
    d.critical_path = False
    assert marked(d) == set()


def test_bad_values_are_refused_naming_them():
    w = figure_2b(machine=hopper())
    with pytest.raises(WrongTypeError, match="critical_path"):
        cw.CampaignDiagram(w, critical_path=[0])  # a workload's schedule changes: no fixed intervals
    with pytest.raises(ArgumentError, match="interval 9"):
        cw.CampaignDiagram(_timeline(w), critical_path=[9])  # the timeline has 6 intervals


def _timeline(w):
    s = w.schedule(tiles=2)
    return cw.Schedule.from_intervals(w, phase=s.phase, start=s.start, end=s.end)


def _pixels(path) -> np.ndarray:
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"), dtype=int)


@pytest.mark.parametrize("look", ["light", "dark"])
def test_the_static_figure_draws_the_edge_in_the_themes_critical_colour(tmp_path, look):
    """The same diagram with and without the path: the pixels that differ are the bold edge, in the
    theme's critical colour (high contrast on the background), and the SVG names the artist and the key."""
    w = figure_2b(machine=hopper())
    on, off = tmp_path / "on.png", tmp_path / "off.png"
    cw.CampaignDiagram(w, tiles=2, pipeline=True, critical_path=True).savefig(on, theme=look, dpi=100)
    cw.CampaignDiagram(w, tiles=2, pipeline=True).savefig(off, theme=look, dpi=100)
    a, b = _pixels(on), _pixels(off)
    rows = int(0.6 * min(a.shape[0], b.shape[0]))  # the plot, above the legend (one key more with the path)
    a, b = a[:rows], b[:rows]
    colour = np.array([int(theme(look)["critical"][k : k + 2], 16) for k in (1, 3, 5)])
    background = np.array([int(theme(look)["background"][k : k + 2], 16) for k in (1, 3, 5)])
    assert np.abs(colour - background).sum() > 600  # legible on the background
    edge = np.all(np.abs(a - colour) <= 40, axis=-1) & ~np.all(np.abs(b - colour) <= 40, axis=-1)
    assert edge.sum() > 200, "the edge is drawn"
    svg = tmp_path / "on.svg"
    cw.CampaignDiagram(w, tiles=2, pipeline=True, critical_path=True).savefig(svg, theme=look)
    text = svg.read_text()
    assert 'id="critical-path' in text and "critical path" in text


@pytest.fixture(scope="module")
def job2():
    return cw.load_job(GLOO / "ranks2")


def test_each_ranks_panel_flags_exactly_the_jobs_path_through_that_rank(job2):
    stack = cw.job_diagrams(job2, critical_path=True)
    assert list(stack.diagrams) == ["rank 0", "rank 1"]  # highlighted in place: no panel of its own
    path = job2.critical_path()
    origin = cw.job.display.job_origin(job2.ranks)
    for k in job2.ranks:
        d = stack.diagrams[f"rank {k}"]
        t = d.schedule
        flagged = marked(d)
        on = [(t.names[t.phase[j]], int(t.tile[j])) for j in range(len(t))
              if any(e["rank"] == k and e["name"] == t.names[t.phase[j]]
                     and abs((e["start"] - origin) * 1e-6 - t.start[j]) < 1e-12 for e in path)]  # fmt: skip
        assert flagged == set(on)
        assert len(on) == sum(e["rank"] == k for e in path)
    assert any(len(marked(d)) for d in stack.diagrams.values())
    plain = cw.job_diagrams(job2)
    assert all(not marked(d) for d in plain.diagrams.values())


def test_a_ranks_row_expands_into_its_bound_on_the_same_axis(job2):
    stack = cw.job_diagrams(job2, expand=[1])
    assert list(stack.diagrams) == ["rank 0", "rank 1", "rank 1 at its bound"]
    bound = stack.diagrams["rank 1 at its bound"]
    assert list(bound.phase_names) == list(stack.diagrams["rank 1"].phase_names)
    assert stack.gaps() == {}  # the stack compares no other rank with rank 1's bound
    with pytest.raises(ArgumentError, match="expand"):
        cw.job_diagrams(job2, ranks=[0], expand=[1])


def test_rank_view_is_the_achieved_over_bound_view_at_the_speed_of_light(job2):
    """On a machine, each event name whose events recorded FLOPs and bytes runs in the bound at
    max(FLOPs / P, bytes / BW); the rest at their measured busy time, one after another."""
    peak, bandwidth = 1e11, 2e10
    view = rank_view(job2, 1, machine=cw.Machine(peak, bandwidth, name="cpu"))
    measured, bound = view.diagrams.values()
    assert list(bound.phase_names) == list(measured.phase_names)
    t, table = measured.schedule, bound.workload.arrays
    volumes = (table.ops > 0) & (table.bytes > 0)
    assert volumes.any() and (~volumes).any()  # the fixture's CPU operators recorded FLOPs, gloo's did not
    sol = np.maximum(table.ops / peak, table.bytes / bandwidth)
    busy = np.bincount(t.phase, weights=t.end - t.start, minlength=len(t.names))
    assert np.allclose(table.duration, np.where(volumes, sol, busy), rtol=1e-9, atol=1e-15)
    s = bound.schedule
    assert s.start.min() == 0 and np.allclose(s.start[1:], s.end[:-1])  # one after another, no idle
    assert "rank 1" in view.gaps() and "over the bound" in view.gap_readout.value


def test_render_of_a_folder_draws_the_jobs_stack(tmp_path, capsys):
    out = tmp_path / "job.png"
    assert main(["render", str(GLOO / "ranks2"), "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    with Image.open(out) as im:
        width, height = im.size
    assert height > width / 2  # two panels stacked, taller than one diagram
    assert main(["render", str(GLOO / "ranks2"), "-o", str(tmp_path / "x.png"), "--roofline"]) == 2
    assert "--roofline" in capsys.readouterr().err and not (tmp_path / "x.png").exists()
