"""What the modules below ``workload`` read of a workload, as protocols: the schedule engine and the
timelines (``ScheduledWorkload``), fusion (``FusableWorkload``). ``Workload`` satisfies both; the
workload module imports those modules, so they name these protocols rather than ``Workload``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

import numpy as np

from .machine import Machine
from .phase_arrays import PhaseArrays

W = TypeVar("W", bound="FusableWorkload")


class ScheduledWorkload(Protocol):
    """Phases in topological order with their arrays, dependencies and fusion groups, on a machine."""

    @property
    def names(self) -> list[str]: ...

    @property
    def arrays(self) -> PhaseArrays: ...

    @property
    def machine(self) -> Machine: ...

    @property
    def compute_peaks(self) -> np.ndarray: ...

    @property
    def producers(self) -> tuple[np.ndarray, np.ndarray]: ...

    @property
    def fusion_groups(self) -> tuple[str, ...]: ...

    @property
    def fusion_group(self) -> np.ndarray: ...

    @property
    def streaming_groups(self) -> np.ndarray | None: ...

    @property
    def tileable(self) -> np.ndarray: ...

    def __len__(self) -> int: ...


class FusableWorkload(Protocol):
    """What ``fuse`` and ``mark_groups`` read of a workload, and the one way they make a new one."""

    @property
    def names(self) -> list[str]: ...

    @property
    def measured(self) -> np.ndarray: ...

    @property
    def tensors(self) -> list[tuple[dict, dict]]: ...

    @property
    def producers(self) -> tuple[np.ndarray, np.ndarray]: ...

    def with_fusion_groups(self: W, labels: Sequence[str], group: np.ndarray, *, fused: bool) -> W: ...
