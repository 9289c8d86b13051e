"""A distributed job drawn as campaigns (docs/distributed-jobs.md#the-job-as-campaigns): one measured
panel per rank on the job's shared time axis (``StackedDiagrams``), communication on the ``network``
resource; the roofline with one point per rank's step."""

from __future__ import annotations

from ..errors import ArgumentError, WrongTypeError, short_repr
from ..io.checks import flag
from ..job import Job
from ..job.display import job_origin, path_timeline, rank_timeline, steps_workload
from .diagram import CampaignDiagram
from .roofline import RooflineView
from .stack import StackedDiagrams


def job_diagrams(
    job: Job, *, ranks=None, machine=None, height: int = 160, critical_path: bool = False
) -> StackedDiagrams:
    """The job's ranks (``ranks``: which, in this order; default all) stacked on one time axis, t = 0 at
    the job's first counted device event. ``critical_path=True``: a first panel with the job's critical
    path alone, on one lane per rank it runs through."""
    _check(job)
    critical_path = flag("critical_path", critical_path)
    chosen = list(job.ranks) if ranks is None else list(ranks)
    picked = job.select(chosen).ranks
    origin = job_origin(job.ranks)
    machine = machine if machine is not None else job.machine
    panels = {"critical path": path_timeline(job.critical_path(), origin, machine)} if critical_path else {}
    panels.update({f"rank {k}": rank_timeline(r, origin, machine) for k, r in picked.items()})
    return StackedDiagrams(panels, height=height)


def compare_diagrams(before: Job, after: Job, *, machine=None, height: int = 160) -> StackedDiagrams:
    """Two jobs' ranks stacked on one axis, each job from its own first event: ``before`` then ``after``."""
    _check(before)
    _check(after)
    panels = {}
    for label, job in (("before", before), ("after", after)):
        origin = job_origin(job.ranks)
        for k, r in job.ranks.items():
            panels[f"{label}: rank {k}"] = rank_timeline(r, origin, machine if machine is not None else job.machine)
    return StackedDiagrams(panels, height=height)


def job_roofline(job: Job, machine=None) -> RooflineView:
    """The roofline with one point per rank: its mean step, with the FLOPs and bytes its events recorded."""
    _check(job)
    machine = machine if machine is not None else job.machine
    if machine is None:
        raise ArgumentError("job_roofline needs machine= (the job was loaded without one): a roofline needs peaks")
    return RooflineView(CampaignDiagram(steps_workload(job.ranks, machine)))


def _check(job) -> None:
    if not isinstance(job, Job):
        raise WrongTypeError(f"expected a Job (campaign_widget.load_job), got {short_repr(job)}")
