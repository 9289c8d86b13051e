"""The composites' one description (``views.composite``): a composite written only as its parts and
links is a Jupyter box with browser links, a marimo display linked in the kernel, and a page, each
as described; a link holds only in the hosts it names; a composite inside another (the Explorer's
roofline) stands for its own parts."""

import importlib

import ipywidgets
import pytest
from workloads import hopper, mlp_einsums, two_phases

import campaign_widget as cw
from campaign_widget.views import page as html_export
from campaign_widget.views.composite import (
    JUPYTER,
    MARIMO,
    PAGE,
    Column,
    Composite,
    Layout,
    Link,
    Part,
    Row,
    Text,
    host_links,
)


class Pair(Composite, ipywidgets.VBox):
    """Two diagrams side by side, hover linked, under a Jupyter-only checkbox and over a line of text."""

    def __init__(self, w):
        self.first, self.second = cw.CampaignDiagram(w), cw.CampaignDiagram(w, tiles=2)
        self.toggle = ipywidgets.Checkbox(description="Jupyter only")
        self.note = ipywidgets.Label("two diagrams")
        super().__init__()

    def _layout(self):
        row = Row((Part(self.first), Part(self.second)), widths=(3, 2))
        hover = Link((self.first, "hovered_phase"), (self.second, "hovered_phase"))
        return Layout(Column((Part(self.toggle, static=None), row, Text(self.note))), (hover,))


@pytest.fixture
def marimo():
    mo = pytest.importorskip("marimo")
    importlib.import_module("marimo._output.formatting").get_formatter(object())
    return mo


def test_a_composite_written_as_its_description_is_a_jupyter_box_with_browser_links():
    pair = Pair(two_phases(machine=hopper()))
    toggle, row, note = pair.children
    assert (toggle, note) == (pair.toggle, pair.note)
    assert isinstance(row, ipywidgets.HBox) and row.children == (pair.first, pair.second)
    assert [part.layout.flex for part in row.children] == ["3 1 0%", "2 1 0%"]
    (link,) = pair._links
    assert isinstance(link, ipywidgets.widgets.widget_link.Link)
    assert (link.source, link.target) == ((pair.first, "hovered_phase"), (pair.second, "hovered_phase"))
    data = pair._repr_mimebundle_()  # no savefig: the live box alone
    assert "application/vnd.jupyter.widget-view+json" in data and "image/png" not in data


def test_a_composite_written_as_its_description_is_a_page(tmp_path):
    pair = Pair(two_phases(machine=hopper()))
    page = html_export.Page().add(pair)
    data = page.data()
    first, second = page.model_id(pair.first), page.model_id(pair.second)
    # the checkbox is not there (static=None), the row is, then the line of text
    assert data["items"] == [{"row": [{"model": first}, {"model": second}]}, {"text": "two diagrams"}]
    assert data["links"] == [[[first, "hovered_phase"], [second, "hovered_phase"]]]
    pair.note.value = ""  # an empty line of text is not written
    assert html_export.Page().add(pair).data()["items"] == [{"row": [{"model": "m0"}, {"model": "m1"}]}]
    assert pair.to_html(tmp_path / "pair.html").is_file()


def test_a_composite_written_as_its_description_displays_in_marimo_linked_in_the_kernel(marimo):
    pair = Pair(two_phases(machine=hopper()))
    html = pair._display_()
    assert html.text.count("<marimo-anywidget") == 2
    assert pair.first._model_id in html.text and pair.second._model_id in html.text
    assert "Jupyter only" not in html.text and "two diagrams" in html.text
    assert "flex: 3" in html.text and "flex: 2" in html.text  # the row's shares
    pair.first.hovered_phase = 1
    assert pair.second.hovered_phase == 1
    pair.second.hovered_phase = 0
    assert pair.first.hovered_phase == 0
    pair._display_()  # shown again: the same links, not a second set
    assert len(pair._marimo_links) == 1


def test_a_link_holds_only_in_the_hosts_it_names(marimo):
    explorer = cw.Explorer(mlp_einsums())
    diagram, dataflow, plot = explorer.diagram, explorer.dataflow, explorer.roofline_plot

    def traits(host):
        return sorted((a[1], type(b[0]).__name__) for a, b in host_links(explorer, host))

    # the parameters are linked where a kernel recomputes them; the canvas roofline's hover only on a
    # page (in a kernel it follows the diagram itself)
    assert traits(JUPYTER) == [("hovered_phase", "DataflowView"), ("params", "DataflowView")]
    assert traits(MARIMO) == traits(JUPYTER)
    assert traits(PAGE) == [("hovered_phase", "DataflowView"), ("hovered_phase", "RooflinePlot")]
    page = html_export.Page().add(explorer)
    links = page.data()["links"]
    assert not any(end[1] == "params" for link in links for end in link)
    for other in (plot, dataflow):
        assert [[page.model_id(diagram), "hovered_phase"], [page.model_id(other), "hovered_phase"]] in links
    explorer._display_()
    explorer.diagram.params = {"B": 4, "D": 32}
    assert explorer.dataflow.params == {"B": 4, "D": 32}


def test_the_bqplot_roofline_stands_as_its_canvas_twin_without_ipywidgets(marimo, tmp_path):
    diagram = cw.CampaignDiagram(two_phases(machine=hopper()))
    roofline = cw.RooflineView(diagram, threshold=0.5)
    html = roofline._display_()
    twin = roofline.twin
    assert twin is roofline.twin and twin.diagram is diagram and twin.threshold == 0.5
    assert html.text.count("<marimo-anywidget") == 1 and twin._model_id in html.text
    roofline.threshold = 0.25
    assert twin.threshold == 0.25
    (model,) = html_export.Page().add(roofline).data()["models"].values()
    assert model["state"]["threshold"] == 0.25
    # an Explorer's row is the diagram and its roofline's twin, with the shares of the Jupyter row
    explorer = cw.Explorer(two_phases(machine=hopper()))
    assert explorer.children[0].children == (explorer.diagram, explorer.roofline)
    assert "flex: 3" in explorer._display_().text
