"""Several campaign diagrams stacked on one shared time axis, each labelled with its makespan and
its speedup against the first (the paper's Figure 12: unfused / fused / achieved / pipelined)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import ipywidgets
import numpy as np
import traitlets as t

from ..errors import CampaignWidgetError, WrongTypeError, short_repr
from ..figures.phase_colours import phase_colors
from ..figures.readout import makespan_text, title_at
from ..formatting import MISSING, format_reading, format_speedup
from ..io.checks import flag
from ..model.schedule import Schedule
from ..model.timeline import phase_gaps
from ..model.workload import Workload
from .composite import Column, Composite, Layout, Link, Part, Text
from .diagram import CampaignDiagram


class StackedDiagrams(Composite, ipywidgets.VBox):
    """Panels of one or several workloads, top to bottom, on one time axis.

    ``panels`` maps a label to a ``Workload``, a ``(Workload, schedule settings)`` pair, or a
    ``CampaignDiagram``. Zooming one panel zooms them all, in the browser. A label is shown as
    ``str(label)``, so two labels that print alike (``1`` and ``'1'``) are refused, as is one
    ``CampaignDiagram`` given for two panels.

    Each title says its makespan and, with ``compare`` (the default), how much faster or slower it is
    than the first panel; ``compare=False`` for panels that are not alternatives to each other (one
    decode step beside a whole prefill). An infeasible schedule is compared with none
    (docs/semantics.md#feasible-schedules). A label's ``{param}`` fields follow the panel's parameters.

    >>> StackedDiagrams({"tiled": (w, dict(tiles=4)),                       # doctest: +SKIP
    ...                  "pipelined": (w, dict(tiles=4, pipeline=True))})
    """

    shared_time = t.Bool(True)  # one time axis for all panels (zoom linked); False: each panel its own

    def __init__(
        self,
        panels: Mapping[str, object],
        *,
        show_controls: bool = False,
        height: int = 220,
        shared_time: bool = True,
        compare: bool = True,
    ):
        if not isinstance(panels, Mapping):
            raise WrongTypeError(
                f"panels={short_repr(panels)} must be a mapping {{label: panel}}, not {type(panels).__name__}"
            )
        if not panels:
            raise CampaignWidgetError("StackedDiagrams needs at least one panel")
        show_controls = flag("show_controls", show_controls)
        shared_time = flag("shared_time", shared_time)
        self.compare = flag("compare", compare)
        self._made_at: dict[str, dict] = {}  # each panel's parameters when its label was written
        self.diagrams: dict[str, CampaignDiagram] = {}
        labelled: dict[str, object] = {}  # the label as shown -> the label as given
        known: dict[str, str] = {}
        for label, item in panels.items():
            _check_distinct(label, item, labelled, self.diagrams)
            diagram = _as_diagram(label, item, show_controls, height)
            colors = phase_colors(diagram.phase_names, known)  # the rule every view of a workload follows
            for name, color in zip(diagram.phase_names, colors):
                known.setdefault(name, color)  # a phase keeps the colour of the first panel that drew it
            diagram.phase_colors = colors
            self.diagrams[str(label)] = diagram
            self._made_at[str(label)] = dict(diagram.params)
        # Panels with very different makespans may each take the full width: a toggle.
        self.time_toggle = ipywidgets.Checkbox(
            value=shared_time,
            description="one time axis for all panels",
            indent=False,
            layout=ipywidgets.Layout(width="auto"),
        )
        # achieved over bound (the paper's Figure 12): a measured timeline's gap to the first
        # analytical panel, per phase, as plain text under the panels
        self.gap_readout = ipywidgets.Label(layout=ipywidgets.Layout(width="100%"))
        self.shared_time = shared_time  # before the box makes its links: they join the panels while it holds
        super().__init__()
        ipywidgets.link((self.time_toggle, "value"), (self, "shared_time"))
        for diagram in self.diagrams.values():
            diagram.observe(self._relabel, names=["makespan", "params"])
        self._own_windows()
        self.observe(self._share_time, names="shared_time")

    @property
    def makespans(self) -> dict[str, float]:
        return {label: d.makespan for label, d in self.diagrams.items()}

    @property
    def speedups(self) -> dict[str, float]:
        """Each panel's speedup against the first (first makespan / this makespan); NaN where either
        schedule is infeasible (docs/semantics.md#feasible-schedules): a time the machine cannot achieve
        is faster or slower than nothing."""
        first = next(iter(self.diagrams.values()))
        base = first.makespan
        out = {}
        for label, d in self.diagrams.items():
            comparable = first.schedule.feasible and d.schedule.feasible
            out[label] = (base / d.makespan if d.makespan > 0 else float("inf")) if comparable else float("nan")
        return out

    def gaps(self) -> dict[str, dict]:
        """For each panel drawn from a given schedule (a measured timeline): ``phase_gaps`` against the
        first panel scheduled from a workload (the bound) — per phase, measured and bound busy time and
        the gap. Empty when there is no such pair or their phases differ."""
        given = {label: d for label, d in self.diagrams.items() if d._given_schedule is not None}
        bound = next((d for d in self.diagrams.values() if d._given_schedule is None), None)
        if not given or bound is None:
            return {}
        out = {}
        for label, diagram in given.items():
            if list(diagram.phase_names) == list(bound.phase_names):
                out[label] = phase_gaps(diagram.schedule, bound.schedule)
        return out

    def _show_gaps(self) -> None:
        lines = []
        for label, gaps in self.gaps().items():
            names = list(self.diagrams[label].phase_names)
            diagram = self.diagrams[label]
            unit, end = diagram.units.get("time", ""), _axis_end(diagram)
            top = np.argsort(-gaps["gap"])[:4]
            parts = [
                f"{names[i]} +{format_reading(float(gaps['gap'][i]), unit, end=end)}"
                for i in top
                if gaps["gap"][i] > 1e-9 * end  # not the rounding of two sums of one time
            ]
            if parts:
                lines.append(f"{label} over the bound, busy time per phase: " + ", ".join(parts))
        self.gap_readout.value = "; ".join(lines)

    def savefig(self, path, *, width: float = 8.0, dpi: int = 200):
        """Write the stacked panels as PNG, SVG or PDF (by suffix), on one time axis, with no browser."""
        from ..static_figure import savefig

        return savefig(path, [d.panel() for d in self.diagrams.values()], width=width, dpi=dpi)

    def _layout(self) -> Layout:
        """The toggle (Jupyter only: it asks the kernel), the panels top to bottom with their time
        windows linked while ``shared_time``, then the measured-over-bound readout."""
        diagrams = list(self.diagrams.values())
        parts = (Part(self.time_toggle, static=None), *map(Part, diagrams), Text(self.gap_readout))
        links = [Link((diagrams[0], "time_window"), (other, "time_window")) for other in diagrams[1:]]
        return Layout(Column(parts, gap=0.5), tuple(links) if self.shared_time else ())

    def _share_time(self, _change=None):
        self._relink()
        self._own_windows()

    def _own_windows(self) -> None:
        """Unshared, each panel shows its whole time axis; then every title says its makespan."""
        if not self.shared_time:
            for diagram in self.diagrams.values():
                diagram.time_window = []
        self._relabel()

    def _relabel(self, _change=None):
        longest = max(self.makespans.values())
        first = next(iter(self.diagrams))
        speedups = self.speedups
        for label, diagram in self.diagrams.items():
            diagram.time_max = longest if self.shared_time else 0.0
            diagram.title = panel_title(
                title_at(label, diagram.params, self._made_at[label]),
                diagram.makespan,
                diagram.units.get("time", ""),
                end=_axis_end(diagram),
                speedup=None if label == first or not self.compare else speedups[label],
                against=first,
                infeasibility=diagram.schedule.infeasibility(),
            )
        self._show_gaps()


def panel_title(
    label, makespan: float, unit: str, *, end: float, speedup: float | None, against: str, infeasibility: str = ""
) -> str:
    """A panel's title: its makespan in the unit of its time axis (reaching ``end``) and, for every panel
    but the first, its speedup against the first said as people say it ("25× slower than dense"). An
    infeasible schedule's title says so (``infeasibility``) and compares it with nothing."""
    title = f"{label}: {makespan_text(makespan, unit, end=end, infeasibility=infeasibility)}"
    if speedup is None or infeasibility:
        return title
    if isinstance(speedup, float) and math.isnan(speedup):  # the first is infeasible: nothing to compare with
        return f"{title}, not compared with {against} (infeasible)"
    speed = format_speedup(speedup)
    if speed == MISSING:
        return title
    return f"{title}, {speed} {'as' if speed == 'same time' else 'than'} {against}"


def _axis_end(diagram: CampaignDiagram) -> float:
    """Where the panel's time axis ends (its unit follows it, js/shared/format.js ``timeUnitFor``)."""
    return max(float(diagram.time_max or 0.0), float(diagram.makespan))


def _check_distinct(label, item, labelled: dict, diagrams: dict) -> None:
    """One panel per label as shown, and one label per CampaignDiagram: a panel's label is its title (as
    ``str``), so ``1`` and ``'1'`` would make one panel of two, and a widget shown twice is one view."""
    shown = str(label)
    if shown in labelled:
        raise CampaignWidgetError(
            f"panels {short_repr(labelled[shown])} and {short_repr(label)} are both labelled {short_repr(shown)}: "
            "one would replace the other; give each panel its own label"
        )
    labelled[shown] = label
    if isinstance(item, CampaignDiagram):
        for other, diagram in diagrams.items():
            if diagram is item:
                raise CampaignWidgetError(
                    f"panel {short_repr(label)} is the CampaignDiagram of panel {short_repr(labelled[other])}: "
                    "one widget is one panel; pass the workload or a new CampaignDiagram instead"
                )


def _as_diagram(label, item, show_controls, height) -> CampaignDiagram:
    if isinstance(item, CampaignDiagram):
        return item
    if isinstance(item, (Workload, Schedule)):  # a Schedule: e.g. a measured timeline, drawn as it ran
        return CampaignDiagram(item, show_controls=show_controls, height=height)
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Workload) and isinstance(item[1], Mapping):
        return CampaignDiagram(item[0], show_controls=show_controls, height=height, **dict(item[1]))
    raise WrongTypeError(
        f"panel {short_repr(label)}: expected a Workload, a Schedule (e.g. a measured timeline), "
        f"(Workload, settings dict) or CampaignDiagram, "
        f"got {type(item).__name__}"
    )
