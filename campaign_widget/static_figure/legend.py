"""The legend under the stacked diagrams."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from ..figures.readout import key_labels
from ..formatting import LEGEND_MAX_ENTRIES, legend_selection, more_label, shorten_names
from ._paths import _dash_pattern, _hatch
from .panels import Panel
from .pieces import scene_features
from .style import GREY, LAYOUT, PT_PER_PX, THEME, fit_text, font_for, lighten, literal_text, text_width_px, valid_color

CRITICAL_LABEL = "critical path"  # js/shared/legend.js


def _drawn_time(panel: Panel) -> np.ndarray:
    """Time drawn per phase of ``panel`` (what a capped legend keeps first)."""
    scene = panel.scene
    phase = np.asarray(scene.phase, dtype=np.int64)
    width = np.nan_to_num(np.asarray(scene.x1, float) - np.asarray(scene.x0, float), nan=0.0)
    ok = (phase >= 0) & (phase < len(panel.names))
    return np.bincount(phase[ok], weights=width[ok], minlength=len(panel.names))


def legend_entries(panels: Sequence[Panel], max_entries: int = LEGEND_MAX_ENTRIES) -> list[dict]:
    """Phase names (one entry per name across panels, first colour wins; beyond ``max_entries``
    the phases with the most time and a "+N more" entry, names shortened in the middle:
    ``formatting.legend_selection``, ``shorten_names``), then the keys for the styles any panel
    uses (js/shared/legend.js)."""
    phases, seen, weight = [], {}, []
    features = {"spill": False, "compute_over": False, "dashed": False, "critical": False}
    for panel in panels:
        time = _drawn_time(panel)
        for i, name in enumerate(panel.names):
            if name in seen:
                weight[seen[name]] += time[i]
                continue
            seen[name] = len(phases)
            weight.append(float(time[i]))
            color = panel.colors[i] if i < len(panel.colors) else GREY
            phases.append({"kind": "phase", "label": name, "color": valid_color(color)})
        for key, value in scene_features(panel.scene).items():
            features[key] = features[key] or value
    for entry, label in zip(phases, shorten_names([entry["label"] for entry in phases])):
        entry["label"] = label  # names that would shorten alike are numbered (#1, #2)
    shown, hidden = legend_selection(weight, max_entries)
    entries = [phases[i] for i in shown]
    if hidden:
        entries.append({"kind": "more", "label": more_label(hidden)})
    pipes = {panel.resource_names[1] for panel in panels}
    words = key_labels(pipes.pop() if len(pipes) == 1 else None)
    entries.append({"kind": "well", "label": words["well"]})
    for key in ("spill", "compute_over", "dashed"):
        if features[key]:
            entries.append({"kind": key.replace("_", "-"), "label": words[key]})
    if features["critical"]:
        entries.append({"kind": "critical", "label": CRITICAL_LABEL})
    return entries


def legend_row_layout(entries, width_px: float):
    """[(entry, x, row)]: entries flow left to right and wrap (js/diagram/layout.js); a label wider than a
    row is shortened in the middle to fit it."""
    out, x, row = [], 0.0, 0
    room = max(0.0, width_px - LAYOUT["legend_swatch_width"] - 6)
    for entry in entries:
        if text_width_px(entry["label"]) > room:
            cut = "middle" if entry["kind"] == "phase" else "end"  # names keep their end, sentences their start
            entry = {**entry, "label": fit_text(entry["label"], room, cut=cut)}
        item = LAYOUT["legend_swatch_width"] + 6 + text_width_px(entry["label"])
        if x > 0 and x + item > width_px:
            x, row = 0.0, row + 1
        out.append((entry, x, row))
        x += item + LAYOUT["legend_item_gap"]
    return out


def draw_legend(fig, transform, entries, left: float, first_row_y: float, width_px: float) -> int:
    """Swatches and labels in CSS px (``transform`` maps px, y down, to display). Returns rows."""
    rows = legend_row_layout(entries, width_px)
    w, h = LAYOUT["legend_swatch_width"], 10
    for entry, x, row in rows:
        x += left
        y = first_row_y + row * LAYOUT["legend_row_height"]
        top_y = round(y - h / 2)
        kind = entry["kind"]
        artists = []
        if kind == "more":
            pass  # the summary of a capped legend: its text only
        elif kind == "phase":
            artists.append(
                Rectangle(
                    (x, top_y),
                    w,
                    h,
                    facecolor=lighten(entry["color"], THEME["fill_lighten"]),
                    edgecolor="none",
                    linewidth=0,
                )
            )
            artists.append(
                Line2D(
                    [x, x + w],
                    [top_y + h, top_y + h],
                    color=entry["color"],
                    linewidth=THEME["compute_line_width"] * PT_PER_PX,
                    solid_capstyle="butt",
                )
            )
        elif kind == "well":
            artists.append(Rectangle((x, top_y), w, h, facecolor=THEME["well"], edgecolor="none", linewidth=0))
            artists.append(
                Line2D(
                    [x, x + w],
                    [top_y + 0.5, top_y + 0.5],
                    color=THEME["rail"],
                    linewidth=THEME["rail_width"] * PT_PER_PX,
                    solid_capstyle="butt",
                )
            )
        elif kind == "critical":  # the bold edge, around a line in the muted text colour
            for color, width in ((THEME["critical"], 2 * THEME["critical_width"]), (THEME["muted_text"], 0)):
                artists.append(Line2D([x, x + w], [y, y], color=color, solid_capstyle="butt",
                                      linewidth=(THEME["compute_line_width"] + width) * PT_PER_PX))  # fmt: skip
        elif kind == "spill":
            artists.append(Rectangle((x, top_y), w, h, facecolor=THEME["spill_fill"], edgecolor="none", linewidth=0))
            hatch = Rectangle((x, top_y), w, h, facecolor="none", edgecolor="none", linewidth=0)
            _hatch(hatch, THEME["hatch"])
            artists.append(hatch)
        else:
            color = THEME["warning"] if kind == "compute-over" else THEME["axis"]
            line = Line2D(
                [x, x + w],
                [y, y],
                color=color,
                linewidth=THEME["compute_line_width"] * PT_PER_PX,
                solid_capstyle="butt",
                dash_capstyle="butt",
            )
            if kind == "dashed":
                line.set_linestyle(_dash_pattern(THEME["compute_line_width"]))
            artists.append(line)
        for artist in artists:
            artist.set_transform(transform)
            fig.add_artist(artist)
        label = Text(
            x + (0 if kind == "more" else w + 6),
            y,
            entry["label"],
            color=THEME["text"],
            fontproperties=font_for(),
            ha="left",
            va="center",
            transform=transform,
            **literal_text(),
        )
        label.set_gid("cw-legend-label")
        fig.add_artist(label)
    return (rows[-1][2] + 1) if rows else 0
