"""The figure of each view's page: an example that the page shows and the build runs.

Each example is a complete snippet ending in the package's static export (``savefig`` or the sweep
heatmap, no browser). The build runs it in a scratch folder and the page shows the snippet and the
PNG it wrote, so the code on the page is the code that drew the figure.
"""

from __future__ import annotations

import contextlib
import io
import os
import warnings
from pathlib import Path

_PAPER = """\
import campaign_widget as cw

hopper = cw.Machine(peak_compute=51.2e12, peak_bandwidth=3.35e12, name="H100 (FP32)")
w = cw.Workload(
    [
        cw.Phase("A", duration=3, compute_util=0.7, memory_util=0.6),
        cw.Phase("B", duration=10, compute_util=0.2, memory_util=0.9, after=["A"]),
    ],
    machine=hopper,
)
"""

EXAMPLES = {
    "getting-started": _PAPER
    + """
w.schedule(tiles=4, pipeline=True, policy="dilate+throttle").makespan  # 11.35, as in the paper
diagram = cw.CampaignDiagram(w, tiles=4, pipeline=True)  # live in a notebook: sliders, hover, zoom
diagram.savefig("getting-started.png", roofline=True, dpi=100)  # PNG, SVG or PDF, no browser
""",
    "campaign-diagram": _PAPER
    + """
diagram = cw.CampaignDiagram(w, tiles=4, pipeline=True, policy="dilate+throttle")
diagram.makespan  # 11.35, the paper's number
diagram.savefig("campaign-diagram.png", dpi=100)
""",
    "stacked-diagrams": _PAPER
    + """
stack = cw.StackedDiagrams(
    {
        "sequential": w,
        "4 tiles, pipelined": (w, {"tiles": 4, "pipeline": True}),
        "dilated + throttled": (w, {"tiles": 4, "pipeline": True, "policy": "dilate+throttle"}),
    }
)
stack.speedups  # against the first panel
stack.savefig("stacked-diagrams.png", dpi=100)
""",
    "explorer": """\
import campaign_widget as cw

seed002 = cw.Machine(
    peak_compute=200e9, peak_bandwidth=50e9, name="seed 002 example", ceilings=(cw.Ceiling("no FMA", compute=100e9),)
)
n = 2048
kernels = cw.Workload(
    [
        cw.Phase("SAXPY", ops=2 * n, bytes=24 * n),
        cw.Phase("blocked GEMM", ops=2 * n**3, bytes=4 * n**3 / 64, after=["SAXPY"]),
        cw.Phase("naive GEMM", ops=2 * n**3, bytes=8 * n**3, after=["blocked GEMM"]),
    ],
    machine=seed002,
)
explorer = cw.Explorer(kernels)  # what `kernels` alone displays in a notebook
explorer.savefig("explorer.png", dpi=100)
""",
    "roofline-view": _PAPER
    + """
from campaign_widget.static_figure import roofline_panel_for, savefig

diagram = cw.CampaignDiagram(w, tiles=4, pipeline=True)
roofline = cw.RooflineView(diagram)  # live: follows the diagram's peaks and hovered phase
# The same roofline without a browser: the static renderer's roofline panel alone
panel = roofline_panel_for(diagram.workload, {"schedule": diagram.schedule}, colors=list(diagram.phase_colors))
savefig("roofline-view.png", [], roofline=panel, width=5.5, dpi=100)
""",
    "dataflow-view": """\
import campaign_widget as cw
from campaign_widget import presets

attention = {
    "q_proj": "Q[s,h,e] = X[s,d] * WQ[d,h,e]",
    "k_proj": "K[t,h,e] = X[t,d] * WK[d,h,e]",
    "v_proj": "V[t,h,e] = X[t,d] * WV[d,h,e]",
    "scores": "A[h,s,t] = Q[s,h,e] * K[t,h,e]",
    "softmax": {"einsum": "P[h,s,t] = exp(A[h,s,t])", "ops_per_point": 5},
    "attend": "O[s,h,e] = P[h,s,t] * V[t,h,e]",
    "out_proj": "Y[s,d] = O[s,h,e] * WO[h,e,d]",
}
sizes = {"s": "S", "t": "S", "d": "D", "h": "H", "e": "D/H"}
w = cw.Workload.from_einsums(attention, sizes, params={"S": 2048, "D": 1024, "H": 16}, machine=presets.machine("h100-sxm"))
view = cw.DataflowView(w, overlay="bytes", scaling="mean")
view.savefig("dataflow-view.png", dpi=100, max_width=16)
""",
    "local-view": """\
import campaign_widget as cw
from campaign_widget.cache import Cache

machine = cw.Machine(peak_compute=100e9, peak_bandwidth=20e9, name="100 GFLOP/s, 20 GB/s")
gemm = {"gemm": "C[i,j] = A[i,k] * B[k,j]"}
w = cw.Workload.from_einsums(gemm, {"i": 64, "j": 64, "k": 64}, machine=machine, element_bytes=8)
diagram = cw.CampaignDiagram(w)
local = cw.LocalView(w, "gemm", {"i": 8, "j": 8, "k": 8}, cache=Cache(line=64, lines=8), diagram=diagram)

# What the local view's "apply" gives the diagram, for two loop orders
predicted = {}
for order in ("ijk", "ikj"):
    local.loop_order = order  # what the loop-order control does
    predicted[f"{order}, predicted at 8³ and scaled"] = local.apply()
local.readout["rows"][-1]  # the readout's total row: accesses, misses by class, bytes
cw.StackedDiagrams(predicted, height=120).savefig("local-view.png", dpi=100)
""",
    "sweep-view": _PAPER
    + """
from campaign_widget.static_figure import save_sweep_heatmap

result = cw.sweep(w, tiles=[1, 2, 4, 8, 16], pipeline=[True], policy=list(cw.POLICIES), depth=[1, 2])
view = cw.SweepView(result, x="tiles", y="policy")  # live heatmap; click a cell for its diagram
save_sweep_heatmap("sweep-view.png", result, x="tiles", y="policy", dpi=100)
""",
}


def make_figure(name: str, folder: Path) -> Path:
    """Run the example ``name`` in ``folder``; returns the PNG it wrote there."""
    folder.mkdir(parents=True, exist_ok=True)
    cwd = os.getcwd()
    try:
        os.chdir(folder)
        with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():  # progress bars
            warnings.simplefilter("ignore")
            exec(compile(EXAMPLES[name], f"<docs example {name}>", "exec"), {"__name__": "__main__"})  # noqa: S102
    finally:
        os.chdir(cwd)
    png = folder / f"{name}.png"
    if not png.is_file():
        raise RuntimeError(f"the docs example {name!r} did not write {png.name}")
    return png
