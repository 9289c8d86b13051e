"""What a campaign figure says besides its geometry, computed once for both renderers: the readout
lines (makespan, one summary per oversubscribed resource) and which legend keys the scene needs.
The browser view receives them as synced strings/flags (js/CONTRACT.md); the static figure calls
the same functions."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from ..formatting import format_percent, format_reading, format_si, format_span_reading, plural
from ..model.transformer import workload_footprint
from .scene import CRITICAL, Scene


def readout_lines(
    scene: Scene,
    *,
    units: Mapping[str, str],
    resource_names: Sequence[str] = ("compute", "memory"),
    makespan: float | None = None,
    infeasibility: str = "",
    end: float | None = None,
    title: str = "",
) -> list[tuple[str, str]]:
    """``[(text, kind)]``: ``"makespan"`` first, then one ``"oversubscribed"`` line per resource.

    The makespan reads as every title and readout of the package writes it (``makespan_text``: three
    significant digits in the unit of the time axis reaching ``end``), and is left out when ``title``
    already says it: one quantity, one format, printed once. An infeasible schedule's makespan
    (``infeasibility``, ``Schedule.infeasibility()``) says it is not a time the machine can achieve."""
    unit = units.get("time", "")
    value = float(scene.x_max if makespan is None or not np.isfinite(makespan) else makespan)
    said = makespan_text(value, unit, end=end, infeasibility=infeasibility)
    lines = [] if said in title else [(said, "makespan")]
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
        intervals = plural(count, "interval")
        lines.append(
            (f"{name} oversubscribed: up to {format_percent(peak)} demand in {intervals}, {span}", "oversubscribed")
        )
    return lines


#: significant digits of a makespan wherever it is printed (titles, readouts): enough for the paper's
#: reference numbers (10.75, 11.35), one format in every view
MAKESPAN_DIGITS = 4
_FIELD = re.compile(r"\{(\w+)\}")


def title_at(title: str, params: Mapping[str, object], written_at: Mapping[str, object]) -> str:
    """A title that follows the parameters it quotes: ``{name}`` fields take the current values
    ("decode, batch {batch}" → "decode, batch 256"); a title that quotes a value it was written at
    ("batch 16") and no longer shows says so ("batch 16 (written at batch 16; now batch 256)")."""
    title = str(title)
    filled = _FIELD.sub(lambda m: str(params[m[1]]) if m[1] in params else m[0], title)
    if filled != title:
        return filled
    stale = [
        name
        for name, value in params.items()
        if name in written_at
        and written_at[name] != value
        and re.search(rf"\b{re.escape(str(name))}\W{{0,3}}{re.escape(str(written_at[name]))}\b", title)
    ]
    if not stale:
        return title
    then = ", ".join(f"{name} {written_at[name]}" for name in stale)
    now = ", ".join(f"{name} {params[name]}" for name in stale)
    return f"{title} (written at {then}; now {now})"


def said_lines(scene: Scene, units, resource_names, notes, makespan, infeasibility="", end=None, title="", warned=()):
    """A campaign figure's whole readout, for the browser view and the static one alike: ``readout_lines``
    (the makespan once, oversubscription), one ``"warning"`` line per warning given (``capacity_note``),
    then one ``"note"`` line per note given (the pipe's level, …)."""
    lines = readout_lines(
        scene,
        units=units,
        resource_names=resource_names,
        makespan=makespan,
        infeasibility=infeasibility,
        end=end,
        title=title,
    )
    return lines + [(text, "warning") for text in warned if text] + [(note, "note") for note in notes if note]


def makespan_text(value: float, unit: str, *, end: float | None = None, infeasibility: str = "") -> str:
    """ "makespan 12.5 ms", or for an infeasible schedule "makespan 12.5 ms, infeasible: compute 311%
    demand under policy none — not a time this machine can achieve" (docs/semantics.md#feasible-schedules)."""
    text = f"makespan {format_reading(value, unit, end=end, digits=MAKESPAN_DIGITS)}"
    if infeasibility:
        text += f", {infeasibility} — not a time this machine can achieve"
    return text


def key_labels(pipe: str | None) -> dict[str, str]:
    """The legend keys' words, naming the memory level drawn as the pipe (``None``: panels with
    different pipes, each named in its own readout): one rule for the browser's legend and the static one."""
    level = pipe or "the pipe level's"
    return {
        "well": f"unused bandwidth (pipe height = 100% of {level} peak bandwidth)",
        "spill": f"{pipe or 'memory'} oversubscribed",
        "compute_over": "compute > 100%",
        "dashed": "added by dilation/throttling",
    }


def pipe_note(machine, level: str, *, chosen: bool) -> str | None:
    """On a machine with several memory levels, which level the diagram draws as its pipe and its peak
    ("pipe: HBM, 2.04 TB/s — the level that bounds the most time" when the diagram ``chosen`` it);
    ``None`` on one level, where the pipe is the memory (docs/memory-hierarchy.md#the-pipe-level-of-a-campaign-diagram)."""
    if len(machine.level_names) < 2:
        return None
    why = " — the level that bounds the most time" if chosen else ""
    return f"pipe: {level}, {format_si(machine.bandwidth(level), machine.bandwidth_unit)}{why}"


def legend_features(scene: Scene) -> dict[str, bool]:
    """Which warning and dilation styles the scene uses: ``spill``, ``compute_over``, ``dashed``; and
    ``critical``: pieces on the critical path (``scene.CRITICAL``)."""
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
        "critical": bool(np.any(np.asarray(scene.flags)[keep] & CRITICAL)),
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
    phases = plural(len(unknown), "phase")
    return f"work unknown for {phases} ({format_percent(share)} of the time): durations only, drawn flat"


def capacity_note(workload) -> str | None:
    """What the readout says of a transformer workload (``from_transformer``) whose footprint at its current
    sizes is more than its machine's memory holds: "does not fit: 151 GB per device in 80 GB of HBM
    (weights 13.5 GB, KV cache 137 GB, activations 33.6 MB)" (docs/llm-inference.md#memory-footprint);
    ``None`` when it fits, the machine gives no capacity or the workload is no transformer."""
    f = workload_footprint(workload, largest=False)
    if f is None or f.fits is not False:
        return None
    assert f.capacity is not None  # fits is False only against a capacity
    level = f.level or workload.machine.memory_name
    parts = ", ".join(
        f"{name} {format_si(value, 'B')}"
        for name, value in (("weights", f.weights), ("KV cache", f.kv_cache), ("activations", f.activations))
    )
    return f"does not fit: {format_si(f.total, 'B')} per device in {format_si(f.capacity, 'B')} of {level} ({parts})"
