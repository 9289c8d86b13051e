"""A workload's per-phase quantities as one table of named columns (``Workload.table()``,
docs/semantics.md#per-phase-quantities): what the data frame, the command line and a notebook read."""

from __future__ import annotations

import numpy as np

from .phase_arrays import BOUND_NAMES
from .roofline import BYTES_UNKNOWN, unknown_bytes


def phase_table(workload, bytes_source: np.ndarray) -> dict[str, np.ndarray]:
    """``Workload.table()``: one array per column, in topological order, with each phase's
    ``bytes_source`` as the workload says it. A phase whose bytes are
    unknown (``roofline.unknown_bytes``, the one rule of docs/semantics.md#unknown-bytes) is bound by
    nothing anyone knows: its ``bound`` reads "bytes unknown", as in every view."""
    a = workload.arrays
    bound = np.array(BOUND_NAMES, dtype=object)[a.bound]
    bound[unknown_bytes(workload)] = BYTES_UNKNOWN
    return {
        "name": np.array(workload.names, dtype=object),
        "duration": a.duration.copy(),
        "compute_util": a.compute_util.copy(),
        "memory_util": a.memory_util.copy(),
        "ops": a.ops.copy(),
        "bytes": a.bytes.copy(),
        "intensity": a.intensity.copy(),
        "t_sol": a.t_sol.copy(),
        "bound": bound,
        "efficiency": a.efficiency.copy(),
        "bytes_source": bytes_source,
        "bound_resource": a.bound_resource.copy(),
        **_level_columns(workload),
    }


def _level_columns(workload) -> dict[str, np.ndarray]:
    """``bytes_<level>``, ``memory_util_<level>`` and ``intensity_<level>`` per memory level, on a
    machine with several (NaN where a level is unknown)."""
    if not workload.machine.levels:
        return {}
    a = workload.arrays
    columns = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for k, level in enumerate(workload.machine.level_names):
            b = a.level_bytes[:, k]
            columns[f"bytes_{level}"] = b.copy()
            columns[f"memory_util_{level}"] = a.level_util[:, k].copy()
            columns[f"intensity_{level}"] = np.where(b > 0, a.ops / b, np.where(np.isnan(b), np.nan, np.inf))
    return columns
