"""What the importers share: number and unit parsing, opening files, building the workload (the
import report they fill in is ``model.import_report``)."""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import stat
from pathlib import Path

from ..errors import WorkloadError, WrongTypeError, check_flag, short_repr
from ..model.import_report import ImportReport, PhaseReport
from ..model.machine import Machine
from ..model.presets import machine_from, unknown_preset
from ..model.workload import Workload
from .source import MAX_FILE_BYTES, Source, WorkloadFileError, file_path, named_os_error, open_regular


def source_of(path_or_source) -> tuple[str, Source | None, Path | None]:
    """(display name, Source if one was given, Path if a path was given)."""
    if isinstance(path_or_source, Source):
        return path_or_source.name, path_or_source, None
    path = file_path(path_or_source)
    return str(path), None, path


def error(name: str, message: str, *, line: int | None = None, field: str | None = None) -> WorkloadFileError:
    return WorkloadFileError(message, path=name, line=line, field=field)


GZIP_MAGIC = b"\x1f\x8b"


class _Bounded(io.RawIOBase):
    """A stream that refuses to give more than ``limit`` bytes (a gzip bomb stops there)."""

    def __init__(self, inner, limit: int, name: str, what: str, underlying=None):
        self.inner, self.left, self.limit, self.name, self.what = inner, limit, limit, name, what
        self.underlying = underlying

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        want = self.left + 1 if size is None or size < 0 else min(size, self.left + 1)
        chunks, got = [], 0
        while got < want:  # in pieces: a bomb is refused at the limit, before any whole-content copy
            piece = self._read_inner(min(want - got, 1 << 20))
            if not piece:
                break
            chunks.append(piece)
            got += len(piece)
            self.left -= len(piece)
            if self.left < 0:
                del chunks
                raise error(
                    self.name,
                    f"{self.what} is over {self.limit:,} bytes, the limit for this format "
                    "(see docs/workload-files.md, Limits)",
                )
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def _read_inner(self, size: int) -> bytes:
        try:
            return self.inner.read(size)
        except OSError as e:  # an I/O error part way through a special file: say which file
            raise named_os_error(e, self.name) from None

    def close(self) -> None:
        self.inner.close()
        if self.underlying is not None:  # GzipFile(fileobj=...) leaves the file it reads open
            self.underlying.close()
        super().close()


def open_binary(name: str, source: Source | None, path: Path | None, *, limit: int | None = None):
    """A binary stream of the file's (decompressed) content, read lazily from disk when given a path.

    ``limit``: the most bytes the (decompressed) content may hold; reading past it raises a
    WorkloadFileError naming the file and the limit. A path must name a regular file.
    """
    limit = limit or MAX_FILE_BYTES
    if source is not None:
        raw = io.BytesIO(source.raw)
        if source.raw[:2] == GZIP_MAGIC:
            return _Bounded(gzip.GzipFile(fileobj=raw, mode="rb"), limit, name, "the decompressed content")
        return _Bounded(raw, limit, name, "the file")
    handle = open_regular(path)  # closed by the caller; never blocks on a FIFO
    try:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise error(name, "not a regular file (a device, pipe, socket or folder): workload files are regular files")
        if handle.read(2) == GZIP_MAGIC:
            handle.seek(0)
            return _Bounded(
                gzip.GzipFile(fileobj=handle, mode="rb"), limit, name, "the decompressed content", underlying=handle
            )
        handle.seek(0)
        return _Bounded(handle, limit, name, "the file")
    except BaseException:
        handle.close()
        raise


def head_text(source: Source, size: int = 65536) -> str:
    """The start of a source as text, decompressing gzip (for sniffing)."""
    raw = source.raw
    if raw[:2] == GZIP_MAGIC:
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw), mode="rb") as g:
                raw = g.read(size)
        except (OSError, EOFError, ValueError):
            return ""
    return raw[:size].decode("utf-8-sig", errors="replace")


def read_text(name: str, source: Source | None, path: Path | None) -> str:
    if source is not None:
        try:
            return source.text
        except WorkloadFileError:
            raise
    raw = Source(path).raw  # a regular file, within MAX_FILE_BYTES
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise error(name, f"not UTF-8 text (byte {e.start} is {raw[e.start]:#04x})", line=line) from None


_GROUPED = re.compile(r"^[-+]?\d{1,3}(,\d{3})+(\.\d*)?([eE][-+]?\d+)?$")


def parse_number(text: str) -> float | None:
    """A number as profilers print it: ``"1,234,567.5"`` (thousands separators), ``"12"``, ``"4.0e-05"``.

    Returns None for an empty cell or ``n/a``; raises WorkloadError (a ValueError) for anything else that
    is not a number (including ``"9,00"``, a decimal comma, which is ambiguous).
    """
    if not isinstance(text, str):
        raise WrongTypeError(f"text={short_repr(text)} must be a string (a cell as the profiler printed it)")
    cell = text.strip().strip('"').strip()
    if cell == "" or cell.lower() in ("n/a", "na", "-", "nan"):
        return None
    shown = short_repr(text)
    if not cell.isascii() or len(cell) > 100:
        raise WorkloadError(f"{shown} is not a number")
    if "," in cell:
        if not _GROUPED.match(cell):
            raise WorkloadError(f"{shown} is not a number (a comma is only read as a thousands separator)")
        cell = cell.replace(",", "")
    try:
        number = float(cell)
    except ValueError:
        raise WorkloadError(f"{shown} is not a number") from None
    if not math.isfinite(number):
        raise WorkloadError(f"{shown} must be a finite number")
    return number


_CLOSING = {"<": ">", "(": ")"}


def function_name(signature: str, brackets: str = "<(") -> str:
    """A C++ function's bare name: the ``brackets`` (template ``<``, call ``(``) and all they hold dropped, then
    the return type and the namespaces: ``void ns::f<int, 4>(int)`` → ``f``; "" when nothing is left."""
    closing = "".join(_CLOSING[b] for b in brackets)
    depth, out = 0, []
    for ch in signature.strip():
        if ch in brackets:
            depth += 1
        elif ch in closing:
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    name = "".join(out).strip()
    if " " in name:
        name = name.rsplit(" ", 1)[-1]
    return name.rsplit("::", 1)[-1]


def chain(names: list[str]) -> list[tuple[str, ...]]:
    """Each phase after the previous one."""
    return [()] + [(names[i - 1],) for i in range(1, len(names))]


def check_percent(name: str, percent: bool) -> None:
    if check_flag(percent, "percent"):
        raise error(
            name,
            "percent=True applies to files holding utilizations; this profile holds measured durations and volumes",
        )


def preset_or_machine(name: str, machine) -> Machine | None:
    """``machine=`` as every reader takes it (``presets.machine_from``): a ``Machine``, the name of a preset,
    or None (the file's, or none); a name that is no preset is a ``WorkloadFileError`` of the file ``name``."""
    if machine is None:
        return None
    try:
        return machine_from(machine)
    except WorkloadError:  # a name that is no preset: said of the file being read
        raise WorkloadFileError(unknown_preset(machine), path=name, field="machine") from None


def record_phase(report: ImportReport, columns: tuple[list, list, list], name: str, duration, ops, nbytes, **fields):
    """One phase read: its duration, ops and bytes appended to ``columns`` (for ``build_workload``), its entry
    (with the other ``PhaseReport`` ``fields``) to the report."""
    for column, value in zip(columns, (duration, ops, nbytes)):
        column.append(value)
    report.phases.append(PhaseReport(name=name, duration=duration, ops=ops, bytes=nbytes, **fields))


def build_workload(name: str, names, *, duration, ops, bytes_, machine, report: ImportReport) -> Workload:
    try:
        w = Workload.from_arrays(
            names, duration=duration, ops=ops, bytes=bytes_, after=chain(list(names)), machine=machine
        )
    except WorkloadError as e:
        raise WorkloadFileError(str(e), path=name) from e
    return w.with_import_report(report)
