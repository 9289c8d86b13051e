"""A file being read: its bytes, its text, and its YAML/JSON document with the line of every key.

``WorkloadFileError`` is what every reader raises: it names the file, the line and the field.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from pathlib import Path

import numpy as np
import yaml

from ..errors import WorkloadFileError, WrongTypeError, short_repr

YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)
SNIFF_BYTES = 1 << 16
MiB = 1 << 20
MAX_FILE_BYTES = 1024 * MiB  # no file larger than this is read (each format has its own, smaller limit)
MAX_DEPTH = 64  # YAML/JSON nesting: a workload file needs ~5 levels
MAX_ALIAS_NODES = 100_000  # nodes YAML aliases may add in all (refuses "billion laughs")
MAX_YAML_BYTES = 32 * MiB  # YAML documents (our schema, cascade YAML)
MAX_JSON_BYTES = 256 * MiB  # JSON documents of our schema


def file_path(path, what: str = "path") -> Path:
    """``path`` as a ``Path``, or an error naming ``what`` and the value: a TypeError for what is not a
    path (``None``, a number), a WorkloadFileError for a path no file can have (a NUL character)."""
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise WrongTypeError(
            f"{what}={short_repr(path)} must be a file path (str or os.PathLike), not {type(path).__name__}"
        )
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if "\x00" in text:
        raise WorkloadFileError(f"{what} contains a NUL character, which no file name can hold", path=short_repr(text))
    try:
        os.fsencode(text)
    except UnicodeEncodeError as e:
        raise WorkloadFileError(
            f"{what} contains {ascii(text[e.start])}, which no file name on this system can hold", path=short_repr(text)
        ) from None
    return Path(text)


def named_os_error(error: OSError, path) -> OSError:
    """The same kind of OSError, naming ``path`` (``[Errno 5] Input/output error: 'path'``)."""
    if error.errno is None or (error.filename is not None and not isinstance(error.filename, int)):
        return error  # already named, or not an error of the system (a bad gzip header)
    try:
        return type(error)(error.errno, error.strerror or str(error), str(path))
    except TypeError:  # an OSError subclass with another signature
        return OSError(error.errno, error.strerror or str(error), str(path))


def open_regular(path):
    """``open(path, "rb")`` that never blocks: opening a FIFO waits for a writer, so open without
    blocking (then fstat tells what it is; a regular file ignores O_NONBLOCK). A folder is an
    ``IsADirectoryError``, and every OSError names ``path``."""
    path = file_path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise named_os_error(e, path) from None
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        return os.fdopen(fd, "rb")
    except OSError as e:
        os.close(fd)
        raise named_os_error(e, path) from None
    except BaseException:
        os.close(fd)
        raise


class Source:
    """A file being read: its bytes, its text, and (parsed once, on demand) its YAML/JSON document."""

    def __init__(self, path, raw: bytes | None = None):
        self.path = file_path(path)
        self.name = str(path) if isinstance(path, (str, os.PathLike)) else str(self.path)
        if raw is not None and not isinstance(raw, (bytes, bytearray, memoryview)):
            raise WrongTypeError(f"raw={short_repr(raw)} must be the file's bytes, not {type(raw).__name__}")
        self.raw = self._read() if raw is None else bytes(raw)
        self._text = None
        self._document = None
        self._document_error = None

    def _read(self) -> bytes:
        """The file's bytes: a regular file of at most MAX_FILE_BYTES (never a device, pipe or folder)."""
        try:
            return self._read_bytes()
        except IsADirectoryError:
            raise self.error("a folder: workload files are regular files") from None
        except OSError as e:  # missing, unreadable, an I/O error on a special file: named, to the caller
            raise named_os_error(e, self.path) from None

    def _read_bytes(self) -> bytes:
        with open_regular(self.path) as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, pipe or socket)"
                raise self.error(f"{kind}: workload files are regular files")
            if info.st_size > MAX_FILE_BYTES:
                raise self.error(
                    f"the file is {info.st_size:,} bytes; no reader takes more than "
                    f"{MAX_FILE_BYTES:,} bytes (see docs/workload-files.md, Limits)"
                )
            # read(n) allocates n bytes up front: ask for the size stat gave, then for any growth
            chunks = [handle.read(info.st_size + 1)]
            total = len(chunks[0])
            while total > info.st_size and total <= MAX_FILE_BYTES and chunks[-1]:
                chunks.append(handle.read(min(1 << 20, MAX_FILE_BYTES + 1 - total)))
                total += len(chunks[-1])
        if total > MAX_FILE_BYTES:  # it grew while being read: refused before the pieces are joined (a copy)
            del chunks
            raise self.error(f"the file is over {MAX_FILE_BYTES:,} bytes; no reader takes more")
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def check_size(self, limit: int, what: str) -> None:
        """Refuse a file over ``limit`` bytes for format ``what``, with the limit named."""
        if len(self.raw) > limit:
            raise self.error(
                f"the file is {len(self.raw):,} bytes; {what} files are read up to {limit:,} bytes "
                "(see docs/workload-files.md, Limits)"
            )

    @property
    def suffix(self) -> str:
        return self.path.suffix.lower()

    @property
    def text(self) -> str:
        if self._text is None:
            try:
                self._text = self.raw.decode("utf-8-sig")
            except UnicodeDecodeError as e:
                line = self.raw[: e.start].count(b"\n") + 1
                raise self.error(f"not UTF-8 text (byte {e.start} is {self.raw[e.start]:#04x})", line=line) from None
        return self._text

    def head(self, size: int = 4096) -> str:
        """The start of the text, decoded leniently (for sniffing)."""
        return self.raw[:size].decode("utf-8-sig", errors="replace")

    def mentions(self, *words: str) -> bool:
        """Cheap pre-check before parsing a whole (possibly huge) file: does its start mention a word?"""
        head = self.head(SNIFF_BYTES)
        return any(word in head for word in words)

    def error(self, message: str, *, line: int | None = None, field: str | None = None) -> WorkloadFileError:
        return WorkloadFileError(message, path=self.name, line=line, field=field)

    def is_json(self) -> bool:
        return self.suffix in JSON_SUFFIXES or (
            self.suffix not in YAML_SUFFIXES and self.head(64).lstrip().startswith(("{", "["))
        )

    def document(self):
        """The file parsed as JSON (``.json``, or text starting with ``{``) or YAML.

        Mappings and lists carry ``.line`` and ``.lines`` (YAML only; None for JSON).
        Raises WorkloadFileError naming the line of a syntax error.
        """
        if self._document_error is not None:
            raise self._document_error
        if self._document is None:
            try:
                self._document = parse_json(self) if self.is_json() else parse_yaml(self)
            except WorkloadFileError as e:
                self._document_error = e
                raise
        return self._document

    def try_document(self):
        """``document()``, or None when the file is not YAML/JSON (for sniffing)."""
        try:
            return self.document()
        except WorkloadFileError:
            return None


class Map(dict):
    """A mapping read from a file, with the line of itself and of each key (YAML; None in JSON)."""

    line: int | None = None
    lines: dict = {}


class List(list):
    line: int | None = None
    lines: list = []


def line_of(container, key=None):
    if key is not None:
        lines = getattr(container, "lines", None)
        if isinstance(lines, dict) and key in lines:
            return lines[key]
        if isinstance(lines, list) and isinstance(key, int) and 0 <= key < len(lines):
            return lines[key]
    return getattr(container, "line", None)


_FLOAT = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
                          |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
                          |\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?
                          |[-+]?\.(?:inf|Inf|INF)
                          |\.(?:nan|NaN|NAN))$""",
    re.X,
)


# libyaml's parser and emitter when PyYAML was built with it (the pure-Python one is much slower on big files)
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SafeDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class Loader(_SafeLoader):
    """SafeLoader that reads ``2e12`` as a float (YAML 1.1 wants ``2.0e+12``) and keeps line numbers."""


class Dumper(_SafeDumper):
    """SafeDumper that quotes strings ``Loader`` would read as floats (a phase named ``1e5``)."""


for _cls in (Loader, Dumper):
    _cls.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))


def _represent_list(dumper, data):
    # lists of names or numbers on one line (after: [A, B]); lists of mappings as blocks
    flow = all(isinstance(item, (str, int, float)) for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


Dumper.add_representer(list, _represent_list)


def _construct_map(loader, node):
    data = Map()
    data.line = node.start_mark.line + 1
    data.lines = {}
    yield data
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark, "found an unhashable key", key_node.start_mark
            ) from None
        if key in data:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {short_repr(key)} (first on line {data.lines[key]})", key_node.start_mark
            )
        data[key] = loader.construct_object(value_node, deep=True)
        data.lines[key] = key_node.start_mark.line + 1


def _construct_list(loader, node):
    data = List()
    data.line = node.start_mark.line + 1
    data.lines = [item.start_mark.line + 1 for item in node.value]
    yield data
    data.extend(loader.construct_object(item, deep=True) for item in node.value)


Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
Loader.add_constructor("tag:yaml.org,2002:seq", _construct_list)


def _flow_depth(source: Source) -> None:
    """libyaml takes time quadratic in the nesting of flow collections (``[[[[...``): bound it before
    parsing. Brackets are counted everywhere (also inside quotes and comments): a conservative bound."""
    data = np.frombuffer(source.raw, dtype=np.uint8)
    if data.size == 0:
        return
    step = np.zeros(256, dtype=np.int8)
    step[[ord("["), ord("{")]] = 1
    step[[ord("]"), ord("}")]] = -1
    depth = np.cumsum(step[data], dtype=np.int64)
    deepest = int(np.argmax(depth))
    if depth[deepest] > MAX_DEPTH:
        line = int(np.count_nonzero(data[:deepest] == ord("\n"))) + 1
        raise source.error(
            f"nested deeper than {MAX_DEPTH} levels of [ and {{ (a workload file needs a few)", line=line
        )


def _yaml_shape(source: Source, text: str) -> None:
    """One pass over the YAML events: nesting at most MAX_DEPTH, aliases adding at most MAX_ALIAS_NODES
    nodes. Linear in the file; run before the document is built."""
    sizes: dict = {}  # anchor -> expanded node count
    stack: list = []  # per open collection: [expanded count, anchor]
    added = 0
    for event in yaml.parse(text, Loader=_SafeLoader):
        kind = type(event)
        if kind is yaml.ScalarEvent or kind is yaml.AliasEvent:
            if kind is yaml.AliasEvent:
                size = sizes.get(event.anchor, 1)
                added += size
                if added > MAX_ALIAS_NODES:
                    raise source.error(
                        f"YAML aliases expand to over {MAX_ALIAS_NODES:,} nodes (alias "
                        f"*{str(event.anchor)[:40]}); workload files need no aliases",
                        line=event.start_mark.line + 1,
                    )
            else:
                size = 1
                if event.anchor is not None:
                    sizes[event.anchor] = 1
            if stack:
                stack[-1][0] += size
        elif kind is yaml.SequenceStartEvent or kind is yaml.MappingStartEvent:
            if len(stack) >= MAX_DEPTH:
                raise source.error(
                    f"nested deeper than {MAX_DEPTH} levels (a workload file needs a few)",
                    line=event.start_mark.line + 1,
                )
            stack.append([1, event.anchor])
        elif kind is yaml.SequenceEndEvent or kind is yaml.MappingEndEvent:
            size, anchor = stack.pop()
            if anchor is not None:
                sizes[anchor] = size
            if stack:
                stack[-1][0] += size


def _json_depth(source: Source, document) -> None:
    """Refuse JSON nested deeper than MAX_DEPTH (walked without recursion)."""
    todo = [(document, 1)]
    while todo:
        value, depth = todo.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise source.error(f"nested deeper than {MAX_DEPTH} levels (a workload file needs a few)")
            todo.extend(
                (v, depth + 1)
                for v in (value.values() if isinstance(value, dict) else value)
                if isinstance(v, (dict, list))
            )


def parse_yaml(source: Source):
    source.check_size(MAX_YAML_BYTES, "YAML")
    text = source.text
    try:
        _flow_depth(source)
        _yaml_shape(source, text)
        return yaml.load(text, Loader=Loader)  # noqa: S506 - Loader is a SafeLoader
    except WorkloadFileError:
        raise
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        problem = " ".join(str(part) for part in (e.context, e.problem) if part)
        raise source.error(
            f"malformed YAML: {problem}" + (f" (column {mark.column + 1})" if mark else ""),
            line=mark.line + 1 if mark else None,
        ) from None
    except yaml.YAMLError as e:
        raise source.error(f"malformed YAML: {str(e)[:300]}") from None
    except (ValueError, OverflowError, RecursionError) as e:  # e.g. an integer of over 4,300 digits
        raise source.error(f"malformed YAML: {str(e)[:200]}") from None


def parse_json(source: Source):
    def as_map(pairs):
        data = Map()
        data.line, data.lines = None, {}
        for key, value in pairs:
            if key in data:
                raise source.error(f"malformed JSON: duplicate key {short_repr(key)}")
            data[key] = value
        return data

    source.check_size(MAX_JSON_BYTES, "JSON workload")
    try:
        document = json.loads(source.text, object_pairs_hook=as_map)
    except json.JSONDecodeError as e:
        raise source.error(f"malformed JSON: {e.msg} (column {e.colno})", line=e.lineno) from None
    except RecursionError:
        raise source.error(f"nested deeper than {MAX_DEPTH} levels (a workload file needs a few)") from None
    except ValueError as e:  # e.g. an integer of over 4,300 digits
        raise source.error(f"malformed JSON: {str(e)[:200]}") from None
    _json_depth(source, document)
    return document
