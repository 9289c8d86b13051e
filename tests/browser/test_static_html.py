"""Views with no kernel, in a real browser with the network off: ``to_html`` pages opened from
``file://`` (figure drawn, hover, zoom, linked panels, kernel controls hidden), and a notebook
exported by ``jupyter nbconvert --to html --execute`` showing its figure offline."""

from __future__ import annotations

import base64
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from conftest import DEVICE_SCALE_FACTOR, REPO, VIEWPORT
from labdriver import ConsoleErrors, read_canvas
from PIL import Image

import campaign_widget as cw
from campaign_widget.views.diagram import decode_scene_state
from campaign_widget.views.local import LocalView
from campaign_widget.views.page import write_html

LOCAL_SCHEMES = ("file:", "blob:", "data:", "about:")
RENDER_TIMEOUT = 30_000


def figure_2b() -> cw.Workload:
    return cw.Workload(
        [
            cw.Phase("A", duration=4, compute_util=0.3, memory_util=0.9),
            cw.Phase("B", duration=10, compute_util=0.8, memory_util=0.4, after=["A"]),
            cw.Phase("C", duration=1, compute_util=0.2, memory_util=0.7, after=["B"]),
        ]
    )


class OfflinePage:
    """A browser page with the network off: http(s) requests are aborted and remembered."""

    def __init__(self, browser, name: str, artifacts_dir: Path):
        self.name = name
        self.artifacts_dir = artifacts_dir
        self.context = browser.new_context(
            viewport=VIEWPORT, device_scale_factor=DEVICE_SCALE_FACTOR, accept_downloads=True
        )
        self.context.set_offline(True)
        self.outside: list[str] = []
        self.context.route(re.compile(r"^(?!file:|blob:|data:|about:).*"), self._abort)
        self.page = self.context.new_page()
        self.page.on("request", self._seen)
        self.errors = ConsoleErrors()
        self.errors.attach(self.page)

    def _abort(self, route):
        self.outside.append(route.request.url)
        route.abort()

    def _seen(self, request):
        if not request.url.startswith(LOCAL_SCHEMES):
            self.outside.append(request.url)

    def open(self, path: Path) -> None:
        self.page.goto(path.resolve().as_uri())

    def screenshot(self, label: str) -> None:
        self.page.screenshot(path=str(self.artifacts_dir / f"{self.name}-{label}.png"), full_page=True)

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def offline(browser, artifacts_dir, request):
    pages = []

    def factory() -> OfflinePage:
        page = OfflinePage(browser, re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name), artifacts_dir)
        pages.append(page)
        return page

    yield factory
    for page in pages:
        try:
            page.screenshot("end")
        finally:
            page.close()
    for page in pages:
        assert page.outside == [], f"the page asked the network for {page.outside}"
        page.errors.assert_clean(when=f"during {request.node.name}")


def wait_rendered(page, count: int) -> None:
    page.wait_for_selector("#cw-page[data-rendered=true]", timeout=RENDER_TIMEOUT)
    page.wait_for_function(
        "n => [...document.querySelectorAll('canvas.cw-plot, canvas.cwd-plot')].filter(c => +c.dataset.draws > 0).length >= n",
        arg=count,
        timeout=RENDER_TIMEOUT,
    )


def pixels(shot) -> np.ndarray:
    return np.asarray(shot.image.convert("RGB"), dtype=int)


def colour_count(image: np.ndarray, colour: str, tol: int = 16) -> int:
    rgb = np.array([int(colour.lstrip("#")[i : i + 2], 16) for i in (0, 2, 4)])
    return int((np.abs(image - rgb).max(axis=-1) <= tol).sum())


def test_a_diagram_page_works_from_disk_with_the_network_off(offline, tmp_path):
    diagram = cw.CampaignDiagram(figure_2b())
    path = diagram.to_html(tmp_path / "fig.html")
    view = offline()
    page = view.page
    view.open(path)
    wait_rendered(page, 1)
    canvas = page.locator("canvas.cw-plot")
    shot = read_canvas(canvas)

    # the figure: each phase's colour drawn
    image = pixels(shot)
    for name, colour in zip(diagram.phase_names, diagram.phase_colors):
        assert colour_count(image, colour) > 200, f"phase {name} ({colour}) not drawn in the page"

    # kernel controls hidden, the note shown, the front-end ones kept
    root = page.locator(".cw-root")
    assert root.get_attribute("data-kernel") == "none"
    assert page.locator(".cw-kernel-note").count() == 1 and page.locator(".cw-kernel-note").is_visible()
    for selector in (".cw-peak-compute", ".cw-peak-bandwidth", ".cw-tiles", ".cw-pipeline", ".cw-policy", ".cw-depth"):
        assert not page.locator(selector).is_visible(), f"{selector} is shown with no kernel to answer it"
    for selector in (".cw-y-axis", ".cw-download", ".cw-reset-zoom"):
        assert page.locator(selector).is_visible(), f"{selector} needs no kernel but is hidden"

    # hover: the tooltip names the phase under the mouse
    scene = decode_scene_state(diagram.scene)
    b = int(np.nonzero(scene["phase"] == 1)[0][0])
    t = float(scene["x0"][b] + scene["x1"][b]) / 2
    y = float(scene["line_y"][b] + scene["well_top"][b]) / 2
    page.mouse.move(shot.view_x + shot.css_x(t), shot.view_y + shot.css_y(y), steps=4)
    tooltip = page.locator("div.cw-tooltip")
    tooltip.wait_for(state="visible", timeout=5_000)
    assert tooltip.inner_text().splitlines()[0] == "B"

    # zoom: the wheel narrows the time axis and the picture changes
    before = canvas.get_attribute("data-t1")
    page.mouse.wheel(0, -400)
    page.wait_for_function("([c, t1]) => c.dataset.t1 !== t1", arg=[canvas.element_handle(), before], timeout=5_000)
    zoomed = read_canvas(canvas)
    assert zoomed.t1 - zoomed.t0 < shot.t1 - shot.t0
    assert (pixels(zoomed) != image).any(), "zooming did not change the pixels"

    # the PNG download needs no kernel
    with page.expect_download(timeout=10_000) as download:
        page.locator(".cw-download").click()
    saved = tmp_path / "download.png"
    download.value.save_as(saved)
    assert saved.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

    # a front-end control works: the y axis switches with no kernel
    page.mouse.move(2, 2)
    page.locator(".cw-y-axis").click()
    page.wait_for_function("() => document.querySelector('.cw-y-axis').textContent === 'absolute'", timeout=5_000)


def test_a_stack_page_links_the_panels_zoom(offline, tmp_path):
    stack = cw.StackedDiagrams({"one tile": figure_2b(), "four tiles": (figure_2b(), {"tiles": 4})})
    path = stack.to_html(tmp_path / "stack.html")
    view = offline()
    page = view.page
    view.open(path)
    wait_rendered(page, 2)
    canvases = page.locator("canvas.cw-plot")
    first = read_canvas(canvases.nth(0))
    page.mouse.move(first.view_x + (first.plot_left + first.plot_right) / 2, first.view_y + first.plot_top + 20)
    before = canvases.nth(1).get_attribute("data-t1")
    page.mouse.wheel(0, -400)
    page.wait_for_function(
        "([c, t1]) => c.dataset.t1 !== t1", arg=[canvases.nth(1).element_handle(), before], timeout=5_000
    )
    one, two = read_canvas(canvases.nth(0)), read_canvas(canvases.nth(1))
    assert (one.t0, one.t1) == pytest.approx((two.t0, two.t1)), "the second panel did not follow the first's zoom"


def test_a_dataflow_page_draws_and_hovers_offline(offline, tmp_path):
    dataflow = cw.DataflowView(figure_2b())
    path = dataflow.to_html(tmp_path / "dataflow.html")
    view = offline()
    page = view.page
    view.open(path)
    wait_rendered(page, 1)
    canvas = page.locator("canvas.cwd-plot")
    for selector in (".cwd-overlay", ".cwd-scaling", ".cwd-palette"):
        assert not page.locator(selector).is_visible(), f"{selector} is shown with no kernel to recolour"
    assert page.locator(".cwd-fit").is_visible()
    # hover each phase box's centre (the layout's world coordinates through the view's camera)
    graph = dataflow.graph
    x, y = np.asarray(graph["x"], dtype=float), np.asarray(graph["y"], dtype=float)
    camera = {k: float(canvas.get_attribute(f"data-{k}")) for k in ("k", "tx", "ty")}
    top = float(canvas.get_attribute("data-plot-top"))
    box = canvas.bounding_box()
    page.mouse.move(
        box["x"] + float(x[1]) * camera["k"] + camera["tx"], box["y"] + top + float(y[1]) * camera["k"] + camera["ty"]
    )
    tooltip = page.locator("div.cwd-tooltip")
    tooltip.wait_for(state="visible", timeout=5_000)
    assert "B" in tooltip.inner_text()


def test_a_page_of_two_views_links_their_hover(offline, tmp_path):
    workload = figure_2b()
    diagram, dataflow = cw.CampaignDiagram(workload), cw.DataflowView(workload)
    path = write_html(
        tmp_path / "linked.html",
        [diagram, dataflow],
        links=[((diagram, "hovered_phase"), (dataflow, "hovered_phase"))],
    )
    view = offline()
    page = view.page
    view.open(path)
    wait_rendered(page, 2)
    plot, graph_canvas = page.locator("canvas.cw-plot"), page.locator("canvas.cwd-plot")
    graph = dataflow.graph
    x, y = np.asarray(graph["x"], dtype=float), np.asarray(graph["y"], dtype=float)
    graph_canvas.scroll_into_view_if_needed()
    camera = {k: float(graph_canvas.get_attribute(f"data-{k}")) for k in ("k", "tx", "ty")}
    top = float(graph_canvas.get_attribute("data-plot-top"))
    box = graph_canvas.bounding_box()
    page.mouse.move(
        box["x"] + float(x[2]) * camera["k"] + camera["tx"], box["y"] + top + float(y[2]) * camera["k"] + camera["ty"]
    )
    # hovering phase C in the graph highlights it in the diagram, through the page's link
    page.wait_for_function("c => c.dataset.highlightedPhase === '2'", arg=plot.element_handle(), timeout=5_000)


# -- a notebook exported by nbconvert ----------------------------------------------------------------

NOTEBOOK = [
    "import campaign_widget as cw",
    "w = cw.Workload([cw.Phase('A', duration=4, compute_util=0.3, memory_util=0.9), "
    "cw.Phase('B', duration=10, compute_util=0.8, memory_util=0.4, after=['A'])])\n"
    "cw.CampaignDiagram(w)",
]


@pytest.mark.parametrize(
    ("env", "options"),
    [
        pytest.param({"CAMPAIGN_WIDGET_DISPLAY": "png"}, [], id="png-display"),
        pytest.param({}, ["--ExecutePreprocessor.store_widget_state=False"], id="no-widget-state"),
    ],
)
def test_nbconvert_html_shows_the_figure_offline(offline, tmp_path, env, options):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in NOTEBOOK])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, tmp_path / "report.ipynb")
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    environment.update(env)
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--execute", *options, "report.ipynb"],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    view = offline()
    # the exported page asks CDNs for require.js and the widget manager: offline they fail, the figure must not
    view.context.unroute(re.compile(r"^(?!file:|blob:|data:|about:).*"))
    view.context.route(re.compile(r"^https?://"), lambda route: route.abort())
    view.errors.benign.append((r"Failed to load resource|net::ERR|require", "the page's CDN scripts, offline"))
    view.open(tmp_path / "report.html")
    image = view.page.locator(".jp-OutputArea-output img").first
    image.wait_for(state="visible", timeout=RENDER_TIMEOUT)
    view.page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    assert image.bounding_box()["width"] > 300, "the figure is shown too small to read"
    data = image.get_attribute("src")
    assert data.startswith("data:image/png;base64,")
    png = np.asarray(Image.open(io.BytesIO(base64.b64decode(data.split(",", 1)[1]))).convert("RGB"), dtype=int)
    diagram = cw.CampaignDiagram(figure_2b())
    for colour in diagram.phase_colors[:2]:
        assert colour_count(png, colour) > 200, f"phase colour {colour} missing from the exported figure"
    view.outside.clear()  # the CDN requests were expected (and aborted)


def test_a_local_view_page_plays_back_offline(offline, tmp_path):
    local = LocalView(None, "C[i,j] = A[i,k] * B[k,j]", {"i": 3, "j": 4, "k": 5})
    path = local.to_html(tmp_path / "local.html")
    view = offline()
    page = view.page
    view.open(path)
    page.wait_for_selector("#cw-page[data-rendered=true]", timeout=RENDER_TIMEOUT)
    canvas = page.locator("canvas.cwl-canvas")
    page.wait_for_function("c => +c.dataset.draws > 0", arg=canvas.element_handle(), timeout=RENDER_TIMEOUT)
    for selector in (".cwl-cache", ".cwl-layouts", ".cwl-scaling", ".cwl-apply"):
        assert not page.locator(selector).is_visible(), f"{selector} is shown with no kernel to recompute"
    assert page.locator(".cwl-play").is_visible()
    before = canvas.evaluate("c => c.toDataURL()")
    # playback is drawn from the arrays in the page: moving the innermost loop moves the highlight
    page.locator("input.cwl-loop").last.evaluate("el => { el.value = '3'; el.dispatchEvent(new Event('input')); }")
    page.wait_for_function("c => c.dataset.point !== '0'", arg=canvas.element_handle(), timeout=5_000)
    page.wait_for_function("([c, url]) => c.toDataURL() !== url", arg=[canvas.element_handle(), before], timeout=5_000)


# -- JupyterLab: a notebook executed elsewhere ------------------------------------------------------


def test_lab_shows_the_png_of_a_notebook_executed_elsewhere(lab_page, jupyter_lab):
    """A notebook run by nbclient (a CI job, a colleague) is not trusted where it is opened: Lab does not
    render its widget views, and picks the display's next format. The figure must be that format."""
    from labdriver import Notebook
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in NOTEBOOK])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(REPO)}}).execute()
    nbformat.write(notebook, jupyter_lab.root_dir / "executed_elsewhere.ipynb")
    page = lab_page.page
    Notebook(page, jupyter_lab.url).open("executed_elsewhere.ipynb")
    image = page.locator(".jp-OutputArea-output[data-mime-type='image/png'] img")
    image.wait_for(state="visible", timeout=30_000)
    lab_page.screenshot("png-fallback")
    assert page.locator(".cw-root").count() == 0
    data = image.get_attribute("src")
    png = np.asarray(Image.open(io.BytesIO(base64.b64decode(data.split(",", 1)[1]))).convert("RGB"), dtype=int)
    for colour in cw.CampaignDiagram(figure_2b()).phase_colors[:2]:
        assert colour_count(png, colour) > 200, f"phase colour {colour} missing from the figure Lab shows"


def _log_px(value: float, lo: float, hi: float, px_lo: float, px_hi: float) -> float:
    import math

    return px_lo + (math.log10(value) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (px_hi - px_lo)


def test_an_explorer_page_shows_diagram_and_roofline_side_by_side_hover_linked(offline, tmp_path):
    explorer = cw.Explorer(figure_2b())
    path = explorer.to_html(tmp_path / "explorer.html")
    view = offline()
    page = view.page
    view.open(path)
    page.wait_for_selector("#cw-page[data-rendered=true]", timeout=RENDER_TIMEOUT)
    diagram_canvas = page.locator("canvas.cw-plot:not(.cw-roofline-plot)").first
    roofline_canvas = page.locator("canvas.cw-roofline-plot").first
    page.wait_for_function("c => +c.dataset.draws > 0", arg=roofline_canvas.element_handle(), timeout=RENDER_TIMEOUT)
    page.wait_for_function("c => +c.dataset.draws > 0", arg=diagram_canvas.element_handle(), timeout=RENDER_TIMEOUT)
    one, two = diagram_canvas.bounding_box(), roofline_canvas.bounding_box()
    assert two["x"] >= one["x"] + one["width"] - 1 and abs(two["y"] - one["y"]) < one["height"], (one, two)
    geometry = explorer.roofline_plot.geometry
    phase = int(np.asarray(geometry["share"]).argmax())
    data = {k: float(roofline_canvas.get_attribute(f"data-plot-{k}")) for k in ("left", "right", "top", "bottom")}
    (x_lo, x_hi), (y_lo, y_hi) = geometry["x_range"], geometry["y_range"]
    px = _log_px(float(geometry["phase_x"][phase]), x_lo, x_hi, data["left"], data["right"])
    py = _log_px(float(geometry["phase_y"][phase]), y_lo, y_hi, data["bottom"], data["top"])
    page.mouse.move(two["x"] + px, two["y"] + py)
    # hovering the roofline's point highlights its phase in the diagram, through the page's link
    page.wait_for_function(
        "([c, p]) => c.dataset.highlightedPhase === p", arg=[diagram_canvas.element_handle(), str(phase)], timeout=5_000
    )
    # and the roofline's tooltip words the phase with no kernel to ask, in the kernel's words
    tooltip = page.locator(".cw-roofline div.cw-tooltip")
    tooltip.wait_for(state="visible", timeout=5_000)
    explorer.roofline_plot.hovered_phase = phase
    assert tooltip.inner_text().splitlines()[0] == explorer.roofline_plot.hovered_details[0]
    assert tooltip.inner_text().startswith(f"{explorer.diagram.phase_names[phase]}: OI")


def test_an_explorer_page_shows_one_kernel_note_for_its_views_at_the_top(offline, tmp_path):
    explorer = cw.Explorer(figure_2b(), dataflow=True)
    path = explorer.to_html(tmp_path / "explorer.html")
    view = offline()
    page = view.page
    view.open(path)
    wait_rendered(page, 3)  # diagram, roofline, dataflow view
    notes = page.locator(".cw-kernel-note")
    assert notes.count() == 1, "one missing-kernel note for the page, not one per view"
    note = page.locator("#cw-page > .cw-kernel-note")
    assert note.is_visible() and note.inner_text().startswith("No kernel: ")
    top = note.bounding_box()
    for i in range(page.locator(".cw-root").count()):
        assert page.locator(".cw-root").nth(i).bounding_box()["y"] >= top["y"] + top["height"] - 1, (
            "the note is above every view"
        )
    # the views still hide what needs the kernel
    for selector in (".cw-tiles", ".cw-policy", ".cwd-overlay", ".cwd-palette"):
        assert page.locator(selector).count() >= 1 and not page.locator(selector).first.is_visible(), selector
    assert page.locator(".cwd-fit").is_visible()


def test_a_sweep_page_hovers_its_cells_offline_with_its_selects_hidden(offline, tmp_path):
    result = cw.sweep(figure_2b(), progress=False, tiles=[1, 2, 4], policy=["none", "throttle"], pipeline=[False, True])
    sweep = cw.SweepView(result, x="tiles", y="policy")
    path = sweep.to_html(tmp_path / "sweep.html")
    view = offline()
    page = view.page
    view.open(path)
    wait_rendered(page, 2)  # the heatmap and the shown configuration's diagram below it
    canvas = page.locator("canvas.cw-sweep-canvas")
    heatmap, diagram = page.locator(".cw-sweep-plot"), page.locator(".cw-root:not(.cw-sweep-plot)").first
    assert heatmap.bounding_box()["y"] < diagram.bounding_box()["y"]
    # a new colour or position is a new grid from Python: the selects are hidden, the page's one note says why
    assert heatmap.get_attribute("data-kernel") == "none"
    assert page.locator(".cw-kernel-note").count() == 1 and page.locator("#cw-page > .cw-kernel-note").is_visible()
    for selector in (".cw-sweep-color", ".cw-sweep-axis-pipeline"):
        assert page.locator(selector).count() == 1 and not page.locator(selector).is_visible(), selector
    # hover the cell of tiles=4 (column 2), policy=throttle (row 1, counted from the bottom)
    plot = sweep.sweep_plot
    index = int(np.asarray(plot.grid["indices"])[1][2])
    box = canvas.bounding_box()
    edges = {k: float(canvas.get_attribute(f"data-plot-{k}")) for k in ("left", "right", "top", "bottom")}
    x = edges["left"] + (edges["right"] - edges["left"]) * 2.5 / 3
    y = edges["bottom"] - (edges["bottom"] - edges["top"]) * 1.5 / 2
    page.mouse.move(box["x"] + x, box["y"] + y, steps=3)
    tooltip = heatmap.locator("div.cw-tooltip")
    tooltip.wait_for(state="visible", timeout=5_000)
    plot.hovered = index  # what the kernel says when it is there
    lines = tooltip.inner_text().splitlines()
    assert lines[0] == f"configuration #{index}"
    shown = " ".join(lines[1:])
    for name, value in plot.hovered_rows[1:]:
        assert name in shown and value in shown, (name, value, lines)
    assert "throttle" in shown
