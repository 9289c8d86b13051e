"""The roofline's geometry (docs/semantics.md#the-roofline): what a live roofline draws for a workload and its schedule,
in data coordinates of log axes, and a phase's hover lines. The numbers are the model's
(``campaign_widget.model.roofline``); the bqplot view (``RooflineView``) and the canvas view
(``RooflinePlot``) both draw this one geometry."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formatting import format_number, format_percent, format_si
from ..model.machine import Ceiling
from ..model.phase_arrays import BOUND_LATENCY
from ..model.roofline import (
    BYTES_UNKNOWN,
    COMPUTE_BOUND,
    DEFAULT_THRESHOLD,
    GUIDANCE,
    LATENCY_BOUND,
    MEMORY_BOUND,
    LevelRoofline,
    Roofline,
    level_roofline,
    roofline_ceilings,
    schedule_roofline,
    type_roofs,
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


def drawn_ceilings(workload) -> tuple[Ceiling, ...]:
    """The lower (or higher) roofs a roofline draws: the machine's ceilings and the phases' concurrency roofs, then one roof per data type
    the phases use whose peak is not ``peak_compute`` (docs/llm-inference.md#a-peak-per-data-type)."""
    machine = workload.machine
    typed = (Ceiling(f"{d} peak", compute=p) for d, p in type_roofs(workload) if p != machine.peak_compute)
    return (*roofline_ceilings(workload), *typed)


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
    for ceiling in drawn_ceilings(workload):
        c_p = ceiling.compute if ceiling.compute is not None else machine.peak_compute
        c_bw = ceiling.bandwidth if ceiling.bandwidth is not None else machine.peak_bandwidth
        ceilings.append((ceiling.name, np.array([x_lo, c_p / c_bw, x_hi]), np.array([c_bw * x_lo, c_p, c_p])))
        y_hi = max(y_hi, 2 * c_p)
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


def schedule_readout(g: RooflineGeometry, workload, schedule) -> list[str]:
    """What both roofline views say under the plot about the schedule's aggregate point (all its ops and
    bytes over its makespan): where it is, then how much of which roof it reaches — the compute roof or
    the farthest memory level's (the aggregate's bytes are that level's). Above 100% the point lies above
    the roof, and the line says why: an infeasible schedule (docs/semantics.md#feasible-schedules), or
    peaks or volumes that are off."""
    machine, total = workload.machine, g.total
    intensity_unit = f"{machine.ops_unit}/{machine.bytes_unit}"
    where = (
        f"schedule: OI {format_number(float(total.intensity[0]), 3)} {intensity_unit}, "
        f"{format_si(total.achieved[0], machine.compute_unit)}"
    )
    regime = str(total.regime[0])
    if regime == COMPUTE_BOUND:
        roof = f"the compute roof ({format_si(machine.peak_compute, machine.compute_unit)})"
    elif regime == MEMORY_BOUND:
        roof = f"the {machine.memory_name} roof ({format_si(machine.peak_bandwidth, machine.bandwidth_unit)})"
    else:
        return [where, regime]
    efficiency = float(total.efficiency[0])
    reach = f"{format_percent(efficiency)} of {roof}, {regime}"
    if efficiency > 1 + 1e-9:
        why = schedule.infeasibility() if not schedule.feasible else "the peaks or the volumes are off"
        reach += f"; drawn above the roof: {why}"
    return [where, reach]


def _reach(efficiency: float) -> str:
    """A phase's efficiency, and past 100% what that means: a measured phase above its roof."""
    text = format_percent(efficiency)
    return f"{text} (above its roof: the peaks or the measured volumes are off)" if efficiency > 1 + 1e-9 else text


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
            f"{r.regime[i]}, efficiency {_reach(float(r.efficiency[i]))}",
            str(r.guidance[i]),
        ]
    h, a = g.hierarchy, workload.arrays
    if r.regime[i] == BYTES_UNKNOWN:  # no level's bytes are known: no intensity, bound or advice at any level
        return [
            f"{name}: OI unknown",
            f"achieved {format_si(h.achieved[i], unit)}, bound unknown",
            BYTES_UNKNOWN,
            str(r.guidance[i]),
        ]
    known = [(level, h.intensity[i, k]) for k, level in enumerate(h.levels) if not np.isnan(h.intensity[i, k])]
    at = ", ".join(f"{format_number(oi, 3)} ({level})" for level, oi in known) or "unknown"
    bound = a.ops[i] / a.t_sol[i] if a.t_sol[i] > 0 else np.nan
    resource, efficiency = str(h.bound_resource[i]), float(a.efficiency[i])
    if resource == machine.compute_name:
        regime = COMPUTE_BOUND
    elif resource in h.levels:
        regime = LATENCY_BOUND if a.bound[i] == BOUND_LATENCY else MEMORY_BOUND
    else:
        regime = r.regime[i]
    bound_by = f"{resource} {LATENCY_BOUND}" if regime == LATENCY_BOUND else f"{resource}-bound"
    return [
        f"{name}: OI {at}",
        f"achieved {format_si(h.achieved[i], unit)}, bound {format_si(bound, unit)}",
        f"{bound_by}, efficiency {_reach(efficiency)}",
        GUIDANCE[(regime, efficiency >= threshold)],
    ]
