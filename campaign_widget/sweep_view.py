"""A sweep as a heatmap: two axes on the grid, the others chosen by dropdowns.

``SweepView(result, x="tiles", y="peak_bandwidth", color="makespan")`` draws a bqplot
``GridHeatMap`` of one column of a :class:`~campaign_widget.sweep.SweepResult` over two of its
axes; the other axes are fixed by dropdowns (they start at the best configuration's values). The
best configuration is marked with a red diamond; hovering a cell shows its whole row; clicking a cell
opens that configuration's :class:`~campaign_widget.CampaignDiagram` below the heatmap. A result
still filling in (``start_sweep``, or ``SweepView.live``) is redrawn as its chunks arrive, with a
progress bar.

The view computes nothing: every number comes from the result's table, and the diagram is the
campaign diagram of the configuration's workload.
"""

from __future__ import annotations

import threading
import time

import bqplot as bq
import ipywidgets as W
import numpy as np

from .errors import short_repr
from .sweep import SweepResult, start_sweep
from .sweep_grid import grid_indices

_REDRAW_SECONDS = 0.25
PENDING_COLOR = (
    "#dddddd"  # cells whose configuration is not computed yet  # live redraws at most this often while chunks arrive
)


def _label(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


class SweepView(W.VBox):
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
    ):
        if not isinstance(result, SweepResult):
            raise TypeError(f"SweepView takes a SweepResult (from campaign_widget.sweep), got {type(result).__name__}")
        if result.zipped:
            raise ValueError(
                "SweepView draws a product sweep; this one was run with zip=True (its axes are paired, not a grid)"
            )
        axes = list(result.axes)
        for label, name in (("x", x), ("y", y)):
            if name not in result.axes:
                raise ValueError(f"{label}={short_repr(name)} is not an axis of this sweep; axes: {', '.join(axes)}")
        if x == y:
            raise ValueError(f"x and y are both {x!r}: choose two different axes")
        metrics = [c for c in result.columns if c not in result.axes]
        if color not in metrics:
            raise ValueError(f"color={color!r} is not a result column; columns: {', '.join(metrics)}")
        self.result, self.x, self.y = result, x, y
        self._axes = axes
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
            options = [(_label(v), j) for j, v in enumerate(result.axes[name])]
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

        self._xs = [_label(v) for v in result.axes[x]]
        self._ys = [_label(v) for v in result.axes[y]]
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
            stroke="white",
            interactions={"hover": "tooltip"},
            # computed cells are the "selected" ones (their own colour); the rest, not computed yet, are grey
            selected_style={},
            unselected_style={"fill": PENDING_COLOR},
            selected=[],
        )
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
        self.hover_tooltip = W.Label()
        self.heatmap.tooltip = self.hover_tooltip
        self.heatmap.on_hover(self._on_hover)
        self.heatmap.on_element_click(self._on_click)
        # the marker sits on the best cell: hovering or clicking it is hovering or clicking that cell
        self.best_marker.on_hover(lambda _m, _c: self._show_row(self._best_index()))
        self.best_marker.on_element_click(
            lambda _m, _c: self._best_index() is not None and self.select(self._best_index())
        )
        self.figure = bq.Figure(
            marks=[self.heatmap, self.best_marker],
            axes=[
                bq.Axis(scale=col_scale, label=x),
                bq.Axis(scale=row_scale, side="left", label=y),
                bq.ColorAxis(scale=color_scale, side="right", label=color, num_ticks=5, tick_format=".4g"),
            ],
            fig_margin={"top": 30, "bottom": 50, "left": 80, "right": 90},
            layout=W.Layout(height=f"{height}px", width="100%"),
            title="",
        )
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
        super().__init__(
            children=[
                W.HBox([self.color_dropdown, *self.dropdowns.values()], layout=W.Layout(flex_flow="row wrap")),
                W.HBox([self.progress, self.status]),
                self.figure,
                self.best_label,
                self.hover_readout,
                self.selection_label,
                self.diagram_box,
            ]
        )
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

    def _display_(self):
        """marimo's display (it renders anywidgets, not ipywidgets): the canvas heatmap
        (``SweepHeatmap``, the same grid) over the clicked configuration's diagram, linked in the kernel."""
        from .marimo_display import sweep_display

        return sweep_display(self)

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
        cfg_digits = np.unravel_index(self.result.best(), self._shape)
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
            self._drawn_results = self._drawn_results or r.completed > 0
            idx = self.indices()
            values = np.asarray(r[self.color_dropdown.value], dtype=float)[idx]
            have = r._have[idx]
            values = np.where(have, values, np.nan)
            finite = values[np.isfinite(values)]
            low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
            if high <= low:  # one value (or none yet): a non-empty colour domain all the same
                high = low + max(abs(low), 1.0) * 1e-9
            with self.heatmap.hold_sync(), self.heatmap.scales["color"].hold_sync():
                self.heatmap.scales["color"].min, self.heatmap.scales["color"].max = low, high
                self.heatmap.color = values
                self.heatmap.selected = np.argwhere(have).tolist()
                self.figure.axes[2].label = self.color_dropdown.value
            done = r.completed
            self.progress.value = done
            state = "done" if r.done else "running"
            elapsed = f", {r.elapsed:.1f} s" if r.done else ""
            self.status.value = f"{done} / {len(r)} configurations ({state}{elapsed})"
            if done:
                best = r.best()
                row = r.row(best)
                self.best_label.value = "◆ best: " + _describe(row, list(r.axes)) + f" — makespan {row['makespan']:.6g}"
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
        return self.result.best() if self.result.completed else None

    def _on_hover(self, _mark, content):
        self._show_row(self._cell_index(content))

    def _show_row(self, i: int | None):
        if i is None:
            return
        text = self.describe(i)
        self.hover_readout.value = text
        self.hover_tooltip.value = text

    def _on_click(self, _mark, content):
        i = self._cell_index(content)
        if i is not None:
            self.select(i)

    def describe(self, i: int) -> str:
        """Configuration ``i``'s whole row as one line of text."""
        r = self.result
        if not r._have[i]:
            return f"configuration #{i}: " + _describe(r.configuration(i), list(r.axes)) + " — not computed yet"
        row = r.row(i)
        axes = list(r.axes)
        rest = ", ".join(f"{k} {_label(v)}" for k, v in row.items() if k not in axes)
        return f"configuration #{i}: " + _describe(row, axes) + " — " + rest

    def select(self, i: int) -> None:
        """Open configuration ``i``'s campaign diagram below the heatmap (what clicking its cell does)."""
        r = self.result
        i = int(i)
        if not r._have[i]:
            self.selection_label.value = f"configuration #{i} is not computed yet"
            return
        from .widget import CampaignDiagram

        row = r.row(i)
        self.selected_index = i
        title = f"configuration #{i}: " + _describe(row, list(r.axes))
        self.diagram = CampaignDiagram(r.workload_for(i), height=self._diagram_height, title=title)
        self.selection_label.value = f"{title} — makespan {row['makespan']:.6g}"
        self.diagram_box.children = [self.diagram]


def _describe(row: dict, axes: list[str]) -> str:
    return ", ".join(f"{k}={_label(row[k])}" for k in axes)


def _unique_labels(labels: list[str]) -> list[str]:
    """Tick labels must be unique on an ordinal axis: repeat values get a #n suffix."""
    seen: dict[str, int] = {}
    out = []
    for s in labels:
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.append(s if n == 0 else f"{s} #{n + 1}")
    return out
