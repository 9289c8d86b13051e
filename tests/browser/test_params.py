"""In a real browser: one set of parameter values for the Explorer's three views.

Drag the S (sequence) slider in the campaign diagram's control row with the mouse, as a person
would, and see (a) the diagram's makespan readout change to the model's makespan at the new S,
(b) the dataflow view's S slider and ``params`` follow (jslinked in the browser), the roofline's
points follow in the kernel, and (c) the diagram's canvas pixels change. Then drag the dataflow
view's S slider and see the diagram's slider follow. The expected makespan is computed by a fresh
``Workload.with_params(...).schedule()`` in the kernel, independent of the widgets.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from labdriver import LabPage, Notebook, check_each_test, decode_data_url, module_page, write_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-params.ipynb"
TIMEOUT_MS = 60_000
CELL = """\
import campaign_widget as cw
w = cw.Workload.from_einsums(
    {"up": "H[b,f] = X[b,d] * W1[d,f]", "act": "A[b,f] = H[b,f]", "down": "Y[b,d] = A[b,f] * W2[f,d]"},
    {"b": "B*S", "d": "D", "f": "4*D"}, params={"B": 8, "S": 2048, "D": 1024},
    machine=cw.Machine(51.2e12, 3.35e12))
ex = cw.Explorer(w, height=300)
ex
"""
PROBE = """\
import json
_p = dict(ex.diagram.params)
_m = w.with_params(**_p)
from campaign_widget.model.roofline import workload_roofline
_roof = workload_roofline(_m.with_peaks(ex.diagram.peak_compute, ex.diagram.peak_bandwidth))
print('PROBE', json.dumps({'diagram': _p, 'dataflow': dict(ex.dataflow.params), 'makespan': ex.diagram.makespan,
      'model_makespan': _m.schedule().makespan, 'roofline_x': [float(x) for x in ex.roofline.points.x],
      'model_x': [float(x) for x in _roof.intensity]}))
"""
SI = {"": 1.0, "m": 1e-3, "µ": 1e-6, "u": 1e-6, "n": 1e-9, "k": 1e3}


class ParamsPage:
    def __init__(self, lab: LabPage, nb: Notebook):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.diagram_root = self.page.locator(".cw-root").first
        self.canvas = self.diagram_root.locator("canvas.cw-plot")
        self.diagram_s = self.diagram_root.locator("input.cw-param[data-param='S']")
        self.dataflow_s = self.page.locator(".cwd-root input.cwd-param[data-param='S']").first
        self.failed = False

    def makespan_shown(self) -> float:
        text = self.diagram_root.locator("span.cw-makespan").inner_text().strip()
        match = re.fullmatch(r"([-+0-9.e]+)\s*([a-zµ]?)s", text)
        assert match, f"span.cw-makespan reads {text!r}"
        return float(match.group(1)) * SI[match.group(2)]

    def probe(self) -> dict:
        out = self.nb.run_cell(self.nb.append_code_cell(PROBE), timeout=60)
        assert "Traceback" not in out, out
        return json.loads(out.split("PROBE", 1)[1].strip().splitlines()[0])

    def pixels(self):
        self.page.mouse.move(2, 2)
        return decode_data_url(self.canvas.evaluate("c => c.toDataURL('image/png')")).convert("RGB")

    def screenshot(self, label: str) -> None:
        self.diagram_root.evaluate("e => e.scrollIntoView({block: 'start'})")
        self.lab.screenshot(label, full_page=False)

    def draws(self) -> int:
        return int(self.canvas.get_attribute("data-draws") or 0)


def _open(lab: LabPage, jupyter_lab) -> ParamsPage:
    write_notebook(jupyter_lab.root_dir, NOTEBOOK, "# Browser test: live parameters")
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    out = nb.run_cell(nb.append_code_cell(CELL), timeout=120)
    assert "Traceback" not in out, f"the Explorer cell failed:\n{out}"
    state = ParamsPage(lab, nb)
    state.canvas.wait_for(state="attached", timeout=TIMEOUT_MS)
    lab.page.wait_for_function("c => +c.dataset.draws > 0", arg=state.canvas.element_handle(), timeout=TIMEOUT_MS)
    state.dataflow_s.wait_for(state="attached", timeout=TIMEOUT_MS)
    lab.errors.assert_clean(when="while drawing the Explorer")
    return state


@pytest.fixture(scope="module")
def params_page(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("params"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(params_page, request):
    yield from check_each_test(params_page, request)


def _drag(page, slider, to_fraction: float) -> None:
    """Press on the thumb where the slider's value puts it and drag it to ``to_fraction`` of the track."""
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    s = slider.evaluate("s => ({v: +s.value, min: +s.min, max: +s.max})")
    thumb = 16  # Chromium's range thumb is about 16 px: its centre travels box.x + 8 .. box.x + width - 8
    x_of = lambda f: box["x"] + thumb / 2 + f * (box["width"] - thumb)  # noqa: E731
    y = box["y"] + box["height"] / 2
    page.mouse.move(x_of((s["v"] - s["min"]) / (s["max"] - s["min"])), y)
    page.mouse.down()
    page.mouse.move(x_of(to_fraction), y, steps=8)
    page.mouse.up()


def _wait_kernel_params(state: ParamsPage, key: str, s_value: int) -> dict:
    probe = state.probe()
    for _ in range(20):
        if probe[key]["S"] == s_value:
            break
        state.page.wait_for_timeout(250)
        probe = state.probe()
    return probe


def test_a_diagram_parameter_slider_moves_every_view(params_page):
    state, page = params_page, params_page.page
    assert state.diagram_root.locator("input.cw-param").count() == 3, "one slider per parameter (B, S, D)"
    label = state.diagram_root.locator("label.cw-control[data-param='S'] span.cw-label").inner_text()
    assert label == "S"
    before = state.probe()
    assert before["diagram"] == {"B": 8, "S": 2048, "D": 1024}
    shown_before = state.makespan_shown()
    assert math.isclose(shown_before, before["model_makespan"], rel_tol=1e-5)
    pixels_before = state.pixels()
    state.screenshot("params-before")

    _drag(page, state.diagram_s, 0.85)  # 2048 sits in the middle of 128..32768 (log); drag right
    s_value = int(state.diagram_root.locator("label.cw-control[data-param='S'] span.cw-value").inner_text())
    assert s_value > 4096, f"the drag to 85% of the log track left S at {s_value}"
    # (a) the kernel recomputed and the readout shows the model's makespan at the new S
    probe = _wait_kernel_params(state, "diagram", s_value)
    assert probe["diagram"]["S"] == s_value, probe
    assert math.isclose(probe["makespan"], probe["model_makespan"], rel_tol=1e-12), probe
    page.wait_for_function(
        "([span, want]) => { const m = span.textContent.match(/([-+0-9.e]+)\\s*([a-zµ]?)s/);"
        " if (!m) return false; const f = {'': 1, m: 1e-3, 'µ': 1e-6}[m[2]] ?? NaN;"
        " return Math.abs(+m[1] * f - want) <= 1e-5 * want; }",
        arg=[state.diagram_root.locator("span.cw-makespan").element_handle(), probe["model_makespan"]],
        timeout=TIMEOUT_MS,
    )
    assert state.makespan_shown() > 2 * shown_before  # the memory-bound act phase grows with b = B·S
    # (b) the dataflow view's slider and params follow (jslink in the browser), the roofline in the kernel
    assert probe["dataflow"] == probe["diagram"], probe
    page.wait_for_function(
        "([s, v]) => Math.abs(+s.value - Math.log10(v)) < 1e-6",
        arg=[state.dataflow_s.element_handle(), s_value],
        timeout=TIMEOUT_MS,
    )
    follow = state.dataflow_s.locator("xpath=../span[contains(@class, 'cwd-value')]")
    assert follow.inner_text() == str(s_value)
    assert probe["roofline_x"] == pytest.approx(probe["model_x"], rel=1e-12)
    # (c) the canvas pixels changed
    page.wait_for_timeout(300)
    after = state.pixels()
    changed = int((np.asarray(pixels_before) != np.asarray(after)).any(axis=-1).sum())
    assert changed > 500, f"only {changed} diagram pixels changed after S went 2048 → {s_value}"
    state.screenshot("params-after-diagram-drag")


def test_a_dataflow_parameter_slider_moves_the_diagrams_slider(params_page):
    state, page = params_page, params_page.page
    start = state.probe()["diagram"]["S"]
    _drag(page, state.dataflow_s, 0.2)
    s_value = int(state.dataflow_s.locator("xpath=../span[contains(@class, 'cwd-value')]").inner_text())
    assert s_value < start, (s_value, start)
    page.wait_for_function(
        "([s, v]) => Math.abs(+s.value - Math.log10(v)) < 1e-6",
        arg=[state.diagram_s.element_handle(), s_value],
        timeout=TIMEOUT_MS,
    )
    probe = _wait_kernel_params(state, "diagram", s_value)
    assert probe["diagram"] == probe["dataflow"] and probe["diagram"]["S"] == s_value, probe
    assert math.isclose(probe["makespan"], probe["model_makespan"], rel_tol=1e-12), probe
    assert math.isclose(state.makespan_shown(), probe["model_makespan"], rel_tol=1e-5)
    state.screenshot("params-after-dataflow-drag")


def test_a_parameter_set_from_python_moves_both_sliders_and_draws_the_diagram_once(params_page):
    state, page = params_page, params_page.page
    draws = state.draws()
    out = state.nb.run_cell(state.nb.append_code_cell("ex.set_params(S=3000)"), timeout=60)
    assert "Traceback" not in out, out
    for slider in (state.diagram_s, state.dataflow_s):
        page.wait_for_function(
            "([s, v]) => Math.abs(+s.value - Math.log10(v)) < 1e-6",
            arg=[slider.element_handle(), 3000],
            timeout=TIMEOUT_MS,
        )
    page.wait_for_function(
        "([c, n]) => +c.dataset.draws > n", arg=[state.canvas.element_handle(), draws], timeout=TIMEOUT_MS
    )
    page.wait_for_timeout(1000)  # any second draw would come within a few frames
    assert state.draws() == draws + 1, f"{state.draws() - draws} draws for one parameter change"
    probe = state.probe()
    assert probe["diagram"] == probe["dataflow"] == {"B": 8, "S": 3000, "D": 1024}
    assert math.isclose(state.makespan_shown(), probe["model_makespan"], rel_tol=1e-5)


# The roofline's phase points (path.dot) in phase order: the bqplot scatter with three points.
DOTS = """() => {
    const marks = new Map();
    for (const dot of document.querySelectorAll('.bqplot g.object_grp > path.dot')) {
        const mark = dot.parentElement.parentElement;
        if (!marks.has(mark)) marks.set(mark, []);
        marks.get(mark).push(dot);
    }
    return [...marks.values()].find((d) => d.length === 3);
}"""
SCENE_PROBE = """\
from campaign_widget.views.diagram import decode_scene_state
_s = decode_scene_state(ex.diagram.scene)
_k = [int(i) for i in (_s['x1'] - _s['x0']).argsort()[::-1] if int(_s['phase'][i]) == 2][0]
print('SCENE', json.dumps({'x0': float(_s['x0'][_k]), 'x1': float(_s['x1'][_k]), 'base': float(_s['base_y'][_k]),
      'line': float(_s['line_y'][_k])}))
"""


def test_hovering_a_phase_in_the_diagram_or_the_roofline_highlights_it_in_the_dataflow_view(params_page):
    """Linked selection: diagram → dataflow and roofline (the kernel's details),
    roofline → diagram and dataflow, all linked in the browser. (A dataflow click → diagram is in
    tests/browser/test_dataflow_view.py, roofline ↔ diagram in test_linked_views.py.)"""
    state, page = params_page, params_page.page
    dataflow_canvas = page.locator(".cwd-root canvas.cwd-plot").first
    out = state.nb.run_cell(state.nb.append_code_cell(SCENE_PROBE), timeout=60)
    piece = json.loads(out.split("SCENE", 1)[1].strip().splitlines()[0])
    state.diagram_root.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.mouse.move(2, 2)
    data = state.canvas.evaluate("c => ({...c.dataset})")
    box = state.canvas.bounding_box()
    left, right, top, bottom = (float(data[k]) for k in ("plotLeft", "plotRight", "plotTop", "plotBottom"))
    t0, t1, y_top = float(data["t0"]), float(data["t1"]), float(data["yTop"])
    t = (piece["x0"] + piece["x1"]) / 2
    y = (piece["base"] + piece["line"]) / 2
    x_css = left + (t - t0) / (t1 - t0) * (right - left)
    y_css = bottom - y / y_top * (bottom - top)
    page.mouse.move(box["x"] + x_css, box["y"] + y_css, steps=3)  # phase 2, 'down', in the diagram
    page.wait_for_function(
        "c => c.dataset.highlightedPhase === '2'", arg=dataflow_canvas.element_handle(), timeout=TIMEOUT_MS
    )
    page.wait_for_function(  # the roofline's 'down' point takes the hovered style, 'act' the unhovered one
        f"() => {{ const d = ({DOTS})(); const o = (e) => +getComputedStyle(e).opacity;"
        " return o(d[2]) === 1 && o(d[1]) < 0.5; }",
        timeout=TIMEOUT_MS,
    )
    state.screenshot("hover-diagram-down")

    page.mouse.move(2, 2)
    page.wait_for_function(
        "c => c.dataset.highlightedPhase === ''", arg=dataflow_canvas.element_handle(), timeout=TIMEOUT_MS
    )
    # The roofline's 'act' point (phase 1; 'up' and 'down' sit on one spot) → diagram and dataflow.
    centre = page.evaluate(
        f"() => {{ const r = ({DOTS})()[1].getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }}"
    )
    page.mouse.move(centre[0], centre[1], steps=3)
    for canvas in (state.canvas, dataflow_canvas):
        page.wait_for_function(
            "c => c.dataset.highlightedPhase === '1'", arg=canvas.element_handle(), timeout=TIMEOUT_MS
        )
    state.lab.screenshot("hover-roofline-act", full_page=False)
    page.mouse.move(2, 2)
