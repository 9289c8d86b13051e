"""Look of the static figure: the constants of js/theme.js and js/layout.js, colours and fonts."""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from importlib import resources

import numpy as np
from matplotlib.font_manager import FontProperties, findfont
from matplotlib.path import Path as MplPath
from matplotlib.textpath import TextToPath

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
PX_PER_INCH = 96.0  # CSS px
PT_PER_PX = 72.0 / PX_PER_INCH

# campaign_widget/theme.json, the file the browser view bundles too (js/theme.js, js/layout.js); CSS px.
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
    return {_snake(k): _theme_value(v) for k, v in merged.items()}


THEME = theme("light")
# The layout's shared constants; panel_gap and column_gap are this module's page layout.
LAYOUT = {**{_snake(k): v for k, v in THEME_DATA["layout"].items()}, "panel_gap": 14, "column_gap": 28}
FONT_FAMILIES = ("Helvetica Neue", "Helvetica", "Arial", "Liberation Sans", "Arimo", "DejaVu Sans")
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
_GREY = "#808080"
_LINE_CODES = np.array([MplPath.MOVETO, MplPath.LINETO], dtype=np.uint8)
_RECT_CODES = np.array(
    [MplPath.MOVETO, MplPath.LINETO, MplPath.LINETO, MplPath.LINETO, MplPath.CLOSEPOLY], dtype=np.uint8
)
_PEAK_LABEL_CLEARANCE_PX = 14
# The bqplot roofline view's colours (campaign_widget/roofline_view.py).
ROOFLINE = {
    "roof": "#333333",
    "ceiling": "#999999",
    "ceiling_label": "#777777",
    "point_edge": "#222222",
    "aggregate": "#111111",
}
_TEXT_TO_PATH = TextToPath()


def _valid_color(color) -> str:
    return color if isinstance(color, str) and _HEX.match(color) else _GREY


def _rgb(color: str):
    n = int(_valid_color(color)[1:], 16)
    return (n >> 16) & 255, (n >> 8) & 255, n & 255


def lighten(color: str, amount: float) -> str:
    """Mix with white (js/color.js): 0 keeps the colour, 1 gives white."""
    return "#" + "".join(f"{math.floor(c + (255 - c) * amount + 0.5):02x}" for c in _rgb(color))


def _with_alpha(color: str, alpha: float):
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


def _font(size_px: float = THEME["font_size"], weight: str = "normal") -> FontProperties:
    return FontProperties(family=list(_font_family()), size=size_px * PT_PER_PX, weight=weight)


def _text_width_px(text: str, size_px: float = THEME["font_size"], weight: str = "normal") -> float:
    if not text:
        return 0.0
    width, _, _ = _TEXT_TO_PATH.get_text_width_height_descent(text, _font(size_px, weight), ismath=False)
    return width / PT_PER_PX


def _literal(**kwargs) -> dict:
    """Text properties for user text: no mathtext, no TeX."""
    return {"parse_math": False, "usetex": False, **kwargs}
