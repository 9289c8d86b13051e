"""``LocalView``'s inputs as the view takes them: the Einsum of a phase, and a tensor's layout as the
view edits it; errors name the phase, the tensor, the field and the value."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import traitlets as t

from ..cache import Layout
from ..errors import WorkloadError, short_repr
from ..model.einsum import Einsum

if TYPE_CHECKING:
    from ..model.workload import Workload

_LAYOUT_FIELDS = ("order", "pad", "offset", "byte_offset", "strides")


def einsum_of(
    workload: Workload | None, phase: str | Einsum | Sequence[Any]
) -> tuple[Einsum | str | Sequence[Any], int | Mapping[str, int] | None]:
    """The Einsum of ``phase`` and its element bytes (None: not known): given directly, or the phase of
    that name of a workload built by ``Workload.from_einsums`` (``workload.einsums``, ``.element_bytes``)."""
    if isinstance(phase, Einsum) or (isinstance(phase, str) and "=" in phase) or isinstance(phase, (tuple, list)):
        return phase, None
    if isinstance(phase, str) and workload is not None:
        names = list(getattr(workload, "names", []))
        if phase not in names:
            raise WorkloadError(f"LocalView: phase {short_repr(phase)} is not in the workload; its phases: {names}")
        einsums = getattr(workload, "einsums", None) or {}  # Workload.from_einsums keeps them
        if phase not in einsums:
            raise WorkloadError(
                f"LocalView: phase {short_repr(phase)} carries no Einsum (build the workload with "
                "Workload.from_einsums, or pass the Einsum itself, e.g. "
                "LocalView(None, 'C[i,j] = A[i,k] * B[k,j]', sizes))"
            )
        return einsums[phase], getattr(workload, "element_bytes", None)
    raise WorkloadError(
        f"LocalView: phase={short_repr(phase)} is neither an Einsum nor the name of a phase of the workload"
    )


def layout_dict(name: str, value: Layout | Mapping[str, Any], ndim: int) -> dict:
    """A tensor's layout as the view edits it: {order, pad, offset, byte_offset[, strides]}; errors
    name the tensor, the field and the value. ``order``: "C", "F", or the dimensions from outermost
    to innermost in memory, e.g. "2,0,1" (seed 001's hdiff: in_field[I,J,K] stored as [K,I,J])."""
    if isinstance(value, Layout):
        out = {"order": value.order, "pad": 0, "offset": value.offset, "byte_offset": value.byte_offset}
        if value.strides is not None:
            out["strides"] = list(value.strides)
        return out
    if not isinstance(value, Mapping):
        raise t.TraitError(
            f"layouts[{short_repr(name)}]={value!r} must be a Layout or a dict of {list(_LAYOUT_FIELDS)}"
        )
    unknown = [k for k in value if k not in _LAYOUT_FIELDS]
    if unknown:
        raise t.TraitError(f"layouts[{short_repr(name)}] has unknown fields {unknown}; known: {list(_LAYOUT_FIELDS)}")
    out = {"order": value.get("order", "C")}
    if out["order"] not in ("C", "F"):
        perm = permutation(out["order"])
        if perm is None or sorted(perm) != list(range(ndim)):
            raise t.TraitError(
                f"layouts[{short_repr(name)}].order={out['order']!r} must be 'C', 'F' or an order of the "
                f"dimensions 0…{ndim - 1}, outermost first, e.g. {','.join(map(str, range(ndim)[::-1]))!r}"
            )
        out["order"] = ",".join(map(str, perm))
    for key in ("pad", "offset", "byte_offset"):
        v = value.get(key, 0)
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise t.TraitError(f"layouts[{short_repr(name)}].{key}={v!r} must be a whole number >= 0")
        out[key] = int(v)
    if value.get("strides") is not None:
        strides = value["strides"]
        if not isinstance(strides, (list, tuple)) or not all(isinstance(s, int) and s >= 1 for s in strides):
            raise t.TraitError(f"layouts[{short_repr(name)}].strides={strides!r} must be a list of whole numbers >= 1")
        if out["pad"]:
            raise t.TraitError(f"layouts[{short_repr(name)}]: give strides or pad={out['pad']}, not both")
        out["strides"] = list(strides)
    return out


def permutation(text: object) -> list[int] | None:
    try:
        return [int(p) for p in str(text).replace(" ", "").split(",") if p != ""]
    except ValueError:
        return None
