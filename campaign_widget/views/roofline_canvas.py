"""The roofline as an anywidget (``RooflinePlot``): the same roofline ``RooflineView`` draws with
bqplot, drawn on a canvas, for front ends that render anywidgets but not ipywidgets (marimo).

One source of truth for the geometry: every number the view draws (roofs, ridges, ceilings, points,
the schedule's point, axis ranges and ticks) is ``roofline.roofline_geometry``'s, the function the
bqplot view draws from too, synced in ``geometry``; the view (js/roofline/widget.js) only maps those
numbers to pixels. It follows a ``CampaignDiagram`` as ``RooflineView`` does: peaks, parameters and
schedule settings redraw it, and the hovered phase is one value in both (``hovered_phase``).
"""

from __future__ import annotations

import numpy as np
import traitlets as t

from ..errors import short_repr
from ..figures.roofline import RooflineGeometry, phase_details, roofline_geometry, schedule_readout, x_axis_label
from ..model.roofline import DEFAULT_THRESHOLD
from .base import ViewWidget
from .buffers import ArrayDict

#: What the view may write: its hover, the levels its legend's boxes show, its theme.
VIEW_WRITABLE = frozenset({"hovered_phase", "shown_levels", "theme"})
#: The diagram's traits whose change gives it a new schedule or new colours (as ``RooflineView``).
FOLLOWED = ["makespan", "peak_compute", "peak_bandwidth", "phase_colors", "params"]


class RooflinePlot(ViewWidget, bundle="roofline.js"):
    """The roofline of what a ``CampaignDiagram`` shows, drawn on a canvas; follows its peaks,
    parameters and hovered phase (``diagram.hovered_phase`` and ``hovered_phase`` are linked).

    >>> plot = RooflinePlot(diagram)          # doctest: +SKIP
    >>> plot.geometry["x_range"]              # doctest: +SKIP
    [0.01, 800.0]
    """

    view_writable = VIEW_WRITABLE

    #: The numbers drawn (``roofline.RooflineGeometry``): arrays ``roof_x``, ``roof_y`` (roofs × 3, flat),
    #: ``ridge_x``, ``phase_x``, ``phase_y``, ``share``, ``level_x`` (phases × levels, flat), ``level_y``;
    #: JSON ``x_range``, ``y_range``, ``x_ticks``, ``y_ticks``, ``peak_compute``, ``levels``,
    #: ``hierarchical``, ``ceilings`` ([{name, x, y}]), ``aggregate`` ([x, y]).
    geometry = ArrayDict()
    phase_names = t.List(t.Unicode()).tag(sync=True)
    phase_colors = t.List(t.Unicode()).tag(sync=True)
    #: Axis units: ``{"intensity": "FLOP/B", "compute": "FLOP/s", "x_label": the x title (``x_axis_label``)}``.
    units = t.Dict().tag(sync=True)
    #: The hovered phase's tooltip lines (name and intensity, achieved and bound, regime, guidance); [] when
    #: none is hovered. Worded for that one phase when the hover or the schedule changes, not for every phase
    #: at every slider step.
    hovered_details = t.List(t.Unicode()).tag(sync=True)
    #: The schedule's point in words, two lines.
    readout_lines = t.List(t.Unicode()).tag(sync=True)
    #: The phase hovered here or in the diagram (linked to ``diagram.hovered_phase``), or None.
    hovered_phase = t.Int(None, allow_none=True).tag(sync=True)
    #: The memory levels drawn (names, nearest first); every level by default. A one-level machine draws
    #: its one level whatever this holds.
    shown_levels = t.List(t.Unicode()).tag(sync=True)
    threshold = t.Float(DEFAULT_THRESHOLD, min=0.01, max=1.0).tag(sync=True)
    height = t.Int(360, min=160).tag(sync=True)
    title = t.Unicode("roofline").tag(sync=True)

    def __init__(
        self, diagram, *, threshold: float = DEFAULT_THRESHOLD, height: int = 360, theme: str = "auto", **kwargs
    ):
        self.check_arguments(kwargs)
        super().__init__()
        self.diagram = diagram
        self._drawn = None
        self._levels: tuple[str, ...] | None = None
        self.last_geometry: RooflineGeometry | None = None
        with self.hold_trait_notifications():
            self.height, self.theme, self.threshold = height, theme, threshold
        self._hover_link = t.link((diagram, "hovered_phase"), (self, "hovered_phase"))
        diagram.observe(self.refresh, names=FOLLOWED)
        self.observe(self.refresh, names=["threshold"])
        self.observe(self._word_hovered, names=["hovered_phase"])
        self.refresh()

    def __repr__(self) -> str:
        return f"<RooflinePlot of {len(self.phase_names)} phases>"

    def _word_hovered(self, _change=None):
        index, g = self.hovered_phase, self.last_geometry
        names = self.diagram.workload.names
        if index is None or g is None or not 0 <= index < len(names):
            self.hovered_details = []
        else:
            self.hovered_details = phase_details(g, self.diagram.workload, self.threshold, index)

    def _page_state(self, state):
        """A page has no kernel to word the hovered phase: it carries every phase's lines
        (``details_by_phase``, the words ``hovered_details`` gets), and the view reads them there."""
        g, workload = self.last_geometry, self.diagram.workload
        count = len(workload.names) if g is not None else 0
        return {**state, "details_by_phase": [phase_details(g, workload, self.threshold, i) for i in range(count)]}

    def _check_view_state(self, sync_data):
        shown = sync_data.get("shown_levels")
        levels = list(self._levels or ())
        if shown is not None and (not isinstance(shown, list) or any(name not in levels for name in shown)):
            raise t.TraitError(f"shown_levels={short_repr(shown)} must be levels of the machine ({', '.join(levels)})")

    def close(self):
        link = self.__dict__.pop("_hover_link", None)  # absent when the constructor refused its arguments
        if link is not None:
            link.unlink()
            self.diagram.unobserve(self.refresh, names=FOLLOWED)
        super().close()

    def refresh(self, _change=None):
        """Recompute the geometry from the diagram's workload and schedule (once per schedule)."""
        workload, schedule = self.diagram.workload, self.diagram.schedule
        key = (schedule, workload, self.threshold, tuple(self.diagram.phase_colors))
        drawn = self._drawn
        if drawn is not None and all(a is b for a, b in zip(key[:2], drawn[:2])) and key[2:] == drawn[2:]:
            return  # one diagram change fires several of the observed traits: compute it once
        self._drawn = key
        g = roofline_geometry(workload, schedule, self.threshold)
        self.last_geometry = g
        machine = workload.machine
        with self.hold_sync():
            self.geometry = geometry_payload(g)
            self.phase_names = list(workload.names)
            self.phase_colors = list(self.diagram.phase_colors)
            intensity = f"{machine.ops_unit}/{machine.bytes_unit}"
            self.units = {"intensity": intensity, "compute": machine.compute_unit, "x_label": x_axis_label(intensity)}
            self._word_hovered()
            self.readout_lines = schedule_readout(g, workload, schedule)
            if g.levels != self._levels:
                self._levels = g.levels
                self.shown_levels = list(g.levels)


def geometry_payload(g: RooflineGeometry) -> dict:
    """``g`` as the synced ``geometry``: arrays as float64 buffers (flat, C order), the rest JSON."""
    phases = g.phase_x.size
    level_x = g.level_x if g.level_x is not None else np.empty((phases, 0))
    level_y = g.level_y if g.level_y is not None else np.empty(0)

    def flat(a):
        return np.ascontiguousarray(np.asarray(a, dtype=np.float64).ravel())

    return {
        "roof_x": flat(g.roof_x),
        "roof_y": flat(g.roof_y),
        "ridge_x": flat(g.ridge_x),
        "phase_x": flat(g.phase_x),
        "phase_y": flat(g.phase_y),
        "share": flat(g.share),
        "level_x": flat(level_x),
        "level_y": flat(level_y),
        "x_range": [float(v) for v in g.x_range],
        "y_range": [float(v) for v in g.y_range],
        "x_ticks": [float(v) for v in g.x_ticks],
        "y_ticks": [float(v) for v in g.y_ticks],
        "peak_compute": g.peak_compute,
        "levels": list(g.levels),
        "hierarchical": g.hierarchical,
        "ceilings": [{"name": name, "x": x.tolist(), "y": y.tolist()} for name, x, y in g.ceilings],
        "aggregate": [float(v) for v in g.aggregate],
    }
