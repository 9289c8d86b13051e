"""The views without a kernel: ``to_html`` pages (one self-contained file) and the PNG each display
carries (``_repr_mimebundle_``). What the page does in a browser is tests/browser/test_static_html.py."""

from __future__ import annotations

import base64
import io
import json
import re
from html.parser import HTMLParser

import numpy as np
import pytest
from PIL import Image
from workloads import chain, figure_2b, near_color

import campaign_widget as cw
from campaign_widget.errors import CampaignWidgetError
from campaign_widget.views import page as html_export
from campaign_widget.views.base import ViewWidget
from campaign_widget.views.local import LocalView

HOSTILE = "</script><b>bold</b>"


class _Tags(HTMLParser):
    """Every start tag with its attributes, and the text of each <script>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.scripts: list[tuple[dict, str]] = []
        self._script = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script = (dict(attrs), [])

    def handle_data(self, data):
        if self._script is not None:
            self._script[1].append(data)

    def handle_endtag(self, tag):
        if tag == "script" and self._script is not None:
            self.scripts.append((self._script[0], "".join(self._script[1])))
            self._script = None


def parse(path) -> _Tags:
    tags = _Tags()
    tags.feed(path.read_text(encoding="utf-8"))
    return tags


def page_data(path) -> dict:
    for attrs, text in parse(path).scripts:
        if attrs.get("type") == "application/json" and attrs.get("id") == html_export.PAGE_DATA_ID:
            return json.loads(text)
    raise AssertionError(f"{path} has no page data")


def png_of(bundle) -> Image.Image:
    data, _metadata = bundle
    raw = base64.b64decode(data["image/png"])
    return Image.open(io.BytesIO(raw)).convert("RGB")


@pytest.fixture
def diagram():
    return cw.CampaignDiagram(figure_2b(), tiles=2)


# -- the page --------------------------------------------------------------------------------------


def test_a_diagram_page_holds_its_bundle_state_and_buffers(tmp_path, diagram):
    path = diagram.to_html(tmp_path / "fig.html")
    data = page_data(path)
    (model,) = data["models"].values()
    assert data["items"] == [{"model": "m0"}]
    assert data["bundles"][model["bundle"]] == diagram._bundle_path.read_text(encoding="utf-8")
    assert model["state"]["phase_names"] == list(diagram.phase_names)
    assert "_esm" not in model["state"]  # once per bundle, not per model
    # every array of the scene travels as a buffer and decodes to what the kernel holds
    buffers = {tuple(b["path"]): base64.b64decode(b["data"]) for b in model["buffers"]}
    edges = np.frombuffer(buffers[("scene", "edges", "buffer")], dtype="<f8")
    np.testing.assert_array_equal(edges, diagram.scene["edges"])
    assert model["state"]["scene"]["edges"]["dtype"] == "float64"


def test_the_page_fetches_nothing(tmp_path, diagram):
    path = diagram.to_html(tmp_path / "fig.html")
    tags = parse(path)
    linked = [(tag, attrs) for tag, attrs in tags.tags if {"src", "href"} & set(attrs)]
    assert linked == [], f"the page links out: {linked}"
    assert not re.search(r"\b(?:src|href)\s*=", path.read_text(encoding="utf-8").split("<script", 1)[0])
    types = [attrs.get("type") for attrs, _ in tags.scripts]
    assert types == ["application/json", "module"]


def test_names_from_users_stay_text(tmp_path):
    workload = chain((HOSTILE, 1.0, 0.5, 0.5), ("b&<i>", 2.0, 0.9, 0.3))
    diagram = cw.CampaignDiagram(workload, title=HOSTILE)
    path = diagram.to_html(tmp_path / "fig.html", title=HOSTILE)
    text = path.read_text(encoding="utf-8")
    tags = parse(path)
    assert [tag for tag, _ in tags.tags if tag in ("b", "i")] == []
    assert text.count("</script>") == 2  # the page's own two scripts, no more
    assert "<title>&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;</title>" in text
    state = page_data(path)["models"]["m0"]["state"]
    assert state["phase_names"] == [HOSTILE, "b&<i>"]
    assert state["title"] == HOSTILE


def test_script_json_escapes_what_could_end_the_element():
    text = html_export.script_json({"a": "</script><!-- & \u2028"})
    assert not set("<>&") & set(text)
    assert json.loads(text) == {"a": "</script><!-- & \u2028"}


def test_non_finite_numbers_become_null():
    assert html_export._json_safe({"a": [float("nan"), np.float32(2.5), (1, float("inf"))]}) == {
        "a": [None, 2.5, [1, None]]
    }


def test_pages_of_several_views_share_bundles_and_link_traits(tmp_path, diagram):
    other = cw.CampaignDiagram(figure_2b(), tiles=4)
    dataflow = cw.DataflowView(figure_2b())
    path = html_export.write_html(
        tmp_path / "page.html",
        [diagram, other, dataflow],
        links=[((diagram, "hovered_phase"), (dataflow, "hovered_phase"))],
        title="three",
    )
    data = page_data(path)
    assert [item["model"] for item in data["items"]] == ["m0", "m1", "m2"]
    assert len(data["bundles"]) == 2  # one per front end, not per view
    assert data["links"] == [[["m0", "hovered_phase"], ["m2", "hovered_phase"]]]


def test_a_view_shown_twice_is_one_model(tmp_path, diagram):
    page = html_export.Page().add(diagram).add(diagram)
    assert page.data()["items"] == [{"model": "m0"}, {"model": "m0"}]
    assert len(page.data()["models"]) == 1


def test_links_and_items_are_checked():
    diagram = cw.CampaignDiagram(figure_2b())
    page = html_export.Page()
    with pytest.raises(CampaignWidgetError, match="no_such_trait"):
        page.link((diagram, "no_such_trait"), (diagram, "time_window"))
    with pytest.raises(TypeError, match="link end"):
        page.link(diagram, (diagram, "time_window"))
    with pytest.raises(TypeError, match="anywidget views"):
        page.add(object())


def test_kernel_requests_are_not_saved(tmp_path, diagram):
    diagram.set_trait("png_requests", [{"id": "x", "scale": 2}])
    state = page_data(diagram.to_html(tmp_path / "fig.html"))["models"]["m0"]["state"]
    assert state["png_requests"] == []


def test_a_stack_page_is_its_panels_with_their_zoom_linked(tmp_path):
    stack = cw.StackedDiagrams({"one": figure_2b(), "two": (figure_2b(), {"tiles": 4})})
    data = page_data(stack.to_html(tmp_path / "stack.html"))
    assert [item["model"] for item in data["items"]] == ["m0", "m1"]
    assert data["links"] == [[["m0", "time_window"], ["m1", "time_window"]]]
    titles = [data["models"][m]["state"]["title"] for m in ("m0", "m1")]
    assert titles[0].startswith("one") and titles[1].startswith("two")
    stack.shared_time = False
    assert page_data(stack.to_html(tmp_path / "apart.html"))["links"] == []


def test_a_failed_page_leaves_the_file_as_it_was(tmp_path, diagram, monkeypatch):
    target = tmp_path / "fig.html"
    target.write_text("before", encoding="utf-8")
    monkeypatch.setattr(html_export, "HOST_BUNDLE", tmp_path / "missing.js")
    with pytest.raises(RuntimeError, match="not built"):
        diagram.to_html(target)
    assert target.read_text(encoding="utf-8") == "before"


# -- the kernel answers the view's question ---------------------------------------------------------


def test_a_live_kernel_answers_the_views_ping(diagram, monkeypatch):
    sent = []
    monkeypatch.setattr(diagram, "send", lambda content, buffers=None: sent.append(content))
    diagram._handle_custom_msg({"type": "kernel-ping"}, [])
    diagram._handle_custom_msg({"type": "something else"}, [])
    assert sent == [{"type": "kernel-pong"}]


# -- the PNG in the display -------------------------------------------------------------------------


def test_a_diagram_display_carries_a_png_of_its_figure(diagram):
    bundle = diagram._repr_mimebundle_()
    data, _ = bundle
    assert "application/vnd.jupyter.widget-view+json" in data
    image = png_of(bundle)
    assert image.width == 8 * 100  # savefig's default 8 in at the display's 100 px per inch
    pixels = np.asarray(image)
    for colour in diagram.phase_colors:
        assert near_color(pixels, colour, 12).sum() > 100, f"phase colour {colour} missing from the PNG"


def test_a_dataflow_display_carries_a_png():
    view = cw.DataflowView(figure_2b())
    image = png_of(view._repr_mimebundle_())
    dark = (np.asarray(image).max(axis=-1) < 120).sum()
    assert dark > 200  # box outlines and names drawn


def test_display_modes(diagram, monkeypatch):
    diagram.display_mode = "live"
    data, _ = diagram._repr_mimebundle_()
    assert "image/png" not in data and "application/vnd.jupyter.widget-view+json" in data
    diagram.display_mode = "png"
    data, _ = diagram._repr_mimebundle_()
    assert set(data) == {"text/plain", "image/png"}
    monkeypatch.setattr(ViewWidget, "display_mode", "live")
    other = cw.CampaignDiagram(figure_2b())
    assert "image/png" not in other._repr_mimebundle_()[0]


def test_a_failing_static_figure_still_shows_the_live_view(diagram, monkeypatch):
    def broken(*_args, **_kwargs):
        raise RuntimeError("no fonts")

    monkeypatch.setattr(diagram, "savefig", broken)
    data, _ = diagram._repr_mimebundle_()
    assert "image/png" not in data and "application/vnd.jupyter.widget-view+json" in data


def test_the_local_view_has_no_static_figure_yet():
    view = LocalView(None, "C[i,j] = A[i,k] * B[k,j]", {"i": 3, "j": 4, "k": 5})
    assert view.static_png() is None
    data, _ = view._repr_mimebundle_()
    assert "image/png" not in data and "application/vnd.jupyter.widget-view+json" in data


def test_a_view_can_give_the_page_more_than_its_synced_state(tmp_path, diagram, monkeypatch):
    monkeypatch.setattr(diagram, "_page_state", lambda state: {**state, "title": "whole scene"}, raising=False)
    assert page_data(diagram.to_html(tmp_path / "fig.html"))["models"]["m0"]["state"]["title"] == "whole scene"


def test_an_explorer_page_is_its_diagram_beside_its_canvas_roofline_with_hover_linked(tmp_path):
    explorer = cw.Explorer(figure_2b())
    page = html_export.Page()
    page.add(explorer)
    data = page.data()
    (row,) = data["items"]
    models = [part["model"] for part in row["row"]]
    assert [data["models"][m]["state"].get("_esm") is None for m in models] == [True, True]  # bundles apart
    diagram, plot = (page.model_id(explorer.diagram), page.model_id(explorer.roofline_plot))
    assert models == [diagram, plot]
    assert [[diagram, "hovered_phase"], [plot, "hovered_phase"]] in data["links"]
    assert explorer.roofline_plot is explorer.roofline_plot  # made once
    path = explorer.to_html(tmp_path / "explorer.html")
    assert path.read_text().count('"row"') == 1


def test_a_roofline_page_is_its_canvas_twin_with_the_same_geometry(tmp_path):
    diagram = cw.CampaignDiagram(figure_2b())
    roofline = cw.RooflineView(diagram, threshold=0.5)
    plot = roofline.canvas_plot()
    assert plot.threshold == 0.5 and plot.diagram is diagram
    np.testing.assert_allclose(plot.geometry["phase_x"], roofline.points.x)
    path = roofline.to_html(tmp_path / "roofline.html")
    page = html_export.Page()
    page.add(plot)
    (model,) = page.data()["models"].values()
    assert model["state"]["threshold"] == 0.5
    assert "roofline" in path.read_text()


def test_a_roofline_page_carries_every_phases_hover_words(tmp_path):
    explorer = cw.Explorer(figure_2b())
    path = explorer.to_html(tmp_path / "explorer.html")
    plot = explorer.roofline_plot
    (state,) = [m["state"] for m in page_data(path)["models"].values() if "geometry" in m["state"]]
    hovered = []
    for i in range(len(plot.phase_names)):
        plot.hovered_phase = i  # what hovering the point gives with a kernel
        hovered.append(list(plot.hovered_details))
    assert state["details_by_phase"] == hovered
    assert [lines[0].split(":")[0] for lines in hovered] == ["A", "B", "C"]
    # the bqplot roofline's page is its canvas twin, with the same words
    alone = cw.RooflineView(explorer.diagram).to_html(tmp_path / "roofline.html")
    (model,) = page_data(alone)["models"].values()
    assert model["state"]["details_by_phase"] == hovered


def test_a_sweep_page_is_its_heatmap_over_the_shown_diagram_with_every_cells_row(tmp_path):
    w = cw.Workload(
        [
            cw.Phase("A", duration=4, compute_util=0.3, memory_util=0.9),
            cw.Phase("B", duration=10, compute_util=0.8, memory_util=0.4, after=["A"]),
        ]
    )
    result = cw.sweep(w, progress=False, tiles=[1, 2, 4], policy=["none", "throttle"], pipeline=[False, True])
    view = cw.SweepView(result, x="tiles", y="policy")
    data = page_data(view.to_html(tmp_path / "sweep.html", title="sweep"))
    plot, diagram = view.sweep_plot, view.sweep_diagram
    heatmap, shown = (data["models"][item["model"]]["state"] for item in data["items"])
    assert heatmap["x_title"] == "tiles" and shown["phase_names"] == list(diagram.phase_names)
    on_grid = sorted(int(i) for i in np.asarray(plot.grid["indices"]).ravel())
    rows = heatmap["rows_by_configuration"]
    assert sorted(int(i) for i in rows) == on_grid and len(on_grid) == 6
    for i in on_grid:
        plot.hovered = i  # what hovering the cell gives with a kernel
        assert rows[str(i)] == plot.hovered_rows
    assert rows[str(on_grid[0])][0] == [f"configuration #{on_grid[0]}", ""]


def test_a_workloads_display_and_a_stack_carry_a_png_of_their_figure(monkeypatch):
    # a workload displays as its Explorer (an ipywidgets box): it carries the diagram with its roofline
    explorer = cw.Explorer(figure_2b())
    data = explorer._repr_mimebundle_()  # an ipywidgets box's bundle: the data alone
    assert "application/vnd.jupyter.widget-view+json" in data
    image = png_of((data, {}))
    assert image.width == 11 * 100  # Explorer.savefig's 11 in at the display's 100 px per inch
    pixels = np.asarray(image)
    for colour in explorer.diagram.phase_colors:  # phase C is short: its line and point are small
        assert near_color(pixels, colour, 12).sum() > 40, f"phase colour {colour} missing from the PNG"
    stack = cw.StackedDiagrams({"one": figure_2b(), "four tiles": (figure_2b(), {"tiles": 4})})
    assert png_of((stack._repr_mimebundle_(), {})).height > 0
    monkeypatch.setattr(ViewWidget, "display_mode", "live")
    assert "image/png" not in cw.Explorer(figure_2b())._repr_mimebundle_()
