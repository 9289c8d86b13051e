"""Workloads from Einsums: ops are the work of each Einsum, bytes the tensors it moves once.

Two spellings of one Einsum:

- ``"Z[m,n] = A[m,k] * B[k,n]"``: every ``NAME[indices]`` on the right is an input; functions and
  operators around them (``exp(...)``, ``+``) are ignored for counting. An index may be an
  expression such as ``l-1`` (its first name gives the dimension). An input with the output's name
  (a recurrence, ``H[b,l-1,e,n]``) is the same tensor and is not counted twice.
- numpy style ``("mk,kn->mn", ["A", "B"], "Z")``.

Ops of an Einsum = size of its iteration space (every index, once) × ops per point. By default a
point costs one op per multiplication between inputs, plus one for the add when indices are
reduced: a multiply-add counts 2 (``mac_ops=1`` counts it as 1); an Einsum of one input costs
1 per point. Give ``ops_per_point`` (per Einsum) to say otherwise, e.g. for ``exp``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Mapping

from .errors import WorkloadError
from .phase import Phase

_TENSOR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\[([^\]]*)\]")
_INDEX_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Einsum:
    name: str
    output: str
    output_indices: tuple[str, ...]
    inputs: tuple[tuple[str, tuple[str, ...]], ...]
    ops_per_point: float | None = None
    # The index expressions as written (``"l-1"``), for traces (campaign_widget.cache): every tensor on
    # the right in order, reads of the output included, and the output's. Empty: use the names above.
    input_exprs: tuple[tuple[str, tuple[str, ...]], ...] = ()
    output_exprs: tuple[str, ...] = ()

    @property
    def indices(self) -> tuple[str, ...]:
        seen = dict.fromkeys(self.output_indices)
        for _, idx in self.inputs:
            seen.update(dict.fromkeys(idx))
        return tuple(seen)

    @property
    def reduced(self) -> tuple[str, ...]:
        return tuple(i for i in self.indices if i not in self.output_indices)


def parse(name: str, spec) -> Einsum:
    """One Einsum from ``"Z[m,n] = A[m,k] * B[k,n]"`` or ``("mk,kn->mn", inputs, output)``, or a
    dict with ``einsum`` (either spelling), optional ``inputs``/``output``/``ops_per_point``."""
    ops_per_point = None
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"einsum", "inputs", "output", "ops_per_point"}
        if unknown:
            raise WorkloadError(f"Einsum {name!r}: unknown keys {sorted(unknown)}")
        ops_per_point = spec.get("ops_per_point")
        spec = (spec["einsum"], spec["inputs"], spec["output"]) if "inputs" in spec else spec["einsum"]
    if isinstance(spec, str) and "=" in spec:
        return _parse_brackets(name, spec, ops_per_point)
    if isinstance(spec, (tuple, list)) and len(spec) == 3:
        return _parse_numpy(name, *spec, ops_per_point=ops_per_point)
    raise WorkloadError(f"Einsum {name!r}: {spec!r} is neither 'Z[m,n] = A[m,k] * B[k,n]' nor "
                        "('mk,kn->mn', [inputs], output)")


def _indices(name, tensor, text) -> tuple[str, ...]:
    out = []
    for part in (p.strip() for p in text.split(",")) if text.strip() else ():
        found = _INDEX_NAME.search(part)
        if not found:
            raise WorkloadError(f"Einsum {name!r}: tensor {tensor!r} has an index {part!r} with no name")
        out.append(found.group(0))
    return tuple(out)


def _exprs(text) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(",")) if text.strip() else ()


def _parse_brackets(name, text, ops_per_point) -> Einsum:
    left, _, right = text.partition("=")
    out = _TENSOR.fullmatch(left.strip())
    if not out:
        raise WorkloadError(f"Einsum {name!r}: the left side {left.strip()!r} is not one tensor like Z[m,n]")
    output, output_idx = out.group(1), _indices(name, out.group(1), out.group(2))
    inputs = [(t, _indices(name, t, idx)) for t, idx in _TENSOR.findall(right) if t != output]
    if not inputs and not _TENSOR.search(right):
        raise WorkloadError(f"Einsum {name!r}: the right side {right.strip()!r} names no tensor like A[m,k]")
    return Einsum(name, output, output_idx, tuple(inputs), ops_per_point,
                  tuple((t, _exprs(idx)) for t, idx in _TENSOR.findall(right)), _exprs(out.group(2)))


def _parse_numpy(name, subscripts, inputs, output, ops_per_point=None) -> Einsum:
    if not isinstance(subscripts, str) or "->" not in subscripts:
        raise WorkloadError(f"Einsum {name!r}: {subscripts!r} is not numpy-style like 'mk,kn->mn'")
    lhs, rhs = subscripts.replace(" ", "").split("->")
    terms = lhs.split(",")
    if isinstance(inputs, str):
        inputs = [inputs]
    if len(terms) != len(inputs):
        raise WorkloadError(f"Einsum {name!r}: {subscripts!r} has {len(terms)} input subscripts but "
                            f"{len(inputs)} input tensors {list(inputs)}")
    return Einsum(name, str(output), tuple(rhs), tuple((str(t), tuple(s)) for t, s in zip(inputs, terms)),
                  ops_per_point)


def einsum_phases(einsums, sizes: Mapping[str, int], *, element_bytes: int | Mapping[str, int] = 4,
                  mac_ops: float = 2) -> list[Phase]:
    """Phases (ops, tensors read and written) of Einsums given as ``{name: spec}`` or
    ``[(name, spec), …]``. Dependencies follow from tensor names."""
    items = list(einsums.items()) if isinstance(einsums, Mapping) else list(einsums)
    parsed = [parse(str(name), spec) for name, spec in items]
    shapes: dict[str, tuple[tuple[str, ...], str]] = {}
    phases = []
    for e in parsed:
        for tensor, idx in (*e.inputs, (e.output, e.output_indices)):
            seen = shapes.get(tensor)
            if seen and len(seen[0]) != len(idx):
                raise WorkloadError(f"Einsum {e.name!r}: tensor {tensor!r} has indices {list(idx)} here but "
                                    f"{list(seen[0])} in Einsum {seen[1]!r}")
            shapes.setdefault(tensor, (idx, e.name))
        for index in e.indices:
            if index not in sizes:
                raise WorkloadError(f"Einsum {e.name!r}: index {index!r} has no size; give it in sizes=")
        points = math.prod(int(sizes[i]) for i in e.indices)
        products = max(0, len(e.inputs) - 1)
        if e.ops_per_point is not None:
            per_point = float(e.ops_per_point)
        elif e.reduced and products:
            per_point = products - 1 + mac_ops
        else:
            per_point = max(1, products + (1 if e.reduced else 0))
        phases.append(Phase(
            e.name, ops=points * per_point,
            reads={t: _tensor_bytes(t, idx, sizes, element_bytes) for t, idx in e.inputs},
            writes={e.output: _tensor_bytes(e.output, e.output_indices, sizes, element_bytes)}))
    return phases


def _tensor_bytes(tensor, idx, sizes, element_bytes) -> float:
    width = element_bytes.get(tensor, element_bytes.get("*", 4)) if isinstance(element_bytes, Mapping) \
        else element_bytes
    return float(math.prod(int(sizes[i]) for i in idx) * width)
