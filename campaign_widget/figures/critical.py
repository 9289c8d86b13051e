"""The critical path in the diagram (docs/distributed-jobs.md#the-critical-path-in-the-diagram): the
scene's pieces of the path's intervals carry flag bit ``CRITICAL``, which the browser view and the static
figure both draw as a bold edge around the compute line."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..errors import ArgumentError, WrongTypeError, short_repr
from ..model.schedule import Schedule
from .scene import CRITICAL, Scene


def with_critical_path(scene: Scene, schedule: Schedule, intervals) -> Scene:
    """``scene`` with flag bit ``CRITICAL`` on exactly the pieces of ``intervals`` (indices into the
    schedule's interval arrays, e.g. ``Schedule.critical_path().intervals``). A piece is known by its
    phase and tile, which name one interval of a schedule (a timeline numbers each phase's intervals)."""
    intervals = np.asarray(intervals, dtype=np.int64).ravel()
    width = int(max(schedule.tile.max(initial=0), scene.tile.max(initial=0))) + 1
    on = schedule.phase[intervals].astype(np.int64) * width + schedule.tile[intervals]
    key = scene.phase.astype(np.int64) * width + scene.tile
    flags = np.where(np.isin(key, on), scene.flags | CRITICAL, scene.flags & ~np.uint8(CRITICAL))
    return dataclasses.replace(scene, flags=flags.astype(np.uint8))


def path_option(value, given: Schedule | None) -> np.ndarray | bool:
    """``critical_path=`` of a diagram: ``True``/``False`` (the schedule's own path, recomputed with the
    schedule, or none), or for a given schedule (a measured timeline) the indices of its intervals to
    mark (e.g. a job's path through this rank, ``views.job``)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if given is None:
        raise WrongTypeError(
            f"critical_path={short_repr(value)}: a diagram of a workload takes True or False (its schedule "
            "changes with the controls); interval indices mark a given schedule only"
        )
    try:
        intervals = np.asarray(value, dtype=np.int64).ravel()
    except (TypeError, ValueError, OverflowError):
        raise WrongTypeError(f"critical_path={short_repr(value)} must be True, False or interval indices") from None
    bad = intervals[(intervals < 0) | (intervals >= len(given))]
    if bad.size:
        raise ArgumentError(
            f"critical_path: interval {int(bad[0])} is not one of the schedule's {len(given)} intervals"
        )
    return intervals


def path_intervals(option, schedule: Schedule, workload=None) -> np.ndarray | None:
    """The intervals ``option`` (``path_option``'s value) marks on ``schedule``; None for none."""
    if option is False:
        return None
    if option is True:
        return schedule.critical_path(workload).intervals
    return option
