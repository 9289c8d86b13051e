"""The composite views (``Explorer``, ``StackedDiagrams``, ``SweepView``, the bqplot ``RooflineView``):
ipywidgets boxes whose parts and links are described once, by ``Composite._layout()``, and made
from that description for each front end.

A description (``Layout``) is a column of parts, rows of parts and lines of plain text, and the
traits kept equal between parts (``Link``). A part (``Part``) names what a Jupyter box shows
(``live``: any ipywidget) and the anywidget that stands for it where only anywidgets render
(``static``: marimo, a ``to_html`` page), or nothing there. anywidget has no child views of its
own (composition is left to the host's layouts), so each host lays the parts out itself:

- Jupyter: the composite is the column's ``VBox``, a row an ``HBox``; links are ``ipywidgets.jslink``
  (kept in the browser);
- marimo (``marimo_view``): ``mo.vstack``/``mo.hstack`` of ``mo.ui.anywidget`` parts; links are
  ``traitlets.link`` (marimo has no ipywidgets front end to run a jslink);
- a page (``views.page``): ``Page.add``/``row``/``text``; links are ``Page.link`` (kept by the page's host).

A link is made in the hosts it names (``hosts``) when both its ends are shown there. A composite
inside a composite (the ``RooflineView`` of an ``Explorer``) is a part like another: Jupyter shows
its box, the other hosts its own description's parts, with its links.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ipywidgets
import traitlets

from ..errors import WrongTypeError
from .base import static_png, with_static_png

JUPYTER, MARIMO, PAGE = "jupyter", "marimo", "page"
EVERYWHERE = frozenset({JUPYTER, MARIMO, PAGE})
_SAME = object()  # Part.static: the live widget itself (an anywidget shows alike everywhere)


@dataclass(frozen=True)
class Part:
    """One part. ``live``: what a Jupyter box shows (None: nothing). ``static``: what stands for it where
    only anywidgets render: the same widget (the default), a function that gives it (called on use, so
    a twin is made only when such a host asks), or None (not shown there)."""

    live: Any
    static: Any = _SAME

    def widget(self, host: str):
        if host == JUPYTER:
            return self.live
        if self.static is _SAME:
            return self.live
        return self.static() if callable(self.static) else self.static


@dataclass(frozen=True)
class Text:
    """A line of plain text, an ``ipywidgets.Label``: Jupyter shows the label, the other hosts its value
    (set as text, never as markup) when it is not empty."""

    label: Any


@dataclass(frozen=True)
class Row:
    """Parts side by side: ``widths`` their shares of the row (None: equal); ``wrap``: a part that does
    not fit goes onto the next line (in Jupyter; marimo and a page always wrap a narrow row)."""

    parts: tuple
    widths: tuple[float, ...] | None = None
    wrap: bool = True


@dataclass(frozen=True)
class Column:
    """Parts top to bottom; ``gap``: the space between them in marimo (rem)."""

    parts: tuple
    gap: float = 1


@dataclass(frozen=True)
class Link:
    """Keep ``target``'s trait equal to ``source``'s and back, in each host of ``hosts`` where both are
    shown; the target takes the source's value first. An end is ``(widget or Part, trait name)``: a
    Part's end is the widget that host shows for it."""

    source: tuple[Any, str]
    target: tuple[Any, str]
    hosts: frozenset = EVERYWHERE

    def ends(self, host: str) -> tuple[tuple[Any, str], tuple[Any, str]]:
        return tuple(
            (widget.widget(host) if isinstance(widget, Part) else widget, trait)
            for widget, trait in (self.source, self.target)
        )


@dataclass(frozen=True)
class ShownRow:
    """A row as a host with anywidgets only shows it: its anywidgets and their shares (None: equal)."""

    widgets: list
    widths: tuple[float, ...] | None = None


@dataclass(frozen=True)
class Layout:
    """A composite's parts (a column) and the links between them."""

    root: Column
    links: tuple[Link, ...] = field(default=())


class Composite:
    """The base of the composite views, before the ipywidgets box they are (``class X(Composite,
    ipywidgets.VBox)``). A subclass makes its parts, then calls ``super().__init__(**box_traits)``, and
    describes itself in ``_layout()``; a change that changes its links calls ``_relink()``. From the
    description come the box's children and browser links, ``_display_`` (marimo), ``to_html`` and
    ``_add_to_page`` (a page), and the display's PNG (of ``savefig``, when the composite has one)."""

    def __init__(self, **box_traits: Any) -> None:
        super().__init__(children=jupyter_children(self._layout().root), **box_traits)
        self._links: list = []  # the browser links (ipywidgets.jslink) of the description, in order
        self._marimo_links: list | None = None  # the kernel's links, made when marimo first shows it
        self._relink()

    def _layout(self) -> Layout:
        raise NotImplementedError

    def _relink(self) -> None:
        """Re-make the links from the description (after a change that changes them)."""
        for link in self._links:
            link.unlink()
        self._links = [ipywidgets.jslink(*ends) for ends in host_links(self, JUPYTER)]
        if self._marimo_links is not None:
            self._link_in_kernel()

    def _link_in_kernel(self) -> None:
        for link in self._marimo_links or ():
            link.unlink()
        self._marimo_links = [traitlets.link(*ends) for ends in host_links(self, MARIMO)]

    # -- without ipywidgets' front end: marimo, a page ------------------------------------------------

    def _display_(self):
        """marimo's display (it renders anywidgets, not ipywidgets): the parts that stand for this
        composite's, linked in the kernel."""
        if self._marimo_links is None:
            self._link_in_kernel()
        return marimo_view(self._layout())

    def to_html(self, path: str | os.PathLike[str], *, title: str = "") -> Path:
        """Write this view as one self-contained HTML file (``campaign_widget.views.page``): the
        anywidgets that stand for its parts, laid out and linked as described, hover, zoom and pan
        working with no kernel; the controls that ask Python for a new figure are not there or
        hidden. Written whole or not at all; returns the path."""
        from .page import write_html

        return write_html(path, [self], title=title)

    def _add_to_page(self, page) -> None:
        for item in static_items(self._layout().root, PAGE):
            if isinstance(item, Text):
                page.text(item.label.value)
            elif isinstance(item, ShownRow):
                page.row(*item.widgets)
            else:
                page.add(item)
        for source, target in host_links(self, PAGE):
            page.link(source, target)

    # -- the display's PNG ----------------------------------------------------------------------------

    def static_png(self) -> bytes | None:
        """A PNG of the figure with no browser (the view's ``savefig``), or None if it has none."""
        return static_png(self)

    def _repr_mimebundle_(self, **kwargs: Any):
        # the live box and a PNG of the figure, for renderings with no widget front end (as every view)
        return with_static_png(self, super()._repr_mimebundle_(**kwargs))


# -- one description, three hosts ---------------------------------------------------------------------


def marimo_view(layout: Layout):
    """``layout`` in marimo: its parts as ``mo.ui.anywidget`` elements, a row as ``mo.hstack``, the
    column as ``mo.vstack`` (one item: the item itself)."""
    import marimo as mo

    from .marimo import anywidget_part

    items = []
    for item in static_items(layout.root, MARIMO):
        if isinstance(item, Text):
            items.append(mo.plain_text(item.label.value))
        elif isinstance(item, ShownRow):
            widths = list(item.widths) if item.widths else None
            items.append(mo.hstack([anywidget_part(w) for w in item.widgets], widths=widths, align="start", gap=1))
        else:
            items.append(anywidget_part(item))
    return items[0] if len(items) == 1 else mo.vstack(items, gap=layout.root.gap)


def jupyter_children(column: Column) -> list:
    """The widgets of a Jupyter box for ``column``: each part's live widget, a row as an ``HBox``."""
    children = []
    for node in column.parts:
        if isinstance(node, Row):
            parts = [node_widget(part) for part in node.parts]
            for part, width in zip(parts, node.widths or ()):
                part.layout.flex = f"{width:g} 1 0%"
            children.append(
                ipywidgets.HBox(
                    parts,
                    layout=ipywidgets.Layout(
                        width="100%", align_items="flex-start", flex_flow="row wrap" if node.wrap else "row"
                    ),
                )
            )
        elif isinstance(node, Column):
            children.append(ipywidgets.VBox(jupyter_children(node)))
        else:
            widget = node_widget(node)
            if widget is not None:
                children.append(widget)
    return children


def node_widget(node):
    return node.label if isinstance(node, Text) else node.live


def static_items(column: Column, host: str) -> Iterator:
    """What a host with anywidgets only shows for ``column``, top to bottom: anywidgets, a ``ShownRow``
    for a row, and ``Text`` lines that are not empty; a composite part gives its own description's items."""
    for node in column.parts:
        if isinstance(node, Row):
            row = [[widget for widget in _flat(part, host)] for part in node.parts]
            widgets = [widget for widgets in row for widget in widgets]
            # the shares hold when each part stands for one anywidget
            widths = node.widths if node.widths and all(len(ws) == 1 for ws in row) else None
            if widgets:
                yield ShownRow(widgets, widths)
        elif isinstance(node, Column):
            yield from static_items(node, host)
        elif isinstance(node, Text):
            if node.label.value:
                yield node
        else:
            widget = node.widget(host)
            if isinstance(widget, Composite):
                yield from static_items(widget._layout().root, host)
            elif widget is not None:
                yield widget


def _flat(part: Part, host: str) -> list:
    """The anywidgets a part of a row stands for (a composite part: its own, in order)."""
    widget = part.widget(host)
    if isinstance(widget, Composite):
        return [w for item in static_items(widget._layout().root, host) for w in _row_widgets(item)]
    return [] if widget is None else [widget]


def _row_widgets(item) -> list:
    if isinstance(item, Text):
        raise WrongTypeError("a composite with a line of text cannot sit in a row")
    return item.widgets if isinstance(item, ShownRow) else [item]


def shown(layout: Layout, host: str) -> list:
    """Every widget ``host`` shows for ``layout`` (composite parts included, not their box)."""
    if host == JUPYTER:
        return [w for w in _live_widgets(layout.root) if w is not None]
    out = []
    for item in static_items(layout.root, host):
        if isinstance(item, ShownRow):
            out.extend(item.widgets)
        elif not isinstance(item, Text):
            out.append(item)
    return out


def _live_widgets(column: Column) -> Iterator:
    for node in column.parts:
        if isinstance(node, (Row, Column)):
            yield from _live_widgets(node if isinstance(node, Column) else Column(node.parts))
        else:
            yield node_widget(node)


def host_links(composite: Composite, host: str) -> list[tuple[tuple, tuple]]:
    """The ``(source, target)`` ends of the links ``host`` makes for ``composite``: its description's and,
    outside Jupyter (where a composite part keeps its own), those of its composite parts; each made only
    when both ends are shown."""
    layout = composite._layout()
    visible = {id(w) for w in shown(layout, host)}
    links = list(layout.links)
    if host != JUPYTER:  # the parts' links first, as a part makes its own before it is placed
        links = [link for part in _composite_parts(layout.root, host) for link in part._layout().links] + links
    out = []
    for link in links:
        if host not in link.hosts:
            continue
        ends = link.ends(host)
        if all(widget is not None and id(widget) in visible for widget, _ in ends):
            out.append(ends)
    return out


def _composite_parts(column: Column, host: str) -> Iterator[Composite]:
    for node in column.parts:
        if isinstance(node, Column):
            yield from _composite_parts(node, host)
        elif isinstance(node, Row):
            yield from _composite_parts(Column(node.parts), host)
        elif isinstance(node, Part):
            widget = node.widget(host)
            if isinstance(widget, Composite):
                yield widget
                yield from _composite_parts(widget._layout().root, host)
