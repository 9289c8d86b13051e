"""A sweep as a heatmap: two axes on the grid, the others chosen by dropdowns.

``SweepView(result, x="tiles", y="peak_bandwidth", color="makespan")`` draws a bqplot
``GridHeatMap`` of one column of a :class:`~campaign_widget.sweep.SweepResult` over two of its
axes; the other axes are fixed by dropdowns (they start at the best configuration's values). The
best configuration is marked with a red diamond; hovering a cell shows its whole row; clicking a cell
opens that configuration's :class:`~campaign_widget.CampaignDiagram` below the heatmap. A result
still filling in (``start_sweep``, or ``SweepView.live``) is redrawn as its chunks arrive, with a
progress bar.

The view computes nothing: every number comes from the result's table, and the diagram is the
campaign diagram of the configuration's workload. Numbers read as in the static heatmap
(``static_figure.heatmap``: ``column_unit``, ``value_label``): axis ticks and the colour bar in the
column's unit, a boolean column as two named colours; the clicked cell is outlined.
"""

from __future__ import annotations

import html
import threading
import time

import bqplot as bq
import ipywidgets as W
import numpy as np

from ..errors import WrongTypeError
from ..figures.sweep_grid import (
    PENDING_COLOR,
    YES_COLOR,
    bar_ticks,
    best_line,
    check_grid,
    column_unit,
    grid_indices,
    metric_text,
    no_color,
    unfit_cells,
    value_label,
)
from ..formatting import format_reading, js_number_key
from ..static_figure.style import text_width_px
from ..sweep import SweepResult, start_sweep
from .composite import Column, Composite, Layout, Part

_REDRAW_SECONDS = 0.25  # live redraws at most this often while chunks arrive
# bqplot styles its text with CSS: a JupyterLab variable resolves in the page (bqplot's own dark style is
# orange); the fallback is the light theme's.
INK = "var(--jp-content-font-color1, #222222)"
OUTLINE = "var(--jp-content-font-color0, #111111)"
GRID_LINE = "var(--jp-layout-color0, white)"  # between cells: the page's background, light or dark  # the clicked cell's outline, as the static heatmap's
# A boolean column: no / yes in the static heatmap's two colours (its warning red and its green). The
# colour scale is linear, so each colour fills half of [-0.5, 1.5]: many stops make the bar two blocks.
UNFIT_OUTLINE = "outlined red, dashed"  # how this view marks what does not fit (bqplot draws no hatching)
BOOLEAN_COLORS = (no_color("light"), YES_COLOR)  # no, yes: the rule of every heatmap (sweep_grid)
_BOOLEAN_STOPS = 16
# bqplot's text sizes (its CSS: ticks 12 px, axis titles 14 px, the title 16 px) and its axis geometry
_TICK_PX, _TITLE_PX = 12, 14
_TICK_GAP = 9  # d3's tick (6 px) and padding (3 px) before a tick label
_TOOLTIP_CHARS = 56  # one tooltip line at most this long: the tooltip stays narrower than the figure


def _text_px(text: str, size: float = _TICK_PX) -> float:
    """Width of ``text`` in the browser's sans-serif, over-estimated a little (DejaVu Sans metrics)."""
    return 1.08 * text_width_px(text, size) + 2


class SweepView(Composite, W.VBox):
    """A heatmap of ``color`` over axes ``x`` (columns) and ``y`` (rows) of a product sweep.

    >>> view = SweepView(result, x="tiles", y="peak_bandwidth", color="makespan")   # doctest: +SKIP
    >>> view.select(result.best())                 # what a click does: the diagram opens below  # doctest: +SKIP
    """

    def __init__(
        self,
        result: SweepResult,
        *,
        x: str,
        y: str,
        color: str = "makespan",
        height: int = 360,
        diagram_height: int = 280,
        best: str = "makespan",
    ):
        """``best``: the objective the ◆ marks and the other axes start at (``SweepResult.best``):
        ``"makespan"`` (or ``"latency"``), ``"throughput"``, ``"speedup"`` or a column to minimise."""
        if not isinstance(result, SweepResult):
            raise WrongTypeError(
                f"SweepView takes a SweepResult (from campaign_widget.sweep), got {type(result).__name__}"
            )
        metrics = check_grid(result, x, y, color)  # the rule of every sweep heatmap (sweep_grid)
        axes = list(result.axes)
        self.result, self.x, self.y = result, x, y
        self.best = best  # the objective the ◆ marks (SweepResult.best): "makespan"/"latency", "throughput", …
        self._axes = axes
        self._metrics = metrics
        self._shape = tuple(len(v) for v in result.axes.values())
        self._lock = threading.Lock()
        self._last_draw = 0.0
        self._drawn_results = False  # whether a drawing showed any computed configuration yet
        self._pending = False
        self._user_moved = False
        self.selected_index: int | None = None
        self.diagram = None

        self.color_dropdown = W.Dropdown(
            options=metrics, value=color, description="colour", layout=W.Layout(width="260px")
        )
        self.dropdowns: dict[str, W.Dropdown] = {}
        for name in axes:
            if name in (x, y):
                continue
            options = [(self._axis_value(name, v), j) for j, v in enumerate(result.axes[name])]
            dd = W.Dropdown(
                options=options,
                value=0,
                description=name,
                layout=W.Layout(width="260px"),
                style={"description_width": "initial"},
            )
            dd.add_class(f"cw-sweep-axis-{name}")
            dd.observe(self._on_dropdown, names="value")
            self.dropdowns[name] = dd
        self.color_dropdown.add_class("cw-sweep-color")
        self.color_dropdown.observe(lambda _: self._redraw(force=True), names="value")

        self._xs = [self._axis_value(x, v) for v in result.axes[x]]
        self._ys = [self._axis_value(y, v) for v in result.axes[y]]
        self._xs_unique = _unique_labels(self._xs)
        self._ys_unique = _unique_labels(self._ys)
        col_scale = bq.OrdinalScale(domain=self._xs_unique)
        row_scale = bq.OrdinalScale(domain=self._ys_unique, reverse=True)
        color_scale = bq.ColorScale(scheme="viridis")
        self.heatmap = bq.GridHeatMap(
            row=np.array(self._ys_unique),
            column=np.array(self._xs_unique),
            color=np.full((len(self._ys), len(self._xs)), np.nan),
            scales={"row": row_scale, "column": col_scale, "color": color_scale},
            null_color=PENDING_COLOR,
            stroke=GRID_LINE,
            interactions={"hover": "tooltip"},
            # computed cells are the "selected" ones (their own colour); the rest, not computed yet, are grey
            selected_style={},
            unselected_style={"fill": PENDING_COLOR},
            selected=[],
        )
        # The clicked cell's outline: a second grid over the first, every cell transparent and deaf to the
        # mouse (hover and click reach the heatmap below), the one "selected" cell stroked.
        self.selection_outline = bq.GridHeatMap(
            row=np.array(self._ys_unique),
            column=np.array(self._xs_unique),
            color=np.zeros((len(self._ys), len(self._xs))),
            scales={"row": row_scale, "column": col_scale, "color": color_scale},
            selected=[[0, 0]],
            selected_style={"fill-opacity": "0", "stroke": OUTLINE, "stroke-width": "3", "pointer-events": "none"},
            unselected_style={"fill-opacity": "0", "stroke-opacity": "0", "pointer-events": "none"},
            interactions={},
            visible=False,
        )
        # The configurations whose transformer does not fit the memory (sweep_grid.unfit_cells): a third grid,
        # transparent and deaf to the mouse, those cells outlined dashed in the warning colour
        self.unfit_outline = bq.GridHeatMap(
            row=np.array(self._ys_unique),
            column=np.array(self._xs_unique),
            color=np.zeros((len(self._ys), len(self._xs))),
            scales={"row": row_scale, "column": col_scale, "color": color_scale},
            selected=[],
            selected_style={
                "fill-opacity": "0",
                "stroke": no_color("light"),
                "stroke-width": "2.5",
                "stroke-dasharray": "5 3",
                "pointer-events": "none",
            },
            unselected_style={"fill-opacity": "0", "stroke-opacity": "0", "pointer-events": "none"},
            interactions={},
            visible=False,
        )
        self.unfit_label = W.Label()
        self.unfit_label.add_class("cw-sweep-unfit")
        self.best_marker = bq.Scatter(
            x=[],
            y=[],
            scales={"x": col_scale, "y": row_scale},
            marker="diamond",
            colors=["#d62728"],
            stroke="white",
            default_size=260,
            tooltip=None,
            enable_hover=False,
        )
        self.hover_readout = W.Label(value="hover a cell to see its row; click it to open its campaign diagram")
        self.hover_readout.add_class("cw-sweep-hover")
        # the tooltip: the row in short lines at a tight line height, so that it stays narrower than the
        # figure and covers few cells (the text escaped: names are plain text, never markup)
        self.hover_tooltip = W.HTML()
        self.hover_tooltip.add_class("cw-sweep-tooltip")
        self.heatmap.tooltip = self.hover_tooltip
        self.heatmap.on_hover(self._on_hover)
        self.heatmap.on_element_click(self._on_click)
        # the marker sits on the best cell: hovering or clicking it is hovering or clicking that cell
        self.best_marker.on_hover(lambda _m, _c: self._show_row(self._best_index()))
        self.best_marker.on_element_click(
            lambda _m, _c: self._best_index() is not None and self.select(self._best_index())
        )
        text = {"label_color": INK, "tick_style": {"fill": INK}, "grid_lines": "none"}
        x_axis = bq.Axis(scale=col_scale, label=x, **text)
        y_axis = bq.Axis(scale=row_scale, side="left", label=y, **text)
        # the colour bar's name is in the figure's title (bqplot draws a colour bar's own title in its
        # dark-theme orange, over the bar's top tick)
        self.color_axis = bq.ColorAxis(
            scale=color_scale, side="right", label="", tick_values=[], tick_style={"fill": INK}
        )
        self.figure = bq.Figure(
            marks=[self.heatmap, self.unfit_outline, self.selection_outline, self.best_marker],
            axes=[x_axis, y_axis, self.color_axis],
            fig_margin=self._margins(0.0),
            layout=W.Layout(height=f"{height}px", width="100%"),
            title="",
            title_style={"fill": INK},
        )
        self._place_axis_titles()
        self.progress = W.IntProgress(
            value=0,
            min=0,
            max=max(1, len(result)),
            description="configurations",
            style={"description_width": "initial"},
            layout=W.Layout(width="420px"),
        )
        self.progress.add_class("cw-sweep-progress")
        self.status = W.Label()
        self.status.add_class("cw-sweep-status")
        self.best_label = W.Label()
        self.best_label.add_class("cw-sweep-best")
        self.selection_label = W.Label()
        self.selection_label.add_class("cw-sweep-selection")
        self.diagram_box = W.VBox()
        self.diagram_box.add_class("cw-sweep-diagram")
        self._diagram_height = diagram_height
        self._selects = W.HBox([self.color_dropdown, *self.dropdowns.values()], layout=W.Layout(flex_flow="row wrap"))
        self._progress_row = W.HBox([self.progress, self.status])
        super().__init__()
        self.add_class("cw-sweep")
        result.on_update(self._on_update)  # first, so that no chunk (or the end) arrives unseen
        if result.completed:
            self._go_to_best()
        self._redraw(force=True)

    @classmethod
    def live(
        cls,
        workload,
        *,
        x: str,
        y: str,
        color: str = "makespan",
        executor=None,
        zip: bool = False,
        baseline=None,
        allow_large: bool = False,
        **axes,
    ) -> SweepView:
        """Start a sweep in the background and return its view, which fills in as chunks arrive."""
        result = start_sweep(workload, executor=executor, zip=zip, baseline=baseline, allow_large=allow_large, **axes)
        return cls(result, x=x, y=y, color=color)

    def _layout(self) -> Layout:
        """The selects, progress, heatmap, readouts and the clicked configuration's diagram; without
        ipywidgets the canvas heatmap (``SweepHeatmap``, the same grid, its own selects) over the
        diagram of the configuration it shows (``sweep_twin``), and no more."""
        from .sweep_twin import sweep_twins

        return Layout(
            Column(
                (
                    Part(self._selects, static=lambda: sweep_twins(self)[0]),
                    *(
                        Part(widget, static=None)
                        for widget in (
                            self._progress_row,
                            self.figure,
                            self.best_label,
                            self.unfit_label,
                            self.hover_readout,
                            self.selection_label,
                        )
                    ),
                    Part(self.diagram_box, static=lambda: sweep_twins(self)[1]),
                )
            )
        )

    # -- the grid ----------------------------------------------------------------------------------

    def indices(self) -> np.ndarray:
        """Configuration index of each cell, shape (rows = y values, columns = x values)."""
        positions = {name: dd.value for name, dd in self.dropdowns.items()}
        return grid_indices(self.result, self.x, self.y, positions)  # the cells every sweep heatmap draws

    def _on_dropdown(self, change):
        self._user_moved = True
        self._redraw(force=True)

    def _on_update(self, result):
        now = time.monotonic()
        first = not self._drawn_results and result.completed > 0  # the first results show at once
        if result.done or first or now - self._last_draw >= _REDRAW_SECONDS:
            if result.done and not self._user_moved:
                self._go_to_best()
            self._redraw(force=True)

    def _go_to_best(self):
        if not self.result.completed:
            return
        cfg_digits = np.unravel_index(self.result.best(self.best), self._shape)
        for a, name in enumerate(self._axes):
            if name in self.dropdowns:
                dd = self.dropdowns[name]
                if dd.value != int(cfg_digits[a]):
                    dd.unobserve(self._on_dropdown, names="value")
                    dd.value = int(cfg_digits[a])
                    dd.observe(self._on_dropdown, names="value")

    def _redraw(self, force=False):
        with self._lock:
            self._last_draw = time.monotonic()
            r = self.result
            done, finished = r.completed, r.done  # read before the cells: never "done" over older ones
            self._drawn_results = self._drawn_results or done > 0
            idx = self.indices()
            color = self.color_dropdown.value
            raw = np.asarray(r[color])[idx]
            boolean = raw.dtype == bool
            have = r._have[idx]
            values = np.where(have, raw.astype(float), np.nan)
            finite = values[np.isfinite(values)]
            low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            if boolean:  # no / yes: each a colour block of its own, whatever the slice holds
                low, high = -0.5, 1.5
                colors = [BOOLEAN_COLORS[0]] * _BOOLEAN_STOPS + [BOOLEAN_COLORS[1]] * _BOOLEAN_STOPS
                ticks = [(0.0, value_label(False)), (1.0, value_label(True))]
            else:
                colors = []
                ticks = bar_ticks(low, high, column_unit(r, color), self._time_end())
            if high <= low:  # one value (or none yet): a non-empty colour domain all the same
                high = low + max(abs(low), 1.0) * 1e-9
            scale = self.heatmap.scales["color"]
            # the bar's ticks first: bqplot redraws them when the colour domain changes, and relabels
            # them only when tick_format changes (alternated between None and "" to say so)
            with self.color_axis.hold_sync():
                self.color_axis.tick_values = np.array([v for v, _ in ticks], dtype=float)
                self.color_axis.tick_labels = {js_number_key(v): label for v, label in ticks}
                self.color_axis.tick_format = "" if self.color_axis.tick_format is None else None
            margins = self._margins(max((_text_px(label) for _, label in ticks), default=0.0))
            if margins != self.figure.fig_margin:
                self.figure.fig_margin = margins
            with self.heatmap.hold_sync(), scale.hold_sync():
                if list(scale.colors) != colors:
                    scale.colors = colors
                scale.min, scale.max = low, high
                self.heatmap.color = values
                self.heatmap.selected = np.argwhere(have).tolist()
                self.figure.title = f"{color} over {self.x} × {self.y}"
            self._draw_outline(idx)
            self._draw_unfit(idx)
            self.progress.value = done
            state = "done" if finished else "running"
            elapsed = f", {format_reading(r.elapsed, 's')}" if finished else ""
            self.status.value = f"{done} / {len(r)} configurations ({state}{elapsed})"
            if done:
                best = r.best(self.best)
                self.best_label.value = best_line(r, self._time_end(), self.best)
                by, bx = np.argwhere(idx == best)[0] if (idx == best).any() else (None, None)
                if by is None:
                    self.best_marker.x, self.best_marker.y = [], []
                else:
                    with self.best_marker.hold_sync():
                        self.best_marker.x = [self._xs_unique[bx]]
                        self.best_marker.y = [self._ys_unique[by]]

    # -- interaction ---------------------------------------------------------------------------------

    def _cell_index(self, content) -> int | None:
        data = content.get("data") or {}
        row, col = data.get("rowNum", data.get("row_num")), data.get("columnNum", data.get("column_num"))
        if row is None or col is None:
            return None
        return int(self.indices()[int(row), int(col)])

    def _best_index(self) -> int | None:
        return self.result.best(self.best) if self.result.completed else None

    def _on_hover(self, _mark, content):
        self._show_row(self._cell_index(content))

    def _show_row(self, i: int | None):
        if i is None:
            return
        self.hover_readout.value = self.describe(i)
        lines = "<br>".join(html.escape(line) for line in self.describe_lines(i))
        self.hover_tooltip.value = (
            f'<div style="line-height: 1.35; padding: 2px 4px; white-space: nowrap">{lines}</div>'
        )

    def _on_click(self, _mark, content):
        i = self._cell_index(content)
        if i is not None:
            self.select(i)

    def describe(self, i: int) -> str:
        """Configuration ``i``'s whole row as one line of text."""
        r = self.result
        if not r._have[i]:
            return f"configuration #{i}: " + self._describe(r.configuration(i)) + " — not computed yet"
        row = r.row(i)
        rest = ", ".join(self._metric(row, k) for k in self._metrics)
        return f"configuration #{i}: " + self._describe(row) + " — " + rest

    def describe_lines(self, i: int) -> list[str]:
        """Configuration ``i``'s row as short lines (what the hover tooltip shows): its number, its axes'
        values, then its columns two by two, each line at most about ``_TOOLTIP_CHARS`` characters."""
        r = self.result
        row = r.row(i) if r._have[i] else r.configuration(i)
        lines = [f"configuration #{i}"]
        lines += _pack([f"{k}={self._axis_value(k, row[k])}" for k in self._axes])
        if not r._have[i]:
            return [*lines, "not computed yet"]
        return lines + _pack([self._metric(row, k) for k in self._metrics], most=2)

    # -- how numbers read ------------------------------------------------------------------------------

    def _axis_value(self, name: str, value) -> str:
        """An axis value as its tick and dropdown show it ("100 GB/s"); True and False as written."""
        if isinstance(value, (bool, np.bool_)):
            return str(bool(value))
        return value_label(value, column_unit(self.result, name))

    def _time_end(self) -> float | None:
        """The longest makespan computed: every time in the view reads in the unit of this one."""
        makespans = np.asarray(self.result["makespan"], dtype=float)[self.result._have]
        return float(np.nanmax(makespans)) if np.isfinite(makespans).any() else None

    def _metric(self, row: dict, name: str) -> str:
        """A result column as every sweep view says it (``figures.sweep_grid.metric_text``)."""
        unit, feasible = column_unit(self.result, name), bool(row.get("feasible", True))
        return metric_text(name, row[name], unit, end=self._time_end(), feasible=feasible)

    def _describe(self, row: dict) -> str:
        return ", ".join(f"{k}={self._axis_value(k, row[k])}" for k in self._axes)

    # -- layout ------------------------------------------------------------------------------------

    def _margins(self, bar_label_px: float) -> dict:
        """The figure's margins: the y tick labels and the y title beside them (never over them) on the
        left, the x title below its tick labels, the colour bar and its labels on the right."""
        y_ticks = max((_text_px(s) for s in self._ys_unique), default=0.0)
        left = _TICK_GAP + y_ticks + 6 + _TITLE_PX + 8
        # bqplot puts the colour bar (20 px) just left of the right margin's middle, its labels right of
        # the middle: the margin is twice what they need
        right = max(60.0, 2 * (_TICK_GAP + bar_label_px + 8))
        return {
            "top": 40,
            "bottom": _TICK_GAP + _TICK_PX + 8 + _TITLE_PX + 8,
            "left": round(left),
            "right": round(right),
        }

    def _place_axis_titles(self) -> None:
        """Each axis title a gap beyond its tick labels. bqplot measures ``label_offset`` from the axis
        line to the title's baseline; a left title is rotated, its glyphs reaching a title size past it."""
        x_axis, y_axis = self.figure.axes[0], self.figure.axes[1]
        y_ticks = max((_text_px(s) for s in self._ys_unique), default=0.0)
        y_axis.label_offset = f"{round(_TICK_GAP + y_ticks + 6 + 0.25 * _TITLE_PX)}px"
        x_axis.label_offset = f"{round(_TICK_GAP + _TICK_PX + 6 + 0.8 * _TITLE_PX)}px"

    def _draw_outline(self, idx: np.ndarray) -> None:
        """The clicked configuration's cell outlined, when it is in the slice shown."""
        where = np.argwhere(idx == self.selected_index) if self.selected_index is not None else np.empty((0, 2))
        if where.size:
            with self.selection_outline.hold_sync():
                self.selection_outline.selected = [[int(where[0][0]), int(where[0][1])]]
                self.selection_outline.visible = True
        else:
            self.selection_outline.visible = False

    def _draw_unfit(self, idx: np.ndarray) -> None:
        """The cells whose configuration does not fit the memory outlined, and the legend's line."""
        unfit, label = unfit_cells(self.result, idx)
        cells = np.argwhere(unfit).tolist() if unfit is not None else []
        with self.unfit_outline.hold_sync():
            self.unfit_outline.selected = cells
            self.unfit_outline.visible = bool(cells)
        self.unfit_label.value = f"{UNFIT_OUTLINE}: {label}" if cells else ""

    def select(self, i: int) -> None:
        """Open configuration ``i``'s campaign diagram below the heatmap (what clicking its cell does)."""
        r = self.result
        i = int(i)
        if not r._have[i]:
            self.selection_label.value = f"configuration #{i} is not computed yet"
            return
        from .diagram import CampaignDiagram

        row = r.row(i)
        self.selected_index = i
        self._draw_outline(self.indices())
        title = f"configuration #{i}: " + self._describe(row)
        self.diagram = CampaignDiagram(r.workload_for(i), height=self._diagram_height, title=title)
        self.selection_label.value = f"{title} — " + self._metric(row, "makespan")
        self.diagram_box.children = [self.diagram]


def _pack(parts: list[str], most: int = 4) -> list[str]:
    """``parts`` joined by ", " into lines of at most ``most`` parts and about ``_TOOLTIP_CHARS`` characters."""
    lines: list[list[str]] = []
    for part in parts:
        if lines and len(lines[-1]) < most and len(", ".join([*lines[-1], part])) <= _TOOLTIP_CHARS:
            lines[-1].append(part)
        else:
            lines.append([part])
    return [", ".join(line) for line in lines]


def _unique_labels(labels: list[str]) -> list[str]:
    """Tick labels must be unique on an ordinal axis: repeat values get a #n suffix."""
    seen: dict[str, int] = {}
    out = []
    for s in labels:
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.append(s if n == 0 else f"{s} #{n + 1}")
    return out
