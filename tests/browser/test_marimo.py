"""The views in marimo, in a real browser: ``marimo run`` serves an app, headless Chromium shows it.

``notebooks/marimo_explorer.py``: the Explorer displays as the campaign diagram beside the canvas
roofline (anywidgets, linked in the kernel); both draw, dragging the app's marimo slider redraws
both (the roofline's ridge lands where the model puts it for the slider's bandwidth), and hovering a
roofline point highlights its phase in the diagram. A second app shows a bare ``Workload``, a
``StackedDiagrams``, a ``DataflowView`` and a ``LocalView`` wrapped by ``mo.ui.anywidget``: each draws.
Expectations come from the model (the app's own workload, run in-process by marimo).
"""

from __future__ import annotations

import math
import os
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from conftest import BENIGN_CONSOLE, DEVICE_SCALE_FACTOR, VIEWPORT
from labdriver import LabPage, decode_data_url, hex_rgb

pytest.importorskip("marimo", reason="marimo is in the test extra: pip install -e '.[test]'")

REPO = Path(__file__).resolve().parents[2]
APP = REPO / "notebooks" / "marimo_explorer.py"
START_TIMEOUT = 90.0
DIAGRAM = "canvas.cw-plot:not(.cw-roofline-plot)"
ROOFLINE = "canvas.cw-roofline-plot"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MarimoApp:
    """``marimo run APP --headless --port N`` in its own process group, stopped by its own handle."""

    def __init__(self, app: Path, log_path: Path):
        self.app, self.log_path = app, log_path
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
        for _ in range(3):  # a port found free can be taken before the server binds it
            self.port = _free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            with open(log_path, "w", encoding="utf-8") as log:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "marimo", "run", str(app), "--headless", "--port", str(self.port)]
                    + ["--no-token", "--no-sandbox"],
                    cwd=app.parent,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
            if self._wait():
                return
        pytest.fail(f"marimo run could not bind a free port in 3 attempts:\n{self.log_tail()}", pytrace=False)

    def _wait(self) -> bool:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if "already in use" in self.log_tail():
                    return False
                pytest.fail(f"marimo run exited with {self.process.returncode}:\n{self.log_tail()}", pytrace=False)
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=2) as response:
                    if response.status == 200:
                        return True
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            time.sleep(0.2)
        self.stop()
        pytest.fail(f"marimo run did not answer /health within {START_TIMEOUT:g} s:\n{self.log_tail()}", pytrace=False)

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return "(no server log)"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        try:  # whatever it left in its own process group
            os.killpg(self.process.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass


@pytest.fixture
def page_for(browser, artifacts_dir, request):
    """``page_for(app) -> LabPage`` on ``marimo run app``; page or console errors fail the test."""
    opened: list[tuple[MarimoApp, LabPage]] = []

    def factory(app: Path) -> LabPage:
        name = f"{request.node.name}-{app.stem}"
        server = MarimoApp(app, artifacts_dir / f"{name}-marimo.log")
        lab = LabPage(
            browser,
            name,
            artifacts_dir,
            viewport=VIEWPORT,
            device_scale_factor=DEVICE_SCALE_FACTOR,
            benign=BENIGN_CONSOLE,
        )
        opened.append((server, lab))
        lab.page.goto(server.url)
        return lab

    yield factory
    failed = bool(getattr(request.node, "rep_call", None) and request.node.rep_call.failed)
    for server, lab in opened:
        try:
            if failed:
                lab.save_failure("end")
            lab.close(failed)
        finally:
            server.stop()
    for _, lab in opened:
        lab.errors.assert_clean(when=f"during {request.node.name}")


def _wait_drawn(page, selector: str, count: int = 1, timeout: float = 60.0):
    """The first ``count`` canvases matching ``selector`` once each has drawn (data-draws ≥ 1)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        canvases = page.locator(selector)
        if canvases.count() >= count and all(
            int(canvases.nth(i).get_attribute("data-draws") or 0) >= 1 for i in range(count)
        ):
            return [canvases.nth(i) for i in range(count)]
        time.sleep(0.25)
    raise AssertionError(f"{count} drawn {selector} did not appear within {timeout:g} s")


def _pixels(canvas):
    """(PIL image, data attributes, CSS width) of a canvas."""
    raw = canvas.evaluate("c => ({url: c.toDataURL('image/png'), data: {...c.dataset}, w: c.clientWidth})")
    return decode_data_url(raw["url"]), raw["data"], raw["w"]


def _count_colour(image, colour: str, tol: int = 24) -> int:
    target = hex_rgb(colour)
    return sum(
        n
        for n, (r, g, b, a) in image.getcolors(1 << 20)
        if a > 200 and max(abs(r - target[0]), abs(g - target[1]), abs(b - target[2])) <= tol
    )


def _wait_changed(canvas, before: bytes, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        image, data, width = _pixels(canvas)
        if image.tobytes() != before:
            return image, data, width
        time.sleep(0.25)
    raise AssertionError("the canvas did not redraw within the timeout")


@pytest.fixture(scope="module")
def app_model():
    """The app's own workload and diagram, run in this process by marimo (no browser)."""
    sys.path.insert(0, str(APP.parent))
    try:
        import marimo_explorer
    finally:
        sys.path.remove(str(APP.parent))
    _, defs = marimo_explorer.app.run()
    return defs


def _to_px(value: float, lo: float, hi: float, px_lo: float, px_hi: float) -> float:
    return px_lo + (math.log10(value) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) * (px_hi - px_lo)


def test_explorer_app_draws_both_views_and_the_slider_redraws_both(page_for, app_model):
    from campaign_widget.views.roofline_canvas import RooflinePlot

    lab = page_for(APP)
    page = lab.page
    diagram_canvas, roofline_canvas = _wait_drawn(page, DIAGRAM)[0], _wait_drawn(page, ROOFLINE)[0]
    explorer = app_model["explorer"]
    colors = list(explorer.diagram.phase_colors)
    diagram_before, _, _ = _pixels(diagram_canvas)
    roofline_before, data, _ = _pixels(roofline_canvas)
    lab.screenshot("drawn")
    for name, colour in zip(explorer.diagram.phase_names, colors):  # every phase drawn in both views
        assert _count_colour(diagram_before, colour) > 50, f"phase {name} ({colour}) missing from the diagram"
        assert _count_colour(roofline_before, colour) > 50, f"phase {name} ({colour}) missing from the roofline"
    geometry = RooflinePlot(explorer.diagram).geometry
    assert [float(v) for v in data["xRange"].split(",")] == pytest.approx(geometry["x_range"])
    assert int(data["pointsDrawn"]) == len(colors)

    slider = page.locator("[role=slider]").first
    slider.scroll_into_view_if_needed()
    start = float(slider.get_attribute("aria-valuenow"))
    box = slider.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 250, y, steps=8)
    page.mouse.up()
    after = float(slider.get_attribute("aria-valuenow"))
    assert after > start, f"the slider did not move ({start} → {after})"
    diagram_after, diagram_data, _ = _wait_changed(diagram_canvas, diagram_before.tobytes())
    roofline_after, data, _ = _wait_changed(roofline_canvas, roofline_before.tobytes())
    lab.screenshot("after-drag")

    # the ridge is drawn where the model puts it for the slider's bandwidth (the last redraw settles it)
    P = explorer.diagram.workload.machine.peak_compute
    ridge = P / (after * 1e12)
    deadline = time.monotonic() + 30
    while True:
        x_lo, x_hi = (float(v) for v in data["xRange"].split(","))
        y_lo, y_hi = (float(v) for v in data["yRange"].split(","))
        rx = _to_px(ridge, x_lo, x_hi, float(data["plotLeft"]), float(data["plotRight"]))
        ry = _to_px(P, y_lo, y_hi, float(data["plotBottom"]), float(data["plotTop"]))
        s = roofline_after.width / float(roofline_canvas.evaluate("c => c.clientWidth"))
        r, g, b, _ = roofline_after.getpixel((int(rx * s), int(ry * s)))
        if max(r, g, b) < 90 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
        roofline_after, data, _ = _pixels(roofline_canvas)
    assert max(r, g, b) < 90, f"no ridge mark at OI {ridge:.3g} (px {rx:.0f}, {ry:.0f}): rgb {(r, g, b)}"


def test_hovering_a_roofline_point_highlights_its_phase_in_the_diagram(page_for, app_model):
    from campaign_widget.views.roofline_canvas import RooflinePlot

    lab = page_for(APP)
    page = lab.page
    diagram_canvas, roofline_canvas = _wait_drawn(page, DIAGRAM)[0], _wait_drawn(page, ROOFLINE)[0]
    geometry = RooflinePlot(app_model["explorer"].diagram).geometry
    _, data, _ = _pixels(roofline_canvas)
    phase = int(geometry["share"].argmax())  # the biggest point
    x_lo, x_hi = geometry["x_range"]
    y_lo, y_hi = geometry["y_range"]
    px = _to_px(float(geometry["phase_x"][phase]), x_lo, x_hi, float(data["plotLeft"]), float(data["plotRight"]))
    py = _to_px(float(geometry["phase_y"][phase]), y_lo, y_hi, float(data["plotBottom"]), float(data["plotTop"]))
    roofline_canvas.scroll_into_view_if_needed()
    box = roofline_canvas.bounding_box()
    page.mouse.move(box["x"] + px, box["y"] + py)
    deadline = time.monotonic() + 30
    while diagram_canvas.get_attribute("data-highlighted-phase") != str(phase):
        assert time.monotonic() < deadline, (
            f"hovering phase {phase} on the roofline left the diagram's highlight at "
            f"{diagram_canvas.get_attribute('data-highlighted-phase')!r}"
        )
        time.sleep(0.2)
    assert roofline_canvas.get_attribute("data-highlighted-phase") == str(phase)
    assert page.locator(".cw-roofline .cw-tooltip").first.is_visible()
    page.mouse.move(box["x"] + 2, box["y"] + 2)  # off every point: the highlight goes in both
    deadline = time.monotonic() + 30
    while diagram_canvas.get_attribute("data-highlighted-phase") != "":
        assert time.monotonic() < deadline, "leaving the point left the diagram highlighted"
        time.sleep(0.2)


VIEWS_APP = """
import marimo

app = marimo.App(width="full")


@app.cell
def _():
    import marimo as mo
    import campaign_widget as cw
    return cw, mo


@app.cell
def _(cw):
    m = cw.Machine(peak_compute=100.0, peak_bandwidth=10.0)
    w = cw.Workload([cw.Phase("A", ops=300, bytes=200), cw.Phase("B", ops=200, bytes=40, after=["A"])], machine=m)
    w
    return (w,)


@app.cell
def _(cw, w):
    cw.StackedDiagrams({"sequential": w, "pipelined": (w, dict(tiles=4, pipeline=True))})
    return


@app.cell
def _(cw, mo):
    flow = cw.Workload.from_einsums(
        {"mm1": "T[i,k] = A[i,j] * B[j,k]", "mm2": "C[i,l] = T[i,k] * D[k,l]"},
        {"i": 64, "j": 64, "k": 64, "l": 64},
        machine=cw.Machine(peak_compute=1e12, peak_bandwidth=1e10),
    )
    mo.ui.anywidget(cw.DataflowView(flow))
    return


@app.cell
def _(cw, mo):
    mo.ui.anywidget(cw.LocalView(None, "C[i,j] = A[i,k] * B[k,j]", {"i": 3, "j": 4, "k": 5}))
    return


@app.cell
def _(cw, mo, w):
    reactive = mo.ui.anywidget(cw.CampaignDiagram(w, title="reactive"))
    reactive
    return (reactive,)


@app.cell
def _(mo, reactive):
    mo.md(f"reactive makespan: {reactive.value['makespan']:.6g}")
    return
"""


def test_every_view_draws_in_marimo(page_for, tmp_path):
    app = tmp_path / "views_app.py"
    app.write_text(textwrap.dedent(VIEWS_APP), encoding="utf-8")
    lab = page_for(app)
    page = lab.page
    # the bare workload (its Explorer: diagram + roofline) and the stack's two panels: three diagrams
    diagrams = _wait_drawn(page, DIAGRAM, count=3)
    _wait_drawn(page, ROOFLINE)
    _wait_drawn(page, "canvas.cwd-plot")
    _wait_drawn(page, "canvas.cwl-canvas")
    lab.screenshot("views")
    for canvas in diagrams:
        image, _, _ = _pixels(canvas)
        assert len(image.getcolors(1 << 20)) > 20, "a diagram canvas is blank"

    # a view's traits are reactive values: the view's own peak slider re-runs the cell that reads them
    text = page.get_by_text("reactive makespan:")
    text.wait_for()
    before = text.inner_text()
    assert before == "reactive makespan: 24", before  # A: 300/100 vs 200/10 s, B: 200/100 vs 40/10 s
    root = page.locator(".cw-root").filter(has=page.locator(DIAGRAM)).last
    slider = root.locator("label.cw-control", has_text="peak bandwidth").locator("input[type=range]")
    slider.scroll_into_view_if_needed()
    slider.focus()
    for _ in range(10):
        page.keyboard.press("ArrowLeft")  # less bandwidth: both phases are memory-bound, the makespan grows
    deadline = time.monotonic() + 30
    while text.inner_text() == before:
        assert time.monotonic() < deadline, "the cell reading the view's makespan did not re-run"
        time.sleep(0.25)
    assert float(text.inner_text().split(":")[1]) > 24
