"""The package's composite views in marimo, which renders anywidgets but not ipywidgets.

marimo shows an object through its ``_display_()`` method (highest precedence) or a formatter
registered for its type. ``Explorer._display_`` and ``StackedDiagrams._display_`` call the
functions here; ``campaign_widget._register_display`` registers a formatter that shows a
``Workload`` as its ``Explorer`` when the package is imported in a marimo kernel. Each composite becomes
``mo.hstack``/``mo.vstack`` of ``mo.ui.anywidget`` parts: the diagram, the canvas roofline
(``RooflinePlot``, the bqplot roofline's geometry drawn by an anywidget), the dataflow view, a
sweep's canvas heatmap (``SweepHeatmap``) over the clicked configuration's diagram. The
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


def show_configuration(diagram, workload, title: str = "") -> None:
    """Re-point ``diagram`` at ``workload`` drawn as a configuration of a sweep is: its peaks and schedule
    settings (the sweep's axes) become the diagram's controls. marimo shows the element it was given,
    so the diagram below a sweep's heatmap stays one widget that changes what it draws."""
    first = workload.schedule()  # the configuration's own settings; fails before the diagram changes
    machine = workload.machine
    diagram.set_workload(workload)
    with diagram.hold_trait_notifications():
        for name, peak in (("peak_compute", machine.peak_compute), ("peak_bandwidth", machine.peak_bandwidth)):
            lo, hi = getattr(diagram, f"{name}_range")
            if not lo <= peak <= hi:  # the slider's span kept, around the new peak
                ratio = (hi / lo) ** 0.5
                setattr(diagram, f"{name}_range", [peak / ratio, peak * ratio])
            setattr(diagram, name, peak)
        diagram.tiles_max = max(diagram.tiles_max, int(first.tiles))
        diagram.tiles, diagram.pipeline, diagram.policy = int(first.tiles), bool(first.pipeline), first.policy
        diagram.depth = int(first.depth)
        diagram.stepping = getattr(first, "stepping", diagram.stepping)
        diagram.title = title


def _configuration_title(result, i: int) -> str:
    from ..figures.sweep_grid import column_unit, value_label

    config = result.configuration(i)
    described = ", ".join(f"{k}={value_label(v, column_unit(result, k))}" for k, v in config.items())
    return f"configuration #{i}: {described}"


def sweep_parts(view):
    """The marimo parts of a ``SweepView``, made once: its canvas heatmap (``view.sweep_plot``, a
    ``SweepHeatmap`` whose selects stand for the view's dropdowns, linked both ways in the kernel) and
    the diagram below it (``view.sweep_diagram``), which shows the heatmap's ``selected`` configuration
    (the view's selection, else the best computed one) and follows every click."""
    plot = getattr(view, "sweep_plot", None)
    if plot is not None:
        return plot, view.sweep_diagram
    from .diagram import CampaignDiagram
    from .sweep_canvas import SweepHeatmap

    result = view.result
    plot = SweepHeatmap(
        result,
        x=view.x,
        y=view.y,
        color=view.color_dropdown.value,
        positions={name: dd.value for name, dd in view.dropdowns.items()},
        height=int(str(view.figure.layout.height or "360px").removesuffix("px")),
    )
    start = view.selected_index if view.selected_index is not None else (result.best() if result.completed else None)
    shown = 0 if start is None else start  # a configuration's workload is known before it is computed
    diagram = CampaignDiagram(
        result.workload_for(shown), height=view._diagram_height, title=_configuration_title(result, shown)
    )
    plot.selected = start
    view.sweep_plot, view.sweep_diagram = plot, diagram
    syncing = {"busy": False}

    def guarded(apply):
        def handler(change):
            if syncing["busy"]:
                return
            syncing["busy"] = True
            try:
                apply(change)
            finally:
                syncing["busy"] = False

        return handler

    @guarded
    def positions_to_dropdowns(change):
        for name, k in change["new"].items():
            if name in view.dropdowns and view.dropdowns[name].value != k:
                view.dropdowns[name].value = k

    @guarded
    def dropdowns_to_positions(_change):
        plot.positions = {name: dd.value for name, dd in view.dropdowns.items()}

    def open_selected(change):
        i = change["new"]
        if i is None:
            return
        show_configuration(diagram, result.workload_for(i), _configuration_title(result, i))
        view.selected_index = i

    plot.observe(positions_to_dropdowns, names="positions")
    for dd in view.dropdowns.values():
        dd.observe(dropdowns_to_positions, names="value")
    plot.observe(open_selected, names="selected")
    view._marimo_links = [t.link((view.color_dropdown, "value"), (plot, "color"))]
    return plot, diagram


def sweep_display(view):
    """A ``SweepView`` in marimo: the canvas heatmap (its own selects for the colour and the other axes)
    and, below it, the clicked configuration's campaign diagram."""
    mo = _marimo()
    plot, diagram = sweep_parts(view)
    return mo.vstack([anywidget_part(plot), anywidget_part(diagram)], gap=1)


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
