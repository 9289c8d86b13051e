"""One campaign diagram on a matplotlib Axes: pieces (merged below a pixel), wells, fills, spills, lines, header, bands and grid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib import patheffects
from matplotlib.patches import PathPatch
from matplotlib.path import Path as MplPath
from matplotlib.text import Text
from matplotlib.transforms import Affine2D, ScaledTranslation

from ..errors import WrongTypeError
from ..figures.group_bands import place_group_labels
from ..figures.readout import said_lines
from ..figures.scene import CRITICAL, Scene
from ..figures.ticks import time_ticks, utilization_ticks
from ..formatting import time_unit_for
from ._paths import (
    _add,
    _fill,
    _fill_many,
    _hatch,
    _rects_path,
    _runs_path,
    _runs_paths,
    _segments_path,
    _segments_paths,
    _stroke,
    _stroke_many,
)
from .legend import draw_legend, legend_entries
from .panels import Panel
from .pieces import piece_arrays, pieces_to_draw
from .style import (
    GREY,
    LAYOUT,
    LINE_CODES,
    PT_PER_PX,
    PX_PER_INCH,
    THEME,
    font_for,
    lighten,
    literal_text,
    style_ticks,
    text_width_px,
    valid_color,
    with_alpha,
    wrap_text,
)


def _draw_pieces(ax, p: dict, colors: Sequence[str]):
    """The browser's layers, bottom to top: shade under the compute line, grey wells, memory
    fill, spill (red, hatched), guard rails, compute lines (solid, then dashed over a line in the
    background colour; red where compute is oversubscribed; on the critical path, over a bold edge in the
    theme's ``critical`` colour). One artist per style, as the browser batches them per style.
    ``p`` holds the piece arrays (``piece_arrays`` / ``pieces_to_draw``)."""
    x0, x1, phase = p["x0"], p["x1"], p["phase"]
    base, line, well, fill = p["base_y"], p["line_y"], p["well_top"], p["fill_top"]
    colors = [valid_color(c) for c in colors]

    def color_of(k):
        return colors[k] if 0 <= k < len(colors) else GREY

    def fill_per_phase(where, bottom, top, style, zorder):
        """One filled path per phase over the pieces ``where`` holds, in ``style(phase colour)``, all
        in one artist (a figure of thousands of phases would otherwise build an artist per phase)."""
        keyed = _runs_paths(phase[where], x0[where], x1[where], bottom[where], top[where])
        if keyed:
            _fill_many(ax, [path for _, path in keyed], [style(color_of(k)) for k, _ in keyed], zorder)

    fill_per_phase(line > base, base, line, lambda c: with_alpha(c, THEME["shade_alpha"]), 1.0)
    wells = well > line
    if wells.any():
        _fill(ax, _runs_path(x0[wells], x1[wells], line[wells], well[wells]), THEME["well"], 1.1, gid="wells")
    top = np.minimum(fill, well)
    fill_per_phase(top > line, line, top, lambda c: lighten(c, THEME["fill_lighten"]), 1.2)
    spill = fill > well
    if spill.any():
        path = _runs_path(x0[spill], x1[spill], np.maximum(well, line)[spill], fill[spill])
        _fill(ax, path, THEME["spill_fill"], 1.3, gid="spill")
        hatch = PathPatch(path, facecolor="none", edgecolor="none", linewidth=0, zorder=1.31)
        _hatch(hatch, THEME["hatch"])
        _add(ax, hatch, "spill-hatch")
    if x0.size:
        _stroke(ax, _segments_path(x0, x1, well), THEME["rail"], THEME["rail_width"], 1.4, gid="rails")

    dash = np.clip(np.where(np.isnan(p["dash_from"]), x1, p["dash_from"]), x0, x1)
    over = (p["flags"] & 1).astype(bool)
    style = np.where(over, -1, phase)
    width = THEME["compute_line_width"]
    critical = (p["flags"] & CRITICAL).astype(bool)
    if critical.any():  # a bold edge around the compute line (js/diagram/draw.js)
        edge = width + 2 * THEME["critical_width"]
        _stroke(ax, _segments_path(x0[critical], x1[critical], line[critical]), THEME["critical"], edge, 1.45,
                gid="critical-path")  # fmt: skip
    tail = x1 > dash
    if tail.any():  # the dashes' gaps in the background colour, so they read on any fill (js/diagram/draw.js)
        _stroke(ax, _segments_path(dash[tail], x1[tail], line[tail]), THEME["background"], width, 1.49, gid="dash-gaps")
    for dashed, a, b in ((False, x0, dash), (True, dash, x1)):
        present = b > a
        keyed = _segments_paths(style[present], a[present], b[present], line[present])
        if keyed:
            colors_ = [THEME["warning"] if k < 0 else color_of(k) for k, _ in keyed]
            _stroke_many(ax, [path for _, path in keyed], colors_, width, 1.5, dashed=dashed)


#: Padding (CSS px) around a fusion group's label at the top of its band (js/diagram/layout.js).
GROUP_LABEL_PADDING = 4
#: Room (CSS px) kept above the content for the fusion groups' labels (js/diagram/layout.js ``GROUP_LABEL_ROOM``).
GROUP_LABEL_ROOM = 2 * GROUP_LABEL_PADDING + THEME["font_size"] - 1
#: Compute lines within this of 1.0 are at full utilization (float32 on the wire, js/diagram/layout.js).
COMPUTE_TOLERANCE = 1e-6


def y_top(scene: Scene, plot_height_px: float = 0.0, reserve_px: float = 0.0) -> float:
    """The y value at the top of the plot (js/diagram/layout.js ``yTopFor``): a little headroom above the
    scene's y_max (the top of its pipes), and ``reserve_px`` of a ``plot_height_px`` plot kept free
    above the content (the fusion groups' labels), so nothing drawn strikes through them."""
    top = float(scene.y_max) * (1 + LAYOUT["headroom"])
    if not (reserve_px > 0 and plot_height_px > 2 * reserve_px):
        return top
    return max(top, float(scene.y_max) * plot_height_px / (plot_height_px - reserve_px))


def panel_y_top(panel: Panel, plot_height_px: float) -> float:
    """``y_top`` of a panel drawn ``plot_height_px`` high: room for its group labels when it has any."""
    groups = getattr(panel.scene, "group_id", None)
    labelled = groups is not None and len(groups) > 0 and any(panel.group_labels)
    return y_top(panel.scene, plot_height_px, GROUP_LABEL_ROOM if labelled else 0.0)


def _root_figure(ax):
    try:
        return ax.get_figure(root=True)
    except TypeError:  # matplotlib < 3.10
        return ax.figure


def axes_size_px(ax) -> tuple[float, float]:
    """The axes' size in CSS px (tick density follows it, as in the browser)."""
    fig = _root_figure(ax)
    box = ax.get_window_extent()
    return box.width * PX_PER_INCH / fig.dpi, box.height * PX_PER_INCH / fig.dpi


def compute_top(scene: Scene) -> float:
    """How high the compute axis reaches (js/diagram/layout.js ``computeTopFor``): 1.0, or the highest compute
    line above it. The pipes are not compute (their height means nothing in ops/s), so the ticks
    never follow them: in absolute mode the axis ends at the machine's peak."""
    top = max(1.0, float(np.max(scene.line_y, initial=1.0)))
    return 1.0 if top <= 1.0 + COMPUTE_TOLERANCE else top


def utilization_ticks_for(panel: Panel, plot_height_px: float):
    top = panel_y_top(panel, plot_height_px)
    return utilization_ticks(
        panel.y_axis,
        panel.peak_compute,
        panel.units.get("compute", ""),
        plot_height_px / top,
        top=compute_top(panel.scene),
    )


def _y_label(panel: Panel) -> str:
    resource = (panel.resource_names[0] if panel.resource_names else "") or "compute"
    if panel.y_axis == "absolute":
        return f"{resource} ({panel.units.get('compute') or 'ops/s'})"
    return f"{resource} utilization"


def _x_label(units: Mapping[str, str], unit: str | None = None) -> str:
    unit = units.get("time", "") if unit is None else unit
    return f"time ({unit})" if unit else "time"


def readout_lines(panel: Panel) -> list[tuple[str, str]]:
    """The readout the browser canvas draws (the same function feeds its ``readout_lines`` trait)."""
    p = panel
    return said_lines(p.scene, p.units, p.resource_names, p.notes, None, p.infeasibility, p.time_end, p.title, p.warned)


def header_rows(panel: Panel, plot_width_px: float) -> list[str]:
    """The title above the plot (js/diagram/layout.js), broken into lines that fit the plot's width."""
    return wrap_text(panel.title, plot_width_px, THEME["title_font_size"], "bold") if panel.title else []


def header_height(rows: Sequence[str]) -> float:
    """From the top of the title to the top of the plot, in CSS px (js/diagram/layout.js ``top``)."""
    title = len(rows) * THEME["title_font_size"] + (len(rows) - 1) * 4 + LAYOUT["title_gap"] if rows else 0.0
    return title + THEME["font_size"] / 2


def readout_rows(panel: Panel, width_px: float) -> list[tuple[str, str]]:
    """The readout under the legend (js/diagram/layout.js): makespan, then one line per oversubscribed
    resource, each broken into lines that fit ``width_px``. [(text, kind)]."""
    return [
        (line, kind)
        for text, kind in readout_lines(panel)
        for line in wrap_text(text, width_px, weight="bold" if kind == "makespan" else "normal")
    ]


def readout_height(rows) -> float:
    return LAYOUT["readout_gap"] + len(rows) * LAYOUT["readout_line_height"] if rows else 0.0


def _draw_title(fig, transform, rows: Sequence[str], left: float, top: float) -> None:
    """The title lines, left-aligned at ``left``, the first centred ``title_font_size / 2`` under ``top``
    (CSS px, y down; ``transform`` maps them to display)."""
    for k, line in enumerate(rows):
        t = Text(
            left,
            top + THEME["title_font_size"] / 2 + k * (THEME["title_font_size"] + 4),
            line,
            color=THEME["text"],
            fontproperties=font_for(THEME["title_font_size"], "bold"),
            ha="left",
            va="center",
            transform=transform,
            **literal_text(),
        )
        t.set_gid("cw-title")
        fig.add_artist(t)


def _draw_readout(fig, transform, rows, left: float, top: float) -> None:
    """The readout lines (js/diagram/draw-legend.js ``drawReadout``) from ``top`` + the readout gap down."""
    y = top + LAYOUT["readout_gap"] + LAYOUT["readout_line_height"] / 2
    for text, kind in rows:
        t = Text(
            left,
            y,
            text,
            color=THEME["warning"] if kind in ("oversubscribed", "warning") else THEME["text"],
            fontproperties=font_for(THEME["font_size"], "bold" if kind == "makespan" else "normal"),
            ha="left",
            va="center",
            transform=transform,
            **literal_text(),
        )
        t.set_gid(f"cw-{kind}")
        fig.add_artist(t)
        y += LAYOUT["readout_line_height"]


def _px_transform(ax, corner: str):
    """A transform from CSS px (x right, y down) with its origin at ``ax``'s ``"top"`` or
    ``"bottom"`` left corner."""
    fig = _root_figure(ax)
    origin = ScaledTranslation(0, 1 if corner == "top" else 0, ax.transAxes)
    return Affine2D().scale(1 / PX_PER_INCH, -1 / PX_PER_INCH) + fig.dpi_scale_trans + origin


def draw_campaign(
    ax,
    panel: Panel,
    *,
    time_range: tuple[float, float] | None = None,
    header: bool = True,
    xlabel: bool = True,
    legend: bool = True,
    readout_at: float | None = None,
    readout: Sequence[tuple[str, str]] | None = None,
):
    """Draw one campaign diagram onto ``ax`` (the browser view's look; pure drawing).

    ``time_range`` defaults to ``[0, max(panel.time_max, scene.x_max)]``. ``header`` draws the
    title above the axes and the readout (makespan, oversubscription) under the legend, as the
    browser view lays them out (``readout_at``: CSS px under the axes' bottom edge instead; ``readout``: its rows
    as the figure's layout wrapped them, so that the drawing fills exactly the room laid out for it);
    ``legend`` draws the phase legend below the axes. Tick density follows the axes' size on the figure, as in the browser.
    """
    if not isinstance(panel, Panel):
        raise WrongTypeError(f"draw_campaign takes a Panel, got {type(panel).__name__}")
    scene = panel.scene
    t0, t1 = time_range if time_range is not None else (0.0, panel.time_end)
    if not t1 > t0:
        t1 = t0 + 1.0
    width_px, height_px = axes_size_px(ax)
    top = panel_y_top(panel, height_px)

    ax.set_xlim(t0, t1)
    ax.set_ylim(0.0, top)
    ax.set_facecolor(THEME["background"])
    ax.set_navigate(False)

    factor, time_unit = time_unit_for(panel.units.get("time", ""), panel.time_end)
    x_ticks = time_ticks(t0, t1, width_px, factor)
    y_ticks = utilization_ticks_for(panel, height_px)
    _draw_group_bands(ax, scene, t0, t1, top)
    axis_top = max([1.0] + [v for v, _ in y_ticks])
    _draw_grid(ax, [v for v, _ in x_ticks], [v for v, _ in y_ticks], t0, t1, axis_top)
    dpi = _root_figure(ax).dpi
    _draw_pieces(ax, pieces_to_draw(piece_arrays(scene), t0, t1, width_px * dpi / PX_PER_INCH), panel.colors)

    _draw_group_labels(ax, scene, panel.group_labels, t0, t1, width_px)
    _draw_phase_labels(ax, scene, panel.names, t0, t1, width_px, height_px / top)

    tick_font = font_for()
    ax.set_xticks([v for v, _ in x_ticks], [label for _, label in x_ticks], **literal_text())
    ax.set_yticks([v for v, _ in y_ticks], [label for _, label in y_ticks], **literal_text())
    style_ticks(ax, tick_font, pad_px=THEME["tick_length"] / 2 + 1)
    ax.tick_params(axis="y", pad=3 * PT_PER_PX)
    ax.minorticks_off()
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(THEME["axis"])
        ax.spines[side].set_linewidth(PT_PER_PX)
        ax.spines[side].set_zorder(2.6)
    ax.spines["left"].set_bounds(0.0, top)  # the spine frames the plot: the pipes above the top tick stay inside

    ax.set_ylabel(
        _y_label(panel),
        fontproperties=font_for(),
        color=THEME["text"],
        labelpad=LAYOUT["axis_label_gap"] * PT_PER_PX,
        **literal_text(),
    )
    ax.yaxis.label.set_y(0.5 / top)  # centred on 0…1, as in the browser
    if xlabel:
        ax.set_xlabel(
            _x_label(panel.units, time_unit),
            fontproperties=font_for(),
            color=THEME["text"],
            labelpad=4 * PT_PER_PX,
            **literal_text(),
        )
    fig = _root_figure(ax)
    if header:
        rows = header_rows(panel, width_px)
        _draw_title(fig, _px_transform(ax, "top"), rows, 0.0, -header_height(rows))
    below = THEME["tick_length"] + LAYOUT["x_tick_label_height"] + (LAYOUT["x_label_height"] + 2 if xlabel else 0)
    if legend:
        entries = legend_entries([panel])
        rows = draw_legend(
            fig,
            _px_transform(ax, "bottom"),
            entries,
            0.0,
            below + LAYOUT["legend_gap"] + LAYOUT["legend_row_height"] / 2,
            width_px,
        )
        below += LAYOUT["legend_gap"] + rows * LAYOUT["legend_row_height"] if rows else 0
    if header:
        _draw_readout(
            fig,
            _px_transform(ax, "bottom"),
            readout_rows(panel, width_px) if readout is None else readout,
            0.0,
            below if readout_at is None else readout_at,
        )
    return ax


def _draw_phase_labels(ax, scene: Scene, names, t0: float, t1: float, width_px: float, px_per_unit: float):
    """With more phases than the palette tells apart (js/diagram/draw-labels.js), each phase's name on its
    widest visible piece, when it fits: in the shaded compute area if tall enough, else under the line."""
    if len(names) <= LAYOUT.get("direct_labels_above", 12) or len(scene) == 0:
        return
    x0 = np.clip(np.asarray(scene.x0, float), t0, t1)
    x1 = np.clip(np.asarray(scene.x1, float), t0, t1)
    width = (x1 - x0) / (t1 - t0) * width_px
    phase = np.asarray(scene.phase)
    order = np.lexsort((-width, phase))  # per phase, widest first
    first = order[np.r_[True, phase[order][1:] != phase[order][:-1]]]
    size = THEME["font_size"] - 1
    # A label takes 6 px of padding and at least a pixel of text: narrower pieces are not measured
    # (a figure of thousands of phases has thousands of sub-pixel ones).
    first = first[width[first] > 6 + 1]
    for i in first:
        text = str(names[phase[i]]) if 0 <= phase[i] < len(names) else ""
        if not text or text_width_px(text, size) + 6 > width[i]:
            continue
        line, base = float(scene.line_y[i]), float(scene.base_y[i])
        top_ = max(float(scene.well_top[i]), float(scene.fill_top[i]), line)
        shade, pipe, room = (line - base) * px_per_unit, (top_ - line) * px_per_unit, THEME["font_size"] + 4
        # The middle of the taller of its compute area and its pipe when the text fits, else above its pipe.
        y = (
            (line + base) / 2
            if shade >= pipe and shade >= room
            else (top_ + line) / 2
            if pipe >= room
            else top_ + (THEME["font_size"] / 2 + 3) / px_per_unit
        )
        t = ax.text(
            (x0[i] + x1[i]) / 2,
            y,
            text,
            ha="center",
            va="center",
            color=THEME["text"],
            fontproperties=font_for(size),
            zorder=2.2,
            **literal_text(),
        )
        t.set_path_effects([patheffects.withStroke(linewidth=3 * PT_PER_PX, foreground=THEME["background"])])
        t.set_gid("cw-phase-label")


def _bands(scene: Scene, t0: float, t1: float):
    """The fusion-group bands in view, by start time: [(t0, t1, group id)]."""
    g0, g1, gid = (getattr(scene, k, None) for k in ("group_t0", "group_t1", "group_id"))
    if g0 is None or g1 is None or gid is None:
        return []
    n = min(len(g0), len(g1), len(gid))
    out = [(float(g0[k]), float(g1[k]), int(gid[k])) for k in range(n) if g1[k] > g0[k] and g1[k] > t0 and g0[k] < t1]
    return sorted(out)


def _draw_group_bands(ax, scene: Scene, t0: float, t1: float, top: float):
    """Fusion groups (js/diagram/draw-groups.js): a very light alternating grey band per group behind
    everything, spanning the plot's height, with thin boundaries at its ends."""
    bands = _bands(scene, t0, t1)
    if not bands:
        return
    for parity, color in enumerate((THEME["group_band"], THEME["group_band_alternate"])):
        mine = [b for b in bands if abs(b[2]) % 2 == parity]  # alternating by group
        if mine:
            a = np.array([(max(b0, t0), min(b1, t1)) for b0, b1, _ in mine])
            _fill(
                ax,
                _rects_path(a[:, 0], a[:, 1], np.zeros(len(mine)), np.full(len(mine), top)),
                color,
                0.2,
                gid=f"group-bands-{parity}",
            )
    edges = sorted({t for b0, b1, _ in bands for t in (b0, b1) if t0 <= t <= t1})
    if edges:
        e = np.array(edges)
        verts = np.stack([np.column_stack([e, np.zeros_like(e)]), np.column_stack([e, np.full_like(e, top)])], 1)
        path = MplPath(verts.reshape(-1, 2), np.tile(LINE_CODES, e.size))
        _stroke(ax, path, THEME["group_boundary"], 1.0, 0.3, gid="group-boundaries")


def _draw_group_labels(ax, scene: Scene, labels, t0: float, t1: float, width_px: float):
    """Each group's label at the top of its widest band where it fits and meets no other label
    (``place_group_labels``; text, never markup)."""
    widest: dict[int, tuple] = {}
    for b0, b1, gid in _bands(scene, t0, t1):
        width = min(b1, t1) - max(b0, t0)
        if gid not in widest or width > min(widest[gid][1], t1) - max(widest[gid][0], t0):
            widest[gid] = (b0, b1, gid)
    px = width_px / (t1 - t0)
    bands = {
        gid: ((max(b0, t0) - t0) * px, (min(b1, t1) - t0) * px)
        for b0, b1, gid in widest.values()
        if 0 <= gid < len(labels) and labels[gid]
    }
    widths = {gid: text_width_px(labels[gid], THEME["font_size"] - 1) for gid in bands}
    for gid, centre in place_group_labels(bands, widths, GROUP_LABEL_PADDING):
        t = ax.annotate(
            labels[gid],
            (t0 + centre / px, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(0, -GROUP_LABEL_PADDING * PT_PER_PX),
            textcoords="offset points",
            ha="center",
            va="top",
            color=THEME["muted_text"],
            fontproperties=font_for(THEME["font_size"] - 1),
            zorder=2.0,
            **literal_text(),
        )
        t.set_gid("cw-group-label")


def _draw_grid(ax, x_values, y_values, t0, t1, top: float = 1.0):
    """Horizontal grid lines at the ticks (up to 1.0, or higher when content goes there), vertical
    ones from 0 to the top tick; the capacity line at 1.0."""
    ys = [y for y in y_values if 0 < y <= top + 1e-9 and abs(y - 1) > 1e-9]
    xs = [x for x in x_values if t0 < x <= t1]
    verts = [[(t0, y), (t1, y)] for y in ys] + [[(x, 0.0), (x, top)] for x in xs]
    if verts:
        path = MplPath.make_compound_path(*[MplPath(v) for v in verts])
        _stroke(ax, path, THEME["grid"], THEME["grid_width"], 0.5, gid="grid")
    _stroke(ax, MplPath([(t0, 1.0), (t1, 1.0)]), THEME["capacity"], THEME["grid_width"], 0.6, gid="capacity")
