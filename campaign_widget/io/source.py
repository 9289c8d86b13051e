"""A file being read: its bytes, its text, and its YAML/JSON document with the line of every key.

``WorkloadFileError`` is what every reader raises: it names the file, the line and the field.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from ..errors import WorkloadError

YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)
SNIFF_BYTES = 1 << 16


class WorkloadFileError(WorkloadError):
    """A workload file that cannot be read; the message starts with ``file:line:`` where known.

    ``path``, ``line`` (1-based, or None) and ``field`` (e.g. ``phases[2].ops`` or a CSV column,
    or None) say where.
    """

    def __init__(self, message: str, *, path=None, line: int | None = None, field: str | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.field = field
        self.reason = message
        where = ""
        if self.path is not None:
            where = self.path + (f":{line}" if line is not None else "") + ": "
        if field is not None:
            message = f"{field}: {message}"
        super().__init__(where + message)


class Source:
    """A file being read: its bytes, its text, and (parsed once, on demand) its YAML/JSON document."""

    def __init__(self, path, raw: bytes | None = None):
        self.path = Path(path)
        self.name = str(path)
        self.raw = self.path.read_bytes() if raw is None else raw
        self._text = None
        self._document = None
        self._document_error = None

    @property
    def suffix(self) -> str:
        return self.path.suffix.lower()

    @property
    def text(self) -> str:
        if self._text is None:
            try:
                self._text = self.raw.decode("utf-8-sig")
            except UnicodeDecodeError as e:
                line = self.raw[:e.start].count(b"\n") + 1
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
        return self.suffix in JSON_SUFFIXES or (self.suffix not in YAML_SUFFIXES
                                                 and self.head(64).lstrip().startswith(("{", "[")))

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


_FLOAT = re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
                          |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
                          |\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?
                          |[-+]?\.(?:inf|Inf|INF)
                          |\.(?:nan|NaN|NAN))$""", re.X)


# libyaml's parser and emitter when PyYAML was built with it (10-20x faster on big files)
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
                "while constructing a mapping", node.start_mark, "found an unhashable key", key_node.start_mark)
        if key in data:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first on line {data.lines[key]})", key_node.start_mark)
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


def parse_yaml(source: Source):
    try:
        return yaml.load(source.text, Loader=Loader)  # noqa: S506 - Loader is a SafeLoader
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        problem = " ".join(str(part) for part in (e.context, e.problem) if part)
        raise source.error(f"malformed YAML: {problem}" + (f" (column {mark.column + 1})" if mark else ""),
                           line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as e:
        raise source.error(f"malformed YAML: {e}") from None


def parse_json(source: Source):
    def as_map(pairs):
        data = Map()
        data.line, data.lines = None, {}
        for key, value in pairs:
            if key in data:
                raise source.error(f"malformed JSON: duplicate key {key!r}")
            data[key] = value
        return data

    try:
        return json.loads(source.text, object_pairs_hook=as_map)
    except json.JSONDecodeError as e:
        raise source.error(f"malformed JSON: {e.msg} (column {e.colno})", line=e.lineno) from None
