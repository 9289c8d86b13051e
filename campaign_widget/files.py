"""Workload files: read and write machine + phases + schedule settings (docs/workload-files.md).

Formats ``load`` recognizes by content (the file's suffix only breaks ties):

- ``campaign-workload``: our schema, in YAML (canonical: comments, hand editing) or JSON.
- ``cascade-yaml``: the paper authors' tool, ``cascade: {name, kernels: [{name, duration,
  compute_util, bw_util}]}``; kernels run in sequence.
- ``einsum-csv``: CSV exports with ``Einsum, runtime, Compute_Utilization, Memory_Utilization,
  Starting_Time, End_Time`` columns (and optionally ``fusion_group``, ``total_traffic``).

More formats plug in with ``register_format(name, sniff, read)`` without touching ``load``.

>>> import tempfile, pathlib
>>> from campaign_widget import Machine, Phase, Workload
>>> w = Workload([Phase("A", duration=3, compute_util=0.7, memory_util=0.25)],
...              machine=Machine(200e9, 50e9), settings={"tiles": 4})
>>> path = save(w, pathlib.Path(tempfile.mkdtemp()) / "w.yaml")
>>> again = load(path)
>>> again.names, again.settings, float(again.arrays.ops[0]) == float(w.arrays.ops[0])
(['A'], {'tiles': 4}, True)
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import math
import numbers
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import yaml

from .errors import WorkloadError
from .fusion import mark_groups
from .machine import Ceiling, Machine
from .phase import Phase
from .schedule import POLICIES
from .workload import DEFAULT_SETTINGS, Workload

FORMAT = "campaign-workload"
VERSION = 1
YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)

TOP_KEYS = ("format", "version", "machine", "settings", "phases")
PHASE_KEYS = ("name", "duration", "compute_util", "memory_util", "ops", "bytes", "after", "tileable", "reads",
              "writes", "fusion_group")
MACHINE_KEYS = ("preset", "name", "peak_compute", "peak_bandwidth", "compute_name", "memory_name", "ops_unit",
                "bytes_unit", "time_unit", "normalized", "ceilings")
CEILING_KEYS = ("name", "compute", "bandwidth")
SETTING_KEYS = tuple(DEFAULT_SETTINGS)
CASCADE_KERNEL_KEYS = ("name", "duration", "compute_util", "bw_util")
CASCADE_IGNORED_KEYS = ("start", "bw_util_limit", "throttled_duration")  # the tool's Kernel() state, not inputs
CSV_REQUIRED = ("Einsum", "runtime", "Compute_Utilization", "Memory_Utilization", "Starting_Time", "End_Time")
CSV_OPTIONAL = ("fusion_group", "total_traffic")  # part of the export layout; a Workload has no place for them
CSV_TIME_RTOL = 1e-9


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


# -- the format registry --------------------------------------------------------------------------


@dataclass(frozen=True)
class FileFormat:
    """A readable file format: ``sniff(source) -> bool`` recognizes it by content,
    ``read(source, *, machine=None, percent=False, **options) -> Workload`` reads it."""

    name: str
    sniff: Callable[["Source"], bool]
    read: Callable[..., Workload]
    suffixes: tuple[str, ...] = ()
    description: str = ""
    fallback: bool = False


_FORMATS: dict[str, FileFormat] = {}


def register_format(name: str, sniff: Callable[["Source"], bool], read: Callable[..., Workload], *,
                    suffixes=(), description: str = "", fallback: bool = False, replace: bool = False) -> FileFormat:
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
        raise TypeError(f"format name must be a non-empty string, got {name!r}")
    if not callable(sniff) or not callable(read):
        raise TypeError("sniff and read must be callables")
    if name in _FORMATS and not replace:
        raise ValueError(f"file format {name!r} is already registered; pass replace=True to override it")
    fmt = FileFormat(name, sniff, read, tuple(s.lower() for s in suffixes), description, bool(fallback))
    _FORMATS[name] = fmt
    return fmt


def unregister_format(name: str) -> None:
    """Forget a format registered with ``register_format``."""
    _FORMATS.pop(name, None)


def formats() -> tuple[FileFormat, ...]:
    """The registered formats, in the order ``load`` tries them (before suffix preference)."""
    return tuple(_FORMATS.values())


# -- reading ----------------------------------------------------------------------------------------


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
                self._document = _parse_json(self) if self.is_json() else _parse_yaml(self)
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


class _Map(dict):
    """A mapping read from a file, with the line of itself and of each key (YAML; None in JSON)."""

    line: int | None = None
    lines: dict = {}


class _List(list):
    line: int | None = None
    lines: list = []


def _line(container, key=None):
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


class _Loader(_SafeLoader):
    """SafeLoader that reads ``2e12`` as a float (YAML 1.1 wants ``2.0e+12``) and keeps line numbers."""


class _Dumper(_SafeDumper):
    """SafeDumper that quotes strings ``_Loader`` would read as floats (a phase named ``1e5``)."""


for _cls in (_Loader, _Dumper):
    _cls.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))


def _represent_list(dumper, data):
    # lists of names or numbers on one line (after: [A, B]); lists of mappings as blocks
    flow = all(isinstance(item, (str, int, float)) for item in data)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flow)


_Dumper.add_representer(list, _represent_list)


def _construct_map(loader, node):
    data = _Map()
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
    data = _List()
    data.line = node.start_mark.line + 1
    data.lines = [item.start_mark.line + 1 for item in node.value]
    yield data
    data.extend(loader.construct_object(item, deep=True) for item in node.value)


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_list)


def _parse_yaml(source: Source):
    try:
        return yaml.load(source.text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        problem = " ".join(str(part) for part in (e.context, e.problem) if part)
        raise source.error(f"malformed YAML: {problem}" + (f" (column {mark.column + 1})" if mark else ""),
                           line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as e:
        raise source.error(f"malformed YAML: {e}") from None


def _parse_json(source: Source):
    def as_map(pairs):
        data = _Map()
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


def load(path, *, machine: Machine | str | None = None, percent: bool = False, format: str | None = None,
         **options) -> Workload:
    """Read a workload file in any registered format, recognized by its content.

    ``machine`` (a ``Machine`` or a preset name) replaces the file's machine: utilizations in the
    file are then fractions of *its* peaks. ``percent=True`` says a foreign file's utilizations are
    percentages (0–100) rather than fractions; our own format always holds fractions.
    ``format`` forces a registered format by name instead of sniffing. Other keyword ``options``
    go to the format's reader (e.g. ``clock=`` for Timeloop stats, ``group_by=`` for traces).

    Raises ``WorkloadFileError`` (a ``WorkloadError``, a ``ValueError``) naming the file and the
    line or field, and ``OSError`` if the file cannot be opened.
    """
    source = Source(path)
    if isinstance(machine, str):
        from .presets import machine as preset

        try:
            machine = preset(machine)
        except WorkloadError as e:
            raise source.error(str(e)) from None
    elif machine is not None and not isinstance(machine, Machine):
        raise TypeError(f"machine={machine!r} must be a campaign_widget.Machine or a preset name")
    fmt = _FORMATS.get(format) if format is not None else detect(source)
    if fmt is None:
        raise ValueError(f"format={format!r} is not a registered file format; known: {', '.join(_FORMATS)}")
    workload = fmt.read(source, machine=machine, percent=bool(percent), **options)
    if not isinstance(workload, Workload):
        raise TypeError(f"{source.name}: the reader of format {fmt.name!r} returned {type(workload).__name__}, "
                        "not a Workload (a bug in that reader)")
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
        + "; ".join(f"{f.name} ({f.description})" if f.description else f.name for f in _FORMATS.values()))


def _looks_like_csv(source: Source) -> bool:
    first = next((line for line in source.head().splitlines() if line.strip()), "")
    return first.count(",") >= 2


# -- our schema -------------------------------------------------------------------------------------


SNIFF_BYTES = 1 << 16


def _mentions(source: Source, *words: str) -> bool:
    """Cheap pre-check before parsing a whole (possibly huge) file: does its start mention a word?"""
    head = source.head(SNIFF_BYTES)
    return any(word in head for word in words)


def _sniff_ours(source: Source) -> bool:
    if not _mentions(source, "phases", FORMAT):
        return False
    doc = source.try_document()
    return isinstance(doc, dict) and (doc.get("format") == FORMAT or ("phases" in doc and "cascade" not in doc))


def _read_ours(source: Source, *, machine=None, percent=False, **options) -> Workload:
    _no_options(source, options)
    if percent:
        raise source.error(f"percent=True applies to foreign formats; {FORMAT} files hold utilizations as "
                           "fractions of peak")
    doc = source.document()
    _expect_map(source, doc, "the top level")
    _check_keys(source, doc, TOP_KEYS, "the top level")
    fmt = doc.get("format", FORMAT)
    if fmt != FORMAT:
        raise source.error(f"{fmt!r} is not {FORMAT!r}", line=_line(doc, "format"), field="format")
    version = doc.get("version", VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise source.error(f"{version!r} must be a whole number >= 1", line=_line(doc, "version"), field="version")
    if version > VERSION:
        raise source.error(f"this file is version {version}; this campaign_widget reads versions up to {VERSION}: "
                           "upgrade campaign_widget", line=_line(doc, "version"), field="version")
    file_machine = _read_machine(source, doc["machine"], _line(doc, "machine")) if doc.get("machine") is not None \
        else None
    settings = _read_settings(source, doc.get("settings"), _line(doc, "settings"))
    if "phases" not in doc:
        raise source.error("no 'phases' list: a workload needs at least one phase", line=_line(doc))
    phases_doc = doc["phases"]
    if not isinstance(phases_doc, list) or not phases_doc:
        raise source.error(f"must be a non-empty list of phases, got {_show(phases_doc)}",
                           line=_line(doc, "phases"), field="phases")
    phases = []
    group_of: dict[str, str] = {}
    for i, item in enumerate(phases_doc):
        where = f"phases[{i}]"
        line = _line(phases_doc, i)
        _expect_map(source, item, where, line)
        _check_keys(source, item, PHASE_KEYS, where)
        kwargs = {}
        for key in ("duration", "compute_util", "memory_util", "ops", "bytes"):
            if item.get(key) is not None:
                kwargs[key] = _number(source, item[key], f"{where}.{key}", _line(item, key))
        name = _name(source, item.get("name"), f"{where}.name", _line(item, "name") if "name" in item else line)
        after = item.get("after", [])
        if isinstance(after, str):
            after = [after]
        if after is None:
            after = []
        if not isinstance(after, list) or not all(isinstance(a, str) for a in after):
            raise source.error(f"{_show(after)} must be a phase name or a list of phase names",
                               line=_line(item, "after"), field=f"{where}.after")
        tileable = item.get("tileable", True)
        if not isinstance(tileable, bool):
            raise source.error(f"{_show(tileable)} must be true or false", line=_line(item, "tileable"),
                               field=f"{where}.tileable")
        for key in ("reads", "writes"):
            if item.get(key) is not None:
                kwargs[key] = _tensors(source, item[key], f"{where}.{key}", _line(item, key))
        if item.get("fusion_group") is not None:
            group_of[name] = _name(source, item["fusion_group"], f"{where}.fusion_group", _line(item, "fusion_group"))
        phases.append(_phase(source, line, name, after=tuple(after), tileable=tileable, **kwargs))
    workload = _workload(source, phases, machine if machine is not None else file_machine, settings,
                         [_line(phases_doc, i) for i in range(len(phases))])
    return mark_groups(workload, group_of) if group_of else workload


def _tensors(source: Source, value, where: str, line) -> dict:
    """``{tensor name: bytes}`` from a file."""
    if not isinstance(value, dict):
        raise source.error(f"{_show(value)} must map tensor names to bytes", line=line, field=where)
    return {str(t): _number(source, b, f"{where}.{t}", _line(value, t)) for t, b in value.items()}


def _read_machine(source: Source, doc, line) -> Machine:
    if isinstance(doc, str):
        return _preset(source, doc, line, "machine")
    _expect_map(source, doc, "machine", line)
    _check_keys(source, doc, MACHINE_KEYS, "machine")
    fields: dict[str, Any] = {}
    if doc.get("preset") is not None:
        base = _preset(source, doc["preset"], _line(doc, "preset"), "machine.preset")
        fields = {k: getattr(base, k) for k in MACHINE_KEYS if k != "preset"}
    for key in ("peak_compute", "peak_bandwidth"):
        if key in doc:
            fields[key] = _number(source, doc[key], f"machine.{key}", _line(doc, key))
        elif key not in fields:
            raise source.error(f"missing {key!r} (or give a preset: {_preset_names()})", line=_line(doc),
                               field="machine")
    for key in ("name", "compute_name", "memory_name", "ops_unit", "bytes_unit", "time_unit"):
        if key in doc:
            if not isinstance(doc[key], str):
                raise source.error(f"{_show(doc[key])} must be a string (quote it)", line=_line(doc, key),
                                   field=f"machine.{key}")
            fields[key] = doc[key]
    if "normalized" in doc:
        if not isinstance(doc["normalized"], bool):
            raise source.error(f"{_show(doc['normalized'])} must be true or false", line=_line(doc, "normalized"),
                               field="machine.normalized")
        fields["normalized"] = doc["normalized"]
    if doc.get("ceilings") is not None:
        ceilings = doc["ceilings"]
        if not isinstance(ceilings, list):
            raise source.error(f"{_show(ceilings)} must be a list of {{name, compute, bandwidth}}",
                               line=_line(doc, "ceilings"), field="machine.ceilings")
        parsed = []
        for i, item in enumerate(ceilings):
            where = f"machine.ceilings[{i}]"
            _expect_map(source, item, where, _line(ceilings, i))
            _check_keys(source, item, CEILING_KEYS, where)
            name = _name(source, item.get("name"), f"{where}.name", _line(item, "name") if "name" in item
                         else _line(ceilings, i))
            values = {k: _number(source, item[k], f"{where}.{k}", _line(item, k))
                      for k in ("compute", "bandwidth") if item.get(k) is not None}
            parsed.append(Ceiling(name, **values))
        fields["ceilings"] = tuple(parsed)
    try:
        return Machine(**fields)
    except (TypeError, ValueError) as e:
        raise source.error(str(e), line=line) from e


def _read_settings(source: Source, doc, line) -> dict:
    if doc is None:
        return {}
    _expect_map(source, doc, "settings", line)
    _check_keys(source, doc, SETTING_KEYS, "settings")
    settings = {}
    for key, value in doc.items():
        where, at = f"settings.{key}", _line(doc, key)
        if key in ("tiles", "depth"):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise source.error(f"{_show(value)} must be a whole number >= 1", line=at, field=where)
        elif key == "pipeline":
            if not isinstance(value, bool):
                raise source.error(f"{_show(value)} must be true or false", line=at, field=where)
        elif key == "policy":
            if value not in POLICIES:
                raise source.error(f"{_show(value)} is not one of {', '.join(POLICIES)}", line=at, field=where)
        settings[key] = value
    return settings


# -- the paper authors' cascade YAML -----------------------------------------------------------------


def _sniff_cascade(source: Source) -> bool:
    if not _mentions(source, "cascade"):
        return False
    doc = source.try_document()
    return isinstance(doc, dict) and "cascade" in doc


def _read_cascade(source: Source, *, machine=None, percent=False, **options) -> Workload:
    _no_options(source, options)
    doc = source.document()
    _expect_map(source, doc, "the top level")
    _check_keys(source, doc, ("cascade",), "the top level")
    cascade = doc["cascade"]
    _expect_map(source, cascade, "cascade", _line(doc, "cascade"))
    _check_keys(source, cascade, ("name", "kernels"), "cascade")
    kernels = cascade.get("kernels")
    if not isinstance(kernels, list) or not kernels:
        raise source.error(f"must be a non-empty list of kernels, got {_show(kernels)}",
                           line=_line(cascade, "kernels") if "kernels" in cascade else _line(cascade),
                           field="cascade.kernels")
    scale = 0.01 if percent else 1.0
    phases, previous = [], ()
    for i, kernel in enumerate(kernels):
        where, line = f"cascade.kernels[{i}]", _line(kernels, i)
        _expect_map(source, kernel, where, line)
        _check_keys(source, kernel, CASCADE_KERNEL_KEYS + CASCADE_IGNORED_KEYS, where)
        name = _name(source, kernel.get("name"), f"{where}.name", _line(kernel, "name") if "name" in kernel else line)
        if kernel.get("duration") is None:
            raise source.error("missing 'duration'", line=line, field=where)
        duration = _number(source, kernel["duration"], f"{where}.duration", _line(kernel, "duration"))
        # the tool's Kernel() defaults a missing utilization to 0
        uc = _number(source, kernel.get("compute_util", 0), f"{where}.compute_util", _line(kernel, "compute_util"))
        um = _number(source, kernel.get("bw_util", 0), f"{where}.bw_util", _line(kernel, "bw_util"))
        phases.append(_phase(source, line, name, duration=duration, compute_util=uc * scale,
                             memory_util=um * scale, after=previous))
        previous = (name,)
    lines = [_line(kernels, i) for i in range(len(phases))]
    _unique(source, list(zip((p.name for p in phases), lines)))
    return _workload(source, phases, machine, None, lines)


# -- CSV exports -------------------------------------------------------------------------------------


def _sniff_csv(source: Source) -> bool:
    first = next((line for line in source.head().splitlines() if line.strip()), "")
    header = {cell.strip().strip('"') for cell in first.split(",")}
    return "Einsum" in header or len(header & set(CSV_REQUIRED + CSV_OPTIONAL)) >= 3


def _read_csv(source: Source, *, machine=None, percent=False, **options) -> Workload:
    _no_options(source, options)
    reader = csv.reader(io.StringIO(source.text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise source.error("empty file: expected a header line with columns " + ", ".join(CSV_REQUIRED)) from None
    header = [h.strip() for h in header]
    column = {}
    for i, h in enumerate(header):
        column.setdefault(h, i)
    header_line = reader.line_num
    for required in CSV_REQUIRED:
        if required not in column:
            hint = difflib.get_close_matches(required, header, n=1)
            raise source.error(f"missing column {required!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                               + f"; columns found: {', '.join(header)}", line=header_line, field="header")
    names, lines, values = [], [], {key: [] for key in CSV_REQUIRED[1:]}
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        short = [key for key in CSV_REQUIRED if column[key] >= len(row)]
        if short:
            raise source.error(f"the row has {len(row)} fields; column {short[0]!r} is field {column[short[0]] + 1}",
                               line=line, field=f"column {short[0]!r}")
        name = row[column["Einsum"]].strip()
        if not name:
            raise source.error("empty phase name", line=line, field="column 'Einsum'")
        names.append(name)
        lines.append(line)
        for key in CSV_REQUIRED[1:]:
            cell = row[column[key]].strip()
            try:
                number = float(cell)
            except ValueError:
                raise source.error(f"{cell!r} is not a number", line=line, field=f"column {key!r}") from None
            if not math.isfinite(number):
                raise source.error(f"{cell!r} must be finite", line=line, field=f"column {key!r}")
            values[key].append(number)
    if not names:
        raise source.error("no phases: the file has a header but no rows", line=header_line)
    _unique(source, list(zip(names, lines)))
    start = np.asarray(values["Starting_Time"])
    end = np.asarray(values["End_Time"])
    backwards = np.flatnonzero(end < start)
    if backwards.size:
        i = int(backwards[0])
        raise source.error(f"End_Time {float(end[i])!r} is before Starting_Time {float(start[i])!r}", line=lines[i],
                           field="column 'End_Time'")
    order = np.argsort(start, kind="stable")
    producers = interval_dependencies(start, end)
    scale = 0.01 if percent else 1.0
    phases = []
    for i in order:
        phases.append(_phase(source, lines[i], names[i], duration=values["runtime"][i],
                             compute_util=values["Compute_Utilization"][i] * scale,
                             memory_util=values["Memory_Utilization"][i] * scale,
                             after=tuple(names[j] for j in producers[i])))
    return _workload(source, phases, machine, None, [lines[i] for i in order])


def interval_dependencies(start, end, rtol: float = CSV_TIME_RTOL) -> list[list[int]]:
    """For phases that ran over ``[start, end)``, the phases each one waited for.

    Phase i depends on phase j when j ended before i started and no phase k ran entirely between
    them (the transitive reduction of "ended before"): in a sequence each phase depends on the
    previous one; phases that overlap in time depend on neither. Times within ``rtol`` × the time
    span are equal.

    >>> interval_dependencies([0, 3, 3, 8], [3, 8, 5, 9])   # B and C overlap after A; D after both
    [[], [0], [0], [1, 2]]
    """
    start = np.asarray(start, dtype=np.float64)
    end = np.asarray(end, dtype=np.float64)
    n = start.size
    if n == 0:
        return []
    eps = rtol * max(float(end.max() - start.min()), float(np.abs(np.concatenate([start, end])).max()), 1e-300)
    by_end = np.argsort(end, kind="stable")
    sorted_end = end[by_end]
    latest_start = np.maximum.accumulate(start[by_end])  # the latest start among phases ended by then
    # phases ended at or before start_i (with tolerance): by_end[:done[i]]
    done = np.searchsorted(sorted_end, start + eps, side="right")
    result = []
    for i in range(n):
        k = int(done[i])
        if k == 0:
            result.append([])
            continue
        m = latest_start[k - 1]  # no phase that ended before m can be a direct producer
        first = int(np.searchsorted(sorted_end, m + eps, side="right"))
        result.append(sorted(int(j) for j in by_end[first:k] if j != i))
    return result


# -- writing ----------------------------------------------------------------------------------------


def to_document(workload: Workload) -> dict:
    """The workload as plain data in our schema: volumes, measured durations, dependencies,
    tileable, machine and settings — everything ``load`` needs to rebuild it exactly."""
    if not isinstance(workload, Workload):
        raise TypeError(f"expected a Workload, got {workload!r}")
    a = workload.arrays
    names = workload.names
    measured = workload.measured
    tileable = workload.tileable
    indptr, indices = workload.producers
    tensors = workload.tensors
    phases = []
    for i, name in enumerate(names):
        phase = {"name": name, "ops": float(a.ops[i]), "bytes": float(a.bytes[i])}
        if measured[i]:
            phase["duration"] = float(a.duration[i])
        producers = [names[int(j)] for j in indices[indptr[i]:indptr[i + 1]]]
        if producers:
            phase["after"] = producers
        if not tileable[i]:
            phase["tileable"] = False
        reads, writes = tensors[i]
        if reads:
            phase["reads"] = {t: float(b) for t, b in reads.items()}
        if writes:
            phase["writes"] = {t: float(b) for t, b in writes.items()}
        if workload.fusion_group[i] >= 0:
            phase["fusion_group"] = workload.fusion_groups[int(workload.fusion_group[i])]
        phases.append(phase)
    doc = {"format": FORMAT, "version": VERSION, "machine": _machine_document(workload.machine)}
    if workload.settings:
        doc["settings"] = {k: _plain(v) for k, v in workload.settings.items()}
    doc["phases"] = phases
    return doc


def _machine_document(m: Machine) -> dict:
    doc = {"name": m.name, "peak_compute": _plain(m.peak_compute), "peak_bandwidth": _plain(m.peak_bandwidth),
           "compute_name": m.compute_name, "memory_name": m.memory_name, "ops_unit": m.ops_unit,
           "bytes_unit": m.bytes_unit, "time_unit": m.time_unit, "normalized": bool(m.normalized)}
    if m.ceilings:
        doc["ceilings"] = [{"name": c.name, **{k: _plain(getattr(c, k)) for k in ("compute", "bandwidth")
                                               if getattr(c, k) is not None}} for c in m.ceilings]
    return doc


def _plain(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


_HEADER = (f"# campaign_widget workload ({FORMAT}, version {VERSION}): see docs/workload-files.md\n"
           "# Phases hold volumes (ops, bytes) and, when measured, their duration; utilizations follow from the\n"
           "# machine's peaks. Phases are listed in dependency order; `after` names each phase's producers.\n")


def dumps(workload: Workload, format: str = "yaml") -> str:
    """The workload as text in our schema: ``format`` is ``"yaml"`` (canonical) or ``"json"``."""
    doc = to_document(workload)
    if format == "yaml":
        return _HEADER + yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                                   default_flow_style=False, width=100)
    if format == "json":
        def dump(value, indent=None):
            return json.dumps(value, indent=indent, ensure_ascii=False, allow_nan=False)

        items = []
        for key, value in doc.items():
            if key == "phases":  # one phase per line: readable diffs
                inner = ",\n".join("    " + dump(phase) for phase in value)
                items.append(f'  "phases": [\n{inner}\n  ]')
            else:
                items.append(f"  {dump(key)}: " + dump(value, 2).replace("\n", "\n  "))
        return "{\n" + ",\n".join(items) + "\n}\n"
    raise ValueError(f"format={format!r} must be 'yaml' or 'json'")


def save(workload: Workload, path) -> Path:
    """Write ``workload`` to ``path`` in our schema, YAML or JSON by suffix (.yaml, .yml, .json).

    ``load(save(w, p))`` gives back the same names, volumes, measured durations, dependencies,
    tileable flags, machine (all fields) and settings, bit for bit.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in YAML_SUFFIXES:
        text = dumps(workload, "yaml")
    elif suffix in JSON_SUFFIXES:
        text = dumps(workload, "json")
    else:
        raise WorkloadFileError(f"unknown suffix {path.suffix!r}: save writes .yaml, .yml or .json", path=path)
    path.write_text(text, encoding="utf-8")
    return path


# -- shared helpers ---------------------------------------------------------------------------------


def _no_options(source: Source, options: dict) -> None:
    if options:
        raise TypeError(f"{source.name}: unknown load options {sorted(options)}")


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _expect_map(source: Source, value, where: str, line=None) -> None:
    if not isinstance(value, dict):
        raise source.error(f"must be a mapping of keys to values, got {_show(value)}", line=line,
                           field=None if where == "the top level" else where)


def _check_keys(source: Source, doc: dict, known, where: str) -> None:
    for key in doc:
        if key not in known:
            hint = difflib.get_close_matches(str(key), known, n=1)
            raise source.error(
                f"unknown key {key!r} in {where}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                + f"; known keys: {', '.join(known)}", line=_line(doc, key))


def _number(source: Source, value, where: str, line):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise source.error(f"{_show(value)} is not a number", line=line, field=where)
    return value


def _name(source: Source, value, where: str, line) -> str:
    if value is None:
        raise source.error("missing name", line=line, field=where)
    if not isinstance(value, str) or not value:
        raise source.error(f"{_show(value)} must be a non-empty string (quote it: name: \"{value}\")",
                           line=line, field=where)
    return value


def _preset(source: Source, name, line, where) -> Machine:
    from .presets import machine

    try:
        return machine(name)
    except WorkloadError as e:
        raise source.error(str(e), line=line, field=where) from None


def _preset_names() -> str:
    from .presets import MACHINES

    return ", ".join(MACHINES)


def _unique(source: Source, named_lines) -> None:
    seen = {}
    for name, line in named_lines:
        if name in seen:
            raise source.error(f"duplicate phase name {name!r} (first on line {seen[name]}); each phase needs "
                               "its own name", line=line)
        seen[name] = line


def _phase(source: Source, line, name, **kwargs) -> Phase:
    try:
        return Phase(name, **kwargs)
    except (TypeError, ValueError) as e:
        raise WorkloadFileError(str(e), path=source.name, line=line) from e


def _workload(source: Source, phases, machine, settings, lines=None) -> Workload:
    """Build the workload; its errors get the file name, and the line of the phase they name."""
    try:
        return Workload(phases, machine=machine, settings=settings)
    except (TypeError, ValueError) as e:
        message = str(e)
        line = None
        for phase, phase_line in zip(phases, lines or ()):
            if message.startswith(f"phase {phase.name!r}"):
                line = phase_line
                break
        raise WorkloadFileError(message, path=source.name, line=line) from e


register_format(FORMAT, _sniff_ours, _read_ours, suffixes=YAML_SUFFIXES + JSON_SUFFIXES, fallback=True,
                description="YAML or JSON with format: campaign-workload and phases:")
register_format("cascade-yaml", _sniff_cascade, _read_cascade, suffixes=YAML_SUFFIXES,
                description="the paper authors' YAML, cascade: {name, kernels: [...]}")
register_format("einsum-csv", _sniff_csv, _read_csv, suffixes=(".csv",), fallback=True,
                description="CSV with columns " + ", ".join(CSV_REQUIRED))
