"""An SDFG file to an :class:`SDFGProgram`: its phases with every number still an expression."""

from __future__ import annotations

from pathlib import Path

from ...errors import WorkloadFileError, WrongTypeError, short_repr
from ...model.expr import parse
from .._common import error
from ._doc import Doc, dig, join
from ._expressions import parses, substitute
from ._file import read_document
from ._model import SDFGProgram
from ._walker import Walker


def extract_sdfg(path, *, element_bytes=None) -> SDFGProgram:
    """The phases of an SDFG file with every number still an expression in the SDFG's symbols.

    ``path`` is a file path or a ``campaign_widget.io.Source``. ``element_bytes``: an int for every
    container, or ``{container: bytes}`` (others from their ``dtype``). Raises ``WorkloadFileError``
    on a file that is not a readable SDFG.
    """
    name = path.name if hasattr(path, "raw") else str(path)
    element_bytes = checked_element_bytes(name, element_bytes)
    name, document = read_document(path)
    version = document.get("dace_version")
    doc = Doc(name, version)
    walker = Walker(doc, element_bytes)
    attrs = doc.get(document, "attributes", dict, "")
    symbols = _free_symbols(doc, document, attrs)
    try:
        walk = walker.sdfg(document, "")
    except RecursionError:
        raise error(name, "the SDFG is nested too deeply") from None
    except WorkloadFileError:
        raise
    except (AttributeError, TypeError, KeyError, IndexError, ValueError) as e:  # a layout not checked field by field
        raise error(name, f"malformed SDFG ({type(e).__name__}: {str(e)[:200]})") from None
    program_name = attrs.get("name") if isinstance(attrs.get("name"), str) else Path(name).stem
    _substitute_assignments(walk.phases, walk.assignments)
    symbols = {str(k): str(v) for k, v in symbols.items() if k not in walk.assigned}
    for (
        key,
        desc,
    ) in walk.arrays.items():  # scalar arguments size loops too (kfdia in ``for jl in range(kidia, kfdia)``)
        if isinstance(desc, dict) and desc.get("type") == "Scalar" and not dig(desc, "attributes").get("transient"):
            symbols.setdefault(str(key), str(dig(desc, "attributes").get("dtype") or "Scalar"))
    return SDFGProgram(
        path=name,
        name=program_name,
        dace_version=version,
        symbols=symbols,
        constants=_constants(doc, attrs),
        phases=walk.phases,
        tensors=walk.tensors,
        issues=walker.issues,
        bounds=walker.bounds,
        branches=walker.branches,
    )


def given_params(program: SDFGProgram, params) -> dict:
    """``params=`` as a dict, every key a symbol of the program (else an error listing its symbols)."""
    if params is not None and not isinstance(params, dict):
        raise WrongTypeError(f"params={short_repr(params)} must map the SDFG's symbols to whole numbers")
    params = dict(params or {})
    unknown = sorted(str(k) for k in set(params) - set(program.symbols))
    if unknown:
        raise error(
            program.path,
            f"params {unknown} are not symbols of this SDFG; its symbols: {sorted(program.symbols)}",
            field="params",
        )
    return params


def params_hint(names) -> str:
    """How a Python caller gives values: ``params={'M': ..., 'N': ...}``."""
    return "params={" + ", ".join(f"{k!r}: ..." for k in names) + "}"


def _substitute_assignments(phases: list, assignments: dict) -> None:
    """Names the control flow sets once, to an expression (``kfdia_plus_1 = kfdia + 1``), replaced by it."""
    mapping = {}
    for key, values in assignments.items():
        (value,) = values if len(values) == 1 else (None,)
        if value is not None and parses(value) and key not in parse(value).names:
            mapping[key] = value
    for _ in range(4):  # names set from names set before
        mapping = {k: substitute(v, mapping) for k, v in mapping.items()}
    if not mapping:
        return
    keys = set(mapping)

    def swap(terms):
        out = []
        for t, w in terms:
            if not isinstance(t, str):  # a NestedSum
                out.append((t.substituted(mapping) if t.names & keys else t, w))
            else:
                out.append((substitute(t, mapping) if parses(t) and parse(t).names & keys else t, w))
        return out

    for p in phases:
        p.ops = swap(p.ops)
        p.reads = {k: swap(v) for k, v in p.reads.items()}
        p.writes = {k: swap(v) for k, v in p.writes.items()}


def _free_symbols(doc: Doc, document: dict, attrs: dict) -> dict:
    """{symbol: type name}: ``attributes.symbols``, and where the 2019 serializer kept them instead,
    ``undefined_symbols`` and ``scalar_parameters`` (lists of ``[name, type]``, beside ``attributes``
    or in it)."""
    symbols = dict(doc.get(attrs, "symbols", dict, "attributes", default={}))
    for holder, where in ((document, ""), (attrs, "attributes")):
        for key in ("undefined_symbols", "scalar_parameters"):
            listed = holder.get(key)
            items = listed.items() if isinstance(listed, dict) else listed if isinstance(listed, list) else []
            for k, item in enumerate(items):
                pair = item if isinstance(item, (list, tuple)) and len(item) == 2 else (item, None)
                if not isinstance(pair[0], str):
                    raise doc.fail(join(join(where, key), k), f"{short_repr(item)} names no symbol")
                kind = pair[1]
                name = kind if isinstance(kind, str) else str(dig(kind, "attributes").get("dtype") or "symbol")
                symbols.setdefault(pair[0], name)
    return symbols


def _constants(doc: Doc, attrs: dict) -> dict:
    constants = {}
    for key, value in (doc.get(attrs, "constants_prop", dict, "attributes", default={}) or {}).items():
        number = value[1] if isinstance(value, list) and len(value) == 2 else value
        if isinstance(number, (int, float)) and not isinstance(number, bool):
            constants[str(key)] = number
    return constants


def checked_element_bytes(name: str, element_bytes):
    if element_bytes is None:
        return None
    if isinstance(element_bytes, dict):
        for key, value in element_bytes.items():
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise error(
                    name,
                    f"element_bytes[{key!r}]={value!r} must be a positive whole number of bytes",
                    field="element_bytes",
                )
        return dict(element_bytes)
    if not isinstance(element_bytes, int) or isinstance(element_bytes, bool) or element_bytes <= 0:
        raise error(
            name,
            f"element_bytes={element_bytes!r} must be a positive whole number of bytes or a mapping {{container: bytes}}",
            field="element_bytes",
        )
    return element_bytes
