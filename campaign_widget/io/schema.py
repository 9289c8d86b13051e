"""Our schema, ``campaign-workload``: the reader and the writer side by side (docs/workload-files.md).

>>> import tempfile, pathlib
>>> from campaign_widget import Machine, Phase, Workload, load
>>> w = Workload([Phase("A", duration=3, compute_util=0.7, memory_util=0.25)],
...              machine=Machine(200e9, 50e9), settings={"tiles": 4})
>>> path = save(w, pathlib.Path(tempfile.mkdtemp()) / "w.yaml")
>>> again = load(path)
>>> again.names, again.settings, float(again.arrays.ops[0]) == float(w.arrays.ops[0])
(['A'], {'tiles': 4}, True)
"""

from __future__ import annotations

import json
import numbers
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ..atomic import check_writable, write_atomic
from ..errors import ArgumentError, ScheduleError, WrongTypeError, check_flag
from ..model.fusion import mark_groups
from ..model.machine import Ceiling, Machine
from ..model.phase import Phase
from ..model.settings import DEFAULTS as DEFAULT_SETTINGS
from ..model.settings import check_setting
from ..model.workload import Workload
from .checks import (
    check_keys,
    expect_map,
    make_phase,
    make_workload,
    no_options,
    preset_names,
    read_name,
    read_number,
    read_preset,
    show,
)
from .source import JSON_SUFFIXES, YAML_SUFFIXES, Dumper, Source, WorkloadFileError, file_path, line_of

FORMAT = "campaign-workload"
VERSION = 1  # machine levels and per-level bytes are keys of version 1: an older reader names them unknown
TOP_KEYS = ("format", "version", "machine", "settings", "phases")
# a phase's keys are the fields of a Phase, in their order, and the workload's fusion group of it
PHASE_KEYS = (*(f.name for f in fields(Phase)), "fusion_group")
MACHINE_KEYS = (
    "preset",
    "name",
    "peak_compute",
    "peak_bandwidth",
    "compute_name",
    "memory_name",
    "ops_unit",
    "bytes_unit",
    "time_unit",
    "normalized",
    "ceilings",
    "levels",
    "latency",  # docs/memory-hierarchy.md#latency-and-the-concurrency-roof: a number, or {level: latency}
    "latency_unit",
    "clock",
    "capacity",
    "peaks",
)
CEILING_KEYS = ("name", "compute", "bandwidth")
PER_LEVEL_KEYS = ("bytes", "memory_util")  # a number (the farthest level) or {level: value, ...}
SETTING_KEYS = tuple(DEFAULT_SETTINGS)


def sniff(source: Source) -> bool:
    if not source.mentions("phases", FORMAT):
        return False
    doc = source.try_document()
    return isinstance(doc, dict) and (doc.get("format") == FORMAT or ("phases" in doc and "cascade" not in doc))


def read(source: Source, *, machine=None, percent=False, **options) -> Workload:
    no_options(source, options)
    if check_flag(percent, "percent"):
        raise source.error(
            f"percent=True applies to foreign formats; {FORMAT} files hold utilizations as fractions of peak"
        )
    doc = source.document()
    expect_map(source, doc, "the top level")
    check_keys(source, doc, TOP_KEYS, "the top level")
    fmt = doc.get("format", FORMAT)
    if fmt != FORMAT:
        raise source.error(f"{show(fmt)} is not {FORMAT!r}", line=line_of(doc, "format"), field="format")
    version = doc.get("version", VERSION)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise source.error(
            f"{show(version)} must be a whole number >= 1", line=line_of(doc, "version"), field="version"
        )
    if version > VERSION:
        raise source.error(
            f"this file is version {version}; this campaign_widget reads versions up to {VERSION}: "
            "upgrade campaign_widget",
            line=line_of(doc, "version"),
            field="version",
        )
    file_machine = (
        _read_machine(source, doc["machine"], line_of(doc, "machine")) if doc.get("machine") is not None else None
    )
    settings = _read_settings(source, doc.get("settings"), line_of(doc, "settings"))
    if "phases" not in doc:
        raise source.error("no 'phases' list: a workload needs at least one phase", line=line_of(doc))
    phases_doc = doc["phases"]
    if not isinstance(phases_doc, list) or not phases_doc:
        raise source.error(
            f"must be a non-empty list of phases, got {show(phases_doc)}", line=line_of(doc, "phases"), field="phases"
        )
    phases = []
    group_of: dict[str, str] = {}
    for i, item in enumerate(phases_doc):
        where = f"phases[{i}]"
        line = line_of(phases_doc, i)
        expect_map(source, item, where, line)
        check_keys(source, item, PHASE_KEYS, where)
        name = read_name(source, item.get("name"), f"{where}.name", line_of(item, "name") if "name" in item else line)
        kwargs = {}
        for key in ("duration", "compute_util", "memory_util", "ops", "bytes", "bytes_in_flight"):
            if item.get(key) is None:
                continue
            if key in PER_LEVEL_KEYS and isinstance(item[key], dict):
                kwargs[key] = _per_level(source, item[key], name, f"{where}.{key}", line_of(item, key))
            else:
                kwargs[key] = read_number(source, item[key], f"{where}.{key}", line_of(item, key))
        after = item.get("after", [])
        if isinstance(after, str):
            after = [after]
        if after is None:
            after = []
        if not isinstance(after, list) or not all(isinstance(a, str) for a in after):
            raise source.error(
                f"{show(after)} must be a phase name or a list of phase names",
                line=line_of(item, "after"),
                field=f"{where}.after",
            )
        tileable = item.get("tileable", True)
        if not isinstance(tileable, bool):
            raise source.error(
                f"{show(tileable)} must be true or false", line=line_of(item, "tileable"), field=f"{where}.tileable"
            )
        for key in ("reads", "writes"):
            if item.get(key) is not None:
                kwargs[key] = _tensors(source, item[key], f"{where}.{key}", line_of(item, key))
        if item.get("fusion_group") is not None:
            group_of[name] = read_name(
                source, item["fusion_group"], f"{where}.fusion_group", line_of(item, "fusion_group")
            )
        phases.append(make_phase(source, line, name, after=tuple(after), tileable=tileable, **kwargs))
    machine = machine if machine is not None else file_machine
    _check_phase_levels(source, phases_doc, phases, machine)
    workload = make_workload(source, phases, machine, settings, [line_of(phases_doc, i) for i in range(len(phases))])
    return mark_groups(workload, group_of) if group_of else workload


def _per_level(source: Source, value: dict, phase: str, where: str, line) -> dict:
    """``{level name: number}`` of a phase's ``bytes`` or ``memory_util``; null is an unknown level."""
    if not value:
        raise source.error(
            f"phase {show(phase)}: {{}} names no memory level; give a number or {{level: value, ...}}",
            line=line,
            field=where,
        )
    levels = {}
    for level, number in value.items():
        name = read_name(source, level, f"{where} (a memory level name)", line_of(value, level))
        levels[name] = None if number is None else read_number(source, number, f"{where}.{name}", line_of(value, level))
        if levels[name] is not None and levels[name] < 0:
            raise source.error(
                f"phase {show(phase)}: level {show(name)}: {show(number)} must be >= 0",
                line=line_of(value, level),
                field=f"{where}.{name}",
            )
    return levels


def _check_phase_levels(source: Source, phases_doc: list, phases: list, machine: Machine | None) -> None:
    """Every level a phase names is one of the machine's, refused at the line of that level's key."""
    levels = (machine or Machine.unit()).level_names
    for i, phase in enumerate(phases):
        for key in PER_LEVEL_KEYS:
            for level, value in phase.level_values(key).items():
                if level in levels:
                    continue
                given = phases_doc[i][key]
                has = f"{len(levels)} levels: {', '.join(levels)}" if len(levels) > 1 else f"one level, {levels[0]!r}"
                raise source.error(
                    f"phase {show(phase.name)}: {key} for memory level {show(level)} ({show(value)}), but the "
                    f"machine has no level {show(level)}; it has {has} (give the machine levels: "
                    "{name: bandwidth, ...}, or name one of its levels)",
                    line=line_of(given, level),
                    field=f"phases[{i}].{key}.{level}",
                )


def _tensors(source: Source, value, where: str, line) -> dict:
    """``{tensor name: bytes}`` from a file."""
    if not isinstance(value, dict):
        raise source.error(f"{show(value)} must map tensor names to bytes", line=line, field=where)
    return {
        read_name(source, t, f"{where} (a tensor name)", line_of(value, t)): read_number(
            source, b, f"{where}.{t}", line_of(value, t)
        )
        for t, b in value.items()
    }


def _read_machine(source: Source, doc, line) -> Machine:
    if isinstance(doc, str):
        return read_preset(source, doc, line, "machine")
    expect_map(source, doc, "machine", line)
    check_keys(source, doc, MACHINE_KEYS, "machine")
    fields: dict[str, Any] = {}
    base = None
    if doc.get("preset") is not None:
        base = read_preset(source, doc["preset"], line_of(doc, "preset"), "machine.preset")
        fields = {k: getattr(base, k) for k in MACHINE_KEYS if k != "preset"}
    if doc.get("levels") is not None:
        fields["levels"] = _read_levels(source, doc["levels"], line_of(doc, "levels"))
        farthest = fields["levels"][-1][0]
        if "memory_name" in doc and doc["memory_name"] != farthest:
            raise source.error(
                f"{show(doc['memory_name'])} differs from the farthest memory level {show(farthest)}: with levels, "
                "the farthest level names the memory (leave memory_name out)",
                line=line_of(doc, "memory_name"),
                field="machine.memory_name",
            )
        fields.pop("memory_name", None)  # a machine with levels names its farthest level itself
        if base is not None and base.capacity:  # the preset's: its farthest level's is the new farthest's
            names = [name for name, _ in fields["levels"]]
            old = dict(base.capacity)
            kept = {level: old[level] for level in names[:-1] if level in old and level != base.level_names[-1]}
            if base.level_names[-1] in old:
                kept[farthest] = old[base.level_names[-1]]
            fields["capacity"] = tuple(kept.items())
        if "peak_bandwidth" not in doc:
            fields["peak_bandwidth"] = None
    elif "peak_bandwidth" in doc and fields.get("levels"):
        # a preset's levels with another bandwidth for the farthest, as Machine.with_peaks gives
        *near, (far, _) = fields["levels"]
        fields["levels"] = (
            *near,
            (far, read_number(source, doc["peak_bandwidth"], "machine.peak_bandwidth", line_of(doc, "peak_bandwidth"))),
        )
    for key in ("peak_compute", "peak_bandwidth"):
        if key in doc:
            fields[key] = read_number(source, doc[key], f"machine.{key}", line_of(doc, key))
        elif key not in fields:
            raise source.error(
                f"missing {key!r} (or give levels: {{name: bandwidth, ...}}, or a preset: {preset_names()})"
                if key == "peak_bandwidth"
                else f"missing {key!r} (or give a preset: {preset_names()})",
                line=line_of(doc),
                field="machine",
            )
    for key in ("name", "compute_name", "memory_name", "ops_unit", "bytes_unit", "time_unit"):
        if key in doc:
            if not isinstance(doc[key], str):
                raise source.error(
                    f"{show(doc[key])} must be a string (quote it)", line=line_of(doc, key), field=f"machine.{key}"
                )
            fields[key] = doc[key]
    if "normalized" in doc:
        if not isinstance(doc["normalized"], bool):
            raise source.error(
                f"{show(doc['normalized'])} must be true or false",
                line=line_of(doc, "normalized"),
                field="machine.normalized",
            )
        fields["normalized"] = doc["normalized"]
    _read_latency(source, doc, fields)
    if doc.get("ceilings") is not None:
        ceilings = doc["ceilings"]
        if not isinstance(ceilings, list):
            raise source.error(
                f"{show(ceilings)} must be a list of {{name, compute, bandwidth}}",
                line=line_of(doc, "ceilings"),
                field="machine.ceilings",
            )
        parsed = []
        for i, item in enumerate(ceilings):
            where = f"machine.ceilings[{i}]"
            expect_map(source, item, where, line_of(ceilings, i))
            check_keys(source, item, CEILING_KEYS, where)
            name = read_name(
                source,
                item.get("name"),
                f"{where}.name",
                line_of(item, "name") if "name" in item else line_of(ceilings, i),
            )
            values = {
                k: read_number(source, item[k], f"{where}.{k}", line_of(item, k))
                for k in ("compute", "bandwidth")
                if item.get(k) is not None
            }
            try:
                parsed.append(Ceiling(name, **values))
            except (TypeError, ValueError) as e:  # a ceiling with no roof, or one above the peaks
                raise source.error(str(e), line=line_of(ceilings, i), field=where) from e
        fields["ceilings"] = tuple(parsed)
    _read_typed(source, doc, fields)
    try:
        return Machine(**fields)
    except (TypeError, ValueError) as e:
        raise source.error(str(e), line=line) from e


def _read_latency(source: Source, doc: dict, fields: dict) -> None:
    """``machine.latency`` (a number, or ``{level: latency}``), ``latency_unit`` and ``clock`` into
    ``fields``; the Machine checks their values and names the level."""
    latency = doc.get("latency")
    if isinstance(latency, dict):
        fields["latency"] = {
            level: read_number(source, value, f"machine.latency.{level}", line_of(latency, level))
            for level, value in latency.items()
        }
    elif latency is not None:
        fields["latency"] = read_number(source, latency, "machine.latency", line_of(doc, "latency"))
    if doc.get("latency_unit") is not None:
        fields["latency_unit"] = doc["latency_unit"]
    if doc.get("clock") is not None:
        fields["clock"] = read_number(source, doc["clock"], "machine.clock", line_of(doc, "clock"))


def _read_typed(source: Source, doc, fields: dict) -> None:
    """``machine.capacity`` (bytes: a number for the farthest level, or {level: bytes}) and
    ``machine.peaks`` ({data type: ops/s}, the first one peak_compute's), docs/llm-inference.md#memory-capacity;
    a preset's typed peaks scale with a ``peak_compute`` given beside it, as ``Machine.with_peaks`` does."""
    for key in ("capacity", "peaks"):
        value = doc.get(key)
        if value is None:
            continue
        if isinstance(value, dict):
            fields[key] = {k: read_number(source, v, f"machine.{key}.{k}", line_of(value, k)) for k, v in value.items()}
        elif key == "capacity":
            fields[key] = read_number(source, value, "machine.capacity", line_of(doc, key))
        else:
            raise source.error(
                f"{show(value)} must map data types to peaks ({{fp16: 989.5e12, int8: 1979e12}})",
                line=line_of(doc, key),
                field="machine.peaks",
            )
    if doc.get("peaks") is None and "peak_compute" in doc and fields.get("peaks"):
        first = fields["peaks"][0][1]
        fields["peaks"] = tuple((t, p * fields["peak_compute"] / first) for t, p in fields["peaks"])


def _read_levels(source: Source, doc, line) -> tuple[tuple[str, float], ...]:
    """``machine.levels``: ``{name: bandwidth, ...}``, nearest to compute first."""
    if not isinstance(doc, dict) or not doc:
        raise source.error(
            f"{show(doc)} must map memory level names to bandwidths, nearest to compute first "
            "({L2: 5.5e12, HBM: 3.35e12})",
            line=line,
            field="machine.levels",
        )
    levels = []
    for name, bandwidth in doc.items():
        where = f"machine.levels.{name}"
        level_line = line_of(doc, name)
        read_name(source, name, "machine.levels (a memory level name)", level_line)
        if bandwidth is None:
            raise source.error(
                f"memory level {show(name)} has no bandwidth; give one in bytes/s", line=level_line, field=where
            )
        read_number(source, bandwidth, where, level_line)
        if not bandwidth > 0:
            raise source.error(
                f"memory level {show(name)}: bandwidth {show(bandwidth)} must be > 0 (bytes/s)",
                line=level_line,
                field=where,
            )
        levels.append((name, bandwidth))
    return tuple(levels)


def _read_settings(source: Source, doc, line) -> dict:
    if doc is None:
        return {}
    expect_map(source, doc, "settings", line)
    check_keys(source, doc, SETTING_KEYS, "settings")
    settings = {}
    for key, value in doc.items():
        try:
            settings[key] = check_setting(key, value)
        except ScheduleError as e:
            raise source.error(str(e), line=line_of(doc, key), field=f"settings.{key}") from None
    return settings


def to_document(workload: Workload) -> dict:
    """The workload as plain data in our schema: volumes, measured durations, dependencies,
    tileable, machine and settings — everything ``load`` needs to rebuild it exactly."""
    if not isinstance(workload, Workload):
        raise WrongTypeError(f"expected a Workload, got {type(workload).__name__}")
    a = workload.arrays
    names = workload.names
    measured = workload.measured
    tileable = workload.tileable
    indptr, indices = workload.producers
    tensors = workload.tensors
    levels = workload.machine.level_names if workload.machine.levels else ()
    in_flight = workload.bytes_in_flight
    phases = []
    for i, name in enumerate(names):
        phase = {"name": name, "ops": float(a.ops[i])}
        if not levels:
            phase["bytes"] = float(a.bytes[i])
        else:  # the known levels only: a level left out is unknown (docs/memory-hierarchy.md#phases-per-level)
            known = {level: float(b) for level, b in zip(levels, a.level_bytes[i]) if not np.isnan(b)}
            if known:
                phase["bytes"] = known
        if measured[i]:
            phase["duration"] = float(a.duration[i])
        producers = [names[int(j)] for j in indices[indptr[i] : indptr[i + 1]]]
        if producers:
            phase["after"] = producers
        if not tileable[i]:
            phase["tileable"] = False
        reads, writes = tensors[i]
        if reads:
            phase["reads"] = {t: float(b) for t, b in reads.items()}
        if writes:
            phase["writes"] = {t: float(b) for t, b in writes.items()}
        if in_flight is not None and not np.isnan(in_flight[i]):
            phase["bytes_in_flight"] = float(in_flight[i])
        if workload.fusion_group[i] >= 0:
            phase["fusion_group"] = workload.fusion_groups[int(workload.fusion_group[i])]
        phases.append(phase)
    doc = {"format": FORMAT, "version": VERSION, "machine": _machine_document(workload.machine)}
    if workload.settings:
        doc["settings"] = {k: _plain(v) for k, v in workload.settings.items()}
    doc["phases"] = phases
    return doc


def _machine_document(m: Machine) -> dict:
    doc = {"name": m.name, "peak_compute": _plain(m.peak_compute)}
    if m.levels:  # the farthest level is the peak bandwidth and names the memory: written once, in levels
        doc["levels"] = {level: _plain(bandwidth) for level, bandwidth in m.levels}
    else:
        doc["peak_bandwidth"] = _plain(m.peak_bandwidth)
    doc["compute_name"] = m.compute_name
    if not m.levels:
        doc["memory_name"] = m.memory_name
    doc.update(ops_unit=m.ops_unit, bytes_unit=m.bytes_unit, time_unit=m.time_unit, normalized=bool(m.normalized))
    if m.latency:
        doc["latency"] = {level: _plain(value) for level, value in m.latency}
        if m.latency_unit != "s":
            doc["latency_unit"] = m.latency_unit
    if m.clock is not None:
        doc["clock"] = _plain(m.clock)
    if m.capacity:
        doc["capacity"] = {level: _plain(size) for level, size in m.capacity}
    if m.peaks:
        doc["peaks"] = {dtype: _plain(peak) for dtype, peak in m.peaks}
    if m.ceilings:
        doc["ceilings"] = [
            {
                "name": c.name,
                **{k: _plain(getattr(c, k)) for k in ("compute", "bandwidth") if getattr(c, k) is not None},
            }
            for c in m.ceilings
        ]
    return doc


def _plain(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


_HEADER = (
    f"# campaign_widget workload ({FORMAT}, version {VERSION}): see docs/workload-files.md\n"
    "# Phases hold volumes (ops, bytes) and, when measured, their duration; utilizations follow from the\n"
    "# machine's peaks. Phases are listed in dependency order; `after` names each phase's producers.\n"
)
_LEVELS_HEADER = (
    "# The machine's memory levels are listed nearest to compute first; a phase's bytes name the levels\n"
    "# it is known at (a level left out is unknown, not 0).\n"
)


def dumps(workload: Workload, format: str = "yaml") -> str:
    """The workload as text in our schema: ``format`` is ``"yaml"`` (canonical) or ``"json"``."""
    doc = to_document(workload)
    if format == "yaml":
        header = _HEADER
        if doc["machine"].get("levels"):
            header += _LEVELS_HEADER
        return header + yaml.dump(
            doc, Dumper=Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
        )
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
    raise ArgumentError(f"format={show(format)} must be 'yaml' or 'json'")


def save(workload: Workload, path) -> Path:
    """Write ``workload`` to ``path`` in our schema, YAML or JSON by suffix (.yaml, .yml, .json).

    The file is written whole or not at all (a temporary file in the same folder, then renamed over
    ``path``): if anything fails, the previous file is left as it was and the error names ``path``.
    ``load(save(w, p))`` gives back the same names, volumes, measured durations, dependencies,
    tileable flags, machine (all fields) and settings, bit for bit.
    """
    path = file_path(path)
    suffix = path.suffix.lower()
    check_writable(path)  # before the document is built: a file that cannot be replaced fails at once
    if suffix in YAML_SUFFIXES:
        text = dumps(workload, "yaml")
    elif suffix in JSON_SUFFIXES:
        text = dumps(workload, "json")
    else:
        raise WorkloadFileError(f"unknown suffix {path.suffix!r}: save writes .yaml, .yml or .json", path=path)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as e:
        bad = text[e.start : e.end]
        line = text.count("\n", 0, e.start) + 1
        raise WorkloadFileError(
            f"nothing written: character {ascii(bad)} on line {line} of the document cannot be "
            f"encoded as UTF-8 ({e.reason})",
            path=path,
        ) from None
    write_atomic(path, data)
    return path
