"""One rule for phase colours: a workload's phase has one colour in every view that draws it."""

import workloads

from campaign_widget import CampaignDiagram, Explorer, Machine, StackedDiagrams, Workload
from campaign_widget.figures.phase_colours import phase_colors
from campaign_widget.static_figure import roofline_panel_for
from campaign_widget.static_figure.panels import panel_for

MACHINE = Machine(peak_compute=1.2e14, peak_bandwidth=4e11)
SIZES = {"m": 2048, "n": 2048, "k": 2048, "r": 64, "q": 64}


def _dense() -> Workload:
    return Workload.from_einsums({"GEMM": "Z[m,n] = A[m,k] * B[k,n]"}, SIZES, machine=MACHINE)


def _low_rank() -> Workload:
    # notebook 05's pair, smaller: the stack shows the dense GEMM first, the Explorer the low-rank one
    return Workload.from_einsums(
        {
            "V_A·U_B": "T[r,q] = VA[r,k] * UB[k,q]",
            "S_A·T": "S[r,q] = SA[r] * T[r,q]",
            "S_B·V_B": "SV[q,n] = SB[q] * VB[q,n]",
            "U_A·S": "US[m,q] = UA[m,r] * S[r,q]",
            "US·SV": "Z[m,n] = US[m,q] * SV[q,n]",
        },
        SIZES,
        machine=MACHINE,
    )


def test_a_workload_in_a_stack_has_the_colours_of_its_explorer_roofline_and_static_figure():
    low_rank = _low_rank()
    own = phase_colors(low_rank.names)
    stack = StackedDiagrams({"dense GEMM": _dense(), "low-rank GEMM": low_rank})
    explorer = Explorer(low_rank)
    assert list(stack.diagrams["low-rank GEMM"].phase_colors) == own
    assert list(explorer.diagram.phase_colors) == own
    assert list(explorer.roofline.points.colors) == own
    assert list(panel_for(low_rank, low_rank.schedule()).colors) == own
    assert list(roofline_panel_for(low_rank).colors) == own
    assert list(stack.diagrams["dense GEMM"].phase_colors) == phase_colors(["GEMM"])


def test_one_workload_scheduled_otherwise_keeps_its_colours_in_every_panel():
    w = workloads.figure_2b()
    stack = StackedDiagrams({"one": w, "tiled": (w, {"tiles": 4}), "pipelined": (w, {"tiles": 4, "pipeline": True})})
    colours = {label: list(d.phase_colors) for label, d in stack.diagrams.items()}
    assert colours["one"] == colours["tiled"] == colours["pipelined"] == list(CampaignDiagram(w).phase_colors)


def test_phases_an_earlier_panel_drew_keep_their_colour_in_another_order():
    first = phase_colors(["A", "B", "C"])
    known = dict(zip(["A", "B", "C"], first))
    assert phase_colors(["C", "A", "B"], known) == [first[2], first[0], first[1]]
    # a panel where a known colour is another phase's own keeps its own colours: never two alike
    names = ["C", "D"]
    clash = dict.fromkeys(names, phase_colors(names)[0])
    assert phase_colors(names, clash) == phase_colors(names)
