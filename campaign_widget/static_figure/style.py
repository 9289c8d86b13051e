"""Look of the static figure: the constants of js/shared/theme.js and js/diagram/layout.js, colours and fonts."""

from __future__ import annotations

import contextlib
import json
import math
import re
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np
from cycler import cycler  # matplotlib's own dependency (its prop_cycle type)
from matplotlib import rc_context
from matplotlib.font_manager import FontProperties, findfont
from matplotlib.path import Path as MplPath
from matplotlib.textpath import TextToPath

from ..errors import CampaignWidgetError, FigureTooLargeError, short_repr
from ..figures.phase_colours import PALETTE
from ..formatting import shorten_middle

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
PX_PER_INCH = 96.0  # CSS px
PT_PER_PX = 72.0 / PX_PER_INCH

# campaign_widget/theme.json, the file the browser view bundles too (js/shared/theme.js, js/diagram/layout.js); CSS px.
THEME_DATA = json.loads(resources.files("campaign_widget").joinpath("theme.json").read_text(encoding="utf-8"))


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def _theme_value(value):
    """rgba(r, g, b, a) → an RGBA tuple in 0..1; lists → tuples; the rest as it is."""
    if isinstance(value, str) and (m := re.fullmatch(r"rgba\(([^)]*)\)", value.strip())):
        r, g, b, a = (float(v) for v in m.group(1).split(","))
        return (r / 255, g / 255, b / 255, a)
    return tuple(value) if isinstance(value, list) else value


def theme(name: str = "light") -> dict:
    """The figure's look as snake_case keys: ``"light"`` or ``"dark"``."""
    merged = {**THEME_DATA["theme"], **(THEME_DATA["dark"] if name == "dark" else {})}
    return {**{_snake(k): _theme_value(v) for k, v in merged.items()}, "name": "dark" if name == "dark" else "light"}


THEME = theme("light")
# The layout's shared constants; panel_gap and column_gap are this module's page layout.
LAYOUT = {**{_snake(k): v for k, v in THEME_DATA["layout"].items()}, "panel_gap": 14, "column_gap": 28}
FONT_FAMILIES = ("Helvetica Neue", "Helvetica", "Arial", "Liberation Sans", "Arimo", "DejaVu Sans")
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
GREY = "#808080"
LINE_CODES = np.array([MplPath.MOVETO, MplPath.LINETO], dtype=np.uint8)
RECT_CODES = np.array(
    [MplPath.MOVETO, MplPath.LINETO, MplPath.LINETO, MplPath.LINETO, MplPath.CLOSEPOLY], dtype=np.uint8
)
# The bqplot roofline view's colours (campaign_widget/views/roofline.py), and their dark-theme twins.
_ROOFLINE = {
    "light": {
        "roof": "#333333",
        "ceiling": "#999999",
        "ceiling_label": "#777777",
        "point_edge": "#222222",
        "aggregate": "#111111",
    },
    "dark": {
        "roof": "#d0d0d0",
        "ceiling": "#8a8a8a",
        "ceiling_label": "#a8a8a8",
        "point_edge": "#e0e0e0",
        "aggregate": "#f5f5f5",
    },
}
ROOFLINE = dict(_ROOFLINE["light"])
THEMES = ("light", "dark")
_THEME_LOCK = threading.RLock()


@contextlib.contextmanager
def use_theme(name: str = "light"):
    """Draw in the ``"light"`` or ``"dark"`` theme inside the block.

    ``THEME`` and ``ROOFLINE`` are the dicts every drawing function reads; they are swapped in place
    (and back), one figure at a time, so a figure is drawn wholly in one theme even from threads.
    """
    if name not in THEMES:
        raise CampaignWidgetError(f"theme={short_repr(name)} must be one of {', '.join(map(repr, THEMES))}")
    with _THEME_LOCK:
        saved = dict(THEME), dict(ROOFLINE)
        THEME.update(theme(name))
        ROOFLINE.update(_ROOFLINE[name])
        try:
            yield THEME
        finally:
            THEME.clear()
            THEME.update(saved[0])
            ROOFLINE.clear()
            ROOFLINE.update(saved[1])


# A page figure needs no more: 16,384 px a side is 8 in at 2,048 dpi, and browsers refuse larger canvases.
MAX_CANVAS_SIDE_PX = 16_384
MAX_CANVAS_PIXELS = 100_000_000


def check_canvas(width_in: float, height_in: float | None, dpi: float) -> None:
    """Refuse a canvas that would not fit in memory, before matplotlib allocates it (``height_in``
    None: before the height is known, the width alone)."""
    w, h = width_in * dpi, (height_in or 0.0) * dpi
    if w > MAX_CANVAS_SIDE_PX or h > MAX_CANVAS_SIDE_PX or w * h > MAX_CANVAS_PIXELS:
        size = f"{width_in:.4g} in wide" if height_in is None else f"{width_in:.4g} × {height_in:.4g} in"
        pixels = f"{w:,.0f} px wide" if height_in is None else f"{w:,.0f} × {h:,.0f} px"
        raise FigureTooLargeError(
            f"a figure {size} at dpi={dpi:.6g} is {pixels}; the canvas is bounded to "
            f"{MAX_CANVAS_SIDE_PX:,} px a side and {MAX_CANVAS_PIXELS:,} px in all: lower dpi or width"
        )


def figure_format(path) -> str:
    """The export format (``"png"``, ``"svg"``, ``"pdf"``) that ``path``'s suffix asks for."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise CampaignWidgetError(
            f"cannot write a figure to {str(path)!r}: unknown suffix {Path(path).suffix!r}; "
            f"use one of {', '.join(FORMATS)}"
        )
    return FORMATS[suffix]


def style_ticks(ax, font, *, pad_px: float) -> None:
    """Tick marks and labels in the theme: outward ticks, the axis colour, labels in ``font``."""
    for label in ax.get_xticklabels() + ax.get_yticklabels():
        label.set_fontproperties(font)
    ax.tick_params(
        axis="both",
        which="both",
        direction="out",
        length=THEME["tick_length"] * PT_PER_PX,
        width=PT_PER_PX,
        color=THEME["axis"],
        labelcolor=THEME["text"],
        pad=pad_px * PT_PER_PX,
    )


# Text stays text: TrueType (Type 42) fonts in PDF, which publishers' checks accept where Type 3 is
# refused, and <text> in SVG so a figure can be edited. Unhinted glyphs in PNG: hinting widens text
# by up to 6% at some dpi, and the layout measures text unhinted to fit it to the width asked.
_EXPORT_RC = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none", "text.hinting": "no_hinting"}


def write_figure(figure, handle, fmt: str, *, dpi: float, facecolor) -> None:
    """``figure.savefig`` into ``handle`` as ``fmt``, with fonts embedded as text and no timestamps
    (the same figure gives the same bytes)."""
    meta = {"png": {"Software": None}, "svg": {"Date": None}, "pdf": {"CreationDate": None}}[fmt]
    with rc_context(_EXPORT_RC):
        figure.savefig(handle, format=fmt, dpi=dpi, facecolor=facecolor, metadata=meta)


_TEXT_TO_PATH = TextToPath()


def valid_color(color) -> str:
    return color if isinstance(color, str) and _HEX.match(color) else GREY


def _rgb(color: str):
    n = int(valid_color(color)[1:], 16)
    return (n >> 16) & 255, (n >> 8) & 255, n & 255


def lighten(color: str, amount: float) -> str:
    """Mix with white (js/shared/color.js): 0 keeps the colour, 1 gives white."""
    return "#" + "".join(f"{math.floor(c + (255 - c) * amount + 0.5):02x}" for c in _rgb(color))


def with_alpha(color: str, alpha: float):
    r, g, b = _rgb(color)
    return (r / 255, g / 255, b / 255, alpha)


@lru_cache(maxsize=1)
def _font_family() -> tuple[str, ...]:
    """The browser's font stack, as far as this machine has it, with DejaVu Sans as the glyph
    fallback (it ships with matplotlib)."""
    for family in FONT_FAMILIES:
        try:
            findfont(FontProperties(family=family), fallback_to_default=False)
        except ValueError:
            continue
        return (family, "DejaVu Sans") if family != "DejaVu Sans" else (family,)
    return ("DejaVu Sans",)


def font_for(size_px: float = THEME["font_size"], weight: str = "normal") -> FontProperties:
    return FontProperties(family=list(_font_family()), size=size_px * PT_PER_PX, weight=weight)


def text_width_px(text: str, size_px: float = THEME["font_size"], weight: str = "normal") -> float:
    if not text:
        return 0.0
    width, _, _ = _TEXT_TO_PATH.get_text_width_height_descent(text, font_for(size_px, weight), ismath=False)
    return width / PT_PER_PX


def fit_text(
    text: str, width_px: float, size_px: float = THEME["font_size"], weight: str = "normal", *, cut: str = "middle"
) -> str:
    """``text`` shortened to the most characters that fit ``width_px``: in the middle for names
    (``formatting.shorten_middle``, the distinguishing end kept), at the end for sentences
    (``cut="end"``); as it is when it fits."""
    text = str(text)
    if text_width_px(text, size_px, weight) <= width_px:
        return text

    def shorten(n):
        return shorten_middle(text, n) if cut == "middle" else text[: max(0, n - 1)].rstrip() + "…"

    lo, hi = 1, len(text) - 1  # the longest shortening that fits, by bisection
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_width_px(shorten(mid), size_px, weight) <= width_px:
            lo = mid
        else:
            hi = mid - 1
    return shorten(lo)


def wrap_text(text: str, width_px: float, size_px: float = THEME["font_size"], weight: str = "normal") -> list[str]:
    """``text`` broken at spaces into lines that fit ``width_px`` (a word wider than that is
    shortened in the middle)."""
    lines: list[str] = []
    for word in str(text).split(" "):
        candidate = f"{lines[-1]} {word}" if lines else word
        if lines and text_width_px(candidate, size_px, weight) <= width_px:
            lines[-1] = candidate
        else:
            lines.append(fit_text(word, width_px, size_px, weight))
    return lines or [""]


def literal_text(**kwargs) -> dict:
    """Text properties for user text: no mathtext, no TeX."""
    return {"parse_math": False, "usetex": False, **kwargs}


def plot_rc(name: str = "light") -> dict:
    """matplotlib rcParams that draw a plain plot (a ``host.BandwidthSweep.plot``) in the ``"light"``
    or ``"dark"`` theme of theme.json: background, text, axes, ticks and grid in its colours, and a
    colour cycle of phase colours, so a default-coloured line reads on either background."""
    t = theme(name)
    return {
        "figure.facecolor": t["background"],
        "axes.facecolor": t["background"],
        "savefig.facecolor": t["background"],
        "text.color": t["text"],
        "axes.labelcolor": t["text"],
        "axes.titlecolor": t["text"],
        "axes.edgecolor": t["axis"],
        "xtick.color": t["axis"],
        "ytick.color": t["axis"],
        "xtick.labelcolor": t["text"],
        "ytick.labelcolor": t["text"],
        "grid.color": t["grid"],
        "legend.facecolor": t["background"],
        "legend.edgecolor": t["grid"],
        "axes.prop_cycle": cycler(color=list(PALETTE[:7])),
    }
