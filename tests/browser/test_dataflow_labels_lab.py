"""In a real browser, at the default fit (nothing clicked or zoomed): the dataflow graph of notebook
07's encoder block (31 nodes) and the Explorers of notebooks 05, 07 and 09 write every phase's name
and the bytes of the heaviest edges, the graph fills the plot's height, and an SDFG's long names stay
inside their boxes.

The workloads are built by running each notebook's first code cell as it is. The view lists the
labels it wrote with their boxes (``data-labels``) and the node centres as drawn (``data-node-xy``,
after the fold into bands, js/dataflow/CONTRACT.md); the expected names, sizes and edge texts come
from the Python objects, and the canvas pixels are read back to see that text is there.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from labdriver import check_each_test, decode_data_url, module_page, open_with_cell

from campaign_widget.formatting import shorten_middle

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = "browser-test-dataflow-labels.ipynb"
MLP = REPO / "tests" / "data" / "sdfg" / "mlp.sdfgz"


def first_cell(notebook: str) -> str:
    """The source of a notebook's first code cell (it builds the workload)."""
    cells = json.loads((REPO / "notebooks" / notebook).read_text())["cells"]
    return next("".join(c["source"]) for c in cells if c["cell_type"] == "code")


NB05, NB07, NB09 = (first_cell(n) for n in ("05-low-rank-gemm.ipynb", "07-data-movement.ipynb", "09-sweeps.ipynb"))
SDFG = f"mlp = cw.load({str(MLP)!r}, params={{'B': 64, 'D': 512, 'H': 1024, 'O': 10}}, machine=h100)\n"
# One cell per view, in this order on the page (the n-th .cwd-root is the n-th case).
CASES = {
    "nb07 DataflowView": (NB07, "cw.DataflowView(w)", "w"),
    "nb07 Explorer": (None, "cw.Explorer(w)", "w"),
    "nb05 Explorer": (NB05, "cw.Explorer(low_rank)", "low_rank"),
    "nb09 workload (its Explorer)": (NB09, "low_rank", "low_rank"),
    "nb07 SDFG": (SDFG, "cw.DataflowView(mlp, overlay='intensity', scaling='log')", "mlp"),
}


def python_views():
    """The same workloads, built here: per case the DataflowView the page shows."""
    from campaign_widget.views.dataflow import DataflowView

    namespace: dict = {}
    out = {}
    for name, (setup, _shown, variable) in CASES.items():
        if setup:
            exec(setup, namespace)  # the notebooks' own first cells (and the SDFG import)
        out[name] = DataflowView(namespace[variable])
    return out


class Page:
    def __init__(self, lab, views):
        self.lab, self.page, self.views = lab, lab.page, views
        self.failed = False

    def canvas(self, index: int):
        return self.page.locator(".cwd-root canvas.cwd-plot").nth(index)

    def shot(self, index: int, labels: bool = True) -> dict:
        """The canvas' pixels and data attributes; ``labels``: wait for (and read) the drawn labels."""
        canvas = self.canvas(index)
        canvas.scroll_into_view_if_needed()
        self.page.wait_for_function("c => +c.dataset.draws > 0", arg=canvas.element_handle(), timeout=60_000)
        if labels:
            self.page.wait_for_function(
                "c => c.dataset.labels !== undefined", arg=canvas.element_handle(), timeout=5_000
            )
        self.page.wait_for_timeout(300)  # a resize after the first frame refits: read the settled picture
        raw = canvas.evaluate(
            "c => ({url: c.toDataURL('image/png'), dpr: window.devicePixelRatio, data: {...c.dataset}})"
        )
        raw["rgb"] = np.asarray(decode_data_url(raw["url"]).convert("RGB")).astype(int)
        if labels:
            raw["labels"] = json.loads(raw["data"]["labels"])
            raw["xy"] = json.loads(raw["data"]["nodeXy"])
        return raw


def _open(lab, jupyter_lab) -> Page:
    cells = []
    for setup, shown, _variable in CASES.values():
        cells.append((setup + "\n" if setup else "") + shown)
    nb = open_with_cell(
        lab,
        jupyter_lab,
        NOTEBOOK,
        "# Browser test: dataflow labels at fit",
        "import campaign_widget as cw\nfrom campaign_widget import presets\nh100 = presets.machine('h100-sxm')",
        what="the imports",
    )
    for code in cells:
        out = nb.run_cell(nb.append_code_cell(code), timeout=180)
        assert "Traceback" not in out, f"{code.splitlines()[-1]} failed:\n{out}"
    state = Page(lab, python_views())
    lab.page.wait_for_function(
        f"() => document.querySelectorAll('.cwd-root canvas.cwd-plot').length === {len(CASES)}", timeout=60_000
    )
    lab.errors.assert_clean(when="while drawing the dataflow views")
    return state


@pytest.fixture(scope="module")
def views(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("dataflow-labels"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(views, request):
    yield from check_each_test(views, request)


def node_box(shot, view, i) -> tuple[float, float, float, float]:
    """Node i's box on the canvas (CSS px), where the view drew it."""
    d = shot["data"]
    k, tx, ty, top = (float(d[key]) for key in ("k", "tx", "ty", "plotTop"))
    lay = view.graph_layout
    x, y = shot["xy"]["x"][i], shot["xy"]["y"][i]
    return (
        (x - lay.width[i] / 2) * k + tx,
        (y - lay.height[i] / 2) * k + ty + top,
        (x + lay.width[i] / 2) * k + tx,
        (y + lay.height[i] / 2) * k + ty + top,
    )


def overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def on_node(box, node, tensor: bool) -> bool:
    """Whether label box ``box`` covers part of a node (a tensor is the ellipse in its box), sampled."""
    if not overlap(box, node):
        return False
    if not tensor:
        return True
    cx, cy, rx, ry = (node[0] + node[2]) / 2, (node[1] + node[3]) / 2, (node[2] - node[0]) / 2, (node[3] - node[1]) / 2
    xs, ys = np.meshgrid(np.linspace(box[0], box[2], 21), np.linspace(box[1], box[3], 7))
    return bool((((xs - cx) / rx) ** 2 + ((ys - cy) / ry) ** 2 < 0.999).any())


def ink(shot, box) -> int:
    """Pixels inside ``box`` (CSS px) that differ clearly from the plot's background: text."""
    s = shot["dpr"]
    rgb = shot["rgb"]
    top = float(shot["data"]["plotTop"])
    background = rgb[int((top + 3) * s), int(3 * s)]
    part = rgb[int(box[1] * s) : int(np.ceil(box[3] * s)) + 1, int(box[0] * s) : int(np.ceil(box[2] * s)) + 1]
    return int((np.abs(part - background).max(axis=2) > 90).sum())


def check_labels_at_fit(views, index: int, name: str) -> dict:
    shot = views.shot(index)
    view = views.views[name]
    graph = view.dataflow
    d = shot["data"]
    width, top, height = float(d["plotWidth"]), float(d["plotTop"]), float(d["plotHeight"])
    nodes = {lab["index"]: lab for lab in shot["labels"] if lab["kind"] == "node"}
    edges = {lab["index"]: lab for lab in shot["labels"] if lab["kind"] == "edge"}
    for p in range(graph.n_phases):
        full = graph.names[p]
        assert p in nodes, f"{name}: phase {full!r} has no name drawn at fit (zoom {d['k']}); drawn: {shot['labels']}"
        text = nodes[p]["text"]
        assert text == full or (text == shorten_middle(full, len(text)) and "…" in text), (name, full, text)
    for i, lab in nodes.items():
        box, inside = lab["box"], node_box(shot, view, i)
        assert inside[0] <= box[0] and box[2] <= inside[2] and inside[1] <= box[1] and box[3] <= inside[3], (
            f"{name}: the name {lab['text']!r} sticks out of its box: {box} vs {inside}"
        )
    texts = graph.edge_labels()
    moved = np.nan_to_num(np.asarray(graph.bytes, float), nan=-1.0)
    heaviest = moved.max()
    assert any(moved[e] == heaviest for e in edges), f"{name}: no label on the heaviest edges ({texts[moved.argmax()]})"
    for e, lab in edges.items():
        assert lab["text"] == texts[e], (name, e, lab["text"], texts[e])
    boxes = [lab["box"] for lab in shot["labels"]]
    for j, box in enumerate(boxes):
        assert 0 <= box[0] and box[2] <= width and top <= box[1] and box[3] <= top + height, f"{name}: outside: {box}"
        for other in boxes[:j]:
            assert not overlap(box, other), f"{name}: labels overlap: {box} and {other}"
    for lab in edges.values():
        for i in range(graph.n_nodes):
            assert not on_node(lab["box"], node_box(shot, view, i), graph.kind[i] == 1), (
                f"{name}: the bytes {lab['text']!r} are written over node {graph.names[i]!r}"
            )
    # the text is on the canvas where the view says it wrote it
    blank = [lab["text"] for lab in shot["labels"] if ink(shot, lab["box"]) < 4]
    assert not blank, f"{name}: no text pixels where these labels should be: {blank}"
    return shot


def test_the_encoder_at_fit_shows_every_phase_name_and_the_heaviest_bytes(views):
    shot = check_labels_at_fit(views, 0, "nb07 DataflowView")
    edges = [lab for lab in shot["labels"] if lab["kind"] == "edge"]
    assert len(edges) >= 4, f"only {len(edges)} edge labels: {edges}"
    views.lab.screenshot("encoder-at-fit", full_page=False)


def test_the_encoder_at_fit_uses_most_of_the_plot_height(views):
    shot = views.shot(0, labels=False)
    d = shot["data"]
    top, height = float(d["plotTop"]), float(d["plotHeight"])
    # in pixels: the rows below the colour bar that have anything drawn span most of the plot
    s, rgb = shot["dpr"], shot["rgb"]
    plot = rgb[int((top + 2) * s) : int((top + height - 2) * s), int(2 * s) : int((float(d["plotWidth"]) - 2) * s)]
    background = plot[0, 0]
    rows = np.flatnonzero((np.abs(plot - background).max(axis=2) > 40).any(axis=1))
    assert rows.size and (rows[-1] - rows[0]) / s >= 0.75 * height, (
        f"drawn rows span {(rows[-1] - rows[0]) / s if rows.size else 0:.0f} of {height:.0f} px"
    )
    # the view's own account of it
    x0, y0, x1, y1 = (float(v) for v in d["graphBox"].split(","))
    assert y1 - y0 >= 0.8 * height, f"the graph is drawn {y1 - y0:.0f} px tall in a {height:.0f} px plot"


@pytest.mark.parametrize(
    "index, name", [(1, "nb07 Explorer"), (2, "nb05 Explorer"), (3, "nb09 workload (its Explorer)")]
)
def test_the_explorers_dataflow_at_fit_shows_every_phase_name(views, index, name):
    shot = check_labels_at_fit(views, index, name)
    views.lab.screenshot(f"explorer-{index}", full_page=False)
    d = shot["data"]
    x0, y0, x1, y1 = (float(v) for v in d["graphBox"].split(","))
    # either drawn at full size, or filling the height it is given
    assert float(d["k"]) >= 0.99 or y1 - y0 >= 0.75 * float(d["plotHeight"]), (name, d["k"], d["graphBox"])


def test_sdfg_names_stay_inside_their_boxes(views):
    check_labels_at_fit(views, 4, "nb07 SDFG")
    views.lab.screenshot("sdfg-at-fit", full_page=False)
