"""A distributed job: every rank's trace on one clock, and its numbers by Holistic Trace Analysis's
definitions (docs/distributed-jobs.md)."""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError
from ._load import checked, chosen, read_all, trace_files
from ._numbers import job_path, per_name, region_times
from ._numbers import kernels as rank_kernels
from ._numbers import overlap as rank_overlap
from ._numbers import step_times as rank_step_times
from ._numbers import temporal as rank_temporal
from ._rank import Rank

__all__ = ["Job", "load_job"]


def load_job(folder_or_files, *, machine=None, executor=None, ranks=None, progress=None) -> Job:
    """Read a distributed job's Kineto traces, one per rank, in parallel (docs/distributed-jobs.md#loading-a-job).

    ``folder_or_files``: a folder (its ``*.json`` and ``*.json.gz``) or a list of trace files. Each rank
    is named by its trace's ``distributedInfo`` (else by a ``rank<N>`` in its file name); two files for
    one rank, or world sizes that disagree, are refused. ``machine``: the Machine (or preset name) the
    ranks ran on, for the roofline; the job's numbers need none. ``executor``: as ``sweep``'s — None
    (inline for a small job, else a process pool sized to the memory), a ``concurrent.futures.Executor``,
    a ``dask.distributed.Client`` or a scheduler address. ``ranks``: a range or list of rank numbers
    (each must be in the job), or ``"slowest:K"``, the K ranks of the longest step times. ``progress``:
    True, False, None (a bar from 8 ranks) or a callable ``(done, total)``.

    A rank whose file cannot be read is left out with a ``JobReadWarning`` naming the file and why, and
    is listed in ``Job.unreadable``; when none can be read, a ``WorkloadFileError`` says why.
    """
    name, files = trace_files(folder_or_files)
    read, bad, kind = read_all(files, machine, executor, progress)
    by_rank = checked(name, read, bad)
    wanted = chosen(name, by_rank, ranks)
    job = Job(by_rank, name=name, unreadable=bad, machine=machine, executor_kind=kind)
    if isinstance(wanted, int):
        return job.select(job.slowest(wanted))
    return job if wanted is None else job.select(wanted)


class Job:
    """The ranks of a job (``ranks``: rank number → its device intervals), read by :func:`load_job`."""

    def __init__(self, ranks: dict[int, Rank], *, name: str = "job", unreadable=None, machine=None, executor_kind=""):
        self.ranks = dict(ranks)
        self.name = name
        self.unreadable: dict[str, str] = dict(unreadable or {})
        self.machine = machine
        self.executor_kind = executor_kind

    def __len__(self) -> int:
        return len(self.ranks)

    def __repr__(self) -> str:
        world = {r.world_size for r in self.ranks.values()} - {None}
        of = f" of world size {world.pop()}" if len(world) == 1 else ""
        gone = f", {len(self.unreadable)} unreadable" if self.unreadable else ""
        return f"Job({self.name!r}: {len(self)} rank{'' if len(self) == 1 else 's'}{of}{gone})"

    def select(self, ranks) -> Job:
        """The job with only these ranks (in this order)."""
        missing = [r for r in ranks if r not in self.ranks]
        if missing:
            raise ArgumentError(f"ranks {missing} are not in {self!r}")
        return Job({r: self.ranks[r] for r in ranks}, name=self.name, unreadable=self.unreadable,
                   machine=self.machine, executor_kind=self.executor_kind)  # fmt: skip

    def temporal_breakdown(self) -> dict[int, dict]:
        """Per rank, ``idle``, ``compute``, ``non_compute`` and ``span`` (µs), as HTA's temporal breakdown
        (docs/distributed-jobs.md#the-numbers)."""
        return {k: rank_temporal(r) for k, r in self.ranks.items()}

    def overlap(self) -> dict[int, float]:
        """Per rank, the share (0-1) of its communication time that computation overlaps (HTA's
        communication-computation overlap); NaN for a rank with no communication."""
        return {k: rank_overlap(r) for k, r in self.ranks.items()}

    def kernel_breakdown(self) -> dict[int, dict]:
        """Per rank, the time (µs, the union of its events) and count of computation, communication and
        memory, and the time each two of them overlap."""
        return {k: rank_kernels(r) for k, r in self.ranks.items()}

    def step_times(self) -> dict[int, float]:
        """Per rank, its mean step time without the communication no computation hides (µs)."""
        return {k: float(rank_step_times(r).mean()) for k, r in self.ranks.items()}

    def slowest(self, k: int) -> list[int]:
        """The ``k`` ranks of the longest step times, longest first."""
        times = self.step_times()
        return sorted(times, key=lambda r: (-times[r], r))[:k]

    def stragglers(self, threshold: float = 0.05) -> list[dict]:
        """The ranks whose step time exceeds the median by more than ``threshold`` (a share of the median),
        slowest first, each with the phase (top-level annotation) whose time per step exceeds the other
        ranks' median the most: ``{"rank", "step_time", "median", "excess", "phase", "phase_excess"}``."""
        if not (isinstance(threshold, (int, float)) and not isinstance(threshold, bool) and threshold >= 0):
            raise ArgumentError(f"threshold={threshold!r} must be a share of the median, >= 0")
        times = self.step_times()
        median = float(np.median(list(times.values())))
        regions = {k: region_times(r) for k, r in self.ranks.items()}
        names = sorted({n for per in regions.values() for n in per})
        typical = {n: float(np.median([regions[k].get(n, 0.0) for k in regions])) for n in names}
        out = []
        for k in sorted(times, key=lambda r: (-times[r], r)):
            if times[k] <= median * (1 + threshold):
                continue
            excess = {n: regions[k].get(n, 0.0) - typical[n] for n in names}
            phase = max(excess, key=lambda n: excess[n]) if excess else None
            out.append({"rank": k, "step_time": times[k], "median": median, "excess": times[k] - median,
                        "phase": phase, "phase_excess": excess.get(phase, 0.0) if phase else 0.0})  # fmt: skip
        return out

    def critical_path(self) -> list[dict]:
        """The chain of device events, across ranks through the collectives, that sets the job's span:
        ``{"rank", "name", "kind", "start", "end", "wait"}`` first to last (µs on the traces' clock;
        ``wait``: the idle time before it). See docs/distributed-jobs.md#the-critical-path."""
        return job_path(self.ranks)

    def compare(self, other: Job) -> list[dict]:
        """The phases (device event names) that grew or shrank from this job to ``other``, per step and
        averaged over the ranks: ``{"name", "before", "after", "change"}`` in µs and ``"count_before"``,
        ``"count_after"``, largest change first. ``views.job.compare_diagrams`` stacks the two."""
        if not isinstance(other, Job):
            raise ArgumentError(f"compare: {other!r} is not a Job")
        a, b = _mean_per_name(self), _mean_per_name(other)
        rows = []
        for name in sorted(set(a) | set(b)):
            (ta, ca), (tb, cb) = a.get(name, (0.0, 0.0)), b.get(name, (0.0, 0.0))
            if ta != tb or ca != cb:
                rows.append({"name": name, "before": ta, "after": tb, "change": tb - ta, "count_before": ca,
                             "count_after": cb})  # fmt: skip
        return sorted(rows, key=lambda r: (-abs(r["change"]), -abs(r["count_after"] - r["count_before"]), r["name"]))

    def summary(self) -> str:
        """The breakdown, the overlap and the stragglers as text (what ``campaign-widget job`` prints)."""
        rows = [
            f"{self!r}",
            f"{'rank':>5} {'span ms':>9} {'idle %':>7} {'compute %':>9} {'non-comp %':>10} {'overlap %':>9}",
        ]
        overlap = self.overlap()
        for k, t in self.temporal_breakdown().items():
            span = t["span"] or float("nan")
            rows.append(
                f"{k:>5} {t['span'] / 1e3:9.2f} {100 * t['idle'] / span:7.1f} {100 * t['compute'] / span:9.1f} "
                f"{100 * t['non_compute'] / span:10.1f} {100 * overlap[k]:9.1f}"
            )
        late = self.stragglers()
        rows.append("stragglers: " + (", ".join(
            f"rank {s['rank']} (+{s['excess'] / 1e3:.2f} ms a step; {s['phase']} +{s['phase_excess'] / 1e3:.2f} ms)"
            for s in late) or "none"))  # fmt: skip
        for f, why in self.unreadable.items():
            rows.append(f"unreadable: {f}: {why}")
        return "\n".join(rows)


def _mean_per_name(job: Job) -> dict[str, tuple[float, float]]:
    per = [per_name(r) for r in job.ranks.values()]
    names = {n for p in per for n in p}
    return {n: (sum(p.get(n, (0.0, 0))[0] for p in per) / len(per), sum(p.get(n, (0.0, 0))[1] for p in per) / len(per))
            for n in names}  # fmt: skip
