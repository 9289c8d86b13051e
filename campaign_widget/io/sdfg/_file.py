"""An SDFG file's bytes to its JSON document: streamed with a size bound, gzip or not, version checked."""

from __future__ import annotations

import gzip
import json
import re
import zlib

from ...errors import short_repr
from .._common import GZIP_MAGIC, error, open_binary, source_of
from ..source import Source

MAX_BYTES = 256 * 2**20  # (decompressed) JSON text read at most: a gzip bomb is refused when reading passes it
SNIFF_BYTES = 1 << 16
CHUNK = 1 << 18  # bytes read at a time: the memory a refused bomb costs
SUFFIXES = (".sdfg", ".sdfgz")


def read_document(path_or_source) -> tuple[str, dict]:
    """(display name, the SDFG's JSON document) of a path or a ``Source``.

    The content is read twice: once to count its (decompressed) bytes, refusing it as soon as they
    pass ``MAX_BYTES`` (so a gzip bomb costs a chunk of memory, never the limit), then into one
    buffer of that size.
    """
    name, source, path = source_of(path_or_source)
    size = _count(name, source, path)
    data = bytearray(size)
    view, got = memoryview(data), 0
    with _opened(name, source, path) as stream:
        while chunk := _gzip_errors(name, stream.read, min(CHUNK, size - got + 1)):
            if got + len(chunk) > size:
                raise error(name, "the file grew while it was being read")
            view[got : got + len(chunk)] = chunk
            got += len(chunk)
    view.release()
    if got != size:
        raise error(name, "the file shrank while it was being read")
    text = _decode(name, data)
    del data
    return name, _document(name, text)


def _opened(name, source, path):
    try:
        return open_binary(name, source, path, limit=MAX_BYTES)
    except OSError as e:
        raise error(name, f"cannot open: {e.strerror or e}") from None


def _count(name: str, source: Source | None, path) -> int:
    total = 0
    with _opened(name, source, path) as stream:
        while True:
            chunk = _gzip_errors(name, stream.read, CHUNK)
            if not chunk:
                return total
            total += len(chunk)


def _gzip_errors(name: str, read, size: int) -> bytes:
    try:
        return read(size)
    except EOFError:
        raise error(name, "truncated gzip data: the stream ends before its end marker") from None
    except (gzip.BadGzipFile, zlib.error) as e:
        raise error(name, f"corrupt gzip data ({e})") from None
    except OSError as e:
        raise error(name, f"cannot read: {e.strerror or e}") from None


def _decode(name: str, raw) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise error(name, f"not UTF-8 text (byte {e.start} is {raw[e.start]:#04x})", line=line) from None


def _document(name: str, text: str) -> dict:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        what = "truncated JSON" if e.pos >= len(text.rstrip()) else "not JSON"
        raise error(name, f"{what}: {e.msg} (column {e.colno})", line=e.lineno) from None
    except RecursionError:
        raise error(name, "JSON nested too deeply") from None
    except ValueError as e:  # e.g. an integer of over 4,300 digits
        raise error(name, f"not JSON: {str(e)[:200]}") from None
    if not isinstance(document, dict):
        raise error(name, f"not an SDFG: the JSON document is a {type(document).__name__}, not an object")
    kind = document.get("type")
    if kind != "SDFG":
        raise error(name, f"not an SDFG: type={short_repr(kind)} (an SDFG file has type 'SDFG')", field="type")
    version = document.get("dace_version")
    if version is not None and (not isinstance(version, str) or not re.match(r"^\d+\.", version)):
        raise error(name, f"dace_version={short_repr(version)} is not a version number", field="dace_version")
    return document


def sniff(source: Source) -> bool:
    """An SDFG by its suffix (``.sdfg``, ``.sdfgz``) or by content (JSON whose top-level type is ``SDFG``)."""
    if source.suffix in SUFFIXES:
        return True
    raw = source.raw[:SNIFF_BYTES]
    if raw[:2] == GZIP_MAGIC:
        try:
            raw = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, SNIFF_BYTES)
        except zlib.error:
            return False
    head = raw.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    return re.match(r'\{\s*"type"\s*:\s*"SDFG"', head) is not None  # dace writes the type first
