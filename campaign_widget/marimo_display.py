"""The package's composite views in marimo, which renders anywidgets but not ipywidgets.

marimo shows an object through its ``_display_()`` method (highest precedence) or a formatter
registered for its type. ``Explorer._display_`` and ``StackedDiagrams._display_`` call the
functions here; ``campaign_widget._register_display`` registers a formatter that shows a
``Workload`` as its ``Explorer`` when the package is imported in a marimo kernel. Each composite becomes
``mo.hstack``/``mo.vstack`` of ``mo.ui.anywidget`` parts: the diagram, the canvas roofline
(``RooflinePlot``, the bqplot roofline's geometry drawn by an anywidget), the dataflow view. The
links ipywidgets makes in the browser (``jslink``) need ipywidgets' front end, which marimo does
not have, so here they are made in the kernel (``traitlets.link``, observers): a hover or a slider
step goes to the kernel and back, which marimo's widget comms do on every change anyway.

Nothing here is imported until marimo asks for a display: the model and the Jupyter views never
import marimo.
"""

from __future__ import annotations

import traitlets as t

#: marimo's formatter registry, where the package registers Workload (as marimo registers
#: anywidget, altair and the others).
_FORMATTING = "marimo._output.formatting"


def _marimo():
    import marimo

    return marimo


def anywidget_part(widget):
    """``mo.ui.anywidget(widget)``: its traits are the element's reactive ``value``."""
    return _marimo().ui.anywidget(widget)


def explorer_parts(explorer):
    """The marimo parts of an ``Explorer``, made once: its canvas roofline (``explorer.roofline_plot``,
    following ``explorer.diagram``) and, with a dataflow view, the kernel-side links that stand for its
    browser links (hovered phase, parameter values)."""
    plot = explorer.roofline_plot
    if getattr(explorer, "_marimo_links", None) is None:
        explorer._marimo_links = []
        if explorer.dataflow is not None:
            explorer._marimo_links.append(
                t.link((explorer.diagram, "hovered_phase"), (explorer.dataflow, "hovered_phase"))
            )
            if explorer.diagram.params:
                explorer._marimo_links.append(t.link((explorer.diagram, "params"), (explorer.dataflow, "params")))
    return plot


def explorer_display(explorer):
    """An ``Explorer`` in marimo: diagram and roofline side by side, linked, the dataflow view below."""
    mo = _marimo()
    plot = explorer_parts(explorer)
    row = mo.hstack([anywidget_part(explorer.diagram), anywidget_part(plot)], widths=[3, 2], align="start", gap=1)
    if explorer.dataflow is None:
        return row
    return mo.vstack([row, anywidget_part(explorer.dataflow)], gap=1)


def stack_display(stack):
    """``StackedDiagrams`` in marimo: its panels top to bottom, zoom shared through the kernel while
    ``stack.shared_time``, and the measured-over-bound readout under them."""
    mo = _marimo()
    if not getattr(stack, "_marimo_zoom_shared", False):
        stack._marimo_zoom_shared = True
        diagrams = list(stack.diagrams.values())
        sharing = {"busy": False}

        def share(change):
            if not stack.shared_time or sharing["busy"]:
                return
            sharing["busy"] = True
            try:
                for other in diagrams:
                    if other is not change["owner"] and list(other.time_window) != list(change["new"]):
                        other.time_window = list(change["new"])
            finally:
                sharing["busy"] = False

        for diagram in diagrams:
            diagram.observe(share, names="time_window")
    items = [anywidget_part(d) for d in stack.diagrams.values()]
    if stack.gap_readout.value:
        items.append(mo.plain_text(stack.gap_readout.value))
    return mo.vstack(items, gap=0.5)


def formatter_for(make_view):
    """A marimo formatter that shows a value as ``make_view(value)`` (e.g. a workload as its
    ``Explorer``, whose ``_display_`` marimo then calls), as ``(mimetype, data)``."""

    def show(value):
        return _marimo().as_html(make_view(value))._mime_()

    return show


def register(value_type, make_view) -> bool:
    """Show every ``value_type`` in marimo as ``make_view(value)``; False if this marimo has no formatter
    registry where the package expects it (the value then shows as its text)."""
    from importlib import import_module

    try:
        formatting = import_module(_FORMATTING)
        add = formatting.FORMATTERS.add_formatter
    except (ImportError, AttributeError):
        return False
    add(value_type, formatter_for(make_view))
    return True
