"""The format registry: ``load`` recognizes a file by its content and hands it to that format's reader."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..atomic import remove_stale
from ..errors import ArgumentError, WrongTypeError, check_flag, short_repr
from ..model.machine import Machine
from ..model.workload import Workload
from ._common import preset_or_machine
from .source import JSON_SUFFIXES, YAML_SUFFIXES, Source


@dataclass(frozen=True)
class FileFormat:
    """A readable file format: ``sniff(source) -> bool`` recognizes it by content,
    ``read(source, *, machine=None, percent=False, **options) -> Workload`` reads it."""

    name: str
    sniff: Callable[[Source], bool]
    read: Callable[..., Workload]
    suffixes: tuple[str, ...] = ()
    description: str = ""
    fallback: bool = False


_FORMATS: dict[str, FileFormat] = {}


def register_format(
    name: str,
    sniff: Callable[[Source], bool],
    read: Callable[..., Workload],
    *,
    suffixes=(),
    description: str = "",
    fallback: bool = False,
    replace: bool = False,
) -> FileFormat:
    """Teach ``load`` a new format.

    ``sniff(source)`` gets a ``Source`` (``.path``, ``.raw`` bytes, ``.text``, ``.head(n)``,
    ``.document()`` for YAML/JSON) and returns True if the content is this format; it must not
    raise. ``read(source, *, machine=None, percent=False, **options)`` returns a ``Workload`` and
    raises ``source.error(message, line=..., field=...)`` on bad input. ``suffixes`` (e.g.
    ``(".ncu-rep",)``) only order the sniffing: formats whose suffix matches the file are tried first.
    ``fallback=True``: when no format recognizes a file, the first fallback format whose suffix
    matches reads it anyway, so that its reader can say what is missing (a column, a key).
    """
    if not isinstance(name, str) or not name:
        raise WrongTypeError(f"format name must be a non-empty string, got {short_repr(name)}")
    if not callable(sniff) or not callable(read):
        raise WrongTypeError("sniff and read must be callables")
    fallback, replace = check_flag(fallback, "fallback"), check_flag(replace, "replace")
    if name in _FORMATS and not replace:
        raise ArgumentError(f"file format {short_repr(name)} is already registered; pass replace=True to override it")
    fmt = FileFormat(name, sniff, read, tuple(s.lower() for s in suffixes), description, bool(fallback))
    _FORMATS[name] = fmt
    return fmt


def unregister_format(name: str) -> None:
    """Forget a format registered with ``register_format``."""
    _FORMATS.pop(name, None)


def formats() -> tuple[FileFormat, ...]:
    """The registered formats, in the order ``load`` tries them (before suffix preference)."""
    return tuple(_FORMATS.values())


def load(path, *, machine: Machine | str | None = None, percent: bool = False, format: str | None = None, **options):
    """Read a workload file in any registered format, recognized by its content.

    ``machine`` (a ``Machine`` or a preset name) replaces the file's machine: utilizations in the
    file are then fractions of *its* peaks. ``percent=True`` says a foreign file's utilizations are
    percentages (0–100) rather than fractions; our own format always holds fractions.
    ``format`` forces a registered format by name instead of sniffing. Other keyword ``options``
    go to the format's reader (e.g. ``clock=`` for Timeloop stats, ``group_by=`` for traces).

    A reader may return a measured timeline instead (a ``campaign_widget.model.timeline.Timeline``, a
    ``Schedule`` whose ``.workload`` is the workload): traces with ``timeline=True``.

    Raises ``WorkloadFileError`` (a ``WorkloadError``, a ``ValueError``) naming the file and the
    line or field, and ``OSError`` if the file cannot be opened.
    """
    source = Source(path)
    if isinstance(path, (str, os.PathLike)):  # debris of a killed write beside the file goes now
        remove_stale(Path(os.fsdecode(path)).parent)
    machine = preset_or_machine(source.name, machine)
    fmt = _FORMATS.get(format) if format is not None else detect(source)
    if fmt is None:
        raise ArgumentError(
            f"format={short_repr(format)} is not a registered file format; known: {', '.join(_FORMATS)}"
        )
    workload = fmt.read(source, machine=machine, percent=check_flag(percent, "percent"), **options)
    if not isinstance(workload, Workload) and not isinstance(getattr(workload, "workload", None), Workload):
        raise WrongTypeError(
            f"{source.name}: the reader of format {fmt.name!r} returned {type(workload).__name__}, "
            "not a Workload (a bug in that reader)"
        )
    return workload


def detect(source) -> FileFormat:
    """The registered format of ``source`` (a ``Source`` or a path), by content; suffix breaks ties."""
    if not isinstance(source, Source):
        source = Source(source)
    ordered = sorted(_FORMATS.values(), key=lambda f: source.suffix not in f.suffixes)
    for fmt in ordered:
        try:
            if fmt.sniff(source):
                return fmt
        except Exception:  # a sniffer that raises just does not recognize the file  # noqa: BLE001
            continue
    if source.suffix in YAML_SUFFIXES + JSON_SUFFIXES or not _looks_like_csv(source):
        source.document()  # a syntax error is the most useful thing to report
    by_suffix = [f for f in ordered if f.fallback and source.suffix in f.suffixes]
    if by_suffix:
        return by_suffix[0]  # its reader says precisely what is missing (a column, the phases list)
    raise source.error(
        "not a workload file this version can read; expected one of: "
        + "; ".join(f"{f.name} ({f.description})" if f.description else f.name for f in _FORMATS.values())
    )


def _looks_like_csv(source: Source) -> bool:
    first = next((line for line in source.head().splitlines() if line.strip()), "")
    return first.count(",") >= 2
