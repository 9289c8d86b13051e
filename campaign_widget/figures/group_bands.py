"""Fusion-group bands drawn where their phases actually run.

``scene.build_scene`` gives each group one band from its first start to its last end; in a
pipelined schedule that band spans other groups' work. Here a group's band is the union of its
phases' intervals: one band per run of time in which some phase of the group is running.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .scene import Scene


def group_spans(start: np.ndarray, end: np.ndarray, group: np.ndarray) -> dict[str, np.ndarray]:
    """Per interval ``start``, ``end`` and fusion ``group`` (-1: none): the merged spans of each group,
    as ``group_t0``, ``group_t1`` (float64) and ``group_id`` (int32), ordered by group then time."""
    start, end, group = np.asarray(start, float), np.asarray(end, float), np.asarray(group)
    keep = group >= 0
    if not keep.any():
        return {"group_t0": np.zeros(0), "group_t1": np.zeros(0), "group_id": np.zeros(0, np.int32)}
    start, end, group = start[keep], end[keep], group[keep]
    order = np.lexsort((start, group))
    start, end, group = start[order], end[order], group[order]
    tolerance = 1e-9 * max(1.0, float(np.abs(end).max()))
    # A new span starts where the group changes or the interval starts after everything before it
    # in the group has ended.
    new_group = np.r_[True, group[1:] != group[:-1]]
    run_end = np.empty_like(end)
    for first, last in zip(np.flatnonzero(new_group), np.r_[np.flatnonzero(new_group)[1:], group.size]):
        run_end[first:last] = np.maximum.accumulate(end[first:last])
    new_span = new_group | np.r_[True, start[1:] > run_end[:-1] + tolerance]
    firsts = np.flatnonzero(new_span)
    lasts = np.r_[firsts[1:], start.size] - 1
    return {"group_t0": start[firsts], "group_t1": run_end[lasts], "group_id": group[firsts].astype(np.int32)}


def with_group_spans(scene: Scene, schedule, fusion_group) -> Scene:
    """``scene`` with its fusion-group bands replaced by where each group's phases run."""
    if fusion_group is None:
        return scene
    group = np.asarray(fusion_group)[np.asarray(schedule.phase)]
    return dataclasses.replace(scene, **group_spans(schedule.start, schedule.end, group))
