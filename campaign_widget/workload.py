"""A workload: phases on a machine, with every per-phase quantity of design.md §2 as arrays."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from .errors import UtilizationAboveOneWarning, WorkloadError
from .graph import csr, topological_order
from .machine import Machine
from .phase import Phase

BOUND_NAMES = ("compute", "memory", "balanced")
DEFAULT_SETTINGS = {"tiles": 1, "pipeline": False, "policy": "none", "depth": 2}
BOUND_COMPUTE, BOUND_MEMORY, BOUND_BALANCED = 0, 1, 2
_TIE_RTOL = 1e-12


@dataclass(frozen=True)
class PhaseArrays:
    """Per-phase quantities in topological order (design.md §2), as numpy arrays."""

    duration: np.ndarray
    compute_util: np.ndarray
    memory_util: np.ndarray
    ops: np.ndarray
    bytes: np.ndarray
    intensity: np.ndarray
    t_sol: np.ndarray
    bound: np.ndarray  # uint8 codes into BOUND_NAMES
    efficiency: np.ndarray


class Workload:
    """Phases on a machine, validated and in dependency order.

    >>> from campaign_widget import Workload, Phase
    >>> w = Workload([Phase("A", duration=3, compute_util=0.7, memory_util=0.25),
    ...               Phase("B", duration=10, compute_util=0.2, memory_util=0.9, after=["A"])])
    >>> float(w.schedule().makespan)
    13.0
    """

    def __init__(self, phases: Iterable[Phase], machine: Machine | None = None, settings: dict | None = None):
        phases = list(phases)
        if not phases:
            raise WorkloadError("empty workload: give at least one Phase")
        for p in phases:
            if not isinstance(p, Phase):
                raise TypeError(f"Workload takes Phase objects, got {p!r}")
        if machine is not None and not isinstance(machine, Machine):
            raise TypeError(f"machine={machine!r} must be a campaign_widget.Machine")
        names = [p.name for p in phases]
        _check_unique(names)
        after = _with_tensor_dependencies(phases)

        def column(key):
            return np.array([np.nan if getattr(p, key) is None else float(getattr(p, key)) for p in phases])

        self._init_arrays(
            names,
            duration=column("duration"), compute_util=column("compute_util"), memory_util=column("memory_util"),
            ops=column("ops"), bytes_=column("bytes"),
            after=after, tileable=np.array([p.tileable for p in phases]),
            machine=machine, reads=[p.reads for p in phases], writes=[p.writes for p in phases],
        )
        self.settings = _checked_settings(settings)

    @classmethod
    def from_arrays(cls, names: Sequence[str], *, duration=None, compute_util=None, memory_util=None, ops=None,
                    bytes=None, after: Sequence[Sequence[str]] | None = None, tileable=None,
                    machine: Machine | None = None, settings: dict | None = None) -> "Workload":
        """Build a workload from columns (one entry per phase); NaN marks a value not given.

        The fast path for large workloads: validation is vectorized over phases.
        """
        names = [str(n) for n in names]
        if not names:
            raise WorkloadError("empty workload: give at least one phase")
        _check_unique(names)
        n = len(names)

        def col(key, values):
            if values is None:
                return np.full(n, np.nan)
            try:
                arr = np.asarray(values, dtype=np.float64).reshape(-1)
            except (TypeError, ValueError):
                raise TypeError(f"{key} must be numbers, one per phase") from None
            if arr.shape != (n,):
                raise WorkloadError(f"{key} has {arr.size} values for {n} phases")
            return arr

        cols = {k: col(k, v) for k, v in (("duration", duration), ("compute_util", compute_util),
                                           ("memory_util", memory_util), ("ops", ops), ("bytes", bytes))}
        for key, arr in cols.items():
            bad = np.flatnonzero(np.isinf(arr) | (arr < 0))
            if bad.size:
                i = int(bad[0])
                raise WorkloadError(f"phase {names[i]!r}: {key}={arr[i]!r} must be finite and >= 0")
        for key, given in (("after", after), ("tileable", tileable)):
            if given is not None and len(given) != n:
                raise WorkloadError(f"{key} has {len(given)} entries for {n} phases")
        self = cls.__new__(cls)
        self._init_arrays(
            names, duration=cols["duration"], compute_util=cols["compute_util"], memory_util=cols["memory_util"],
            ops=cols["ops"], bytes_=cols["bytes"],
            after=[tuple(a) for a in after] if after is not None else [()] * n,
            tileable=np.ones(n, bool) if tileable is None else np.asarray(tileable, bool),
            machine=machine,
        )
        self.settings = _checked_settings(settings)
        return self

    @classmethod
    def from_einsums(cls, einsums, sizes, *, machine: Machine, element_bytes=4, mac_ops: float = 2,
                     settings: dict | None = None) -> "Workload":
        """Phases from Einsums (see ``campaign_widget.einsum``): ops = the work of each Einsum,
        bytes = each tensor it reads and writes, moved once; dependencies follow tensor names.

        >>> from campaign_widget import Machine
        >>> w = Workload.from_einsums({"gemm": "Z[m,n] = A[m,k] * B[k,n]"}, {"m": 64, "n": 64, "k": 64},
        ...                           machine=Machine(peak_compute=1e12, peak_bandwidth=1e11))
        >>> float(w.arrays.ops[0]), float(w.arrays.bytes[0])   # 2·64³ ops, three 64² fp32 matrices
        (524288.0, 49152.0)
        """
        from .einsum import einsum_phases

        workload = cls(einsum_phases(einsums, sizes, element_bytes=element_bytes, mac_ops=mac_ops), machine=machine,
                       settings=settings)
        # kept for campaign_widget.cache (predicted traffic re-traces a phase's Einsum)
        workload.einsum_inputs = {"einsums": einsums, "sizes": dict(sizes), "element_bytes": element_bytes,
                                  "mac_ops": mac_ops}
        return workload

    # -- construction -------------------------------------------------------------------------

    def _init_arrays(self, names, *, duration, compute_util, memory_util, ops, bytes_, after, tileable, machine,
                     reads=None, writes=None):
        given_util = ~np.isnan(compute_util) | ~np.isnan(memory_util)
        given_volume = ~np.isnan(ops) | ~np.isnan(bytes_)
        measured = ~np.isnan(duration)
        _require(names, given_util | given_volume, "duration",
                 "neither utilizations nor volumes given: pass duration= with compute_util=/memory_util=, "
                 "or ops= and bytes=", duration)
        _require(names, ~given_util | measured, "duration",
                 "is required when utilizations are given (they are rates over a duration)", duration)
        _require(names, ~measured | (duration > 0), "duration", "must be > 0", duration)
        if machine is None:
            timed = ~given_volume | measured
            _require(names, timed, "ops",
                     "is a volume but the workload has no machine to time it: pass machine=Machine(...) "
                     "or a measured duration=", ops)
            machine = Machine.unit()

        order = topological_order(names, list(after))
        self._names = [names[i] for i in order]
        P, BW = machine.peak_compute, machine.peak_bandwidth
        dur = duration[order]
        self._measured = np.where(np.isnan(dur), np.nan, dur)
        self._ops = np.where(np.isnan(ops[order]), np.nan_to_num(compute_util[order]) * P * np.nan_to_num(dur),
                             ops[order])
        self._bytes = np.where(np.isnan(bytes_[order]),
                               np.nan_to_num(memory_util[order]) * BW * np.nan_to_num(dur), bytes_[order])
        self._ops = np.nan_to_num(self._ops)
        self._bytes = np.nan_to_num(self._bytes)
        self._tileable = np.asarray(tileable, bool)[order]
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        index = {name: i for i, name in enumerate(names)}
        producer_lists = [sorted(int(position[index[p]]) for p in after[i]) for i in order]
        self._producers = csr(producer_lists)
        self._reads = [reads[i] for i in order] if reads is not None else [()] * len(order)
        self._writes = [writes[i] for i in order] if writes is not None else [()] * len(order)
        self.fusion_groups: tuple[str, ...] = ()  # group labels, set by fuse()
        self.fusion_group = np.full(len(order), -1, dtype=np.int64)  # per phase, -1: no group
        self.machine = machine
        self._arrays = self._derive()
        zero = np.flatnonzero(self._arrays.duration <= 0)
        if zero.size:
            i = int(zero[0])
            raise WorkloadError(f"phase {self._names[i]!r}: ops=0 and bytes=0 with no duration: the phase does "
                                "no work; give it volumes or a measured duration")
        self._warn_above_one()

    def _derive(self) -> PhaseArrays:
        P, BW = self.machine.peak_compute, self.machine.peak_bandwidth
        t_compute = self._ops / P
        t_memory = self._bytes / BW
        t_sol = np.maximum(t_compute, t_memory)
        duration = np.where(np.isnan(self._measured), t_sol, self._measured)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            compute_util = np.where(duration > 0, t_compute / duration, 0.0)
            memory_util = np.where(duration > 0, t_memory / duration, 0.0)
            intensity = np.where(self._bytes > 0, self._ops / self._bytes,
                                 np.where(self._ops > 0, np.inf, np.nan))
            efficiency = np.where(duration > 0, t_sol / duration, 0.0)
        balanced = np.isclose(t_compute, t_memory, rtol=_TIE_RTOL, atol=0.0)
        bound = np.where(balanced, BOUND_BALANCED, np.where(t_compute > t_memory, BOUND_COMPUTE, BOUND_MEMORY))
        return PhaseArrays(duration=duration, compute_util=compute_util, memory_util=memory_util, ops=self._ops,
                           bytes=self._bytes, intensity=intensity, t_sol=t_sol, bound=bound.astype(np.uint8),
                           efficiency=efficiency)

    def utilization_warnings(self) -> list[str]:
        """One line per measured phase whose utilization exceeds 1 on this machine."""
        a = self._arrays
        lines = []
        for label, util in (("compute", a.compute_util), ("memory", a.memory_util)):
            for i in np.flatnonzero(util > 1 + 1e-12)[:50]:
                lines.append(f"phase {self._names[i]!r}: {label} utilization {util[i]:.4g} > 1 "
                             "(measured: the peaks or the counters are off)")
        return lines

    def _warn_above_one(self):
        for line in self.utilization_warnings():
            warnings.warn(line, UtilizationAboveOneWarning, stacklevel=4)

    # -- derived workloads -----------------------------------------------------------------------

    def with_machine(self, machine: Machine) -> "Workload":
        """The same phases (same volumes, same measured durations) on another machine."""
        if not isinstance(machine, Machine):
            raise TypeError(f"machine={machine!r} must be a campaign_widget.Machine")
        other = Workload.__new__(Workload)
        other.__dict__.update(self.__dict__)
        other.machine = machine
        other._arrays = other._derive()
        return other

    def with_peaks(self, peak_compute: float | None = None, peak_bandwidth: float | None = None) -> "Workload":
        return self.with_machine(self.machine.with_peaks(peak_compute, peak_bandwidth))

    # -- views -------------------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """Phase names in dependency (topological) order."""
        return list(self._names)

    @property
    def arrays(self) -> PhaseArrays:
        return self._arrays

    @property
    def producers(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR (indptr, indices) of each phase's producers, in topological indices."""
        return self._producers

    @property
    def tensors(self) -> list[tuple[dict, dict]]:
        """Per phase (topological order): the tensors it reads and writes, name → bytes."""
        return [(dict(r), dict(w)) for r, w in zip(self._reads, self._writes)]

    def fuse(self, groups) -> "Workload":
        """Fuse phases into groups (design.md §3): tensors produced and consumed inside a group
        move no bytes; analytical durations follow. See ``campaign_widget.fusion.fuse``."""
        from .fusion import fuse

        return fuse(self, groups)

    @property
    def tileable(self) -> np.ndarray:
        return self._tileable.copy()

    @property
    def measured(self) -> np.ndarray:
        """True where the phase's duration was given rather than derived from the machine."""
        return ~np.isnan(self._measured)

    def __len__(self) -> int:
        return len(self._names)

    def table(self) -> dict[str, np.ndarray]:
        """Per-phase quantities (design.md §2) as a dict of numpy arrays, in topological order."""
        a = self._arrays
        return {
            "name": np.array(self._names, dtype=object),
            "duration": a.duration.copy(), "compute_util": a.compute_util.copy(),
            "memory_util": a.memory_util.copy(), "ops": a.ops.copy(), "bytes": a.bytes.copy(),
            "intensity": a.intensity.copy(), "t_sol": a.t_sol.copy(),
            "bound": np.array(BOUND_NAMES, dtype=object)[a.bound],
            "efficiency": a.efficiency.copy(),
        }

    def to_dataframe(self):
        """``table()`` as a pandas DataFrame (needs pandas: ``pip install pandas``)."""
        from ._optional import require_pandas

        return require_pandas("Workload.to_dataframe").DataFrame(self.table())

    def schedule(self, tiles: int | None = None, pipeline: bool | None = None, policy: str | None = None,
                 depth: int | None = None):
        """Tile, pipeline, dilate and throttle the phases (design.md §3); returns a ``Schedule``.

        A setting left out comes from ``self.settings`` (e.g. read from a workload file), else from
        the defaults ``tiles=1, pipeline=False, policy="none", depth=2``.
        """
        from .schedule import build_schedule

        given = {"tiles": tiles, "pipeline": pipeline, "policy": policy, "depth": depth}
        chosen = {**DEFAULT_SETTINGS, **self.settings, **{k: v for k, v in given.items() if v is not None}}
        return build_schedule(self, **chosen)

    def save(self, path):
        """Write this workload to ``path`` (.yaml, .yml or .json; see docs/workload-files.md) and
        return the path; ``campaign_widget.load(path)`` gives it back bit for bit."""
        from .files import save

        return save(self, path)

    @classmethod
    def load(cls, path, **options) -> "Workload":
        """Read a workload file in any registered format (``campaign_widget.files.load``)."""
        from .files import load

        return load(path, **options)

    def with_settings(self, **settings) -> "Workload":
        """The same workload with other default schedule settings."""
        other = Workload.__new__(Workload)
        other.__dict__.update(self.__dict__)
        other.settings = _checked_settings({**self.settings, **settings})
        return other

    def _repr_mimebundle_(self, **kwargs):
        from .roofline_view import Explorer

        return Explorer(self)._repr_mimebundle_(**kwargs)

    def __repr__(self):
        return f"<Workload of {len(self)} phases on {self.machine.name or 'a machine'}>"


def _with_tensor_dependencies(phases: list[Phase]) -> list[tuple[str, ...]]:
    """``after`` of each phase, plus the writer of every tensor it reads."""
    writer: dict[str, str] = {}
    for p in phases:
        for tensor, _ in p.writes:
            if tensor in writer and writer[tensor] != p.name:
                raise WorkloadError(f"phase {p.name!r}: writes tensor {tensor!r}, already written by phase "
                                    f"{writer[tensor]!r}; each tensor has one producer")
            writer[tensor] = p.name
    out = []
    for p in phases:
        implied = [writer[t] for t, _ in p.reads if t in writer and writer[t] != p.name]
        out.append(tuple(dict.fromkeys((*p.after, *implied))))
    return out


def _checked_settings(settings) -> dict:
    settings = dict(settings or {})
    unknown = set(settings) - set(DEFAULT_SETTINGS)
    if unknown:
        raise TypeError(f"unknown schedule settings {sorted(unknown)}; known: {sorted(DEFAULT_SETTINGS)}")
    return settings


def _check_unique(names: list[str]) -> None:
    seen = set()
    for name in names:
        if name in seen:
            raise WorkloadError(f"phase {name!r}: duplicate phase name; each phase needs its own name")
        seen.add(name)


def _require(names, ok: np.ndarray, field: str, why: str, values: np.ndarray) -> None:
    bad = np.flatnonzero(~ok)
    if bad.size:
        i = int(bad[0])
        value = values[i]
        shown = None if np.isnan(value) else float(value)
        more = f" (and {bad.size - 1} more phases)" if bad.size > 1 else ""
        raise WorkloadError(f"phase {names[i]!r}: {field}={shown!r} {why}{more}")
