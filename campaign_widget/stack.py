"""Several campaign diagrams stacked on one shared time axis, each labelled with its makespan and
its speedup against the first (the paper's Figure 12: unfused / fused / achieved / pipelined)."""

from __future__ import annotations

from collections.abc import Mapping

import ipywidgets
import traitlets as t

from .colors import phase_colors
from .schedule import Schedule
from .widget import CampaignDiagram
from .workload import Workload


class StackedDiagrams(ipywidgets.VBox):
    """Panels of one or several workloads, top to bottom, on one time axis.

    ``panels`` maps a label to a ``Workload``, a ``(Workload, schedule settings)`` pair, or a
    ``CampaignDiagram``. Zooming one panel zooms them all, in the browser.

    >>> StackedDiagrams({"tiled": (w, dict(tiles=4)),                       # doctest: +SKIP
    ...                  "pipelined": (w, dict(tiles=4, pipeline=True))})
    """

    shared_time = t.Bool(True)  # one time axis for all panels (zoom linked); False: each panel its own

    def __init__(self, panels: Mapping[str, object], *, show_controls: bool = False, height: int = 220,
                 shared_time: bool = True):
        if not panels:
            raise ValueError("StackedDiagrams needs at least one panel")
        self.diagrams: dict[str, CampaignDiagram] = {}
        known: dict[str, str] = {}
        for label, item in panels.items():
            diagram = _as_diagram(label, item, show_controls, height)
            colors = phase_colors(diagram.phase_names, known)
            known.update(zip(diagram.phase_names, colors))
            diagram.phase_colors = colors  # one colour per phase name across the panels
            self.diagrams[str(label)] = diagram
        # Panels with very different makespans may each take the full width: a toggle.
        self.time_toggle = ipywidgets.Checkbox(value=shared_time, description="one time axis for all panels",
                                               indent=False, layout=ipywidgets.Layout(width="auto"))
        super().__init__(children=[self.time_toggle, *self.diagrams.values()])
        self._links = []
        ipywidgets.link((self.time_toggle, "value"), (self, "shared_time"))
        for diagram in self.diagrams.values():
            diagram.observe(self._relabel, names="makespan")
        self.shared_time = shared_time
        self._share_time()
        self.observe(self._share_time, names="shared_time")

    @property
    def makespans(self) -> dict[str, float]:
        return {label: d.makespan for label, d in self.diagrams.items()}

    @property
    def speedups(self) -> dict[str, float]:
        """Each panel's speedup against the first (first makespan / this makespan)."""
        base = next(iter(self.makespans.values()))
        return {label: base / m if m > 0 else float("inf") for label, m in self.makespans.items()}

    def savefig(self, path, *, width: float = 8.0, dpi: int = 200):
        """Write the stacked panels as PNG, SVG or PDF (by suffix), on one time axis, with no browser."""
        from .static_figure import savefig

        return savefig(path, [d.panel() for d in self.diagrams.values()], width=width, dpi=dpi)

    def _share_time(self, _change=None):
        for link in self._links:
            link.unlink()
        self._links = []
        diagrams = list(self.diagrams.values())
        if self.shared_time:
            self._links = [ipywidgets.jslink((diagrams[0], "time_window"), (other, "time_window"))
                           for other in diagrams[1:]]
        else:
            for diagram in diagrams:
                diagram.time_window = []
        self._relabel()

    def _relabel(self, _change=None):
        longest = max(self.makespans.values())
        first = next(iter(self.diagrams))
        for label, diagram in self.diagrams.items():
            unit = diagram.units.get("time", "")
            speed = "" if label == first else f", {self.speedups[label]:.2f}× vs {first}"
            diagram.title = f"{label}: makespan {diagram.makespan:.6g} {unit}{speed}"
            diagram.time_max = longest if self.shared_time else 0.0


def _as_diagram(label, item, show_controls, height) -> CampaignDiagram:
    if isinstance(item, CampaignDiagram):
        return item
    if isinstance(item, (Workload, Schedule)):  # a Schedule: e.g. a measured timeline, drawn as it ran
        return CampaignDiagram(item, show_controls=show_controls, height=height)
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Workload) and isinstance(item[1], Mapping):
        return CampaignDiagram(item[0], show_controls=show_controls, height=height, **dict(item[1]))
    raise TypeError(f"panel {label!r}: expected a Workload, a Schedule (e.g. a measured timeline), "
                    f"(Workload, settings dict) or CampaignDiagram, "
                    f"got {type(item).__name__}")
