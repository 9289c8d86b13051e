"""A distributed job drawn as campaigns (docs/distributed-jobs.md#the-job-as-campaigns): one measured
panel per rank on the job's shared time axis (``StackedDiagrams``), communication on the ``network``
resource, the job's critical path highlighted on each rank's panel, a rank's row expanded into its
achieved-over-bound view; the roofline with one point per rank's step."""

from __future__ import annotations

from ..errors import ArgumentError, WrongTypeError, short_repr
from ..io.checks import flag
from ..job import Job
from ..job.display import job_origin, path_intervals, rank_bound, rank_timeline, steps_workload
from ..model.schedule import Schedule
from .diagram import CampaignDiagram
from .roofline import RooflineView
from .stack import StackedDiagrams

BOUND = "{label} at its bound"  # the title of a rank's bound panel


def job_diagrams(
    job: Job, *, ranks=None, machine=None, height: int = 160, critical_path: bool = False, expand=()
) -> StackedDiagrams:
    """The job's ranks (``ranks``: which, in this order; default all) stacked on one time axis, t = 0 at
    the job's first counted device event. ``critical_path=True``: the job's critical path highlighted on
    each rank's panel (the events of that rank it runs through). ``expand``: ranks whose row is followed
    by its bound (``rank_view``), on the same axis."""
    _check(job)
    critical_path = flag("critical_path", critical_path)
    chosen = list(job.ranks) if ranks is None else list(ranks)
    picked = job.select(chosen).ranks
    expand = _expanded(expand, picked)
    origin = job_origin(job.ranks)
    machine = machine if machine is not None else job.machine
    path = job.critical_path() if critical_path else []
    panels: dict[str, object] = {}
    for k, r in picked.items():
        timeline = rank_timeline(r, origin, machine)
        marked = path_intervals(timeline, path, k, origin) if critical_path else False
        panels[f"rank {k}"] = CampaignDiagram(timeline, show_controls=False, height=height, critical_path=marked)
        if k in expand:  # a given schedule, so the stack compares no other rank with this rank's bound
            bound = rank_bound(r, machine)
            s = bound.schedule()
            panels[BOUND.format(label=f"rank {k}")] = Schedule.from_intervals(
                bound, phase=s.phase, start=s.start, end=s.end
            )
    return StackedDiagrams(panels, height=height)


def rank_view(job: Job, rank: int, *, machine=None, height: int = 160) -> StackedDiagrams:
    """One rank's achieved-over-bound view (docs/distributed-jobs.md#a-ranks-achieved-over-bound-view): its
    measured timeline over its bound (``job.display.rank_bound``) on one time axis, with ``gaps()`` and the
    readout of each phase's busy time over the bound, as the timeline reader's measured-over-bound stack."""
    _check(job)
    picked = job.select([rank]).ranks[rank]
    machine = machine if machine is not None else job.machine
    label = f"rank {rank}"
    timeline = rank_timeline(picked, job_origin(job.ranks), machine)
    return StackedDiagrams({label: timeline, BOUND.format(label=label): rank_bound(picked, machine)}, height=height)


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


def _expanded(expand, picked: dict) -> set:
    if isinstance(expand, (str, bytes)) or not hasattr(expand, "__iter__"):
        raise WrongTypeError(f"expand={short_repr(expand)} must be a list of rank numbers")
    wanted = list(expand)
    missing = [k for k in wanted if k not in picked]
    if missing:
        raise ArgumentError(f"expand: ranks {missing} are not among the ranks drawn ({list(picked)[:8]})")
    return set(wanted)


def _check(job) -> None:
    if not isinstance(job, Job):
        raise WrongTypeError(f"expected a Job (campaign_widget.load_job), got {short_repr(job)}")
