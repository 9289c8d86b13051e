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
import numbers
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import WorkloadError, WrongTypeError, short_repr
from .phase import LARGEST, Phase, check_name

# a tensor starts where a name starts (no match is tried inside a name) and its indices hold no
# brackets; possessive quantifiers: matching is linear in the text (no backtracking)
_TENSOR = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*+)\s*+\[([^\[\]]*+)\]")
MAX_EINSUM = 10_000  # characters in one Einsum
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
    if isinstance(spec, str) and len(spec) > MAX_EINSUM:
        raise WorkloadError(f"Einsum {short_repr(name)}: {len(spec):,} characters; the limit is {MAX_EINSUM:,}")
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"einsum", "inputs", "output", "ops_per_point"}
        if unknown:
            raise WorkloadError(f"Einsum {short_repr(name)}: unknown keys {short_repr(sorted(map(str, unknown)))}")
        if "einsum" not in spec:
            raise WorkloadError(
                f"Einsum {short_repr(name)}: the dict {short_repr(dict(spec))} has no 'einsum' key; give "
                "{'einsum': 'Z[m,n] = A[m,k] * B[k,n]'} or {'einsum': 'mk,kn->mn', 'inputs': [...], 'output': 'Z'}"
            )
        if ("inputs" in spec) != ("output" in spec):
            raise WorkloadError(f"Einsum {short_repr(name)}: give 'inputs' and 'output' together, or neither")
        ops_per_point = _checked_ops_per_point(name, spec.get("ops_per_point"))
        spec = (spec["einsum"], spec["inputs"], spec["output"]) if "inputs" in spec else spec["einsum"]
        if isinstance(spec, str) and len(spec) > MAX_EINSUM:
            raise WorkloadError(f"Einsum {short_repr(name)}: {len(spec):,} characters; the limit is {MAX_EINSUM:,}")
    if isinstance(spec, str) and "=" in spec:
        return _parse_brackets(name, spec, ops_per_point)
    if isinstance(spec, (tuple, list)) and len(spec) == 3:
        return _parse_numpy(name, *spec, ops_per_point=ops_per_point)
    raise WorkloadError(
        f"Einsum {short_repr(name)}: {short_repr(spec)} is neither 'Z[m,n] = A[m,k] * B[k,n]' nor "
        "('mk,kn->mn', [inputs], output)"
    )


def _checked_ops_per_point(name, value):
    """None, or a finite number >= 0 (a bool is not a count of operations)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) <= LARGEST:
        raise WorkloadError(
            f"Einsum {short_repr(name)}: ops_per_point={short_repr(value)} must be a number from 0 to {LARGEST:g}"
        )
    return value


def _indices(name, tensor, text) -> tuple[str, ...]:
    out = []
    for part in (p.strip() for p in text.split(",")) if text.strip() else ():
        found = _INDEX_NAME.search(part)
        if not found:
            raise WorkloadError(
                f"Einsum {short_repr(name)}: tensor {short_repr(tensor)} has an index {short_repr(part)} with no name"
            )
        out.append(found.group(0))
    return tuple(out)


def _exprs(text) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(",")) if text.strip() else ()


def _parse_brackets(name, text, ops_per_point) -> Einsum:
    left, _, right = text.partition("=")
    out = _TENSOR.fullmatch(left.strip())
    if not out:
        raise WorkloadError(
            f"Einsum {short_repr(name)}: the left side {short_repr(left.strip())} is not one tensor like Z[m,n]"
        )
    output, output_idx = out.group(1), _indices(name, out.group(1), out.group(2))
    inputs = [(t, _indices(name, t, idx)) for t, idx in _TENSOR.findall(right) if t != output]
    if not inputs and not _TENSOR.search(right):
        raise WorkloadError(
            f"Einsum {short_repr(name)}: the right side {short_repr(right.strip())} names no tensor like A[m,k]"
        )
    return Einsum(
        name,
        output,
        output_idx,
        tuple(inputs),
        ops_per_point,
        tuple((t, _exprs(idx)) for t, idx in _TENSOR.findall(right)),
        _exprs(out.group(2)),
    )


def _parse_numpy(name, subscripts, inputs, output, ops_per_point=None) -> Einsum:
    if not isinstance(subscripts, str) or subscripts.count("->") != 1 or len(subscripts) > MAX_EINSUM:
        raise WorkloadError(f"Einsum {short_repr(name)}: {short_repr(subscripts)} is not numpy-style like 'mk,kn->mn'")
    lhs, rhs = subscripts.replace(" ", "").split("->")
    terms = lhs.split(",")
    odd = next((c for c in lhs.replace(",", "") + rhs if not c.isalpha()), None)
    if odd is not None:
        raise WorkloadError(
            f"Einsum {short_repr(name)}: {short_repr(subscripts)} has {odd!r} among its subscripts; each index is a letter"
        )
    if isinstance(inputs, str):
        inputs = [inputs]
    if not isinstance(inputs, (list, tuple)):
        raise WorkloadError(f"Einsum {short_repr(name)}: inputs={short_repr(inputs)} must be a list of tensor names")
    for tensor in (*inputs, output):
        if not isinstance(tensor, str) or not tensor:
            raise WorkloadError(f"Einsum {short_repr(name)}: the tensor name {short_repr(tensor)} must be a string")
        check_name(f"Einsum {short_repr(name)}: tensor name", tensor)
    if len(terms) != len(inputs):
        raise WorkloadError(
            f"Einsum {short_repr(name)}: {short_repr(subscripts)} has {len(terms)} input subscripts but "
            f"{len(inputs)} input tensors {short_repr(list(inputs))}"
        )
    return Einsum(
        name, str(output), tuple(rhs), tuple((str(t), tuple(s)) for t, s in zip(inputs, terms)), ops_per_point
    )


def parse_all(einsums) -> list[Einsum]:
    """Einsums given as ``{name: spec}`` or ``[(name, spec), …]``, parsed."""
    if isinstance(einsums, Mapping):
        items = list(einsums.items())
    elif isinstance(einsums, (list, tuple)):
        items = list(einsums)
    else:
        raise WrongTypeError(f"einsums={einsums!r:.60} must be {{name: spec}} or [(name, spec), ...]")
    out = []
    for item in items:
        if isinstance(item, Einsum):
            out.append(item)
            continue
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise WrongTypeError(f"Einsum entry {item!r:.60} must be a (name, spec) pair")
        name, spec = item
        if not isinstance(name, str) or not name:
            raise WrongTypeError(f"Einsum name {short_repr(name)} must be a non-empty string")
        check_name("Einsum name", name)
        out.append(parse(name, spec))
    return out


def einsum_phases(
    einsums, sizes: Mapping[str, int | str], *, element_bytes: int | Mapping[str, int] = 4, mac_ops: float = 2
) -> list[Phase]:
    """Phases (ops, tensors read and written) of Einsums given as ``{name: spec}``, ``[(name, spec), …]``
    or parsed ``Einsum`` objects. Dependencies follow from tensor names.

    Sizes are whole numbers or expressions in parameters (``"B*S"``); with expressions, the phases'
    volumes are expressions too, evaluated by the ``Workload`` with its ``params``.
    """
    parsed = (
        einsums if isinstance(einsums, list) and all(isinstance(e, Einsum) for e in einsums) else parse_all(einsums)
    )
    _check_element_bytes(element_bytes)
    if not isinstance(sizes, Mapping):
        raise WrongTypeError(f"sizes={short_repr(sizes)} must map index names to sizes, e.g. {{'m': 1024}}")
    for index, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, (numbers.Integral, str)):
            raise WrongTypeError(
                f"size {short_repr(index)}={short_repr(value)} must be a whole number or an expression such as 'B*S'"
            )
        if not isinstance(value, str) and not 1 <= value <= LARGEST:
            raise WorkloadError(f"size {short_repr(index)}={short_repr(value)} must be from 1 to {LARGEST:g}")
    if isinstance(mac_ops, bool) or not isinstance(mac_ops, numbers.Real) or not mac_ops > 0:
        raise WrongTypeError(f"mac_ops={mac_ops!r:.60} must be a number > 0")
    shapes: dict[str, tuple[tuple[str, ...], str]] = {}
    phases = []
    for e in parsed:
        for tensor, idx in (*e.inputs, (e.output, e.output_indices)):
            seen = shapes.get(tensor)
            if seen and len(seen[0]) != len(idx):
                raise WorkloadError(
                    f"Einsum {short_repr(e.name)}: tensor {short_repr(tensor)} has indices {list(idx)} here but "
                    f"{list(seen[0])} in Einsum {seen[1]!r}"
                )
            shapes.setdefault(tensor, (idx, e.name))
        for index in e.indices:
            if index not in sizes:
                raise WorkloadError(f"Einsum {short_repr(e.name)}: index {index!r} has no size; give it in sizes=")
        products = max(0, len(e.inputs) - 1)
        if _checked_ops_per_point(e.name, e.ops_per_point) is not None:
            per_point = float(e.ops_per_point)
        elif e.reduced and products:
            per_point = products - 1 + mac_ops
        else:
            per_point = max(1, products + (1 if e.reduced else 0))
        phases.append(
            Phase(
                e.name,
                ops=_product([sizes[i] for i in e.indices], per_point, f"Einsum {short_repr(e.name)}: ops"),
                reads={t: _tensor_bytes(e.name, t, idx, sizes, element_bytes) for t, idx in e.inputs},
                writes={e.output: _tensor_bytes(e.name, e.output, e.output_indices, sizes, element_bytes)},
            )
        )
    return phases


def _check_element_bytes(element_bytes) -> None:
    values = element_bytes.values() if isinstance(element_bytes, Mapping) else [element_bytes]
    for value in values:
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value <= LARGEST:
            raise WrongTypeError(
                f"element_bytes={short_repr(element_bytes)} must be a number from 0 to {LARGEST:g} "
                "(or tensor name → number)"
            )


def _product(factors, scale, what: str):
    """``scale × Π factors``: a number when every factor is one (at most LARGEST, or an error naming
    ``what``, before any float can overflow), else an expression."""
    if all(not isinstance(f, str) for f in factors):
        count = math.prod(int(f) for f in factors)
        too_many = scale > 0 and (count > LARGEST or count * float(scale) > LARGEST)  # float() never overflows
        if too_many:
            digits = int(count.bit_length() * math.log10(2))
            raise WorkloadError(
                f"{what} is over {LARGEST:g} (about 10^{digits} points × {float(scale):g}): give smaller sizes"
            )
        return float(count * scale)
    return "*".join(f"({f})" for f in factors) + f"*{scale!r}" if factors else repr(float(scale))


def _tensor_bytes(einsum, tensor, idx, sizes, element_bytes):
    width = (
        element_bytes.get(tensor, element_bytes.get("*", 4)) if isinstance(element_bytes, Mapping) else element_bytes
    )
    return _product([sizes[i] for i in idx], width, f"Einsum {short_repr(einsum)}: tensor {short_repr(tensor)}'s bytes")
