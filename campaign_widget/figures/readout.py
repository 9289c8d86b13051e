"""What a campaign figure says besides its geometry, computed once for both renderers: the readout
lines (makespan, one summary per oversubscribed resource) and which legend keys the scene needs.
The browser view receives them as synced strings/flags (js/CONTRACT.md); the static figure calls
the same functions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..formatting import format_percent, format_reading, format_span_reading
from .scene import Scene


def readout_lines(
    scene: Scene,
    *,
    units: Mapping[str, str],
    resource_names: Sequence[str] = ("compute", "memory"),
    makespan: float | None = None,
) -> list[tuple[str, str]]:
    """``[(text, kind)]``: ``"makespan"`` first, then one ``"oversubscribed"`` line per resource."""
    unit = units.get("time", "")
    value = float(scene.x_max if makespan is None or not np.isfinite(makespan) else makespan)
    lines = [(f"makespan {format_reading(value, unit, digits=4)}", "makespan")]
    resources = np.asarray(scene.over_resource, dtype=np.int64)
    for r in sorted(set(resources.tolist())):
        sel = resources == r
        count = int(sel.sum())
        name = resource_names[r] if r < len(resource_names) else ("compute" if r == 0 else "memory")
        peak = float(np.max(scene.over_demand[sel]))
        # in the makespan's unit, so that both read against the same time axis
        span = format_span_reading(
            float(np.min(scene.over_t0[sel])), float(np.max(scene.over_t1[sel])), unit, end=value
        )
        intervals = "1 interval" if count == 1 else f"{count} intervals"
        lines.append(
            (f"{name} oversubscribed: up to {format_percent(peak)} demand in {intervals}, {span}", "oversubscribed")
        )
    return lines


def legend_features(scene: Scene) -> dict[str, bool]:
    """Which warning and dilation styles the scene uses: ``spill``, ``compute_over``, ``dashed``."""
    x0 = np.asarray(scene.x0, dtype=np.float64)
    x1 = np.asarray(scene.x1, dtype=np.float64)
    keep = np.isfinite(x0) & np.isfinite(x1) & (x1 > x0)
    x0, x1 = x0[keep], x1[keep]
    dash_from = np.asarray(scene.dash_from, dtype=np.float64)[keep]
    dash = np.clip(np.where(np.isnan(dash_from), x1, dash_from), x0, x1)
    dashed = (x1 - dash) > 1e-9 * (np.abs(x0) + np.abs(x1))
    fill = np.asarray(scene.fill_top, dtype=np.float64)[keep]
    well = np.asarray(scene.well_top, dtype=np.float64)[keep]
    return {
        "spill": bool(np.any(fill > well)),
        "compute_over": bool(np.any(np.asarray(scene.flags)[keep] & 1)),
        "dashed": bool(np.any(dashed)),
    }


def work_note(workload) -> str | None:
    """What an imported workload's readout says when some phases' work is unknown (a GPU trace's
    kernels with no shapes, counters or recorded FLOPs): those phases have a duration but no ops or
    bytes, so they draw flat; ``None`` when every phase's work is known."""
    report = getattr(workload, "import_report", None)
    if report is None:
        return None
    unknown = [p for p in report.phases if p.details.get("work") == "unknown"]
    if not unknown:
        return None
    total = sum(p.duration for p in report.phases) or 1.0
    share = sum(p.duration for p in unknown) / total
    phases = "1 phase" if len(unknown) == 1 else f"{len(unknown):,} phases"
    return f"work unknown for {phases} ({format_percent(share)} of the time): durations only, drawn flat"
