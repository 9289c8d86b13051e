"""Checks every file reader shares: keys, numbers, names, presets, building phases and workloads."""

from __future__ import annotations

import difflib
import math
import re

from ..errors import WorkloadError, WrongTypeError, check_flag, short_repr
from ..model.machine import Machine
from ..model.phase import LARGEST, Phase, check_name
from ..model.presets import MACHINES, unknown_preset
from ..model.presets import machine as preset_machine
from ..model.workload import Workload
from .source import Source, WorkloadFileError, line_of


def no_options(source: Source, options: dict) -> None:
    if options:
        raise WrongTypeError(f"{source.name}: unknown load options {short_repr(sorted(map(str, options)))}")


def flag(name: str, value) -> bool:
    """``errors.check_flag(value, name)``, the names first (as the views call it)."""
    return check_flag(value, name)


def flag_or(value, what: str, *, also, said: str):
    """An on/off option that takes one more kind of value as itself (``also(value)``: None for "decide",
    a callable to report to), else True or False by ``errors.check_flag``'s rule; ``said`` is what the
    option takes, in the ``WrongTypeError`` (``"True, False or None"``)."""
    if also(value):
        return value
    try:
        return check_flag(value, what)
    except WrongTypeError:
        raise WrongTypeError(f"{what}={short_repr(value)} must be {said}") from None


def header_columns(source: Source, header, line: int | None, used=None) -> dict[str, int]:
    """``{column name: index}`` of a CSV header; a column named twice (of those in ``used``, or any
    when ``used`` is None) is refused: which of the two holds the values would be a guess."""
    column: dict[str, int] = {}
    for i, name in enumerate(header):
        if name in column and (used is None or name in used):
            raise source.error(
                f"column {show(name)} appears twice (fields {column[name] + 1} and {i + 1}); which one holds "
                "the values is ambiguous: rename or remove one",
                line=line,
                field="header",
            )
        column.setdefault(name, i)
    return column


def show(value) -> str:
    """A value from a file, for a message: bounded whatever its size (reprlib, 60 characters)."""
    return short_repr(value)


def expect_map(source: Source, value, where: str, line=None) -> None:
    if not isinstance(value, dict):
        raise source.error(
            f"must be a mapping of keys to values, got {show(value)}",
            line=line,
            field=None if where == "the top level" else where,
        )


def check_keys(source: Source, doc: dict, known, where: str) -> None:
    for key in doc:
        if key not in known:
            hint = difflib.get_close_matches(str(key)[:100], known, n=1)
            raise source.error(
                f"unknown key {show(key)} in {where}"
                + (f" (did you mean {hint[0]!r}?)" if hint else "")
                + f"; known keys: {', '.join(known)}",
                line=line_of(doc, key),
            )


def read_number(source: Source, value, where: str, line):
    """A number from a file: an int or float, finite, at most LARGEST in magnitude (a 400-digit integer
    is refused with the field and line, not an OverflowError)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise source.error(f"{show(value)} is not a number", line=line, field=where)
    try:  # the sign is the caller's to check (a phase's ops may not be < 0, a start time may not be, ...)
        magnitude = abs(float(value))
    except OverflowError:
        magnitude = math.inf
    if math.isnan(magnitude):
        raise source.error(f"{show(value)} must be finite", line=line, field=where)
    if magnitude > LARGEST:
        raise source.error(
            f"{show(value)} is out of range: numbers must be finite and at most {LARGEST:g} in magnitude",
            line=line,
            field=where,
        )
    return value


def read_name(source: Source, value, where: str, line) -> str:
    if value is None:
        raise source.error("missing name", line=line, field=where)
    if not isinstance(value, str) or not value:
        raise source.error(
            f'{show(value)} must be a non-empty string (quote it: name: "{show(value)}")', line=line, field=where
        )
    try:
        check_name("the name", value)
    except (TypeError, ValueError) as e:
        raise source.error(str(e), line=line, field=where) from None
    return value


def read_preset(source: Source, name, line, where) -> Machine:
    """The preset a file names; the message quotes the name bounded, whatever its length."""
    if not isinstance(name, str):
        raise source.error(f"{show(name)} must be a machine preset name (a string)", line=line, field=where)
    try:
        return preset_machine(name)
    except WorkloadError:
        raise source.error(unknown_preset(name), line=line, field=where) from None


def preset_names() -> str:
    return ", ".join(MACHINES)


def check_unique_names(source: Source, named_lines) -> None:
    seen = {}
    for name, line in named_lines:
        if name in seen:
            raise source.error(
                f"duplicate phase name {show(name)} (first on line {seen[name]}); each phase needs its own name",
                line=line,
            )
        seen[name] = line


def make_phase(source: Source, line, name, *, spelled=None, **kwargs) -> Phase:
    """``Phase(name, **kwargs)``; its errors get the file name and ``line``. ``spelled`` maps our keyword
    names to the file's (``{"memory_util": "bw_util"}``): a message then names the field as the file does."""
    try:
        return Phase(name, **kwargs)
    except (TypeError, ValueError) as e:
        raise WorkloadFileError(in_their_words(str(e), spelled), path=source.name, line=line) from e


def in_their_words(message: str, spelled) -> str:
    """``message`` with our field names (``: memory_util=``, ``memory_util ``) in the file's spelling
    (``spelled``: ours → theirs)."""
    for ours, theirs in (spelled or {}).items():
        message = re.sub(rf"(?<![\w.]){re.escape(ours)}(?=[=\s)\]:,]|$)", theirs, message)
    return message


def make_workload(source: Source, phases, machine, settings, lines=None, *, spelled=None) -> Workload:
    """Build the workload; its errors get the file name, the line of the phase they name, and the file's
    spelling of the fields (``spelled``, as ``make_phase``)."""
    try:
        return Workload(phases, machine=machine, settings=settings)
    except (TypeError, ValueError) as e:
        message = in_their_words(str(e), spelled)
        line = None
        for phase, phase_line in zip(phases, lines or ()):
            if message.startswith(f"phase {short_repr(phase.name)}"):
                line = phase_line
                break
        raise WorkloadFileError(message, path=source.name, line=line) from e
