"""Which memory level a campaign diagram draws as its pipe (docs/memory-hierarchy.md#the-pipe-level-of-a-campaign-diagram): any pair (compute, level)
is drawn exactly as the one-level diagram, with that level's demand in the pipe."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ScheduleError, short_repr

if TYPE_CHECKING:
    from .timeline import Schedule
    from .workload_protocols import ScheduledWorkload


def default_level(workload: ScheduledWorkload) -> str:
    """The memory level that bounds the most time (summed durations of the phases it bounds); the
    farthest level when no level bounds a phase."""
    machine = workload.machine
    a = workload.arrays
    names = machine.level_names
    time_bound = [float(a.duration[a.bound_resource == level].sum()) for level in names]
    if max(time_bound) <= 0:
        return names[-1]
    return names[int(np.argmax(time_bound))]


def for_level(schedule: Schedule, level: str | None) -> Schedule:
    """``schedule`` with ``level`` as its memory resource: that level's requested demand and rates in
    ``requested_memory``/``memory_rate``/``edge_requested_memory``, and the oversubscription of the
    pair (compute, level) only. ``None`` or the farthest level gives ``schedule`` itself."""
    near = tuple(schedule.level_names)
    farthest = schedule.resource_names[1]
    if level is None or level == farthest:
        return _pair_only(schedule)
    if level not in near:
        raise ScheduleError(
            f"level={short_repr(level)} is not a memory level of this schedule's machine; its levels are "
            f"{', '.join((*near, farthest))}"
        )
    k = near.index(level)
    resource = schedule.resource_names.index(level)
    keep = (schedule.over_resource == 0) | (schedule.over_resource == resource)
    return dataclasses.replace(
        schedule,
        resource_names=(schedule.resource_names[0], level),
        requested_memory=schedule.requested_levels[:, k],
        memory_rate=schedule.level_rates[:, k],
        edge_requested_memory=schedule.edge_requested_levels[:, k],
        over_t0=schedule.over_t0[keep],
        over_t1=schedule.over_t1[keep],
        over_resource=np.where(schedule.over_resource[keep] == 0, 0, 1).astype(np.uint8),
        over_demand=schedule.over_demand[keep],
        peak_demand={name: schedule.peak_demand[name] for name in (schedule.resource_names[0], level)},
        level_names=(),
        requested_levels=None,
        level_rates=None,
        edge_requested_levels=None,
    )


def _pair_only(schedule: Schedule) -> Schedule:
    if not schedule.level_names:
        return schedule
    keep = schedule.over_resource <= 1
    names = schedule.resource_names[:2]
    return dataclasses.replace(
        schedule,
        resource_names=names,
        over_t0=schedule.over_t0[keep],
        over_t1=schedule.over_t1[keep],
        over_resource=schedule.over_resource[keep],
        over_demand=schedule.over_demand[keep],
        peak_demand={name: schedule.peak_demand[name] for name in names},
        level_names=(),
        requested_levels=None,
        level_rates=None,
        edge_requested_levels=None,
    )
