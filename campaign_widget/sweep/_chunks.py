"""Chunking: consecutive ranges of configurations sized by guided self-scheduling over an
estimated cost per configuration."""

from __future__ import annotations

import numpy as np

from ..model.settings import DEFAULTS as DEFAULT_SETTINGS
from . import _tuning
from ._axes import SETTING_AXES
from ._payload import _Payload
from ._result import _column


def _costs(payload: _Payload) -> np.ndarray:
    """Estimated serial seconds per configuration (for chunk sizes and the in-process switch)."""
    n = len(payload)
    index = np.arange(n)
    digits = payload.digits(index)
    w = payload.workload
    cols = {name: np.asarray(_column(payload.values[a]))[digits[a]] for a, name in enumerate(payload.names)}
    tiles = cols.get("tiles", np.full(n, w.settings.get("tiles", DEFAULT_SETTINGS["tiles"]))).astype(float)
    pipe = cols.get("pipeline", np.full(n, bool(w.settings.get("pipeline", DEFAULT_SETTINGS["pipeline"])))).astype(bool)
    per_tile = np.where(pipe, _tuning.COST_PER_TILE[True], _tuning.COST_PER_TILE[False])
    return np.where(pipe, _tuning.COST_PER_CONFIG[True], _tuning.COST_PER_CONFIG[False]) + per_tile * tiles * len(w)


def _inline_chunks(costs: np.ndarray, payload: _Payload) -> list[tuple[int, int]]:
    """Chunks for this process: no per-task cost, so equal chunks of ``INLINE_CHUNK_SECONDS`` at most,
    ``INLINE_CHUNKS`` at least, for a live view's sake."""
    size = min(_tuning.INLINE_CHUNK_SECONDS, float(costs.sum()) / _tuning.INLINE_CHUNKS)
    return _chunks(costs, 1, size, _run_length(payload), largest=size)


def _run_length(payload: _Payload) -> int:
    """How many consecutive configurations share their settings: the product of the axes after the
    last setting axis (peaks, size parameters vary fastest). A chunk cut at a multiple of it keeps
    each group of same-settings configurations whole, so it is scheduled in one batch."""
    if payload.zipped:
        return 1
    run = 1
    for name, values in zip(reversed(payload.names), reversed(payload.values)):
        if name in SETTING_AXES:
            break
        run *= len(values)
    return run


def _chunks(
    costs: np.ndarray, workers: int, smallest: float | None = None, align: int = 1, largest: float | None = None
) -> list[tuple[int, int]]:
    """Consecutive ``(start, stop)`` ranges covering every configuration, by guided self-scheduling:
    each takes ``1 / (GUIDED × workers)`` of the estimated work not yet handed out, clipped to
    ``[smallest, largest]`` (defaults ``CHUNK_SECONDS``, ``MAX_CHUNK_SECONDS``; a tail below half of
    ``smallest`` joins the last chunk), and ends at a multiple of ``align`` when it holds that many."""
    smallest = _tuning.CHUNK_SECONDS if smallest is None else smallest
    largest = _tuning.MAX_CHUNK_SECONDS if largest is None else largest
    n = costs.size
    cum = np.cumsum(costs)
    total = float(cum[-1]) if n else 0.0
    edges = [0]
    done = 0.0
    while edges[-1] < n:
        size = min(largest, max(smallest, (total - done) / (_tuning.GUIDED * max(workers, 1))))
        stop = int(np.searchsorted(cum, done + size, side="left")) + 1  # the configuration crossing it included
        if align > 1 and stop - edges[-1] >= align:
            crossing = stop
            stop = edges[-1] + (stop - edges[-1] + align // 2) // align * align  # the nearest multiple
            if stop < crossing and stop < n and float(cum[stop - 1]) - done < smallest / 2:
                stop += align  # rounding down left too little work for a task of its own: round up
        stop = min(n, max(stop, edges[-1] + 1))
        if total - float(cum[stop - 1]) < smallest / 2:
            stop = n
        edges.append(stop)
        done = float(cum[stop - 1])
    return [(a, b) for a, b in zip(edges[:-1], edges[1:])]
