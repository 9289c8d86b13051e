"""A static figure shown in a notebook that follows the front end's theme, as the live views do
(docs/views/index.md#static-figures-in-a-notebook).

A PNG in a cell's output is one picture: drawn light, it is a white slab in a dark JupyterLab. A
``ThemedFigure`` holds the figure drawn in both themes of theme.json and its view
(``js/figure/widget.js``) shows the one of the theme it reads from the page (js/shared/page-theme.js,
the live views' own detection), swapping it when the user switches theme. With no widget front end
(GitHub, nbconvert) the display's ``image/png`` is the light one.

>>> from campaign_widget import Phase, Workload
>>> from campaign_widget.static_figure import panel_for
>>> w = Workload([Phase("A", duration=3, compute_util=.7, memory_util=.25)])
>>> figure = ThemedFigure.of_panels([panel_for(w, w.schedule())], width=4)
>>> figure.light_png[:4] == figure.dark_png[:4] == b"\\x89PNG" and figure.light_png != figure.dark_png
True
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import traitlets as t
from matplotlib import rc_context
from matplotlib.figure import Figure

from ..atomic import atomic_write
from ..static_figure.panels import RooflinePanel
from ..static_figure.render import render_figure
from ..static_figure.style import THEMES, plot_rc, write_figure
from .base import DISPLAY_DPI, ViewWidget


def _png(figure: Figure, dpi: float, facecolor) -> bytes:
    buffer = io.BytesIO()
    write_figure(figure, buffer, "png", dpi=dpi, facecolor=facecolor)
    return buffer.getvalue()


class ThemedFigure(ViewWidget, bundle="figure.js"):
    """A static figure in both themes (``light_png``, ``dark_png``); the view shows the page's.

    ``ThemedFigure(draw)`` calls ``draw(theme)`` for ``"light"`` and ``"dark"``, each returning PNG
    bytes; ``of_panels`` draws the package's static figure (``render_figure``), ``of_plot`` a plain
    matplotlib plot (``plot(ax)``, e.g. ``sweep.plot``) under theme.json's colours (``plot_rc``).
    """

    light_png = t.Bytes(b"").tag(sync=True)
    dark_png = t.Bytes(b"").tag(sync=True)
    alt = t.Unicode("").tag(sync=True)
    view_writable = frozenset()

    def __init__(self, draw: Callable[[str], bytes], *, alt: str = "", theme: str = "auto", **kwargs: Any) -> None:
        self.check_arguments(kwargs)
        pictures = {name: bytes(draw(name)) for name in THEMES}
        super().__init__(light_png=pictures["light"], dark_png=pictures["dark"], alt=str(alt), theme=theme)

    @classmethod
    def of_panels(
        cls, panels: Sequence, *, roofline: RooflinePanel | None = None, width: float = 8.0, alt: str = ""
    ) -> ThemedFigure:
        """The static figure of ``panels`` (``hierarchy_panels``, ``panel_for``) at one pixel per CSS px."""

        def draw(name: str) -> bytes:
            rendered = render_figure(panels, roofline=roofline, width=width, dpi=DISPLAY_DPI, theme=name)
            return _png(rendered.figure, rendered.dpi, rendered.background)

        return cls(draw, alt=alt)

    @classmethod
    def of_plot(
        cls, plot: Callable[[Any], Any], *, size: tuple[float, float] = (6.0, 3.2), alt: str = ""
    ) -> ThemedFigure:
        """A matplotlib plot drawn by ``plot(ax)`` on a fresh Axes, once per theme."""

        def draw(name: str) -> bytes:
            with rc_context(plot_rc(name)):
                figure = Figure(figsize=size, layout="constrained")
                plot(figure.add_subplot())
                return _png(figure, DISPLAY_DPI, figure.get_facecolor())

        return cls(draw, alt=alt)

    def savefig(self, path, dpi: float | None = None) -> Path:
        """Write the light picture as a PNG (whole or not at all); ``dpi`` is the picture's own."""
        path = Path(path)
        with atomic_write(path, "wb") as handle:
            handle.write(self.light_png)
        return path
