"""What a heatmap of a product sweep shows, as numbers and words: one owner for the static heatmap
(``static_figure.heatmap``), the canvas ``SweepHeatmap`` and the bqplot ``SweepView``'s grid.

Two axes on the grid (``x`` columns, ``y`` rows, row 0 the first ``y`` value, drawn at the bottom),
the other axes at fixed positions, one result column as colour. Every label carries its unit
("100 GB/s", "11.2 ms"); a boolean column is two named colours (yes green, no the theme's warning
red), any other column viridis over its [min, max] (``colour_scale``'s table); a configuration not
computed yet is grey. Pure numpy and formatting: no widget, no figure.

>>> grid = sweep_grid(result, x="tiles", y="peak_bandwidth")   # doctest: +SKIP
>>> grid.y_labels                                              # doctest: +SKIP
['100 GB/s', '400 GB/s', '1.6 TB/s']
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from ..errors import CampaignWidgetError, short_repr
from ..formatting import (
    format_number,
    format_percent,
    format_reading,
    format_si,
    format_speedup,
    scale_tick_labels,
    shorten_middle,
)
from ..sweep import OBJECTIVE_WORDS, OBJECTIVES
from . import colour_scale

PENDING_COLOR = "#dddddd"  # cells whose configuration is not computed yet (as SweepView)
YES_COLOR = "#2ca02c"  # a boolean column's True; its False is the theme's warning colour
BEST_COLOR = "#d62728"  # the best configuration's diamond
PALETTE = "viridis"
THEMES = ("light", "dark")
_PERCENT_COLUMNS = ("compute_bound_share", "memory_bound_share")
_THEME_DATA = json.loads(resources.files("campaign_widget").joinpath("theme.json").read_text(encoding="utf-8"))


def no_color(theme: str = "light") -> str:
    """A boolean column's False: theme.json's ``warning`` of ``theme``."""
    if theme not in THEMES:
        raise CampaignWidgetError(f"theme={short_repr(theme)} must be one of {', '.join(THEMES)}")
    merged = {**_THEME_DATA["theme"], **(_THEME_DATA["dark"] if theme == "dark" else {})}
    return merged["warning"]


def column_unit(result, name: str) -> str:
    """The unit a column's values are read in: time for ``makespan``, the machine's rates for peaks,
    "%" for demands and shares (fractions), "×" for ``speedup``, "" for counts and names."""
    machine = result.workload.machine
    if name == "makespan":
        return machine.time_unit
    if name == "peak_compute":
        return machine.compute_unit
    if name == "peak_bandwidth":
        return machine.bandwidth_unit
    if name == "speedup":
        return "×"
    if name.startswith("peak_demand_") or name in _PERCENT_COLUMNS:
        return "%"
    return ""


def value_label(value, unit: str = "", *, end: float | None = None) -> str:
    """One value as a person reads it, in ``unit`` (see ``column_unit``)."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)) and not unit:
        return str(int(value))
    value = float(value)
    if unit == "%":
        return format_percent(value)
    if unit == "×":
        return f"{format_number(value, 3)}×"
    if unit == "s":
        return format_reading(value, unit, end=end)
    return format_si(value, unit, 3) if unit else format_number(value, 4)


def check_grid(result, x: str, y: str, color: str) -> list[str]:
    """The result's colourable columns, once ``x``, ``y`` and ``color`` are known to make a heatmap of
    ``result`` (a product sweep); else a ``CampaignWidgetError`` naming the argument and the valid ones."""
    if getattr(result, "zipped", False):
        raise CampaignWidgetError("a heatmap draws a product sweep; this one was run with zip=True")
    for label, name in (("x", x), ("y", y)):
        if name not in result.axes:
            raise CampaignWidgetError(
                f"{label}={short_repr(name)} is not an axis of this sweep; axes: {', '.join(result.axes)}"
            )
    if x == y:
        raise CampaignWidgetError(f"x and y are both {x!r}: choose two different axes")
    metrics = [c for c in result.columns if c not in result.axes]
    if color not in metrics:
        raise CampaignWidgetError(f"color={short_repr(color)} is not a result column; columns: {', '.join(metrics)}")
    return metrics


def other_positions(
    result, x: str, y: str, fixed: dict | None = None, positions: dict | None = None, best: str = "makespan"
) -> dict[str, int]:
    """The position (index into its values) of every axis but ``x`` and ``y``: ``positions[name]``, else
    ``fixed[name]``'s place among the axis's values, else the best configuration's (the first while
    none is computed)."""
    names = list(result.axes)
    shape = tuple(len(v) for v in result.axes.values())
    best_digits = np.unravel_index(result.best(best) if result.completed else 0, shape)
    for given, what in ((fixed, "fixed"), (positions, "positions")):
        unknown = sorted(set(given or {}) - set(names) - {x, y}) + sorted(set(given or {}) & {x, y})
        if unknown:
            raise CampaignWidgetError(
                f"{what} names {', '.join(map(repr, unknown))}, not one of the other axes: "
                + ", ".join(n for n in names if n not in (x, y))
            )
    chosen = {}
    for a, name in enumerate(names):
        if name in (x, y):
            continue
        values = list(result.axes[name])
        if positions and name in positions:
            k = positions[name]
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k < len(values):
                raise CampaignWidgetError(
                    f"positions[{short_repr(name)}]={short_repr(k)} must be an index 0 … {len(values) - 1}"
                )
            chosen[name] = int(k)
        elif fixed and name in fixed:
            if fixed[name] not in values:
                raise CampaignWidgetError(
                    f"fixed[{short_repr(name)}]={fixed[name]!r} is not a value of that axis: {values}"
                )
            chosen[name] = values.index(fixed[name])
        else:
            chosen[name] = int(best_digits[a])
    return chosen


def grid_indices(result, x: str, y: str, positions: dict[str, int]) -> np.ndarray:
    """Configuration index of each cell: rows = ``y`` values, columns = ``x`` values."""
    names = list(result.axes)
    shape = tuple(len(v) for v in result.axes.values())
    rows, cols = np.meshgrid(np.arange(shape[names.index(y)]), np.arange(shape[names.index(x)]), indexing="ij")
    digits = [rows if n == y else cols if n == x else np.full(rows.shape, positions[n]) for n in names]
    return np.ravel_multi_index(digits, shape)


def bar_ticks(lo: float, hi: float, unit: str, time_end: float | None = None) -> list[tuple[float, str]]:
    """Colour-bar ticks over [lo, hi] with their unit; one tick when every value is the same."""
    from .ticks import nice_ticks  # when called: the static_figure package imports this module

    if not hi > lo:
        return [(lo, value_label(lo, unit, end=time_end))]
    values, step = nice_ticks(lo, hi, 4)
    values = [v for v in values if lo - 1e-12 * abs(hi) <= v <= hi + 1e-12 * abs(hi)] or [lo, hi]
    return list(zip(values, scale_tick_labels(values, step, unit, end=time_end or hi)))


#: The least distance between two colour-bar labels' centres, in px: a 12 px line and 4 px apart.
BAR_LABEL_SPACING = 16.0


def spaced_ticks(positions_px, spacing: float = BAR_LABEL_SPACING) -> list[int]:
    """Which of the colour bar's ticks (their positions along the bar, px) get a label: from the low
    end up, each at least ``spacing`` from the last one kept, so that on a short bar (a sweep of two
    rows draws a 70 px bar) the labels do not touch. js/sweep/draw.js ``spacedTicks`` is its twin.

    >>> spaced_ticks([0, 10, 20, 30, 40])
    [0, 2, 4]
    """
    kept: list[int] = []
    for k, p in enumerate(positions_px):
        if not kept or abs(float(p) - float(positions_px[kept[-1]])) >= spacing:
            kept.append(k)
    return kept


def time_end(result) -> float | None:
    """The longest makespan: the time readings' unit is chosen for it."""
    makespans = np.asarray(result["makespan"], float)
    return float(np.nanmax(makespans)) if np.isfinite(makespans).any() else None


def best_line(result, end: float | None = None, by: str = "makespan") -> str:
    """The best configuration by objective ``by`` (``SweepResult.best``) in words: what it optimises, its
    axes and its makespan, with units ("◆ best (highest throughput): batch 256, … — makespan 12 ms")."""
    row = result.row(result.best(by))
    axes = ", ".join(f"{k} {value_label(row[k], column_unit(result, k))}" for k in result.axes)
    makespan = value_label(row["makespan"], column_unit(result, "makespan"), end=end)
    name = OBJECTIVES.get(by, by)
    goal = OBJECTIVE_WORDS.get(name, f"smallest {name}")
    return f"◆ best ({goal}): {shorten_middle(axes, 200)} — makespan {makespan}"


def metric_text(name: str, value, unit: str, end: float | None = None, feasible: bool = True) -> str:
    """One result column of a configuration as a view says it: "makespan 12 ms", and a speedup as what it
    is against the baseline ("6.33× slower than the baseline", never "speedup 6.33× slower"). An infeasible
    configuration's makespan says so and its speedup is none (docs/semantics.md#feasible-schedules)."""
    if not feasible and name == "makespan":
        return f"makespan {value_label(value, unit, end=end)} (infeasible: not achievable)"
    if not feasible and name == "speedup":
        return "not compared with the baseline (infeasible)"
    if name == "speedup":
        speed = format_speedup(value)
        return f"{speed} {'as' if speed == 'same time' else 'than'} the baseline"
    return f"{name} {value_label(value, unit, end=end)}"


def row_lines(result, i: int, end: float | None = None) -> list[tuple[str, str]]:
    """Configuration ``i``'s whole row as (column, value with unit) pairs; the axes first."""
    if not result._have[i]:
        config = result.configuration(i)
        return [(k, value_label(v, column_unit(result, k), end=end)) for k, v in config.items()] + [
            ("makespan", "not computed yet")
        ]
    row = result.row(i)
    feasible = bool(row.get("feasible", True))
    out = []
    for k, v in row.items():
        if k == "speedup":  # "6.33× slower", never "speedup 6.33× slower"; none for an infeasible row
            out.append(("against the baseline", format_speedup(v) if feasible else "not compared (infeasible)"))
        elif k == "makespan" and not feasible:
            out.append((k, f"{value_label(v, column_unit(result, k), end=end)} (infeasible)"))
        else:
            out.append((k, value_label(v, column_unit(result, k), end=end)))
    return out


@dataclass(frozen=True)
class SweepGrid:
    """One heatmap's content (``sweep_grid``). Arrays are (rows = ``y`` values, columns = ``x`` values)."""

    x: str
    y: str
    color: str
    indices: np.ndarray  # configuration index of each cell
    values: np.ndarray  # the colour column as float, NaN where not computed
    have: np.ndarray  # whether each cell's configuration is computed
    boolean: bool  # a yes/no column: two named colours, no continuous bar
    unit: str  # the colour column's unit
    x_labels: list[str]
    y_labels: list[str]
    lo: float  # the continuous scale's ends (the computed values' min and max)
    hi: float
    ticks: list[tuple[float, str]]  # the colour bar's (value, label); boolean: (0, "no"), (1, "yes")
    positions: dict[str, int]  # the other axes' positions
    fixed: dict = field(default_factory=dict)  # the other axes' values
    best: int | None = None  # the best configuration, if computed
    best_cell: tuple[int, int] | None = None  # its (row, column), if it is on this grid
    best_line: str = ""

    def severity(self, values) -> np.ndarray:
        """s ∈ [0, 1] of ``values`` on the continuous scale (linear over [lo, hi]; 0 when lo = hi)."""
        v = np.asarray(values, dtype=float)
        if not self.hi > self.lo:
            return np.where(np.isfinite(v), 0.0, np.nan)
        return np.clip((v - self.lo) / (self.hi - self.lo), 0.0, 1.0)

    def rgb(self, theme: str = "light") -> np.ndarray:
        """uint8 colour of each cell, shape (rows, columns, 3), in ``theme``'s look."""
        out = np.empty(self.values.shape + (3,), dtype=np.uint8)
        out[...] = colour_scale.hex_to_rgb(PENDING_COLOR)
        if self.boolean:
            out[self.have & (self.values > 0.5)] = colour_scale.hex_to_rgb(YES_COLOR)
            out[self.have & ~(self.values > 0.5)] = colour_scale.hex_to_rgb(no_color(theme))
            return out
        ok = self.have & np.isfinite(self.values)
        if ok.any():
            out[ok] = colour_scale.rgb(self.severity(self.values[ok]), PALETTE).reshape(-1, 3)
        return out

    def bar_rgb(self, steps: int = 64) -> np.ndarray:
        """uint8 (steps, 3): the continuous colour bar from ``lo`` (first) to ``hi``."""
        return colour_scale.rgb(np.linspace(0.0, 1.0, steps), PALETTE).reshape(-1, 3)

    def cell(self, index: int) -> tuple[int, int] | None:
        """(row, column) of configuration ``index`` on this grid, or None."""
        found = np.argwhere(self.indices == index)
        return (int(found[0][0]), int(found[0][1])) if found.size else None


def sweep_grid(
    result,
    *,
    x: str,
    y: str,
    color="makespan",
    fixed: dict | None = None,
    positions: dict | None = None,
    best="makespan",
) -> SweepGrid:
    """The heatmap of column ``color`` over axes ``x`` and ``y`` of a product sweep, the other axes at
    ``positions`` (indices) or ``fixed`` (values), else at the best configuration's by objective ``best``
    (``SweepResult.best``)."""
    check_grid(result, x, y, color)
    chosen = other_positions(result, x, y, fixed, positions, best)
    idx = grid_indices(result, x, y, chosen)
    have = result._have[idx]
    raw = np.asarray(result[color])[idx]
    boolean = raw.dtype == bool
    values = np.where(have, raw.astype(float), np.nan)
    unit = column_unit(result, color)
    end = time_end(result)
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    ticks = [(0.0, "no"), (1.0, "yes")] if boolean else bar_ticks(lo, hi, unit, end)
    best_index = result.best(best) if result.completed else None
    found = np.argwhere(idx == best_index) if best_index is not None else np.empty((0, 2))
    return SweepGrid(
        x=x,
        y=y,
        color=color,
        indices=idx,
        values=values,
        have=have,
        boolean=bool(boolean),
        unit=unit,
        x_labels=[value_label(v, column_unit(result, x)) for v in result.axes[x]],
        y_labels=[value_label(v, column_unit(result, y)) for v in result.axes[y]],
        lo=lo,
        hi=hi,
        ticks=ticks,
        positions=chosen,
        fixed={n: result.axes[n][k] for n, k in chosen.items()},
        best=best_index,
        best_cell=(int(found[0][0]), int(found[0][1])) if len(found) else None,
        best_line=best_line(result, end, best) if best_index is not None else "",
    )
