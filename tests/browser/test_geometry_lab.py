"""The diagram's geometry in real JupyterLab + Chromium (issue: pipes out of the frame, an absolute
axis above the peak, a tooltip that describes the phase instead of the tile).

One notebook, three diagrams on a 60 TFLOP/s machine:

* ``frame``: a compute-bound phase whose line is at 1.0 and whose pipe sits above it; everything drawn
  is inside the plot frame: the spine reaches the top of the pipe, and outside the plot rectangle (above
  it, right of it) the canvas is background;
* ``absolute``: the same in absolute mode; the axis' top tick is the machine's peak, not above it;
* ``dilated``: the two-phase pipeline, 4 tiles, dilate+throttle; hovering a tile of A that dilation
  stretched shows that tile's own interval, length and added time, not the phase's duration.

Expected values come from the model in this process (``build_scene``, the schedule's intervals) and the
canvas' ``data-*`` plot transform (js/diagram/CONTRACT.md).
"""

from __future__ import annotations

import numpy as np
import pytest
import workloads
from labdriver import LabPage, Notebook, check_each_test, module_page, read_canvas, write_notebook

import campaign_widget as cw
from campaign_widget.figures.scene import build_scene
from campaign_widget.formatting import format_number, format_percent, format_span

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-geometry.ipynb"
MACHINE = "cw.Machine(peak_compute=60e12, peak_bandwidth=2e12)"
PEAK = 60e12
SETUP = (
    "import campaign_widget as cw\n"
    f"machine = {MACHINE}\n"
    "gemm = cw.Workload([cw.Phase('GEMM', ops=60e12, bytes=0.2e12)], machine=machine)\n"
    f"{workloads.chain_source(workloads.TWO_PHASES, name='pair', machine='machine')}\n"
    "print('READY')"
)
CELLS = (
    "cw.CampaignDiagram(gemm, height=220, show_controls=False)",
    "cw.CampaignDiagram(gemm, y_axis='absolute', show_controls=False)",  # the default height
    "cw.CampaignDiagram(pair, tiles=4, pipeline=True, policy='dilate+throttle', height=260, show_controls=False)",
)
FRAME, ABSOLUTE, DILATED = range(3)


def _gemm():
    return cw.Workload([cw.Phase("GEMM", ops=60e12, bytes=0.2e12)], machine=cw.Machine(PEAK, 2e12))


def _pair_schedule():
    pair = workloads.two_phases(machine=cw.Machine(PEAK, 2e12))
    return pair.schedule(tiles=4, pipeline=True, policy="dilate+throttle")


class Geometry:
    def __init__(self, lab: LabPage):
        self.lab, self.page = lab, lab.page
        self.canvases = self.page.locator(".cw-root canvas.cw-plot")
        self.failed = False

    def root(self, i: int):
        return self.page.locator(".cw-root").nth(i)

    def shot(self, i: int):
        canvas = self.canvases.nth(i)
        canvas.scroll_into_view_if_needed()
        self.page.wait_for_function("c => +c.dataset.draws > 0 && c.width > 0", arg=canvas.element_handle())
        return read_canvas(canvas)


def _open(lab: LabPage, jupyter_lab) -> Geometry:
    write_notebook(jupyter_lab.root_dir, NOTEBOOK, "# Browser test: the diagram's geometry")
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    out = nb.run_cell(nb.append_code_cell(SETUP), timeout=120)
    assert "READY" in out, f"the setup cell failed:\n{out}"
    for cell in CELLS:
        out = nb.run_cell(nb.append_code_cell(cell), timeout=120)
        assert "Traceback" not in out, out
    state = Geometry(lab)
    for k in range(len(CELLS)):
        lab.page.wait_for_function(
            "c => +c.dataset.draws > 0", arg=state.canvases.nth(k).element_handle(), timeout=60_000
        )
    return state


@pytest.fixture(scope="module")
def geometry(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("geometry"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(geometry, request):
    yield from check_each_test(geometry, request)


def _pixels(shot) -> np.ndarray:
    return np.asarray(shot.image.convert("RGB"), dtype=np.int16)


def test_nothing_is_drawn_outside_the_plot_frame(geometry):
    scene = build_scene(_gemm().schedule())
    assert float(scene.line_y.max()) == 1.0 and scene.y_max > 1.2, "the case: a line at 1.0, its pipe above"
    shot = geometry.shot(FRAME)
    geometry.lab.screenshot("frame", full_page=False)
    px = _pixels(shot)
    sx, sy = shot.scale_x, shot.scale_y
    background = px[int((shot.plot_top + 2) * sy), int((shot.plot_right - 3) * sx)]
    top, bottom = int(shot.plot_top * sy), int(shot.plot_bottom * sy)
    left, right = int(shot.plot_left * sx), int(np.ceil(shot.plot_right * sx))

    def differs(region):
        return np.abs(region - background).max(axis=-1) > 24

    above = differs(px[: max(0, top - 1), left + 2 : right])
    assert not above.any(), f"{int(above.sum())} px drawn above the plot frame (rows 0–{top - 2})"
    beside = differs(px[top:bottom, right + 2 :])
    assert not beside.any(), f"{int(beside.sum())} px drawn right of the plot frame (columns {right + 2}–)"

    # The frame's spine reaches at least as high as the pipe's guard rail: the pipe is inside the frame.
    # The spine is the 1 px line centred on plot_left; the device column just left of the plot's edge
    # holds it alone (and the tick marks, at the tick rows).
    rail_row = int(round(shot.css_y(float(scene.well_top.max())) * sy))
    spine = differs(px[:, int(round(shot.plot_left * sx)) - 1 : int(round(shot.plot_left * sx))]).any(axis=1)
    rows = np.flatnonzero(spine[: bottom + 1])
    assert rows.size and rows.min() <= rail_row, (
        f"the spine's top is at row {rows.min() if rows.size else None}, the pipe's guard rail at row {rail_row}: "
        "the pipe pokes out of the frame"
    )


def test_absolute_axis_tops_out_at_the_machines_peak(geometry):
    canvas = geometry.canvases.nth(ABSOLUTE)
    geometry.shot(ABSOLUTE)
    geometry.lab.screenshot("absolute", full_page=False)
    ticks = [float(v) for v in canvas.get_attribute("data-y-ticks").split(",")]
    top_value = max(ticks) * PEAK
    assert 1.0 in ticks, f"the peak itself is not a tick: {ticks}"
    assert top_value <= PEAK * 1.001, (
        f"the axis runs to {top_value / 1e12:g} TFLOP/s on a {PEAK / 1e12:g} TFLOP/s machine (ticks {ticks})"
    )


def _stretched_tile(schedule, scene):
    """The tile of phase A that dilation/throttling stretched the most, and its widest piece."""
    added = schedule.dilation + schedule.throttling
    a = np.flatnonzero(schedule.phase == 0)
    k = int(a[np.argmax(added[a])])
    tile = int(schedule.tile[k])
    pieces = np.flatnonzero((scene.phase == 0) & (scene.tile == tile))
    widest = int(pieces[np.argmax(scene.x1[pieces] - scene.x0[pieces])])
    return k, tile, widest


def test_tooltip_of_a_dilated_tile_describes_that_tile(geometry):
    schedule = _pair_schedule()
    scene = build_scene(schedule)
    k, tile, i = _stretched_tile(schedule, scene)
    start, end = float(schedule.start[k]), float(schedule.end[k])
    added = float(schedule.dilation[k] + schedule.throttling[k])
    phase_duration = float(workloads.two_phases().arrays.duration[0])
    assert added > 0.1 * (end - start) and end - start < phase_duration, "the case: a stretched tile of A"

    shot = geometry.shot(DILATED)
    tooltip = geometry.root(DILATED).locator("div.cw-tooltip")
    t = (float(scene.x0[i]) + float(scene.x1[i])) / 2
    y = (float(scene.line_y[i]) + float(scene.well_top[i])) / 2
    geometry.page.mouse.move(shot.view_x + shot.css_x(t), shot.view_y + shot.css_y(y), steps=4)
    tooltip.wait_for(state="visible", timeout=10_000)
    geometry.lab.screenshot("tooltip", full_page=False)
    rows = {}
    for row in tooltip.locator(".cw-tooltip-row").all():
        label, value = row.locator("span").all_inner_texts()
        rows[label.strip()] = value.strip()
    title = tooltip.locator(".cw-tooltip-title").inner_text()
    try:
        assert title == f"A · tile {tile + 1}", title
        assert rows["time"] == f"{format_span(start, end)} s", rows
        assert rows["duration"] == f"{format_number(end - start, 4)} s", rows
        longer = format_percent(added / (end - start - added))
        assert rows["added by dilation/throttling"] == f"{format_number(added, 4)} s ({longer} longer)", rows
        compute = float(scene.line_y[i] - scene.base_y[i])
        assert rows["compute utilization"].startswith(format_percent(compute)), rows
        assert rows["phase duration"] == f"{format_number(phase_duration, 4)} s", rows
    finally:
        geometry.page.mouse.move(2, 2)
