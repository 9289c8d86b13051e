"""notebooks/01-campaign-basics.ipynb in real JupyterLab + headless Chromium.

The notebook is opened and run once per module (Run All, as a person would); the tests then look at
and operate the two diagrams it displays:

* diagram 0, ``diagram``: Figure 2b, three measured phases A/B/C;
* diagram 1, ``live``: a workload given by volumes, whose durations follow the machine's peaks.

Expected positions and colours come from the model (``Workload.schedule()`` / ``build_scene``) and
from the canvas' own ``data-*`` plot transform (js/diagram/CONTRACT.md), never from hard-coded pixels.
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import numpy as np
import pytest
import workloads
from labdriver import LabPage, Notebook, check_each_test, module_page, png_size, read_canvas, wait_for_file
from PIL import Image

import campaign_widget as cw
from campaign_widget.figures.phase_colours import phase_colors
from campaign_widget.figures.scene import build_scene

pytestmark = pytest.mark.browser

NOTEBOOK = "01-campaign-basics.ipynb"
RENDER_TIMEOUT_MS = 30_000


def figure_2b() -> cw.Workload:
    """The notebook's first workload (the paper's Figure 2b), as the model under test builds it."""
    return workloads.figure_2b(machine=cw.Machine(peak_compute=51.2e12, peak_bandwidth=3.35e12))


def phase_geometry():
    """Per phase of Figure 2b: name, colour, time span, compute line and the top of what it draws."""
    workload = figure_2b()
    scene = build_scene(workload.schedule())
    names = workload.names
    out = []
    for i, name in enumerate(names):
        (pieces,) = np.nonzero(scene.phase == i)
        assert pieces.size == 1, f"phase {name}: expected one piece without tiling, got {pieces.size}"
        k = int(pieces[0])
        out.append(
            dict(
                name=name,
                colour=phase_colors(names)[i],
                x0=float(scene.x0[k]),
                x1=float(scene.x1[k]),
                line_y=float(scene.line_y[k]),
                band_top=float(max(scene.well_top[k], scene.fill_top[k])),
                well_top=float(scene.well_top[k]),
            )
        )
    # The paper's figure, as the brief states it: guards against the model and this test drifting apart.
    spans = [(p["name"], p["x0"], p["x1"], round(p["line_y"], 6)) for p in out]
    assert spans == [("A", 0.0, 3.0, 0.7), ("B", 3.0, 13.0, 0.2), ("C", 13.0, 15.0, 0.6)], spans
    return out


# -- the notebook, opened and run once for the module ------------------------------------------------


class Basics:
    def __init__(self, lab: LabPage, notebook: Notebook, server):
        self.lab, self.page, self.nb, self.server = lab, lab.page, notebook, server
        self.failed = False
        self.check_cell: int | None = None  # the kernel-side probe cell, once added

    def root(self, i: int):
        return self.page.locator(".cw-root").nth(i)

    def canvas(self, i: int):
        return self.root(i).locator("canvas.cw-plot")

    def wait_rendered(self, i: int) -> None:
        """The i-th diagram's canvas has a size and the contract's plot transform."""
        canvas = self.canvas(i)
        canvas.wait_for(state="attached", timeout=RENDER_TIMEOUT_MS)
        canvas.scroll_into_view_if_needed()
        try:
            canvas.evaluate(
                """(c, ms) => new Promise((resolve, reject) => {
                    const t0 = performance.now();
                    const ok = () => c.width > 0 && c.height > 0 && c.dataset.plotLeft !== undefined
                                     && c.dataset.t1 !== undefined && c.dataset.yTop !== undefined;
                    (function poll() {
                        if (ok()) return resolve(true);
                        if (performance.now() - t0 > ms) return reject(new Error('not rendered'));
                        requestAnimationFrame(poll);
                    })();
                })""",
                RENDER_TIMEOUT_MS,
            )
        except Exception as error:
            attrs = canvas.evaluate("c => ({w: c.width, h: c.height, data: {...c.dataset}})")
            raise AssertionError(
                f"diagram {i}: canvas.cw-plot did not render within {RENDER_TIMEOUT_MS / 1000:g} s: {attrs}"
            ) from error


def _open_basics(lab, jupyter_lab) -> Basics:
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    nb.run_all()
    nb.wait_all_executed()
    state = Basics(lab, nb, jupyter_lab)
    try:
        lab.page.locator(".cw-root canvas.cw-plot").first.wait_for(state="attached", timeout=RENDER_TIMEOUT_MS)
    except Exception as error:
        raise AssertionError(
            "no canvas.cw-plot appeared after Run All: is the view built (campaign_widget/static/widget.js)?"
        ) from error
    roots = lab.page.locator(".cw-root").count()
    assert roots == 2, f"the notebook displays two diagrams; the page has {roots} div.cw-root"
    state.wait_rendered(1)
    state.wait_rendered(0)
    errors = nb.error_outputs()
    assert not errors, "cells printed errors:\n" + "\n---\n".join(errors)
    lab.screenshot("01-after-run-all")
    lab.errors.assert_clean(when="while opening and running the notebook")
    return state


@pytest.fixture(scope="module")
def basics(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("basics"), lambda lab: _open_basics(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(basics, request):
    """Each test: no new page/console errors while it ran; artifacts if it failed."""
    yield from check_each_test(basics, request)


# -- the tests ---------------------------------------------------------------------------------------


def colour_problems(shot, phases) -> list[str]:
    """What is wrong with the phase colours on ``shot`` given the model's ``phases`` (empty: all good)."""
    problems = []
    for p in phases:
        x, y = shot.css_x((p["x0"] + p["x1"]) / 2), shot.css_y(p["line_y"])
        if not shot.find_colour(p["colour"], x, y, dx=2, dy=3):
            problems.append(
                f"phase {p['name']}: colour {p['colour']} not within 3 px of its compute line at "
                f"css ({x:.1f}, {y:.1f}) (t={(p['x0'] + p['x1']) / 2}, y={p['line_y']}); pixel there is "
                f"{shot.rgb_at(x, y)}; this colour appears in that column at css y {shot.column_hits(p['colour'], x)}"
            )
    for p in phases:
        px = shot.css_x((p["x0"] + p["x1"]) / 2)
        for q in phases:
            if q is p:
                continue
            # q's colour has no business in p's time span, at q's line height ...
            qy = shot.css_y(q["line_y"])
            if shot.find_colour(q["colour"], px, qy, dx=3, dy=4):
                problems.append(
                    f"phase {q['name']}'s colour {q['colour']} found in phase {p['name']}'s span "
                    f"(t={(p['x0'] + p['x1']) / 2}) at {q['name']}'s line height y={q['line_y']}"
                )
            # ... and p's colour is not at q's line height in p's own span, unless p draws there
            # (its memory well/fill reaches from its line up to band_top).
            if not (p["line_y"] - 0.03 <= q["line_y"] <= p["band_top"] + 0.03):
                if shot.find_colour(p["colour"], px, qy, dx=3, dy=4):
                    problems.append(
                        f"phase {p['name']}'s colour {p['colour']} found at y={q['line_y']} "
                        f"({q['name']}'s line height) in its own span, where it draws nothing"
                    )
    return problems


def test_phase_colours_at_model_positions(basics):
    """Each phase's compute line is drawn in its palette colour where the model puts it, and not
    where it should not be."""
    phases = phase_geometry()
    basics.canvas(0).scroll_into_view_if_needed()
    shot = read_canvas(basics.canvas(0))
    basics.lab.screenshot("02-first-diagram", full_page=False)

    # High-DPI: the backing store is the CSS size times devicePixelRatio.
    assert (
        abs(shot.image.width - shot.css_width * shot.dpr) <= 1
        and abs(shot.image.height - shot.css_height * shot.dpr) <= 1
    ), (
        f"canvas backing store {shot.image.size} is not CSS size {shot.css_width}x{shot.css_height} "
        f"x devicePixelRatio {shot.dpr}"
    )
    # The visible time domain covers the whole schedule before any zoom.
    assert shot.t0 <= 0 + 1e-9 and shot.t1 >= 15 - 1e-9, f"time domain [{shot.t0}, {shot.t1}] misses [0, 15]"
    assert shot.y_top >= 1.0, f"data-y-top {shot.y_top} < 1: the utilization axis must reach 1"

    shot.save(basics.lab.artifacts_dir / "basics-canvas0")  # pixels + transform, for failure analysis
    problems = colour_problems(shot, phases)
    assert not problems, "\n".join(problems)


def _hover(page, shot, t, y):
    page.mouse.move(shot.view_x + shot.css_x(t), shot.view_y + shot.css_y(y), steps=4)


def _standalone_number(value: float, text: str) -> bool:
    """``value`` printed as a number of its own in ``text`` (10 matches "10", "10.0", "10 s"; not "100")."""
    for match in re.finditer(r"(?<![\d.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\d.])", text):
        if math.isclose(float(match.group()), value, rel_tol=1e-9):
            return True
    return False


def test_hover_phase_b_shows_tooltip(basics):
    page = basics.page
    phases = {p["name"]: p for p in phase_geometry()}
    tooltip = basics.root(0).locator("div.cw-tooltip")
    page.mouse.move(2, 2)
    assert not tooltip.is_visible(), "div.cw-tooltip is visible before any hover"
    basics.canvas(0).scroll_into_view_if_needed()
    shot = read_canvas(basics.canvas(0))

    for name in ("B", "A"):
        duration = phases[name]["x1"] - phases[name]["x0"]
        p = phases[name]
        _hover(page, shot, (p["x0"] + p["x1"]) / 2, (p["line_y"] + p["well_top"]) / 2)
        try:
            tooltip.wait_for(state="visible", timeout=5_000)
            page.wait_for_function(
                """([el, name]) => el.textContent.includes(name)""", arg=[tooltip.element_handle(), name], timeout=5_000
            )
        except Exception as error:
            raise AssertionError(
                f"hovering phase {name} did not show a tooltip naming it; tooltip visible="
                f"{tooltip.is_visible()}, text={tooltip.text_content()!r}"
            ) from error
        text = tooltip.inner_text()
        if name == "B":
            basics.lab.screenshot("03-tooltip-phase-B", full_page=False)
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        # It names the phase as its heading (a bare "B" elsewhere is the bytes row's unit) ...
        assert lines and lines[0] == name, f"tooltip over phase {name} is headed {lines[:1]}: {text!r}"
        # ... and shows the phase's duration from the model (label, then value).
        match = re.search(r"duration\s+(\S+)", text)
        assert match and _standalone_number(duration, match.group(1)), (
            f"tooltip over phase {name} does not show its duration {duration:g}: {text!r}"
        )

    page.mouse.move(2, 2)
    try:
        tooltip.wait_for(state="hidden", timeout=5_000)
    except Exception as error:
        raise AssertionError("div.cw-tooltip stays visible after the mouse left the canvas") from error


def _kernel_probe(basics) -> tuple[float, float]:
    """Run (adding it the first time) a cell printing live.peak_bandwidth and live.makespan."""
    if basics.check_cell is None:
        basics.check_cell = basics.nb.append_code_cell('print("PROBE", repr(live.peak_bandwidth), repr(live.makespan))')
    out = basics.nb.run_cell(basics.check_cell)
    match = re.search(r"PROBE (\S+) (\S+)", out)
    assert match, f"the probe cell printed {out!r}"
    return float(match.group(1)), float(match.group(2))


def test_drag_bandwidth_slider_changes_view_and_kernel(basics):
    page = basics.page
    root = basics.root(1)
    slider = root.locator("input[type=range].cw-peak-bandwidth")
    readout = root.locator("span.cw-makespan")

    # Kernel side before: cell 6 set twice the machine's 3.0e12 B/s from Python; the slider shows it.
    bw0, makespan0 = _kernel_probe(basics)
    assert math.isclose(bw0, 6.0e12, rel_tol=1e-12), f"live.peak_bandwidth after Run All is {bw0!r}"
    slider.scroll_into_view_if_needed()
    state0 = slider.evaluate("s => ({v: +s.value, min: +s.min, max: +s.max})")
    assert math.isclose(state0["v"], math.log10(bw0), abs_tol=0.02), (
        f"the slider reads {state0['v']}, not log10 of the kernel's peak_bandwidth {math.log10(bw0):.4f}"
    )
    readout0 = readout.inner_text()
    basics.canvas(1).scroll_into_view_if_needed()
    pixels0 = read_canvas(basics.canvas(1)).image.tobytes()

    # Drag the thumb to the right, as a person would: press on it, move, release.
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    thumb = 16.0  # Chromium's default range thumb is ~16 px wide; the thumb's centre travels width - thumb
    frac = (state0["v"] - state0["min"]) / (state0["max"] - state0["min"])
    x = box["x"] + thumb / 2 + frac * (box["width"] - thumb)
    y = box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 0.2 * box["width"], y, steps=8)
    page.mouse.up()

    v1 = slider.evaluate("s => +s.value")
    assert v1 > state0["v"] + 0.05, f"dragging the thumb right moved the slider from {state0['v']} to {v1}"
    try:
        page.wait_for_function(
            "([el, old]) => el.textContent !== old", arg=[readout.element_handle(), readout0], timeout=10_000
        )
    except Exception as error:
        raise AssertionError(f"span.cw-makespan still reads {readout0!r} after the drag") from error
    readout1 = readout.inner_text()

    basics.canvas(1).scroll_into_view_if_needed()
    pixels1 = read_canvas(basics.canvas(1)).image.tobytes()
    assert pixels1 != pixels0, "the second diagram's canvas pixels did not change after the drag"
    basics.lab.screenshot("04-after-bandwidth-drag", full_page=False)

    # Kernel side after: the view wrote the new peak, 10 ** slider value (the view rounds it to 4
    # significant digits, js/diagram/controls.js peakFromSlider); memory-bound phases shrank.
    bw1, makespan1 = _kernel_probe(basics)
    assert bw1 != bw0, f"live.peak_bandwidth is still {bw0!r} in the kernel after the drag"
    assert math.isclose(bw1, 10**v1, rel_tol=5e-4), (
        f"kernel peak_bandwidth {bw1!r} is not 10 ** slider value ({10**v1!r})"
    )
    assert makespan1 < makespan0, f"more bandwidth did not shorten the makespan: {makespan0!r} -> {makespan1!r}"
    # The readout shows the kernel's makespan, before and after.
    for text, value in ((readout0, makespan0), (readout1, makespan1)):
        shown = _seconds(text)
        assert shown is not None and math.isclose(shown, value, rel_tol=5e-3), (
            f"span.cw-makespan reads {text!r}; the kernel's makespan is {value!r} s"
        )


_SI = {"": 1.0, "k": 1e3, "m": 1e-3, "µ": 1e-6, "u": 1e-6, "n": 1e-9}


def _seconds(text: str) -> float | None:
    """'18.3 ms' -> 0.0183 (the first time quantity in ``text``)."""
    match = re.search(r"(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(k|m|µ|u|n)?s\b", text)
    return float(match.group(1)) * _SI[match.group(2) or ""] if match else None


def _over_white(image: Image.Image) -> np.ndarray:
    rgba = np.asarray(image.convert("RGBA")).astype(float)
    alpha = rgba[..., 3:4] / 255
    return rgba[..., :3] * alpha + 255 * (1 - alpha)


def _check_figure_png(data: bytes, shot, scale: float, what: str, artifacts_dir, name: str) -> None:
    """A PNG of the figure at ``scale`` × the canvas' CSS size (within 1 px), showing what the canvas shows.

    js/diagram/CONTRACT.md: the PNG is "the whole figure (plot, axes, legend, readout; not the HTML controls)
    drawn at scale × CSS size". When scale == devicePixelRatio it must be the on-screen canvas, pixel
    for pixel (up to antialiasing).
    """
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), f"{what} is not a PNG: starts with {data[:8]!r}"
    (artifacts_dir / name).write_bytes(data)
    width, height = png_size(data)
    css_w, css_h = shot.css_width, shot.css_height
    assert abs(width - scale * css_w) <= 1 and abs(height - scale * css_h) <= 1, (
        f"{what} is {width}x{height} px; {scale:g} x the canvas' CSS size {css_w:g}x{css_h:g} is "
        f"{scale * css_w:g}x{scale * css_h:g} (saved as {artifacts_dir / name})"
    )

    image = Image.open(io.BytesIO(data))
    png = _over_white(image)
    # Each phase colour is in it: it is the figure, not a blank.
    flat = png.reshape(-1, 3)
    colours = phase_colors("ABC")
    for i, phase in enumerate("ABC"):
        rgb = np.array([int(colours[i][k : k + 2], 16) for k in (1, 3, 5)])
        assert (np.abs(flat - rgb).max(axis=1) <= 28).sum() >= 20, (
            f"{what} has no pixels of phase {phase}'s colour {colours[i]}"
        )
    if math.isclose(scale, shot.dpr):
        screen = _over_white(shot.image)
        top = png[: screen.shape[0], : screen.shape[1]]
        differing = (np.abs(top - screen).max(axis=2) > 48).mean()
        assert differing < 0.005, (
            f"{what}: {differing:.1%} of its pixels differ from the on-screen canvas (see {artifacts_dir / name})"
        )


def test_save_png_from_kernel(basics):
    """diagram.save_png(path, scale=2) in a new cell: the view draws it, the kernel writes it."""
    target = basics.server.work_dir / "figure-2b.png"
    assert not target.exists()
    cell = basics.nb.append_code_cell(f"export = diagram.save_png(r{str(target)!r}, scale=2)\nexport")
    out = basics.nb.run_cell(cell)
    assert "Error" not in out and "Traceback" not in out, f"save_png cell output: {out!r}"
    data = wait_for_file(target, 15, "save_png")
    basics.canvas(0).scroll_into_view_if_needed()
    shot = read_canvas(basics.canvas(0))
    _check_figure_png(data, shot, 2.0, "save_png(scale=2)", basics.lab.artifacts_dir, "basics-save_png.png")


def test_download_button_gives_png(basics):
    """The toolbar's download button: a PNG download of the figure at devicePixelRatio."""
    page = basics.page
    button = basics.root(0).locator("button.cw-download")
    button.scroll_into_view_if_needed()
    with page.expect_download(timeout=10_000) as info:
        button.click()
    download = info.value
    assert download.failure() is None, f"download failed: {download.failure()}"
    assert download.suggested_filename.lower().endswith(".png"), download.suggested_filename
    data = Path(download.path()).read_bytes()
    shot = read_canvas(basics.canvas(0))
    _check_figure_png(data, shot, shot.dpr, "the downloaded PNG", basics.lab.artifacts_dir, "basics-download.png")


def test_save_png_in_the_theme_asked_for(basics):
    """save_png(theme="dark") on a light page: the picture is dark, the view on screen stays light."""
    target = basics.server.work_dir / "figure-2b-dark.png"
    cell = basics.nb.append_code_cell(f"export = diagram.save_png(r{str(target)!r}, scale=1, theme='dark')\nexport")
    out = basics.nb.run_cell(cell)
    assert "Error" not in out and "Traceback" not in out, f"save_png cell output: {out!r}"
    data = wait_for_file(target, 15, "save_png(theme='dark')")
    dark = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=float)
    corner = dark[:20, :20].reshape(-1, 3).mean(axis=0)
    assert corner.max() < 80, f"the dark picture's background is {corner}"
    basics.canvas(0).scroll_into_view_if_needed()
    screen = read_canvas(basics.canvas(0))
    assert basics.canvas(0).get_attribute("data-theme") == "light"
    assert np.asarray(_over_white(screen.image))[:20, :20].mean() > 200
