"""``Workload.from_dace``: a ``@dace.program``, a ``dace.SDFG`` or its JSON document → the SDFG reader's workload.

A program is parsed into its SDFG by DaCe (``program.to_sdfg()``: nothing is compiled or run); the SDFG is
serialized as ``sdfg.save`` writes it and read by the same reader as a ``.sdfg`` file
(``campaign_widget.io.read_sdfg``: phases, memlet volumes, symbols as parameters), without a file. An
SDFG's JSON document (``sdfg.to_json()``) is read without importing DaCe at all. See
docs/from-code.md#dace.
"""

from __future__ import annotations

import json

from ..._optional import require
from ...errors import WorkloadError, WrongTypeError, short_repr
from ...model.workload import Workload
from ..sdfg import read_sdfg
from ..source import Source


def from_dace(program_or_sdfg, params=None, *, machine=None, element_bytes=None) -> Workload:
    """The workload of a DaCe program or SDFG (see the module docstring)."""
    if isinstance(program_or_sdfg, dict):
        name, text, origin = _document_name(program_or_sdfg), _json(program_or_sdfg), "an SDFG's JSON document"
    else:
        dace = require("dace", "Workload.from_dace", "dace")
        sdfg, origin = _sdfg(dace, program_or_sdfg)
        name, text = sdfg.name, dace.serialize.dumps(sdfg.to_json())
    source = Source(f"from_dace({name})", raw=text.encode("utf-8"))
    workload = read_sdfg(source, machine=machine, params=params, element_bytes=element_bytes)
    report = workload.import_report
    report.notes.append(f"{origin}, read in memory by the SDFG reader as a .sdfg file would be")
    report.notes.append(
        "fused by: DaCe, as the SDFG stands: each top-level map, library node or copy is a phase "
        "(transform it first, e.g. sdfg.apply_transformations_repeated(MapFusion), for DaCe's fusion)"
    )
    return workload


def _sdfg(dace, program_or_sdfg):
    """(the SDFG, where it came from) of a program or an SDFG."""
    if isinstance(program_or_sdfg, dace.SDFG):
        return program_or_sdfg, f"the SDFG {program_or_sdfg.name!r}"
    to_sdfg = getattr(program_or_sdfg, "to_sdfg", None)
    if not callable(to_sdfg):
        raise WrongTypeError(
            f"from_dace takes a @dace.program, a dace.SDFG or an SDFG's JSON document (a dict), "
            f"got {short_repr(program_or_sdfg)}"
        )
    function = getattr(program_or_sdfg, "f", None)  # a DaceProgram's Python function: the name the user wrote
    label = getattr(function, "__name__", None) or getattr(program_or_sdfg, "name", None) or "program"
    try:
        sdfg = to_sdfg()
    except Exception as e:  # noqa: BLE001 - DaCe's parser failed: said as ours, with its reason
        lines = [line for line in str(e).splitlines() if line.strip()]
        raise WorkloadError(
            f"from_dace: DaCe could not parse the program {label!r} into an SDFG: {type(e).__name__}: "
            f"{(lines[0] if lines else '')[:300]}"
        ) from e
    return sdfg, f"the @dace.program {label!r} (dace {getattr(dace, '__version__', '?')})"


def _document_name(document: dict) -> str:
    attributes = document.get("attributes")
    name = attributes.get("name") if isinstance(attributes, dict) else None
    return name if isinstance(name, str) and name else "sdfg"


def _json(document: dict) -> str:
    try:
        return json.dumps(document)
    except (TypeError, ValueError) as e:
        raise WrongTypeError(f"the SDFG document is not JSON ({e}): pass sdfg.to_json() or the SDFG itself") from None
