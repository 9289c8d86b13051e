"""Everything checked before any work starts: the axes, their values, the configuration count, size
parameters, the baseline and the executor."""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import math
import numbers
import sys
import uuid

import numpy as np

from ..errors import ConfigurationIndexError, ScheduleError, SweepError, WrongTypeError, short_repr
from ..model.schedule import MAX_TILE_INTERVALS
from ..model.settings import check_setting
from ..model.workload import Workload
from . import _tuning
from ._axes import PEAK_AXES, SETTING_AXES, STANDARD_AXES
from ._payload import _Payload
from ._result import _index


def _valid_axes(workload) -> tuple[tuple[str, ...], tuple[str, ...]]:
    params = getattr(workload, "params", None)
    names = tuple(params) if isinstance(params, dict) else ()
    return STANDARD_AXES + tuple(n for n in names if n not in STANDARD_AXES), names


def _where(names, values, zipped, a, j) -> str:
    """'configuration #k (axis=value, …)': the first configuration that has value j of axis a."""
    if zipped:
        k, digits = j, [j] * len(values)
    else:
        digits = [0] * len(values)
        digits[a] = j
        k = int(np.ravel_multi_index(digits, tuple(len(v) for v in values)))
    cfg = ", ".join(f"{n}={short_repr(values[b][digits[b]])}" for b, n in enumerate(names))
    return f"configuration #{k} ({cfg})"


def _finite(v: numbers.Real) -> bool:
    """Whether ``v`` is a finite float (an integer beyond a float's range is not)."""
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


def _check_value(name, v, workload) -> str | None:
    """Why value v of axis name is invalid, or None. A setting's error is raised as it is: the model's
    own check and wording (campaign_widget.model.settings), which the caller chains to its SweepError."""
    if name in SETTING_AXES:
        check_setting(name, v)
        if name == "tiles":
            if int(v) * len(workload) > MAX_TILE_INTERVALS:
                return f"tiles={v} × {len(workload)} phases is above the limit of {MAX_TILE_INTERVALS:,} tile intervals"
            if v > 1 and not workload.tileable.all():
                fixed = workload.names[int(np.flatnonzero(~workload.tileable)[0])]
                return f"tiles={v}: phase {fixed!r} is marked tileable=False"
        return None
    if name in PEAK_AXES:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real) or not _finite(v) or v <= 0:
            return f"{name}={short_repr(v)} must be a finite number > 0"
        return None
    return None  # size parameters: checked by the workload itself, per combination


def _normalize(v):
    """numpy scalars to Python ones, so that results pickle small and print plainly."""
    return v.item() if isinstance(v, np.generic) else v


def _prepare(workload, zipped, allow_large, axes, baseline):
    if not isinstance(workload, Workload):
        raise WrongTypeError(f"sweep takes a campaign_widget.Workload, got {type(workload).__name__}")
    valid, param_names = _valid_axes(workload)
    if not axes:
        raise SweepError(f"sweep needs at least one axis, e.g. tiles=[1, 4, 16]; axes: {', '.join(valid)}")
    unknown = [n for n in axes if n not in valid]
    if unknown:
        raise SweepError(f"unknown sweep axis {', '.join(map(repr, unknown))}; valid axes: {', '.join(valid)}")
    for name, given in axes.items():
        if isinstance(given, (str, bytes)) or not hasattr(given, "__iter__"):
            raise SweepError(
                f"axis {name}={short_repr(given)} must be a list of values, e.g. {name}=[{short_repr(given)}]"
            )
    limit = None if allow_large else _tuning.MAX_CONFIGURATIONS
    # Count the configurations from the axes' lengths before reading any axis in full: an axis such
    # as range(1, 10**8) is refused at once, not after building a tuple of its values.
    lengths = {name: _length(given) for name, given in axes.items()}
    known = [n for n in lengths.values() if n is not None]
    if zipped and len(set(known)) > 1:
        raise SweepError(f"zip=True pairs the axes up, so they need equal lengths; got {lengths}")
    _check_count(lengths, zipped, limit)
    names, values = [], []
    for name, given in axes.items():
        if lengths[name] is None:  # an iterator: read no more than the limit allows
            given = list(itertools.islice(given, None if limit is None else limit + 1))
        vals = tuple(_normalize(v) for v in (given.tolist() if isinstance(given, np.ndarray) else given))
        if not vals:
            raise SweepError(f"axis {name} is empty: give at least one value")
        names.append(name)
        values.append(vals)
        lengths[name] = len(vals)
    if zipped:
        if len(set(lengths.values())) > 1:
            raise SweepError(f"zip=True pairs the axes up, so they need equal lengths; got {lengths}")
    _check_count(lengths, zipped, limit)
    for a, (name, vals) in enumerate(zip(names, values)):
        for j, v in enumerate(vals):
            try:
                why = _check_value(name, v, workload)
            except ScheduleError as exc:
                raise SweepError(f"{exc}, in {_where(names, values, zipped, a, j)}") from exc
            if why:
                raise SweepError(f"{why}, in {_where(names, values, zipped, a, j)}")
    swept_params = tuple(n for n in names if n in param_names)
    payload = _Payload(
        token=uuid.uuid4().hex,
        workload=workload,
        names=tuple(names),
        values=tuple(values),
        zipped=zipped,
        param_names=swept_params,
    )
    if swept_params:
        _check_params(payload)
    base_makespan, base_index = _baseline(payload, baseline, valid)
    return payload, base_makespan, base_index


def _length(given) -> int | None:
    """How many values an axis has, without reading them (None: an iterator, which must be read)."""
    if isinstance(given, np.ndarray):
        return int(given.size)
    try:
        return len(given)
    except OverflowError:  # a range longer than the largest index
        return sys.maxsize
    except TypeError:
        return None


def _check_count(lengths: dict, zipped: bool, limit: int | None) -> None:
    """Refuse a sweep whose axes (their lengths known so far) make more than ``limit`` configurations."""
    known = {n: k for n, k in lengths.items() if k is not None}
    if not known:
        return
    count = max(known.values()) if zipped else math.prod(known.values())
    if limit is not None and count > limit:
        shape = " × ".join(f"{k} {n}" for n, k in known.items())
        raise SweepError(
            f"the sweep has {'at least ' if len(known) < len(lengths) else ''}{count:,} configurations "
            f"({shape}), above the limit of {limit:,}; pass allow_large=True to run it anyway"
        )
    if count > _LARGEST:
        raise SweepError(f"the sweep has {count:,} configurations, more than any table can index ({_LARGEST:,})")


_LARGEST = 2**62  # configuration indices are int64


def _check_params(payload: _Payload) -> None:
    """Every distinct combination of size parameters gives a valid workload (once each, cached)."""
    pos = [payload.names.index(p) for p in payload.param_names]
    if payload.zipped:
        combos = dict.fromkeys(tuple(payload.values[a][j] for a in pos) for j in range(len(payload)))
    else:
        combos = dict.fromkeys(itertools.product(*(payload.values[a] for a in pos)))
    for combo in combos:
        try:
            payload.derived(combo, (None, None))
        except Exception as exc:
            shown = ", ".join(f"{n}={v!r}" for n, v in zip(payload.param_names, combo))
            if payload.zipped:
                k = next(j for j in range(len(payload)) if tuple(payload.values[a][j] for a in pos) == combo)
            else:
                digits = [0] * len(payload.names)
                for a, v in zip(pos, combo):
                    digits[a] = payload.values[a].index(v)
                k = int(np.ravel_multi_index(digits, payload.shape))
            raise SweepError(
                f"size parameters {shown} give an invalid workload, in configuration #{k} "
                f"{payload.configuration(k)}: {exc}"
            ) from exc


def _baseline(payload: _Payload, baseline, valid) -> tuple[float | None, int | None]:
    if baseline is None:
        return None, 0
    if isinstance(baseline, numbers.Integral) and not isinstance(baseline, bool):
        try:
            return None, _index(baseline, len(payload))
        except IndexError as exc:
            raise ConfigurationIndexError(f"baseline={short_repr(baseline)}: {exc}") from None
    if not isinstance(baseline, dict):
        raise SweepError(
            f"baseline={baseline!r} must be a configuration index or a dict of axis values, "
            "e.g. baseline={'tiles': 1}"
        )
    unknown = [k for k in baseline if k not in valid]
    if unknown:
        raise SweepError(f"baseline has unknown axis {', '.join(map(repr, unknown))}; valid axes: {', '.join(valid)}")
    for k, v in baseline.items():
        try:
            why = _check_value(k, v, payload.workload)
        except ScheduleError as exc:
            raise SweepError(f"baseline: {exc}") from exc
        if why:
            raise SweepError(f"baseline: {why}")
    w = payload.workload
    params = {k: v for k, v in baseline.items() if k in payload.param_names or k not in STANDARD_AXES}
    try:
        if params:
            w = w.with_params(**params)
        if "peak_compute" in baseline or "peak_bandwidth" in baseline:
            w = w.with_peaks(baseline.get("peak_compute"), baseline.get("peak_bandwidth"))
        s = w.schedule(**{k: baseline[k] for k in SETTING_AXES if k in baseline})
    except Exception as exc:
        raise SweepError(f"baseline {short_repr(baseline)} cannot be scheduled: {exc}") from exc
    return float(s.makespan), None


def _executor_kind(executor) -> str:
    if executor is None:
        return "auto"
    if isinstance(executor, str):
        _check_address(executor)
        return "dask-address"
    mod = type(executor).__module__ or ""
    if mod.split(".")[0] == "distributed" and hasattr(executor, "scatter") and hasattr(executor, "submit"):
        return "dask"
    if isinstance(executor, cf.Executor):
        return "executor"
    raise WrongTypeError(
        f"executor={executor!r} must be None, a concurrent.futures.Executor (ProcessPoolExecutor, "
        "ThreadPoolExecutor, …), a dask.distributed.Client, or a Dask scheduler address such as "
        "'tcp://scheduler:8786'"
    )


def _check_address(address: str) -> None:
    """A Dask scheduler address names a host and a port (``tcp://scheduler:8786``): else a SweepError
    before any work starts."""
    _require_distributed()
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        protocol, location = parse_address(address)
        if protocol in ("tcp", "tls"):
            parse_host_port(location)
    except (ValueError, TypeError) as exc:
        raise SweepError(
            f"executor={short_repr(address)} is not a Dask scheduler address ({str(exc)[:100]}); give one such as "
            "'tcp://scheduler:8786', or executor=None to sweep on this machine"
        ) from None


def _require_distributed():
    try:
        import distributed
    except ImportError:
        raise ImportError(
            "sweeping on a Dask cluster needs dask.distributed: pip install 'campaign_widget[dask]' "
            "(or pip install 'dask[distributed]')"
        ) from None
    return distributed
