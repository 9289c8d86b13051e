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


def place_group_labels(
    bands: dict[int, tuple[float, float]], widths: dict[int, float], padding: float
) -> list[tuple[int, float]]:
    """Where each fusion group's label goes (js/diagram/draw-groups.js ``placeGroupLabels`` is its twin):
    ``bands`` maps a group id to its widest band in view (left, right; px), ``widths`` the id to its
    label's width (px). A label goes inside its band, centred, else at the band's left or right end,
    and never on a label already placed (``padding`` apart): pipelined groups run at the same time,
    and their bands overlap. The widest bands choose first; a label that fits nowhere is left out.
    Returns ``[(group id, centre px)]``.

    >>> place_group_labels({0: (0, 100), 1: (10, 90)}, {0: 60, 1: 60}, 2)
    [(0, 50.0)]
    >>> place_group_labels({0: (0, 200), 1: (0, 200)}, {0: 60, 1: 60}, 2)
    [(0, 100.0), (1, 32.0)]
    """
    placed: list[tuple[float, float]] = []
    out = []
    for gid in sorted(bands, key=lambda g: (-(bands[g][1] - bands[g][0]), g)):
        left, right = bands[gid]
        half = widths[gid] / 2
        if 2 * half + 2 * padding > right - left:
            continue
        for centre in ((left + right) / 2, left + padding + half, right - padding - half):
            x0, x1 = centre - half - padding, centre + half + padding
            if all(x1 <= a or x0 >= b for a, b in placed):
                placed.append((x0, x1))
                out.append((gid, float(centre)))
                break
    return out
