"""Back to the global view (docs/data-movement.md#back-to-the-workload): predicted traffic of a phase from its cache misses."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import CacheModelError, short_repr
from ..model.einsum import Einsum
from .geometry import Cache
from .hierarchy import levels_of
from .layout import Layout
from .result import CacheResult
from .simulation import simulate
from .tracing import Trace, references, trace

if TYPE_CHECKING:
    from ..model.workload import Workload


def _phase_einsum(workload: Workload, phase: str) -> tuple[Einsum, dict[str, int], int | Mapping[str, int] | None]:
    """The Einsum, full sizes and element bytes of one phase of a workload built by from_einsums."""
    if not isinstance(phase, str):
        raise CacheModelError(f"phase={short_repr(phase)} must be a phase name")
    if phase not in workload.names:
        raise CacheModelError(f"phase={short_repr(phase)} is not in the workload; its phases: {workload.names}")
    einsums = workload.einsums
    if not einsums:
        raise CacheModelError(
            f"phase {short_repr(phase)}: predicted traffic needs the phase's Einsum; build the workload "
            "with Workload.from_einsums"
        )
    if phase not in einsums:
        raise CacheModelError(f"phase {short_repr(phase)} has no Einsum (Einsum phases: {sorted(einsums)})")
    return einsums[phase], workload.sizes, workload.element_bytes


def _layouts_with_widths(
    e: Einsum, layouts: Mapping[str, Layout] | None, element_bytes: int | Mapping[str, int] | None
) -> tuple[dict, int]:
    layouts = dict(layouts or {})
    if not isinstance(element_bytes, Mapping):
        return layouts, int(element_bytes)
    default = int(element_bytes.get("*", 4))
    for tensor in dict.fromkeys(t for t, _, _ in references(e)):
        width = element_bytes.get(tensor)
        if width is None:
            continue
        layout = layouts.get(tensor, Layout())
        if layout.elem_bytes is None:
            layouts[tensor] = Layout(
                layout.order, layout.strides, layout.offset, layout.byte_offset, int(width), layout.shape
            )
    return layouts, default


@dataclass(frozen=True)
class _Simulated:
    """How a phase is simulated: the keyword arguments every prediction takes (``predicted_traffic``)."""

    local_sizes: Mapping[str, int] | None
    layouts: Mapping[str, Layout] | None
    loop_order: Sequence[str] | str | None
    mode: str


def _phase_trace(workload: Workload, phase: str, line: int, how: _Simulated) -> tuple[Trace, dict[str, int]]:
    """The access trace of ``phase``'s Einsum at the sizes ``how.mode`` asks for, and the full sizes."""
    mode, local_sizes = how.mode, how.local_sizes
    if mode not in ("exact", "ratio"):
        raise CacheModelError(f"mode={short_repr(mode)} must be 'exact' or 'ratio'")
    e, full, element_bytes = _phase_einsum(workload, phase)
    layouts, width = _layouts_with_widths(e, how.layouts, element_bytes)
    if mode == "exact":
        sizes = full
    else:
        if not local_sizes:
            raise CacheModelError(
                f"phase {short_repr(phase)}: mode='ratio' needs local_sizes (small sizes to simulate)"
            )
        unknown = sorted(set(local_sizes) - set(full))
        if unknown:
            raise CacheModelError(f"local_sizes names unknown indices {unknown}; the sizes: {sorted(full)}")
        sizes = {**full, **dict(local_sizes)}
    try:
        t = trace(e, sizes, layouts=layouts, loop_order=how.loop_order, elem_bytes=width, line=line)
    except CacheModelError as error:
        if mode == "exact" and "MAX_ACCESSES" in str(error):
            raise CacheModelError(f"{error}; or use mode='ratio' with local_sizes") from None
        raise
    return t, full


def _to_full_size(t: Trace, full: Mapping[str, int], mode: str) -> np.ndarray:
    """Per tensor, what one local access stands for at full size (1 in exact mode)."""
    n = len(t.tensors)
    if mode == "exact":
        return np.ones(n)
    # each tensor's local counts per access, times its accesses at full size
    local = np.bincount(t.tensor, minlength=n).astype(float)
    full_points = math.prod(full[i] for i in t.loop_order)
    per_point = np.bincount([r.tensor for r in t.refs], minlength=n)
    return np.divide(per_point * full_points, local, out=np.zeros(n), where=local > 0)


def _predicted(
    workload: Workload, phase: str, cache: Cache, how: _Simulated, write_back: bool
) -> tuple[dict[str, float], dict[str, float], CacheResult]:
    if not isinstance(cache, Cache):
        raise CacheModelError(f"cache={short_repr(cache)} must be a Cache")
    t, full = _phase_trace(workload, phase, cache.line, how)
    result = simulate(t, cache)
    n = len(t.tensors)
    misses = np.bincount(t.tensor, weights=result.miss, minlength=n)
    backs = np.zeros(n)
    if write_back:
        wb = result.write_backs()
        backs = np.array([wb[name] for name in t.tensors], float)
    scale = _to_full_size(t, full, how.mode)
    misses, backs = misses * scale, backs * scale
    line = cache.line
    written = {t.tensors[r.tensor] for r in t.refs if r.is_write}
    reads = {name: float(line * misses[k]) for k, name in enumerate(t.tensors) if name not in written}
    writes = {name: float(line * (misses[k] + backs[k])) for k, name in enumerate(t.tensors) if name in written}
    return reads, writes, result


def _level_served(
    workload: Workload, phase: str, caches: Sequence[Cache] | Mapping[str, Cache], how: _Simulated
) -> tuple[dict[str, float], dict[str, float], list[CacheResult]]:
    levels = levels_of(caches)
    lines = [cache.line for _, cache in levels]
    t, full = _phase_trace(workload, phase, lines[0], how)
    results = simulate(t, dict(levels))
    n = len(t.tensors)
    scale = _to_full_size(t, full, how.mode)
    width = np.asarray(t.elem_bytes, dtype=float)
    served = {levels[0][0]: float((np.bincount(t.tensor, minlength=n) * width * scale).sum())}

    def missed_lines(result: CacheResult) -> float:
        tensor = t.tensor if result.feed is None else t.tensor[result.feed]
        return float((np.bincount(tensor, weights=result.miss, minlength=n) * scale).sum())

    for (name, _), above, line_above in zip(levels[1:], results, lines):
        served[name] = line_above * missed_lines(above)
    last = results[-1]
    memory = workload.machine.level_names[-1]
    if memory in served:
        raise CacheModelError(
            f"cache level {short_repr(memory)} has the name of the machine's farthest memory level; name the caches "
            f"after the machine's nearer levels ({', '.join(workload.machine.level_names[:-1]) or 'none'})"
        )
    served[memory] = lines[-1] * missed_lines(last)
    tensor = t.tensor if last.feed is None else t.tensor[last.feed]
    per_tensor = np.bincount(tensor, weights=last.miss, minlength=n) * scale * lines[-1]
    return served, {name: float(per_tensor[k]) for k, name in enumerate(t.tensors)}, results


def predicted_level_bytes(
    workload: Workload,
    phase: str,
    caches: Sequence[Cache] | Mapping[str, Cache],
    *,
    local_sizes: Mapping[str, int] | None = None,
    layouts: Mapping[str, Layout] | None = None,
    loop_order: Sequence[str] | str | None = None,
    mode: str = "exact",
) -> dict[str, float]:
    """The bytes each level of a cache hierarchy serves for ``phase`` (docs/memory-hierarchy.md#a-cache-hierarchy-in-the-local-view), as
    ``{level: bytes}`` for every cache level and for the workload's machine's farthest level: the
    first cache serves every access's bytes; each level below it, its line × the misses of the level
    above; memory, the last cache's line × its misses. The cache levels are named as in
    ``simulate`` (a dict's keys, else L1, L2, …); ``mode`` as in ``predicted_traffic``.

    >>> from campaign_widget import Machine, Workload
    >>> m = Machine(1e9, levels={"L1": 4e9, "L2": 2e9, "DRAM": 1e9})
    >>> w = Workload.from_einsums({"gemm": "C[i,j] = A[i,k] * B[k,j]"}, {"i": 16, "j": 16, "k": 16},
    ...                           machine=m, element_bytes=8)
    >>> predicted_level_bytes(w, "gemm", [Cache(lines=8, ways=2), Cache(lines=512)])
    {'L1': 98304.0, 'L2': 404992.0, 'DRAM': 6144.0}
    """
    served, _, _ = _level_served(workload, phase, caches, _Simulated(local_sizes, layouts, loop_order, mode))
    return served


def predicted_traffic(
    workload: Workload,
    phase: str,
    cache: Cache,
    *,
    local_sizes: Mapping[str, int] | None = None,
    layouts: Mapping[str, Layout] | None = None,
    loop_order: Sequence[str] | str | None = None,
    mode: str = "exact",
    write_back: bool = False,
) -> dict[str, float]:
    """Predicted bytes per tensor of one phase (docs/data-movement.md#back-to-the-workload): line × misses, plus line × dirty lines
    written back when ``write_back``. ``mode="exact"`` simulates the phase's Einsum at the workload's
    own sizes (at most ``MAX_ACCESSES`` accesses); ``mode="ratio"`` simulates at ``local_sizes`` (the
    other indices keep their full size) and scales each tensor's miss ratio to its accesses at full size.
    The phase must come from ``Workload.from_einsums``.

    >>> from campaign_widget import Machine, Workload
    >>> w = Workload.from_einsums({"gemm": "C[i,j] = A[i,k] * B[k,j]"}, {"i": 16, "j": 16, "k": 16},
    ...                           machine=Machine(peak_compute=1e9, peak_bandwidth=1e9), element_bytes=8)
    >>> predicted_traffic(w, "gemm", Cache(lines=512))     # everything fits: each line once
    {'A': 2048.0, 'B': 2048.0, 'C': 2048.0}
    """
    reads, writes, _ = _predicted(
        workload, phase, cache, _Simulated(local_sizes, layouts, loop_order, mode), write_back
    )
    return {**reads, **writes}


def with_predicted_traffic(
    workload: Workload,
    phase: str,
    cache: Cache,
    *,
    local_sizes: Mapping[str, int] | None = None,
    layouts: Mapping[str, Layout] | None = None,
    loop_order: Sequence[str] | str | None = None,
    mode: str = "exact",
    write_back: bool = False,
) -> Workload:
    """A new workload whose ``phase`` moves the predicted bytes (``predicted_traffic``) in place of its
    logical ones; ops, the other phases, the machine and settings are unchanged (``table()`` marks the
    phase ``bytes_source = "predicted"``). ``workload.predicted[phase]`` keeps {"bytes", "tensors",
    "reads", "writes", "cache", "mode", "loop_order", "misses", "write_back"}; phases predicted before
    keep their prediction.

    ``cache`` may be a hierarchy (a list or dict of Caches, as ``simulate`` takes, named after the
    machine's nearer memory levels): the phase then moves ``predicted_level_bytes`` at every level it
    names and at the machine's farthest level, and ``predicted[phase]["level_bytes"]`` keeps them."""
    how = _Simulated(local_sizes, layouts, loop_order, mode)
    if not isinstance(cache, Cache) and isinstance(cache, (Sequence, Mapping)) and not isinstance(cache, str):
        return _with_predicted_levels(workload, phase, cache, how, write_back)
    reads, writes, result = _predicted(workload, phase, cache, how, write_back)
    prediction = {
        "bytes": float(sum(reads.values()) + sum(writes.values())),
        "tensors": {**reads, **writes},
        "reads": reads,
        "writes": writes,
        "cache": cache,
        "mode": mode,
        "loop_order": result.trace.loop_order,
        "misses": result.misses,
        "write_back": bool(write_back),
    }
    return workload.with_prediction(phase, prediction)


def _with_predicted_levels(workload, phase, caches, how: _Simulated, write_back: bool):
    if write_back:
        raise CacheModelError(
            "write_back=True: write-backs are modelled for one cache only; pass one Cache, or leave write_back out"
        )
    nearer = workload.machine.level_names[:-1]
    named = levels_of(caches)
    unknown = [name for name, _ in named if name not in nearer]
    if unknown:
        raise CacheModelError(
            f"cache level {unknown[0]!r} is not one of the machine's nearer memory levels "
            f"({', '.join(nearer) or 'it has one level: give Machine(levels={...})'}); name the caches after them"
        )
    served, tensors, results = _level_served(workload, phase, dict(named), how)
    memory = workload.machine.level_names[-1]
    prediction = {
        "bytes": served[memory],
        "level_bytes": {name: value for name, value in served.items() if name != memory},
        "tensors": tensors,
        "reads": {},
        "writes": {},
        "cache": dict(named),
        "mode": how.mode,
        "loop_order": results[0].trace.loop_order,
        "misses": {result.level: result.misses for result in results},
        "write_back": False,
    }
    return workload.with_prediction(phase, prediction)
