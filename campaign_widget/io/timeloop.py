"""Timeloop stats (``timeloop-model.stats.txt``, ``timeloop-mapper.stats.txt``) → a Workload.

One phase per stats file (several files: several phases, in the order given, each after the previous),
or one per layer when a file holds several runs one after another (several ``Summary Stats``).

- duration = ``Cycles`` (the *Summary Stats*) / ``clock`` (Hz, given by the caller; Timeloop's stats hold
  no clock). With a machine whose ``time_unit`` is ``"cycle"`` no clock is needed: durations stay in
  cycles. Without either, the clock the file's own ``GFLOPs (@1GHz)`` line assumes is taken (1 GHz), and
  the report says so; a file without that line needs one of them.
- ops = the computes (``Computes = N``, or ``MACCs = N`` in older Timeloop) × ``ops_per_compute``
  (default 2: a MAC is a multiply and an add).
- bytes = every storage level's accesses, one memory level each (docs/memory-hierarchy.md#phases-per-level): Σ over its dataspaces
  (Weights, Inputs, Outputs) of (scalar reads + fills + updates per instance) × utilized instances × word
  bits / 8 (``Word bits``, or ``Data word bits`` as Sparseloop spells it). Newer Timeloop prints
  ``Actual scalar reads``; those are taken when present. The levels are the machine's, nearest to compute
  first (Timeloop's ``Level N`` order); the outermost (DRAM, BackingStorage) is the farthest, and its bytes
  are the phase's ``bytes``.
- machine: the file's storage levels. A level's bandwidth is (read bandwidth + write bandwidth, words/cycle
  per instance; or the shared bandwidth when only that is printed) × instances × word bytes × clock, where
  the SPECS give numbers; else the given ``machine``'s level of the same name (any case). A given machine's
  levels that the file does not have are refused, naming both lists. Compute = the given machine's peak,
  else arithmetic instances × ops_per_compute × clock. Most real stats print ``-`` (unbounded) for the
  outer level's bandwidth: those files need ``machine=``. The report says where each number came from.
- one level, as before: with a one-level ``machine`` or with ``memory_level="GlobalBuffer"``, bytes are the
  accesses of that one level (default: the one named ``DRAM``, any case, else the outermost), and the
  machine is the given one, or inferred from that level's SPECS.

Errors name the file's own fields (``Summary Stats.Cycles``, ``DRAM.Data word bits``), not the workload's.
"""

from __future__ import annotations

import math
import numbers
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import ArgumentError, WorkloadError, WrongTypeError, short_repr
from ..model.import_report import ImportReport, PhaseReport
from ..model.machine import Machine
from ..model.phase import LARGEST, SMALLEST
from ..model.workload import Workload
from ._common import build_workload, chain, check_percent, error, head_text, preset_or_machine, read_text, source_of
from .checks import preset_names
from .source import Source, WorkloadFileError

FORMAT = "timeloop-stats"
CYCLE_UNITS = ("cycle", "cycles")
_LEVEL = re.compile(r"^Level (\d+)\s*$")
_NAME = re.compile(r"^=== (.+) ===\s*$")
_KV = re.compile(r"^\s*([^:]+?)\s*:\s*(.*?)\s*$")
_DATASPACE = re.compile(r"^    (\w[\w ]*):\s*$")
_COMPUTES = re.compile(r"^\s*(Computes|MACCs|Algorithmic Computes|Actual Computes)\s*=\s*([0-9.eE+]+)\s*$")
_CYCLES = re.compile(r"^Cycles:\s*([0-9.eE+]+)\s*$")
_ASSUMED_CLOCK = re.compile(r"^GFLOPs \(@([0-9.]+)\s*GHz\)\s*:")
WORD_BITS = ("Word bits", "Data word bits")  # Timeloop, Sparseloop
CLOCK_RANGE = (1.0, 1e13)  # Hz: a clock outside this is a mistake (a period, a unit slip), not a machine
MAX_CHARS = 64 << 20
MAX_LINE = 4096


@dataclass
class _Level:
    index: int
    name: str
    line: int
    specs: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)
    dataspaces: dict = field(default_factory=dict)  # name → {key: value text}

    @property
    def is_storage(self) -> bool:
        return bool(self.dataspaces)


@dataclass
class _Run:
    line: int
    levels: list = field(default_factory=list)
    cycles: float | None = None
    cycles_line: int | None = None
    computes: float | None = None
    computes_label: str = ""
    computes_line: int | None = None
    assumed_clock: float | None = None


def read_timeloop_stats(
    paths,
    *,
    clock: float | None = None,
    machine=None,
    memory_level: str | None = None,
    ops_per_compute: float = 2,
    names=None,
    percent: bool = False,
):
    """Read Timeloop stats file(s) into a ``Workload``: one phase per file (or per layer in a file).

    ``clock``: the accelerator's clock in Hz (default: none if ``machine.time_unit`` is ``"cycle"``, else the
    1 GHz the file's ``GFLOPs (@1GHz)`` assumes, else an error). ``names``: phase names (default: the stats
    files' folder names, or ``layer k`` inside one file).

    Without ``memory_level`` and with no machine or one with several levels, every storage level is a
    memory level of the workload's machine (bandwidths from the SPECS, else from ``machine``'s level of
    that name). ``memory_level``, or a one-level ``machine``: one level's accesses are the phase's bytes
    (default: ``DRAM`` if named so, else the outermost level), as in a one-level reading. ``machine``: the
    peaks; default: inferred from the file's SPECS (most files print no bandwidth for the outer level:
    then ``machine=`` is needed).
    """
    if isinstance(paths, (str, Path, Source)):
        paths = [paths]
    paths = list(paths)
    if not paths:
        raise ArgumentError("give at least one Timeloop stats file")
    first_name = source_of(paths[0])[0]
    machine = preset_or_machine(first_name, machine)
    check_percent(first_name, percent)
    if isinstance(ops_per_compute, bool) or not isinstance(ops_per_compute, numbers.Real):
        raise WrongTypeError(f"ops_per_compute={short_repr(ops_per_compute)} must be a number of ops per compute")
    if not 0 < float(ops_per_compute) <= 1e6:
        raise ArgumentError(f"ops_per_compute={short_repr(ops_per_compute)} must be > 0 and at most 1e6")
    ops_per_compute = float(ops_per_compute)
    in_cycles = machine is not None and machine.time_unit in CYCLE_UNITS
    if clock is not None:
        if isinstance(clock, bool) or not isinstance(clock, numbers.Real):
            raise WrongTypeError(f"clock={short_repr(clock)} must be a frequency in Hz (a number, e.g. 1e9)")
        low, high = CLOCK_RANGE
        if not low <= float(clock) <= high:
            raise ArgumentError(
                f"clock={short_repr(clock)} must be a frequency in Hz within [{low:g}, {high:g}] (e.g. 1e9 for 1 GHz)"
            )
        clock = float(clock)
    report = ImportReport(path=", ".join(source_of(p)[0] for p in paths), format=FORMAT)
    runs = []
    for p in paths:
        name, source, file_path = source_of(p)
        text = read_text(name, source, file_path)
        for k, run in enumerate(_parse(name, text)):
            runs.append((name, k, run))
    if clock is None and not in_cycles:
        assumed = {run.assumed_clock for _, _, run in runs}
        if None in assumed or len(assumed) != 1:
            raise error(
                first_name,
                "missing clock: Timeloop's stats count cycles and hold no clock; pass clock= (Hz, e.g. 1e9), "
                "or a machine with time_unit='cycle' to keep durations in cycles",
                field="clock",
            )
        clock = assumed.pop()
        report.notes.append(
            f"clock {clock:g} Hz: the clock the file's 'GFLOPs (@{clock / 1e9:g}GHz)' assumes (no clock= given)"
        )
    hz = 1.0 if clock is None else clock
    if names is None:
        names = _default_names(runs)
    names = list(names)
    if len(names) != len(runs):
        raise ArgumentError(f"names has {len(names)} entries for {len(runs)} Timeloop runs")
    machine_levels = 0 if machine is None else len(machine.level_names)
    several = len(_storage_levels(runs[0][2])) > 1 if machine is None else machine_levels > 1
    if memory_level is None and several:
        return _read_levels(runs, names, machine, clock, hz, in_cycles, ops_per_compute, report)
    if machine is not None and len(machine.level_names) > 1:
        raise error(
            first_name,
            f"memory_level={memory_level!r} reads one storage level, but the machine has {len(machine.level_names)} "
            f"memory levels ({', '.join(machine.level_names)}): leave memory_level out to read every level, or pass "
            "a one-level machine",
            field="memory_level",
        )
    durations, ops, volumes = [], [], []
    inferred = None
    for (name, k, run), phase in zip(runs, names):
        level = _memory_level(name, run, memory_level)
        volume, word_bytes = _bytes(name, level)
        cycles = run.cycles
        duration = cycles / hz
        computes = run.computes
        _check(name, run, phase, duration, computes * ops_per_compute, volume, level)
        durations.append(duration)
        ops.append(computes * ops_per_compute)
        volumes.append(volume)
        report.phases.append(
            PhaseReport(
                name=phase,
                duration=duration,
                ops=ops[-1],
                bytes=volume,
                flops="computed",
                bytes_source="counted",
                details={
                    "file": name,
                    "run": k,
                    "cycles": cycles,
                    "clock": clock,
                    run.computes_label: computes,
                    "memory_level": level.name,
                    "word_bytes": word_bytes,
                },
            )
        )
        report.notes.append(
            f"{phase}: {cycles:g} cycles, {computes:g} {run.computes_label} × {ops_per_compute:g} "
            f"ops; bytes = reads + fills + updates of level {level.index} {level.name!r} × "
            f"{word_bytes:g} B/word"
            + ("" if memory_level else " (default level: pass memory_level= to choose another)")
        )
        if inferred is None and machine is None:
            inferred = _infer_machine(name, run, level, ops_per_compute, hz, in_cycles, report)
    if machine is None:
        machine = inferred
    else:
        report.machine_source = machine.name or "given"
    return build_workload(
        report.path, names, duration=durations, ops=ops, bytes_=volumes, machine=machine, report=report
    )


def _read_levels(runs, names, machine, clock, hz, in_cycles, ops_per_compute, report):
    """Every storage level's bytes, the architecture's levels as the machine's (nearest to compute first)."""
    first_name, _, first = runs[0]
    order = _storage_levels(first)
    level_names = [lv.name for lv in order]
    durations, ops = [], []
    volumes = {level: [] for level in level_names}
    for (name, k, run), phase in zip(runs, names):
        storage = _storage_levels(run)
        if [lv.name for lv in storage] != level_names:
            raise error(
                name,
                f"this run's storage levels ({', '.join(lv.name for lv in storage)}) differ from those of "
                f"{first_name}'s first run ({', '.join(level_names)}); read runs of different architectures "
                "separately, or pass memory_level= to read one level of each",
                line=run.line,
            )
        duration = run.cycles / hz
        computes = run.computes
        per_level, word_bytes = {}, {}
        for level in reversed(storage):  # the outermost first: its errors are the ones a one-level read gives
            per_level[level.name], word_bytes[level.name] = _bytes(name, level)
            _check(name, run, phase, duration, computes * ops_per_compute, per_level[level.name], level)
        durations.append(duration)
        ops.append(computes * ops_per_compute)
        for level in level_names:
            volumes[level].append(per_level[level])
        far = level_names[-1]
        report.phases.append(
            PhaseReport(
                name=phase,
                duration=duration,
                ops=ops[-1],
                bytes=per_level[far],
                flops="computed",
                bytes_source="counted",
                details={
                    "file": name,
                    "run": k,
                    "cycles": run.cycles,
                    "clock": clock,
                    run.computes_label: computes,
                    "memory_level": far,
                    "word_bytes": word_bytes[far],
                    "level_bytes": {level: per_level[level] for level in level_names},
                    "level_word_bytes": {level: word_bytes[level] for level in level_names},
                },
            )
        )
        report.notes.append(
            f"{phase}: {run.cycles:g} cycles, {computes:g} {run.computes_label} × {ops_per_compute:g} ops; bytes "
            "per storage level, nearest to compute first = its reads + fills + updates × its word bytes: "
            + ", ".join(f"{level} {per_level[level]:g} B ({word_bytes[level]:g} B/word)" for level in level_names)
        )
    levels_machine = _levels_machine(first_name, first, order, machine, ops_per_compute, hz, in_cycles, report)
    try:
        workload = Workload.from_arrays(
            names,
            duration=durations,
            ops=ops,
            bytes=volumes[level_names[-1]],
            level_bytes={level: volumes[level] for level in level_names[:-1]},
            after=chain(list(names)),
            machine=levels_machine,
        )
    except WorkloadError as e:
        raise WorkloadFileError(str(e), path=report.path) from e
    return workload.with_import_report(report)


def _storage_levels(run: _Run) -> list[_Level]:
    """The storage levels, nearest to compute first (Timeloop numbers them outward from the arithmetic)."""
    return sorted((lv for lv in run.levels if lv.is_storage), key=lambda lv: lv.index)


def _level_bandwidth(name, level: _Level, hz) -> tuple[float | None, str]:
    """A storage level's bandwidth from its SPECS (bytes per second, or per cycle), or None and why not:
    (read + write bandwidth, words/cycle per instance) × instances × word bytes × clock; a level that
    prints only a shared bandwidth has that one."""
    rates, problems = [], []
    for key in ("Read bandwidth", "Write bandwidth"):
        value = level.specs.get(key)
        rate = _rate(value)
        if rate is None:
            shown = "absent" if value is None else short_repr(value[0])
            unbounded = ": unbounded" if value is not None and value[0].strip() == "-" else ""
            problems.append(f"a number for {level.name}.{key} (it is {shown}{unbounded})")
        rates.append(rate)
    per_cycle = None if problems else sum(rates)
    if per_cycle is None and _rate(level.specs.get("Shared bandwidth")) is not None:
        per_cycle, problems = _rate(level.specs["Shared bandwidth"]), []
    word_bits, key = _word_bits(level)
    if per_cycle is None or word_bits is None:
        return None, " and ".join(problems) or f"a {key} for level {level.name!r}"
    inst = _num(name, level.specs.get("Instances", ("1", level.line)), f"{level.name}.Instances")
    bandwidth = per_cycle * inst * _num(name, word_bits, f"{level.name}.{key}") / 8 * hz
    if not bandwidth:
        return None, f"a bandwidth above 0 for level {level.name!r}"
    return bandwidth, ""


def _rate(value) -> float | None:
    if value is None:
        return None
    try:
        rate = float(value[0])
    except ValueError:
        return None
    return rate if math.isfinite(rate) and rate >= 0 else None


def _levels_machine(name, run: _Run, order, machine, ops_per_compute, hz, in_cycles, report) -> Machine:
    """The machine whose memory levels are the file's storage levels: each level's bandwidth from the
    SPECS where they give one, else from ``machine``'s level of that name; compute from ``machine``, else
    from the SPECS."""
    unit = "cycle" if in_cycles else "s"
    file_levels = [lv.name for lv in order]
    given = {}
    if machine is not None:
        by_name = {level.lower(): level for level in file_levels}
        unmatched = [level for level in machine.level_names if level.lower() not in by_name]
        if unmatched:
            raise error(
                name,
                f"the machine's memory levels ({', '.join(machine.level_names)}) do not match this file's storage "
                f"levels (nearest to compute first: {', '.join(file_levels)}): "
                f"{', '.join(repr(u) for u in unmatched)} {'is' if len(unmatched) == 1 else 'are'} not among them. "
                "Name the machine's levels as the file does, or pass a one-level machine (or memory_level=) to "
                "read one level",
                line=run.line,
                field="machine",
            )
        given = {by_name[level.lower()]: bandwidth for level, bandwidth in machine.memory_levels}
    levels, sources, missing = [], [], []
    for level in order:
        bandwidth, why = _level_bandwidth(name, level, hz)
        if bandwidth is not None:
            if level.name in given and not math.isclose(given[level.name], bandwidth, rel_tol=1e-9):
                report.notes.append(
                    f"level {level.name!r}: the SPECS' bandwidth {bandwidth:.4g} B/{unit} is used; the machine "
                    f"gives {given[level.name]:.4g}"
                )
            levels.append((level.name, bandwidth))
            sources.append(f"{level.name} {bandwidth:.4g} B/{unit} (SPECS)")
        elif level.name in given:
            levels.append((level.name, given[level.name]))
            sources.append(f"{level.name} {given[level.name]:.4g} B/{unit} (machine)")
        else:
            missing.append(why)
    compute = machine.peak_compute if machine is not None else None
    arithmetic = next((lv for lv in run.levels if not lv.is_storage), None)
    if compute is None:
        if arithmetic is not None and "Instances" in arithmetic.specs:
            instances = _num(name, arithmetic.specs["Instances"], f"{arithmetic.name}.Instances")
            compute = instances * ops_per_compute * hz
            if not compute:
                missing.insert(0, f"a number of {arithmetic.name} instances above 0")
        else:
            missing.insert(0, "the arithmetic level's Instances")
    if missing:
        raise error(
            name,
            (
                "no machine: the file's SPECS give no peaks to infer one from (they lack "
                if machine is None
                else f"the machine {short_repr(machine.name or 'given')} has no level for what the file's SPECS "
                "leave out (they lack "
            )
            + " and ".join(missing)
            + f"); pass machine= with the accelerator's peaks (presets: {preset_names()}), its levels named as "
            f"the file's ({', '.join(file_levels)})",
            line=run.line,
            field="machine",
        )
    compute_source = (
        f"compute {compute:.4g} ops/{unit} (machine)"
        if machine is not None
        else f"compute = {arithmetic.name} instances × {ops_per_compute:g} ops × clock = {compute:.4g} ops/{unit}"
    )
    report.machine_source = (
        f"the file's storage levels, nearest to compute first: {', '.join(sources)}; {compute_source} (SPECS "
        "bandwidths are (read + write bandwidth) × instances × word bytes × clock, printed rounded to 2 decimals)"
    )
    try:
        if machine is not None:
            return replace(machine, levels=tuple(levels), peak_bandwidth=None)
        return Machine(
            peak_compute=compute, levels=levels, name="Timeloop SPECS (levels)", time_unit=unit, ops_unit="op"
        )
    except WorkloadError as e:
        raise error(
            name,
            f"the file's levels give no machine: {e}; check the clock, or pass machine=",
            line=run.line,
            field="machine",
        ) from None


def _check(name, run, phase, duration, ops, volume, level) -> None:
    """The phase's numbers within what a workload holds, refused in the file's own terms."""
    refused = (
        (
            not SMALLEST <= duration <= LARGEST,
            f"{run.cycles:g} cycles give phase {short_repr(phase)} a duration of {duration:g}; a run takes at least one cycle",
            run.cycles_line,
            "Summary Stats.Cycles",
        ),
        (
            ops > LARGEST,
            f"{run.computes:g} {run.computes_label} is out of range (at most {LARGEST:g} ops)",
            run.computes_line,
            f"Summary Stats.{run.computes_label}",
        ),
        (
            volume > LARGEST,
            f"the accesses of level {level.name!r} come to {volume:g} bytes, out of range (at most {LARGEST:g})",
            level.line,
            f"{level.name}.Scalar reads",
        ),
    )
    for bad, message, line, field_name in refused:
        if bad:
            raise error(name, message, line=line, field=field_name)


def _default_names(runs) -> list[str]:
    files = {name for name, _, _ in runs}
    runs_of = Counter(name for name, _, _ in runs)
    out = []
    for name, k, _run in runs:
        path = Path(name)
        base = path.parent.name if path.stem.startswith("timeloop-") and path.parent.name else path.stem
        base = base.removesuffix(".stats") or "timeloop"
        if runs_of[name] > 1:
            base = f"{base} layer {k}" if len(files) > 1 else f"layer {k}"
        out.append(base)
    if len(set(out)) != len(out):
        out = [f"{o} ({i})" for i, o in enumerate(out)]
    return out


def _summary_line(name: str, run: _Run, line: str, i: int) -> None:
    """A line outside the levels: the run's cycles, its clock, its computes."""
    m = _CYCLES.match(line)
    if m:
        run.cycles, run.cycles_line = _num(name, (m.group(1), i), "Summary Stats.Cycles"), i
        return
    m = _ASSUMED_CLOCK.match(line)
    if m:
        try:
            run.assumed_clock = float(m.group(1)) * 1e9
        except ValueError:
            pass  # not a clock we can read: the caller gives one
        return
    m = _COMPUTES.match(line)
    if m:
        label = m.group(1)
        if run.computes is None or label in ("Computes", "Actual Computes"):
            run.computes, run.computes_label = _num(name, (m.group(2), i), f"Summary Stats.{label}"), label
            run.computes_line = i


def _parse(name: str, text: str) -> list[_Run]:
    if len(text) > MAX_CHARS:
        raise error(
            name,
            f"the file is over {MAX_CHARS:,} characters; Timeloop stats are read up to {MAX_CHARS:,} "
            "(see docs/workload-files.md, Limits)",
        )
    lines = text.splitlines()
    long_line = next((i for i, line in enumerate(lines, start=1) if len(line) > MAX_LINE), None)
    if long_line is not None:
        raise error(
            name,
            f"a line of {len(lines[long_line - 1]):,} characters; Timeloop stats lines are short "
            f"(at most {MAX_LINE:,} read)",
            line=long_line,
        )
    runs: list[_Run] = []
    run = None
    level = None
    section = None
    dataspace = None
    for i, line in enumerate(lines, start=1):
        if line.startswith("Buffer and Arithmetic Levels"):
            run = _Run(line=i)
            runs.append(run)
            level = dataspace = section = None
            continue
        if run is None:
            continue
        # each pattern is tried only where it can match (its first characters, the part of the file): a
        # file of 2,000 runs has some 800,000 lines
        m = _LEVEL.match(line) if line.startswith("Level ") else None
        if m:
            level = _Level(index=int(m.group(1)), name="", line=i)
            run.levels.append(level)
            dataspace = section = None
            continue
        if line.startswith(("Networks", "Summary Stats")):
            level = dataspace = None
        if level is not None:
            m = _NAME.match(line) if not level.name and line.startswith("===") else None
            if m:
                level.name = m.group(1).strip()
                continue
        else:
            _summary_line(name, run, line, i)
            continue
        stripped = line.strip()
        if stripped in ("SPECS", "STATS", "MAPPING"):
            section, dataspace = stripped, None
            continue
        if section == "STATS":
            m = _DATASPACE.match(line)
            if m and m.group(1) != "Shared":
                dataspace = level.dataspaces.setdefault(m.group(1), {})
                continue
            if m:
                dataspace = None
                continue
        m = _KV.match(line)
        if m and section in ("SPECS", "STATS"):
            key, value = m.group(1), m.group(2)
            if section == "STATS" and dataspace is not None and line.startswith("        "):
                dataspace[key] = (value, i)
            elif section == "STATS":
                level.stats[key] = (value, i)
            else:
                level.specs[key] = (value, i)
    if not runs:
        raise error(name, "not a Timeloop stats file: no 'Buffer and Arithmetic Levels' section", line=1)
    for run in runs:
        for absent, message, field_name in (
            (run.cycles is None, "no 'Cycles:' in the 'Summary Stats' (truncated file?)", "Summary Stats.Cycles"),
            (
                run.computes is None,
                "no 'Computes = N' (or 'MACCs = N') after the 'Summary Stats'",
                "Summary Stats.Computes",
            ),
        ):
            if absent:
                raise error(name, message, line=run.line, field=field_name)
        if not any(lv.is_storage for lv in run.levels):
            raise error(name, "no storage level with access counts (Scalar reads/fills/updates)", line=run.line)
    return runs


def _memory_level(name: str, run: _Run, wanted: str | None) -> _Level:
    storage = [lv for lv in run.levels if lv.is_storage]
    if wanted is not None:
        for lv in storage:
            if lv.name == wanted or lv.name.lower() == wanted.lower():
                return lv
        raise error(
            name,
            f"no storage level named {wanted!r}; levels: {', '.join(lv.name for lv in storage)}",
            line=run.line,
            field="memory_level",
        )
    dram = [lv for lv in storage if "dram" in lv.name.lower()]
    return dram[0] if dram else max(storage, key=lambda lv: lv.index)


def _num(name, value_line, what):
    """A count or size from the stats: a finite number >= 0, else an error naming the line and field."""
    value, line = value_line
    text = value.split()[0] if value.split() else ""
    try:
        number = float(text)
    except ValueError:
        raise error(name, f"{short_repr(value)} is not a number", line=line, field=what) from None
    if not math.isfinite(number) or number < 0:
        raise error(name, f"{short_repr(value)} must be a finite number >= 0", line=line, field=what)
    return number


def _bytes(name: str, level: _Level) -> tuple[float, float]:
    word_bits, key = _word_bits(level)
    if word_bits is None:
        raise _lacks(name, level, "", "'Word bits' (or 'Data word bits') in its SPECS", "Word bits")
    word_bytes = _num(name, word_bits, f"{level.name}.{key}") / 8
    words = 0.0
    for ds, values in level.dataspaces.items():
        instances = values.get("Utilized instances (max)", ("1", level.line))
        count = 0.0
        for kind in ("reads", "fills", "updates"):
            entry = values.get(f"Actual scalar {kind} (per-instance)") or values.get(f"Scalar {kind} (per-instance)")
            if entry is None:
                raise _lacks(
                    name, level, f"dataspace {ds} of ", f"'Scalar {kind} (per-instance)'", f"{ds}.Scalar {kind}"
                )
            count += _num(name, entry, f"{level.name}.{ds}.Scalar {kind}")
        words += count * _num(name, instances, f"{level.name}.{ds}.Utilized instances (max)")
    return words * word_bytes, word_bytes


def _lacks(name: str, level: _Level, part: str, key: str, field: str) -> WorkloadFileError:
    """A key that a level (``part``: or a dataspace of it) lacks, said at the level's line and ``field``."""
    return error(name, f"{part}level {level.name!r} has no {key}", line=level.line, field=f"{level.name}.{field}")


def _word_bits(level: _Level):
    for key in WORD_BITS:
        if key in level.specs:
            return level.specs[key], key
    return None, WORD_BITS[0]


def _infer_machine(name, run: _Run, level: _Level, ops_per_compute, hz, in_cycles, report) -> Machine:
    arithmetic = next((lv for lv in run.levels if not lv.is_storage), None)
    problems = []
    compute = bandwidth = None
    if arithmetic is not None and "Instances" in arithmetic.specs:
        instances = _num(name, arithmetic.specs["Instances"], f"{arithmetic.name}.Instances")
        compute = instances * ops_per_compute * hz
        if not compute:
            problems.append(f"a number of {arithmetic.name} instances above 0")
    else:
        problems.append("the arithmetic level's Instances")
    rates = []
    for key in ("Read bandwidth", "Write bandwidth"):
        value = level.specs.get(key)
        shown = "absent" if value is None else short_repr(value[0])
        try:
            rates.append(float(value[0]) if value is not None else math.nan)
        except ValueError:
            rates.append(math.nan)
        if not math.isfinite(rates[-1]) or rates[-1] < 0:
            unbounded = ": unbounded" if value is not None and value[0].strip() == "-" else ""
            problems.append(f"a number for {level.name}.{key} (it is {shown}{unbounded})")
    word_bits, key = _word_bits(level)
    if not problems:
        inst = _num(name, level.specs.get("Instances", ("1", level.line)), f"{level.name}.Instances")
        word = _num(name, word_bits, f"{level.name}.{key}") / 8
        bandwidth = sum(rates) * inst * word * hz
        if not bandwidth:
            problems.append(f"a bandwidth above 0 for level {level.name!r}")
    if problems:
        raise error(
            name,
            "no machine: the file's SPECS give no peaks to infer one from (they lack "
            + " and ".join(problems)
            + f"); pass machine= with the accelerator's peaks (presets: {preset_names()})",
            line=run.line,
            field="machine",
        )
    unit = "cycle" if in_cycles else "s"
    report.machine_source = (
        f"from the file's SPECS: {arithmetic.name} instances × {ops_per_compute:g} ops × clock "
        f"= {compute:.4g} ops/{unit}; (read + write bandwidth) of {level.name!r} × word bytes × "
        f"clock = {bandwidth:.4g} B/{unit} (Timeloop prints these bandwidths rounded to 2 "
        "decimals)"
    )
    try:
        return Machine(
            peak_compute=compute,
            peak_bandwidth=bandwidth,
            name=f"Timeloop SPECS ({level.name})",
            time_unit=unit,
            ops_unit="op",
        )
    except WorkloadError:
        raise error(
            name,
            f"the SPECS give peaks of {compute:g} ops/{unit} ({arithmetic.name}.Instances × {ops_per_compute:g} "
            f"× clock) and {bandwidth:g} B/{unit} ({level.name} bandwidths × instances × word bytes × clock), "
            "out of the range a machine holds; check the clock, or pass machine=",
            line=run.line,
            field="machine",
        ) from None


# -- the format registry -----------------------------------------------------------------------------------


def sniff(source: Source) -> bool:
    head = head_text(source, 8192)
    return head.lstrip().startswith("Buffer and Arithmetic Levels") or (
        "=== " in head and "Level 0" in head and "STATS" in head
    )


def read(source: Source, *, machine=None, percent=False, **options):
    return read_timeloop_stats(source, machine=machine, percent=percent, **options)
