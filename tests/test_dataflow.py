"""The global data-movement view's model (docs/data-movement.md#scalings): scaling, palettes, the graph, the layout."""

from __future__ import annotations

import numpy as np
import pytest

from campaign_widget import Machine, Phase, Workload
from campaign_widget.cache import with_predicted_traffic
from campaign_widget.figures.dataflow import (
    EDGE_ORDER,
    EDGE_READ,
    EDGE_WRITE,
    NAN_COLOR,
    NODE_PHASE,
    NODE_TENSOR,
    colors,
    dataflow_graph,
    layered_layout,
    legend,
    overlay_values,
    scale,
    severity,
)

V = [1, 2, 3, 100]
MACHINE = Machine(peak_compute=1e12, peak_bandwidth=1e11)


# -- docs/data-movement.md#scalings's example, exactly -----------------------------------------------------------------


def test_median_scaling_example():
    s = severity(V, "median")
    assert s[0] == 1 / (2 * 2.5) == 0.2
    assert s[2] == 3 / 5 == 0.6
    assert s[3] == 1.0
    assert legend(V, "median", 0, "bytes", "B")["centre"] == 2.5


def test_mean_scaling_example():
    s = severity(V, "mean")
    assert s[2] == 3 / 53
    assert s[3] == 1.0  # 100 / 53 clamps
    assert legend(V, "mean", 0, "bytes", "B")["centre"] == 26.5


def test_hist_scaling_example():
    assert severity(V, "hist").tolist() == [0, 1 / 3, 2 / 3, 1]
    assert severity([7, 7, 7], "hist").tolist() == [0, 0, 0]
    # repeated values share a step: B = {1, 5}
    assert severity([5, 1, 5], "hist").tolist() == [1, 0, 1]


def test_hist_with_buckets():
    # equal-width buckets on [1, 100]: width 33 → 1, 2, 3 in bucket 0; 100 in the last
    assert severity(V, "hist", buckets=3).tolist() == [0, 0, 0, 1]
    # [0.5, 1.5, 2.5, 3.5] over 4 buckets of [0.5, 3.5]: one per bucket, s = k / 3
    assert severity([0.5, 1.5, 2.5, 3.5], "hist", buckets=4).tolist() == [0, 1 / 3, 2 / 3, 1]
    # the maximum falls in the last bucket, not one past it
    assert severity([1, 2], "hist", buckets=2).tolist() == [0, 1]


def test_linear_and_log_scaling():
    assert severity(V, "linear").tolist() == [0, 1 / 99, 2 / 99, 1]
    s = severity([1, 10, 100], "log")
    assert s[0] == 0 and s[2] == 1 and abs(s[1] - 0.5) < 1e-15
    assert severity([4, 4], "linear").tolist() == [0, 0]
    assert severity([4, 4], "log").tolist() == [0, 0]


def test_missing_and_non_positive_values_are_nan_and_out_of_the_scale():
    s = severity([np.nan, 0, -3, 1, 2, 3, 100], "median")
    assert np.isnan(s[:3]).all()
    assert s[3:].tolist() == [0.2, 0.4, 0.6, 1.0]  # the scale is still c = 2.5
    assert np.isnan(severity([0, 0], "mean")).all()
    assert colors([np.nan])[0] == NAN_COLOR


# -- palettes: ends and middles from the published definitions --------------------------------------


def test_gyr_is_hue_120_times_one_minus_s():
    def rgb(colour):
        return [int(colour[i : i + 2], 16) for i in (1, 3, 5)]

    green, yellow, red = (rgb(c) for c in colors([0, 0.5, 1]))
    # the hues 120°, 60°, 0° (darkened where brighter than pure red: docs/data-movement.md#palettes)
    assert green[0] == green[2] == 0 < green[1] and yellow[0] == yellow[1] > 0 == yellow[2] and red == [255, 0, 0]
    # s = 0.25: hue 90°, (X, 1, 0) with X = 1 − |90/60 mod 2 − 1| = 0.5
    r, g, b = rgb(colors([0.25])[0])
    assert b == 0 and abs(r / g - 0.5) < 0.02
    assert colors([0, 1], reverse=True) == colors([1, 0])


def test_viridis_and_cividis_published_tables():
    # viridis: the published first, middle (entry 128 of 256) and last colours
    assert colors([0, 0.5, 1], "viridis") == ["#440154", "#21918c", "#fde725"]
    assert colors([0, 1], "cividis") == ["#00224e", "#fee838"]
    from matplotlib import _cm_listed  # the published table, read directly

    r, g, b = (round(255 * c) for c in _cm_listed._cividis_data[128])
    assert colors([0.5], "cividis") == [f"#{r:02x}{g:02x}{b:02x}"]


def test_rdylgn_colorbrewer_classes_low_green_high_red():
    assert colors([0, 0.5, 1], "RdYlGn") == ["#006837", "#ffffbf", "#a50026"]
    assert colors([0.1], "RdYlGn") == ["#1a9850"]  # the second of ColorBrewer's 11 classes


def test_palette_as_a_list_is_interpolated():
    assert colors([0, 0.5, 1], ["#000000", "#ffffff"]) == ["#000000", "#808080", "#ffffff"]
    assert colors([0.5], ["#ff0000", "#00ff00", "#0000ff"]) == ["#00ff00"]


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: severity(V, "medain"), ["medain", "median", "mean", "hist", "linear", "log"]),
        (lambda: colors([0.5], "jet"), ["jet", "gyr", "viridis", "cividis", "RdYlGn"]),
        (lambda: colors([0.5], ["#000000", "notacolour"]), ["notacolour", "1"]),
        (lambda: colors([0.5], ["#000000"]), ["at least 2"]),
        (lambda: severity(V, "hist", buckets=1), ["buckets=1"]),
        (lambda: severity(V, "hist", buckets=2.5), ["buckets=2.5"]),
        (lambda: severity("abc"), ["numbers"]),
    ],
)
def test_bad_names_are_refused_listing_the_valid_ones(call, words):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    for word in words:
        assert word in str(info.value)


# -- the graph -------------------------------------------------------------------------------------


def _mlp():
    return Workload(
        [
            Phase("up", ops=2e9, reads={"x": 4e6, "W1": 16e6}, writes={"h": 16e6}),
            Phase("act", ops=4e6, reads={"h": 16e6}, writes={"a": 16e6}),
            Phase("down", ops=2e9, reads={"a": 16e6, "W2": 16e6}, writes={"y": 4e6}),
            Phase("log", ops=1e3, bytes=8, after=["down"]),
        ],
        machine=MACHINE,
    )


def _edge(graph, src, dst):
    index = {n: i for i, n in enumerate(graph.names)}
    hit = np.flatnonzero((graph.src == index[src]) & (graph.dst == index[dst]))
    assert hit.size == 1, (src, dst)
    return int(hit[0])


def test_graph_nodes_and_edges():
    g = dataflow_graph(_mlp())
    assert g.names[:4] == ["up", "act", "down", "log"]
    assert sorted(g.names[4:]) == ["W1", "W2", "a", "h", "x", "y"]
    assert (g.kind[:4] == NODE_PHASE).all() and (g.kind[4:] == NODE_TENSOR).all()
    e = _edge(g, "W1", "up")
    assert g.edge_kind[e] == EDGE_READ and g.bytes[e] == 16e6
    e = _edge(g, "down", "y")
    assert g.edge_kind[e] == EDGE_WRITE and g.bytes[e] == 4e6
    e = _edge(g, "down", "log")  # an `after` that names no tensor
    assert g.edge_kind[e] == EDGE_ORDER and np.isnan(g.bytes[e])
    assert g.n_edges == 3 + 2 + 3 + 1
    assert not g.fused.any()


def test_fused_tensors_move_zero_bytes_and_are_marked():
    fused = _mlp().fuse([["up", "act", "down"]])
    g = dataflow_graph(fused)
    for src, dst in (("up", "h"), ("h", "act"), ("act", "a"), ("a", "down")):
        e = _edge(g, src, dst)
        assert g.fused[e] and g.bytes[e] == 0.0 and g.logical_bytes[e] == 16e6
    for src, dst in (("x", "up"), ("W1", "up"), ("W2", "down"), ("down", "y")):
        assert not g.fused[_edge(g, src, dst)]
    fused_names = {g.names[i] for i in np.flatnonzero(g.fused_tensor)}
    assert fused_names == {"h", "a"}
    # the edges' bytes add up to what fusion says the phases move
    phase_bytes = np.zeros(4)
    for e in range(g.n_edges):
        if g.edge_kind[e] == EDGE_READ:
            phase_bytes[g.dst[e]] += g.bytes[e]
        elif g.edge_kind[e] == EDGE_WRITE:
            phase_bytes[g.src[e]] += g.bytes[e]
    assert phase_bytes[:3].tolist() == fused.arrays.bytes[:3].tolist()


def test_tensor_read_outside_its_group_is_not_fused():
    w = Workload(
        [
            Phase("a", ops=1, reads={"x": 8}, writes={"t": 8}),
            Phase("b", ops=1, reads={"t": 8}, writes={"u": 8}),
            Phase("c", ops=1, reads={"t": 8, "u": 8}, writes={"v": 8}),
        ],
        machine=MACHINE,
    ).fuse([["a", "b"]])
    g = dataflow_graph(w)
    assert g.fused[_edge(g, "t", "b")]  # read inside the group: on chip
    assert not g.fused[_edge(g, "a", "t")]  # still written: c reads it from outside
    assert not g.fused_tensor[g.names.index("t")]


def test_phase_overlays_come_from_the_table():
    w = _mlp()
    g = dataflow_graph(w)
    for overlay in ("ops", "intensity", "duration", "efficiency"):
        assert overlay_values(w, g, overlay).tolist() == w.table()[overlay].tolist()
    sc = scale(w, g, "ops", "hist")
    assert sc.target == "phases" and sc.rgb.shape == (4, 3)
    with pytest.raises(ValueError, match="valid: bytes, ops, intensity, duration, efficiency"):
        overlay_values(w, g, "flops")


def test_legend_carries_method_centre_edges_unit():
    leg = legend([1, 2, 3, 100], "hist", 4, "bytes", "B")
    assert leg["method"] == "hist" and leg["unit"] == "B"
    assert leg["edges"] == [1, 25.75, 50.5, 75.25, 100]
    assert len(leg["stops"]) == 4 and leg["stops"][0] == colors([0])[0] and leg["stops"][-1] == "#ff0000"
    leg = legend([1, 2, 3, 100, 0, np.nan], "median", 0, "bytes", "B")
    assert leg["ticks"][1] == [0.5, "2.5 B"] and leg["missing"] == 2


def test_a_centred_bar_does_not_claim_zero_which_is_drawn_grey_with_the_missing_values():
    # 0 B (a fused edge) is out of the scale and grey; the bar must not label its green end "0 B"
    values = np.array([0.0, 2.0, 4.0, 6.0])
    s = severity(values, "median")
    assert np.isnan(s[0])
    leg = legend(values, "median", 0, "bytes", "B")
    assert leg["ticks"][0] == [0.0, "> 0 B"] and leg["missing"] == 1


def test_layout_is_left_to_right_producers_before_consumers():
    g = dataflow_graph(_mlp())
    lay = layered_layout(g)
    assert (lay.x[g.src] < lay.x[g.dst]).all()
    # the bounds hold every box and every bend of a long edge
    x0, y0, x1, y1 = lay.bounds
    assert (lay.x - lay.width / 2 >= x0).all() and (lay.y + lay.height / 2 <= y1).all()
    assert ((lay.route_x >= x0) & (lay.route_x <= x1) & (lay.route_y >= y0) & (lay.route_y <= y1)).all()
    # nodes in one layer do not overlap
    for layer in np.unique(lay.layer):
        ys = np.sort(lay.y[lay.layer == layer])
        assert (np.diff(ys) >= lay.height.max()).all()


# -- the widget (no browser: the traits the view reads) and the static export ---------------------


def _parametric():
    return Workload.from_einsums(
        {"up": "H[b,f] = X[b,d] * W1[d,f]", "down": "Y[b,d] = H[b,f] * W2[f,d]"},
        {"b": "B*S", "d": "D", "f": "4*D"},
        params={"B": 2, "S": 64, "D": 32},
        machine=MACHINE,
    )


def test_view_syncs_layout_and_colours_as_binary_buffers():
    from campaign_widget.views.buffers import from_payload
    from campaign_widget.views.dataflow import DataflowView

    w = _mlp()
    view = DataflowView(w, overlay="ops", scaling="hist")
    state = view.get_state()
    g = dataflow_graph(w)
    assert state["node_names"] == g.names
    for key in ("x", "y", "src", "dst"):
        assert isinstance(state["graph"][key]["buffer"], memoryview)
    assert from_payload(state["graph"]["src"]).tolist() == g.src.tolist()
    rgb = from_payload(state["paint"]["node_rgb"]).reshape(-1, 3)
    assert [f"#{r:02x}{gg:02x}{b:02x}" for r, gg, b in rgb[:4].tolist()] == colors(severity(w.table()["ops"], "hist"))
    assert state["legend"]["method"] == "hist"
    view.overlay = "bytes"
    edge_rgb = from_payload(view.get_state()["paint"]["edge_rgb"]).reshape(-1, 3)
    expected = colors(severity(g.bytes, "hist"))  # the scaling stays hist
    got = [f"#{r:02x}{gg:02x}{b:02x}" for r, gg, b in edge_rgb.tolist()]
    reads_writes = g.edge_kind != EDGE_ORDER
    assert [c for c, keep in zip(got, reads_writes) if keep] == [c for c, keep in zip(expected, reads_writes) if keep]


@pytest.mark.parametrize(
    "trait, value, words",
    [
        ("overlay", "flops", ["flops", "bytes, ops, intensity, duration, efficiency"]),
        ("scaling", "medain", ["medain", "median, mean, hist, linear, log"]),
        ("palette", "jet", ["jet", "gyr, viridis, cividis, RdYlGn"]),
        ("palette", ["#000000", "nope"], ["nope"]),
        ("buckets", 1, ["buckets=1"]),
        ("selected_phase", 99, ["99", "0..3"]),
    ],
)
def test_view_validates_before_storing(trait, value, words):
    import traitlets

    from campaign_widget.views.dataflow import DataflowView

    view = DataflowView(_mlp())
    before = getattr(view, trait)
    with pytest.raises(traitlets.TraitError) as info:
        setattr(view, trait, value)
    for word in words:
        assert word in str(info.value)
    assert getattr(view, trait) == before


def test_parameters_re_evaluate_and_keep_the_layout():
    from campaign_widget.views.dataflow import DataflowView

    view = DataflowView(_parametric())
    assert view.params == {"B": 2, "S": 64, "D": 32}
    assert view.param_ranges["S"] == {"range": [4, 1024], "log": True}
    layout = view.graph_layout
    h = view.dataflow.names.index("H")
    up_to_h = _edge(view.dataflow, "up", "H")
    assert view.dataflow.bytes[up_to_h] == 2 * 64 * 4 * 32 * 4  # b·f fp32
    view.set_params(S=128)
    assert view.workload.params["S"] == 128
    assert view.dataflow.bytes[up_to_h] == 2 * 128 * 4 * 32 * 4
    assert view.graph_layout is layout and view.dataflow.names[h] == "H"
    with pytest.raises(Exception, match="unknown parameter"):
        view.params = {"Q": 3}
    with pytest.raises(Exception, match="positive integer"):
        view.set_params(S=0)


def test_savefig_draws_the_same_layout_and_colours(tmp_path):
    from PIL import Image

    from campaign_widget.views.dataflow import DataflowView

    view = DataflowView(_mlp(), overlay="ops", scaling="median")
    path = view.savefig(tmp_path / "graph.png", dpi=96)
    assert path.exists() and [p.name for p in tmp_path.iterdir()] == ["graph.png"]  # no temp file left
    image = Image.open(path).convert("RGB")
    # the figure maps world px 1:1 at dpi 96 (scale 1): find each phase's fill near its box's corner
    from campaign_widget.static_figure.dataflow_plot import LEGEND_HEIGHT

    lay = view.graph_layout
    x0, y0 = lay.bounds[0] - 16, lay.bounds[1] - 16
    expected = colors(severity(view.workload.table()["ops"], "median"))
    for i in range(4):
        px = round(lay.x[i] - lay.width[i] / 2 + 5 - x0)
        py = round(lay.y[i] - lay.height[i] / 2 + 5 - y0 + LEGEND_HEIGHT)
        r, g, b = image.getpixel((px, py))
        want = tuple(int(expected[i][k : k + 2], 16) for k in (1, 3, 5))
        assert max(abs(r - want[0]), abs(g - want[1]), abs(b - want[2])) <= 3, (i, (r, g, b), want)
    for suffix in (".svg", ".pdf"):
        assert view.savefig(tmp_path / f"graph{suffix}").stat().st_size > 1000
    with pytest.raises(ValueError, match="unknown suffix '.gif'"):
        view.savefig(tmp_path / "graph.gif")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["graph.pdf", "graph.png", "graph.svg"]


def test_far_out_each_node_shows_the_hottest_edge_it_touches():
    from campaign_widget.views.dataflow import FAR_GREY, style_arrays

    w = _mlp()
    g = dataflow_graph(w)
    sc = scale(w, g, "bytes", "median")
    far = style_arrays(w, g, sc)["node_far_s"]
    # bytes per edge: x 4e6, W1 16e6, h 16e6 (twice), a 16e6 (twice), W2 16e6, y 4e6; median 16e6 → s = 0.5 or 0.125
    up = g.names.index("up")
    x = g.names.index("x")
    assert far[up] == 0.5 and far[x] == 0.125
    log = g.names.index("log")  # touches only an order edge: no value, grey
    assert np.isnan(far[log])
    rgb = style_arrays(w, g, sc)["node_far_rgb"]
    hexed = ["#{:02x}{:02x}{:02x}".format(*c) for c in rgb.tolist()]
    assert hexed[log] == FAR_GREY
    assert hexed[up] == colors([0.5])[0]


def test_long_edges_bend_through_the_layers_they_cross_inside_the_bounds():
    w = Workload(
        [
            Phase("a", ops=1, reads={"in": 8}, writes={"t": 8}),
            Phase("b", ops=1, reads={"t": 8}, writes={"u": 8}),
            Phase("c", ops=1, reads={"u": 8}, writes={"v": 8}),
            Phase("d", ops=1, reads={"v": 8, "t": 8}, writes={"out": 8}),
        ],
        machine=MACHINE,
    )
    g = dataflow_graph(w)
    lay = layered_layout(g)
    e = _edge(g, "t", "d")  # t (layer 2) → d (layer 7): bends in layers 3 … 6
    points = lay.edge_points(g, e)
    assert len(points) == 2 + 4
    assert points[1:-1, 0].tolist() == [3 * 190.0, 4 * 190.0, 5 * 190.0, 6 * 190.0]
    assert (np.diff(points[:, 0]) > 0).all()
    x0, y0, x1, y1 = lay.bounds
    assert (points[:, 1] >= y0).all() and (points[:, 1] <= y1).all()


def test_a_failed_export_leaves_no_file_and_no_temporary(tmp_path, monkeypatch):
    import matplotlib.figure

    import campaign_widget as cw

    target = tmp_path / "graph.png"
    target.write_bytes(b"old picture")

    def broken(self, handle, **kwargs):
        handle.write(b"half a pic")
        raise OSError("disk full")

    view = cw.DataflowView(_parametric())
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", broken)
    with pytest.raises(OSError, match="disk full"):
        view.savefig(target)
    assert target.read_bytes() == b"old picture"  # the old file is untouched
    assert [p.name for p in tmp_path.iterdir()] == ["graph.png"]


def test_an_imported_sdfg_gets_its_graph_and_one_slider_per_symbol():
    from pathlib import Path

    import campaign_widget as cw
    from campaign_widget.views.dataflow import DataflowView

    w = cw.load(Path(__file__).parent / "data" / "sdfg" / "mlp.sdfgz", params={"B": 8, "D": 16, "H": 32, "O": 4})
    view = DataflowView(w, overlay="intensity")
    assert sorted(view.param_ranges) == ["B", "D", "H", "O"]
    assert view.dataflow.n_phases == len(w)
    reads_writes = view.dataflow.edge_kind != EDGE_ORDER
    assert (view.dataflow.bytes[reads_writes] > 0).all()
    before = view.dataflow.bytes.copy()
    view.set_params(B=16)
    assert view.dataflow.bytes.sum() > before.sum()


# -- predicted traffic beside the logical bytes ---------------------------------------

N_PRED = 64
PRED_EINSUMS = {"gemm": "C[i,j] = A[i,k] * B[k,j]", "outer": "D[i,j,k] = A[i,k] * C[i,j]"}


def _predicted_pair():
    from campaign_widget.cache import Cache

    w = Workload.from_einsums(PRED_EINSUMS, {"i": N_PRED, "j": N_PRED, "k": N_PRED}, machine=MACHINE, element_bytes=4)
    cache = Cache(line=64, lines=32)
    options = dict(local_sizes={"i": 8, "j": 8, "k": 8}, mode="ratio", loop_order="ijk")
    return w, with_predicted_traffic(w, "gemm", cache, **options), (cache, options)


def _edge(graph, a, b):
    names = graph.names
    hits = [e for e in range(graph.n_edges) if names[graph.src[e]] == a and names[graph.dst[e]] == b]
    assert len(hits) == 1, (a, b, hits)
    return hits[0]


def test_a_predicted_phase_carries_logical_and_predicted_bytes_on_each_edge():
    from campaign_widget.cache import predicted_traffic
    from campaign_widget.formatting import format_si

    w, p, (cache, options) = _predicted_pair()
    per_tensor = predicted_traffic(w, "gemm", cache, **options)  # the cache model, apart from the graph
    matrix = N_PRED * N_PRED * 4  # A, B, C: 64 × 64 float32
    g = dataflow_graph(p)
    for a, b, tensor in (("A", "gemm", "A"), ("B", "gemm", "B"), ("gemm", "C", "C")):
        e = _edge(g, a, b)
        assert g.logical_bytes[e] == matrix
        assert g.predicted_bytes[e] == per_tensor[tensor] != matrix
        assert g.bytes[e] == per_tensor[tensor], "the bytes overlay colours the predicted traffic"
        assert g.edge_labels()[e] == f"{format_si(matrix, 'B')} → {format_si(per_tensor[tensor], 'B')} predicted"
    gemm_edges = np.flatnonzero(g.predicted)
    assert len(gemm_edges) == 3
    assert g.predicted_bytes[gemm_edges].sum() == pytest.approx(p.table()["bytes"][0]), "edges sum to the phase"
    # the phase that is not predicted: logical bytes only, label as before
    for a, b, size in (("A", "outer", matrix), ("C", "outer", matrix), ("outer", "D", matrix * N_PRED)):
        e = _edge(g, a, b)
        assert np.isnan(g.predicted_bytes[e]) and g.bytes[e] == size
        assert g.edge_labels()[e] == format_si(size, "B")
    # and the same workload without a prediction has no predicted edge
    plain = dataflow_graph(w)
    assert not plain.predicted.any() and np.isnan(plain.predicted_bytes).all()
    assert plain.edge_labels()[_edge(plain, "A", "gemm")] == format_si(matrix, "B")


def test_synced_values_carry_logical_and_predicted_bytes_and_the_static_figure_draws_both():
    from campaign_widget.cache import predicted_traffic
    from campaign_widget.formatting import format_si
    from campaign_widget.static_figure.dataflow_plot import PREDICTED_TEXT, render_dataflow
    from campaign_widget.views.buffers import from_payload
    from campaign_widget.views.dataflow import DataflowView, style_arrays

    w, p, (cache, options) = _predicted_pair()
    per_tensor = predicted_traffic(w, "gemm", cache, **options)
    view = DataflowView(p)
    g = view.dataflow
    e = _edge(g, "B", "gemm")
    values = view.values
    logical = from_payload(values["edge_logical_bytes"])
    predicted = from_payload(values["edge_predicted_bytes"])
    assert logical[e] == N_PRED * N_PRED * 4 and predicted[e] == per_tensor["B"]
    assert from_payload(values["edge_bytes"])[e] == per_tensor["B"]
    assert np.isnan(predicted[_edge(g, "C", "outer")])
    # the static figure: every edge's label, the predicted ones in their colour
    sc = view.current_scale()
    fig, ax = render_dataflow(g, view.graph_layout, style_arrays(p, g, sc), sc.legend)
    drawn = {t.get_text(): t for t in ax.texts}
    want = f"{format_si(N_PRED * N_PRED * 4, 'B')} → {format_si(per_tensor['B'], 'B')} predicted"
    assert want in drawn, sorted(drawn)
    assert drawn[want].get_color() == PREDICTED_TEXT
    assert format_si(N_PRED**3 * 4, "B") in drawn, "the unpredicted outer → D edge keeps its plain label"
    # a workload view with no prediction draws no predicted label
    plain = DataflowView(w)
    sc = plain.current_scale()
    fig, ax = render_dataflow(plain.dataflow, plain.graph_layout, style_arrays(w, plain.dataflow, sc), sc.legend)
    assert format_si(N_PRED * N_PRED * 4, "B") in {t.get_text() for t in ax.texts}
    assert not [t for t in ax.texts if "predicted" in t.get_text()]


@pytest.mark.parametrize(
    "state, words",
    [
        ({"params": {"B": 2, "S": 10**200, "D": 32}}, ["params=", "exceeds"]),
        ({"params": {"B": 2, "S": 0, "D": 32}}, ["params['S']=0", "positive integer"]),
        ({"overlay": "flops"}, ["unknown overlay 'flops'"]),
    ],
)
def test_a_refused_value_from_the_view_is_not_stored_and_the_view_is_told(state, words):
    from campaign_widget.views.dataflow import DataflowView

    view = DataflowView(_parametric())
    before = {key: getattr(view, key) for key in (*state, "values", "paint")}
    view.set_state(state)
    for key, value in before.items():
        assert getattr(view, key) is value or getattr(view, key) == value, f"{key} changed"
    assert view.error.startswith("refused: ") and all(word in view.error for word in words), view.error
    assert len(view.error) < 400, "a bounded message"
    view.set_state({"params": {"B": 2, "S": 128, "D": 32}})  # an accepted one clears it
    assert view.params["S"] == 128 and view.workload.params["S"] == 128 and view.error == ""


def test_the_view_may_not_write_what_the_kernel_computes():
    from campaign_widget.views.dataflow import DataflowView

    view = DataflowView(_mlp())
    graph = view.graph
    view.set_state({"graph": {}, "legend": {}})
    assert view.graph is graph and view.legend["overlay"] == "bytes"
