"""The legend under the stacked diagrams."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from .panels import Panel
from .paths import _dash_pattern, _hatch
from .pieces import scene_features
from .style import _GREY, LAYOUT, PT_PER_PX, THEME, _font, _literal, _text_width_px, _valid_color, lighten


def legend_entries(panels: Sequence[Panel]) -> list[dict]:
    """Phase names (one entry per name across panels, first colour wins), then the keys for the
    styles any panel uses (js/legend.js)."""
    entries, seen = [], set()
    features = {"spill": False, "compute_over": False, "dashed": False}
    for panel in panels:
        for i, name in enumerate(panel.names):
            if name in seen:
                continue
            seen.add(name)
            color = panel.colors[i] if i < len(panel.colors) else _GREY
            entries.append({"kind": "phase", "label": name, "color": _valid_color(color)})
        for key, value in scene_features(panel.scene).items():
            features[key] = features[key] or value
    entries.append({"kind": "well", "label": "unused bandwidth (pipe height = 100% of peak bandwidth)"})
    if features["spill"]:
        entries.append({"kind": "spill", "label": "memory oversubscribed"})
    if features["compute_over"]:
        entries.append({"kind": "compute-over", "label": "compute > 100%"})
    if features["dashed"]:
        entries.append({"kind": "dashed", "label": "added by dilation/throttling"})
    return entries


def _legend_rows(entries, width_px: float):
    """[(entry, x, row)]: entries flow left to right and wrap (js/layout.js)."""
    out, x, row = [], 0.0, 0
    for entry in entries:
        item = LAYOUT["legend_swatch_width"] + 6 + _text_width_px(entry["label"])
        if x > 0 and x + item > width_px:
            x, row = 0.0, row + 1
        out.append((entry, x, row))
        x += item + LAYOUT["legend_item_gap"]
    return out


def _draw_legend(fig, transform, entries, left: float, first_row_y: float, width_px: float) -> int:
    """Swatches and labels in CSS px (``transform`` maps px, y down, to display). Returns rows."""
    rows = _legend_rows(entries, width_px)
    w, h = LAYOUT["legend_swatch_width"], 10
    for entry, x, row in rows:
        x += left
        y = first_row_y + row * LAYOUT["legend_row_height"]
        top_y = round(y - h / 2)
        kind = entry["kind"]
        artists = []
        if kind == "phase":
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
            x + w + 6,
            y,
            entry["label"],
            color=THEME["text"],
            fontproperties=_font(),
            ha="left",
            va="center",
            transform=transform,
            **_literal(),
        )
        label.set_gid("cw-legend-label")
        fig.add_artist(label)
    return (rows[-1][2] + 1) if rows else 0
