"""The views' light/dark choice in each notebook front end, tested in a plain page (no JupyterLab).

VS Code's notebook webviews and Colab's output frames cannot be driven here. What they put on the
page can: each case below sets one front end's markers on a page of its own — JupyterLab's
``body[data-jp-theme-light]`` and ``--jp-*`` colours, VS Code's body classes, ``data-vscode-theme-kind``
and ``--vscode-editor-*`` colours on ``<html>``, Colab's ``html[theme]``, marimo's ``body[data-theme]`` and
``dark-theme``/``light-theme`` classes, or nothing (the browser's colour scheme) — loads our bundle (``campaign_widget/static/widget.js``) and renders a
``CampaignDiagram``'s synced state into it through a stand-in for the anywidget model (the state and
its binary buffers as the kernel sends them: ``get_state`` and ipywidgets' ``_remove_buffers``).
Then it reads the canvas: its background pixel is the front end's dark or light colour, and the
controls' text stands out from the root's background. The browser's own scheme is set opposite to
the front end's each time, so the marker, not the browser, decides. The live tests switch the
markers (as the front ends do when a user picks another theme) and wait for the canvas to follow.
The dataflow and local views (their own bundles) are checked in VS Code's and Colab's pages too.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from ipywidgets.widgets.widget import _remove_buffers
from labdriver import ConsoleErrors, decode_data_url, hex_rgb, read_canvas
from workloads import two_phases

import campaign_widget as cw

pytestmark = pytest.mark.browser

STATIC = Path(cw.__file__).parent / "static"
BUNDLE = STATIC / "widget.js"
ORIGIN = "http://cw-page.test"
RENDER_TIMEOUT_MS = 20_000
THEME_DATA = json.loads((Path(cw.__file__).parent / "theme.json").read_text(encoding="utf-8"))
LIGHT_BACKGROUND = THEME_DATA["theme"]["background"]
DARK_BACKGROUND = THEME_DATA["dark"]["background"]


@dataclass(frozen=True)
class FrontEnd:
    """One front end's page: body classes and data-*, <html> attributes, CSS variables on <html>."""

    name: str
    dark: bool
    background: str  # what the canvas must be filled with
    body_class: str = ""
    body_data: dict = field(default_factory=dict)
    html_attributes: dict = field(default_factory=dict)
    variables: dict = field(default_factory=dict)

    def markers(self) -> dict:
        return {
            "bodyClass": self.body_class,
            "bodyData": self.body_data,
            "html": self.html_attributes,
            "variables": self.variables,
        }


VSCODE_DARK = {"--vscode-editor-background": "#1f1f1f", "--vscode-editor-foreground": "#cccccc"}
VSCODE_LIGHT = {"--vscode-editor-background": "#fffffe", "--vscode-editor-foreground": "#3b3b3b"}
FRONT_ENDS = [
    FrontEnd(
        "jupyterlab-dark",
        True,
        "#111111",
        body_data={"jp-theme-light": "false", "jp-theme-name": "JupyterLab Dark"},
        variables={"--jp-layout-color0": "#111111", "--jp-ui-font-color1": "rgba(255, 255, 255, 0.87)"},
    ),
    FrontEnd(
        "jupyterlab-light",
        False,
        "#ffffff",
        body_data={"jp-theme-light": "true", "jp-theme-name": "JupyterLab Light"},
        variables={"--jp-layout-color0": "#ffffff", "--jp-ui-font-color1": "rgba(0, 0, 0, 0.87)"},
    ),
    FrontEnd(
        "vscode-dark",
        True,
        "#1f1f1f",
        body_class="vscode-dark",
        body_data={"vscode-theme-kind": "vscode-dark"},
        variables=VSCODE_DARK,
    ),
    FrontEnd(
        "vscode-light",
        False,
        "#fffffe",
        body_class="vscode-light",
        body_data={"vscode-theme-kind": "vscode-light"},
        variables=VSCODE_LIGHT,
    ),
    FrontEnd(
        "vscode-high-contrast",
        True,
        "#000000",
        body_class="vscode-high-contrast",
        body_data={"vscode-theme-kind": "vscode-high-contrast"},
        variables={"--vscode-editor-background": "#000000", "--vscode-editor-foreground": "#ffffff"},
    ),
    FrontEnd(
        "vscode-high-contrast-light",
        False,
        "#ffffff",
        body_class="vscode-high-contrast vscode-high-contrast-light",
        body_data={"vscode-theme-kind": "vscode-high-contrast-light"},
        variables={"--vscode-editor-background": "#ffffff", "--vscode-editor-foreground": "#292929"},
    ),
    FrontEnd("vscode-variables-only", True, "#1f1f1f", variables=VSCODE_DARK),
    # Colab's widget manager maps --jp-ui-font-color1 to its own text colour; the background is ours.
    FrontEnd(
        "colab-dark",
        True,
        DARK_BACKGROUND,
        html_attributes={"theme": "dark"},
        variables={"--jp-ui-font-color1": "#e3e3e3"},
    ),
    FrontEnd("colab-light", False, LIGHT_BACKGROUND, html_attributes={"theme": "light"}),
    FrontEnd("marimo-dark", True, DARK_BACKGROUND, body_class="dark dark-theme", body_data={"theme": "dark"}),
    FrontEnd("marimo-light", False, LIGHT_BACKGROUND, body_class="light light-theme", body_data={"theme": "light"}),
    FrontEnd("browser-dark", True, DARK_BACKGROUND),
    FrontEnd("browser-light", False, LIGHT_BACKGROUND),
]

# The page: the front end's markers, then our bundle rendering the kernel's state through a stand-in
# model (get/set/on/off/save_changes/send, the part of anywidget's model the views use).
PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>front end theme</title></head>
<body><div id="out" style="width: 900px"></div>
<script type="application/json" id="cw-state">__STATE__</script>
<script type="module">
const { state, paths, buffers } = JSON.parse(document.getElementById("cw-state").textContent);
const decode = (b64) => { const s = atob(b64); const a = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) a[i] = s.charCodeAt(i); return new DataView(a.buffer); };
paths.forEach((path, i) => { let node = state;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path[path.length - 1]] = decode(buffers[i]); });
window.cwSetMarkers = ({ bodyClass, bodyData, html, variables }) => {
  document.body.className = bodyClass;
  for (const key of Object.keys(document.body.dataset)) delete document.body.dataset[key];
  for (const [k, v] of Object.entries(bodyData)) document.body.setAttribute(`data-${k}`, v);
  for (const name of ["theme", "style"]) document.documentElement.removeAttribute(name);
  for (const [k, v] of Object.entries(html)) document.documentElement.setAttribute(k, v);
  for (const [k, v] of Object.entries(variables)) document.documentElement.style.setProperty(k, v);
};
window.cwSetMarkers(__MARKERS__);
const listeners = {};
const model = {
  get: (key) => state[key],
  set: (key, value) => { state[key] = value; (listeners[`change:${key}`] ?? []).forEach((f) => f()); },
  save_changes() {}, send() {},
  on: (event, fn) => { (listeners[event] ??= []).push(fn); },
  off: (event, fn) => { listeners[event] = (listeners[event] ?? []).filter((f) => f !== fn); },
};
window.cwModel = model;
const { default: widget } = await import("/__BUNDLE__");
widget.render({ model, el: document.getElementById("out") });
</script></body></html>"""


def widget_state(widget) -> dict:
    """The synced state of a widget, as the kernel sends it (buffers apart, base64 here)."""
    state = {k: v for k, v in widget.get_state().items() if k not in ("_esm", "layout")}
    state, paths, buffers = _remove_buffers(state)
    return {"state": state, "paths": paths, "buffers": [base64.b64encode(bytes(b)).decode("ascii") for b in buffers]}


def diagram_state() -> dict:
    return widget_state(cw.CampaignDiagram(two_phases(), tiles=4, pipeline=True, title="front-end theme"))


def other_views() -> dict:
    """The dataflow and local views' states: bundle → (state, canvas selector)."""
    from campaign_widget.views.dataflow import DataflowView
    from campaign_widget.views.local import LocalView

    machine = cw.Machine(peak_compute=1e12, peak_bandwidth=1e11)
    workload = cw.Workload(
        [
            cw.Phase("up", ops=2e9, reads={"x": 4e6, "W1": 16e6}, writes={"h": 16e6}),
            cw.Phase("down", ops=2e10, reads={"h": 16e6, "W2": 16e6}, writes={"y": 4e6}),
        ],
        machine=machine,
    )
    return {
        "dataflow.js": (widget_state(DataflowView(workload, height=260)), "canvas.cwd-plot"),
        "local.js": (
            widget_state(LocalView(None, "C[i,j] = A[i,k] * B[k,j]", {"i": 6, "j": 6, "k": 6})),
            "canvas.cwl-canvas",
        ),
    }


def as_json(state: dict) -> str:
    return json.dumps(state).replace("</", "<\\/")


@pytest.fixture(scope="module")
def state_json() -> str:
    if not BUNDLE.exists():
        pytest.fail(f"the bundle {BUNDLE} is missing: npm run build", pytrace=False)
    return as_json(diagram_state())


@pytest.fixture
def open_page(browser, state_json, artifacts_dir, request):
    """open_page(front_end, browser_dark) -> (page, errors): the diagram rendered in that front end's page."""
    contexts = []

    def factory(front: FrontEnd, browser_dark: bool, *, bundle="widget.js", state=None, canvas="canvas.cw-plot"):
        context = browser.new_context(
            viewport={"width": 1000, "height": 800},
            device_scale_factor=2,
            color_scheme="dark" if browser_dark else "light",
        )
        contexts.append(context)
        page = context.new_page()
        errors = ConsoleErrors()
        errors.attach(page)
        html = (
            PAGE.replace("__STATE__", state or state_json)
            .replace("__MARKERS__", json.dumps(front.markers()))
            .replace("__BUNDLE__", bundle)
        )

        def serve(route):
            path = route.request.url[len(ORIGIN) :]
            if path in ("/", ""):
                route.fulfill(status=200, content_type="text/html", body=html)
            elif path == f"/{bundle}":
                route.fulfill(
                    status=200, content_type="text/javascript", body=(STATIC / bundle).read_text(encoding="utf-8")
                )
            else:
                route.fulfill(status=404, body="not here")

        page.route(f"{ORIGIN}/**", serve)
        page.goto(f"{ORIGIN}/")
        plot = page.locator(canvas).first
        try:
            page.wait_for_function("c => c && +c.dataset.draws > 0", arg=plot.element_handle(timeout=RENDER_TIMEOUT_MS))
        except Exception as error:
            raise AssertionError(f"{front.name}: the diagram did not draw; page errors {errors.errors}") from error
        page.wait_for_timeout(400)  # the theme's second read (js/shared/page-theme.js REREAD_MS) has happened
        return page, errors

    yield factory
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    for index, context in enumerate(contexts):
        if failed:
            for n, page in enumerate(context.pages):
                page.screenshot(path=str(artifacts_dir / f"{request.node.name}-{index}-{n}-FAILED.png"))
        context.close()


def luminance(rgb) -> float:
    r, g, b = rgb[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def css_rgb(text: str) -> tuple[float, float, float]:
    """'rgb(1, 2, 3)' / 'rgba(1, 2, 3, 0.5)' → (1, 2, 3)."""
    inside = text[text.index("(") + 1 : text.index(")")]
    return tuple(float(part) for part in inside.replace("/", ",").replace(" ", ",").split(",") if part)[:3]


def background_pixel(page) -> tuple[int, int, int]:
    shot = read_canvas(page.locator("canvas.cw-plot"))
    return shot.rgb_at(3, 3)  # the top-left corner: margin, filled with the background only


def check_shows(page, front: FrontEnd, when: str) -> None:
    pixel = background_pixel(page)
    want = hex_rgb(front.background)
    assert max(abs(a - b) for a, b in zip(pixel, want)) <= 2, (
        f"{front.name} {when}: the canvas background is {pixel}, the front end's {'dark' if front.dark else 'light'} "
        f"background is {want} ({front.background}); canvas data-theme={page.locator('canvas.cw-plot').get_attribute('data-theme')}"
    )
    colours = page.evaluate(
        """() => { const root = document.querySelector('.cw-root');
        const label = root.querySelector('.cw-controls .cw-label');
        let node = root, bg = 'rgba(0, 0, 0, 0)';
        while (node && /rgba\\(0, 0, 0, 0\\)|transparent/.test(bg)) { bg = getComputedStyle(node).backgroundColor; node = node.parentElement; }
        return { label: getComputedStyle(label).color, background: bg }; }"""
    )
    background = css_rgb(colours["background"]) if "rgba(0, 0, 0, 0)" not in colours["background"] else (255, 255, 255)
    contrast = abs(luminance(css_rgb(colours["label"])) - luminance(background))
    assert contrast > 90, (
        f"{front.name} {when}: the controls' label colour {colours['label']} hardly stands out from the "
        f"background behind them {colours['background']} (luminance difference {contrast:.0f})"
    )


@pytest.mark.parametrize("front", FRONT_ENDS, ids=[f.name for f in FRONT_ENDS])
def test_the_view_takes_the_front_ends_theme(open_page, front):
    # the browser's scheme opposite to the front end's, so that the marker decides (unless it is the marker)
    browser_dark = front.dark if front.name.startswith("browser") else not front.dark
    page, errors = open_page(front, browser_dark=browser_dark)
    check_shows(page, front, "at first draw")
    assert page.locator("canvas.cw-plot").get_attribute("data-theme") == ("dark" if front.dark else "light")
    errors.assert_clean(when=f"in the {front.name} page")


def _switch(page, front: FrontEnd) -> None:
    page.evaluate("markers => window.cwSetMarkers(markers)", front.markers())
    try:
        page.wait_for_function(
            "want => document.querySelector('canvas.cw-plot').dataset.theme === want",
            arg="dark" if front.dark else "light",
            timeout=5_000,
        )
    except Exception as error:
        raise AssertionError(f"the view did not follow the page to {front.name}") from error
    page.wait_for_timeout(400)


BY_NAME = {f.name: f for f in FRONT_ENDS}


@pytest.mark.parametrize(
    "steps",
    [
        ("vscode-light", "vscode-dark", "vscode-high-contrast-light", "vscode-high-contrast"),
        ("colab-light", "colab-dark", "colab-light"),
        ("jupyterlab-light", "jupyterlab-dark", "jupyterlab-light"),
        ("marimo-light", "marimo-dark", "marimo-light"),
    ],
    ids=["vscode", "colab", "jupyterlab", "marimo"],
)
def test_the_view_follows_a_live_theme_change(open_page, steps):
    first, *rest = (BY_NAME[name] for name in steps)
    page, errors = open_page(first, browser_dark=False)
    check_shows(page, first, "at first draw")
    for front in rest:
        _switch(page, front)
        check_shows(page, front, "after the switch")
    errors.assert_clean(when="while switching themes")


def test_the_view_follows_the_browsers_scheme_live(open_page):
    page, errors = open_page(BY_NAME["browser-light"], browser_dark=False)
    check_shows(page, BY_NAME["browser-light"], "at first draw")
    page.emulate_media(color_scheme="dark")
    page.wait_for_function("() => document.querySelector('canvas.cw-plot').dataset.theme === 'dark'", timeout=5_000)
    page.wait_for_timeout(400)
    check_shows(page, BY_NAME["browser-dark"], "after the browser turned dark")
    errors.assert_clean(when="while switching the browser's scheme")


OTHER_FRONTS = [BY_NAME[name] for name in ("vscode-dark", "vscode-light", "colab-dark", "colab-light")]


@pytest.fixture(scope="module")
def other_states() -> dict:
    return {bundle: (as_json(state), canvas) for bundle, (state, canvas) in other_views().items()}


@pytest.mark.parametrize("bundle", ["dataflow.js", "local.js"])
@pytest.mark.parametrize("front", OTHER_FRONTS, ids=[f.name for f in OTHER_FRONTS])
def test_the_dataflow_and_local_views_take_the_front_ends_theme(open_page, other_states, bundle, front):
    state, canvas = other_states[bundle]
    page, errors = open_page(front, browser_dark=not front.dark, bundle=bundle, state=state, canvas=canvas)
    plot = page.locator(canvas).first
    assert plot.get_attribute("data-theme") == ("dark" if front.dark else "light"), (
        f"{bundle} in {front.name}: data-theme={plot.get_attribute('data-theme')}"
    )
    pixels = np.asarray(decode_data_url(plot.evaluate("c => c.toDataURL('image/png')")).convert("RGB")).reshape(-1, 3)
    colours, counts = np.unique(pixels, axis=0, return_counts=True)
    background = colours[counts.argmax()]  # the colour most of the canvas has
    shade = luminance(background)
    assert (shade < 80) if front.dark else (shade > 200), (
        f"{bundle} in {front.name}: the canvas is mostly {tuple(background)} (luminance {shade:.0f}), "
        f"not {'dark' if front.dark else 'light'}"
    )
    errors.assert_clean(when=f"{bundle} in the {front.name} page")
