"""How the views display in marimo, without a browser: ``_display_`` of the Explorer and of
StackedDiagrams gives marimo anywidget elements of the right widgets, linked in the kernel, and the
Workload's formatter is registered when the package is imported in a marimo kernel."""

import importlib
import subprocess
import sys

import pytest
from workloads import mlp_einsums

import campaign_widget as cw

mo = pytest.importorskip("marimo")
formatting = importlib.import_module("marimo._output.formatting")


@pytest.fixture(autouse=True)
def marimo_formatters():
    # Outside a kernel marimo registers its formatters on first use, and only while its registry is
    # empty: use it first, so registering the Workload's does not keep marimo's own out.
    formatting.get_formatter(object())


def workload():
    m = cw.Machine(peak_compute=100.0, peak_bandwidth=10.0)
    return cw.Workload([cw.Phase("A", ops=300, bytes=200), cw.Phase("B", ops=200, bytes=40, after=["A"])], machine=m)


def shows(html, widget) -> bool:
    return widget._model_id in html.text


def test_explorer_displays_as_diagram_and_canvas_roofline():
    explorer = cw.Explorer(workload())
    html = explorer._display_()
    assert html.text.count("<marimo-anywidget") == 2
    assert shows(html, explorer.diagram) and shows(html, explorer.roofline_plot)
    assert not shows(html, explorer.roofline)  # the bqplot roofline needs ipywidgets' front end
    assert explorer.roofline_plot.diagram is explorer.diagram
    explorer.roofline.threshold = 0.5  # one threshold for both rooflines
    assert explorer.roofline_plot.threshold == 0.5
    again = explorer._display_()  # one roofline plot per explorer, however often it is shown
    assert shows(again, explorer.roofline_plot) and again.text.count("<marimo-anywidget") == 2


def test_explorer_links_the_dataflow_view_in_the_kernel():
    explorer = cw.Explorer(mlp_einsums())
    html = explorer._display_()
    assert html.text.count("<marimo-anywidget") == 3 and shows(html, explorer.dataflow)
    explorer.diagram.hovered_phase = 1
    assert explorer.dataflow.hovered_phase == 1 and explorer.roofline_plot.hovered_phase == 1
    explorer.dataflow.hovered_phase = 0
    assert explorer.diagram.hovered_phase == 0
    explorer.diagram.params = {"B": 8, "D": 32}
    assert explorer.dataflow.params == {"B": 8, "D": 32}


def test_stacked_diagrams_display_every_panel_and_share_the_zoom():
    w = workload()
    stack = cw.StackedDiagrams({"one": w, "tiled": (w, dict(tiles=2, pipeline=True))})
    html = stack._display_()
    first, second = stack.diagrams.values()
    assert html.text.count("<marimo-anywidget") == 2 and shows(html, first) and shows(html, second)
    first.time_window = [1.0, 5.0]
    assert list(second.time_window) == [1.0, 5.0]
    stack.shared_time = False
    first.time_window = [2.0, 3.0]
    assert list(second.time_window) == []


def test_workload_formatter_shows_its_explorer():
    from campaign_widget.views.marimo import formatter_for

    mime, data = formatter_for(cw.Explorer)(workload())
    assert mime == "text/html" and data.count("<marimo-anywidget") == 2


def test_import_in_a_marimo_kernel_registers_the_workload(monkeypatch):
    formatters = formatting.FORMATTERS.formatters
    monkeypatch.delitem(formatters, cw.Workload, raising=False)  # put back as it was after the test
    monkeypatch.setattr(mo, "running_in_notebook", lambda: False)
    cw._register_display()
    assert cw.Workload not in formatters  # a script that imports marimo: no kernel, nothing registered
    monkeypatch.setattr(mo, "running_in_notebook", lambda: True)
    cw._register_display()
    w = workload()
    mime, data = formatting.get_formatter(w)(w)
    assert mime == "text/html" and data.count("<marimo-anywidget") == 2  # its Explorer: diagram and roofline


def test_importing_the_package_imports_neither_marimo_nor_the_widgets():
    code = "import campaign_widget, sys; print('marimo' in sys.modules, 'anywidget' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
