"""In a real browser: the dataflow view writes the predicted bytes beside the logical ones
on each edge of a phase whose traffic a cache model predicts (``Workload.with_predicted_traffic``).

The notebook shows ``DataflowView`` of a two-phase workload whose first phase (gemm) is predicted. The
test reads the canvas back and looks for the predicted labels' text colour (js/dataflow/draw.js
``PREDICTED_TEXT``) in the box where the view says it wrote each edge's label (``data-labels``): present
on gemm's edges, absent on the edges of the phase that is not predicted (whose labels are drawn in grey).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from labdriver import check_each_test, decode_data_url, hex_rgb, module_page, open_with_cell

from campaign_widget.static_figure.dataflow_plot import EDGE_LABEL_GREY, PREDICTED_TEXT

pytestmark = pytest.mark.browser

NOTEBOOK = "browser-test-dataflow-predicted.ipynb"
WORKLOAD = """\
import campaign_widget as cw
from campaign_widget.cache import Cache
w = cw.Workload.from_einsums({"gemm": "C[i,j] = A[i,k] * B[k,j]", "outer": "D[i,j,k] = A[i,k] * C[i,j]"},
                             {"i": 64, "j": 64, "k": 64}, machine=cw.Machine(peak_compute=1e12, peak_bandwidth=1e11),
                             element_bytes=4)
p = cw.cache.with_predicted_traffic(w, "gemm", Cache(line=64, lines=32), local_sizes={"i": 8, "j": 8, "k": 8}, mode="ratio",
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
    from campaign_widget.views.dataflow import DataflowView

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

    def colour_pixels(self, shot, box, colour) -> int:
        """Pixels of ``colour`` inside ``box`` [x0, y0, x1, y1] (CSS px of the canvas)."""
        s = shot["dpr"]
        part = shot["rgb"][int(box[1] * s) : int(box[3] * s) + 1, int(box[0] * s) : int(box[2] * s) + 1]
        return int((np.abs(part - np.array(hex_rgb(colour))).max(axis=2) <= TOL).sum())


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
    graph = predicted.view.dataflow
    predicted.canvas.scroll_into_view_if_needed()
    predicted.page.wait_for_timeout(300)
    shot = predicted.shot()
    predicted.lab.screenshot("predicted-labels", full_page=False)
    # the view lists the edge labels it wrote, where (data-labels: the heaviest that fit at this zoom)
    drawn = {lab["index"]: lab for lab in json.loads(shot["data"]["labels"]) if lab["kind"] == "edge"}
    labels = graph.edge_labels()
    pred = [e for e in drawn if graph.predicted[e]]
    plain = [e for e in drawn if not graph.predicted[e]]
    assert len(pred) >= 2 and plain, f"too few labels drawn to check: predicted {pred}, plain {plain}"
    for e, lab in drawn.items():
        assert lab["text"] == labels[e], (e, lab["text"], labels[e])
    for e in pred:
        assert "predicted" in labels[e] and "→" in labels[e]
        assert predicted.colour_pixels(shot, drawn[e]["box"], PREDICTED_TEXT) > 10, (
            f"no predicted label ({labels[e]!r}, {PREDICTED_TEXT}) drawn where the view says it is"
        )
    for e in plain:
        assert predicted.colour_pixels(shot, drawn[e]["box"], PREDICTED_TEXT) == 0, (
            f"edge {e} ({labels[e]!r}) is not predicted, yet its label has the predicted colour"
        )
        assert predicted.colour_pixels(shot, drawn[e]["box"], EDGE_LABEL_GREY) > 5, (
            f"edge {e}'s plain label {labels[e]!r} is not drawn in grey"
        )
