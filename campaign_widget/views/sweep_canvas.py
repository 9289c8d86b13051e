"""A product sweep's heatmap as an anywidget (``SweepHeatmap``): what ``SweepView`` shows with bqplot,
drawn on a canvas, for front ends that render anywidgets but not ipywidgets (marimo).

One owner for what is drawn: ``sweep_grid.sweep_grid`` (the static heatmap's too) gives the cells,
their colours in the light and the dark look, the tick labels with units, the colour bar and the best
cell; they are synced in ``grid`` (arrays as binary buffers) and js/sweep/ only maps them to pixels.
The view's own selects write ``color`` and ``positions`` (the other axes), its hover writes
``hovered`` (the kernel words that configuration's row, ``hovered_rows``), and a click on a computed
cell writes ``selected``.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import traitlets as t

from ..errors import CampaignWidgetError, WrongTypeError, short_repr
from ..figures.sweep_grid import (
    BEST_COLOR,
    PENDING_COLOR,
    THEMES,
    UNFIT_KEY,
    YES_COLOR,
    check_grid,
    column_unit,
    no_color,
    other_positions,
    row_lines,
    sweep_grid,
    time_end,
    value_label,
)
from ..sweep import SweepResult
from .base import ViewWidget
from .buffers import ArrayDict, cast

#: What the view may write: its selects, its hover, its click, its theme.
VIEW_WRITABLE = frozenset({"color", "positions", "hovered", "selected", "theme"})
#: A result still filling in is redrawn at most this often (and at its end).
REDRAW_SECONDS = 0.25


class SweepHeatmap(ViewWidget, bundle="sweep.js"):
    """The heatmap of column ``color`` over axes ``x`` (columns) and ``y`` (rows) of a product sweep,
    drawn on a canvas; the other axes at ``positions`` (chosen in the view), hover shows a cell's row
    and a click selects its configuration (``selected``).

    >>> plot = SweepHeatmap(result, x="tiles", y="peak_bandwidth")   # doctest: +SKIP
    >>> plot.grid["y_labels"]                                        # doctest: +SKIP
    ['100 GB/s', '400 GB/s', '1.6 TB/s']
    """

    view_writable = VIEW_WRITABLE

    #: What is drawn (``sweep_grid.SweepGrid``): arrays (rows × columns) ``rgb``, ``rgb_dark``
    #: (uint8 × 3), ``indices`` (int32 configuration of each cell), ``have`` (uint8, computed),
    #: ``bar_rgb`` (uint8, steps × 3, low to high); JSON ``x_labels``, ``y_labels``, ``boolean``,
    #: ``ticks`` ([[s ∈ 0…1 up the bar, label]]), ``swatches`` ({theme: [[label, colour]]}),
    #: ``best_cell`` ([row, column] or None), ``best_line``, ``pending_color``, ``best_color``; ``unfit``
    #: (uint8, 1: the configuration's transformer does not fit the memory, hatched) and ``unfit_label``.
    grid = ArrayDict()
    x_title = t.Unicode().tag(sync=True)
    y_title = t.Unicode().tag(sync=True)
    #: The column coloured, one of ``color_options``.
    color = t.Unicode("makespan").tag(sync=True)
    color_options = t.List(t.Unicode()).tag(sync=True)
    #: The other axes' value labels, in the axes' order: ``[[name, [label, …]], …]``.
    axis_options = t.List().tag(sync=True)
    #: The other axes' positions (name → index into its values).
    positions = t.Dict().tag(sync=True)
    #: The configuration under the view's pointer, or None; ``hovered_rows`` is its row in words.
    hovered = t.Int(None, allow_none=True).tag(sync=True)
    hovered_rows = t.List().tag(sync=True)
    #: The clicked configuration (a computed one), or None; outlined when it is on the grid.
    selected = t.Int(None, allow_none=True).tag(sync=True)
    #: Progress while the result fills in, e.g. "12 / 24 configurations (running)".
    status = t.Unicode().tag(sync=True)
    height = t.Int(360, min=160).tag(sync=True)
    title = t.Unicode().tag(sync=True)

    def __init__(
        self,
        result: SweepResult,
        *,
        x: str,
        y: str,
        color: str = "makespan",
        fixed: dict | None = None,
        positions: dict | None = None,
        height: int = 360,
        theme: str = "auto",
        best: str = "makespan",
        **kwargs,
    ):
        self.check_arguments(kwargs)
        self.best = best  # the objective the ◆ marks (SweepResult.best)
        if not isinstance(result, SweepResult):
            raise WrongTypeError(
                f"SweepHeatmap takes a SweepResult (from campaign_widget.sweep), got {type(result).__name__}"
            )
        metrics = check_grid(result, x, y, color)
        progress = result.completed, result.done  # read before the grid, as refresh does
        first = sweep_grid(result, x=x, y=y, color=color, fixed=fixed, positions=positions, best=best)
        super().__init__()
        self.result, self.x, self.y = result, x, y
        self.last_grid = first
        self._last_draw = 0.0
        self._lock = threading.Lock()  # a live result's chunks arrive on the sweep's thread
        others = [n for n in result.axes if n not in (x, y)]
        with self.hold_trait_notifications():
            self.height, self.theme = height, theme
            self.x_title, self.y_title = x, y
            self.color_options = metrics
            self.color = color
            self.axis_options = [[n, [value_label(v, column_unit(result, n)) for v in result.axes[n]]] for n in others]
            self.positions = dict(first.positions)
        self._publish(first, progress)
        self.observe(self.refresh, names=["color", "positions"])
        self.observe(self._word_hovered, names=["hovered"])
        if not progress[1]:
            result.on_update(self._on_update)
            if result.done:  # it finished before the listener was in place: draw the whole result
                self.refresh()

    def __repr__(self) -> str:
        return f"<SweepHeatmap of {self.color} over {self.x} × {self.y}>"

    # -- checks: what the view writes, what Python sets ------------------------------------------------

    @t.validate("color")
    def _valid_color(self, proposal):
        value = proposal["value"]
        if self.color_options and value not in self.color_options:
            raise t.TraitError(
                f"color={short_repr(value)} is not a result column; columns: {', '.join(self.color_options)}"
            )
        return value

    @t.validate("positions")
    def _valid_positions(self, proposal):
        value = dict(proposal["value"])
        if getattr(self, "result", None) is None:
            return value
        try:
            chosen = other_positions(self.result, self.x, self.y, positions=value)
        except CampaignWidgetError as error:
            raise t.TraitError(str(error)) from None
        return chosen

    @t.validate("selected", "hovered")
    def _valid_configuration(self, proposal):
        value = proposal["value"]
        if value is None or getattr(self, "result", None) is None:
            return value
        n = len(self.result)
        if not 0 <= value < n:
            raise t.TraitError(f"{proposal['trait'].name}={value!r} is not a configuration (0 … {n - 1})")
        if proposal["trait"].name == "selected" and not self.result._have[value]:
            raise t.TraitError(f"configuration #{value} is not computed yet")
        return value

    # -- drawing -----------------------------------------------------------------------------------------

    def _on_update(self, result):
        if self.comm is None:  # closed: the result keeps its listeners, this view draws no more
            return
        if result.done or time.monotonic() - self._last_draw >= REDRAW_SECONDS:
            self.refresh()

    def refresh(self, _change=None):
        """Recompute the grid from the result at the current colour and positions."""
        with self._lock:
            progress = self.result.completed, self.result.done  # read before the grid: never "done" over an older one
            self._publish(
                sweep_grid(self.result, x=self.x, y=self.y, color=self.color, positions=self.positions, best=self.best),
                progress,
            )

    def _publish(self, g, progress: tuple[int, bool] | None = None):
        self._last_draw = time.monotonic()
        self.last_grid = g
        span = g.hi - g.lo
        ticks = [[float(v), label] for v, label in g.ticks]
        if not g.boolean:
            ticks = [[0.5 if not span > 0 else (v - g.lo) / span, label] for v, label in ticks]
        r = self.result
        with self.hold_sync():
            self.grid = {
                "rgb": g.rgb("light"),
                "rgb_dark": g.rgb("dark"),
                "indices": cast(g.indices, "int32"),
                "have": cast(g.have, "uint8"),
                "bar_rgb": np.ascontiguousarray(g.bar_rgb()),
                "x_labels": g.x_labels,
                "y_labels": g.y_labels,
                "boolean": g.boolean,
                "ticks": ticks,
                "swatches": {theme: [["no", no_color(theme)], ["yes", YES_COLOR]] for theme in THEMES},
                "best_cell": list(g.best_cell) if g.best_cell is not None else None,
                "best_line": g.best_line,
                "pending_color": PENDING_COLOR,
                "best_color": BEST_COLOR,
                # the configurations whose transformer does not fit the memory: hatched, with the legend's words
                "unfit": cast(g.unfit if g.unfit is not None else np.zeros(g.indices.shape, bool), "uint8"),
                "unfit_label": f"{UNFIT_KEY}: {g.unfit_label}" if g.unfit is not None and g.unfit.any() else "",
            }
            completed, done = progress if progress is not None else (r.completed, r.done)
            self.status = f"{completed} / {len(r)} configurations ({'done' if done else 'running'})"
            self._word_hovered()

    def _word_hovered(self, _change=None):
        i = self.hovered
        self.hovered_rows = [] if i is None else self.configuration_rows(i)

    def configuration_rows(self, i: int) -> list[list[str]]:
        """Configuration ``i``'s tooltip: ``[["configuration #i", ""], [column, value], …]``."""
        return [[f"configuration #{i}", ""]] + [list(pair) for pair in row_lines(self.result, i, time_end(self.result))]

    def _page_state(self, state):
        """A page has no kernel to word the hovered cell: it carries the row of every configuration on
        the grid drawn (``rows_by_configuration``, index → the lines ``hovered_rows`` gets), and the view
        reads them there. Its selects are hidden, so the grid it shows is this one."""
        indices = sorted({int(i) for i in np.asarray(self.last_grid.indices).ravel()})
        return {**state, "rows_by_configuration": {str(i): self.configuration_rows(i) for i in indices}}

    def cell_of(self, index: int) -> tuple[int, int] | None:
        """(row, column) of configuration ``index`` on the grid drawn now, or None."""
        return self.last_grid.cell(index)
