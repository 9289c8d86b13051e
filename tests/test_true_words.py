"""Issue 29, what the views and the static export say (items 1, 2, 4, 5, 11): nothing on screen is false.

Each class is tested from its description, on the text the views sync (titles, readouts, hover lines), the
text a static figure draws and what a marimo app quotes:

1. an infeasible schedule (demand above a resource's peak) is said to be so wherever its makespan is
   printed, and is never called faster; a roofline point above its roof says why;
2. a phase whose bytes the source does not give reads "bytes unknown": no bound, no advice; names that
   shorten alike are told apart;
4. on a machine with several memory levels every bandwidth and roof shown names its level;
5. a title follows the parameters it quotes; a sweep's "best" says what it optimises and the caller
   chooses it; a slowdown is never called a speedup;
11. a makespan is printed once per view, in one format.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import workloads

import campaign_widget as cw
from campaign_widget import Machine, Phase, StackedDiagrams, Workload
from campaign_widget.figures.roofline import phase_details, roofline_geometry
from campaign_widget.static_figure import panel_for, render_figure, roofline_panel_for
from campaign_widget.static_figure.legend import legend_entries
from campaign_widget.views.roofline_canvas import RooflinePlot

REPO = Path(__file__).resolve().parents[1]
PIPELINED = dict(tiles=4, pipeline=True)  # the two phases' tiles then ask for 150% of memory under policy none


def _texts(rendered) -> list[str]:
    return [t.get_text() for t in rendered.figure.findobj(lambda a: hasattr(a, "get_text")) if t.get_text()]


def _figure_texts(panels, roofline=None) -> list[str]:
    return _texts(render_figure(panels, roofline=roofline))


# -- 1. infeasible schedules ------------------------------------------------------------------------


def test_the_model_knows_whether_a_makespan_is_achievable():
    w = workloads.two_phases()
    over = w.schedule(**PIPELINED)  # policy none: memory at 150%
    assert not over.feasible and over.oversubscribed
    assert "infeasible" in over.infeasibility() and "150%" in over.infeasibility()
    assert w.schedule(**PIPELINED, policy="dilate+throttle").feasible
    assert w.schedule().feasible and w.schedule().infeasibility() == ""


def test_an_infeasible_panel_is_said_so_and_called_faster_than_nothing():
    w = workloads.two_phases()
    stack = StackedDiagrams({"sequential": w, "pipelined, no policy": (w, PIPELINED)})
    title = stack.diagrams["pipelined, no policy"].title
    assert "infeasible" in title, title
    assert "faster" not in title and "slower" not in title, title
    assert np.isnan(stack.speedups["pipelined, no policy"])


def test_no_panel_is_compared_with_an_infeasible_first_one():
    w = workloads.two_phases()
    stack = StackedDiagrams({"no policy": (w, PIPELINED), "throttled": (w, dict(PIPELINED, policy="throttle"))})
    title = stack.diagrams["throttled"].title
    assert "faster" not in title and "slower" not in title, title
    assert "infeasible" in title  # it says why there is no comparison


def test_a_diagram_without_a_title_says_infeasible_in_its_readout():
    d = cw.CampaignDiagram(workloads.two_phases(), **PIPELINED)
    makespan_line = next(text for text, kind in d.readout_lines if kind == "makespan")
    assert "infeasible" in makespan_line, d.readout_lines


def test_the_static_export_of_an_infeasible_panel_calls_it_infeasible_and_never_faster():
    w = workloads.two_phases()
    stack = StackedDiagrams({"sequential": w, "pipelined, no policy": (w, PIPELINED)})
    texts = " ".join(_figure_texts([d.panel() for d in stack.diagrams.values()]))
    assert "infeasible" in texts and "faster" not in texts, texts
    alone = " ".join(_figure_texts([panel_for(w, w.schedule(**PIPELINED))]))  # no title: the readout says it
    assert "infeasible" in alone, alone


def test_a_roofline_above_its_roof_says_why():
    # pipelined with no policy the two phases' bytes move in less time than the bandwidth allows:
    # the schedule's point lies above the memory roof, which only an infeasible schedule can do
    w = workloads.two_phases(machine=Machine(peak_compute=1.0, peak_bandwidth=1.0, name="unit"))
    d = cw.CampaignDiagram(w, **PIPELINED)
    total = roofline_geometry(d.workload, d.schedule).total
    assert total.efficiency[0] > 1  # the premise: above the roof
    where, reach = RooflinePlot(d).readout_lines
    assert "above the roof" in reach and "infeasible" in reach, reach
    static = roofline_panel_for(d.workload, {"schedule": d.schedule})
    assert any("infeasible" in label for label, _, _ in static.aggregates)


def test_stacked_panels_of_different_work_can_compare_nothing():
    w = workloads.two_phases()
    stack = StackedDiagrams({"a": w, "b": workloads.two_phases(scale=2.0)}, compare=False)
    for d in stack.diagrams.values():
        assert "faster" not in d.title and "slower" not in d.title, d.title


def test_notebook_11_compares_prefill_with_decode_as_different_work():
    nb = json.loads((REPO / "notebooks" / "11-llm-inference.ipynb").read_text())
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    # the cell that stacks the prefill workload over the decode one (not the overlapped step's schedules)
    stacked = [c for c in code if "StackedDiagrams" in c and ": prefill" in c and ": decode" in c]
    assert stacked and all("compare=False" in c for c in stacked), stacked


# -- 2. unknown is not a bound ----------------------------------------------------------------------


def _trace_without_bytes(tmp_path) -> Workload:
    """A GPU trace whose kernels record FLOPs and nothing about bytes."""
    gpu = dict(pid=0, tid=7)
    events = [
        dict(ph="X", cat="kernel", name="gemm", ts=0, dur=10, args={"stream": 7, "flops": 2e6}, **gpu),
        dict(ph="X", cat="kernel", name="relu", ts=12, dur=5, args={"stream": 7, "flops": 1e3}, **gpu),
    ]
    path = tmp_path / "no_bytes.json"
    path.write_text(json.dumps({"traceEvents": events}))
    return cw.read_torch_trace(path, machine=Machine(peak_compute=1e12, peak_bandwidth=1e11))


def test_a_phase_with_unknown_bytes_has_no_bound_and_no_advice_in_the_views(tmp_path):
    w = _trace_without_bytes(tmp_path)
    d = cw.CampaignDiagram(w)
    plot = RooflinePlot(d)
    for i in range(len(w)):
        lines = " ".join(phase_details(plot.last_geometry, d.workload, 0.7, i))
        assert "bytes unknown" in lines.lower(), lines
        for advice in ("fix", "Near roof", "Below roof", "compute-bound", "∞"):
            assert advice not in lines, lines
    table = d.phase_table
    assert np.all(np.isnan(table["intensity"])) and np.all(np.isnan(table["bytes"]))
    assert set(np.asarray(table["bound"]).tolist()) == {4}  # not compute, memory, balanced nor latency


def test_names_that_shorten_alike_are_told_apart_in_every_legend():
    from campaign_widget.formatting import shorten_names

    a, b = "x" * 30 + "A" + "y" * 30, "x" * 30 + "B" + "y" * 30
    labels = shorten_names([a, b, a])
    assert labels[0] != labels[1] and labels[0] == labels[2]
    assert all(len(label) <= 40 for label in labels)
    w = Workload([Phase(a, duration=1.0, compute_util=0.5), Phase(b, duration=1.0, compute_util=0.5)])
    phases = [e["label"] for e in legend_entries([panel_for(w, w.schedule())]) if e["kind"] == "phase"]
    assert len(set(phases)) == 2, phases


# -- 4. every level named ---------------------------------------------------------------------------


def _two_levels() -> Workload:
    machine = Machine(peak_compute=1e12, levels={"L2": 4e11, "HBM": 1e11}, name="two levels")
    return Workload(
        [
            Phase("a", ops=1e9, bytes={"L2": 2e9, "HBM": 1e9}),
            Phase("b", ops=2e9, bytes={"L2": 1e9, "HBM": 5e8}, after=["a"]),
        ],
        machine=machine,
    )


def test_the_diagram_names_the_level_it_draws_as_its_pipe():
    d = cw.CampaignDiagram(_two_levels())
    pipe = d.pipe_level
    notes = " ".join(text for text, kind in d.readout_lines if kind == "note")
    assert pipe in notes and "most time" in notes, d.readout_lines
    assert pipe in d.key_labels["well"], d.key_labels
    d.level = "L2"
    assert "pipe: L2" in " ".join(text for text, _ in d.readout_lines)
    assert "L2" in d.key_labels["well"]


def test_a_static_figure_names_its_pipe():
    w = _two_levels()
    texts = " ".join(_figure_texts([panel_for(w, w.schedule(), level="L2")]))
    assert "pipe: L2" in texts and "100% of L2 peak bandwidth" in texts, texts


def test_the_rooflines_reach_says_which_roof():
    d = cw.CampaignDiagram(_two_levels())
    _, reach = RooflinePlot(d).readout_lines
    assert "its roof" not in reach and ("HBM roof" in reach or "compute roof" in reach), reach


# -- 5. text follows the state ----------------------------------------------------------------------


def _sized() -> Workload:
    """A decode-like phase: its weights (1 GB) read whatever the batch ``B``, its work growing with ``B``;
    memory-bound at every batch swept, so a larger batch does more work in almost the same time."""
    return Workload(
        [Phase("p", ops="2*B*1e9", bytes="1e9 + B*1e6")], params={"B": 16}, machine=Machine(1e14, 1e11, name="m")
    )


def test_a_title_that_quotes_a_parameter_follows_it_or_says_the_value_it_was_written_at():
    templated = cw.CampaignDiagram(_sized(), title="decode, batch {B}")
    assert templated.title == "decode, batch 16"
    templated.set_params(B=256)
    assert templated.title == "decode, batch 256"
    written = cw.CampaignDiagram(_sized(), title="decode, B 16")
    written.set_params(B=256)
    assert "256" in written.title and "16" in written.title, written.title  # never "B 16" alone


def test_a_stacked_label_follows_its_panels_parameters():
    stack = StackedDiagrams({"B={B}": _sized()})
    (d,) = stack.diagrams.values()
    d.set_params(B=64)
    assert d.title.startswith("B=64:"), d.title


def test_the_marimo_app_has_one_bandwidth_control_and_quotes_what_the_diagram_draws():
    pytest.importorskip("marimo")
    sys.path.insert(0, str(REPO / "notebooks"))
    try:
        import marimo_explorer
    finally:
        sys.path.remove(str(REPO / "notebooks"))
    _, defs = marimo_explorer.app.run()
    diagram = defs["explorer"].diagram
    assert not diagram.show_controls, "the diagram's own bandwidth slider would override the app's"
    assert diagram.peak_bandwidth == pytest.approx(defs["bandwidth"].value * 1e12)
    assert defs["makespan"] == diagram.makespan


def _batch_sweep():
    return cw.sweep(_sized(), B=[1, 4, 16, 64], progress=False)


def test_a_sweeps_best_says_what_it_optimises_and_the_caller_chooses():
    from campaign_widget.figures.sweep_grid import best_line

    r = _batch_sweep()
    fastest, busiest = r.best("latency"), r.best("throughput")
    assert r.configuration(fastest)["B"] == 1 and r.configuration(busiest)["B"] == 64
    assert r.best() == fastest  # the default stays the shortest makespan
    assert "shortest makespan" in best_line(r) and "highest throughput" in best_line(r, by="throughput")


def test_the_sweep_views_best_follows_its_objective_and_says_it():
    from campaign_widget.views.sweep import SweepView

    r = cw.sweep(_sized(), B=[1, 4, 16, 64], tiles=[1, 2], progress=False)
    view = SweepView(r, x="B", y="tiles", best="throughput")
    assert "highest throughput" in view.best_label.value and "B=64" not in view.best_label.value
    assert "B 64" in view.best_label.value, view.best_label.value


def test_a_slowdown_is_never_called_a_speedup():
    from campaign_widget.figures.sweep_grid import row_lines
    from campaign_widget.views.sweep import SweepView

    r = cw.sweep(_sized(), B=[1, 64], tiles=[1, 2], progress=False)
    slow = int(np.argmax(r["makespan"]))
    view = SweepView(r, x="B", y="tiles")
    said = view.describe(slow) + " " + " ".join(view.describe_lines(slow))
    said += " " + " ".join(f"{k} {v}" for k, v in row_lines(r, slow))
    assert "slower" in said and "speedup" not in said.replace("speedups", ""), said


# -- 11. numbers: one format per quantity per view, printed once ------------------------------------


def test_a_makespan_is_printed_once_per_panel_in_one_format():
    w = workloads.two_phases()
    stack = StackedDiagrams({"sequential": w, "throttled": (w, dict(PIPELINED, policy="dilate+throttle"))})
    for d in stack.diagrams.values():
        said = [d.title] + [text for text, _ in d.readout_lines]
        assert sum("makespan" in text for text in said) == 1, said
    alone = cw.CampaignDiagram(w, **PIPELINED, policy="dilate+throttle")
    readout = next(text for text, kind in alone.readout_lines if kind == "makespan")
    title = stack.diagrams["throttled"].title
    assert readout.split(",")[0] in title, (readout, title)  # the same makespan, the same digits
    texts = _figure_texts([d.panel() for d in stack.diagrams.values()])
    assert sum("makespan" in t for t in texts) == 2, texts  # one per panel in the static figure too


def test_a_sweep_row_of_an_infeasible_configuration_says_so_and_compares_with_nothing():
    from campaign_widget.figures.sweep_grid import row_lines
    from campaign_widget.views.sweep import SweepView

    r = cw.sweep(workloads.two_phases(), tiles=[1, 4], pipeline=[False, True], progress=False)
    over = int(np.flatnonzero(~r["feasible"])[0])
    view = SweepView(r, x="tiles", y="pipeline")
    said = view.describe(over) + " " + " ".join(f"{k} {v}" for k, v in row_lines(r, over))
    assert "infeasible" in said and "faster" not in said and "slower" not in said, said


def test_the_static_html_says_what_the_live_view_says(tmp_path):
    w = workloads.two_phases()
    stack = StackedDiagrams({"sequential": w, "pipelined, no policy": (w, PIPELINED)})
    page = stack.to_html(tmp_path / "stack.html").read_text(encoding="utf-8")
    assert "infeasible" in page and "faster than sequential" not in page
    levels = cw.CampaignDiagram(_two_levels()).to_html(tmp_path / "levels.html").read_text(encoding="utf-8")
    assert "100% of HBM peak bandwidth" in levels or "100% of L2 peak bandwidth" in levels


def test_a_phase_above_its_roof_says_so_in_its_hover():
    # a measured phase that did three times what the stated peak allows: its roof reach cannot be 300%
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the utilization warning is the model's own word on it
        w = Workload([Phase("p", ops=3e12, bytes=1e9, duration=1.0)], machine=Machine(1e12, 1e11, name="m"))
        d = cw.CampaignDiagram(w)
    lines = " ".join(phase_details(roofline_geometry(d.workload, d.schedule), d.workload, 0.7, 0))
    assert "above its roof" in lines, lines
