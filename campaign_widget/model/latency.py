"""The concurrency roof (docs/memory-hierarchy.md#latency-and-the-concurrency-roof): a memory level's
latency, a phase's bytes in flight, and by Little's law the bandwidth a phase can reach at each
level, ``min(peak bandwidth, bytes in flight / latency)``."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import CapacityWarning, WorkloadError, WrongTypeError, short_repr
from ..formatting import format_si, plural
from .phase import check_positive

LATENCY_UNITS = ("s", "cycles")


def checked_latency(who: str, latency, unit, clock, level_names: Sequence[str]):
    """A machine's ``latency`` as ((level, value in ``unit``), ...) in level order, and its ``clock``
    (None or a float): a number for a one-level machine, else a mapping of level names (levels left
    out have no latency). ``unit="cycles"`` needs a ``clock`` in Hz."""
    if unit not in LATENCY_UNITS:
        raise WorkloadError(f"{who}: latency_unit={short_repr(unit)} must be one of {', '.join(LATENCY_UNITS)}")
    clock = None if clock is None else check_positive(f"{who}: clock", clock)
    if latency is None or (isinstance(latency, tuple) and not latency):
        return (), clock
    if unit == "cycles" and clock is None:
        raise WorkloadError(
            f"{who}: latency is in cycles but the machine has no clock; pass clock= (Hz) or latency_unit='s'"
        )
    if isinstance(latency, Mapping):
        pairs = list(latency.items())
    elif isinstance(latency, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in latency):
        pairs = list(latency)  # the stored form, as dataclasses.replace passes it back
    elif len(level_names) == 1:
        pairs = [(level_names[0], latency)]
    else:
        raise WrongTypeError(
            f"{who}: latency={short_repr(latency)} must map memory levels to latencies on a machine with "
            f"levels {', '.join(level_names)}"
        )
    given = {}
    for level, value in pairs:
        if level not in level_names:
            raise WorkloadError(
                f"{who}: latency for {short_repr(level)}, which is not a memory level; its levels are "
                f"{', '.join(level_names)}"
            )
        given[level] = check_positive(f"{who}: level {short_repr(level)} latency", value)
    return tuple((level, given[level]) for level in level_names if level in given), clock


def latency_seconds(latency, unit: str, clock: float | None, level_names: Sequence[str]) -> np.ndarray:
    """Each level's latency in seconds, in level order; NaN where a level has none."""
    given = dict(latency)
    scale = 1.0 / clock if unit == "cycles" and clock else 1.0
    return np.array([given[level] * scale if level in given else np.nan for level in level_names], dtype=np.float64)


def check_in_flight_column(names: Sequence[str], values) -> np.ndarray | None:
    """A ``bytes_in_flight`` column (NaN: not given) checked per phase; None when no phase gives one."""
    if values is None:
        return None
    column = np.asarray(values, dtype=np.float64).reshape(-1)
    if column.size != len(names):
        raise WorkloadError(f"bytes_in_flight has {column.size} entries for {len(names)} phases")
    bad = np.flatnonzero(~np.isnan(column) & ~(np.isfinite(column) & (column > 0)))
    if bad.size:
        i = int(bad[0])
        raise WorkloadError(
            f"phase {short_repr(names[i])}: bytes_in_flight={float(column[i])!r} must be a finite number > 0"
        )
    return column if not np.isnan(column).all() else None


def attainable_bandwidth(
    bandwidths: np.ndarray, latency: np.ndarray, in_flight: np.ndarray | None
) -> np.ndarray | None:
    """(phases, levels) ``min(BW_ℓ, bytes in flight / latency_ℓ)`` (Little's law); the peak where a
    level has no latency or a phase no bytes in flight. None when nothing limits a phase: the
    derivation then stays exactly the peak-bandwidth one."""
    if in_flight is None or np.isnan(latency).all():
        return None
    with np.errstate(invalid="ignore", divide="ignore"):
        reach = in_flight[:, None] / latency[None, :]
    return np.fmin(bandwidths[None, :], reach)  # fmin: NaN (unknown) leaves the peak


def warn_in_flight_above_capacity(names: Sequence[str], in_flight: np.ndarray | None, machine) -> None:
    """A ``CapacityWarning`` per memory level with a capacity (``machine.capacity_of``) that some phase
    keeps more bytes in flight than it holds: the first such phase, both numbers, how many others."""
    if in_flight is None:
        return
    for level in machine.level_names:
        capacity = machine.capacity_of(level)
        if capacity is None:
            continue
        over = np.flatnonzero(in_flight > capacity)  # NaN (not given) is never over
        if not over.size:
            continue
        i = int(over[0])
        others = f" (and {plural(over.size - 1, 'other phase')})" if over.size > 1 else ""
        warnings.warn(
            f"phase {short_repr(names[i])}: bytes_in_flight={float(in_flight[i])!r} ({format_si(in_flight[i], 'B')}) "
            f"is more than memory level {level!r} holds, its capacity {capacity!r} ({format_si(capacity, 'B')}){others}: "
            "that concurrency cannot be kept in flight there",
            CapacityWarning,
            stacklevel=2,
        )
