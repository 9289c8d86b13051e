"""The dataflow view, the local view and the roofline in JupyterLab's light and dark themes, checked
in the pixels (the campaign diagram's own theme test is test_figures_themes.py):

* each view's background (the colour most of its pixels have) is dark in the dark theme and light
  in the light theme: no white canvas on a dark page;
* its text is visible: where labels are drawn (the dataflow colour bar's title, the local view's
  tensor names and histogram title, the roofline's roof, ridge label, schedule marker and legend
  names), some pixels differ strongly from the background, and the controls' text colours contrast
  with the page.

The themes are switched as a person would (Settings → Theme); where labels are comes from the views'
own data-* attributes and layout constants (js/dataflow/CONTRACT.md, js/local/CONTRACT.md).
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from labdriver import LabPage, Notebook, check_each_test, decode_data_url, module_page, write_notebook
from PIL import Image

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-views-themes.ipynb"
CELL = """\
import ipywidgets
import campaign_widget as cw
from campaign_widget.views.dataflow import DataflowView
from campaign_widget.views.local import LocalView
from campaign_widget.views.roofline import RooflineView
m = cw.Machine(peak_compute=1e12, peak_bandwidth=1e11)
w = cw.Workload([
    cw.Phase('up', ops=2e9, reads={'x': 4e6, 'W1': 16e6}, writes={'h': 16e6}),
    cw.Phase('act', ops=4e6, reads={'h': 16e6}, writes={'a': 16e6}),
    cw.Phase('down', ops=2e10, reads={'a': 16e6, 'W2': 16e6}, writes={'y': 4e6}),
], machine=m)
flow = DataflowView(w, height=260)
local = LocalView(None, 'C[i,j] = A[i,k] * B[k,j]', {'i': 6, 'j': 6, 'k': 6})
roof = RooflineView(cw.CampaignDiagram(w, height=200), height=300)
ipywidgets.VBox([flow, local, roof])
"""
DARK_MAX, LIGHT_MIN = 80, 200  # luminance of the background, 0…255
TEXT_CONTRAST = 100  # some pixel of a label differs this much in luminance from the background
MARKS = ("●", "◆")  # legend swatches: drawn in the phase's own colour, whatever the theme


def luminance(rgb) -> np.ndarray:
    rgb = np.asarray(rgb, dtype=np.float64)
    return 0.2126 * rgb[..., 0] + 0.7152 * rgb[..., 1] + 0.0722 * rgb[..., 2]


def modal_colour(pixels: np.ndarray) -> np.ndarray:
    """The colour most pixels have (RGB, the picture composited on nothing: opaque canvases)."""
    packed = (pixels[..., 0].astype(np.int64) << 16) | (pixels[..., 1].astype(np.int64) << 8) | pixels[..., 2]
    values, counts = np.unique(packed.reshape(-1), return_counts=True)
    v = int(values[counts.argmax()])
    return np.array([v >> 16, (v >> 8) & 255, v & 255])


def check_background(what: str, theme: str, pixels: np.ndarray) -> np.ndarray:
    background = modal_colour(pixels)
    lum = float(luminance(background))
    if theme == "dark":
        assert lum < DARK_MAX, f"{what}, dark theme: its background is {tuple(background)} (luminance {lum:.0f})"
    else:
        assert lum > LIGHT_MIN, f"{what}, light theme: its background is {tuple(background)} (luminance {lum:.0f})"
    return background


def check_text(what: str, theme: str, region: np.ndarray, background: np.ndarray) -> None:
    assert region.size, f"{what}: empty region"
    contrast = np.abs(luminance(region) - float(luminance(background))).max()
    assert contrast > TEXT_CONTRAST, (
        f"{what}, {theme} theme: no pixel differs from the background {tuple(background)} by more than "
        f"{contrast:.0f} in luminance: the text is invisible"
    )


_CANVAS = "c => ({url: c.toDataURL('image/png'), cssWidth: c.getBoundingClientRect().width, data: {...c.dataset}})"

# The computed text colours of a view's DOM (labels, table cells) and the page's background.
_DOM_COLOURS = """(root, selector) => {
    const probe = document.createElement('div');
    document.body.append(probe);
    const rgb = (colour) => { probe.style.color = ''; probe.style.color = colour;
        return getComputedStyle(probe).color.match(/[\\d.]+/g).slice(0, 3).map(Number); };
    const page = rgb(getComputedStyle(document.body).getPropertyValue('--jp-layout-color0') || 'white');
    const found = [...root.querySelectorAll(selector)].filter((e) => e.offsetParent !== null)
        .map((e) => [e.textContent.slice(0, 30), rgb(getComputedStyle(e).color)]);
    probe.remove();
    return {page, found};
}"""


class Views:
    def __init__(self, lab: LabPage, nb: Notebook):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.flow = self.page.locator(".cwd-root canvas.cwd-plot").first
        self.local = self.page.locator(".cwl-root canvas.cwl-canvas").first
        self.hist = self.page.locator(".cwl-root canvas.cwl-hist").first
        self.roof = self.page.locator(".bqplot").first
        self.failed = False

    def set_theme(self, name: str) -> None:
        """Settings → Theme → JupyterLab Light/Dark, as a person would; wait for the views' redraw."""
        self.page.locator(".lm-MenuBar-item", has_text="Settings").click()
        self.page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
        self.page.locator(".lm-Menu-itemLabel", has_text=f"JupyterLab {name.title()}").first.click()
        for canvas in (self.flow, self.local, self.hist):
            self.page.wait_for_function(
                "([c, t]) => c.dataset.theme === t", arg=[canvas.element_handle(), name], timeout=30_000
            )
        self.page.wait_for_timeout(800)  # the views re-read the page colours 300 ms after the switch

    def canvas(self, locator) -> tuple[np.ndarray, float, dict]:
        """Pixels (RGB), backing px per CSS px, and data-* of a canvas."""
        locator.scroll_into_view_if_needed()
        raw = locator.evaluate(_CANVAS)
        image = np.asarray(decode_data_url(raw["url"]).convert("RGB"), dtype=np.int16)
        return image, image.shape[1] / raw["cssWidth"], raw["data"]

    def dom_colours(self, root: str, selector: str) -> dict:
        return self.page.locator(root).first.evaluate(_DOM_COLOURS, selector)


def _open(lab: LabPage, jupyter_lab) -> Views:
    write_notebook(jupyter_lab.root_dir, NOTEBOOK, "# Browser test: the views in both themes")
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    out = nb.run_cell(nb.append_code_cell(CELL), timeout=120)
    assert "Traceback" not in out and "Error" not in out, f"the views' cell failed:\n{out}"
    views = Views(lab, nb)
    for canvas in (views.flow, views.local, views.hist):
        lab.page.wait_for_function("c => +c.dataset.draws > 0", arg=canvas.element_handle(), timeout=60_000)
    views.roof.wait_for(timeout=60_000)
    return views


@pytest.fixture(scope="module")
def views(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("views-themes"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(views, request):
    yield from check_each_test(views, request)


def _check_dom_text(views: Views, theme: str, root: str, selector: str) -> None:
    colours = views.dom_colours(root, selector)
    assert colours["found"], f"no visible {selector} in {root}"
    page = float(luminance(colours["page"]))
    faint = [
        (text, rgb)
        for text, rgb in colours["found"]
        if text.strip() not in MARKS and abs(float(luminance(rgb)) - page) < TEXT_CONTRAST
    ]
    assert not faint, f"{theme}: {root} {selector} text too close to the page background {colours['page']}: {faint}"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_dataflow_view_follows_the_theme(views, theme):
    views.set_theme(theme)
    views.lab.screenshot(f"{theme}-dataflow", full_page=False)
    pixels, scale, data = views.canvas(views.flow)
    background = check_background("the dataflow canvas", theme, pixels)
    # the colour bar's title: 12 px text from (8, 4) CSS px, in the 54 px legend strip on top
    check_text(
        "the dataflow colour bar's title",
        theme,
        pixels[int(2 * scale) : int(18 * scale), int(8 * scale) : int(260 * scale)],
        background,
    )
    # the plot below the legend strip is the background where no node or edge is
    plot_top = int(float(data["plotTop"]) * scale)
    assert (np.abs(pixels[plot_top + 4, 2:6] - background).max(axis=-1) < 8).all(), (
        "the plot's left edge is the background"
    )
    _check_dom_text(views, theme, ".cwd-root", ".cw-label")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_local_view_follows_the_theme(views, theme):
    views.set_theme(theme)
    views.lab.screenshot(f"{theme}-local", full_page=False)
    pixels, scale, data = views.canvas(views.local)
    background = check_background("the local view's grids", theme, pixels)
    # tensor names are written in the two label rows above the grids (js/local/draw.js)
    label_bottom = float(data["originY"]) + 2 * float(data["cell"])
    check_text("the local view's tensor names", theme, pixels[: int(label_bottom * scale)], background)
    pixels, scale, _ = views.canvas(views.hist)
    background = check_background("the local view's histogram", theme, pixels)
    check_text("the histogram's title", theme, pixels[: int(16 * scale), int(44 * scale) :], background)
    _check_dom_text(views, theme, ".cwl-root", ".cw-label")
    _check_dom_text(views, theme, ".cwl-root", ".cwl-readout-table td")


def test_local_views_empty_cells_are_dark_in_the_dark_theme(views):
    """In "related" mode with nothing clicked every cell is "not related" (white from Python): on a
    dark page the view draws them in its dark idle colour, so the grids are not white blocks."""
    views.set_theme("dark")
    out = views.nb.run_cell(views.nb.append_code_cell("local.mode = 'related'"), timeout=60)
    assert "Traceback" not in out, out
    try:
        views.page.wait_for_function(
            "c => c.dataset.mode === 'related'", arg=views.local.element_handle(), timeout=30_000
        )
        views.page.wait_for_timeout(300)
        views.lab.screenshot("dark-local-related", full_page=False)
        pixels, _, _ = views.canvas(views.local)
        white = float((luminance(pixels) > 230).mean())
        assert white < 0.005, f"{white:.1%} of the local view's canvas is white in the dark theme"
    finally:
        views.nb.run_cell(views.nb.append_code_cell("local.mode = 'iteration'"), timeout=60)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_roofline_follows_the_theme(views, theme):
    views.set_theme(theme)
    views.roof.scroll_into_view_if_needed()
    views.lab.screenshot(f"{theme}-roofline", full_page=False)
    pixels = np.asarray(Image.open(io.BytesIO(views.roof.screenshot())).convert("RGB"), dtype=np.int16)
    background = check_background("the roofline", theme, pixels)
    check_text("the roofline", theme, pixels, background)
    # every mark drawn in the theme's ink (the roof, the ridge and its label, the schedule's marker)
    # contrasts with the page; the phases' points keep their colours
    marks = views.roof.evaluate(
        """(fig) => {
        const probe = document.createElement('div'); document.body.append(probe);
        const rgb = (c) => { probe.style.color = ''; probe.style.color = c;
            const v = getComputedStyle(probe).color.match(/[\\d.]+/g).map(Number);
            return v.length > 3 && v[3] === 0 ? null : v.slice(0, 3); };
        const page = rgb(getComputedStyle(document.body).getPropertyValue('--jp-layout-color0') || 'white');
        const out = [];
        for (const e of fig.querySelectorAll('path.line, text.label, path.dot')) {
            const s = getComputedStyle(e);
            const text = e.nextElementSibling?.textContent || e.textContent || e.getAttribute('class');
            if (s.stroke !== 'none') out.push([text, 'stroke', rgb(s.stroke)]);
            if (e.tagName === 'text' && (e.textContent || '').trim()) out.push([text, 'fill', rgb(s.fill)]);
        }
        probe.remove();
        return {page, out};
    }"""
    )
    page = float(luminance(marks["page"]))
    phases = {"up", "act", "down"}
    drawn = [m for m in marks["out"] if m[2] is not None and m[0] not in phases]
    assert any("ridge" in m[0] for m in drawn) and any(m[0] == "schedule" for m in drawn), drawn
    faint = [m for m in drawn if abs(float(luminance(m[2])) - page) < 60]
    assert not faint, f"{theme}: roofline marks too close to the page background {marks['page']}: {faint}"
    # the legend: every name (phases and schedule) in a colour that reads on the page
    _check_dom_text(views, theme, ".widget-vbox:has(> .bqplot)", ".widget-hbox .widget-label")


def test_the_theme_trait_overrides_the_page(views):
    """``theme="dark"`` set from the kernel: the dataflow and local views are dark on a light page
    (canvas and controls), and go back to the page's theme with ``"auto"``."""
    views.set_theme("light")
    canvases = (views.flow, views.local, views.hist)
    out = views.nb.run_cell(views.nb.append_code_cell("flow.theme = local.theme = 'dark'"), timeout=60)
    assert "Traceback" not in out, out
    try:
        for canvas in canvases:
            views.page.wait_for_function("c => c.dataset.theme === 'dark'", arg=canvas.element_handle(), timeout=30_000)
        views.page.wait_for_timeout(300)
        for what, canvas in zip(("the dataflow canvas", "the local grids", "the histogram"), canvases):
            pixels, _, _ = views.canvas(canvas)
            check_background(f"{what} (theme='dark' on a light page)", "dark", pixels)
        labels = views.dom_colours(".cwd-root", ".cw-label")
        assert all(float(luminance(rgb)) > 128 for _, rgb in labels["found"]), (
            f"the controls' text stays dark: {labels}"
        )
    finally:
        views.nb.run_cell(views.nb.append_code_cell("flow.theme = local.theme = 'auto'"), timeout=60)
    for canvas in canvases:
        views.page.wait_for_function("c => c.dataset.theme === 'light'", arg=canvas.element_handle(), timeout=30_000)


def test_back_to_light(views):
    views.set_theme("light")
