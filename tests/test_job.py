"""A distributed job (campaign_widget.job): loading, its numbers against Holistic Trace Analysis's, bad input.

The gloo fixtures (tests/data/gloo/, made by make_gloo_job.py) are real: torch.distributed on gloo,
2 and 4 CPU processes under the profiler, rank 1 sleeping 4 ms a step in a ``straggle`` annotation.
"""

from __future__ import annotations

import concurrent.futures as cf
import gzip
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

from campaign_widget.errors import ArgumentError, WorkloadFileError
from campaign_widget.job import Job, JobReadWarning, load_job
from campaign_widget.job import _numbers as nb

GLOO = Path(__file__).parent / "data" / "gloo"

# Holistic Trace Analysis 0.5.0 (pip install HolisticTraceAnalysis, in a venv of its own), run by
#   HTA_DISABLE_NS_ROUNDING=1 VENV/bin/python benchmarks/hta_reference.py tests/data/gloo/ranksN
# (idle, compute, non-compute, span in µs; overlap in %, as HTA rounds it)
HTA_VERSION = "0.5.0"
HTA_UNROUNDED = {
    "ranks2": {
        0: (38935.84753124985, 3306.345999999903, 15205.36800000025, 57447.56153125, 0.0),
        1: (10564.51508593747, 3562.067000000039, 38865.18663281249, 52991.76871875, 0.55),
    },
    "ranks4": {
        0: (6683.9033515624615, 12360.969000000274, 28210.84380468726, 47255.71615625, 20.96),
        1: (11849.3505312501, 19679.273000000045, 20686.93237499986, 52215.55590625, 39.39),
        2: (7072.474187500025, 11019.642999999924, 32692.91391406255, 50785.0311015625, 17.1),
        3: (2166.3176171877494, 12468.67200000002, 33641.152671874734, 48276.1422890625, 21.34),
    },
}
# the same, run without the variable: HTA's default rounds each event in to whole µs (ceil of the start,
# floor of the end: its parser's round_down_time_stamps)
HTA_DEFAULT = {
    "ranks2": {0: (39016.0, 3231.0, 15200.0, 57447.0, 0.0), 1: (10638.0, 3490.0, 38863.0, 52991.0, 0.55)},
    "ranks4": {
        0: (6762.0, 12284.0, 28209.0, 47255.0, 20.96),
        1: (11925.0, 19603.0, 20686.0, 52214.0, 39.39),
        2: (7144.0, 10947.0, 32693.0, 50784.0, 17.09),
        3: (2245.0, 12389.0, 33641.0, 48275.0, 21.34),
    },
}


def _figures(job: Job) -> dict:
    overlap = job.overlap()
    return {
        k: (t["idle"], t["compute"], t["non_compute"], t["span"], round(100 * overlap[k], 2))
        for k, t in job.temporal_breakdown().items()
    }


@pytest.mark.parametrize("folder", sorted(HTA_UNROUNDED))
def test_the_breakdown_and_the_overlap_equal_htas(folder):
    ours = _figures(load_job(GLOO / folder))
    assert sorted(ours) == sorted(HTA_UNROUNDED[folder])
    for rank, theirs in HTA_UNROUNDED[folder].items():
        # the traces' clocks are ~5e12 µs: a float64 holds them to 1e-3 µs, so sums agree to 1e-2 µs
        assert ours[rank][:4] == pytest.approx(theirs[:4], abs=1e-2), rank
        assert ours[rank][4] == theirs[4], rank


@pytest.mark.parametrize("folder", sorted(HTA_DEFAULT))
def test_htas_default_differs_by_its_rounding_of_each_event_to_whole_microseconds(folder):
    """HTA by default rounds every event in to whole µs; ours keeps the trace's ns. Rounded the same way,
    ours equals HTA's default figures to 2 µs (HTA rounds on its clock, moved to the trace's start: an
    instant near a whole µs may round the other way); unrounded, compute differs by up to 2 µs an event."""
    job = load_job(GLOO / folder)
    for r in job.ranks.values():
        r.start, r.end, r.steps = (
            np.ceil(r.start),
            np.floor(r.end),
            np.column_stack([np.ceil(r.steps[:, 0]), np.floor(r.steps[:, 1])]),
        )
    ours = _figures(job)
    unrounded = _figures(load_job(GLOO / folder))
    for rank, theirs in HTA_DEFAULT[folder].items():
        assert ours[rank][:4] == pytest.approx(theirs[:4], abs=2.0), rank
        assert abs(ours[rank][4] - theirs[4]) <= 0.01, rank
        events = int(nb.counted(job.ranks[rank]).sum())
        assert 2.0 < abs(unrounded[rank][1] - theirs[1]) <= 2 * events, rank  # each end moves by < 1 µs


def test_ranks_come_from_distributed_info_and_the_world_size_is_the_traces():
    job = load_job(GLOO / "ranks4")
    assert list(job.ranks) == [0, 1, 2, 3]
    assert {r.world_size for r in job.ranks.values()} == {4}
    assert {r.backend for r in job.ranks.values()} == {"gloo"}
    assert all(r.rank_from == "distributedInfo" for r in job.ranks.values())


def test_the_straggler_is_the_rank_that_sleeps_and_the_phase_is_its_sleep():
    late = load_job(GLOO / "ranks4").stragglers()
    assert [s["rank"] for s in late] == [1]
    assert late[0]["phase"] == "straggle"
    assert 3_000 < late[0]["phase_excess"] < 10_000  # µs per step: it sleeps 4 ms a step (plus the wake-up)


def test_kernel_breakdown_counts_the_collectives_as_communication():
    kb = load_job(GLOO / "ranks2").kernel_breakdown()
    for row in kb.values():
        assert row["communication count"] >= 2 and row["memory count"] == 0  # the counted steps' all-reduces
        assert row["computation ∩ communication"] <= min(row["computation"], row["communication"])


def test_ranks_selects_a_range_and_the_slowest():
    assert list(load_job(GLOO / "ranks4", ranks=range(2, 4)).ranks) == [2, 3]
    slowest = load_job(GLOO / "ranks4", ranks="slowest:1")
    assert list(slowest.ranks) == [1]


def test_a_rank_missing_from_the_range_asked_for_is_named(tmp_path):
    with pytest.raises(WorkloadFileError, match=r"rank 7 .* is not in this job \(its ranks: 0-3\)") as e:
        load_job(GLOO / "ranks4", ranks=[0, 7])
    assert "ranks4" in str(e.value)


@pytest.mark.parametrize("bad", ["slowest:0", "fastest:2", 3.5, [1.0], []])
def test_ranks_of_the_wrong_form_are_refused(bad):
    with pytest.raises(ArgumentError, match="ranks="):
        load_job(GLOO / "ranks2", ranks=bad)


def test_a_folder_without_traces_is_named(tmp_path):
    (tmp_path / "notes.txt").write_text("no traces")
    with pytest.raises(WorkloadFileError, match="no traces") as e:
        load_job(tmp_path)
    assert str(tmp_path) in str(e.value)


def _rewrite(src: Path, dst: Path, change) -> None:
    trace = json.loads(gzip.decompress(src.read_bytes()))
    change(trace)
    dst.write_text(json.dumps(trace))


def test_traces_of_different_world_sizes_are_refused_naming_the_files(tmp_path):
    shutil.copy(GLOO / "ranks2" / "rank0.json.gz", tmp_path / "a.json.gz")
    shutil.copy(GLOO / "ranks4" / "rank1.json.gz", tmp_path / "b.json.gz")
    with pytest.raises(
        WorkloadFileError, match=r"different jobs: world size 2 in .*a\.json\.gz; world size 4 in .*b\.json\.gz"
    ):
        load_job(tmp_path)


def test_two_files_for_one_rank_are_refused(tmp_path):
    shutil.copy(GLOO / "ranks2" / "rank0.json.gz", tmp_path / "a.json.gz")
    shutil.copy(GLOO / "ranks2" / "rank0.json.gz", tmp_path / "b.json.gz")
    with pytest.raises(WorkloadFileError, match=r"two files for rank 0: .*a\.json\.gz and this one") as e:
        load_job(tmp_path)
    assert "b.json.gz" in str(e.value)


def test_without_distributed_info_the_rank_comes_from_the_file_name_or_is_refused(tmp_path):
    def drop(trace):
        del trace["distributedInfo"]

    _rewrite(GLOO / "ranks2" / "rank1.json.gz", tmp_path / "trace_rank_1.json", drop)
    job = load_job([tmp_path / "trace_rank_1.json"])
    assert list(job.ranks) == [1] and job.ranks[1].rank_from == "file name"
    _rewrite(GLOO / "ranks2" / "rank1.json.gz", tmp_path / "worker.json", drop)
    with pytest.raises(WorkloadFileError, match="no distributedInfo") as e:
        load_job([tmp_path / "worker.json"])
    assert "worker.json" in str(e.value)


def test_one_unreadable_rank_among_many_the_others_load_and_the_report_names_it(tmp_path):
    for f in (GLOO / "ranks4").glob("*.json.gz"):
        shutil.copy(f, tmp_path / f.name)
    (tmp_path / "rank2.json.gz").write_bytes(gzip.compress(b'{"traceEvents": [{"ph": "X", "name": '))
    with pytest.warns(JobReadWarning, match=r"1 of 4 ranks could not be read: .*rank2\.json\.gz"):
        job = load_job(tmp_path)
    assert list(job.ranks) == [0, 1, 3]
    assert list(job.unreadable) == [str(tmp_path / "rank2.json.gz")]
    assert "truncated" in job.unreadable[str(tmp_path / "rank2.json.gz")]
    assert "unreadable" in job.summary() and "rank2.json.gz" in job.summary()


def test_when_no_rank_can_be_read_the_error_says_why(tmp_path):
    (tmp_path / "rank0.json").write_text("not json")
    with pytest.raises(WorkloadFileError, match=r"no rank of this job could be read; .*rank0\.json"):
        load_job(tmp_path)


def test_any_executor_gives_the_same_job():
    inline = _figures(load_job(GLOO / "ranks4", executor=None))
    with cf.ThreadPoolExecutor(2) as pool:
        assert _figures(load_job(GLOO / "ranks4", executor=pool)) == inline
    with cf.ProcessPoolExecutor(2) as pool:
        assert _figures(load_job(GLOO / "ranks4", executor=pool)) == inline


def test_a_dask_cluster_gives_the_same_job():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            job = load_job(GLOO / "ranks4", executor=client)
    assert job.executor_kind == "dask"
    assert _figures(job) == _figures(load_job(GLOO / "ranks4"))


def test_progress_is_reported_per_rank():
    calls = []
    load_job(GLOO / "ranks4", progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_the_merge_joins_overlapping_and_touching_intervals():
    s, e = nb.merged(np.array([5.0, 0.0, 1.0, 3.0]), np.array([6.0, 2.0, 3.0, 4.0]))
    assert s.tolist() == [0.0, 5.0] and e.tolist() == [4.0, 6.0]
    assert nb.overlap_length((np.array([0.0]), np.array([4.0])), (np.array([3.0]), np.array([10.0]))) == 1.0
    assert math.isnan(nb.overlap(load_job(GLOO / "ranks2").ranks[0])) is False
