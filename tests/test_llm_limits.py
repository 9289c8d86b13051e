"""Issue 32 item 1 and issue 34's bad input, what the first builders left: a transformer that does not fit
its machine's memory is said so in the diagram's readout (live, static, HTML alike) and marked on a sweep's
heatmap; bytes in flight above what a level holds are warned of; a phase whose bytes are unknown is bound
by nothing in ``Workload.table()``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import campaign_widget as cw
from campaign_widget import Machine, Phase, Workload
from campaign_widget.static_figure import render_figure

GIB80 = 80e9
H100 = dict(peak_compute=989.5e12, peak_bandwidth=3.35e12, capacity=GIB80)
# llama-2-7b in fp16: 6.74e9 parameters, 13.5 GB of weights, and 0.5 MiB of KV cache per token
# (32 layers × 2 × 4096 × 2 B): 64 sequences of 4,096 tokens hold 137 GB of cache, 1 sequence 2.1 GB
DECODE = dict(stage="decode", seq=1024, kv_len=4096)


def _decode(batch: int, machine=None) -> Workload:
    return Workload.from_transformer("llama-2-7b", batch=batch, **DECODE, machine=machine or Machine(**H100))


def _texts(rendered) -> list[str]:
    return [t.get_text() for t in rendered.figure.findobj(lambda a: hasattr(a, "get_text")) if t.get_text()]


# -- 1. the diagram says when a configuration does not fit --------------------------------------------


def _does_not_fit(lines) -> list[str]:
    return [str(line) for line in lines if "does not fit" in str(line)]


def test_the_readout_says_a_transformer_does_not_fit_live_static_and_in_html(tmp_path):
    d = cw.CampaignDiagram(_decode(64))
    said = [(text, kind) for text, kind in d.readout_lines if "does not fit" in text]
    assert len(said) == 1, d.readout_lines
    text, kind = said[0]
    assert kind == "warning"  # drawn in the warning colour by both renderers
    assert "80 GB" in text and "per device" in text, text
    assert "weights 13.5 GB" in text and "KV cache 137 GB" in text and "151 GB per device" in text, text
    static = _does_not_fit(_texts(render_figure(d.panel())))
    assert static and text.startswith(static[0].split(" (")[0]), static
    page = d.to_html(tmp_path / "d.html").read_text(encoding="utf-8")
    assert "does not fit" in page


def test_the_readout_follows_the_batch_and_is_silent_when_it_fits():
    d = cw.CampaignDiagram(_decode(64))
    assert _does_not_fit(d.readout_lines)
    d.params = {**d.params, "batch": 1}  # 13.5 GB + 2.1 GB: fits
    assert not _does_not_fit(d.readout_lines), d.readout_lines
    assert not _does_not_fit(_texts(render_figure(d.panel())))


def test_no_capacity_or_no_transformer_says_nothing_of_fitting():
    no_capacity = Machine(peak_compute=H100["peak_compute"], peak_bandwidth=H100["peak_bandwidth"])
    assert not _does_not_fit(cw.CampaignDiagram(_decode(64, no_capacity)).readout_lines)
    tiny = Machine(1e12, 1e11, capacity=1.0)  # holds one byte; a workload of phases has no footprint
    plain = Workload([Phase("A", ops=1e9, bytes=1e9)], machine=tiny)
    assert not _does_not_fit(cw.CampaignDiagram(plain).readout_lines)


def test_a_generation_and_tensor_parallel_say_it_too():
    tp = Workload.from_transformer("llama-2-7b", batch=64, **DECODE, tensor_parallel=2, machine=Machine(**H100))
    lines = _does_not_fit(cw.CampaignDiagram(tp).readout_lines)  # 6.7 GB + 68.7 GB per device: fits
    assert not lines
    tp4 = tp.with_params(batch=128)  # 137 GB of cache per device: it does not
    assert _does_not_fit(cw.CampaignDiagram(tp4).readout_lines)
    gen = Workload.from_transformer(
        "llama-2-7b", batch=64, seq=4096, stage="generate", new_tokens=8, machine=Machine(**H100)
    )
    assert _does_not_fit(cw.CampaignDiagram(gen).readout_lines)


# -- 3. bytes in flight above a level's capacity --------------------------------------------------


def test_bytes_in_flight_above_what_a_level_holds_are_warned_of_by_phase_level_and_numbers():
    from campaign_widget.errors import CapacityWarning

    m = Machine(1e12, levels={"L2": 4e12, "HBM": 1e12}, latency={"L2": 2e-7, "HBM": 6e-7}, capacity={"L2": 4e6})
    phases = [
        Phase("gather", ops=1e9, bytes=1e9, bytes_in_flight=8e6),
        Phase("scan", ops=1e9, bytes=1e9, bytes_in_flight=1e6),
    ]
    with pytest.warns(CapacityWarning) as caught:
        Workload(phases, machine=m)
    assert len(caught) == 1  # the level with a capacity; HBM gives none
    text = str(caught[0].message)
    assert "'gather'" in text and "'L2'" in text and "8000000.0" in text and "4000000.0" in text, text
    assert "'scan'" not in text
    with warnings.catch_warnings():
        warnings.simplefilter("error", CapacityWarning)
        Workload([phases[1]], machine=m)  # 1 MB in flight fits 4 MB
        Workload(phases, machine=Machine(1e12, levels={"L2": 4e12, "HBM": 1e12}))  # no capacity: no warning


# -- 4. the table's bound of a phase whose bytes are unknown --------------------------------------


def test_the_table_says_bytes_unknown_where_the_source_gives_no_bytes(tmp_path):
    from test_true_words import _trace_without_bytes  # a GPU trace of FLOPs and no bytes

    w = _trace_without_bytes(tmp_path)
    assert list(w.table()["bound"]) == ["bytes unknown", "bytes unknown"]
    known = Workload([Phase("A", ops=1e12, bytes=1.0), Phase("B", ops=1.0, bytes=1e11)], machine=Machine(1e12, 1e11))
    assert list(known.table()["bound"]) == ["compute", "memory"]


# -- 2. a sweep over batch × kv_len marks the configurations that do not fit ---------------------------

BATCHES, KV_LENS = [1, 16, 64, 128], [512, 8192, 32768]


@pytest.fixture(scope="module")
def llm_sweep():
    from campaign_widget.sweep import sweep

    return sweep(_decode(8), batch=BATCHES, kv_len=KV_LENS, progress=False)


def _expected_unfit() -> np.ndarray:
    """Rows kv_len, columns batch: the footprint of each configuration asked afresh."""
    return np.array(
        [
            [
                not cw.transformer.footprint(
                    "llama-2-7b", batch=b, **{**DECODE, "kv_len": k}, machine=Machine(**H100)
                ).fits
                for b in BATCHES
            ]
            for k in KV_LENS
        ]
    )


def test_the_heatmap_grid_marks_the_configurations_that_do_not_fit(llm_sweep):
    from campaign_widget.figures.sweep_grid import sweep_grid

    expected = _expected_unfit()
    assert expected.any() and not expected.all()  # the boundary crosses the grid
    grid = sweep_grid(llm_sweep, x="batch", y="kv_len")
    assert grid.unfit is not None and np.array_equal(grid.unfit, expected)
    assert grid.unfit_label == "does not fit in 80 GB of memory"
    swapped = sweep_grid(llm_sweep, x="kv_len", y="batch")
    assert np.array_equal(swapped.unfit, expected.T)


def test_the_static_heatmap_hatches_them_and_says_so(llm_sweep):
    from campaign_widget.static_figure.heatmap import render_sweep_heatmap

    fig = render_sweep_heatmap(llm_sweep, x="batch", y="kv_len")
    hatched = {
        (round(p.get_y() + 0.5), round(p.get_x() + 0.5))
        for ax in fig.axes
        for p in ax.patches
        if p.get_gid() == "unfit" and p.get_hatch()
    }
    assert hatched == {tuple(cell) for cell in np.argwhere(_expected_unfit()).tolist()}
    texts = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
    assert "hatched: does not fit in 80 GB of memory" in texts


def test_the_canvas_and_the_bqplot_heatmaps_get_the_same_cells(llm_sweep):
    from campaign_widget.views.sweep import SweepView
    from campaign_widget.views.sweep_canvas import SweepHeatmap

    expected = _expected_unfit()
    canvas = SweepHeatmap(llm_sweep, x="batch", y="kv_len")
    assert np.array_equal(np.asarray(canvas.grid["unfit"]).astype(bool), expected)
    assert canvas.grid["unfit_label"] == "hatched: does not fit in 80 GB of memory"
    view = SweepView(llm_sweep, x="batch", y="kv_len")
    assert view.unfit_outline.visible
    assert {tuple(c) for c in np.asarray(view.unfit_outline.selected).tolist()} == {
        tuple(c) for c in np.argwhere(expected).tolist()
    }
    assert view.unfit_label.value.endswith("does not fit in 80 GB of memory")
    # the clicked configuration's diagram says so in its readout; one that fits does not
    row, col = np.argwhere(expected)[0]
    view.select(int(view.indices()[row, col]))
    assert _does_not_fit(view.diagram.readout_lines)
    view.select(int(view.indices()[0, 0]))
    assert not expected[0, 0] and not _does_not_fit(view.diagram.readout_lines)


def test_a_sweep_of_no_transformer_or_no_capacity_marks_nothing():
    from campaign_widget.figures.sweep_grid import sweep_grid
    from campaign_widget.sweep import sweep

    no_capacity = Machine(peak_compute=H100["peak_compute"], peak_bandwidth=H100["peak_bandwidth"])
    r = sweep(_decode(8, no_capacity), batch=[1, 128], kv_len=[512, 32768], progress=False)
    g = sweep_grid(r, x="batch", y="kv_len")
    assert g.unfit is None and g.unfit_label == ""
    plain = Workload([Phase("A", ops=1e12, bytes=1e12)], machine=Machine(1e12, 1e11, capacity=1.0))
    g = sweep_grid(sweep(plain, tiles=[1, 2], policy=["none", "throttle"], progress=False), x="tiles", y="policy")
    assert g.unfit is None
