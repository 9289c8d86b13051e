"""The schedule controls in real JupyterLab: tiles slider, pipeline checkbox, policy select, wheel zoom.

Issue: "set the tile slider and the policy in JupyterLab and see oversubscription marks appear
(policy none) and disappear (dilate+throttle) in the pixels and in the readout; zoom with the wheel
and see the axis change".

The module writes its own notebook (one markdown cell) into the private server's root, opens it,
types a cell that displays ``drive = cw.CampaignDiagram(<A(3, .7, .6) → B(10, .2, .9)>, tiles=1,
policy="dilate+throttle")`` (the paper's §5.2.1 workload, notebook 02's ``memory_hungry``) and drives
its controls as a person would (mouse drag on the slider, nudged with the arrow keys if it lands a
step off; click; select): tiles 1 → 4, pipeline on, policy none, then dilate+throttle. It starts at
dilate+throttle (not the default "none") so that choosing "none" is a real change, and every step
has a different expected picture: 13 (1 tile), 13 (4 tiles), 11.35 (pipelined, fixed), 10.75
(pipelined, infeasible), 11.35 again. Every expectation (makespans, oversubscribed intervals, piece counts, where the red
goes) comes from the model under test (``Workload.schedule`` / ``build_scene``) and the canvas'
``data-*`` plot transform (js/diagram/CONTRACT.md), never from hard-coded pixels.

The oversubscription style's red is theme.json's ``warning``; the memory spill is drawn with its
``hatch`` (the same red at 90 % alpha) over ``spillFill``: pixels within WARNING_TOLERANCE of it are
"warning red" (no phase colour of this workload is near it).
"""

from __future__ import annotations

import ast
import math
import re

import numpy as np
import pytest
from labdriver import (
    LabPage,
    Notebook,
    check_each_test,
    drag_range_to,
    hex_rgb,
    module_page,
    read_canvas,
    write_notebook,
)
from workloads import TWO_PHASES, chain_source, theme_color, two_phases

import campaign_widget as cw
from campaign_widget.figures.scene import MEMORY_OVER, build_scene

pytestmark = pytest.mark.browser

NOTEBOOK = "browser-test-schedule-controls.ipynb"
RENDER_TIMEOUT_MS = 30_000
UPDATE_TIMEOUT_MS = 15_000
WARNING_RED = theme_color("warning")  # theme.json, as the view reads it (hatch = the same red, alpha 0.9)
WARNING_TOLERANCE = 40  # max channel difference, composited on white; the hatch core is ~(218, 57, 58)

# No blank lines: labdriver's read-back of the typed cell (.cm-content inner_text) doubles them.
DIAGRAM_CELL = f"""import campaign_widget as cw
ticks = cw.Machine.unit(time_unit="ticks")
{chain_source(TWO_PHASES, name="memory_hungry", machine="ticks")}
drive = cw.CampaignDiagram(memory_hungry, tiles=1, policy="dilate+throttle", title="A -> B, driven by the test")
drive"""

PROBE_CELL = (
    "print('PROBE', repr((drive.tiles, drive.pipeline, drive.policy, drive.makespan, "
    "[tuple(o) for o in drive.schedule.oversubscribed], list(drive.time_window))))"
)


def memory_hungry() -> cw.Workload:
    """The cell's workload, as the model under test builds it."""
    return two_phases(machine=cw.Machine.unit(time_unit="ticks"))


def expected(**settings) -> dict:
    """What the diagram must show for these control settings, from the model."""
    workload = memory_hungry()
    schedule = workload.schedule(**settings)
    scene = build_scene(schedule)
    spill = np.nonzero(scene.flags & MEMORY_OVER)[0]
    return dict(
        settings=settings,
        makespan=float(schedule.makespan),
        pieces=len(scene),
        oversubscribed=[(float(a), float(b), str(r), float(d)) for a, b, r, d in schedule.oversubscribed],
        # the spilled pieces: time span and the band [well_top, fill_top] where the hatch goes
        spills=[
            (float(scene.x0[k]), float(scene.x1[k]), float(scene.well_top[k]), float(scene.fill_top[k])) for k in spill
        ],
    )


# -- the page, opened once for the module ----------------------------------------------------------


class Controls:
    def __init__(self, lab: LabPage, nb: Notebook):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.failed = False
        self.probe_cell: int | None = None
        self.root = self.page.locator(".cw-root").first
        self.canvas = self.root.locator("canvas.cw-plot")

    def wait_rendered(self) -> None:
        self.canvas.wait_for(state="attached", timeout=RENDER_TIMEOUT_MS)
        self.canvas.scroll_into_view_if_needed()
        try:
            self.page.wait_for_function(
                "c => c.width > 0 && c.dataset.plotLeft !== undefined && c.dataset.t1 !== undefined",
                arg=self.canvas.element_handle(),
                timeout=RENDER_TIMEOUT_MS,
            )
        except Exception as error:
            raise AssertionError(
                f"canvas.cw-plot did not render: {self.canvas.evaluate('c => ({...c.dataset})')}"
            ) from error

    def mouse_away(self) -> None:
        """Mouse off the canvas, and wait until no phase is highlighted (hover fades the others)."""
        self.page.mouse.move(2, 2)
        self.page.wait_for_function(
            "c => c.dataset.highlightedPhase === ''", arg=self.canvas.element_handle(), timeout=5_000
        )

    def shot(self):
        self.canvas.scroll_into_view_if_needed()
        self.mouse_away()
        return read_canvas(self.canvas)

    def makespan_text(self) -> str:
        return self.root.locator("span.cw-makespan").inner_text()

    def intervals_text(self) -> list[str]:
        # The list sits in a collapsed <details> (the canvas carries the summary): its text, not its rendering.
        return [t.strip() for t in self.root.locator("ul.cw-oversubscribed li").all_text_contents()]

    def wait_showing(self, want: dict, step: str) -> None:
        """Wait until the view draws the model's scene for ``want``: as many pieces as the model's
        scene has (full view, no aggregation) and the model's makespan in span.cw-makespan."""
        try:
            self.page.wait_for_function(
                """([c, span, pieces, makespan]) => {
                    const shown = parseFloat(span.textContent);
                    return c.dataset.piecesDrawn === String(pieces)
                        && Math.abs(shown - makespan) <= 1e-6 * Math.max(1, makespan);
                }""",
                arg=[
                    self.canvas.element_handle(),
                    self.root.locator("span.cw-makespan").element_handle(),
                    want["pieces"],
                    want["makespan"],
                ],
                timeout=UPDATE_TIMEOUT_MS,
            )
        except Exception as error:
            self.lab.screenshot(f"{step}-not-updated", full_page=False)
            raise AssertionError(
                f"{step}: the view does not show the model's {want['settings']}: expected {want['pieces']} pieces "
                f"and makespan {want['makespan']:g}; canvas data-pieces-drawn="
                f"{self.canvas.get_attribute('data-pieces-drawn')}, span.cw-makespan={self.makespan_text()!r}, "
                f"controls {self.control_values()}"
            ) from error

    def control_values(self) -> dict:
        return self.root.evaluate("""r => ({
            tiles: r.querySelector('input.cw-tiles').value, pipeline: r.querySelector('input.cw-pipeline').checked,
            policy: r.querySelector('select.cw-policy').value,
            labels: [...r.querySelectorAll('span.cw-value')].map(s => s.textContent)})""")

    def kernel_probe(self) -> tuple:
        if self.probe_cell is None:
            self.probe_cell = self.nb.append_code_cell(PROBE_CELL)
        out = self.nb.run_cell(self.probe_cell)
        match = re.search(r"PROBE (.*)", out)
        assert match, f"the probe cell printed {out!r}"
        return ast.literal_eval(match.group(1))


def _open_controls(lab, jupyter_lab) -> Controls:
    write_notebook(jupyter_lab.root_dir, NOTEBOOK, "# Browser test: schedule controls")
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    cell = nb.append_code_cell(DIAGRAM_CELL)
    out = nb.run_cell(cell, timeout=60)
    assert "Traceback" not in out and "Error" not in out, f"the diagram cell failed: {out}"
    state = Controls(lab, nb)
    assert lab.page.locator(".cw-root").count() == 1, "expected exactly one diagram on the page"
    state.wait_rendered()
    lab.errors.assert_clean(when="while creating the diagram")
    return state


@pytest.fixture(scope="module")
def controls(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("controls"), lambda lab: _open_controls(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(controls, request):
    """Each test: no new page/console errors while it ran; artifacts if it failed."""
    yield from check_each_test(controls, request)


# -- pixels ------------------------------------------------------------------------------------------


def rgb_over_white(shot) -> np.ndarray:
    rgba = np.asarray(shot.image).astype(float)
    alpha = rgba[..., 3:4] / 255
    return rgba[..., :3] * alpha + 255 * (1 - alpha)


def warning_mask(shot) -> np.ndarray:
    """Backing-store pixels in the oversubscription red."""
    return np.abs(rgb_over_white(shot) - np.array(hex_rgb(WARNING_RED))).max(axis=2) <= WARNING_TOLERANCE


def device_box(shot, left, right, top, bottom):
    """CSS box → backing-store slice bounds (clamped)."""
    sx, sy = shot.scale_x, shot.scale_y
    x0, x1 = max(0, int(math.floor(left * sx))), min(shot.image.width, int(math.ceil(right * sx)))
    y0, y1 = max(0, int(math.floor(top * sy))), min(shot.image.height, int(math.ceil(bottom * sy)))
    return x0, x1, y0, y1


def red_in(mask, shot, left, right, top, bottom) -> int:
    x0, x1, y0, y1 = device_box(shot, left, right, top, bottom)
    return int(mask[y0:y1, x0:x1].sum()) if x1 > x0 and y1 > y0 else 0


def red_report(mask, shot) -> str:
    """Where the red pixels are, in CSS px and model time, for failure messages."""
    ys, xs = np.nonzero(mask)
    if not xs.size:
        return "no warning-red pixels at all"
    cx, cy = xs / shot.scale_x, ys / shot.scale_y
    t = shot.t0 + (cx - shot.plot_left) / (shot.plot_right - shot.plot_left) * (shot.t1 - shot.t0)
    return (
        f"{xs.size} warning-red pixels, css x {cx.min():.1f}…{cx.max():.1f} (t {t.min():.3f}…{t.max():.3f}), "
        f"css y {cy.min():.1f}…{cy.max():.1f}"
    )


def axis_strip(shot) -> np.ndarray:
    """The time axis' tick-label band under the plot (tick marks + labels), as RGB."""
    rgb = rgb_over_white(shot)
    x0, x1, y0, y1 = device_box(
        shot, shot.plot_left - 12, shot.plot_right + 12, shot.plot_bottom + 1, shot.plot_bottom + 24
    )
    return rgb[y0:y1, x0:x1]


# -- the tests ------------------------------------------------------------------------------------------


def _assert_no_oversubscription(controls, shot, step: str) -> None:
    mask = warning_mask(shot)
    assert not mask.any(), f"{step}: the model has no oversubscription, but the canvas shows {red_report(mask, shot)}"
    items = controls.intervals_text()
    assert items == [], f"{step}: ul.cw-oversubscribed should be empty, lists {items}"
    assert controls.root.locator("ul.cw-oversubscribed").is_hidden(), f"{step}: ul.cw-oversubscribed is shown"


def _parse_interval(text: str):
    """'memory 150% demand, 0.75–1.5 ticks' → ('memory', 1.5, 0.75, 1.5)."""
    m = re.fullmatch(r"\s*(\w+) (\d+(?:\.\d+)?)% demand, (\d+(?:\.\d+)?)[–-](\d+(?:\.\d+)?)(?: \w+)?\s*", text)
    return (m.group(1), float(m.group(2)) / 100, float(m.group(3)), float(m.group(4))) if m else None


def test_controls_make_oversubscription_appear_and_disappear(controls):
    page, root = controls.page, controls.root
    sequential = expected(tiles=1, pipeline=False, policy="dilate+throttle")
    tiled = expected(tiles=4, pipeline=False, policy="dilate+throttle")
    fixed = expected(tiles=4, pipeline=True, policy="dilate+throttle")
    infeasible = expected(tiles=4, pipeline=True, policy="none")
    # The model's story (paper §5.2.1), so that a drifting engine is named as such, not as a view bug.
    assert [round(e["makespan"], 9) for e in (sequential, tiled, fixed, infeasible)] == [13, 13, 11.35, 10.75]
    assert not sequential["oversubscribed"] and not tiled["oversubscribed"] and not fixed["oversubscribed"]
    assert infeasible["oversubscribed"] and infeasible["spills"], infeasible

    # 0. As created: one tile, not pipelined, no red anywhere, nothing listed.
    controls.wait_showing(sequential, "as created")
    _assert_no_oversubscription(controls, controls.shot(), "as created")

    # 1. Drag the tiles slider to 4.
    tiles = root.locator("input[type=range].cw-tiles")
    dragged, value = drag_range_to(page, tiles, 4)
    assert value == 4, f"the tiles slider reads {value} after dragging (landed on {dragged}) and nudging"
    controls.wait_showing(tiled, "tiles -> 4")
    _assert_no_oversubscription(controls, controls.shot(), "tiles -> 4")

    # 2. Click the pipeline checkbox (policy still dilate+throttle: feasible, 11.35).
    root.locator("input[type=checkbox].cw-pipeline").click()
    controls.wait_showing(fixed, "pipeline on")
    _assert_no_oversubscription(controls, controls.shot(), "pipeline on, dilate+throttle")

    # 3. Choose policy "none": the steady state asks for 150 % of the bandwidth.
    root.locator("select.cw-policy").select_option("none")
    controls.wait_showing(infeasible, "policy none")
    shot = controls.shot()
    shot.save(controls.lab.artifacts_dir / "controls-policy-none-canvas")
    controls.lab.screenshot("01-policy-none", full_page=False)
    mask = warning_mask(shot)
    plot = (shot.plot_left, shot.plot_right, shot.plot_top, shot.plot_bottom)
    # (a) red where the model says oversubscription happens: every interval's time span has red
    #     pixels, within the spilled pieces' band [well_top, fill_top] ...
    for t0, t1, resource, demand in infeasible["oversubscribed"]:
        left, right = shot.css_x(t0) + 2, shot.css_x(t1) - 2
        spills = [s for s in infeasible["spills"] if s[0] < t1 and s[1] > t0]
        assert spills, f"the model's scene has no spilled piece in the oversubscribed interval {t0}–{t1}"
        top = shot.css_y(max(s[3] for s in spills)) - 2
        bottom = shot.css_y(min(s[2] for s in spills)) + 2
        found = red_in(mask, shot, left, right, top, bottom)
        assert found >= 20, (
            f"oversubscribed {resource} interval {t0:g}–{t1:g} ({demand:.0%}): only {found} "
            f"warning-red pixels in css box x {left:.1f}…{right:.1f}, y {top:.1f}…{bottom:.1f}; "
            f"canvas: {red_report(mask, shot)}"
        )
    # ... and nowhere else in the plot (3 CSS px of slack around each spilled piece's band).
    outside = mask.copy()
    for x0, x1, well_top, fill_top in infeasible["spills"]:
        bx0, bx1, by0, by1 = device_box(
            shot, shot.css_x(x0) - 3, shot.css_x(x1) + 3, shot.css_y(fill_top) - 3, shot.css_y(well_top) + 3
        )
        outside[by0:by1, bx0:bx1] = False
    px0, px1, py0, py1 = device_box(shot, *plot)
    stray = outside[py0:py1, px0:px1]
    assert not stray.any(), "warning red in the plot outside the model's spilled pieces: " + red_report(
        np.pad(stray, ((py0, 0), (px0, 0))), shot
    )

    # (b) the readout lists the model's intervals ...
    items = controls.intervals_text()
    assert len(items) == len(infeasible["oversubscribed"]), (
        f"ul.cw-oversubscribed lists {items}; the model has {infeasible['oversubscribed']}"
    )
    for text, (t0, t1, resource, demand) in zip(items, infeasible["oversubscribed"]):
        parsed = _parse_interval(text)
        assert parsed is not None, f"cannot read the interval {text!r}"
        name, shown_demand, a, b = parsed
        assert (
            name == resource
            and math.isclose(shown_demand, demand, abs_tol=0.006)
            and math.isclose(a, t0, abs_tol=1e-3)
            and math.isclose(b, t1, abs_tol=1e-3)
        ), f"the readout says {text!r}; the model says {resource} {demand:.0%} on {t0}–{t1}"
    # ... and the kernel agrees with what the controls show.
    k_tiles, k_pipeline, k_policy, k_makespan, k_over, _window = controls.kernel_probe()
    assert (k_tiles, k_pipeline, k_policy) == (4, True, "none"), (
        f"kernel-side drive has tiles={k_tiles}, pipeline={k_pipeline}, policy={k_policy!r}"
    )
    assert math.isclose(k_makespan, infeasible["makespan"], rel_tol=1e-12), (k_makespan, infeasible["makespan"])
    assert [tuple(o) for o in k_over] == [tuple(o) for o in infeasible["oversubscribed"]], k_over

    # 4. Choose dilate+throttle: the red and the list go, the makespan is the model's 11.35.
    root.locator("select.cw-policy").select_option("dilate+throttle")
    controls.wait_showing(fixed, "policy dilate+throttle")
    shot = controls.shot()
    controls.lab.screenshot("02-policy-dilate-throttle", full_page=False)
    _assert_no_oversubscription(controls, shot, "policy dilate+throttle")
    k_tiles, k_pipeline, k_policy, k_makespan, k_over, _window = controls.kernel_probe()
    assert (k_tiles, k_pipeline, k_policy, k_over) == (4, True, "dilate+throttle", []), (
        k_tiles,
        k_pipeline,
        k_policy,
        k_over,
    )
    assert math.isclose(k_makespan, fixed["makespan"], rel_tol=1e-12), (k_makespan, fixed["makespan"])
    values = controls.control_values()
    assert values["tiles"] == "4" and values["pipeline"] is True and values["policy"] == "dilate+throttle", values


def test_wheel_zoom_changes_axis_without_the_kernel(controls):
    """Wheel over the plot zooms time around the cursor, the tick labels change, double-click resets.
    Done while the kernel is busy in a ``time.sleep``: the zoom needs no kernel round trip."""
    page, nb, canvas = controls.page, controls.nb, controls.canvas
    before = controls.shot()
    full = (before.t0, before.t1)
    assert full[0] == 0 and full[1] > 0, f"not at full view before zooming: data-t0/t1 = {full}"
    strip0 = axis_strip(before)

    # The kernel is "busy" while the sleep cell's prompt reads [*] (its execute request has no reply).
    # Not the status bar: with ipykernel 7 it flips to Idle once the kernel handles a widget comm
    # message, even while the cell still runs.
    sleeper = nb.cells().nth(nb.append_code_cell("import time\ntime.sleep(5)")).locator(".jp-InputPrompt")
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Enter")
    try:
        page.wait_for_function("p => p.textContent.includes('*')", arg=sleeper.element_handle(), timeout=10_000)
    except Exception as error:
        raise AssertionError(f"the sleep cell did not start: prompt {sleeper.inner_text()!r}") from error

    canvas.scroll_into_view_if_needed()
    shot = read_canvas(canvas)
    anchor_css = shot.plot_left + 0.6 * (shot.plot_right - shot.plot_left)
    anchor_t = shot.t0 + 0.6 * (shot.t1 - shot.t0)
    page.mouse.move(shot.view_x + anchor_css, shot.view_y + (shot.plot_top + shot.plot_bottom) / 2)
    page.mouse.wheel(0, -400)  # zoom in: one event, factor exp(-0.72) ≈ 0.49 (js/shared/zoom.js wheelZoomFactor)
    try:
        page.wait_for_function(
            "([c, span]) => (+c.dataset.t1 - +c.dataset.t0) < 0.8 * span",
            arg=[canvas.element_handle(), full[1] - full[0]],
            timeout=5_000,
        )
    except Exception as error:
        raise AssertionError(
            f"the wheel did not zoom: data-t0/t1 = {canvas.get_attribute('data-t0')}, {canvas.get_attribute('data-t1')}"
        ) from error
    prompt = sleeper.inner_text()
    zoomed = read_canvas(canvas)  # the mouse stays put: the hover highlight does not touch the axis band
    assert "*" in prompt, (
        f"the sleep cell finished ({prompt!r}) before the zoom was seen: the test proves nothing (sleep longer)"
    )
    controls.lab.screenshot("03-zoomed-kernel-busy", full_page=False)

    span = zoomed.t1 - zoomed.t0
    assert full[0] <= zoomed.t0 < zoomed.t1 <= full[1], f"zoom window {zoomed.t0}–{zoomed.t1} outside {full}"
    assert 0.3 * (full[1] - full[0]) < span < 0.7 * (full[1] - full[0]), (
        f"one wheel notch of -400 px should zoom ×~0.49; window {zoomed.t0:g}–{zoomed.t1:g} of {full}"
    )
    under_cursor = zoomed.t0 + (anchor_css - zoomed.plot_left) / (zoomed.plot_right - zoomed.plot_left) * span
    assert math.isclose(under_cursor, anchor_t, abs_tol=0.01 * span), (
        f"zoom is not around the cursor: t {anchor_t:g} was under it, now {under_cursor:g}"
    )
    strip1 = axis_strip(zoomed)
    changed = (np.abs(strip1 - strip0).max(axis=2) > 60).mean()
    assert changed > 0.002, f"the time axis' tick-label band did not change with the zoom ({changed:.3%} of pixels)"

    # The kernel's sleep ends; its echo of time_window must not move the view.
    try:
        page.wait_for_function("p => /\\[\\d+\\]/.test(p.textContent)", arg=sleeper.element_handle(), timeout=20_000)
    except Exception as error:
        raise AssertionError(f"the sleep cell never finished: prompt {sleeper.inner_text()!r}") from error
    nb.wait_kernel_idle(timeout=20_000)
    after_busy = read_canvas(canvas)
    assert (after_busy.t0, after_busy.t1) == (zoomed.t0, zoomed.t1), (
        f"the view moved after the kernel came back: {zoomed.t0}–{zoomed.t1} → {after_busy.t0}–{after_busy.t1}"
    )
    window = controls.kernel_probe()[5]
    assert (
        len(window) == 2
        and math.isclose(window[0], zoomed.t0, abs_tol=1e-9 * full[1])
        and math.isclose(window[1], zoomed.t1, abs_tol=1e-9 * full[1])
    ), f"kernel-side time_window {window} is not the view's window {zoomed.t0}–{zoomed.t1}"

    # Double-click resets to the whole diagram: same domain, same axis band as before the zoom.
    canvas.scroll_into_view_if_needed()
    shot = read_canvas(canvas)
    page.mouse.dblclick(
        shot.view_x + (shot.plot_left + shot.plot_right) / 2, shot.view_y + (shot.plot_top + shot.plot_bottom) / 2
    )
    try:
        page.wait_for_function(
            "([c, t1]) => +c.dataset.t0 === 0 && Math.abs(+c.dataset.t1 - t1) < 1e-9 * t1",
            arg=[canvas.element_handle(), full[1]],
            timeout=5_000,
        )
    except Exception as error:
        raise AssertionError(
            f"double-click did not reset the zoom: data-t0/t1 = {canvas.get_attribute('data-t0')}, "
            f"{canvas.get_attribute('data-t1')}"
        ) from error
    reset = controls.shot()
    controls.lab.screenshot("04-zoom-reset", full_page=False)
    differing = (np.abs(axis_strip(reset) - strip0).max(axis=2) > 60).mean()
    assert differing < 0.001, f"after the reset the time axis differs from before the zoom ({differing:.3%})"


def test_each_control_change_draws_once_from_the_first(controls):
    """A new view's first control changes: one draw each, when the kernel's scene arrives (one
    draw per change): the kernel's echo of the control must not redraw the old scene before the new
    one comes."""
    page, nb = controls.page, controls.nb
    out = nb.run_cell(
        nb.append_code_cell(
            "once = cw.CampaignDiagram(memory_hungry, tiles=2, policy='dilate+throttle', title='draw count')\nonce"
        ),
        timeout=60,
    )
    assert "Traceback" not in out, out
    root = page.locator(".cw-root").last
    canvas = root.locator("canvas.cw-plot")
    canvas.wait_for(state="attached", timeout=RENDER_TIMEOUT_MS)
    canvas.scroll_into_view_if_needed()
    page.wait_for_function("c => +c.dataset.draws > 0", arg=canvas.element_handle(), timeout=RENDER_TIMEOUT_MS)
    page.wait_for_timeout(500)
    tiles = root.locator("input[type=range].cw-tiles")
    for step in range(4):
        draws = int(canvas.get_attribute("data-draws"))
        scenes = int(canvas.get_attribute("data-scenes") or 0)
        drag_range_to(page, tiles, 3 + step)  # one step of the slider, by mouse (and arrow keys if a step off)
        page.wait_for_function(
            "([c, n]) => +(c.dataset.scenes || 0) > n", arg=[canvas.element_handle(), scenes], timeout=UPDATE_TIMEOUT_MS
        )
        page.wait_for_timeout(600)  # anything else this change would draw has drawn by now
        drawn = int(canvas.get_attribute("data-draws")) - draws
        received = int(canvas.get_attribute("data-scenes")) - scenes
        assert drawn == received, f"change {step + 1} (tiles -> {3 + step}): {received} new scene(s), {drawn} draws"
    out = nb.run_cell(nb.append_code_cell("print('TILES', once.tiles)"), timeout=60)
    assert "TILES 6" in out, f"four steps from 2 tiles should reach 6 in the kernel: {out!r}"
