"""The package in marimo, which renders anywidgets but not ipywidgets.

marimo shows an object through its ``_display_()`` method (highest precedence) or a formatter
registered for its type. The composites' ``_display_`` (``composite.Composite``) lays out
``mo.ui.anywidget`` parts (``anywidget_part``) as their description says: the diagram, the canvas
roofline (``RooflinePlot``, the bqplot roofline's geometry drawn by an anywidget), the dataflow view,
a sweep's canvas heatmap (``SweepHeatmap``) over the clicked configuration's diagram, linked in the
kernel (``traitlets.link``): ipywidgets' browser links need its front end, which marimo does not
have, and a hover or a slider step goes to the kernel and back, which marimo's widget comms do on
every change anyway. ``campaign_widget._register_display`` registers a formatter (``register``) that
shows a ``Workload`` as its ``Explorer`` when the package is imported in a marimo kernel.

Nothing here is imported until marimo asks for a display: the model and the Jupyter views never
import marimo.
"""

from __future__ import annotations

#: marimo's formatter registry, where the package registers Workload (as marimo registers
#: anywidget, altair and the others).
_FORMATTING = "marimo._output.formatting"


def _marimo():
    import marimo

    return marimo


def anywidget_part(widget):
    """``mo.ui.anywidget(widget)``: its traits are the element's reactive ``value``."""
    return _marimo().ui.anywidget(widget)


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
