"""The campaign diagram as a live anywidget: traits in, scene buffers out (js/CONTRACT.md)."""

from __future__ import annotations

import collections
import math
import time

import numpy as np
import traitlets as t

from ..errors import ScheduleError, WrongTypeError, check_flag, short_repr
from ..figures.critical import path_intervals, path_option, with_critical_path
from ..figures.group_bands import with_group_spans
from ..figures.phase_colours import phase_colors
from ..figures.readout import capacity_note, key_labels, legend_features, pipe_note, said_lines, title_at, work_note
from ..figures.scene import Scene, SceneTooLargeError, build_scene, empty_scene
from ..figures.scene_pixels import aggregate_scene
from ..model.levels import default_level
from ..model.roofline import unknown_bytes
from ..model.schedule import Plans, Schedule, build_schedule
from ..model.settings import POLICIES, STEPPINGS, check_setting
from ..model.workload import Workload
from . import base as view_base
from .base import Choice, ViewWidget, check_params
from .browser_png import PngChannel, PngExport
from .buffers import ArrayDict, same_arrays, smallest_index_dtype

#: Traits the view may write (its controls, its zoom window, its hover); every other synced trait is
#: computed here and a write from the view is refused (and the kernel's value sent back).
VIEW_WRITABLE = frozenset(
    {
        "peak_compute",
        "peak_bandwidth",
        "tiles",
        "pipeline",
        "policy",
        "stepping",
        "depth",
        "y_axis",
        "time_window",
        "hovered_phase",
        "params",
        "theme",
        "level",
    }
)
#: The controls a schedule is computed from: a new value of one is scheduled before it is stored.
SCHEDULE_CONTROLS = ("peak_compute", "peak_bandwidth", "tiles", "pipeline", "policy", "depth", "stepping")
MAX_TILES_SLIDER = 1_000_000  # the tiles slider's maximum grows (×2 past half of it) up to this
DASH_SOLID = 65535  # scene["dash"]: the whole piece is solid
BOUND_UNKNOWN = 4  # phase_table["bound"] of a phase whose bytes are unknown: no bound (js/shared/tooltip.js)
_PEAK_SPAN = 100.0  # sliders reach from peak/100 to peak×100
MAX_VIEW_PIECES = 1_000_000  # ~30 MB of buffers: beyond this a browser tab would stall on the transfer
# Above this many pieces the view is sent its time window aggregated to LOD_COLUMNS pixel columns
# (scene_pixels.py), and the window's detail when it zooms: a 10^6-piece scene is not shipped whole
# on every slider step. 4096 columns cover a full-width plot at twice the device pixels.
LOD_ABOVE = 200_000
LOD_COLUMNS = 4096


def tiles_slider_max(workload: Workload, tiles: int) -> int:
    """The tiles slider's end for ``workload`` shown at ``tiles``: room for four times the tiles asked
    and four tiles per phase (a pipeline over k phases runs every phase at once only past k tiles; at
    4k tiles it does for at least 60 % of its steps), at least 64; never past the tiles a view can be sent
    (MAX_VIEW_PIECES pieces, one per tile at least) nor MAX_TILES_SLIDER. It doubles whenever
    ``tiles`` passes half of it (``CampaignDiagram._on_control``); the number box beside the slider
    takes any count."""
    phases = max(1, len(workload))
    cap = max(1, min(MAX_TILES_SLIDER, MAX_VIEW_PIECES // phases))
    return max(1, min(cap, max(64, 4 * int(tiles), 4 * phases)))


def _checked(key: str, value):
    """``value`` for schedule setting ``key`` as ``settings.check_setting`` normalizes it, its refusal
    a ``TraitError`` (the widget's validators and the view's messages share the one rule)."""
    try:
        return check_setting(key, value)
    except ScheduleError as error:
        raise t.TraitError(str(error)) from None


class CampaignDiagram(ViewWidget, bundle="widget.js"):
    """A live campaign diagram of a workload.

    >>> diagram = CampaignDiagram(workload, tiles=4, pipeline=True)   # doctest: +SKIP
    >>> diagram.peak_bandwidth = 2e12                                  # doctest: +SKIP
    >>> diagram.params = {**diagram.params, "S": 4096}                 # doctest: +SKIP

    A workload with parameters (``workload.params``) gets one integer slider per parameter:
    ``params`` (name → positive int) re-evaluates the workload with ``with_params`` and recomputes
    the schedule, like a peak change; ``param_ranges`` (name → ``{"range": [lo, hi], "log": bool}``;
    the constructor also takes ``[lo, hi]``) sets each slider's limits, log-scaled when hi/lo ≥ 100.
    A refused value (unknown name, not a positive integer, sizes that do not evaluate; a peak outside
    the machine's range, settings the scheduler rejects) raises a ``TraitError`` naming it and leaves
    the widget as it was; from the view, it is not stored and ``warnings`` says why. ``theme``:
    ``"auto"`` (the front end's light or dark: JupyterLab, VS Code, Colab, marimo), ``"light"`` or ``"dark"``.
    """

    view_writable = VIEW_WRITABLE

    scene = ArrayDict()
    phase_names = t.List(t.Unicode()).tag(sync=True)
    phase_colors = t.List(t.Unicode()).tag(sync=True)
    fusion_groups = t.List(t.Unicode()).tag(sync=True)
    phase_table = ArrayDict()
    resource_names = t.List(t.Unicode(), minlen=2, maxlen=2, default_value=["compute", "memory"]).tag(sync=True)
    # docs/memory-hierarchy.md#the-pipe-level-of-a-campaign-diagram: the memory level drawn as the pipe ("": the level that bounds the most time), of `levels`
    level = t.Unicode("").tag(sync=True)
    levels = t.List(t.Unicode(), read_only=True).tag(sync=True)
    units = t.Dict().tag(sync=True)
    makespan = t.Float(0.0, read_only=True).tag(sync=True)
    warnings = t.List(t.Unicode()).tag(sync=True)
    readout_lines = t.List(t.List(t.Unicode(), minlen=2, maxlen=2)).tag(sync=True)  # [[text, kind]]
    legend_features = t.Dict(value_trait=t.Bool()).tag(sync=True)  # spill, compute_over, dashed
    key_labels = t.Dict(value_trait=t.Unicode()).tag(sync=True)  # the legend keys' words, naming the pipe's level

    peak_compute = t.Float(1.0).tag(sync=True)
    peak_bandwidth = t.Float(1.0).tag(sync=True)
    peak_compute_range = t.List(t.Float(), minlen=2, maxlen=2, default_value=[0.01, 100.0]).tag(sync=True)
    peak_bandwidth_range = t.List(t.Float(), minlen=2, maxlen=2, default_value=[0.01, 100.0]).tag(sync=True)
    tiles = t.Int(1).tag(sync=True)
    tiles_max = t.Int(64, min=1).tag(sync=True)
    pipeline = t.Bool(False).tag(sync=True)
    policy = Choice(POLICIES, default_value="none").tag(sync=True)
    policies = t.List(t.Unicode(), default_value=list(POLICIES), read_only=True).tag(sync=True)  # the select's options
    depth = t.Int(2).tag(sync=True)
    stepping = Choice(STEPPINGS, default_value="event").tag(sync=True)  # when a pipelined tile starts
    y_axis = Choice(("relative", "absolute"), default_value="relative").tag(sync=True)
    show_controls = t.Bool(True).tag(sync=True)
    height = t.Int(360, min=120).tag(sync=True)
    title = t.Unicode("").tag(sync=True)
    time_max = t.Float(0.0, min=0.0).tag(sync=True)  # > 0: the time axis reaches at least this far (stacks)
    time_window = t.List(t.Float(), maxlen=2).tag(sync=True)  # [t0, t1] zoomed by the view; [] = all
    hovered_phase = t.Int(None, allow_none=True).tag(sync=True)  # written by the view; linked to the roofline
    params = t.Dict().tag(sync=True)  # parameter name → value; the view writes it from its sliders
    param_ranges = t.Dict().tag(sync=True)  # parameter name → {"range": [lo, hi], "log": bool}
    # PNG requests waiting for a view ([{"id", "scale"}]): state, so a view that renders later still
    # sees them (save_png under Run All); kernel-written, answered by the view over the comm
    png_requests = t.List(t.Dict()).tag(sync=True)

    def __init__(
        self,
        workload: Workload | Schedule,
        *,
        tiles: int | None = None,
        pipeline: bool | None = None,
        policy: str | None = None,
        depth: int | None = None,
        stepping: str | None = None,
        y_axis: str = "relative",
        height: int = 360,
        show_controls: bool = True,
        title: str = "",
        param_ranges: dict | None = None,
        theme: str = "auto",
        critical_path=False,
        **kwargs,
    ):
        # A schedule (a measured Timeline, or any Schedule with its .workload) is drawn as it is: its
        # intervals at their times, idle gaps kept; peaks rescale its rates, the schedule controls do nothing.
        self._given_schedule = workload if isinstance(workload, Schedule) else None
        if self._given_schedule is not None:
            if any(v is not None for v in (tiles, pipeline, policy, depth, stepping)):
                raise WrongTypeError(
                    "CampaignDiagram of a given schedule (e.g. a measured timeline) takes no tiles, "
                    "pipeline, policy or depth: its intervals are drawn as they are"
                )
            workload = self._given_schedule.workload
        if not isinstance(workload, Workload):
            raise WrongTypeError(
                f"CampaignDiagram takes a campaign_widget.Workload or a Schedule with its workload, "
                f"got {type(workload).__name__}"
            )
        self.check_arguments(kwargs)
        self._critical = path_option(critical_path, self._given_schedule)  # docs/views/campaign-diagram.md
        self._ready = False
        # (benchmarks/bench_browser.py) wall-clock stamps of the last recomputes: received, computed, sent
        self._timings: collections.deque = collections.deque(maxlen=256)
        self._timing = None
        self._workload = workload  # at the current params (the one given, until params change)
        self._base = workload  # as given: params re-evaluate from it
        self._evaluated = None  # (params, workload, schedule) computed by the params validator
        # ((controls, workload), received, schedule, workload at the peaks) computed by the controls' validators
        self._proposal = None
        self._png = PngChannel(lambda requests: self.set_trait("png_requests", requests))
        self._plans = Plans()  # the dependency graph and tile order, kept across slider steps
        machine = workload.machine
        first = self._given_schedule or workload.schedule(
            tiles=tiles, pipeline=pipeline, policy=policy, depth=depth, stepping=stepping
        )  # fails fast, clearly
        tiles, pipeline, policy, depth = first.tiles, first.pipeline, first.policy, first.depth
        stepping = getattr(first, "stepping", "event")
        ranges = view_base.param_ranges(workload.params, param_ranges)
        super().__init__()
        with self.hold_trait_notifications():
            self.param_ranges = ranges
            self.params = workload.params
            self.peak_compute = machine.peak_compute
            self.peak_bandwidth = machine.peak_bandwidth
            self.peak_compute_range = [machine.peak_compute / _PEAK_SPAN, machine.peak_compute * _PEAK_SPAN]
            self.peak_bandwidth_range = [machine.peak_bandwidth / _PEAK_SPAN, machine.peak_bandwidth * _PEAK_SPAN]
            self.tiles_max = tiles_slider_max(workload, tiles)
            self.tiles, self.pipeline, self.policy, self.depth = int(tiles), bool(pipeline), policy, int(depth)
            self.stepping = stepping
            self.y_axis, self.height, self.show_controls, self.title = y_axis, height, show_controls, title
            self.theme = theme
            self.phase_names = workload.names
            self.fusion_groups = list(workload.fusion_groups)
            self.phase_colors = phase_colors(workload.names)
            self.resource_names = [machine.compute_name, machine.memory_name]
            self.set_trait("levels", list(machine.level_names))
            self.units = {
                "time": machine.time_unit,
                "compute": machine.compute_unit,
                "bandwidth": machine.bandwidth_unit,
                "ops": machine.ops_unit,
                "bytes": machine.bytes_unit,
            }
        self.on_msg(self._on_view_message)
        self._ready = True
        self._recompute(first)

    # -- validation: errors name the field and the value -----------------------------------------

    @t.validate("peak_compute", "peak_bandwidth")
    def _valid_peak(self, proposal):
        value = proposal["value"]
        if not math.isfinite(value) or value <= 0:
            raise t.TraitError(f"{proposal['trait'].name}={value!r} must be a finite number > 0")
        return self._scheduled(proposal["trait"].name, value)

    @t.validate("pipeline", "policy", "stepping")
    def _valid_schedule_setting(self, proposal):
        return self._scheduled(proposal["trait"].name, proposal["value"])

    def _scheduled(self, name, value):
        """``value`` for control ``name`` once the schedule it gives is computed: a value the model
        refuses (a peak outside the machine's range, settings the scheduler rejects) raises here and
        is never stored. The schedule is kept for the observer's recompute."""
        if not getattr(self, "_ready", False):
            return value
        controls = {key: getattr(self, key) for key in SCHEDULE_CONTROLS}
        controls[name] = value
        key = (tuple(controls.values()), self._workload)
        if self._proposal is not None and self._proposal[0] == key:
            return value
        received = time.time()
        try:
            current = self._workload.with_peaks(controls["peak_compute"], controls["peak_bandwidth"])
            if self._given_schedule is not None:
                schedule = self._given_schedule_at_peaks(controls["peak_compute"], controls["peak_bandwidth"])
            else:
                schedule = build_schedule(
                    current,
                    tiles=controls["tiles"],
                    pipeline=controls["pipeline"],
                    policy=controls["policy"],
                    depth=controls["depth"],
                    stepping=controls["stepping"],
                    _plans=self._plans,
                )
        except ValueError as error:  # the package's errors (CampaignWidgetError) are ValueErrors
            raise t.TraitError(f"{name}={short_repr(value)}: {error}") from None
        self._proposal = (key, received, schedule, current)
        return value

    @t.validate("tiles")
    def _valid_tiles(self, proposal):
        value = _checked("tiles", proposal["value"])
        if value > 1 and not self._workload.tileable.all():
            fixed = self._workload.names[int((~self._workload.tileable).argmax())]
            raise t.TraitError(f"tiles={value!r}: phase {fixed!r} is marked tileable=False")
        return self._scheduled("tiles", value)

    @t.validate("params")
    def _valid_params(self, proposal):
        """Merge, check and evaluate before storing: a refused value leaves the widget as it was."""
        value = proposal["value"]
        known = self._base.params
        if not getattr(self, "_ready", False):
            return dict(value)
        # Merged into the accepted values (the workload's): under ipywidgets' set_state the trait
        # already holds the proposal when this runs, so self.params is not the value to keep.
        accepted = dict(self._workload.params)
        merged = {**accepted, **check_params(value, known)}
        if merged == accepted:
            return merged
        try:
            workload = self._base.with_params(**merged)
            schedule = workload.with_peaks(self.peak_compute, self.peak_bandwidth).schedule(
                tiles=self.tiles, pipeline=self.pipeline, policy=self.policy, depth=self.depth, stepping=self.stepping
            )
        except (ValueError, TypeError, ArithmeticError) as error:  # the package's errors are ValueErrors
            raise t.TraitError(f"params={short_repr(merged)}: {error}") from None
        self._evaluated = (merged, workload, schedule)
        return merged

    @t.validate("param_ranges")
    def _valid_param_ranges(self, proposal):
        try:
            current = {name: spec["range"] for name, spec in self.param_ranges.items()}
            return view_base.param_ranges(self._base.params, {**current, **proposal["value"]}, defaults=False)
        except ValueError as error:
            raise t.TraitError(str(error)) from None

    @t.validate("depth")
    def _valid_depth(self, proposal):
        return self._scheduled("depth", _checked("depth", proposal["value"]))

    # -- the model, recomputed on every control change ------------------------------------------

    _titling = False  # True while the diagram re-renders its own title (the caller's text is kept as given)

    @t.validate("title")
    def _valid_title(self, proposal):
        """The title as given, its ``{param}`` fields filled in and a quoted value that went stale said
        so (``figures.readout.title_at``): a title follows the state it describes."""
        if not self._titling:
            self._title_given = (str(proposal["value"]), dict(self.params))
        given, written_at = self._title_given
        return title_at(given, self.params, written_at)

    @t.observe("params")
    def _on_params(self, change):
        evaluated, self._evaluated = self._evaluated, None
        if not getattr(self, "_ready", False) or change["old"] == change["new"]:
            return
        self._timing = {"trait": "params", "received": time.time()}
        if evaluated is not None and evaluated[0] == change["new"]:
            _, self._workload, schedule = evaluated
        else:  # not reached through the validator (cannot happen; kept safe)
            self._workload, schedule = self._base.with_params(**change["new"]), None
        self._retitle()
        self._recompute(schedule)

    def _retitle(self) -> None:
        given = getattr(self, "_title_given", None)
        if given is not None:
            self._titling = True
            try:
                self.title = given[0]
            finally:
                self._titling = False

    def set_params(self, **values):
        """Set some parameters (the others keep their values): ``diagram.set_params(S=4096)``."""
        self.params = {**self.params, **values}

    @t.validate("level")
    def _valid_level(self, proposal):
        value = proposal["value"]
        if value and value not in self.levels:
            raise t.TraitError(
                f"level={short_repr(value)} is not a memory level of this machine; its levels are "
                f"{', '.join(self.levels)} (or '' for the level that bounds the most time)"
            )
        return value

    @t.observe("level")
    def _on_level(self, _change):
        if getattr(self, "_ready", False):
            self._timing = {"trait": "level", "received": time.time()}
            self._recompute(self._schedule)  # the same schedule, another level in the pipe

    def _work_note(self) -> str | None:
        """``readout.work_note`` of the workload's import report, worked out once per report (it reads
        every imported phase; a slider step changes no report)."""
        report = self._current.import_report
        known = getattr(self, "_work_note_of", None)
        if known is None or known[0] is not report:
            known = self._work_note_of = (report, work_note(self._current))
        return known[1]

    @property
    def pipe_level(self) -> str:
        """The memory level the diagram draws as its pipe: ``level``, else the one that bounds the most time."""
        return self.level or default_level(self._current)

    @t.observe("peak_compute", "peak_bandwidth", "tiles", "pipeline", "policy", "depth", "stepping")
    def _on_control(self, change):
        if change["name"] == "tiles" and 2 * change["new"] > self.tiles_max:
            cap = min(MAX_TILES_SLIDER, MAX_VIEW_PIECES // max(1, len(self._workload)))
            self.tiles_max = max(change["new"], min(cap, max(self.tiles_max, 2 * change["new"])))  # room to go on
        if getattr(self, "_ready", False):
            proposal = self._proposal  # kept: one view message may change several controls
            key = (tuple(getattr(self, name) for name in SCHEDULE_CONTROLS), self._workload)
            if proposal is not None and proposal[0] == key:
                self._timing = {"trait": change["name"], "received": proposal[1], "scheduled": time.time()}
                self._recompute(proposal[2], proposal[3])
            else:
                self._timing = {"trait": change["name"], "received": time.time()}
                self._recompute()

    def set_workload(self, workload: Workload) -> None:
        """Draw another workload with the current controls (tiles, policy, peaks, …).

        For a workload derived from the one shown, e.g. ``LocalView.apply()``'s predicted traffic:
        ``LocalView(..., diagram=diagram)`` calls it, so a loop interchange shortens the phase on screen.
        The new workload is scheduled before anything changes, so a refused one leaves the diagram as it was.
        """
        if not isinstance(workload, Workload):
            raise WrongTypeError(f"set_workload takes a campaign_widget.Workload, got {type(workload).__name__}")
        if self._given_schedule is not None:
            raise WrongTypeError(
                "this diagram draws a given schedule (e.g. a measured timeline); make a new "
                "CampaignDiagram for another workload"
            )
        schedule = workload.with_peaks(self.peak_compute, self.peak_bandwidth).schedule(
            tiles=self.tiles, pipeline=self.pipeline, policy=self.policy, depth=self.depth, stepping=self.stepping
        )
        self._ready = False  # the params validator and observers see the new base only once it is whole
        try:
            self._base = self._workload = workload
            self._evaluated = None
            with self.hold_trait_notifications():
                self.param_ranges = view_base.param_ranges(workload.params, None)
                self.params = workload.params
                self.phase_names = workload.names
                self.fusion_groups = list(workload.fusion_groups)
                self.phase_colors = phase_colors(workload.names)
                self.tiles_max = tiles_slider_max(workload, self.tiles)
                self.set_trait("levels", list(workload.machine.level_names))
                if self.level and self.level not in self.levels:
                    self.level = ""
        finally:
            self._ready = True
        self._timing = {"trait": "workload", "received": time.time()}
        self._recompute(schedule)

    @property
    def workload(self) -> Workload:
        """The workload at the current ``params``, on the machine with the current peaks."""
        return self._current

    @property
    def schedule(self) -> Schedule:
        return self._schedule

    def _recompute(self, schedule: Schedule | None = None, current: Workload | None = None):
        """Model → schedule → scene → synced traits; ``schedule`` (and ``current``, the workload at the
        peaks) if already computed for these settings, as the controls' validators do."""
        self._current = current or self._workload.with_peaks(self.peak_compute, self.peak_bandwidth)
        try:
            if self._given_schedule is not None:
                schedule = schedule or self._given_schedule_at_peaks()
            self._schedule = schedule or build_schedule(
                self._current,
                tiles=self.tiles,
                pipeline=self.pipeline,
                policy=self.policy,
                depth=self.depth,
                stepping=self.stepping,
                _plans=self._plans,
            )
        except ScheduleError as error:
            self.warnings = [str(error)]
            raise
        if self._timing is not None:
            self._timing["scheduled"] = time.time()
        notes = self._current.utilization_warnings()
        try:
            pipe = self.pipe_level
            self.resource_names = [self._current.machine.compute_name, pipe]
            self._scene = with_group_spans(
                build_scene(self._schedule, fusion_group=self._current.fusion_group, level=pipe),
                self._schedule,
                self._current.fusion_group,
            )
            path = self.critical_intervals()
            if path is not None:
                self._scene = with_critical_path(self._scene, self._schedule, path)
            if len(self._scene) > MAX_VIEW_PIECES:
                raise SceneTooLargeError(
                    f"this diagram has {len(self._scene):,} pieces, more than the {MAX_VIEW_PIECES:,} a browser view "
                    "is sent (about 30 bytes each); use fewer tiles, or savefig() for a static figure"
                )
        except SceneTooLargeError as error:
            self._scene = empty_scene(self._schedule)
            notes = [str(error)] + notes
        if self._timing is not None:
            self._timing["computed"] = time.time()
        with self.hold_sync():
            table = phase_table_state(self._current)
            if not same_arrays(table, self.phase_table):  # send only what changed
                self.phase_table = table
            self.scene = scene_state(self._scene_for_view(), peak_compute=self.peak_compute, tiles=self.tiles)
            self._readout()
            features = legend_features(self._scene)
            if features != self.legend_features:
                self.legend_features = features
            self.set_trait("makespan", self._schedule.makespan)
            self.warnings = notes

    @property
    def critical_path(self):
        """Whether the diagram marks a critical path (``True``), or the given schedule's intervals it marks."""
        return self._critical

    @critical_path.setter
    def critical_path(self, value) -> None:
        self._critical = path_option(value, self._given_schedule)
        self._recompute(self._schedule, self._current)

    def critical_intervals(self):
        """The intervals of the schedule drawn on the critical path (``critical_path=``), or None."""
        return path_intervals(self._critical, self._schedule, self._current)

    @t.observe("title", "time_max")
    def _on_title(self, _change):
        if getattr(self, "_ready", False) and hasattr(self, "_scene"):
            self._readout()  # a title that says the makespan takes it out of the readout

    def _readout(self) -> None:
        """The readout lines and the legend keys' words (``figures.readout``): the makespan once, in the
        title's format, said infeasible where it is; the pipe's level on a machine with several."""
        schedule = self._schedule
        end = max(float(self.time_max or 0.0), float(schedule.makespan))
        notes = (pipe_note(self._current.machine, self.pipe_level, chosen=not self.level), self._work_note())
        lines = [
            list(line)
            for line in said_lines(
                self._scene,
                self.units,
                self.resource_names,
                notes,
                schedule.makespan,
                schedule.infeasibility(),
                end,
                self.title,
                (capacity_note(self._current),),
            )
        ]
        if hasattr(schedule, "shares"):  # a measured timeline: how much of it is idle or busy
            shares = schedule.shares(0.5)
            lines.append(
                [
                    ", ".join(
                        f"{name} {share:.0%}" if name != "idle" else f"idle {share:.0%}"
                        for name, share in shares.items()
                    )
                    + " of the time (busy: ≥ 50% of peak)",
                    "note",
                ]
            )
        self.readout_lines = lines
        words = key_labels(self.resource_names[1])
        if words != self.key_labels:
            self.key_labels = words

    def _scene_for_view(self) -> Scene:
        """The scene, or above LOD_ABOVE pieces its visible window aggregated to the pixel."""
        if len(self._scene) <= LOD_ABOVE:
            return self._scene
        window = tuple(self.time_window) if len(self.time_window) == 2 else None
        return aggregate_scene(self._scene, window, LOD_COLUMNS)

    @t.observe("time_window")
    def _on_time_window(self, change):
        """A zoom or pan of the view: a scene sent aggregated is sent again, in detail for the new window."""
        if getattr(self, "_ready", False) and len(getattr(self, "_scene", ())) > LOD_ABOVE:
            self.scene = scene_state(self._scene_for_view(), peak_compute=self.peak_compute, tiles=self.tiles)

    def _given_schedule_at_peaks(self, peak_compute=None, peak_bandwidth=None) -> Schedule:
        given = self._given_schedule
        machine = given.workload.machine
        peaks = (peak_compute or self.peak_compute, peak_bandwidth or self.peak_bandwidth)
        if peaks == (machine.peak_compute, machine.peak_bandwidth) or not hasattr(given, "with_peaks"):
            return given
        return given.with_peaks(*peaks)

    def _check_view_state(self, sync_data) -> None:
        if "tiles" in sync_data:
            self._check_view_tiles(sync_data["tiles"])

    def _refused(self, text: str) -> None:
        # a value the kernel refuses (checked before it is stored): the widget stays as it was, the
        # readout says why, and the view's controls go back to the kernel's values
        self.warnings = [text]

    def _check_view_tiles(self, value) -> None:
        """A tile count from the view is refused before anything is computed when the view could not
        be sent its pieces anyway (each tile is at least one piece): a drag must not freeze the kernel."""
        value = _checked("tiles", value)
        phases = len(self._workload)
        if value * phases > MAX_VIEW_PIECES:
            raise t.TraitError(
                f"tiles={value:,} × {phases} phases = {value * phases:,} tiles, more than the "
                f"{MAX_VIEW_PIECES:,} pieces a browser view is sent; use at most "
                f"{MAX_VIEW_PIECES // phases:,} tiles here, or savefig() for a static figure"
            )

    def send_state(self, key=None):
        timing, self._timing = getattr(self, "_timing", None), None
        if timing is None:
            return super().send_state(key)
        timing["serializing"] = time.time()
        super().send_state(key)
        timing["sent"] = time.time()
        self._timings.append(timing)

    # -- export ----------------------------------------------------------------------------------

    def save_png(self, path, scale: float = 2, timeout: float | None = 60.0, theme: str | None = None) -> PngExport:
        """Write a PNG of what the view shows to ``path`` (on the kernel's side).

        A view draws it at ``scale`` × its size on screen. The request waits (in the
        ``png_requests`` trait) until a view of this diagram renders, so calling it in the cell
        after the one that displays the diagram works under Run All too. The file is written when
        the view answers, i.e. after the calling cell ends. The returned ``PngExport`` tells whether
        it was written (``.done``, ``.error``); with no view within ``timeout`` seconds (``None`` or
        ``inf``: no limit) it fails with a warning. A folder, a missing folder or an unwritable path
        is refused at once, naming the path, and so is a name that does not end in ``.png``.
        ``theme="light"`` or ``"dark"`` draws this picture in that theme whatever the page's.
        """
        return self._png.request(path, scale, timeout, theme=theme)

    def panel(self):
        """What this diagram shows, for the static renderer (``campaign_widget.static_figure``)."""
        from ..static_figure import panel_for

        return panel_for(
            self.workload,
            self.schedule,
            level=self.pipe_level,
            level_chosen=not self.level,
            title=self.title,
            colors=list(self.phase_colors),
            y_axis=self.y_axis,
            time_max=self.time_max,
            critical_path=self.critical_intervals(),
        )

    def savefig(
        self,
        path,
        *,
        roofline: bool = False,
        width: float = 8.0,
        dpi: int = 200,
        theme: str = "light",
        roofline_levels=None,
    ):
        """Write PNG, SVG or PDF (by suffix) of this diagram with no browser, drawn from the same scene
        as the live view; ``roofline=True`` adds the roofline beside it (on a multi-level machine the
        hierarchical one; ``roofline_levels`` picks the levels drawn), ``theme`` "light" or "dark"."""
        from ..static_figure import roofline_panel_for, savefig

        beside = (
            roofline_panel_for(
                self.workload, {"schedule": self.schedule}, colors=list(self.phase_colors), levels=roofline_levels
            )
            if check_flag(roofline, "roofline")
            else None
        )
        return savefig(path, [self.panel()], roofline=beside, width=width, dpi=dpi, theme=theme)

    def _on_view_message(self, _widget, content, buffers):
        if isinstance(content, dict):
            self._png.on_message(content, buffers)

    def __repr__(self):
        return (
            f"CampaignDiagram({len(self.phase_names)} phases, tiles={self.tiles}, pipeline={self.pipeline}, "
            f"policy={self.policy!r}, makespan={self.makespan:.6g})"
        )


def scene_state(scene: Scene, *, peak_compute: float = float("nan"), tiles: int = 1) -> dict:
    """The ``scene`` trait: a ``Scene`` in the view's compact wire form (js/CONTRACT.md, "scene").

    Piece boundaries are indices into ``edges`` (the distinct times, float64, exact); the dashed
    part of a piece starts at a 16-bit fraction of its width (``dash``, 65535 = solid); phase and
    tile ids take the narrowest unsigned type; y values are float32. ``peak_compute`` and ``tiles``
    travel with the geometry they were computed for, so the view draws both at once.
    """
    n = len(scene)
    if scene.edges is not None:  # the schedule's instants, indexed already: no sort on a slider step
        edges, where = scene.edges, np.concatenate([scene.x0_edge, scene.x1_edge])
    else:
        edges, where = np.unique(np.concatenate([scene.x0, scene.x1]), return_inverse=True)
        where = where.reshape(-1)
    index = smallest_index_dtype(max(edges.size - 1, 0))
    width = scene.x1 - scene.x0
    with np.errstate(divide="ignore", invalid="ignore"):
        fraction = np.where(width > 0, (scene.dash_from - scene.x0) / width, 1.0)
    dash = np.where(
        scene.dash_from >= scene.x1, DASH_SOLID, np.clip(np.rint(fraction * DASH_SOLID), 0, DASH_SOLID - 1)
    ).astype(np.uint16)
    state = {
        "n": n,
        "pipe_width": scene.pipe_width,
        "x_max": scene.x_max,
        "y_max": scene.y_max,
        "peak_compute": float(peak_compute),
        "tiles": int(tiles),
        "edges": edges.astype(np.float64),
        "x0": where[:n].astype(index),
        "x1": where[n:].astype(index),
        "dash": dash,
        "phase": scene.phase.astype(smallest_index_dtype(int(scene.phase.max(initial=0)))),
        "tile": scene.tile.astype(smallest_index_dtype(int(scene.tile.max(initial=0)))),
    }
    for key in ("base_y", "line_y", "well_top", "fill_top"):
        state[key] = np.asarray(getattr(scene, key), dtype=np.float32)
    state["flags"] = np.asarray(scene.flags, dtype=np.uint8)
    for key, dtype in (
        ("over_t0", np.float64),
        ("over_t1", np.float64),
        ("over_resource", np.uint8),
        ("over_demand", np.float64),
        ("group_t0", np.float64),
        ("group_t1", np.float64),
        ("group_id", np.int32),
    ):
        state[key] = np.asarray(getattr(scene, key), dtype=dtype)
    return state


def decode_scene_state(state: dict) -> dict:
    """The per-piece arrays the view decodes from ``scene_state`` (x0, x1, dash_from as float64; the rest
    as sent): what js/shared/codecs.js computes, for tests and tools."""
    edges = np.asarray(state["edges"], dtype=np.float64)
    out = {k: v for k, v in state.items() if isinstance(v, np.ndarray)}
    out["x0"], out["x1"] = edges[state["x0"]], edges[state["x1"]]
    dash = np.asarray(state["dash"])
    out["dash_from"] = np.where(dash == DASH_SOLID, out["x1"], out["x0"] + (out["x1"] - out["x0"]) * dash / DASH_SOLID)
    return out


def phase_table_state(workload: Workload) -> dict:
    """The ``phase_table`` trait: per-phase columns (float64; ``bound`` uint8)."""
    a = workload.arrays
    table = {
        key: np.asarray(getattr(a, key), dtype=np.float64)
        for key in ("duration", "compute_util", "memory_util", "ops", "bytes", "intensity", "t_sol", "efficiency")
    }
    table["bound"] = np.asarray(a.bound, dtype=np.uint8)
    # bytes the source does not give read unknown, not 0 (docs/semantics.md#unknown-bytes)
    unknown = unknown_bytes(workload)
    if unknown.any():
        for key in ("bytes", "memory_util", "intensity", "efficiency", "bound"):
            table[key] = table[key].copy()  # the workload's own arrays are read-only
            table[key][unknown] = BOUND_UNKNOWN if key == "bound" else np.nan
    return table
