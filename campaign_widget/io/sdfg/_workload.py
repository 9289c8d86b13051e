"""An :class:`SDFGProgram` to a ``Workload``: the symbols' values, the terms the evaluator understands, phases
with no work left out (those after them inherit their dependencies), and the import report."""

from __future__ import annotations

import numbers

from ...errors import ExpressionError, WorkloadError, short_repr
from ...model.expr import MAX_TEXT, parse
from ...model.import_report import ImportReport, PhaseReport
from ...model.machine import Machine
from ...model.phase import Phase
from ...model.workload import Workload
from .._common import check_percent, error, preset_or_machine
from ..source import Source
from ._expressions import sum_terms
from ._model import SDFGProgram
from ._nest import MAX_VISITS, NestedSum
from ._nest import total as nest_total
from ._program import extract_sdfg, given_params, params_hint
from ._reasons import NEGATIVE, NO_WORK, NOT_UNDERSTOOD, ZERO

FORMAT = "dace-sdfg"
SHOWN = 3  # examples named in a note


def read_sdfg(path, *, machine=None, params=None, element_bytes=None, percent: bool = False):
    """Read a DaCe SDFG (``.sdfg`` JSON or ``.sdfgz`` gzip) into a ``Workload`` (see the module docstring).

    The SDFG's symbols become the workload's parameters: its phases' ops and tensor bytes are
    expressions in them (``workload.params``; ``workload.with_params(M=128)`` re-evaluates).
    ``params``: their values (``{"M": 64, ...}``); symbols not given take the SDFG's constants; any
    left over is an error listing them. ``machine``: a ``Machine`` or a preset name (default: unit peaks, so durations
    are in op/byte units). ``element_bytes``: an int for every container or ``{container: bytes}``;
    default: each container's ``dtype``.

    The workload carries ``workload.import_report`` (an ``ImportReport``): per phase the ops and
    bytes expressions, and everything left out, by reason.
    """
    name = path.name if isinstance(path, Source) else str(path)
    check_percent(name, percent)
    machine = preset_or_machine(name, machine)
    program = extract_sdfg(path, element_bytes=element_bytes)
    values, value_source = parameter_values(program, params)
    report = ImportReport(path=name, format=FORMAT)
    for reason, where in program.issues:
        skip(report, reason, where)
    terms = _Terms(values, report)
    built = [_evaluated(p, terms) for p in program.phases]
    dropped = {b[0].name: b[0].after for b in built if b[1] is None and not b[2] and not b[3]}
    for gone in dropped:
        skip(report, NO_WORK, gone)
    after = _resolved_after(program.phases, dropped)
    phases, kept = [], []
    for item in built:
        p = item[0]
        if p.name in dropped:
            continue
        ops, reads, writes = item[1:4]
        try:
            phases.append(
                Phase(p.name, ops=ops if ops is not None else 0, reads=reads, writes=writes, after=after[p.name])
            )
        except (WorkloadError, TypeError) as e:
            raise error(name, str(e), field=p.node) from None
        kept.append(item)
    if not phases:
        raise error(
            name,
            "the SDFG has no phase that moves data or computes (states: "
            f"{len({p.state for p in program.phases})}, phases left out: {len(dropped)})",
        )
    if machine is None:
        machine = Machine.unit()
        report.machine_source = "unit peaks (pass machine= for durations in seconds)"
    _notes(report, program, values, value_source, terms.summed)
    try:
        workload = Workload(phases, machine=machine, params=values)
    except (WorkloadError, TypeError) as e:
        raise error(name, str(e)) from e
    _phase_reports(report, workload, kept, program)
    report.warn_skipped(stacklevel=3)
    return workload.with_import_report(report)


def read(source: Source, *, machine=None, percent=False, **options):
    """``load()``'s entry point: :func:`read_sdfg` with ``params=``, ``element_bytes=``."""
    return read_sdfg(source, machine=machine, percent=percent, **options)


def skip(report, reason: str, where: str) -> None:
    report.skipped[reason] += 1
    report.skipped_detail.setdefault(reason, []).append(where)


def parameter_values(program: SDFGProgram, params) -> tuple[dict, dict]:
    """(values, where each came from): ``params=`` first, then the SDFG's constants.

    Symbols left without a value raise a ``WorkloadFileError`` (field ``params``) whose ``missing``
    lists them, so that a caller can word its own way to give them."""
    params = given_params(program, params)
    values, source = {}, {}
    for key in program.parameters:
        if key in params:
            value, source[key], where = params[key], "params=", f"params[{key!r}]"
        elif key in program.constants:
            value, source[key], where = program.constants[key], "SDFG constant", f"attributes.constants_prop.{key}"
        else:
            continue
        whole = isinstance(value, numbers.Integral) or isinstance(value, float) and value.is_integer()
        if isinstance(value, bool) or not whole or value < 1:
            raise error(
                program.path,
                f"symbol {key!r}={short_repr(value)} (from {source[key]}) must be a whole number >= 1",
                field=where,
            )
        values[key] = int(value)
    missing = [key for key in program.parameters if key not in values]
    if missing:
        failure = error(
            program.path,
            f"symbols {missing} need values: pass {params_hint(missing)} (the SDFG's constants give "
            + (", ".join(sorted(program.constants)) or "none")
            + ")",
            field="params",
        )
        failure.missing = missing
        raise failure
    return values, source


class _Terms:
    """Sums of expression terms at the symbols' values: the terms the evaluator refuses, negative ones and
    ones that are 0 at every size are reported and left out."""

    def __init__(self, values: dict, report: ImportReport):
        self.values, self.report = values, report
        self.summed: list[str] = []  # terms summed over their loop nest at these values
        self.visits = MAX_VISITS  # map iterations the sums of this file may still visit

    def total(self, terms, what: str) -> tuple[str | None, bool]:
        """The kept terms as one expression (None if none), and whether any was left out."""
        texts, partial = [], False
        for text, where in terms:
            if isinstance(text, NestedSum):
                value, assumed, visited = nest_total(text, self.values, self.visits)
                self.visits -= visited
                if value is None:
                    text = text.approximate()  # the evaluator reports why
                else:  # 0 at these values is no record left out: other values give it work
                    self.summed.append(
                        f"{what} ({where})" + (" with a condition on data taken as holding" if assumed else "")
                    )
                    texts.append(str(value))
                    continue
            kept = self.kept(text, f"{what} ({where})")
            partial |= not kept
            if kept:
                texts.append(text)
        if not texts:
            return None, partial
        total = sum_terms(texts)
        if len(total) > MAX_TEXT:  # too long for a parameter slider to re-evaluate: fixed at these values
            total = str(sum(parse(t).evaluate(self.values) for t in texts))
            self.report.notes.append(
                f"{what}: expression over {MAX_TEXT} characters; fixed at {total} (does not follow with_params)"
            )
        return total, partial

    def kept(self, text: str, what: str) -> bool:
        values = self.values
        try:
            expr = parse(text)
            loose = sorted(expr.names - set(values))
            if loose:
                raise ExpressionError(f"names {loose} are not symbols of the SDFG")
            v = expr.evaluate(values)
        except ExpressionError as e:
            skip(self.report, NOT_UNDERSTOOD, f"{what}: {text!r}: {e}")
            return False
        if v < 0:
            skip(self.report, NEGATIVE, f"{what}: {text!r} = {v} with {values}; left out")
            return False
        if v == 0:
            if not expr.names:  # zero at every size: nothing to follow
                skip(self.report, ZERO, f"{what}: {text!r} = 0; left out")
                return False
            skip(self.report, ZERO, f"{what}: {text!r} = 0 with {values}; kept for other values")
        return True


def _evaluated(p, terms: _Terms):
    """(phase, ops, reads, writes, partial ops, partial bytes) with each number one expression."""
    ops, partial_ops = terms.total(p.ops, f"{p.name} ops") if p.ops else (None, False)
    reads, writes, partial_bytes = {}, {}, False
    for store, table, side in ((reads, p.reads, "read"), (writes, p.writes, "write")):
        for tensor, tensor_terms in table.items():
            total, partial = terms.total(tensor_terms, f"{p.name} {side} of {short_repr(tensor)}")
            partial_bytes |= partial
            if total is not None:
                store[tensor] = total
    return p, ops, reads, writes, partial_ops, partial_bytes


def _resolved_after(phases: list, dropped: dict) -> dict:
    """Each kept phase's dependencies with the dropped phases replaced by what they depend on, in one
    pass over the phases in execution order (each dropped phase resolved once, no recursion)."""
    through: dict[str, list] = {}  # dropped phase -> the kept phases it stands for
    out = {}
    for p in phases:
        resolved = []
        for a in p.after:
            resolved.extend(through.get(a, ()) if a in dropped else (a,))
        resolved = list(dict.fromkeys(resolved))
        if p.name in dropped:
            through[p.name] = resolved
        else:
            out[p.name] = tuple(resolved)
    return out


def _notes(report: ImportReport, program: SDFGProgram, values: dict, value_source: dict, summed: list) -> None:
    report.notes.append("parameters: " + (", ".join(f"{k}={values[k]} ({value_source[k]})" for k in values) or "none"))
    report.notes.append("bytes are DaCe's logical memlet volumes × element size (no caches)")
    for items, what in (
        (
            summed,
            "terms summed over maps whose ranges follow each other or under branch conditions, at these values (they do not follow with_params)",
        ),
        (
            program.bounds,
            "dynamic memlets (their count known only at run time) counted as their subset's size, an upper bound",
        ),
        (program.branches, "conditionals with every branch counted as if it ran, an upper bound"),
    ):
        if items:
            shown = "; ".join(items[:SHOWN]) + (f"; +{len(items) - SHOWN} more" if len(items) > SHOWN else "")
            report.notes.append(f"{len(items)} {what}: {shown}")


def _phase_reports(report: ImportReport, workload: Workload, kept: list, program: SDFGProgram) -> None:
    index = {n: i for i, n in enumerate(workload.names)}
    arrays = workload.arrays
    for p, ops, reads, writes, partial_ops, partial_bytes in kept:
        i = index[p.name]
        upper = any(w.startswith(p.name + " ") for w in program.bounds)
        report.phases.append(
            PhaseReport(
                name=p.name,
                duration=float(arrays.duration[i]),
                ops=float(arrays.ops[i]),
                bytes=float(arrays.bytes[i]),
                flops="computed" if ops is not None or p.kind == "copy" else "unknown",
                bytes_source="memlet volumes" + (" (upper bound: dynamic memlets)" if upper else ""),
                partial_flops=partial_ops,
                partial_bytes=partial_bytes,
                details={
                    "kind": p.kind,
                    "state": p.state,
                    "node": p.node,
                    "ops": ops or "0",
                    "reads": reads,
                    "writes": writes,
                },
            )
        )
