"""What a workload is built from, checked and evaluated: parameters, phase columns, the tensors'
implied dependencies, per-level volumes, and expressions at parameter values (docs/semantics.md#per-phase-quantities, docs/data-movement.md#sizes-and-parameters, docs/memory-hierarchy.md#phases-per-level).
``campaign_widget.model.workload`` builds its arrays with these."""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import WorkloadError, WrongTypeError, short_repr
from .expr import ExpressionError, evaluate, parse
from .machine import Machine
from .phase import LARGEST, SMALLEST, Phase

if TYPE_CHECKING:
    import numpy.typing as npt


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.asarray(array)
    if array.flags.writeable:
        array = array.copy() if array.base is not None else array
        array.flags.writeable = False
    return array


def _column(phases: list[Phase], key: str) -> np.ndarray:
    return np.array([np.nan if getattr(p, key) is None else float(getattr(p, key)) for p in phases])


def _checked_params(params: object) -> dict[str, int]:
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise WrongTypeError(f"params={short_repr(params)} must map parameter names to whole numbers")
    out = {}
    for name, value in params.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise WrongTypeError(f"parameter name {short_repr(name)} must be an identifier such as 'B' or 'seq_len'")
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
            raise WrongTypeError(f"parameter {short_repr(name)}={short_repr(value)} must be a whole number")
        if value < 1:
            raise WorkloadError(f"parameter {short_repr(name)}={int(value)} must be >= 1")
        out[name] = int(value)
    return out


def _evaluate_phases(
    names: Sequence[str], symbolic: Sequence[tuple[Any, Any, Any, Any]], params: Mapping[str, int]
) -> tuple[np.ndarray, np.ndarray, list[tuple[tuple[str, float], ...]], list[tuple[tuple[str, float], ...]]]:
    """Evaluate each phase's volumes and tensor sizes (numbers or expressions) with ``params``."""
    used = set()
    for ops, bytes_, reads, writes in symbolic:
        for value in (ops, bytes_, *(b for _, b in reads), *(b for _, b in writes)):
            if isinstance(value, str):
                used |= parse(value).names
    missing = sorted(used - set(params))
    if missing:
        raise ExpressionError(f"unknown parameters {missing}: give their values in params= (known: {sorted(params)})")

    def value_of(name: str, field: str, value: float | str | None) -> float:
        return np.nan if value is None else _evaluated(name, field, value, params)

    ops, bytes_, reads, writes = [], [], [], []
    for name, (o, b, r, w) in zip(names, symbolic):
        ops.append(value_of(name, "ops", o))
        r_ = tuple((t, value_of(name, f"reads[{t!r}]", v)) for t, v in r)
        w_ = tuple((t, value_of(name, f"writes[{t!r}]", v)) for t, v in w)
        total = value_of(name, "bytes", b)
        if b is None and (r_ or w_):
            total = float(sum(v for _, v in r_ + w_))
        bytes_.append(total)
        reads.append(r_)
        writes.append(w_)
    return np.array(ops, dtype=np.float64), np.array(bytes_, dtype=np.float64), reads, writes


def _with_tensor_dependencies(phases: list[Phase]) -> list[tuple[str, ...]]:
    """``after`` of each phase, plus the writer of every tensor it reads."""
    writer: dict[str, str] = {}
    for p in phases:
        for tensor, _ in p.writes:
            if tensor in writer and writer[tensor] != p.name:
                raise WorkloadError(
                    f"phase {short_repr(p.name)}: writes tensor {short_repr(tensor)}, already written by phase "
                    f"{writer[tensor]!r}; each tensor has one producer"
                )
            writer[tensor] = p.name
    out = []
    for p in phases:
        implied = [writer[t] for t, _ in p.reads if t in writer and writer[t] != p.name]
        out.append(tuple(dict.fromkeys((*p.after, *implied))))
    return out


def _check_unique(names: list[str]) -> None:
    seen = set()
    for name in names:
        if name in seen:
            raise WorkloadError(f"phase {short_repr(name)}: duplicate phase name; each phase needs its own name")
        seen.add(name)


def _require(names: Sequence[str], ok: np.ndarray, field: str, why: str, values: np.ndarray) -> None:
    bad = np.flatnonzero(~ok)
    if bad.size:
        i = int(bad[0])
        value = values[i]
        shown = None if np.isnan(value) else float(value)
        more = f" (and {bad.size - 1} more phases)" if bad.size > 1 else ""
        raise WorkloadError(f"phase {short_repr(names[i])}: {field}={shown!r} {why}{more}")


def _numbers(values: Sequence[Any]) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=np.float64)


def _split_levels(
    phases: Sequence[Phase], levels: Sequence[str]
) -> tuple[list[Any], list[Any], dict[str, list[tuple[Any, Any]]]]:
    """Per-level ``bytes``/``memory_util`` split into the farthest level's value (what one number
    means) and, per nearer level, each phase's (bytes, util): None where not given."""
    far = levels[-1]
    far_bytes = [p.level_values("bytes").get(far) if isinstance(p.bytes, tuple) else p.bytes for p in phases]
    far_util = [
        p.level_values("memory_util").get(far) if isinstance(p.memory_util, tuple) else p.memory_util for p in phases
    ]
    near: dict[str, list[tuple[Any, Any]]] = {}
    for i, p in enumerate(phases):
        if not p.per_level:
            continue
        for key in ("bytes", "memory_util"):
            for level, value in p.level_values(key).items():
                if level == far:
                    continue
                if level not in levels:
                    raise WorkloadError(
                        f"phase {short_repr(p.name)}: {key}[{level!r}]={short_repr(value)}: the machine has no memory "
                        f"level {level!r}; its levels are {', '.join(levels)}"
                    )
                slot = near.setdefault(level, [(None, None)] * len(phases))
                b, u = slot[i]
                slot[i] = (value, u) if key == "bytes" else (b, value)
    return far_bytes, far_util, near


def _near_in_order(
    names: Sequence[str], near: Mapping[str, Sequence[tuple[Any, Any]]], order: np.ndarray, machine: Machine, dur
) -> dict[str, tuple[Any, ...]]:
    """Nearer levels' bytes in topological order: a number, an expression, or None (unknown);
    a utilization becomes bytes over the measured duration, as the farthest level's does."""
    out = {}
    for level, pairs in near.items():
        bandwidth = machine.bandwidth(level)
        values = []
        for k, i in enumerate(order):
            b, u = pairs[i]
            if b is None and u is not None:
                b = float(u) * bandwidth * float(np.nan_to_num(dur[k]))
            values.append(b)
        out[level] = tuple(values)
    return out


def _near_arrays(
    names: Sequence[str], near_given: Mapping[str, Sequence[Any]], params: Mapping[str, int]
) -> dict[str, np.ndarray]:
    """The nearer levels' bytes per phase at ``params`` (NaN: unknown), evaluated once per parameter
    values rather than at every derivation (a slider step derives anew)."""
    out = {}
    for level, values in near_given.items():
        column = np.full(len(names), np.nan)
        for i, value in enumerate(values):
            if value is not None:
                column[i] = _evaluated(names[i], f"bytes[{level!r}]", value, params)
        out[level] = _frozen(column)
    return out


def _evaluated(name: str, field: str, value: float | str, params: Mapping[str, int]) -> float:
    if not isinstance(value, str):
        return float(value)
    try:
        result = evaluate(value, params)
    except ExpressionError as error:
        raise ExpressionError(f"phase {short_repr(name)}: {field}: {error}") from None
    if result < 0:
        raise WorkloadError(f"phase {short_repr(name)}: {field}={value!r} = {result} must be >= 0")
    return float(result)


def _checked_columns(
    names: Sequence[str],
    columns: Mapping[str, npt.ArrayLike | None],
    *,
    after: Sequence[Sequence[str]] | None,
    tileable: Sequence[bool] | np.ndarray | None,
    level_bytes: Mapping[str, npt.ArrayLike] | None,
    levels: Sequence[str],
) -> tuple[dict[str, np.ndarray], dict[str, list[tuple[Any, Any]]], np.ndarray | None]:
    """``Workload.from_arrays``'s columns checked, vectorized over phases: each column as float64 (NaN:
    not given), each nearer level's bytes as (bytes, None) pairs, and ``tileable`` as a bool array."""
    n = len(names)

    def col(key: str, values: npt.ArrayLike | None) -> np.ndarray:
        if values is None:
            return np.full(n, np.nan)
        try:
            arr = np.asarray(values, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise WrongTypeError(f"{key} must be numbers, one per phase") from None
        if arr.shape != (n,):
            raise WorkloadError(f"{key} has {arr.size} values for {n} phases")
        return arr

    cols = {key: col(key, values) for key, values in columns.items()}
    for key, arr in cols.items():
        low = SMALLEST if key == "duration" else 0.0
        bad = np.flatnonzero(np.isinf(arr) | (arr < 0) | (arr > LARGEST) | ((arr > 0) & (arr < low)))
        if bad.size:
            i = int(bad[0])
            raise WorkloadError(
                f"phase {short_repr(names[i])}: {key}={arr[i]!r} must be finite and within [{low:g}, {LARGEST:g}]"
            )
    for key, given in (("after", after), ("tileable", tileable)):
        if given is not None and len(given) != n:
            raise WorkloadError(f"{key} has {len(given)} entries for {n} phases")
    if after is not None:
        for name, producers in zip(names, after):
            if isinstance(producers, str) or not isinstance(producers, Iterable):
                raise WrongTypeError(
                    f"phase {short_repr(name)}: after={short_repr(producers)} must be a list of phase names"
                )
    if tileable is not None:
        tileable = np.asarray(tileable)
        if tileable.dtype != bool:
            raise WrongTypeError(f"tileable must be True or False per phase, got dtype {tileable.dtype}")
    near = {}
    for level, values in (level_bytes or {}).items():
        column = col(f"level_bytes[{level!r}]", values)
        bad = np.flatnonzero(np.isinf(column) | (column < 0) | (column > LARGEST))
        if bad.size:
            i = int(bad[0])
            raise WorkloadError(f"phase {short_repr(names[i])}: bytes[{level!r}]={column[i]!r} must be finite and >= 0")
        near[level] = [(None if np.isnan(v) else float(v), None) for v in column]
    for level in near:
        if level not in levels[:-1]:
            raise WorkloadError(
                f"level_bytes names {level!r}, which is not one of the machine's nearer memory levels "
                f"({', '.join(levels[:-1]) or 'it has one level'})"
            )
    return cols, near, tileable
