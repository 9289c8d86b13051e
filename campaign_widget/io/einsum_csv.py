"""Einsum CSV exports: columns ``Einsum, runtime, Compute_Utilization, Memory_Utilization, Starting_Time,
End_Time`` (and optionally ``fusion_group``, ``total_traffic``); dependencies follow from the times."""

from __future__ import annotations

import csv
import difflib
import io
import math

import numpy as np

from ..errors import WorkloadError
from ..model.graph import interval_dependencies
from ..model.workload import Workload
from .checks import check_unique_names, header_columns, make_phase, make_workload, no_options, show
from .source import MiB, Source

FORMAT = "einsum-csv"
CSV_REQUIRED = ("Einsum", "runtime", "Compute_Utilization", "Memory_Utilization", "Starting_Time", "End_Time")
CSV_OPTIONAL = ("fusion_group", "total_traffic")  # part of the export layout; a Workload has no place for them
SPELLED = {"duration": "runtime", "compute_util": "Compute_Utilization", "memory_util": "Memory_Utilization"}


def sniff(source: Source) -> bool:
    first = next((line for line in source.head().splitlines() if line.strip()), "")
    header = {cell.strip().strip('"') for cell in first.split(",")}
    return "Einsum" in header or len(header & set(CSV_REQUIRED + CSV_OPTIONAL)) >= 3


MAX_BYTES = 256 * MiB


def read(source: Source, *, machine=None, percent=False, **options) -> Workload:
    no_options(source, options)
    source.check_size(MAX_BYTES, "Einsum CSV")
    reader = csv.reader(io.StringIO(source.text, newline=""))
    try:
        return _read(source, reader, machine, percent)
    except csv.Error as e:  # e.g. a cell over csv.field_size_limit() (131,072 characters)
        raise source.error(f"malformed CSV: {str(e)[:200]}", line=reader.line_num) from None


def _numbers(source: Source, key: str, cells: list, lines: list) -> list[float]:
    """A column's cells as finite floats, converted all at once (numpy parses as ``float()`` does, spaces
    around a number included); the first cell that is no finite number is named with its line."""
    try:
        numbers = np.asarray(cells, dtype=np.float64)
    except ValueError:
        numbers = None
    if numbers is not None and np.isfinite(numbers).all():
        return numbers.tolist()
    out = []
    for cell, line in zip(cells, lines):
        try:
            number = float(cell.strip())
        except ValueError:
            raise source.error(f"{show(cell.strip())} is not a number", line=line, field=f"column {key!r}") from None
        if not math.isfinite(number):
            raise source.error(f"{show(cell.strip())} must be finite", line=line, field=f"column {key!r}")
        out.append(number)
    return out


def _read(source: Source, reader, machine, percent) -> Workload:
    try:
        header = next(reader)
    except StopIteration:
        raise source.error("empty file: expected a header line with columns " + ", ".join(CSV_REQUIRED)) from None
    header = [h.strip() for h in header]
    header_line = reader.line_num
    column = header_columns(source, header, header_line, used=CSV_REQUIRED + CSV_OPTIONAL)
    for required in CSV_REQUIRED:
        if required not in column:
            hint = difflib.get_close_matches(required, [h[:100] for h in header[:100]], n=1)
            raise source.error(
                f"missing column {required!r}"
                + (f" (did you mean {hint[0]!r}?)" if hint else "")
                + f"; columns found: {show(', '.join(header))}",
                line=header_line,
                field="header",
            )
    names, lines, cells = [], [], {key: [] for key in CSV_REQUIRED[1:]}
    for row in reader:
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        short = [key for key in CSV_REQUIRED if column[key] >= len(row)]
        if short:
            raise source.error(
                f"the row has {len(row)} fields; column {short[0]!r} is field {column[short[0]] + 1}",
                line=line,
                field=f"column {short[0]!r}",
            )
        name = row[column["Einsum"]].strip()
        if not name:
            raise source.error("empty phase name", line=line, field="column 'Einsum'")
        names.append(name)
        lines.append(line)
        for key in CSV_REQUIRED[1:]:
            cells[key].append(row[column[key]])
    if not names:
        raise source.error("no phases: the file has a header but no rows", line=header_line)
    values = {key: _numbers(source, key, column_cells, lines) for key, column_cells in cells.items()}
    check_unique_names(source, list(zip(names, lines)))
    start = np.asarray(values["Starting_Time"])
    end = np.asarray(values["End_Time"])
    backwards = np.flatnonzero(end < start)
    if backwards.size:
        i = int(backwards[0])
        raise source.error(
            f"End_Time {float(end[i])!r} is before Starting_Time {float(start[i])!r}",
            line=lines[i],
            field="column 'End_Time'",
        )
    order = np.argsort(start, kind="stable")
    try:
        producers = interval_dependencies(start, end)
    except WorkloadError as e:
        raise source.error(str(e), field="columns 'Starting_Time', 'End_Time'") from None
    scale = 0.01 if percent else 1.0
    phases = []
    for i in order:
        phases.append(
            make_phase(
                source,
                lines[i],
                names[i],
                duration=values["runtime"][i],
                compute_util=values["Compute_Utilization"][i] * scale,
                memory_util=values["Memory_Utilization"][i] * scale,
                after=tuple(names[j] for j in producers[i]),
                spelled=SPELLED,
            )
        )
    return make_workload(source, phases, machine, None, [lines[i] for i in order], spelled=SPELLED)
