"""One self-contained HTML file of live views, for a page that opens from disk with no kernel.

The file holds the views' own front-end bundles, their saved state (binary buffers as base64) and
a small host (``js/standalone/host.js``) that plays the widget manager: it gives each view a model
with the interface anywidget gives it, links traits between models as ``ipywidgets.jslink`` does,
and renders. Nothing is fetched: no CDN, no kernel. Hover, zoom and pan work; the controls that
recompute in Python are hidden, and one note at the top of the page says why (its text and look are
the views' own, ``js/shared/kernel.js``; the views on the page then show none of their own).

Text from users (phase names, titles) is data: all of it travels in one
``<script type="application/json">`` whose ``<`` are escaped, and the views set it as text.

>>> page = Page(title="two views")                                   # doctest: +SKIP
>>> page.add(diagram).add(dataflow)                                  # doctest: +SKIP
>>> page.link((diagram, "hovered_phase"), (dataflow, "hovered_phase"))  # doctest: +SKIP
>>> page.write("views.html")                                         # doctest: +SKIP

``write_html(path, widgets, links=...)`` does the same in one call; every view's ``to_html`` writes
one view (a composite, ``views.composite``, as its description lays it out).
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import anywidget
import numpy as np

from ..atomic import write_atomic
from ..errors import CampaignWidgetError, WrongTypeError, short_repr

STATIC = Path(__file__).parents[1] / "static"
HOST_BUNDLE = STATIC / "host.js"
PAGE_DATA_ID = "cw-page-data"  # js/standalone/host.js reads the page from this element
PAGE_ROOT_ID = "cw-page"
FORMAT_VERSION = 1

# ipywidgets' own traits and the front-end module itself: the page has no widget manager to use
# them, and the module travels once per bundle rather than once per model.
_SKIPPED_STATE = frozenset(
    {
        "_esm",
        "_css",
        "_anywidget_id",
        "_dom_classes",
        "_model_module",
        "_model_module_version",
        "_model_name",
        "_view_count",
        "_view_module",
        "_view_module_version",
        "_view_name",
        "layout",
        "tabbable",
        "tooltip",
    }
)
# State that asks the kernel for something: a page has no kernel to answer.
_KERNEL_REQUESTS = {"png_requests": []}

_PAGE_CSS = """
body { margin: 16px; font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
.cw-page-view { margin: 0 0 18px; }
.cw-page-row { display: flex; flex-flow: row wrap; gap: 12px; align-items: flex-start; }
.cw-page-row > .cw-page-view { flex: 1 1 0; min-width: 360px; }
.cw-page-text { margin: 0 0 12px; font-size: 12px; color: #555; }
.cw-page-error { color: #c0392b; white-space: pre-wrap; }
#cw-page > .cw-page-note { margin: 0 0 12px; }
@media (prefers-color-scheme: dark) {
  body { background: #111; color: #ddd; } .cw-page-text { color: #aaa; }
  #cw-page > .cw-page-note { background: #222; color: #bbb; }
}
"""


class Page:
    """A page of views, in the order added, and the traits linked between them.

    ``add(item)`` takes an anywidget (every view of this package, and any other anywidget whose
    front end is an ES module) or anything with ``_add_to_page(page)`` (the composites);
    ``row(a, b)`` puts views side by side; ``text(line)`` adds a line of plain text; ``link((a, "trait"), (b, "trait"))`` keeps two
    traits equal in the page, both ways. Each method returns the page.
    """

    def __init__(self, title: str = ""):
        if not isinstance(title, str):
            raise WrongTypeError(f"title={short_repr(title)} must be a str, not {type(title).__name__}")
        self.title = title
        self._models: dict[str, dict] = {}
        self._ids: dict[int, str] = {}  # id(widget) -> model id on the page
        self._bundles: dict[str, str] = {}  # bundle name -> source
        self._bundle_names: dict[str, str] = {}  # source -> bundle name
        self._items: list[dict] = []
        self._links: list[list] = []

    def add(self, item) -> Page:
        """Add a view (or a composite with ``_add_to_page``) at the end of the page."""
        adder = getattr(item, "_add_to_page", None)
        if adder is not None and not isinstance(item, anywidget.AnyWidget):
            adder(self)
            return self
        self._items.append({"model": self.model_id(item)})
        return self

    def row(self, *widgets) -> Page:
        """Views side by side (wrapping onto the next line when the window is narrow)."""
        if not widgets:
            raise WrongTypeError("row() needs at least one view")
        self._items.append({"row": [{"model": self.model_id(widget)} for widget in widgets]})
        return self

    def text(self, line: str) -> Page:
        """A line of plain text (set as text in the page, never as HTML)."""
        self._items.append({"text": str(line)})
        return self

    def link(self, source: tuple, target: tuple) -> Page:
        """Keep ``target``'s trait equal to ``source``'s in the page, and the other way round; the
        target takes the source's value when the page opens (``ipywidgets.jslink``)."""
        pair = []
        for end in (source, target):
            if not (isinstance(end, tuple) and len(end) == 2 and isinstance(end[1], str)):
                raise WrongTypeError(f"a link end must be (widget, trait name), got {short_repr(end)}")
            widget, trait = end
            if not (isinstance(widget, anywidget.AnyWidget) and widget.has_trait(trait)):
                raise CampaignWidgetError(
                    f"cannot link {short_repr(trait)} of {type(widget).__name__}: it has no such synced trait"
                )
            pair.append([self.model_id(widget), trait])
        self._links.append(pair)
        return self

    def model_id(self, widget) -> str:
        """The page's id of ``widget``'s model (its state added once, however often it is shown)."""
        if not isinstance(widget, anywidget.AnyWidget):
            raise WrongTypeError(
                f"a page holds anywidget views (CampaignDiagram, DataflowView, LocalView, …), "
                f"not {type(widget).__name__}"
            )
        known = self._ids.get(id(widget))
        if known is not None:
            return known
        model = f"m{len(self._models)}"
        state, buffers = widget_state(widget)
        self._models[model] = {"bundle": self._bundle(widget), "state": state, "buffers": buffers}
        self._ids[id(widget)] = model
        return model

    def _bundle(self, widget) -> str:
        source = str(getattr(widget, "_esm", "") or "")
        if not source.strip():
            raise CampaignWidgetError(f"{type(widget).__name__} has no front-end module (_esm) to put in the page")
        name = self._bundle_names.get(source)
        if name is None:
            name = self._bundle_names[source] = f"b{len(self._bundles)}"
            self._bundles[name] = source
        return name

    def data(self) -> dict:
        """What the page's host reads (js/standalone/host.js)."""
        return {
            "version": FORMAT_VERSION,
            "bundles": self._bundles,
            "models": self._models,
            "items": self._items,
            "links": self._links,
            # one missing-kernel note for the page, rather than one per view
            "kernel_note": bool(self._models),
        }

    def html(self) -> str:
        """The page as one HTML document."""
        if not HOST_BUNDLE.is_file():
            raise RuntimeError(
                f"the static page's host is not built ({HOST_BUNDLE} is missing): install the package with "
                "`pip install .` (or `-e .`), or run `npm install && npm run build` in the source tree"
            )
        host = HOST_BUNDLE.read_text(encoding="utf-8")
        if "</script" in host.lower():  # the host is inlined as code: it must not end its own element
            raise RuntimeError(f"{HOST_BUNDLE} contains '</script' and cannot be inlined; rebuild it")
        return (
            "<!DOCTYPE html>\n"
            '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{html.escape(self.title or 'campaign_widget')}</title>\n"
            f"<style>{_PAGE_CSS}</style>\n"
            "</head>\n<body>\n"
            f'<div id="{PAGE_ROOT_ID}"></div>\n'
            f'<script type="application/json" id="{PAGE_DATA_ID}">{script_json(self.data())}</script>\n'
            f'<script type="module">\n{host}\n</script>\n'
            "</body>\n</html>\n"
        )

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (whole or not at all); returns the path."""
        return write_atomic(path, self.html())


def write_html(
    path: str | os.PathLike[str],
    widgets: Iterable,
    *,
    links: Iterable[tuple[tuple, tuple]] = (),
    title: str = "",
) -> Path:
    """Write ``widgets`` (top to bottom) as one self-contained HTML file; ``links`` are
    ``((widget, trait), (widget, trait))`` pairs kept equal in the page. Returns the path."""
    if isinstance(widgets, anywidget.AnyWidget) or hasattr(widgets, "_add_to_page"):
        widgets = [widgets]
    page = Page(title=title)
    for widget in widgets:
        page.add(widget)
    for source, target in links:
        page.link(source, target)
    return page.write(path)


def widget_state(widget) -> tuple[dict, list[dict]]:
    """``widget``'s synced state as its view receives it, for a page: JSON values, and each binary
    buffer as ``{"path": [...], "data": base64}`` (the host puts a DataView there)."""
    state = {key: value for key, value in widget.get_state().items() if key not in _SKIPPED_STATE}
    page_state = getattr(widget, "_page_state", None)
    if page_state is not None:
        state = page_state(state)
    state.update({key: value for key, value in _KERNEL_REQUESTS.items() if key in state})
    encoded: list[dict] = []
    return _json_safe(_take_buffers(state, [], encoded)), encoded


def _take_buffers(value: Any, path: list, out: list[dict]) -> Any:
    """``value`` without its binary parts (bytes, bytearray, memoryview), each appended to ``out`` as
    ``{"path", "data": base64}``: the buffer paths the comm sends, as ipywidgets separates them."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        out.append({"path": path, "data": base64.b64encode(bytes(value)).decode("ascii")})
        return None
    if isinstance(value, Mapping):
        kept = {}
        for key, item in value.items():
            if isinstance(item, (bytes, bytearray, memoryview)):
                _take_buffers(item, [*path, key], out)
            else:
                kept[key] = _take_buffers(item, [*path, key], out)
        return kept
    if isinstance(value, (list, tuple)):
        return [_take_buffers(item, [*path, i], out) for i, item in enumerate(value)]
    return value


def _json_safe(value: Any) -> Any:
    """JSON values as the view would receive them: non-finite floats as null (JSON has none), numpy
    scalars as numbers, tuples as lists."""
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def script_json(data: Any) -> str:
    """``data`` as JSON safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` (and the line
    separators JavaScript once refused) are written as ``\\u`` escapes, so no text in it can end the
    element or open another."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
