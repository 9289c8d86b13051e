"""What an importer read, used, computed and left out, per phase: the report a workload read from a
profile carries (``workload.import_report``). The readers in ``io`` fill it in."""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass, field

from ..errors import short_repr


class SkippedEventsWarning(UserWarning):
    """An importer left out some records of a profile (counted by reason in the import report)."""


@dataclass
class PhaseReport:
    """Where one imported phase's numbers come from.

    ``flops`` is ``"recorded"`` (the profiler wrote them), ``"computed"`` (derived from shapes or
    counters by this importer), ``"recorded+computed"`` (a group mixing both) or ``"unknown"``;
    ``bytes`` is ``"counted"`` (hardware counters), ``"estimated"`` (tensor sizes: inputs read once,
    output written once), ``"estimated (inputs only)"`` (output size unknown), a mix joined by ``+``,
    or ``"unknown"``. ``partial`` is True when some of the phase's events had no such number (the
    phase's volume then only sums those that did).
    """

    name: str
    duration: float
    ops: float
    bytes: float
    flops: str = "unknown"
    bytes_source: str = "unknown"
    events: int = 1
    partial_flops: bool = False
    partial_bytes: bool = False
    details: dict = field(default_factory=dict)


@dataclass
class ImportReport:
    """What an importer read, used, computed and left out. Attached to the workload as
    ``workload.import_report``.

    ``skipped`` counts records left out, by reason; ``notes`` says anything else the reader
    should know (which memory level, which peaks, estimates).
    """

    path: str
    format: str
    phases: list[PhaseReport] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    skipped_detail: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    machine_source: str = ""

    def phase(self, name: str) -> PhaseReport:
        for p in self.phases:
            if p.name == name:
                return p
        raise KeyError(f"no phase {short_repr(name)} in the import report of {self.path}")

    @property
    def flops_sources(self) -> dict[str, str]:
        """Per phase: ``"recorded"``, ``"computed"``, ``"recorded+computed"`` or ``"unknown"``."""
        return {p.name: p.flops for p in self.phases}

    @property
    def bytes_sources(self) -> dict[str, str]:
        return {p.name: p.bytes_source for p in self.phases}

    def warn_skipped(self, stacklevel: int = 3) -> None:
        if self.skipped:
            counts = ", ".join(f"{n} {reason}" for reason, n in self.skipped.most_common())
            warnings.warn(
                f"{self.path}: left out {sum(self.skipped.values())} records ({counts}); see workload.import_report",
                SkippedEventsWarning,
                stacklevel=stacklevel,
            )

    def __str__(self) -> str:
        lines = [f"{self.format} import of {self.path}"]
        if self.machine_source:
            lines.append(f"machine: {self.machine_source}")
        width = max([len(p.name) for p in self.phases] + [5])
        lines.append(
            f"{'phase':<{width}}  {'events':>6}  {'duration s':>11}  {'ops':>11}  {'flops':<17}  {'bytes':>11}  bytes"
        )
        for p in self.phases:
            lines.append(
                f"{p.name:<{width}}  {p.events:>6}  {p.duration:>11.4g}  {p.ops:>11.4g}  "
                f"{p.flops + (' (partial)' if p.partial_flops else ''):<17}  {p.bytes:>11.4g}  "
                f"{p.bytes_source}{' (partial)' if p.partial_bytes else ''}"
            )
        if self.skipped:
            lines.append("left out: " + ", ".join(f"{n} {reason}" for reason, n in self.skipped.most_common()))
        lines.extend(f"note: {n}" for n in self.notes)
        return "\n".join(lines)

    def _repr_pretty_(self, printer, cycle):
        printer.text(str(self))
