"""LocalView → CampaignDiagram in real JupyterLab: a loop interchange applied from the view
shortens the phase in the diagram above it.

The notebook shows a campaign diagram of a two-phase workload (a naive matrix product ``gemm``, then a
phase ``outer`` that reads A and B) and a ``LocalView`` of ``gemm`` linked to it (``diagram=``). The test
clicks the view's "Apply to workload" button (loops i,j,k), types "ikj" in its loop-order box, clicks
again, and checks the diagram's makespan readout and pixels. Every expected number (the makespans, where
the phases lie in time) comes from the model (``with_predicted_traffic`` + ``Workload.schedule``),
computed here apart from the widgets; the pixel positions come from the canvas' own plot transform.
"""

from __future__ import annotations

import ast
import math
import re

import pytest
from labdriver import check_each_test, module_page, open_with_cell, read_canvas

from campaign_widget import Machine, Workload
from campaign_widget.cache import Cache, with_predicted_traffic
from campaign_widget.figures.phase_colours import phase_colors

pytestmark = pytest.mark.browser

NOTEBOOK = "browser-test-local-apply.ipynb"
EINSUMS = {"gemm": "C[i,j] = A[i,k] * B[k,j]", "outer": "D[i,j,k] = A[i,k] * B[k,j]"}
SIZES = {"i": 32, "j": 32, "k": 32}
LOCAL = {"i": 8, "j": 8, "k": 8}
CELL = f"""import campaign_widget as cw
from campaign_widget.cache import Cache
from IPython.display import display
w = cw.Workload.from_einsums({EINSUMS!r}, {SIZES!r},
                             machine=cw.Machine(peak_compute=1e9, peak_bandwidth=1e9), element_bytes=8)
diagram = cw.CampaignDiagram(w, height=220)
display(diagram)
local = cw.LocalView(w, "gemm", {LOCAL!r}, cache=Cache(line=64, lines=8), loop_order="ijk", diagram=diagram)
local"""
PROBE = "print('PROBE', repr((diagram.makespan, local.loop_order, local.message)))"


def workload() -> Workload:
    return Workload.from_einsums(EINSUMS, SIZES, machine=Machine(peak_compute=1e9, peak_bandwidth=1e9), element_bytes=8)


def predicted(order: str) -> Workload:
    return with_predicted_traffic(
        workload(), "gemm", Cache(line=64, lines=8), local_sizes=LOCAL, loop_order=order, mode="ratio"
    )


_SI = {"": 1.0, "k": 1e3, "m": 1e-3, "µ": 1e-6, "u": 1e-6, "n": 1e-9}


def seconds(text: str) -> float | None:
    """'2.42 ms' -> 0.00242 (the first time quantity in ``text``)."""
    match = re.search(r"(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(k|m|µ|u|n)?s\b", text)
    return float(match.group(1)) * _SI[match.group(2) or ""] if match else None


class State:
    def __init__(self, lab, nb):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.failed = False
        self.diagram = self.page.locator(".cw-root").first
        self.canvas = self.diagram.locator("canvas.cw-plot")
        self.readout = self.diagram.locator("span.cw-makespan")
        self.local = self.page.locator(".cwl-root").first

    def probe(self):
        if not hasattr(self, "_probe_cell"):
            self._probe_cell = self.nb.append_code_cell(PROBE)
        out = self.nb.run_cell(self._probe_cell)
        match = re.search(r"PROBE (.*)", out)
        assert match, f"the probe cell printed {out!r}"
        return ast.literal_eval(match.group(1))

    def wait_readout_change(self, old: str, what: str) -> str:
        try:
            self.page.wait_for_function(
                "([el, old]) => el.textContent !== old", arg=[self.readout.element_handle(), old], timeout=15_000
            )
        except Exception as error:
            raise AssertionError(f"span.cw-makespan still reads {old!r} after {what}") from error
        self.page.wait_for_timeout(200)  # the canvas redraw follows the readout in the same frame or the next
        return self.readout.inner_text()


def _open(lab, jupyter_lab) -> State:
    nb = open_with_cell(
        lab,
        jupyter_lab,
        NOTEBOOK,
        "# Browser test: LocalView applies to a CampaignDiagram",
        CELL,
        what="the cell",
        timeout=90,
    )
    state = State(lab, nb)
    state.canvas.wait_for(state="attached", timeout=30_000)
    state.local.locator("canvas.cwl-canvas").wait_for(state="attached", timeout=30_000)
    lab.page.wait_for_function(
        "c => c.width > 0 && c.dataset.plotLeft !== undefined", arg=state.canvas.element_handle(), timeout=30_000
    )
    lab.errors.assert_clean(when="while showing the diagram and the local view")
    return state


@pytest.fixture(scope="module")
def linked(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("local-apply"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(linked, request):
    yield from check_each_test(linked, request)


def phase_spans(w: Workload) -> dict[str, tuple[float, float]]:
    """Phase → (start, end) in the one-tile schedule the diagram draws."""
    schedule = w.schedule()
    return {
        name: (float(schedule.start[schedule.phase == k].min()), float(schedule.end[schedule.phase == k].max()))
        for k, name in enumerate(schedule.names)
    }


def colour_in_column(shot, colour: str, t: float) -> int:
    return len(shot.column_hits(colour, shot.css_x(t)))


def test_apply_ijk_then_ikj_shortens_the_gemm_phase(linked):
    colours = dict(zip(EINSUMS, phase_colors(list(EINSUMS))))
    logical, ijk, ikj = workload(), predicted("ijk"), predicted("ikj")
    assert ikj.schedule().makespan < ijk.schedule().makespan, "the model: ikj misses less than ijk"

    linked.canvas.scroll_into_view_if_needed()
    text0 = linked.readout.inner_text()
    assert math.isclose(seconds(text0), logical.schedule().makespan, rel_tol=5e-3), text0

    # 1. loops i,j,k as opened: Apply
    button = linked.local.locator("button.cwl-apply")
    button.scroll_into_view_if_needed()
    assert button.is_visible(), "the LocalView of a workload's phase shows no Apply button"
    button.click()
    text1 = linked.wait_readout_change(text0, "applying loops i,j,k")
    assert math.isclose(seconds(text1), ijk.schedule().makespan, rel_tol=5e-3), (
        f"after applying ijk the readout says {text1!r}; the model's makespan is {ijk.schedule().makespan!r} s"
    )
    linked.canvas.scroll_into_view_if_needed()
    shot1 = read_canvas(linked.canvas)
    linked.lab.screenshot("applied-ijk", full_page=False)

    # 2. type the interchange into the view's loop-order box, then Apply again
    order = linked.local.locator("input.cwl-loop-order")
    order.scroll_into_view_if_needed()
    order.fill("ikj")
    order.press("Enter")
    makespan, loops, _ = linked.probe()
    assert loops == ["i", "k", "j"], f"the kernel's loop order after typing ikj is {loops}"
    assert math.isclose(makespan, ijk.schedule().makespan, rel_tol=1e-9), (
        "changing the loop order alone moved the diagram"
    )
    button.scroll_into_view_if_needed()
    button.click()
    text2 = linked.wait_readout_change(text1, "applying loops i,k,j")
    assert math.isclose(seconds(text2), ikj.schedule().makespan, rel_tol=5e-3), (
        f"after applying ikj the readout says {text2!r}; the model's makespan is {ikj.schedule().makespan!r} s"
    )
    linked.canvas.scroll_into_view_if_needed()
    shot2 = read_canvas(linked.canvas)
    linked.lab.screenshot("applied-ikj", full_page=False)
    shot2.save(linked.lab.artifacts_dir / "local-apply-ikj")
    shot1.save(linked.lab.artifacts_dir / "local-apply-ijk")

    # the kernel agrees
    makespan, _, message = linked.probe()
    assert math.isclose(makespan, ikj.schedule().makespan, rel_tol=1e-9)
    assert "applied to phase 'gemm'" in message and "shown in 1 linked diagram" in message, message

    # 3. pixels: the gemm bar got shorter. At the middle of ikj's "outer" phase, the ijk picture still
    # draws gemm (and not outer); the ikj picture draws outer there.
    assert shot1.image.tobytes() != shot2.image.tobytes(), "the diagram's pixels did not change"
    spans1, spans2 = phase_spans(ijk), phase_spans(ikj)
    t_outer = sum(spans2["outer"]) / 2
    assert spans1["gemm"][0] < t_outer < spans1["gemm"][1], "the model: ikj's outer phase runs during ijk's gemm"
    assert shot1.t0 <= t_outer <= shot1.t1 and shot2.t0 <= t_outer <= shot2.t1
    assert colour_in_column(shot1, colours["gemm"], t_outer) > 0, (
        f"ijk picture: no gemm colour {colours['gemm']} at t={t_outer:.3g} s, inside gemm's span {spans1['gemm']}"
    )
    assert colour_in_column(shot1, colours["outer"], t_outer) == 0, (
        f"ijk picture: outer's colour at t={t_outer:.3g} s, while gemm runs until {spans1['gemm'][1]:.3g} s"
    )
    assert colour_in_column(shot2, colours["outer"], t_outer) > 0, (
        f"ikj picture: no outer colour {colours['outer']} at t={t_outer:.3g} s, inside its span {spans2['outer']}"
    )
    assert colour_in_column(shot2, colours["gemm"], t_outer) == 0, (
        f"ikj picture: gemm's colour at t={t_outer:.3g} s, after gemm ended at {spans2['gemm'][1]:.3g} s"
    )
