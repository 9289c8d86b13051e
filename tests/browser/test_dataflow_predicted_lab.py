"""In a real browser: the dataflow view writes the predicted bytes beside the logical ones
on each edge of a phase whose traffic a cache model predicts (``Workload.with_predicted_traffic``).

The notebook shows ``DataflowView`` of a two-phase workload whose first phase (gemm) is predicted. The
test reads the canvas back and looks for the predicted labels' text colour (js/dataflow/draw.js
``PREDICTED_TEXT``) where the model puts each edge's label (``edge_label_positions``, through the canvas'
own ``data-k``/``data-tx``/``data-ty`` transform): present on gemm's three edges, absent on the edges of
the phase that is not predicted (whose labels are drawn in grey).
"""

from __future__ import annotations

import numpy as np
import pytest
from labdriver import check_each_test, decode_data_url, hex_rgb, module_page, open_with_cell

from campaign_widget.static_figure.dataflow_plot import EDGE_LABEL_GREY, PREDICTED_TEXT, edge_label_positions

pytestmark = pytest.mark.browser

NOTEBOOK = "browser-test-dataflow-predicted.ipynb"
WORKLOAD = """\
import campaign_widget as cw
from campaign_widget.cache import Cache
w = cw.Workload.from_einsums({"gemm": "C[i,j] = A[i,k] * B[k,j]", "outer": "D[i,j,k] = A[i,k] * C[i,j]"},
                             {"i": 64, "j": 64, "k": 64}, machine=cw.Machine(peak_compute=1e12, peak_bandwidth=1e11),
                             element_bytes=4)
p = w.with_predicted_traffic("gemm", Cache(line=64, lines=32), local_sizes={"i": 8, "j": 8, "k": 8}, mode="ratio",
                             loop_order="ijk")
"""
CELL = (
    WORKLOAD
    + """\
view = cw.DataflowView(p, height=360)
view"""
)
TOL = 40


def model():
    namespace: dict = {}
    exec(WORKLOAD, namespace)  # the same workload, built here
    from campaign_widget.dataflow_view import DataflowView

    return DataflowView(namespace["p"])


class State:
    def __init__(self, lab, nb):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.failed = False
        self.canvas = self.page.locator(".cwd-root canvas.cwd-plot").first
        self.view = model()

    def shot(self):
        raw = self.canvas.evaluate(
            "c => ({url: c.toDataURL('image/png'), dpr: window.devicePixelRatio, data: {...c.dataset},"
            " rect: (r => ({x: r.left, y: r.top}))(c.getBoundingClientRect())})"
        )
        raw["rgb"] = np.asarray(decode_data_url(raw["url"]).convert("RGB")).astype(int)
        return raw

    def label_css(self, shot, e) -> tuple[float, float]:
        """CSS px (relative to the canvas) of the centre of edge e's label."""
        data = shot["data"]
        k, tx, ty, top = (float(data[key]) for key in ("k", "tx", "ty", "plotTop"))
        wx, wy = edge_label_positions(self.view.dataflow, self.view.graph_layout)[e]
        return wx * k + tx, wy * k + ty + top - 7

    def colour_pixels(self, shot, e, colour, half_w=70, half_h=7) -> int:
        cx, cy = self.label_css(shot, e)
        s = shot["dpr"]
        box = shot["rgb"][
            max(0, int((cy - half_h) * s)) : int((cy + half_h) * s) + 1,
            max(0, int((cx - half_w) * s)) : int((cx + half_w) * s) + 1,
        ]
        return int((np.abs(box - np.array(hex_rgb(colour))).max(axis=2) <= TOL).sum())


def _open(lab, jupyter_lab) -> State:
    nb = open_with_cell(
        lab,
        jupyter_lab,
        NOTEBOOK,
        "# Browser test: predicted bytes on dataflow edges",
        CELL,
        what="the DataflowView cell",
        timeout=120,
    )
    state = State(lab, nb)
    state.canvas.wait_for(state="attached", timeout=60_000)
    state.canvas.scroll_into_view_if_needed()
    lab.page.wait_for_function(
        "c => +c.dataset.draws > 0 && +c.dataset.plotWidth > 0", arg=state.canvas.element_handle(), timeout=60_000
    )
    lab.errors.assert_clean(when="while drawing the dataflow view")
    return state


@pytest.fixture(scope="module")
def predicted(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("dataflow-predicted"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(predicted, request):
    yield from check_each_test(predicted, request)


def test_predicted_edges_show_logical_and_predicted_bytes(predicted):
    page, graph = predicted.page, predicted.view.dataflow
    predicted.canvas.scroll_into_view_if_needed()
    shot = predicted.shot()
    # labels on edges are drawn from zoom 0.9 up (LOD.edgeLabels): zoom in over the graph's middle if needed
    for _ in range(12):
        if float(shot["data"]["k"]) >= 0.9:
            break
        draws = int(shot["data"]["draws"])
        cx = shot["rect"]["x"] + float(shot["data"]["plotWidth"]) / 2
        cy = shot["rect"]["y"] + float(shot["data"]["plotTop"]) + float(shot["data"]["plotHeight"]) / 2
        page.mouse.move(cx, cy)
        page.mouse.wheel(0, -200)
        page.wait_for_function(
            "([c, n]) => +c.dataset.draws > n", arg=[predicted.canvas.element_handle(), draws], timeout=10_000
        )
        page.wait_for_timeout(100)
        shot = predicted.shot()
    assert float(shot["data"]["k"]) >= 0.9, f"could not zoom to 0.9 (data-k={shot['data']['k']})"
    page.wait_for_timeout(200)
    shot = predicted.shot()
    predicted.lab.screenshot("predicted-labels", full_page=False)
    width, height = float(shot["data"]["plotWidth"]), float(shot["data"]["plotHeight"])
    top = float(shot["data"]["plotTop"])

    def on_screen(e):
        x, y = predicted.label_css(shot, e)
        return 70 <= x <= width - 70 and top + 10 <= y <= top + height - 10

    labels = graph.edge_labels()
    pred = [e for e in range(graph.n_edges) if graph.predicted[e] and on_screen(e)]
    plain = [e for e in range(graph.n_edges) if not graph.predicted[e] and labels[e] and on_screen(e)]
    assert len(pred) >= 2 and plain, f"too few labels on screen to check: predicted {pred}, plain {plain}"
    for e in pred:
        assert "predicted" in labels[e] and "→" in labels[e]
        assert predicted.colour_pixels(shot, e, PREDICTED_TEXT) > 10, (
            f"no predicted label ({labels[e]!r}, {PREDICTED_TEXT}) drawn at edge {e}'s label position"
        )
    for e in plain:
        assert predicted.colour_pixels(shot, e, PREDICTED_TEXT, half_w=20) == 0, (
            f"edge {e} ({labels[e]!r}) is not predicted, yet its label has the predicted colour"
        )
        assert predicted.colour_pixels(shot, e, EDGE_LABEL_GREY, half_w=30) > 5, (
            f"edge {e}'s plain label {labels[e]!r} is not drawn in grey"
        )
