"""The critical path: of a modelled schedule (Schedule.critical_path) and of a job across its ranks
(Job.critical_path), against hand computation (docs/distributed-jobs.md#the-critical-path)."""

from __future__ import annotations

from pathlib import Path

import pytest
from workloads import TWO_PHASES, chain, figure_2b, hopper, job_rank

from campaign_widget.job import Job, load_job
from campaign_widget.job._rank import COMMUNICATION, COMPUTE


def test_figure_2b_one_phase_at_a_time_every_phase_is_on_the_path():
    w = figure_2b(machine=hopper())  # A 3, B 10, C 2: a chain
    cp = w.schedule().critical_path(w)
    assert cp.phases == ("A", "B", "C")
    assert cp.length == 15.0
    assert cp.phase_slack == {"A": 0.0, "B": 0.0, "C": 0.0}


def test_figure_2b_pipelined_in_two_tiles_by_hand():
    """A0 [0, 1.5] A1 [1.5, 3]; B0 [1.5, 6.5] B1 [6.5, 11.5]; C0 [6.5, 7.5] C1 [11.5, 12.5]. The end (12.5)
    is C1's, which waited for B1, which waited for B0 (its own previous tile), which waited for A0. A1 could
    end at 6.5 (B1 starts then): slack 3.5; C0 could end at 11.5 (C1 starts then): slack 4."""
    w = figure_2b(machine=hopper())
    s = w.schedule(tiles=2, pipeline=True)
    cp = s.critical_path(w)
    assert [(s.names[s.phase[i]], int(s.tile[i])) for i in cp.intervals] == [("A", 0), ("B", 0), ("B", 1), ("C", 1)]
    assert cp.length == 12.5
    slack = {(s.names[p], int(t)): float(x) for p, t, x in zip(s.phase, s.tile, cp.slack)}
    assert slack == {("A", 0): 0.0, ("A", 1): 3.5, ("B", 0): 0.0, ("B", 1): 0.0, ("C", 0): 4.0, ("C", 1): 0.0}


def test_the_timeline_of_a_schedule_gives_its_workload_itself():
    w = figure_2b(machine=hopper())
    s = w.schedule(tiles=2, pipeline=True)
    assert s.critical_path().phases == s.critical_path(w).phases  # the path needs no producers


def test_throttling_lengthens_the_path_to_the_throttled_makespan():
    """TWO_PHASES pipelined in 4 tiles oversubscribes memory; throttled, the shared factor stretches every
    tile that runs beside another, and the path is as long as the throttled makespan."""
    w = chain(*TWO_PHASES, machine=hopper())
    free = w.schedule(tiles=4, pipeline=True, policy="none")
    slow = w.schedule(tiles=4, pipeline=True, policy="throttle")
    a, b = free.critical_path(w), slow.critical_path(w)
    assert a.length == pytest.approx(free.makespan) and b.length == pytest.approx(slow.makespan)
    assert b.length > a.length


def test_a_branch_off_the_path_has_the_slack_of_its_margin():
    """A 4 then B 1 and C 6 both after A. One at a time: A [0, 4], B [4, 5], C [5, 11], each waits for the
    one before: all on the path. Pipelined (one tile): B [4, 5] and C [4, 10] run side by side; C sets the
    end, and B could end at 10: slack 5."""
    from campaign_widget import Phase, Workload

    w = Workload(
        [Phase("A", duration=4, compute_util=0.1, memory_util=0.1),
         Phase("B", duration=1, compute_util=0.1, memory_util=0.1, after=("A",)),
         Phase("C", duration=6, compute_util=0.1, memory_util=0.1, after=("A",))],
        machine=hopper(),
    )  # fmt: skip
    cp = w.schedule().critical_path(w)
    assert cp.phases == ("A", "B", "C") and cp.length == 11 and cp.phase_slack == {"A": 0, "B": 0, "C": 0}
    cp = w.schedule(pipeline=True).critical_path(w)
    assert cp.phases == ("A", "C") and cp.length == 10 and cp.phase_slack == {"A": 0, "B": 5, "C": 0}


def test_the_job_path_crosses_to_the_rank_that_joined_the_collective_last():
    """Rank 0 computes [0, 2], joins the all-reduce at 2 and waits to 10, then computes [10, 12]. Rank 1
    computes [0, 8] and joins at 8. The end (12) is rank 0's; before it, the all-reduce, which rank 1
    joined last: the path is rank 1's compute, rank 1's all-reduce, rank 0's last compute."""
    job = Job({
        0: job_rank(0, [("mm", COMPUTE, 0, 2), ("gloo:all_reduce", COMMUNICATION, 2, 10), ("add", COMPUTE, 10, 12)]),
        1: job_rank(1, [("mm", COMPUTE, 0, 8), ("gloo:all_reduce", COMMUNICATION, 8, 10)]),
    })  # fmt: skip
    path = job.critical_path()
    assert [(e["rank"], e["name"]) for e in path] == [(1, "mm"), (1, "gloo:all_reduce"), (0, "add")]
    assert [e["wait"] for e in path] == [0.0, 0.0, 0.0]


def test_the_gloo_jobs_path_runs_through_the_straggler():
    job = load_job(Path(__file__).parent / "data" / "gloo" / "ranks2")  # rank 1 sleeps 4 ms a step
    path = job.critical_path()
    ranks = [e["rank"] for e in path]
    assert max(set(ranks), key=ranks.count) == 1  # the straggler sets the step
    assert all(a["end"] <= b["start"] + 1e-3 for a, b in zip(path, path[1:]))
    assert any(e["kind"] == "communication" for e in path)
