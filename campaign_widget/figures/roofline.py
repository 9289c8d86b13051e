"""The roofline's geometry (docs/semantics.md#the-roofline): what a live roofline draws for a workload and its schedule,
in data coordinates of log axes, and a phase's hover lines. The numbers are the model's
(``campaign_widget.model.roofline``); the bqplot view (``RooflineView``) and the canvas view
(``RooflinePlot``) both draw this one geometry."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formatting import format_number, format_percent, format_si
from ..model.roofline import (
    COMPUTE_BOUND,
    DEFAULT_THRESHOLD,
    GUIDANCE,
    MEMORY_BOUND,
    LevelRoofline,
    Roofline,
    level_roofline,
    schedule_roofline,
    workload_roofline,
)

#: What a phase point's size means, said under every roofline's x axis (a size nobody explains is read
#: as anything: work, bytes, importance).
POINT_AREA_NOTE = "point area ∝ share of the makespan"


def x_axis_label(intensity_unit: str, joiner: str = " · ") -> str:
    """The roofline's x-axis title, with what the points' areas mean (``POINT_AREA_NOTE``), after
    ``joiner`` (a new line where the title would run past a narrow figure).

    >>> x_axis_label("FLOP/B")
    'operational intensity (FLOP/B) · point area ∝ share of the makespan'
    """
    return "operational intensity" + (f" ({intensity_unit})" if intensity_unit else "") + joiner + POINT_AREA_NOTE


def decade_values(lo: float, hi: float, most: int = 7) -> list[float]:
    """Powers of ten inside [lo, hi], thinned to at most ``most`` labels (a log axis's ticks)."""
    first, last = int(np.ceil(np.log10(lo))), int(np.floor(np.log10(hi)))
    step = max(1, -(-(last - first + 1) // most))
    return [10.0**k for k in range(first, last + 1, step)]


@dataclass(frozen=True, eq=False)
class RooflineGeometry:
    """What a live roofline draws for a workload and its schedule, in data coordinates of log axes:
    the one set of numbers the bqplot view (``RooflineView``) and the canvas view (``RooflinePlot``)
    both draw.

    ``roof_x``/``roof_y`` are (roofs, 3): from the left edge to the ridge to the right edge, one row
    per memory level, nearest first (one row on a one-level machine); ``ridge_x`` the ridges at
    ``peak_compute``. ``phase_x``/``phase_y`` place each phase on the one-level roofline (NaN: no
    work, not drawn); ``level_x`` (phases, levels) and ``level_y`` place the hierarchy's points
    (NaN where a level is unknown for the phase), None on one level. ``share`` is each phase's
    duration over the makespan; ``aggregate`` the schedule's point.
    """

    x_range: tuple[float, float]
    y_range: tuple[float, float]
    x_ticks: list[float]
    y_ticks: list[float]
    peak_compute: float
    levels: tuple[str, ...]
    roof_x: np.ndarray
    roof_y: np.ndarray
    ridge_x: np.ndarray
    ceilings: tuple[tuple[str, np.ndarray, np.ndarray], ...]  # (name, x (3,), y (3,)) each
    phase_x: np.ndarray
    phase_y: np.ndarray
    level_x: np.ndarray | None
    level_y: np.ndarray | None
    share: np.ndarray
    aggregate: tuple[float, float]
    phases: Roofline
    total: Roofline
    hierarchy: LevelRoofline | None

    @property
    def hierarchical(self) -> bool:
        return self.hierarchy is not None


def roofline_geometry(workload, schedule, threshold: float = DEFAULT_THRESHOLD) -> RooflineGeometry:
    """The roofline of ``workload`` run as ``schedule``: limits finite and > 0 whatever the phases (all
    ops 0, all bytes 0); OI 0 sits at the left edge, OI ∞ at the right, phases with no work are not
    drawn (docs/workload-files.md). On several memory levels the limits span every level's ridge and
    points, whichever levels a view shows."""
    machine = workload.machine
    phases = workload_roofline(workload, threshold)
    total = schedule_roofline(workload, schedule, threshold)
    x_lo, x_hi, y_lo, y_hi = phases.axis_limits(total.intensity)
    hierarchy = level_roofline(workload) if len(machine.level_names) > 1 else None
    if hierarchy is not None:
        h_lo, h_hi, h_y_lo, _ = hierarchy.axis_limits()
        x_lo, x_hi, y_lo = min(x_lo, h_lo), max(x_hi, h_hi), min(y_lo, h_y_lo)
    P = float(machine.peak_compute)
    if hierarchy is not None:
        levels, bandwidths = hierarchy.levels, hierarchy.bandwidths
    else:
        levels, bandwidths = tuple(machine.level_names), np.array([machine.peak_bandwidth], dtype=np.float64)
    ridge_x = P / bandwidths
    roof_x = np.column_stack([np.full_like(ridge_x, x_lo), ridge_x, np.full_like(ridge_x, x_hi)])
    roof_y = np.column_stack([bandwidths * x_lo, np.full_like(ridge_x, P), np.full_like(ridge_x, P)])
    ceilings = []
    for ceiling in machine.ceilings:
        c_p = ceiling.compute if ceiling.compute is not None else machine.peak_compute
        c_bw = ceiling.bandwidth if ceiling.bandwidth is not None else machine.peak_bandwidth
        ceilings.append((ceiling.name, np.array([x_lo, c_p / c_bw, x_hi]), np.array([c_bw * x_lo, c_p, c_p])))
    phase_x, phase_y = phases.plot_position(x_lo, x_hi, y_lo)
    level_x = level_y = None
    if hierarchy is not None:
        oi = hierarchy.intensity
        level_x = np.where(oi == 0, x_lo, np.where(np.isinf(oi), x_hi, oi))
        level_y = np.where(hierarchy.achieved > 0, hierarchy.achieved, y_lo)
    share = workload.arrays.duration / max(schedule.makespan, 1e-300)
    aggregate_x = float(total.intensity[0])
    if not np.isfinite(aggregate_x) or aggregate_x <= 0:
        aggregate_x = x_hi if np.isinf(aggregate_x) else x_lo
    return RooflineGeometry(
        x_range=(x_lo, x_hi),
        y_range=(y_lo, y_hi),
        x_ticks=decade_values(x_lo, x_hi),
        y_ticks=decade_values(y_lo, y_hi),
        peak_compute=P,
        levels=tuple(levels),
        roof_x=roof_x,
        roof_y=roof_y,
        ridge_x=ridge_x,
        ceilings=tuple(ceilings),
        phase_x=phase_x,
        phase_y=phase_y,
        level_x=level_x,
        level_y=level_y,
        share=share,
        aggregate=(aggregate_x, max(float(total.achieved[0]), y_lo)),
        phases=phases,
        total=total,
        hierarchy=hierarchy,
    )


def phase_details(g: RooflineGeometry, workload, threshold: float, i: int, names=None) -> list[str]:
    """Phase ``i``'s hover lines on a roofline (both roofline views say them in these words): its
    operational intensity, achieved and bound rates, regime and efficiency, and the guidance.
    ``names`` are the phase names shown (the workload's when None)."""
    machine, r = workload.machine, g.phases
    name = (workload.names if names is None else names)[i]
    unit = machine.compute_unit
    if g.hierarchy is None:
        oi = f"{format_number(float(r.intensity[i]), 3)} {machine.ops_unit}/{machine.bytes_unit}"
        return [
            f"{name}: OI {oi}",
            f"achieved {format_si(r.achieved[i], unit)}, bound {format_si(r.bound[i], unit)}",
            f"{r.regime[i]}, efficiency {format_percent(float(r.efficiency[i]))}",
            str(r.guidance[i]),
        ]
    h, a = g.hierarchy, workload.arrays
    known = [(level, h.intensity[i, k]) for k, level in enumerate(h.levels) if not np.isnan(h.intensity[i, k])]
    at = ", ".join(f"{format_number(oi, 3)} ({level})" for level, oi in known) or "unknown"
    bound = a.ops[i] / a.t_sol[i] if a.t_sol[i] > 0 else np.nan
    resource, efficiency = str(h.bound_resource[i]), float(a.efficiency[i])
    if resource == machine.compute_name:
        regime = COMPUTE_BOUND
    elif resource in h.levels:
        regime = MEMORY_BOUND
    else:
        regime = r.regime[i]
    return [
        f"{name}: OI {at}",
        f"achieved {format_si(h.achieved[i], unit)}, bound {format_si(bound, unit)}",
        f"{resource}-bound, efficiency {format_percent(efficiency)}",
        GUIDANCE[(regime, efficiency >= threshold)],
    ]
