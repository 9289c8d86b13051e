"""The diagram's tiles and "tiles start" controls in real JupyterLab, used as a person would.

A pipelined 20-phase chain's diagram: its tiles slider reaches 4 tiles per phase (80, past the old fixed 64) and
says so beside it; a count typed in the number box past the slider's end (Enter) reaches the kernel,
is drawn, and the slider grows; a count the kernel refuses (0, 2.5) is named in the readout, and the
box goes back to the kernel's count. The "tiles start" select (the ``stepping`` trait, no longer
labelled with the jargon word) offers "when ready" and "in lockstep", says what it does in its
tooltip, and choosing "in lockstep" draws the lockstep schedule — docs/lockstep.md's counterexample,
where the two rules give different makespans. Every expectation comes from the model under test.
"""

from __future__ import annotations

import ast
import math
import re

import pytest
from labdriver import check_each_test, module_page, open_with_cell
from workloads import chain

import campaign_widget as cw
from campaign_widget.figures.scene import build_scene

pytestmark = pytest.mark.browser

NOTEBOOK = "browser-test-tiles-stepping.ipynb"
RENDER_TIMEOUT_MS = 30_000
UPDATE_TIMEOUT_MS = 20_000
PHASES = 20
LONG = [(f"P{i}", 1.0, 0.3, 0.4) for i in range(PHASES)]
LOCKSTEP_CASE = [("P0", 8, 0.6, 0.9), ("P1", 5, 0.3, 0.5), ("P2", 4, 0.4, 0.8)]  # docs/lockstep.md
SETTINGS = dict(tiles=2, pipeline=True, policy="throttle")

CELL = f"""import campaign_widget as cw
def chain(specs):
    phases, previous = [], ()
    for name, d, uc, um in specs:
        phases.append(cw.Phase(name, duration=d, compute_util=uc, memory_util=um, after=previous))
        previous = (name,)
    return cw.Workload(phases, machine=cw.Machine.unit(time_unit="ticks"))
long_diagram = cw.CampaignDiagram(chain({LONG!r}), pipeline=True, title="twenty phases")
steps = cw.CampaignDiagram(chain({LOCKSTEP_CASE!r}), tiles=2, pipeline=True, policy="throttle", title="lockstep")
display(long_diagram, steps)"""

PROBE = "print('PROBE', repr((long_diagram.tiles, long_diagram.tiles_max, steps.stepping, steps.makespan)))"


def model(specs, **settings) -> dict:
    schedule = chain(*specs, machine=cw.Machine.unit(time_unit="ticks")).schedule(**settings)
    return dict(makespan=float(schedule.makespan), pieces=len(build_scene(schedule)))


class Page:
    def __init__(self, lab, nb):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.failed = False
        self.long = self.page.locator(".cw-root").nth(0)
        self.steps = self.page.locator(".cw-root").nth(1)
        self.probe_cell = None

    def wait_showing(self, root, want: dict, step: str, *, pieces: bool = True) -> None:
        """Wait until ``root`` shows the model's makespan (and, with ``pieces``, as many pieces as the
        model's scene: not for scenes whose sub-pixel pieces the view merges)."""
        canvas = root.locator("canvas.cw-plot")
        try:
            self.page.wait_for_function(
                """([c, span, pieces, makespan]) => (pieces === null || c.dataset.piecesDrawn === String(pieces))
                    && Math.abs(parseFloat(span.textContent) - makespan) <= 1e-5 * Math.max(1, makespan)""",
                arg=[
                    canvas.element_handle(),
                    root.locator("span.cw-makespan").element_handle(),
                    want["pieces"] if pieces else None,
                    want["makespan"],
                ],
                timeout=UPDATE_TIMEOUT_MS,
            )
        except Exception as error:
            self.lab.screenshot(f"{step}-not-drawn", full_page=False)
            raise AssertionError(
                f"{step}: the view does not draw the model's {want}; canvas data-pieces-drawn="
                f"{canvas.get_attribute('data-pieces-drawn')}, makespan {root.locator('span.cw-makespan').inner_text()!r}"
            ) from error

    def probe(self) -> tuple:
        if self.probe_cell is None:
            self.probe_cell = self.nb.append_code_cell(PROBE)
        out = self.nb.run_cell(self.probe_cell)
        match = re.search(r"PROBE (.*)", out)
        assert match, f"the probe cell printed {out!r}"
        return ast.literal_eval(match.group(1))

    def type_tiles(self, text: str) -> None:
        box = self.long.locator("input.cw-tiles-box")
        box.scroll_into_view_if_needed()
        box.click(click_count=3)  # select what is there, as a person replacing a number does
        self.page.keyboard.type(text)
        self.page.keyboard.press("Enter")

    def warnings(self, root) -> list[str]:
        return [t.strip() for t in root.locator("ul.cw-warnings li").all_text_contents()]


def _open(lab, jupyter_lab) -> Page:
    nb = open_with_cell(lab, jupyter_lab, NOTEBOOK, "# Browser test: tiles and stepping", CELL, what="the diagrams")
    state = Page(lab, nb)
    for root in (state.long, state.steps):
        canvas = root.locator("canvas.cw-plot")
        canvas.wait_for(state="attached", timeout=RENDER_TIMEOUT_MS)
        lab.page.wait_for_function("c => +c.dataset.draws > 0", arg=canvas.element_handle(), timeout=RENDER_TIMEOUT_MS)
    lab.errors.assert_clean(when="while creating the diagrams")
    return state


@pytest.fixture(scope="module")
def controls(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("tiles-stepping"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(controls, request):
    yield from check_each_test(controls, request)


def _label(root, input_selector: str):
    return root.locator("label.cw-control", has=root.page.locator(input_selector))


def test_every_control_has_a_label_a_tooltip_and_its_range(controls):
    root = controls.long
    labels = root.locator(".cw-controls label.cw-control")
    for i in range(labels.count()):
        label = labels.nth(i)
        if not label.is_visible():
            continue  # the pipe level: offered only on machines with several memory levels
        text = label.locator("span.cw-label").inner_text().strip()
        assert text, f"control {i} has no label: {label.inner_html()[:200]}"
        tip = label.get_attribute("title") or ""
        assert len(tip.split()) >= 8, f"{text!r}: its tooltip does not say what it does: {tip!r}"
    for selector in ("input.cw-peak-compute", "input.cw-peak-bandwidth", "input.cw-tiles"):
        shown = _label(root, selector).locator("span.cw-range").inner_text()
        low, high = (float(re.sub(r"[^\d.]", "", part) or "nan") for part in shown.split("…"))
        assert low < high, f"{selector}: the range beside it reads {shown!r}"


def test_the_tiles_range_grows_with_the_workload(controls):
    slider = controls.long.locator("input[type=range].cw-tiles")
    want = 4 * PHASES
    assert slider.get_attribute("max") == str(want), (
        f"a {PHASES}-phase chain's tiles slider ends at {slider.get_attribute('max')}, not {want} (4 per phase)"
    )
    shown = _label(controls.long, "input.cw-tiles").locator("span.cw-range").inner_text()
    assert shown == f"1 … {want}", f"the range beside the tiles slider reads {shown!r}"


def test_a_typed_tile_count_past_the_slider_is_drawn_and_the_slider_grows(controls):
    controls.type_tiles("150")
    controls.wait_showing(controls.long, model(LONG, tiles=150, pipeline=True), "typed 150 tiles", pieces=False)
    tiles, tiles_max, _, _ = controls.probe()
    assert tiles == 150, f"the kernel has tiles={tiles} after 150 was typed"
    assert tiles_max >= 300, tiles_max
    slider = controls.long.locator("input[type=range].cw-tiles")
    controls.page.wait_for_function("s => +s.max >= 300 && s.value === '150'", arg=slider.element_handle())
    assert controls.long.locator("input.cw-tiles-box").input_value() == "150"
    assert controls.warnings(controls.long) == []


@pytest.mark.parametrize(
    ("typed", "said"), [("0", "tiles=0 must be >= 1"), ("2.5", "tiles=2.5 must be a whole number")]
)
def test_a_typed_count_the_kernel_refuses_is_named_and_undone(controls, typed, said):
    before = controls.probe()[0]
    controls.type_tiles(typed)
    warnings = controls.long.locator("ul.cw-warnings")
    try:
        controls.page.wait_for_function(
            "([ul, said]) => ul.textContent.includes(said)", arg=[warnings.element_handle(), said]
        )
    except Exception as error:
        raise AssertionError(
            f"typing {typed!r}: the readout does not say {said!r}; warnings {controls.warnings(controls.long)}"
        ) from error
    box = controls.long.locator("input.cw-tiles-box")
    controls.page.wait_for_function("([b, v]) => b.value === v", arg=[box.element_handle(), str(before)])
    assert controls.probe()[0] == before, "a refused count must not be stored"


def test_tiles_start_says_what_it_does_and_switches_to_lockstep(controls):
    root = controls.steps
    label = _label(root, "select.cw-stepping")
    assert label.locator("span.cw-label").inner_text().strip() == "tiles start"
    tip = label.get_attribute("title") or ""
    assert "when ready" in tip and "in lockstep" in tip, tip
    select = root.locator("select.cw-stepping")
    options = select.locator("option").all_inner_texts()
    assert options == ["when ready", "in lockstep"], options
    event, lockstep = model(LOCKSTEP_CASE, **SETTINGS), model(LOCKSTEP_CASE, **SETTINGS, stepping="lockstep")
    assert not math.isclose(event["makespan"], lockstep["makespan"]), "the case must tell the two rules apart"
    controls.wait_showing(root, event, "when ready")
    select.select_option(label="in lockstep")
    controls.wait_showing(root, lockstep, "in lockstep")
    _, _, stepping, makespan = controls.probe()
    assert stepping == "lockstep" and math.isclose(makespan, lockstep["makespan"], rel_tol=1e-12), (stepping, makespan)
    select.select_option(label="when ready")
    controls.wait_showing(root, event, "back to when ready")
