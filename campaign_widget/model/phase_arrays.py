"""The per-phase quantities of a workload (docs/semantics.md#per-phase-quantities) as numpy arrays, and the codes of what
bounds a phase: the value the schedule engine, the roofline and the views read of a workload."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# "latency": memory-bound at a bandwidth its bytes in flight cap below the peak (Little's law,
# docs/memory-hierarchy.md#latency-and-the-concurrency-roof)
BOUND_NAMES = ("compute", "memory", "balanced", "latency")
BOUND_COMPUTE, BOUND_MEMORY, BOUND_BALANCED, BOUND_LATENCY = 0, 1, 2, 3


@dataclass(frozen=True)
class PhaseArrays:
    """Per-phase quantities in topological order (docs/semantics.md#per-phase-quantities), as numpy arrays."""

    duration: np.ndarray
    compute_util: np.ndarray
    memory_util: np.ndarray
    ops: np.ndarray
    bytes: np.ndarray
    intensity: np.ndarray
    t_sol: np.ndarray
    bound: np.ndarray  # uint8 codes into BOUND_NAMES
    efficiency: np.ndarray
    # docs/memory-hierarchy.md#phases-per-level: one column per memory level (the machine's order, nearest first; NaN = unknown)
    level_bytes: np.ndarray  # (phases, levels)
    level_util: np.ndarray  # (phases, levels)
    bound_resource: np.ndarray  # the bounding resource by name: compute, a level's name, or "balanced"
    # (phases, levels) the bandwidth each phase reaches at each level (its bytes in flight over the
    # level's latency, at most the peak); None when no latency and bytes in flight are both given
    attainable: np.ndarray | None = None
