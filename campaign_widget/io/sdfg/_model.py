"""What an SDFG holds once walked: phases and tensors with every number still an expression, and the
reasons a record is left out of the sums."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import WorkloadError
from ...model.expr import parse
from ._expressions import sum_terms

ELEMENT_BYTES = {
    "bool": 1,
    "bool_": 1,
    "int8": 1,
    "uint8": 1,
    "int16": 2,
    "uint16": 2,
    "int32": 4,
    "uint32": 4,
    "int64": 8,
    "uint64": 8,
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
    "float64": 8,
    "complex64": 8,
    "complex128": 16,
}

DEFAULT_DTYPE = "int32"  # what dace reads when a descriptor leaves dtype out (files written without defaults)


def dtype_of(desc) -> str | None:
    """A data descriptor's element type name (None for no descriptor, or a dtype that is not a name)."""
    if not isinstance(desc, dict):
        return None
    attrs = desc.get("attributes") if isinstance(desc.get("attributes"), dict) else {}
    dtype = attrs.get("dtype", DEFAULT_DTYPE)
    return dtype if isinstance(dtype, str) else None


@dataclass
class SDFGPhase:
    """One phase before evaluation: ``ops`` and each tensor's bytes as lists of expression terms.

    ``kind`` is ``"map"``, ``"consume"``, ``"tasklet"``, ``"library"``, ``"nested"``, ``"copy"`` or
    ``"node"``; ``state`` the label of its state; ``node`` where it is in the file.
    """

    name: str
    kind: str
    state: str
    node: str
    ops: list = field(default_factory=list)  # [(expression, where)]
    reads: dict = field(default_factory=dict)  # tensor -> [(expression, where)]
    writes: dict = field(default_factory=dict)
    after: list = field(default_factory=list)
    # a map: its parameters, ranges and the memlets crossing its entry and exit, as written (``map_accesses``)
    map: dict | None = None

    @staticmethod
    def expression(terms) -> str:
        """The terms as one expression (``"0"`` when there are none)."""
        return sum_terms([t if isinstance(t, str) else t.approximate() for t, _ in terms])


@dataclass
class SDFGProgram:
    """What :func:`extract_sdfg` finds in an SDFG file, with every number still an expression."""

    path: str
    name: str
    dace_version: str | None
    symbols: dict  # symbol -> DaCe type name (the top-level SDFG's, minus loop variables)
    constants: dict  # symbol -> number, from the SDFG's constants
    phases: list  # [SDFGPhase]
    tensors: dict  # tensor name -> container name
    issues: list  # [(reason, where)]: left out at extraction
    bounds: list = field(default_factory=list)  # dynamic memlets counted as their subset's size (an upper bound)
    branches: list = field(default_factory=list)  # conditional blocks whose every branch is counted

    @property
    def parameters(self) -> list[str]:
        """The symbols the phases' expressions use, sorted."""
        names = set()
        for p in self.phases:
            for terms in (p.ops, *p.reads.values(), *p.writes.values()):
                for text, _ in terms:
                    if not isinstance(text, str):  # a NestedSum
                        names |= text.names
                        continue
                    try:
                        names |= parse(text).names
                    except WorkloadError:
                        continue
        return sorted(n for n in names if n in self.symbols)
