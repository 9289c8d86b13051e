"""What a figure shows (a campaign panel, a roofline panel), built from workloads and schedules."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import FigureError, WorkloadError, WrongTypeError, short_repr
from ..figures.critical import with_critical_path
from ..figures.group_bands import with_group_spans
from ..figures.phase_colours import phase_colors
from ..figures.readout import capacity_note, pipe_note, work_note
from ..figures.roofline import drawn_ceilings
from ..figures.scene import Scene, build_scene
from ..model.machine import Ceiling


@dataclass(frozen=True, eq=False)
class Panel:
    """One campaign diagram: a scene and how to label it (the browser view's traits)."""

    scene: Scene
    names: Sequence[str]
    colors: Sequence[str]
    units: Mapping[str, str] = field(default_factory=lambda: {"time": "s", "compute": "ops/s"})
    resource_names: tuple = ("compute", "memory")
    title: str = ""
    y_axis: str = "relative"
    peak_compute: float = 1.0
    time_max: float = 0.0  # > 0: the time axis reaches at least this far (stacked panels)
    group_labels: Sequence[str] = ()  # fusion-group labels, indexed by scene.group_id
    plot_height: float = 0.0  # CSS px of the plot, as the view's ``height``; 0: in proportion to the width
    notes: Sequence[str] = ()  # readout lines about the workload itself (e.g. work unknown, the pipe's level)
    warned: Sequence[str] = ()  # readout warnings about the workload itself (it does not fit the memory)
    infeasibility: str = ""  # why the schedule is not achievable (Schedule.infeasibility()), "" when it is

    def __post_init__(self):
        if not isinstance(self.scene, Scene):
            raise WrongTypeError(
                f"Panel.scene must be a campaign_widget.figures.scene.Scene, got {type(self.scene).__name__}"
            )
        if self.y_axis not in ("relative", "absolute"):
            raise FigureError(f"y_axis={self.y_axis!r} must be 'relative' or 'absolute'")
        if not (math.isfinite(self.time_max) and self.time_max >= 0):
            raise FigureError(f"time_max={self.time_max!r} must be a finite number >= 0")
        if not (math.isfinite(self.plot_height) and 0 <= self.plot_height <= 10_000):
            raise FigureError(f"plot_height={self.plot_height!r} must be a number of CSS px in [0, 10000]")
        object.__setattr__(self, "names", [str(n) for n in self.names])
        object.__setattr__(self, "colors", [str(c) for c in self.colors])
        object.__setattr__(self, "resource_names", tuple(str(r) for r in self.resource_names))
        object.__setattr__(self, "title", "" if self.title is None else str(self.title))
        object.__setattr__(self, "group_labels", [str(g) for g in self.group_labels])

    @property
    def makespan(self) -> float:
        return float(self.scene.x_max)

    @property
    def time_end(self) -> float:
        """The end of this panel's own time axis: ``max(time_max, x_max)``."""
        return max(float(self.time_max), float(self.scene.x_max))


@dataclass(frozen=True, eq=False)
class RooflinePanel:
    """A roofline (docs/semantics.md#the-roofline): roofs, extra ceilings, one point per phase and aggregate points.

    ``share`` is each phase's share of time (marker area ∝ share); ``aggregates`` holds
    ``(label, intensity, achieved)`` triples, one per schedule.

    On a machine with several memory levels (docs/memory-hierarchy.md#the-hierarchical-roofline) ``levels`` holds ``(name, bandwidth)``
    pairs, nearest to compute first, ``level_intensity`` each phase's intensity at each level
    (phases × levels, NaN where a level is unknown) and ``shown_levels`` the levels drawn (empty:
    all): one roof per level and per phase one point per known level, joined by a thin line.
    ``intensity`` and ``peak_bandwidth`` stay the farthest level's.
    """

    peak_compute: float
    peak_bandwidth: float
    ceilings: tuple = ()
    intensity: Sequence[float] = ()
    achieved: Sequence[float] = ()
    share: Sequence[float] = ()
    names: Sequence[str] = ()
    colors: Sequence[str] = ()
    aggregates: Sequence[tuple] = ()
    units: Mapping[str, str] = field(
        default_factory=lambda: {"compute": "FLOP/s", "bandwidth": "B/s", "intensity": "FLOP/B"}
    )
    title: str = "roofline"
    levels: tuple = ()
    level_intensity: Sequence = ()
    shown_levels: tuple = ()

    def __post_init__(self):
        for key in ("peak_compute", "peak_bandwidth"):
            value = getattr(self, key)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float, np.floating, np.integer))
                or not math.isfinite(value)
                or value <= 0
            ):
                raise FigureError(f"RooflinePanel.{key}={value!r} must be a finite number > 0")
        n = len(self.intensity)
        for key in ("achieved", "share"):
            if len(getattr(self, key)) != n:
                raise FigureError(f"RooflinePanel.{key} has {len(getattr(self, key))} values for {n} points")
        for c in self.ceilings:
            if not isinstance(c, Ceiling):
                raise WrongTypeError(f"RooflinePanel.ceilings takes Ceiling objects, got {c!r}")
        object.__setattr__(self, "ceilings", tuple(self.ceilings))
        object.__setattr__(self, "intensity", np.asarray(self.intensity, dtype=np.float64).reshape(-1))
        object.__setattr__(self, "achieved", np.asarray(self.achieved, dtype=np.float64).reshape(-1))
        object.__setattr__(self, "share", np.asarray(self.share, dtype=np.float64).reshape(-1))
        object.__setattr__(self, "names", [str(x) for x in self.names])
        object.__setattr__(self, "colors", [str(x) for x in self.colors])
        object.__setattr__(self, "aggregates", [(str(a), float(b), float(c)) for a, b, c in self.aggregates])
        self._check_levels(n)

    def _check_levels(self, n: int) -> None:
        levels = []
        for pair in self.levels:
            name, bandwidth = pair
            if not (isinstance(bandwidth, (int, float, np.floating, np.integer)) and 0 < float(bandwidth) < math.inf):
                raise FigureError(f"RooflinePanel.levels: level {short_repr(name)} has bandwidth {bandwidth!r}")
            if str(name) in [k for k, _ in levels]:
                raise FigureError(f"RooflinePanel.levels: level {short_repr(name)} is named twice")
            levels.append((str(name), float(bandwidth)))
        object.__setattr__(self, "levels", tuple(levels))
        if levels:
            oi = np.asarray(self.level_intensity, dtype=np.float64).reshape(n, len(levels))
        else:
            oi = np.asarray(self.intensity, dtype=np.float64).reshape(n, 1)
        object.__setattr__(self, "level_intensity", oi)
        names = self.level_names
        shown = tuple(str(x) for x in self.shown_levels) or names
        unknown = [x for x in shown if x not in names]
        if unknown:
            raise FigureError(
                f"RooflinePanel.shown_levels names {short_repr(unknown[0])}, not a memory level of this roofline "
                f"(its levels: {', '.join(names)})"
            )
        object.__setattr__(self, "shown_levels", tuple(x for x in names if x in shown))  # nearest first

    @property
    def ridge(self) -> float:
        return self.peak_compute / self.peak_bandwidth

    @property
    def hierarchical(self) -> bool:
        """True on a machine with several memory levels: roofs and points are drawn per level."""
        return len(self.levels) > 1

    @property
    def level_names(self) -> tuple[str, ...]:
        """The memory levels' names, nearest first (``("memory",)`` when ``levels`` is not given)."""
        return tuple(name for name, _ in self.levels) or ("memory",)

    @property
    def bandwidths(self) -> np.ndarray:
        return np.array([bw for _, bw in self.levels] or [self.peak_bandwidth], dtype=np.float64)


def _units(machine) -> dict:
    return {
        "time": machine.time_unit,
        "compute": machine.compute_unit,
        "bandwidth": machine.bandwidth_unit,
        "ops": machine.ops_unit,
        "bytes": machine.bytes_unit,
    }


def describe_schedule(schedule) -> str:
    """ "sequential", "4 tiles", "4 tiles, pipelined, dilate+throttle", …"""
    if schedule.tiles <= 1 and not schedule.pipeline:
        text = "sequential"
    else:
        text = f"{schedule.tiles} tiles" + (", pipelined" if schedule.pipeline else "")
        if schedule.pipeline and schedule.depth != 2:
            text += f" (depth {schedule.depth})"
    if schedule.policy != "none":
        text += f", {schedule.policy}"
    return text


def panel_for(
    workload,
    schedule,
    *,
    title: str = "",
    colors: Sequence[str] | None = None,
    y_axis: str = "relative",
    time_max: float = 0.0,
    plot_height: float = 0.0,
    level: str | None = None,
    level_chosen: bool = False,
    critical_path=None,
) -> Panel:
    """The Panel a ``CampaignDiagram`` of ``workload`` shows for ``schedule`` (``plot_height``: the
    view's ``height`` in CSS px, so that the figure is laid out as the view; 0: by the width;
    ``level``: the memory level drawn as the pipe, docs/memory-hierarchy.md#the-pipe-level-of-a-campaign-diagram, default the farthest; ``level_chosen``: the
    diagram chose it, as the level that bounds the most time, and the readout says so; ``critical_path``:
    the schedule's intervals drawn on the critical path, figures/critical.py)."""
    machine = workload.machine
    group = getattr(workload, "fusion_group", None)
    scene = build_scene(schedule, fusion_group=group, level=level)
    scene = with_group_spans(scene, schedule, group)  # bands where each group's phases actually run
    if critical_path is not None:
        scene = with_critical_path(scene, schedule, critical_path)
    return Panel(
        scene=scene,
        names=list(workload.names),
        colors=list(colors) if colors is not None else phase_colors(workload.names),
        units=_units(machine),
        resource_names=(machine.compute_name, level or machine.memory_name),
        title=title,
        y_axis=y_axis,
        peak_compute=machine.peak_compute,
        time_max=time_max,
        group_labels=tuple(getattr(workload, "fusion_groups", ()) or ()),
        plot_height=plot_height,
        notes=tuple(
            note
            for note in (pipe_note(machine, level or machine.memory_name, chosen=level_chosen), work_note(workload))
            if note
        ),
        infeasibility=schedule.infeasibility(),
        warned=tuple(note for note in (capacity_note(workload),) if note),
    )


def hierarchy_panels(workload, schedule, *, colors: Sequence[str] | None = None, **options) -> list[Panel]:
    """The hierarchy view (docs/memory-hierarchy.md#the-pipe-level-of-a-campaign-diagram): one diagram per memory level, nearest first, each with that
    level as its pipe, on one shared time axis; stack them with ``savefig(path, panels)``."""
    levels = workload.machine.level_names
    return [
        panel_for(
            workload,
            schedule,
            title=f"{level} pipe",
            colors=colors,
            time_max=float(schedule.makespan),
            level=level,
            **options,
        )
        for level in levels
    ]


def roofline_panel_for(
    workload,
    schedules: Mapping[str, object] | None = None,
    colors: Sequence[str] | None = None,
    title: str = "roofline",
    *,
    levels: Sequence[str] | None = None,
) -> RooflinePanel:
    """One point per phase (area ∝ its share of the summed durations) and one aggregate point
    per schedule (all ops and bytes over its makespan).

    On a machine with several memory levels: one roof per level and per phase one point per known
    level; ``levels`` names the levels to draw (None: all of them)."""
    from ..model.roofline import level_roofline, schedule_roofline, workload_roofline

    machine = workload.machine
    r = workload_roofline(workload)
    duration = workload.arrays.duration
    total = float(duration.sum())
    aggregates = []
    for label, schedule in (schedules or {}).items():
        s = schedule_roofline(workload, schedule)
        # above the roof only when the schedule asks for more than the machine has: said on the point
        label = f"{label} (infeasible)" if not getattr(schedule, "feasible", True) else str(label)
        aggregates.append((label, float(s.intensity[0]), float(s.achieved[0])))
    units = _units(machine)
    units["intensity"] = "" if machine.normalized else f"{machine.ops_unit}/{machine.bytes_unit}"
    h = level_roofline(workload)
    hierarchy = {"levels": tuple(zip(h.levels, h.bandwidths.tolist())), "level_intensity": h.intensity}
    if levels is not None:
        if isinstance(levels, str):
            levels = [levels]
        levels = list(levels)
        if not levels:
            raise WorkloadError(f"levels=[] draws nothing: name at least one of {', '.join(machine.level_names)}")
        for name in levels:
            machine.bandwidth(name)  # a WorkloadError naming the machine's levels
        hierarchy["shown_levels"] = tuple(levels)
    return RooflinePanel(
        peak_compute=machine.peak_compute,
        peak_bandwidth=machine.peak_bandwidth,
        ceilings=drawn_ceilings(workload),
        intensity=r.intensity,
        achieved=r.achieved,
        share=duration / total if total > 0 else np.zeros_like(duration),
        names=list(workload.names),
        colors=list(colors) if colors is not None else phase_colors(workload.names),
        aggregates=aggregates,
        units=units,
        title=title,
        **hierarchy,
    )
