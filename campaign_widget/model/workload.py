"""A workload: phases on a machine, with every per-phase quantity of docs/semantics.md#per-phase-quantities as arrays.

A ``Workload`` is a frozen value: every variant (another machine, other settings, fused, other
parameter values) is a new workload made through one copy path, ``Workload._replace``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from ..errors import UtilizationAboveOneWarning, WorkloadError, WrongTypeError, short_repr
from ._derive import _phase_arrays
from ._workload_inputs import (
    _check_unique,
    _checked_columns,
    _checked_params,
    _column,
    _evaluate_phases,
    _frozen,
    _near_arrays,
    _near_in_order,
    _numbers,
    _require,
    _split_levels,
    _with_tensor_dependencies,
)
from .code_builders import build_from_code
from .dtypes import canonical
from .einsum import einsum_phases, parse_all
from .expr import resolve_sizes
from .fusion import fuse, fused_bytes
from .graph import csr, topological_order
from .import_report import ImportReport
from .latency import check_in_flight_column
from .machine import Machine
from .phase import Phase, check_name
from .phase_arrays import BOUND_BALANCED, BOUND_COMPUTE, BOUND_LATENCY, BOUND_MEMORY, BOUND_NAMES, PhaseArrays
from .presets import machine_from
from .schedule import build_schedule
from .settings import Settings, checked_settings

if TYPE_CHECKING:
    import numpy.typing as npt
    import pandas as pd

    from .einsum import Einsum
    from .schedule import Schedule

# ``PhaseArrays`` and the bound codes live in ``phase_arrays``, below the modules that read them; a
# workload's users find them here, beside ``Workload``
__all__ = ["BOUND_BALANCED", "BOUND_COMPUTE", "BOUND_LATENCY", "BOUND_MEMORY", "BOUND_NAMES", "PhaseArrays", "Workload"]

_SLOTS = (
    "_names",
    "_measured",
    "_ops",
    "_logical_bytes",
    "_tileable",
    "_producers",
    "_reads",
    "_writes",
    "_fusion_groups",
    "_fusion_group",
    "_fusion_kind",
    "_machine",
    "_settings",
    "_params",
    "_symbolic",
    "_einsum_source",
    "_import_report",
    "_dtypes",
    "_predicted",
    "_near_given",
    "_near_bytes",
    "_far_unknown",
    "_bytes",
    "_in_flight",
    "_arrays",
)


class Workload:
    """Phases on a machine, validated and in dependency order. A frozen value.

    >>> from campaign_widget import Workload, Phase
    >>> w = Workload([Phase("A", duration=3, compute_util=0.7, memory_util=0.25),
    ...               Phase("B", duration=10, compute_util=0.2, memory_util=0.9, after=["A"])])
    >>> float(w.schedule().makespan)
    13.0

    Volumes may be expressions in named parameters (docs/data-movement.md#sizes-and-parameters); ``with_params`` re-evaluates:

    >>> g = Workload([Phase("gemm", ops="2*M*N*K", reads={"A": "4*M*K", "B": "4*K*N"}, writes={"C": "4*M*N"})],
    ...              machine=Machine(1e12, 1e11), params={"M": 64, "N": 64, "K": 64})
    >>> float(g.arrays.ops[0]), float(g.with_params(M=128).arrays.ops[0])
    (524288.0, 1048576.0)
    """

    __slots__ = _SLOTS

    def __init__(
        self,
        phases: Iterable[Phase],
        machine: Machine | str | None = None,
        settings: Mapping | None = None,
        *,
        params: Mapping[str, int] | None = None,
    ) -> None:
        if isinstance(phases, (str, bytes, Phase)) or not isinstance(phases, Iterable):
            raise WrongTypeError(f"phases={short_repr(phases)} must be a list of Phase objects")
        phases = list(phases)
        if not phases:
            raise WorkloadError("empty workload: give at least one Phase")
        for p in phases:
            if not isinstance(p, Phase):
                raise WrongTypeError(f"Workload takes Phase objects, got {short_repr(p)}")
        machine = None if machine is None else machine_from(machine)
        names = [p.name for p in phases]
        _check_unique(names)
        after = _with_tensor_dependencies(phases)
        params = _checked_params(params)
        far_bytes, far_util, near = _split_levels(phases, (machine or Machine.unit()).level_names)
        symbolic = None
        if params or any(p.symbolic for p in phases):
            symbolic = tuple((p.ops, b, p.reads, p.writes) for p, b in zip(phases, far_bytes))
            ops, bytes_, reads, writes = _evaluate_phases(names, symbolic, params)
        else:
            ops, bytes_ = _column(phases, "ops"), _numbers(far_bytes)
            reads, writes = [p.reads for p in phases], [p.writes for p in phases]
        self._build(
            names,
            duration=_column(phases, "duration"),
            compute_util=_column(phases, "compute_util"),
            memory_util=_numbers(far_util),
            near=near,
            ops=ops,
            bytes_=bytes_,
            after=after,
            tileable=np.array([p.tileable for p in phases], dtype=bool),
            machine=machine,
            reads=reads,
            writes=writes,
            settings=settings,
            params=params,
            symbolic=symbolic,
            in_flight=[np.nan if p.bytes_in_flight is None else p.bytes_in_flight for p in phases],
        )

    @classmethod
    def from_arrays(
        cls,
        names: Sequence[str],
        *,
        duration: npt.ArrayLike | None = None,
        compute_util: npt.ArrayLike | None = None,
        memory_util: npt.ArrayLike | None = None,
        ops: npt.ArrayLike | None = None,
        bytes: npt.ArrayLike | None = None,
        after: Sequence[Sequence[str]] | None = None,
        tileable: Sequence[bool] | np.ndarray | None = None,
        machine: Machine | str | None = None,
        settings: Mapping | None = None,
        level_bytes: Mapping[str, npt.ArrayLike] | None = None,
        bytes_in_flight: npt.ArrayLike | None = None,
    ) -> Workload:
        """Build a workload from columns (one entry per phase); NaN marks a value not given.

        The fast path for large workloads: validation is vectorized over phases. ``level_bytes``
        maps a nearer memory level of ``machine`` to its bytes per phase (docs/memory-hierarchy.md#phases-per-level; NaN: unknown);
        ``bytes`` is the farthest level's. ``bytes_in_flight`` is each phase's memory concurrency
        (docs/memory-hierarchy.md#latency-and-the-concurrency-roof; NaN: not given).
        """
        if isinstance(names, str) or not isinstance(names, Iterable):
            raise WrongTypeError(f"names={short_repr(names)} must be a list of phase names")
        names = list(names)
        for name in names:
            if not isinstance(name, str) or not name:
                raise WrongTypeError(f"phase name {short_repr(name)} must be a non-empty string")
            check_name("phase name", name)
        if not names:
            raise WorkloadError("empty workload: give at least one phase")
        _check_unique(names)
        machine = None if machine is None else machine_from(machine)
        cols, near, tileable = _checked_columns(
            names,
            {
                "duration": duration,
                "compute_util": compute_util,
                "memory_util": memory_util,
                "ops": ops,
                "bytes": bytes,
            },
            after=after,
            tileable=tileable,
            level_bytes=level_bytes,
            levels=(machine or Machine.unit()).level_names,
        )
        n = len(names)
        self = cls.__new__(cls)
        self._build(
            names,
            near=near,
            duration=cols["duration"],
            compute_util=cols["compute_util"],
            memory_util=cols["memory_util"],
            ops=cols["ops"],
            bytes_=cols["bytes"],
            after=[tuple(a) for a in after] if after is not None else [()] * n,
            tileable=np.ones(n, bool) if tileable is None else tileable,
            machine=machine,
            settings=settings,
            in_flight=bytes_in_flight,
        )
        return self

    @classmethod
    def from_einsums(
        cls,
        einsums: Mapping[str, Any] | Sequence[Any],
        sizes: Mapping[str, int | str],
        *,
        machine: Machine | str,
        element_bytes: int | Mapping[str, int] = 4,
        mac_ops: float = 2,
        params: Mapping[str, int] | None = None,
        settings: Mapping | None = None,
    ) -> Workload:
        """Phases from Einsums (see ``campaign_widget.model.einsum``): ops = the work of each Einsum,
        bytes = each tensor it reads and writes, moved once; dependencies follow tensor names.

        Sizes may be expressions in ``params`` (``{"m": "B*S"}``, docs/data-movement.md#sizes-and-parameters); ``with_params``
        re-evaluates them.

        >>> from campaign_widget import Machine
        >>> w = Workload.from_einsums({"gemm": "Z[m,n] = A[m,k] * B[k,n]"}, {"m": 64, "n": 64, "k": 64},
        ...                           machine=Machine(peak_compute=1e12, peak_bandwidth=1e11))
        >>> float(w.arrays.ops[0]), float(w.arrays.bytes[0])   # 2·64³ ops, three 64² fp32 matrices
        (524288.0, 49152.0)
        >>> s = Workload.from_einsums({"gemm": "Z[m,n] = A[m,k] * B[k,n]"}, {"m": "B*S", "n": 64, "k": 64},
        ...                           params={"B": 2, "S": 32}, machine=Machine(1e12, 1e11))
        >>> s.sizes["m"], s.with_params(S=64).sizes["m"]
        (64, 128)
        """
        params = _checked_params(params)
        if not isinstance(sizes, Mapping):
            raise WrongTypeError(f"sizes={short_repr(sizes)} must map index names to sizes")
        resolve_sizes(sizes, params)  # every size a positive whole number, unknown parameters listed at once
        parsed = parse_all(einsums)
        phases = einsum_phases(parsed, sizes, element_bytes=element_bytes, mac_ops=mac_ops)
        workload = cls(phases, machine=machine, settings=settings, params=params)
        source = {"einsums": {e.name: e for e in parsed}, "sizes": dict(sizes), "element_bytes": element_bytes}
        return workload._replace(_einsum_source=source)

    @classmethod
    def from_transformer(cls, config: Any, **options: Any) -> Workload:
        """Prefill or decode of a transformer from its ``config.json`` (a path, a dict or a preset name):
        ``Workload.from_transformer("llama-3-8b", batch=8, seq=2048, stage="decode", machine=m)``.
        ``batch``, ``seq`` and ``kv_len`` stay parameters; see ``campaign_widget.model.transformer``.
        ``stage="generate", new_tokens=N``: the prefill and N decode steps on one time axis, in numbers
        (``campaign_widget.model.generation``)."""
        if options.get("stage") == "generate":
            from .generation import generation

            built = generation(config, **options)
            workload = cls(built.phases, machine=built.machine).with_dtypes(built.dtypes)
        else:
            from .transformer import transformer_phases

            built = transformer_phases(config, **options)
            workload = cls(built.phases, machine=built.machine, params=built.params).with_dtypes(built.dtypes)
        return workload.fuse(built.fusion_groups) if built.fusion_groups else workload

    @classmethod
    def from_torch(
        cls,
        module_or_fn: Any,
        *example_inputs: Any,
        machine: Machine | str | None = None,
        fuse: str = "none",
        dynamic_shapes: Any = None,
    ) -> Workload:
        """One phase per operator of a PyTorch module or function, captured by ``torch.export`` (never run):
        FLOPs as ``torch.utils.flop_counter.FlopCounterMode`` counts them, bytes from tensor sizes.
        ``fuse="inductor"`` fuses the phases into the groups ``torch.compile``'s Inductor forms;
        ``dynamic_shapes`` (``torch.export.Dim`` s) keeps sizes as parameters. Needs the ``[torch]`` extra;
        see docs/from-code.md#pytorch."""
        return build_from_code(
            "torch", module_or_fn, *example_inputs, machine=machine, fuse=fuse, dynamic_shapes=dynamic_shapes
        )

    @classmethod
    def from_jax(cls, fn: Any, *example_args: Any, machine: Machine | str | None = None) -> Workload:
        """One phase per fusion of the module XLA compiles for ``jax.jit(fn)`` at ``example_args``, with XLA's
        own cost analysis. Needs the ``[jax]`` extra; see docs/from-code.md#jax."""
        return build_from_code("jax", fn, *example_args, machine=machine)

    @classmethod
    def from_dace(
        cls, program_or_sdfg: Any, params: Mapping[str, int] | None = None, *, machine: Machine | str | None = None
    ) -> Workload:
        """A ``@dace.program`` or an in-memory ``dace.SDFG`` read by the SDFG reader, as a file would be
        (``campaign_widget.io.read_sdfg``). Needs the ``[dace]`` extra; see docs/from-code.md#dace."""
        return build_from_code("dace", program_or_sdfg, params=params, machine=machine)

    # -- construction -------------------------------------------------------------------------

    def _build(
        self,
        names: Sequence[str],
        *,
        duration: np.ndarray,
        compute_util: np.ndarray,
        memory_util: np.ndarray,
        ops: np.ndarray,
        bytes_: np.ndarray,
        after: Sequence[Sequence[str]],
        tileable: npt.ArrayLike,
        machine: Machine | None,
        near: Mapping[str, Sequence[tuple[Any, Any]]] | None = None,
        reads: Sequence[Iterable[tuple[str, float]]] | None = None,
        writes: Sequence[Iterable[tuple[str, float]]] | None = None,
        settings: Mapping[str, Any] | None = None,
        params: Mapping[str, int] | None = None,
        symbolic: Sequence[tuple[Any, Any, Any, Any]] | None = None,
        in_flight: npt.ArrayLike | None = None,
    ) -> None:
        near = dict(near or {})
        near_bytes_given = np.array([[b is not None for b, _ in v] for v in near.values()], bool).reshape(
            -1, len(names)
        )
        near_util_given = np.array([[u is not None for _, u in v] for v in near.values()], bool).reshape(-1, len(names))
        given_util = ~np.isnan(compute_util) | ~np.isnan(memory_util) | near_util_given.any(axis=0)
        given_volume = ~np.isnan(ops) | ~np.isnan(bytes_) | near_bytes_given.any(axis=0)
        measured = ~np.isnan(duration)
        _require(
            names,
            given_util | given_volume,
            "duration",
            "neither utilizations nor volumes given: pass duration= with compute_util=/memory_util=, "
            "or ops= and bytes=",
            duration,
        )
        _require(
            names,
            ~given_util | measured,
            "duration",
            "is required when utilizations are given (they are rates over a duration)",
            duration,
        )
        _require(names, ~measured | (duration > 0), "duration", "must be > 0", duration)
        if machine is None:
            timed = ~given_volume | measured
            _require(
                names,
                timed,
                "ops",
                "is a volume but the workload has no machine to time it: pass machine=Machine(...) "
                "or a measured duration=",
                ops,
            )
            machine = Machine.unit()

        order = topological_order(names, list(after))
        P, BW = machine.peak_compute, machine.peak_bandwidth
        dur = duration[order]
        with np.errstate(over="ignore"):
            ops_ = np.where(
                np.isnan(ops[order]), np.nan_to_num(compute_util[order]) * P * np.nan_to_num(dur), ops[order]
            )
            bytes_o = np.where(
                np.isnan(bytes_[order]), np.nan_to_num(memory_util[order]) * BW * np.nan_to_num(dur), bytes_[order]
            )
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        index = {name: i for i, name in enumerate(names)}
        producer_lists = [sorted(int(position[index[p]]) for p in after[i]) for i in order]
        n = len(order)
        set_ = object.__setattr__
        set_(self, "_names", tuple(names[i] for i in order))
        set_(self, "_measured", _frozen(dur))
        set_(self, "_ops", _frozen(np.nan_to_num(ops_)))
        set_(self, "_logical_bytes", _frozen(np.nan_to_num(bytes_o)))
        set_(self, "_tileable", _frozen(np.asarray(tileable, bool)[order]))
        set_(self, "_producers", tuple(_frozen(a) for a in csr(producer_lists)))
        set_(self, "_reads", tuple(tuple(reads[i]) for i in order) if reads is not None else ((),) * n)
        set_(self, "_writes", tuple(tuple(writes[i]) for i in order) if writes is not None else ((),) * n)
        set_(self, "_fusion_groups", ())
        set_(self, "_fusion_group", _frozen(np.full(n, -1, dtype=np.int64)))
        set_(self, "_fusion_kind", None)
        set_(self, "_machine", machine)
        set_(self, "_settings", checked_settings(settings))
        set_(self, "_params", dict(params or {}))
        set_(self, "_symbolic", tuple(symbolic[i] for i in order) if symbolic is not None else None)
        set_(self, "_einsum_source", None)
        set_(self, "_import_report", None)
        set_(self, "_dtypes", None)
        set_(self, "_predicted", {})
        set_(self, "_near_given", _near_in_order(names, near, order, machine, dur))
        set_(self, "_near_bytes", _near_arrays(self._names, self._near_given, self._params))
        far_unknown = np.isnan(bytes_[order]) & np.isnan(memory_util[order]) & given_volume[order] & bool(near)
        set_(self, "_far_unknown", _frozen(far_unknown) if far_unknown.any() else None)
        in_flight = check_in_flight_column(names, in_flight)
        set_(self, "_in_flight", None if in_flight is None else _frozen(in_flight[order]))
        self._derive()
        self._warn_above_one()

    def _replace(self, **changes: Any) -> Workload:
        """The one copy path: a new workload with some fields changed and everything derived anew."""
        unknown = set(changes) - set(_SLOTS)
        if unknown:
            raise WrongTypeError(f"Workload has no fields {sorted(unknown)}")
        other = Workload.__new__(Workload)
        for slot in _SLOTS:
            value = changes[slot] if slot in changes else getattr(self, slot)
            object.__setattr__(other, slot, value)
        other._derive()
        return other

    def _level_bytes(self) -> np.ndarray:
        """Bytes per memory level, (phases, levels), NaN where unknown; the farthest level's column
        is the effective bytes (logical, fused or predicted)."""
        names = self._machine.level_names
        out = np.full((len(self._names), len(names)), np.nan)
        out[:, -1] = self._bytes
        if self._far_unknown is not None:
            out[self._far_unknown, -1] = np.nan
        for level, values in self._near_given.items():
            if level not in names[:-1]:
                i = next(k for k, v in enumerate(values) if v is not None)
                machine = f"machine {self._machine.name!r}" if self._machine.name else "the machine"
                raise WorkloadError(
                    f"phase {short_repr(self._names[i])}: bytes for memory level {level!r}, but {machine} has no such level "
                    f"nearer to compute than its farthest ({names[-1]!r}); its levels are {', '.join(names)}"
                )
            out[:, names.index(level)] = self._near_bytes[level]
        for i, prediction in self._predicted.items():
            for level, value in prediction.get("level_bytes", {}).items():
                out[i, names.index(level)] = value
        return out

    def _derive(self) -> None:
        """Effective bytes (logical → fused → predicted) and every per-phase quantity of docs/semantics.md#per-phase-quantities."""
        bytes_ = self._logical_bytes
        if self._fusion_kind == "fused":
            bytes_ = fused_bytes(self.tensors, bytes_, _full_groups(self._fusion_group))
        if self._predicted:
            bytes_ = bytes_.copy()
            for i, prediction in self._predicted.items():
                bytes_[i] = prediction["bytes"]
        object.__setattr__(self, "_bytes", _frozen(bytes_))
        arrays = _phase_arrays(
            self._names,
            self._ops,
            self._bytes,
            self._measured,
            self._level_bytes(),
            self._machine,
            in_flight=self._in_flight,
            compute_peaks=self.compute_peaks,
        )
        object.__setattr__(self, "_arrays", arrays)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(
            f"a Workload is immutable: {short_repr(name)} cannot be set; make a new one with with_machine(), "
            "with_peaks(), with_settings(), with_params() or fuse()"
        )

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"a Workload is immutable: {short_repr(name)} cannot be deleted")

    def __getstate__(self) -> dict[str, Any]:
        return {slot: getattr(self, slot) for slot in _SLOTS}

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        for slot in _SLOTS:
            # a workload pickled before bytes in flight existed has none
            object.__setattr__(self, slot, state[slot] if slot in state or slot != "_in_flight" else None)

    def utilization_warnings(self) -> list[str]:
        """One line per measured phase whose utilization exceeds 1 on this machine."""
        a = self._arrays
        lines = []
        for label, util in (("compute", a.compute_util), ("memory", a.memory_util)):
            for i in np.flatnonzero(util > 1 + 1e-12)[:50]:
                lines.append(
                    f"phase {short_repr(self._names[i])}: {label} utilization {util[i]:.4g} > 1 "
                    "(measured: the peaks or the counters are off)"
                )
        return lines

    def _warn_above_one(self) -> None:
        for line in self.utilization_warnings():
            warnings.warn(line, UtilizationAboveOneWarning, stacklevel=4)

    # -- derived workloads -----------------------------------------------------------------------

    def with_machine(self, machine: Machine | str) -> Workload:
        """The same phases (same volumes, same measured durations) on another machine (or preset)."""
        return self._replace(_machine=machine_from(machine))

    def with_peaks(self, peak_compute: float | None = None, peak_bandwidth: float | None = None) -> Workload:
        """The same phases on this machine with other peaks."""
        return self.with_machine(self._machine.with_peaks(peak_compute, peak_bandwidth))

    def with_settings(self, **settings: Any) -> Workload:
        """The same workload with other default schedule settings."""
        return self._replace(_settings={**self._settings, **checked_settings(settings)})

    def with_params(self, **values: int) -> Workload:
        """The workload re-evaluated with new values of some parameters (ops, bytes, tensors, durations)."""
        if not self._params:
            raise WorkloadError(
                "this workload has no parameters; give sizes as expressions with params= "
                "(e.g. Workload.from_einsums(..., sizes={'m': 'B*S'}, params={'B': 8, 'S': 2048}))"
            )
        unknown = sorted(set(values) - set(self._params))
        if unknown:
            raise WorkloadError(f"unknown parameters {unknown}; this workload's parameters are {sorted(self._params)}")
        params = {**self._params, **_checked_params(values)}
        if self._einsum_source is not None:
            resolve_sizes(self._einsum_source["sizes"], params)
        ops, logical, reads, writes = _evaluate_phases(self._names, self._symbolic, params)
        unmeasured = np.isnan(self._measured)
        ops = np.where(np.isnan(ops) & ~unmeasured, self._ops, np.nan_to_num(ops))
        logical = np.where(np.isnan(logical) & ~unmeasured, self._logical_bytes, np.nan_to_num(logical))
        return self._replace(
            _params=params,
            _ops=_frozen(ops),
            _logical_bytes=_frozen(logical),
            _reads=tuple(reads),
            _writes=tuple(writes),
            _near_bytes=_near_arrays(self._names, self._near_given, params),
            _predicted={},
        )

    def fuse(self, groups: Mapping[str, Sequence[str]] | Sequence[Sequence[str]]) -> Workload:
        """Fuse phases into groups (docs/semantics.md#fusion): tensors produced and consumed inside a group
        move no bytes; analytical durations follow. See ``campaign_widget.model.fusion.fuse``."""
        return fuse(self, groups)

    def with_prediction(self, phase: str, prediction: Mapping[str, Any]) -> Workload:
        """This workload with ``phase`` moving ``prediction["bytes"]`` in place of its logical bytes
        (a cache model's prediction: see ``with_predicted_traffic``); ``predicted[phase]`` keeps
        the whole mapping, and phases predicted before keep theirs."""
        if phase not in self._names:
            raise WorkloadError(f"phase {short_repr(phase)} is not a phase of this workload")
        index = self._names.index(phase)
        return self._replace(_predicted={**self._predicted, index: dict(prediction)})

    def with_fusion_groups(self, labels: Sequence[str], group: np.ndarray, *, fused: bool) -> Workload:
        """This workload with fusion groups attached: ``labels`` name the groups, ``group[i]`` is
        phase i's group (an index into ``labels``, or -1 for none). ``fused=True`` recomputes the
        bytes (tensors inside a group move none); ``False`` only marks the groups. ``fuse`` and
        ``campaign_widget.model.fusion.mark_groups`` are the ways in."""
        labels = tuple(labels)
        for label in labels:
            check_name("fusion group label", label)
        group = np.asarray(group, dtype=np.int64)
        if group.shape != (len(self),):
            raise WorkloadError(f"fusion groups: {group.shape} entries for {len(self)} phases")
        group = group.copy()
        group.flags.writeable = False
        return self._replace(
            _fusion_groups=tuple(labels), _fusion_group=group, _fusion_kind="fused" if fused else "marked"
        )

    def with_dtypes(self, dtypes: Mapping[str, str | None]) -> Workload:
        """The same phases, those named in ``dtypes`` computing in that data type: on a machine with a
        peak per type (``Machine(peak_compute={"fp16": ..., "int8": ...})``) each is timed at its type's
        peak (docs/llm-inference.md#a-peak-per-data-type); a phase left out (or None) runs at ``peak_compute``."""
        if not isinstance(dtypes, Mapping):
            raise WrongTypeError(f"with_dtypes takes {{phase name: dtype}}, got {short_repr(dtypes)}")
        unknown = [name for name in dtypes if name not in self._names]
        if unknown:
            raise WorkloadError(f"with_dtypes: no phase named {short_repr(unknown[0])}")
        old = self._dtypes or (None,) * len(self._names)
        given = {n: None if d is None else canonical(f"phase {short_repr(n)}: dtype", d) for n, d in dtypes.items()}
        new = tuple(given[name] if name in given else old[i] for i, name in enumerate(self._names))
        return self._replace(_dtypes=new if any(d is not None for d in new) else None)

    @property
    def dtypes(self) -> tuple[str | None, ...]:
        """Per phase, the data type it computes in (None: untyped, timed at ``peak_compute``)."""
        return self._dtypes or (None,) * len(self._names)

    @property
    def compute_peaks(self) -> np.ndarray:
        """Per phase, the compute peak it is timed at: its data type's on a machine of typed peaks."""
        peaks = np.full(len(self._names), float(self._machine.peak_compute))
        if self._dtypes is not None and self._machine.peaks:
            for i, dtype in enumerate(self._dtypes):
                try:
                    peaks[i] = self._machine.peak_for(dtype)
                except WorkloadError as e:
                    raise WorkloadError(f"phase {short_repr(self._names[i])}: {e}") from None
        return peaks

    def with_import_report(self, report: ImportReport | None) -> Workload:
        """The same workload carrying an importer's report (``import_report``)."""
        return self._replace(_import_report=report)

    # -- views -------------------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """Phase names in dependency (topological) order."""
        return list(self._names)

    @property
    def arrays(self) -> PhaseArrays:
        """Per-phase quantities (docs/semantics.md#per-phase-quantities) as read-only numpy arrays, in topological order."""
        return self._arrays

    @property
    def machine(self) -> Machine:
        return self._machine

    @property
    def bytes_in_flight(self) -> np.ndarray | None:
        """Per phase, its bytes in flight (NaN: not given); None when no phase gives them."""
        return self._in_flight

    @property
    def settings(self) -> dict[str, Any]:
        """The schedule settings this workload was given (a subset of ``tiles, pipeline, policy, depth``)."""
        return dict(self._settings)

    @property
    def params(self) -> dict[str, int]:
        """The current values of the parameters its sizes are expressions in ({} when it has none)."""
        return dict(self._params)

    @property
    def sizes(self) -> dict[str, int]:
        """For a workload made from Einsums: every index's size at the current parameters."""
        if self._einsum_source is None:
            return {}
        return resolve_sizes(self._einsum_source["sizes"], self._params)

    @property
    def einsums(self) -> dict[str, Einsum]:
        """For a workload made from Einsums: phase name → its parsed ``Einsum``."""
        return dict(self._einsum_source["einsums"]) if self._einsum_source is not None else {}

    @property
    def element_bytes(self) -> int | Mapping[str, int] | None:
        """For a workload made from Einsums: the element size (a number, or tensor name → bytes)."""
        return self._einsum_source["element_bytes"] if self._einsum_source is not None else None

    @property
    def fusion_groups(self) -> tuple[str, ...]:
        """Fusion group labels (set by ``fuse``)."""
        return self._fusion_groups

    @property
    def fusion_group(self) -> np.ndarray:
        """Per phase, the index of its fusion group in ``fusion_groups``; -1: no group."""
        return self._fusion_group

    @property
    def streaming_groups(self) -> np.ndarray | None:
        """Per phase, the group inside which pipelined tiles stream to each other (docs/semantics.md#pipelining,
        fusion groups): its fusion group, a phase in no group alone in a group of its own; between
        groups data goes through memory, so a consumer group starts when its producer's last tile is
        done. None when the workload has no fusion groups: every phase streams."""
        if not self._fusion_groups:
            return None
        return _full_groups(self._fusion_group)

    @property
    def import_report(self) -> ImportReport | None:
        """What an importer read, computed and left out (None for workloads not imported)."""
        return self._import_report

    @property
    def producers(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR (indptr, indices) of each phase's producers, in topological indices."""
        return self._producers

    @property
    def tensors(self) -> list[tuple[dict, dict]]:
        """Per phase (topological order): the tensors it reads and writes, name → bytes (logical)."""
        return [(dict(r), dict(w)) for r, w in zip(self._reads, self._writes)]

    @property
    def logical_bytes(self) -> np.ndarray:
        """Per phase, the bytes its tensors take, moved once (before fusion and predicted traffic)."""
        return self._logical_bytes

    @property
    def predicted(self) -> dict[str, dict]:
        """Phases whose bytes are predicted by a cache model: name → {bytes, tensors, mode, ...}."""
        return {self._names[i]: dict(p) for i, p in self._predicted.items()}

    @property
    def tileable(self) -> np.ndarray:
        return self._tileable

    @property
    def measured(self) -> np.ndarray:
        """True where the duration was given rather than derived from the machine."""
        return ~np.isnan(self._measured)

    def __len__(self) -> int:
        return len(self._names)

    def table(self) -> dict[str, np.ndarray]:
        """Per-phase quantities (docs/semantics.md#per-phase-quantities) as a dict of numpy arrays, in topological order.

        ``bytes_source`` says where each phase's bytes come from: ``"logical"`` (its tensors, or
        the volume given), ``"fused"`` (fusion removed on-chip traffic) or ``"predicted"`` (a cache model).
        ``bound_resource`` names what bounds the phase: the compute resource, a memory level, or
        ``"balanced"``. On a machine with several memory levels, ``bytes_<level>``,
        ``memory_util_<level>`` and ``intensity_<level>`` follow for each level (NaN: unknown);
        ``bytes``, ``memory_util`` and ``intensity`` are the farthest level's.
        """
        a = self._arrays
        source = np.array(
            ["fused" if g >= 0 and self._fusion_kind == "fused" else "logical" for g in self._fusion_group],
            dtype=object,
        )
        for i in self._predicted:
            source[i] = "predicted"
        return {
            "name": np.array(self._names, dtype=object),
            "duration": a.duration.copy(),
            "compute_util": a.compute_util.copy(),
            "memory_util": a.memory_util.copy(),
            "ops": a.ops.copy(),
            "bytes": a.bytes.copy(),
            "intensity": a.intensity.copy(),
            "t_sol": a.t_sol.copy(),
            "bound": np.array(BOUND_NAMES, dtype=object)[a.bound],
            "efficiency": a.efficiency.copy(),
            "bytes_source": source,
            "bound_resource": a.bound_resource.copy(),
            **self._level_columns(),
        }

    def _level_columns(self) -> dict[str, np.ndarray]:
        """``bytes_<level>``, ``memory_util_<level>`` and ``intensity_<level>`` per memory level, on a
        machine with several (NaN where a level is unknown)."""
        if not self._machine.levels:
            return {}
        a = self._arrays
        columns = {}
        with np.errstate(divide="ignore", invalid="ignore"):
            for k, level in enumerate(self._machine.level_names):
                b = a.level_bytes[:, k]
                columns[f"bytes_{level}"] = b.copy()
                columns[f"memory_util_{level}"] = a.level_util[:, k].copy()
                columns[f"intensity_{level}"] = np.where(b > 0, a.ops / b, np.where(np.isnan(b), np.nan, np.inf))
        return columns

    def to_dataframe(self) -> pd.DataFrame:
        """``table()`` as a pandas DataFrame (needs pandas: ``pip install pandas``)."""
        from .._optional import require_pandas

        return require_pandas("Workload.to_dataframe").DataFrame(self.table())

    def schedule(
        self,
        tiles: int | None = None,
        pipeline: bool | None = None,
        policy: str | None = None,
        depth: int | None = None,
        stepping: str | None = None,
    ) -> Schedule:
        """Tile, pipeline, dilate and throttle the phases (docs/semantics.md#pipelining); returns a ``Schedule``.

        A setting left out comes from ``self.settings`` (e.g. read from a workload file), else from
        the defaults ``tiles=1, pipeline=False, policy="none", depth=2, stepping="event"``. ``stepping="lockstep"``
        pipelines by campaign_diagram_tools' lock-step rule instead (docs/lockstep.md).
        """
        chosen = Settings.resolve(
            self._settings,
            {"tiles": tiles, "pipeline": pipeline, "policy": policy, "depth": depth, "stepping": stepping},
        )
        return build_schedule(self, **chosen.as_dict())

    def __repr__(self) -> str:
        return f"<Workload of {len(self)} phases on {self._machine.name or 'a machine'}>"


def _full_groups(fusion_group: np.ndarray) -> np.ndarray:
    """Per phase, its group id, with phases in no group each in a group of its own."""
    group = fusion_group.copy()
    solo = group < 0
    group[solo] = group.max(initial=-1) + 1 + np.arange(int(solo.sum()))
    return group
