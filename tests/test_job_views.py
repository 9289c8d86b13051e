"""A job as campaigns (docs/distributed-jobs.md#the-job-as-campaigns), Job.compare, and the ``job`` command."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from workloads import job_rank

import campaign_widget as cw
from campaign_widget.cli import main
from campaign_widget.errors import ArgumentError, ScheduleError
from campaign_widget.job._rank import COMMUNICATION, COMPUTE
from campaign_widget.job.display import display_machine, job_origin, rank_timeline, steps_workload
from campaign_widget.model.timeline import from_intervals

GLOO = Path(__file__).parent / "data" / "gloo"
CPU = cw.Machine(1e11, 2e10, name="cpu")


@pytest.fixture(scope="module")
def job2():
    return cw.load_job(GLOO / "ranks2")


def test_a_ranks_timeline_puts_communication_on_the_network_and_computation_on_compute(job2):
    r = job2.ranks[1]
    t = rank_timeline(r, job_origin(job2.ranks))
    assert t.resource_names == ("compute", "memory", "network")
    names = [t.names[p] for p in t.phase]
    comm = np.array([n.startswith("gloo:") for n in names])
    assert comm.any() and (~comm).any()
    assert np.all(t.level_rates[comm, 0] == 1.0) and np.all(t.compute_rate[comm] == 0.0)
    assert np.all(t.compute_rate[~comm] == 1.0) and np.all(t.level_rates[~comm, 0] == 0.0)
    assert t.peak_demand["network"] >= 1.0


def test_the_ranks_share_one_clock_from_the_jobs_first_event(job2):
    origin = job_origin(job2.ranks)
    starts = [rank_timeline(r, origin).start.min() for r in job2.ranks.values()]
    assert min(starts) == 0.0 and max(starts) > 0.0  # one rank starts first, the other later on the same axis


def test_job_diagrams_stacks_one_panel_per_rank_and_draws(job2, tmp_path):
    stack = cw.job_diagrams(job2)
    assert list(stack.diagrams) == ["rank 0", "rank 1"]
    assert list(cw.job_diagrams(job2, ranks=[1]).diagrams) == ["rank 1"]
    out = tmp_path / "job.png"
    stack.savefig(out)
    assert out.stat().st_size > 10_000


def test_the_roofline_has_one_point_per_rank_with_the_recorded_volumes(job2):
    w = steps_workload(job2.ranks, CPU)
    assert list(w.names) == ["rank 0", "rank 1"]
    assert np.all(w.arrays.ops > 0) and np.all(w.arrays.bytes > 0)  # the profiler's with_flops, record_shapes
    view = cw.job_roofline(job2, CPU)
    assert list(view.diagram.phase_names) == ["rank 0", "rank 1"]
    with pytest.raises(ArgumentError, match="needs machine="):
        cw.job_roofline(job2)


def test_a_network_level_is_added_before_the_memory():
    m = display_machine(CPU)
    assert m.level_names == ("network", CPU.memory_name) and m.peak_compute == CPU.peak_compute
    assert display_machine(m) is m


def test_level_rate_names_a_nearer_level_or_is_refused():
    m = display_machine(CPU)
    w = cw.Workload([cw.Phase("a", duration=1.0, compute_util=0.0, memory_util=0.0)], machine=m)
    t = from_intervals(w, phase=[0, 0], start=[0.0, 0.5], end=[1.0, 1.5], level_rate={"network": [1.0, 1.0]})
    assert t.peak_demand["network"] == 2.0 and len(t.oversubscribed) == 1
    with pytest.raises(ScheduleError, match="not a nearer memory level"):
        from_intervals(w, phase=[0], start=[0.0], end=[1.0], level_rate={"nvlink": [1.0]})


def test_compare_lists_what_grew_and_shrank(job2):
    other = cw.load_job(GLOO / "ranks4")
    rows = job2.compare(other)
    assert rows and all(set(r) == {"name", "before", "after", "change", "count_before", "count_after"} for r in rows)
    assert [abs(r["change"]) for r in rows] == sorted((abs(r["change"]) for r in rows), reverse=True)
    assert job2.compare(job2) == []
    stack = cw.compare_diagrams(job2, other)
    assert list(stack.diagrams)[:3] == ["before: rank 0", "before: rank 1", "after: rank 0"]


def test_a_phase_that_only_one_job_has_is_listed_with_zero_on_the_other(job2):
    from campaign_widget.job import Job

    a = Job({0: job_rank(0, [("mm", COMPUTE, 0, 2), ("gloo:all_reduce", COMMUNICATION, 2, 4)])})
    b = Job({0: job_rank(0, [("mm", COMPUTE, 0, 3)])})
    rows = {r["name"]: r for r in a.compare(b)}
    assert rows["gloo:all_reduce"]["after"] == 0.0 and rows["gloo:all_reduce"]["count_before"] == 1
    assert rows["mm"]["change"] == 1.0


def test_the_job_command_prints_the_breakdown_overlap_and_stragglers(capsys, tmp_path):
    out = tmp_path / "stack.png"
    assert main(["job", str(GLOO / "ranks2"), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "idle %" in text and "overlap %" in text and "stragglers: rank 1" in text and "straggle" in text
    assert out.stat().st_size > 10_000


@pytest.mark.parametrize(
    ("argv", "code", "said"),
    [
        (["job", "nowhere-at-all"], 1, "nowhere-at-all"),
        (["job", str(GLOO / "ranks4"), "--ranks", "0-1,9"], 1, "rank 9"),
        (["job", str(GLOO / "ranks4"), "--ranks", "three"], 2, "--ranks"),
        (["job", str(GLOO / "ranks4"), "-o", "stack.gif"], 2, "unknown suffix"),
    ],
)
def test_the_job_command_names_what_is_wrong(argv, code, said, capsys):
    assert main(argv) == code
    assert said in capsys.readouterr().err


def test_the_job_command_takes_the_slowest_ranks_on_a_pool(capsys):
    assert main(["job", str(GLOO / "ranks2"), "--ranks", "slowest:1", "--workers", "2"]) == 0
    text = capsys.readouterr().out
    assert "1 rank of" in text and "\n    1 " in text and "\n    0 " not in text
