"""The global data-movement view in a real browser: switching the overlay and the scaling
changes the node colours where the layout says the nodes are, and clicking a dataflow node
highlights its phase in the campaign diagram of the same Explorer.

Expected positions and colours come from the Python objects under test (the model's numbers are
checked against docs/data-movement.md#the-global-view by hand in tests/test_dataflow.py); here we check the browser draws them.
"""

from __future__ import annotations

import json

import pytest
from labdriver import LabPage, Notebook, check_each_test, decode_data_url, module_page, write_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-dataflow.ipynb"
RENDER_TIMEOUT_MS = 60_000
WORKLOAD = """\
import campaign_widget as cw
m = cw.Machine(peak_compute=1e12, peak_bandwidth=1e11)
w = cw.Workload([
    cw.Phase('embed', ops=1e8, reads={'tokens': 4e5, 'E': 6e7}, writes={'x0': 1.6e7}),
    cw.Phase('qkv', ops=4e10, reads={'x0': 1.6e7, 'Wqkv': 1.2e7}, writes={'qkv': 4.8e7}),
    cw.Phase('attn', ops=3e10, reads={'qkv': 4.8e7}, writes={'ctx': 1.6e7}),
    cw.Phase('proj', ops=1.3e10, reads={'ctx': 1.6e7, 'Wo': 4e6}, writes={'x1': 1.6e7}),
    cw.Phase('norm', ops=2e7, reads={'x1': 1.6e7, 'x0': 1.6e7}, writes={'x2': 1.6e7}),
    cw.Phase('mlp', ops=5e10, reads={'x2': 1.6e7, 'W1': 1.6e7}, writes={'y': 1.6e7}),
], machine=m)
"""
CELL = (
    WORKLOAD
    + """\
ex = cw.Explorer(w, height=320)
view = ex.dataflow
import json
print('LAYOUT', json.dumps({'x': view.graph_layout.x.tolist(), 'y': view.graph_layout.y.tolist(),
                            'w': view.graph_layout.width.tolist(), 'h': view.graph_layout.height.tolist()}))
ex
"""
)


def expected_colours(overlay: str, scaling: str) -> list[tuple[int, int, int]]:
    """What Python says each phase node is filled with under ``overlay`` and ``scaling``."""
    namespace: dict = {}
    exec(WORKLOAD, namespace)  # the same workload, built here
    from campaign_widget.figures.dataflow import dataflow_graph, scale
    from campaign_widget.views.dataflow import style_arrays

    w = namespace["w"]
    graph = dataflow_graph(w)
    arrays = style_arrays(w, graph, scale(w, graph, overlay, scaling))
    return [tuple(int(c) for c in rgb) for rgb in arrays["node_rgb"][: len(w)]]


class DataflowPage:
    def __init__(self, lab: LabPage, layout: dict):
        self.lab, self.page, self.layout = lab, lab.page, layout
        self.canvas = self.page.locator(".cwd-root canvas.cwd-plot").first
        self.diagram = self.page.locator(".cw-root canvas.cw-plot").first
        self.failed = False

    def data(self) -> dict:
        return self.canvas.evaluate("c => ({...c.dataset})")

    def wait_redraw(self, after: int, condition: str = "true"):
        self.page.wait_for_function(
            f"([c, n]) => +c.dataset.draws > n && ({condition})",
            arg=[self.canvas.element_handle(), after],
            timeout=RENDER_TIMEOUT_MS,
        )

    @staticmethod
    def drawn_xy(data: dict, i: int) -> tuple[float, float]:
        """Node i's centre (world px) as the view draws it: the layout folded into bands
        (``data-node-xy``, js/dataflow/CONTRACT.md)."""
        xy = json.loads(data["nodeXy"])
        return xy["x"][i], xy["y"][i]

    def node_css(self, i: int, data: dict, inset: float = 4.0) -> tuple[float, float]:
        """CSS px (relative to the canvas) of a point inside node i's box, near its top-left corner,
        away from its centred label."""
        k, tx, ty, top = (float(data[key]) for key in ("k", "tx", "ty", "plotTop"))
        x, y = self.drawn_xy(data, i)
        left = (x - self.layout["w"][i] / 2) * k + tx
        upper = (y - self.layout["h"][i] / 2) * k + ty + top
        return left + inset, upper + inset

    def node_centre(self, i: int, data: dict) -> tuple[float, float]:
        k, tx, ty, top = (float(data[key]) for key in ("k", "tx", "ty", "plotTop"))
        x, y = self.drawn_xy(data, i)
        return x * k + tx, y * k + ty + top

    def pixels(self, n: int) -> list[tuple[int, int, int]]:
        raw = self.canvas.evaluate(
            "c => ({url: c.toDataURL('image/png'), dpr: window.devicePixelRatio, data: {...c.dataset}})"
        )
        image = decode_data_url(raw["url"])
        out = []
        for i in range(n):
            x, y = self.node_css(i, raw["data"])
            r, g, b, _ = image.getpixel((round(x * raw["dpr"]), round(y * raw["dpr"])))
            out.append((r, g, b))
        return out


def _open(lab: LabPage, jupyter_lab) -> DataflowPage:
    write_notebook(jupyter_lab.root_dir, NOTEBOOK, "# Browser test: dataflow view")
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    out = nb.run_cell(nb.append_code_cell(CELL), timeout=120)
    assert "Traceback" not in out, f"the Explorer cell failed:\n{out}"
    layout = json.loads(out.split("LAYOUT", 1)[1].strip().splitlines()[0])
    state = DataflowPage(lab, layout)
    state.canvas.wait_for(state="attached", timeout=RENDER_TIMEOUT_MS)
    state.canvas.scroll_into_view_if_needed()
    lab.page.wait_for_function(
        "c => +c.dataset.draws > 0 && +c.dataset.plotWidth > 0",
        arg=state.canvas.element_handle(),
        timeout=RENDER_TIMEOUT_MS,
    )
    lab.errors.assert_clean(when="while drawing the dataflow view")
    return state


@pytest.fixture(scope="module")
def dataflow(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("dataflow"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(dataflow, request):
    yield from check_each_test(dataflow, request)


def _close(a, b, tol=6):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def test_overlay_and_scaling_change_node_colours_where_the_layout_puts_them(dataflow):
    n = 6
    data = dataflow.data()
    assert 36 * float(data["k"]) >= 10, f"a 6-phase graph should be drawn large enough to read, at zoom {data['k']}"
    assert int(data["labelsDrawn"]) >= 6, "every phase's name is written at this zoom"
    white = dataflow.pixels(n)
    assert all(_close(p, (255, 255, 255)) for p in white), f"phases are white under the bytes overlay: {white}"
    dataflow.lab.screenshot("dataflow-bytes", full_page=False)

    for overlay, scaling in (("ops", "median"), ("ops", "hist"), ("intensity", "log")):
        before = int(dataflow.data()["draws"])
        if dataflow.page.locator("select.cwd-overlay").input_value() != overlay:
            dataflow.page.select_option("select.cwd-overlay", overlay)
        if dataflow.page.locator("select.cwd-scaling").input_value() != scaling:
            dataflow.page.select_option("select.cwd-scaling", scaling)
        dataflow.page.wait_for_function(
            "([c, o]) => c.dataset.overlay === o",
            arg=[dataflow.canvas.element_handle(), overlay],
            timeout=RENDER_TIMEOUT_MS,
        )
        expected = expected_colours(overlay, scaling)
        deadline_ok = False
        for _ in range(50):  # the style arrives after the overlay: wait for the colours to settle
            got = dataflow.pixels(n)
            if all(_close(g, e) for g, e in zip(got, expected)):
                deadline_ok = True
                break
            dataflow.page.wait_for_timeout(100)
        assert int(dataflow.data()["draws"]) > before
        assert deadline_ok, f"{overlay}/{scaling}: drawn {got}, Python says {expected}"
        dataflow.lab.screenshot(f"dataflow-{overlay}-{scaling}", full_page=False)
    # the three settings gave different pictures (the test can fail if the view ignores scaling)
    assert expected_colours("ops", "median") != expected_colours("ops", "hist")


def test_clicking_a_node_highlights_its_phase_in_the_diagram(dataflow):
    data = dataflow.data()
    box = dataflow.canvas.bounding_box()
    phase = 3  # 'proj'
    x, y = dataflow.node_centre(phase, data)
    dataflow.page.mouse.click(box["x"] + x, box["y"] + y)
    dataflow.page.wait_for_function(
        "c => c.dataset.selectedPhase === '3'", arg=dataflow.canvas.element_handle(), timeout=10_000
    )
    # move away from every node: the selection stays, and the diagram keeps highlighting it
    dataflow.page.mouse.move(box["x"] + 2, box["y"] + box["height"] - 2)
    dataflow.page.wait_for_function(
        "c => c.dataset.highlightedPhase === '3'", arg=dataflow.diagram.element_handle(), timeout=10_000
    )
    dataflow.lab.screenshot("dataflow-selected", full_page=True)
    # clicking it again clears the selection and the highlight
    dataflow.page.mouse.click(box["x"] + x, box["y"] + y)
    dataflow.page.mouse.move(box["x"] + 2, box["y"] + box["height"] - 2)
    dataflow.page.wait_for_function(
        "c => c.dataset.highlightedPhase === ''", arg=dataflow.diagram.element_handle(), timeout=10_000
    )


def test_hover_shows_the_phase_numbers_as_text(dataflow):
    data = dataflow.data()
    box = dataflow.canvas.bounding_box()
    x, y = dataflow.node_centre(5, data)  # 'mlp'
    dataflow.page.mouse.move(box["x"] + x, box["y"] + y)
    tooltip = dataflow.page.locator(".cwd-root .cwd-tooltip").first
    tooltip.wait_for(state="visible", timeout=10_000)
    text = tooltip.inner_text()
    assert "phase mlp" in text and "50 GFLOP" in text, text  # ops = 5e10
    assert tooltip.locator("*").evaluate_all("els => els.every(e => ['DIV', 'SPAN'].includes(e.tagName))")
    dataflow.page.mouse.move(box["x"] + 2, box["y"] + box["height"] - 2)
    tooltip.wait_for(state="hidden", timeout=10_000)


PARAMETRIC = """\
pw = cw.Workload.from_einsums({'up': 'H[b,f] = X[b,d] * W1[d,f]', 'act': 'A[b,f] = H[b,f]',
                               'down': 'Y[b,d] = A[b,f] * W2[f,d]'},
                              {'b': 'B*S', 'd': 'D', 'f': '4*D'}, params={'B': 8, 'S': 64, 'D': 256}, machine=m)
pview = cw.DataflowView(pw, overlay='intensity', scaling='linear', height=240)
pview
"""


def test_a_parameter_slider_re_evaluates_the_workload(dataflow, jupyter_lab):
    nb = Notebook(dataflow.page, jupyter_lab.url)
    out = nb.run_cell(nb.append_code_cell(PARAMETRIC), timeout=120)
    assert "Traceback" not in out, out
    root = dataflow.page.locator(".cwd-root").nth(1)
    canvas = root.locator("canvas.cwd-plot")
    canvas.scroll_into_view_if_needed()
    dataflow.page.wait_for_function("c => +c.dataset.draws > 0", arg=canvas.element_handle(), timeout=RENDER_TIMEOUT_MS)
    sliders = root.locator("input.cwd-param")
    assert sliders.evaluate_all("els => els.map(e => e.dataset.param)") == ["B", "S", "D"]
    s_slider = root.locator('input.cwd-param[data-param="S"]')
    readout = s_slider.locator("xpath=following-sibling::span[1]")
    assert readout.inner_text() == "64"
    draws = int(canvas.get_attribute("data-draws"))
    box = s_slider.bounding_box()
    dataflow.page.mouse.click(box["x"] + box["width"] * 0.95, box["y"] + box["height"] / 2)  # near the top of S
    dataflow.page.wait_for_function(
        "([c, n]) => +c.dataset.draws > n", arg=[canvas.element_handle(), draws], timeout=RENDER_TIMEOUT_MS
    )
    value = int(readout.inner_text())
    assert value > 64 * 8, f"clicking near the slider's top should set S far above 64, got {value}"
    out = nb.run_cell(nb.append_code_cell("print('PARAMS', pview.params, pview.workload.params)"), timeout=60)
    assert f"'S': {value}" in out.split("PARAMS", 1)[1], out
    dataflow.lab.screenshot("dataflow-parameter", full_page=False)
