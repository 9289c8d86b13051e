"""Errors and warnings that name what was wrong, where, and with what value."""

from __future__ import annotations


class WorkloadError(ValueError):
    """A workload, phase or machine description that cannot be used as given."""


class ScheduleError(ValueError):
    """Schedule settings that cannot be honoured for this workload."""


class UtilizationAboveOneWarning(UserWarning):
    """A measured phase uses more than 100% of a resource: the peaks or the counters are off."""


def phase_field_error(phase: str, field: str, value, why: str) -> WorkloadError:
    return WorkloadError(f"phase {phase!r}: {field}={value!r} {why}")
