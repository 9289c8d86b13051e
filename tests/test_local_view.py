"""LocalView without a browser: state round trip, docs/data-movement.md#the-local-view-of-one-phase's examples, validation, recompute.

Expected values come from docs/data-movement.md#playback-and-related-accesses's text (outer product, Fig. 5a, a padded row) or from a plain
LRU stack written here, never from the code under test.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
import traitlets
from ipywidgets.widgets.widget import _put_buffers, _remove_buffers

import campaign_widget.views.local as lv
from campaign_widget import Phase, Workload, WorkloadError
from campaign_widget.cache import Cache
from campaign_widget.figures.colour_scale import rgb, scale_range, severity, severity_rows
from campaign_widget.figures.local import bar_ticks, element_grid
from campaign_widget.views.buffers import from_payload
from campaign_widget.views.local import LocalView

MATMUL = "C[i,j] = A[i,k] * B[k,j]"


def decoded(payloads: dict) -> dict:
    return {k: from_payload(v) for k, v in payloads.items() if isinstance(v, dict) and "buffer" in v}


def plain_lru_distances(lines) -> list[int]:
    """Stack distance of every access by a move-to-front list: -1 for the first reference."""
    stack: list[int] = []
    out = []
    for ln in lines:
        if ln in stack:
            k = stack.index(ln)
            out.append(k)
            stack.pop(k)
        else:
            out.append(-1)
        stack.insert(0, ln)
    return out


def plain_lru_misses(lines, capacity: int, ways: int | None = None) -> int:
    """Misses of an LRU cache of ``capacity`` lines (``ways`` per set, set = line mod sets)."""
    sets = 1 if ways is None else capacity // ways
    per_set = capacity if ways is None else ways
    caches = [OrderedDict() for _ in range(sets)]
    misses = 0
    for ln in lines:
        c = caches[ln % sets]
        if ln in c:
            c.move_to_end(ln)
        else:
            misses += 1
            c[ln] = True
            if len(c) > per_set:
                c.popitem(last=False)
    return misses


def total_row(view) -> list:
    row = view.readout["rows"][-1]
    assert row[0] == "total"
    return row


def lines_of(view) -> list[int]:
    return (view.trace.addresses(view.line) // view.line).tolist()


# -- state ---------------------------------------------------------------------------------------


def test_state_round_trip_sends_arrays_as_buffers_and_decodes_to_the_model():
    view = LocalView(None, MATMUL, {"i": 3, "j": 4, "k": 5})
    state, paths, buffers = _remove_buffers(view.get_state())
    assert ["grid", "x", "buffer"] in paths and ["accesses", "element", "buffer"] in paths
    assert ["heat", "reuse_rgb", "buffer"] in paths and ["selected", "line_mask", "buffer"] in paths
    for key in ("grid", "accesses", "heat", "selected"):
        for name, value in state[key].items():
            assert not (isinstance(value, list) and len(value) > 20), f"{key}[{name!r}] went as a JSON list"
    _put_buffers(state, paths, buffers)
    grid, acc = decoded(state["grid"]), decoded(state["accesses"])
    tr = view.trace
    assert tr.tensors == ("A", "B", "C") and state["tensors"]["names"] == ["A", "B", "C"]
    # A (3×5) first, then B (5×4), then C (3×4): global element = first[tensor] + element
    first = np.array([0, 15, 35])
    np.testing.assert_array_equal(acc["element"], first[tr.tensor] + tr.element)
    np.testing.assert_array_equal(acc["start"], np.arange(0, 3 * len(tr) // 3 + 1, 3))
    np.testing.assert_array_equal(acc["write"], np.tile([0, 0, 1], 60))
    x, y, w, h = element_grid((3, 5))
    ox, oy = state["tensors"]["origins"][0]
    np.testing.assert_array_equal(grid["x"][:15], x + ox)
    np.testing.assert_array_equal(grid["y"][:15], y + oy)
    assert state["loops"] == {"names": ["i", "j", "k"], "extents": [3, 4, 5], "count": 60}
    heat = decoded(state["heat"])
    # every A[i,k] is read by the 4 values of j; every C[i,j] written by the 5 values of k
    np.testing.assert_array_equal(heat["count"], np.r_[np.full(15, 4), np.full(20, 3), np.full(12, 5)])
    # a view built from the same state draws the same thing
    again = LocalView(None, MATMUL, {"i": 3, "j": 4, "k": 5})
    again.set_state({"loop_order": state["loop_order"], "capacity": 7})
    assert again.capacity == 7 and again.message == ""


def test_element_grid_nests_outer_dimensions_alternately():
    x, y, w, h = element_grid((2, 3, 4, 5))
    # innermost 4×5; dim 1 side by side (gap 1): 3·5 + 2 = 17 wide; dim 0 stacked (gap 2): 2·4 + 2 = 10 high
    assert (w, h) == (17, 10)
    idx = np.ravel_multi_index((1, 2, 3, 4), (2, 3, 4, 5))
    assert (x[idx], y[idx]) == (2 * 6 + 4, 1 * 6 + 3)
    assert len(set(zip(x.tolist(), y.tolist()))) == 120, "no two elements share a cell"


def test_palette_and_scaling_follow_design_md():
    s, info = severity([1, 2, 3, 100], "median"), scale_range([1, 2, 3, 100], "median")
    np.testing.assert_allclose(s, [0.2, 0.4, 0.6, 1.0])
    assert info["centre"] == 2.5
    np.testing.assert_allclose(severity([1, 2, 3, 100], "mean")[2], 3 / 53)
    np.testing.assert_allclose(severity([1, 2, 3, 100], "hist"), [0, 1 / 3, 2 / 3, 1])
    assert np.isnan(severity([0, -1, np.nan], "median")).all(), "values <= 0 stay out of the scale"
    np.testing.assert_allclose(severity([0, 2, 4], "median", zero_is_value=True), [0, 0.5, 1.0])
    (g0, g1, g2), (y0, y1, y2), red = rgb([0, 0.5, 1]).tolist()  # hues 120°, 60°, 0° (docs/data-movement.md#palettes)
    assert g0 == g2 == 0 < g1 and y0 == y1 > 0 == y2 and red == [255, 0, 0]


def test_one_colour_scale_for_both_views():
    import campaign_widget.figures.colour_scale as colour_scale
    import campaign_widget.figures.dataflow as dataflow
    import campaign_widget.figures.local as geometry

    for name in ("SCALINGS", "PALETTES"):
        assert getattr(dataflow, name) is getattr(colour_scale, name) is getattr(geometry, name)
    for name in ("severity", "rgb", "colors", "check_palette", "NAN_COLOR"):
        assert getattr(dataflow, name) is getattr(colour_scale, name)


@pytest.mark.parametrize(
    "method, buckets", [(m, 0) for m in ("median", "mean", "linear", "log", "hist")] + [("hist", 4)]
)
def test_row_wise_scaling_equals_scaling_each_row(method, buckets):
    rng = np.random.default_rng(7)
    rows = rng.integers(0, 9, size=(40, 57)).astype(float)
    rows[3] = 0  # no value on the scale
    rows[4, 1:] = 0  # one value
    rows[5, 2:] = 0  # two values: even count
    s, ranges = severity_rows(rows, method, buckets)
    for k, row in enumerate(rows):
        want = severity(row, method, buckets)
        np.testing.assert_allclose(s[k], want, equal_nan=True, err_msg=f"row {k}")
        assert bar_ticks(ranges[k]) == bar_ticks(scale_range(row, method))


# -- docs/data-movement.md#the-local-view-of-one-phase's examples ---------------------------------------------------------------------


def test_outer_product_clicking_b0_lights_c_column_0_and_a():
    view = LocalView(None, "C[i,j] = A[i] * B[j]", {"i": 3, "j": 4})
    view.select("B", (0,))
    related = from_payload(view.selected["related"])
    a, b, c = related[:3], related[3:7], related[7:].reshape(3, 4)
    assert a.tolist() == [1, 1, 1]
    assert c[:, 0].tolist() == [1, 1, 1] and not c[:, 1:].any()
    assert b.tolist() == [3, 0, 0, 0]
    view.select("B", (1,))  # a second click: counts add up
    related = from_payload(view.selected["related"])
    assert related[:3].tolist() == [2, 2, 2]
    assert related[7:].reshape(3, 4)[:, :2].tolist() == [[1, 1]] * 3


def test_fig_5a_cache_line_of_a00():
    # A[9,10] float32 in C order, 64-byte lines: A[0,0] shares its line with A[0,0..9] and A[1,0..5]
    view = LocalView(None, MATMUL, {"i": 9, "k": 10, "j": 15}, elem_bytes=4, cache=Cache(line=64, lines=64))
    view.select("A", (0, 0))
    mask = from_payload(view.selected["line_mask"]).astype(bool)
    a = mask[:90].reshape(9, 10)
    want = np.zeros((9, 10), bool)
    want[0, :] = True
    want[1, :6] = True
    np.testing.assert_array_equal(a, want)
    assert not mask[90:].any(), "elements of other tensors are never on A's line"


def test_padded_rows_align_every_row_to_a_line():
    view = LocalView(None, MATMUL, {"i": 9, "k": 10, "j": 15}, elem_bytes=4, cache=Cache(line=64, lines=64))
    view.layouts = {**view.layouts, "A": {"order": "C", "pad": 6, "offset": 0}}  # row stride 16 elements = 64 B
    view.select("A", (1, 0))
    a = from_payload(view.selected["line_mask"]).astype(bool)[:90].reshape(9, 10)
    want = np.zeros((9, 10), bool)
    want[1, :] = True
    np.testing.assert_array_equal(a, want)


def test_column_major_layout_puts_columns_on_a_line():
    view = LocalView(None, MATMUL, {"i": 9, "k": 10, "j": 15}, elem_bytes=4, cache=Cache(line=64, lines=64))
    view.set_state({"layouts": {**view.layouts, "B": {"order": "F", "pad": 0, "offset": 0}}})
    assert view.message == ""
    view.select("B", (0, 1))  # B[10,15] in F order: B[0..9, 1] is 40 bytes from byte 40 → line 0 and 1
    b = from_payload(view.selected["line_mask"]).astype(bool)[90:240].reshape(10, 15)
    assert b[:, 1].sum() >= 6 and not b[:, 3:].any()


# -- numbers against a plain LRU written here -------------------------------------------------------


@pytest.mark.parametrize("order", [["i", "j", "k"], ["i", "k", "j"]])
def test_readout_misses_equal_a_plain_lru(order):
    view = LocalView(
        None, MATMUL, {"i": 12, "j": 12, "k": 12}, elem_bytes=8, loop_order=order, cache=Cache(line=64, lines=16)
    )
    lines = lines_of(view)
    assert total_row(view)[2] == plain_lru_misses(lines, 16)
    for capacity in (1, 5, 40, 200):
        view.capacity = capacity
        row = total_row(view)
        assert row[2] == plain_lru_misses(lines, capacity), capacity
        cold = len(set(lines))
        assert row[3] == cold and row[3] + row[4] + row[5] == row[2]


def test_loop_interchange_recomputes_the_readout():
    view = LocalView(None, MATMUL, {"i": 16, "j": 16, "k": 16}, elem_bytes=8, cache=Cache(line=64, lines=8))
    before = total_row(view)[2]
    view.set_state({"loop_order": ["i", "k", "j"]})
    after = total_row(view)[2]
    assert view.loop_order == ["i", "k", "j"] and view.loops["names"] == ["i", "k", "j"]
    assert after == plain_lru_misses(lines_of(view), 8)
    assert after < before, "ikj streams B and C along rows: fewer misses than ijk"


def test_set_associative_conflicts_equal_a_plain_lru():
    view = LocalView(None, MATMUL, {"i": 8, "j": 8, "k": 8}, elem_bytes=8, cache=Cache(line=64, lines=16))
    lines = lines_of(view)
    view.set_state({"ways": 2})
    row = total_row(view)
    assert row[2] == plain_lru_misses(lines, 16, ways=2)
    assert row[5] == plain_lru_misses(lines, 16, ways=2) - plain_lru_misses(lines, 16), "conflict = SA - FA"
    view.set_state({"capacity": 8})
    assert total_row(view)[2] == plain_lru_misses(lines, 8, ways=2)


def test_capacity_step_does_not_re_simulate(monkeypatch):
    view = LocalView(None, MATMUL, {"i": 10, "j": 10, "k": 10}, cache=Cache(line=32, lines=8))
    lines = lines_of(view)

    def forbidden(*args, **kwargs):
        raise AssertionError("a fully associative capacity step must read the histogram, not re-simulate")

    monkeypatch.setattr(lv, "simulate", forbidden)
    monkeypatch.setattr(lv, "stack_distances", forbidden)
    monkeypatch.setattr(lv, "trace", forbidden)
    for capacity in (3, 17, 64):
        view.set_state({"capacity": capacity})
        assert view.message == ""
        assert total_row(view)[2] == plain_lru_misses(lines, capacity)
        assert view.readout["capacity"] == capacity


def test_capacity_table_holds_the_misses_of_every_capacity():
    view = LocalView(None, MATMUL, {"i": 6, "j": 5, "k": 7}, elem_bytes=8, cache=Cache(line=32, lines=8))
    lines = lines_of(view)
    table = view.capacity_table
    D = table["capacities"]
    assert D == len(set(lines)) + 1
    per_tensor = from_payload(table["tensor_misses"])
    per_element = from_payload(table["element_misses"])
    g = from_payload(view.accesses["element"])
    tensor = view.trace.tensor
    for capacity in range(1, D + 1):
        assert per_tensor[capacity - 1].sum() == plain_lru_misses(lines, capacity), capacity
        # per tensor and per element: the accesses a plain LRU misses, counted where they belong
        d = np.array(plain_lru_distances(lines))
        missed = (d < 0) | (d >= capacity)
        np.testing.assert_array_equal(per_tensor[capacity - 1], np.bincount(tensor[missed], minlength=3))
        np.testing.assert_array_equal(per_element[capacity - 1], np.bincount(g[missed], minlength=per_element.shape[1]))
    severity_rows = from_payload(table["severity"])
    assert severity_rows.shape == per_element.shape
    assert ((severity_rows == 255) == (per_element == 0)).all(), "255 marks elements without a miss"
    assert not view.miss_map, "fully associative: the table covers the misses mode"
    view.set_state({"ways": 2})
    assert from_payload(view.miss_map["misses"]).sum() == plain_lru_misses(lines, 8, ways=2)


def test_reuse_statistics_and_histogram_per_element():
    view = LocalView(
        None, "C[i,j] = A[i,k] * B[k,j]", {"i": 4, "j": 3, "k": 5}, elem_bytes=8, cache=Cache(line=32, lines=4)
    )
    d = np.array(plain_lru_distances(lines_of(view)))
    g = from_payload(view.accesses["element"])
    stats = from_payload(view.heat["reuse"])
    cold = from_payload(view.heat["cold"])
    for e in range(len(stats)):
        mine = d[g == e]
        warm = np.sort(mine[mine >= 0])
        assert cold[e] == (mine < 0).sum()
        if warm.size:
            assert stats[e].tolist() == [warm[0], np.median(warm), warm[-1]], e
        else:
            assert np.isnan(stats[e]).all()
    e = view.element_of("B", (2, 1))
    view.selection = [e]
    hist = from_payload(view.selected["hist"])
    mine = d[g == e]
    assert view.selected["hist_cold"] == (mine < 0).sum()
    np.testing.assert_array_equal(hist, np.bincount(mine[mine >= 0]))
    assert view.selected["hist_title"] == "stack distances of B[2,1]"


def test_reuse_heatmap_marks_cold_only_and_untouched_apart():
    # B[j] is read once per (i, j) with j innermost... A[i+1] leaves A[0] untouched
    view = LocalView(None, "C[i] = A[i+1] * B[i]", {"i": 3}, elem_bytes=8, cache=Cache(line=8, lines=4))
    rgb = from_payload(view.heat["reuse_rgb"])
    count = from_payload(view.heat["count"])
    a0 = view.element_of("A", (0,))
    assert count[a0] == 0 and tuple(rgb[a0]) == lv.UNTOUCHED_RGB
    b0 = view.element_of("B", (0,))
    assert count[b0] == 1 and tuple(rgb[b0]) == lv.COLD_ONLY_RGB


# -- validation: refused with a message naming field and value, widget stays usable ------------------


@pytest.mark.parametrize(
    "change, words",
    [
        ({"line": 48}, ["line=48", "power of two"]),
        ({"line": 0}, ["line=0"]),
        ({"capacity": 0}, ["capacity=0"]),
        ({"ways": 3}, ["ways=3", "capacity=16"]),
        ({"ways": 0}, ["ways=0"]),
        ({"loop_order": ["i", "i", "k"]}, ["loop_order=", "'i', 'i', 'k'"]),
        ({"layouts": {"Z": {"order": "C"}}}, ["unknown tensors", "'Z'"]),
        ({"layouts": {"A": {"order": "X"}}}, ["layouts['A'].order='X'"]),
        ({"layouts": {"A": {"order": "C", "pad": -1}}}, ["layouts['A'].pad=-1"]),
        ({"layouts": {"A": {"order": "C", "offset": 1.5}}}, ["layouts['A'].offset=1.5"]),
        ({"layouts": {"A": {"order": "C", "strides": [1, 1]}}}, ["strides", "shorter"]),
        ({"selection": [10_000]}, ["selection=", "10000"]),
    ],
)
def test_bad_control_values_are_refused_with_a_message(change, words):
    view = LocalView(None, MATMUL, {"i": 4, "j": 4, "k": 4}, cache=Cache(line=64, lines=16))
    before = {key: getattr(view, key) for key in ("line", "capacity", "ways", "loop_order", "layouts", "selection")}
    readout = total_row(view)
    view.set_state(change)
    assert view.message.startswith("refused"), view.message
    for word in words:
        assert word in view.message, (word, view.message)
    assert {key: getattr(view, key) for key in before} == before, "a refused value is not stored"
    assert total_row(view) == readout
    view.set_state({"capacity": 1})  # still usable
    assert view.capacity == 1 and view.message == "" and total_row(view) != readout


def test_python_assignment_raises_naming_the_field():
    view = LocalView(None, MATMUL, {"i": 4, "j": 4, "k": 4}, cache=Cache(line=64, lines=16, ways=4))
    with pytest.raises(traitlets.TraitError, match=r"capacity=6 lines is not divisible by ways=4"):
        view.capacity = 6
    with pytest.raises(traitlets.TraitError, match=r"capacity_bytes=100"):
        view.capacity_bytes = 100
    view.capacity_bytes = 2048
    assert view.capacity == 32 and view.cache == Cache(line=64, lines=32, ways=4)


def test_constructor_errors_name_what_is_wrong():
    with pytest.raises(TypeError, match="unexpected keyword arguments: colour"):
        LocalView(None, MATMUL, {"i": 2, "j": 2, "k": 2}, colour="red")
    with pytest.raises(WorkloadError, match="no size"):
        LocalView(None, MATMUL, {"i": 2, "j": 2})
    workload = Workload([Phase("gemm", duration=1.0, compute_util=0.5, memory_util=0.5)])
    with pytest.raises(WorkloadError, match="phase .gemm. carries no Einsum .build the workload"):
        LocalView(workload, "gemm", {"i": 2})
    with pytest.raises(WorkloadError, match="phase 'nope' is not in the workload"):
        LocalView(workload, "nope", {"i": 2})
    with pytest.raises(WorkloadError, match="more than the view draws"):
        LocalView(None, "C[i,j] = A[i,j]", {"i": 1000, "j": 1000})


# -- a phase of a workload, and applying the prediction back --------------------------------------


def gemm_workload():
    from campaign_widget import Machine

    return Workload.from_einsums(
        {"gemm": MATMUL},
        {"i": 32, "j": 32, "k": 32},
        machine=Machine(peak_compute=1e9, peak_bandwidth=1e9),
        element_bytes=8,
    )


def test_a_phase_of_a_workload_opens_with_its_einsum_and_element_bytes():
    view = LocalView(gemm_workload(), "gemm", {"i": 8, "j": 8, "k": 8}, cache=Cache(line=64, lines=16))
    assert view.trace.tensors == ("A", "B", "C") and view.trace.elem_bytes == (8, 8, 8)
    assert view.can_apply


def test_apply_gives_the_phase_predicted_bytes_and_calls_back():
    from campaign_widget.cache import with_predicted_traffic

    workload = gemm_workload()
    view = LocalView(
        workload, "gemm", {"i": 8, "j": 8, "k": 8}, cache=Cache(line=64, lines=8), loop_order=["i", "k", "j"]
    )
    seen = []
    view.on_apply(seen.append)
    view.set_state({"apply_requests": 1})  # the view's button
    assert len(seen) == 1 and view.applied is seen[0]
    want = with_predicted_traffic(
        workload,
        "gemm",
        Cache(line=64, lines=8),
        local_sizes={"i": 8, "j": 8, "k": 8},
        loop_order=["i", "k", "j"],
        mode="ratio",
    )
    assert seen[0].arrays.bytes[0] == want.arrays.bytes[0] != workload.arrays.bytes[0]
    assert "applied to phase 'gemm'" in view.message
    view.set_state({"loop_order": ["i", "j", "k"]})
    ijk = view.apply()
    assert ijk.arrays.bytes[0] > seen[0].arrays.bytes[0], "ijk misses more than ikj in an 8-line cache"


def two_phase_workload():
    from campaign_widget import Machine

    return Workload.from_einsums(
        {"gemm": MATMUL, "scale": "D[i,j] = C[i,j]"},
        {"i": 32, "j": 32, "k": 32},
        machine=Machine(peak_compute=1e9, peak_bandwidth=1e9),
        element_bytes=8,
    )


def test_apply_redraws_a_linked_diagram_and_a_loop_interchange_shortens_the_phase():
    from campaign_widget import CampaignDiagram
    from campaign_widget.cache import with_predicted_traffic

    workload = two_phase_workload()
    diagram = CampaignDiagram(workload, tiles=2)
    logical = diagram.makespan
    assert logical == pytest.approx(workload.schedule(tiles=2).makespan)
    cache, local = Cache(line=64, lines=8), {"i": 8, "j": 8, "k": 8}
    view = LocalView(workload, "gemm", local, cache=cache, loop_order="ijk", diagram=diagram)
    assert view.linked == [diagram] and diagram.makespan == logical, "linking alone changes nothing"

    def expected(order):  # the model, computed apart from the view and the diagram
        return with_predicted_traffic(workload, "gemm", cache, local_sizes=local, loop_order=order, mode="ratio")

    view.set_state({"apply_requests": 1})  # the view's button
    ijk = expected("ijk")
    assert diagram.makespan == pytest.approx(ijk.schedule(tiles=2).makespan) != pytest.approx(logical)
    assert diagram.workload.table()["bytes_source"].tolist() == ["predicted", "logical"]
    assert diagram.workload.arrays.bytes[0] == ijk.arrays.bytes[0]
    assert diagram.tiles == 2, "the diagram keeps its controls"
    assert "shown in 1 linked diagram" in view.message
    ijk_duration = diagram.workload.arrays.duration[0]

    view.set_state({"loop_order": ["i", "k", "j"]})
    assert diagram.makespan == pytest.approx(ijk.schedule(tiles=2).makespan), "nothing moves before apply"
    view.apply()
    ikj = expected("ikj")
    assert diagram.makespan == pytest.approx(ikj.schedule(tiles=2).makespan)
    assert diagram.workload.arrays.duration[0] < ijk_duration, "ikj shortens the gemm bar"
    assert diagram.workload.arrays.duration[1] == workload.arrays.duration[1], "the other phase is as it was"

    view.unlink(diagram)
    assert view.linked == []
    view.loop_order = "ijk"
    view.apply()
    assert diagram.makespan == pytest.approx(ikj.schedule(tiles=2).makespan), "an unlinked diagram stays"


def test_link_refuses_what_it_cannot_update():
    from campaign_widget import CampaignDiagram

    workload = two_phase_workload()
    with pytest.raises(TypeError, match="takes a campaign_widget.CampaignDiagram, got dict"):
        LocalView(workload, "gemm", {"i": 2, "j": 2, "k": 2}, diagram={})
    other = CampaignDiagram(Workload([Phase("load", duration=1.0, compute_util=0.5, memory_util=0.5)]))
    with pytest.raises(WorkloadError, match="the diagram has no phase 'gemm'; its phases: \\['load'\\]"):
        LocalView(workload, "gemm", {"i": 2, "j": 2, "k": 2}).link(other)
    with pytest.raises(WorkloadError, match="opened on an Einsum"):
        LocalView(None, MATMUL, {"i": 2, "j": 2, "k": 2}).link(CampaignDiagram(workload))
    with pytest.raises(ValueError, match="is not linked to this view"):
        LocalView(workload, "gemm", {"i": 2, "j": 2, "k": 2}).unlink(other)


def test_apply_needs_a_workload_phase():
    view = LocalView(None, MATMUL, {"i": 2, "j": 2, "k": 2})
    assert not view.can_apply
    with pytest.raises(WorkloadError, match="opened on an Einsum"):
        view.apply()


def test_docstring_examples_run():
    import doctest

    import campaign_widget.figures.colour_scale as colour_scale
    import campaign_widget.figures.local as geometry

    for module in (geometry, lv, colour_scale):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, module.__name__
    assert doctest.testmod(geometry).attempted > 0 and doctest.testmod(colour_scale).attempted > 0


def test_line_of_every_element_follows_the_layout():
    view = LocalView(
        None,
        MATMUL,
        {"i": 5, "j": 3, "k": 7},
        layouts={"B": {"order": "F", "pad": 3, "offset": 5}, "C": {"order": "C", "byte_offset": 40}},
    )
    tr = view.trace
    assert tr.strides[1] == (1, 10), "F order, 7 rows padded by 3: column stride 10"
    want = np.concatenate(
        [
            tr.element_address(name, np.arange(int(np.prod(shape))), 64) // 64
            for name, shape in zip(tr.tensors, tr.shapes)
        ]
    )
    np.testing.assert_array_equal(from_payload(view.heat["line"]), want)


def test_a_scalar_output_is_one_cell():
    view = LocalView(None, "s[] = x[i] * y[i]", {"i": 5})
    assert view.tensors["shapes"] == [[5], [5], []]
    view.select("s", ())
    related = from_payload(view.selected["related"])
    assert related.tolist() == [1] * 10 + [5], "every iteration touches s: all of x and y are related"


def test_a_dimension_order_stores_the_tensor_transposed():
    # seed 001's hdiff step 1: in_field[i,j,k] stored as [k,i,j] puts one (i, j) plane at a time in memory
    view = LocalView(None, "out[i,j,k] = inf[i,j,k] * c[i,j,k]", {"i": 3, "j": 4, "k": 5})
    view.set_state({"layouts": {**view.layouts, "inf": {"order": "2,0,1", "pad": 0, "offset": 0}}})
    assert view.message == "" and view.layouts["inf"]["order"] == "2,0,1"
    assert view.trace.strides[0] == (4, 1, 12)
    view.set_state({"layouts": {**view.layouts, "inf": {"order": "2,0,1", "pad": 2, "offset": 0}}})
    assert view.trace.strides[0] == (6, 1, 18), "rows of 4 padded to 6"
    view.set_state({"layouts": {**view.layouts, "inf": {"order": "2,0", "pad": 0, "offset": 0}}})
    assert "layouts['inf'].order='2,0'" in view.message and view.trace.strides[0] == (6, 1, 18)


def test_the_capacity_slider_reaches_a_capacity_set_from_python():
    view = LocalView(None, MATMUL, {"i": 4, "j": 4, "k": 4}, cache=Cache(line=64, lines=2))
    assert view.capacity_max == len(set(lines_of(view))) + 1
    view.capacity = 1000
    assert view.capacity_max == 1000 and total_row(view)[2] == len(set(lines_of(view)))
    view.capacity = 2
    assert view.capacity_max == len(set(lines_of(view))) + 1


# -- after an apply, changed controls leave the phase with the old bytes: the message says so ---------


def test_a_control_change_after_apply_says_the_phase_shows_the_old_bytes_until_apply():
    from campaign_widget import CampaignDiagram

    workload = two_phase_workload()
    diagram = CampaignDiagram(workload)
    local = {"i": 8, "j": 8, "k": 8}
    view = LocalView(workload, "gemm", local, cache=Cache(line=64, lines=8), loop_order="ijk", diagram=diagram)
    view.set_state({"capacity": 16})
    assert view.message == "" and not view.apply_pending, "nothing applied yet: nothing is stale"
    view.set_state({"apply_requests": 1})
    applied = view.message
    shown = diagram.workload.arrays.bytes[0]
    assert applied.startswith("applied to phase 'gemm'") and not view.apply_pending
    assert f"{shown:,.0f} B predicted" in applied

    view.set_state({"capacity": 4})  # the slider: the diagram still shows the bytes of 16 lines
    assert view.apply_pending
    assert view.message.startswith("capacity changed — press Apply to update phase 'gemm'"), view.message
    assert f"it shows {shown:,.0f} B predicted" in view.message and "16 lines of 64 B" in view.message
    assert diagram.workload.arrays.bytes[0] == shown, "nothing is applied until Apply"
    assert view.get_state()["apply_pending"] is True, "the view is told"

    view.set_state({"loop_order": ["i", "k", "j"]})
    assert view.message.startswith("capacity and loop order changed — press Apply"), view.message

    view.set_state({"capacity": 16, "loop_order": ["i", "j", "k"]})  # back to what was applied
    assert view.message == applied and not view.apply_pending

    view.set_state({"capacity": 4})
    view.set_state({"apply_requests": 2})
    assert view.message.startswith("applied to phase 'gemm'") and not view.apply_pending
    assert diagram.workload.arrays.bytes[0] > shown and "4 lines of 64 B" in view.message


def test_a_refused_value_after_apply_is_reported_and_the_pending_note_follows_the_next_change():
    view = LocalView(gemm_workload(), "gemm", {"i": 8, "j": 8, "k": 8}, cache=Cache(line=64, lines=8))
    view.apply()
    view.set_state({"line": 48})
    assert view.message.startswith("refused") and not view.apply_pending, "a refused value changes nothing"
    view.set_state({"line": 32})
    assert view.message.startswith("cache line changed — press Apply"), view.message
    assert view.apply_pending
