"""What stands for a ``SweepView`` where only anywidgets render (marimo, a ``to_html`` page): its
canvas heatmap (``SweepHeatmap``, the same grid, whose selects stand for the view's dropdowns) over
the diagram of the configuration it shows, kept in step with the view in the kernel."""

from __future__ import annotations

import traitlets as t


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


def sweep_twins(view):
    """The anywidgets that stand for a ``SweepView``, made once: its canvas heatmap (``view.sweep_plot``, a
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
    start = (
        view.selected_index
        if view.selected_index is not None
        else (result.best(getattr(view, "best", "makespan")) if result.completed else None)
    )
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
    view._twin_links = [t.link((view.color_dropdown, "value"), (plot, "color"))]
    return plot, diagram
