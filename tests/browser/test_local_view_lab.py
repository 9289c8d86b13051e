"""The local view (LocalView, js/local/) in real JupyterLab: playback, a click and its cache line, capacity.

It plays the loop back and sees highlighted elements move, clicks an element and sees its line
highlighted, moves the capacity slider and sees the miss readout change.

The module writes its own notebook, types a cell that shows ``LocalView`` of a naive matrix product
(6×6×6, float64, 64-byte lines, 8 lines fully associative), and drives it with the mouse. Every
expectation (which elements an iteration touches, which elements share a line, the misses for a
capacity) comes from the model under test (``campaign_widget.cache``) and the grid geometry the widget
sends (cell positions × the canvas' ``data-cell``/``data-origin-*``), never from hard-coded pixels.
"""

from __future__ import annotations

import ast
import re

import numpy as np
import pytest
from labdriver import check_each_test, decode_data_url, drag_range_to, hex_rgb, module_page, open_with_cell

from campaign_widget.cache import Cache, stack_distances
from campaign_widget.views.buffers import from_payload
from campaign_widget.views.local import LocalView

pytestmark = pytest.mark.browser

NOTEBOOK = "browser-test-local-view.ipynb"
SIZES = {"i": 6, "j": 6, "k": 6}
EINSUM = "C[i,j] = A[i,k] * B[k,j]"
CELL = f"""from campaign_widget.views.local import LocalView
from campaign_widget.cache import Cache
view = LocalView(None, {EINSUM!r}, {SIZES!r}, cache=Cache(line=64, lines=8), elem_bytes=8)
view"""
PROBE = "print('PROBE', repr((view.selection, view.capacity, view.point, view.mode)))"
READ = "#1f77b4"  # js/local/draw.js LOCAL_THEME.read
WRITE = "#e6550d"  # LOCAL_THEME.write
LINE = "#00a651"  # LOCAL_THEME.line
TOL = 30


def model_view() -> LocalView:
    """The cell's widget, built here by the code under test: its trace and grid geometry."""
    return LocalView(None, EINSUM, SIZES, cache=Cache(line=64, lines=8), elem_bytes=8)


class Page:
    def __init__(self, lab, nb):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.failed = False
        self.root = self.page.locator(".cwl-root").first
        self.canvas = self.root.locator("canvas.cwl-canvas")
        self.model = model_view()
        self.x = from_payload(self.model.grid["x"])
        self.y = from_payload(self.model.grid["y"])

    def shot(self) -> dict:
        raw = self.canvas.evaluate("""c => { const r = c.getBoundingClientRect();
            return {url: c.toDataURL('image/png'), x: r.left, y: r.top, w: r.width, data: {...c.dataset}}; }""")
        image = decode_data_url(raw["url"])
        raw["rgb"] = np.asarray(image.convert("RGB")).astype(int)
        raw["scale"] = image.width / raw["w"]
        return raw

    def centre(self, shot, e) -> tuple[float, float]:
        """CSS position of element e's centre, relative to the canvas."""
        cell = float(shot["data"]["cell"])
        return (
            float(shot["data"]["originX"]) + (self.x[e] + 0.5) * cell,
            float(shot["data"]["originY"]) + (self.y[e] + 0.5) * cell,
        )

    def colour_near(self, shot, e, colour, radius=0.15) -> int:
        """Pixels of ``colour`` (within TOL) in the box of ±radius cells around element e's centre."""
        cx, cy = self.centre(shot, e)
        r = float(shot["data"]["cell"]) * radius
        s = shot["scale"]
        box = shot["rgb"][int((cy - r) * s) : int((cy + r) * s) + 1, int((cx - r) * s) : int((cx + r) * s) + 1]
        return int((np.abs(box - np.array(hex_rgb(colour))).max(axis=2) <= TOL).sum())

    def colour_in_cell(self, shot, e, colour) -> int:
        """Pixels of ``colour`` inside element e's cell (its edges left out: anti-aliasing of a neighbour)."""
        return self.colour_near(shot, e, colour, radius=0.4)

    def touched(self, point) -> dict[int, bool]:
        """Global element → written?, for the accesses of iteration ``point`` (from the model's trace)."""
        tr = self.model.trace
        at = tr.point == point
        g = self.model._first[tr.tensor[at]] + tr.element[at]
        return {int(e): bool(w) for e, w in zip(g, tr.is_write[at])}

    def probe(self):
        if not hasattr(self, "_probe_cell"):
            self._probe_cell = self.nb.append_code_cell(PROBE)
        out = self.nb.run_cell(self._probe_cell)
        m = re.search(r"PROBE (.*)", out)
        assert m, f"the probe cell printed {out!r}"
        return ast.literal_eval(m.group(1))


def _open(lab, jupyter_lab) -> Page:
    nb = open_with_cell(
        lab, jupyter_lab, NOTEBOOK, "# Browser test: local view", CELL, what="the LocalView cell", timeout=60
    )
    state = Page(lab, nb)
    state.canvas.wait_for(state="attached", timeout=30_000)
    lab.page.wait_for_function(
        "c => c.width > 0 && c.dataset.cell !== undefined", arg=state.canvas.element_handle(), timeout=30_000
    )
    lab.errors.assert_clean(when="while creating the local view")
    return state


@pytest.fixture(scope="module")
def local(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("local-view"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(local, request):
    yield from check_each_test(local, request)


def test_playback_moves_the_highlighted_elements(local):
    page = local.page
    local.canvas.scroll_into_view_if_needed()
    before = local.shot()
    assert before["data"]["point"] == "0" and before["data"]["mode"] == "iteration", before["data"]
    first = local.touched(0)
    assert int(before["data"]["highlighted"]) == len(first)
    for e, written in first.items():
        assert local.colour_near(before, e, WRITE if written else READ) > 0, (
            f"iteration 0 touches element {e} ({local.model._label(e)}) but it is not highlighted"
        )
    local.lab.screenshot("playback-start", full_page=False)

    local.root.locator("select.cwl-speed").select_option("30")
    local.root.locator("button.cwl-play").click()
    page.wait_for_function("c => +c.dataset.point >= 8", arg=local.canvas.element_handle(), timeout=10_000)
    local.root.locator("button.cwl-play").click()  # pause
    page.wait_for_function("c => c.dataset.playing === 'false'", arg=local.canvas.element_handle(), timeout=5_000)
    page.wait_for_timeout(150)
    after = local.shot()
    point = int(after["data"]["point"])
    now = local.touched(point)
    assert set(now) != set(first), f"iterations 0 and {point} touch the same elements"
    for e, written in now.items():
        assert local.colour_near(after, e, WRITE if written else READ) > 0, (
            f"iteration {point} touches {local.model._label(e)} but it is not highlighted"
        )
    for e in set(first) - set(now):
        assert local.colour_near(after, e, READ) == 0 and local.colour_near(after, e, WRITE) == 0, (
            f"{local.model._label(e)} is still highlighted at iteration {point} (only iteration 0 touches it)"
        )
    # the loop sliders follow the playback
    values = local.root.locator("input.cwl-loop").evaluate_all("xs => xs.map(x => +x.value)")
    extents = [SIZES[i] for i in local.model.loop_order]
    assert values == list(np.unravel_index(point, extents)), (values, point)
    # and the kernel knows where the playback stopped
    assert local.probe()[2] == point


def test_click_highlights_the_cache_line(local):
    page, model = local.page, local.model
    a = model.element_of("A", (2, 3))
    same = model.trace.same_line("A", 2 * SIZES["k"] + 3, 64)  # flat indices of A on A[2,3]'s line
    assert 1 < same.size < SIZES["i"] * SIZES["k"]
    others = [int(model._first[0] + f) for f in range(SIZES["i"] * SIZES["k"]) if f not in set(same.tolist())]
    neighbour = int(model._first[0] + [f for f in same if f != 2 * SIZES["k"] + 3][0])
    before = local.shot()
    cx, cy = local.centre(before, a)
    local.canvas.scroll_into_view_if_needed()
    before = local.shot()
    page.mouse.click(before["x"] + cx, before["y"] + cy)
    page.wait_for_function(
        f"c => +c.dataset.lineCells === {same.size} && c.dataset.selection === '1'",
        arg=local.canvas.element_handle(),
        timeout=10_000,
    )
    page.wait_for_timeout(100)
    shot = local.shot()
    local.lab.screenshot("clicked-A-2-3", full_page=False)
    assert local.colour_in_cell(shot, neighbour, LINE) > 4, (
        f"{model._label(neighbour)} shares A[2,3]'s line but shows no line overlay"
    )
    for e in others:
        assert local.colour_in_cell(shot, e, LINE) == 0, f"{model._label(e)} is on another line but is highlighted"
    assert local.probe()[0] == [a], "the kernel's selection is not the clicked element"


def test_capacity_slider_changes_the_miss_readout(local):
    page, model = local.page, local.model
    total = local.root.locator("table.cwl-readout-table tr").last
    distances = stack_distances(model.trace, line=64)

    def shown():
        cells = total.locator("td").all_inner_texts()
        assert cells and cells[0] == "total", cells
        return int(cells[2].replace(",", ""))

    assert shown() == distances.misses(8)
    slider = local.root.locator("input.cwl-capacity")
    maximum = int(slider.evaluate("s => +s.max"))
    target = min(maximum, 40)
    assert distances.misses(target) != distances.misses(8), "pick a capacity whose misses differ"
    value = drag_range_to(page, slider, target)[1]
    want = distances.misses(value)
    page.wait_for_function(
        "([row, want]) => +row.querySelectorAll('td')[2].textContent.replace(/,/g, '') === want",
        arg=[total.element_handle(), want],
        timeout=10_000,
    )
    assert shown() == want
    assert local.probe()[1] == value, "the kernel's capacity is not the slider's"
    local.lab.screenshot("capacity", full_page=False)


def test_a_refused_value_is_reported_and_the_view_stays_usable(local):
    page, model = local.page, local.model
    line = local.root.locator("input.cwl-line")
    line.scroll_into_view_if_needed()
    line.fill("48")
    line.press("Enter")
    message = local.root.locator("div.cwl-message")
    page.wait_for_function("m => m.textContent.includes('line=48')", arg=message.element_handle(), timeout=10_000)
    assert "power of two" in message.inner_text()
    page.wait_for_function("i => i.value === '64'", arg=line.element_handle(), timeout=10_000)
    # still usable: a set-associative cache goes through the kernel (simulate) and shows its conflicts
    local.root.locator("select.cwl-ways").select_option("2")
    capacity = int(local.root.locator("input.cwl-capacity").evaluate("s => +s.value"))
    from campaign_widget.cache import simulate

    want = simulate(model.trace, Cache(line=64, lines=capacity, ways=2))
    total = local.root.locator("table.cwl-readout-table tr").last
    page.wait_for_function(
        "([row, misses, conflict]) => { const td = row.querySelectorAll('td');"
        " return +td[2].textContent.replace(/,/g, '') === misses && +td[5].textContent.replace(/,/g, '') === conflict; }",
        arg=[total.element_handle(), want.misses, want.conflict],
        timeout=10_000,
    )
    page.wait_for_function("m => m.textContent === ''", arg=message.element_handle(), timeout=10_000)
    local.root.locator("select.cwl-ways").select_option("full")


def test_flattened_and_reuse_heatmaps_draw_the_kernels_colours(local):
    page, model = local.page, local.model
    local.root.locator("button.cwl-clear").click()
    page.wait_for_function("c => c.dataset.selection === '0'", arg=local.canvas.element_handle(), timeout=10_000)
    capacity = int(local.root.locator("input.cwl-capacity").evaluate("s => +s.value"))
    model.capacity = capacity  # the page's capacity, so the model's table row is the one drawn
    table = model.capacity_table
    row = min(capacity, table["capacities"]) - 1
    misses_rgb = from_payload(table["lut"])[from_payload(table["severity"])[row]]
    for mode, rgb, varied in (
        ("flattened", from_payload(model.heat["count_rgb"]), False),
        ("reuse", from_payload(model.heat["reuse_rgb"]), True),
        ("misses", misses_rgb, True),
    ):
        local.root.locator("select.cwl-mode").select_option(mode)
        page.wait_for_function(f"c => c.dataset.mode === '{mode}'", arg=local.canvas.element_handle(), timeout=10_000)
        page.wait_for_timeout(100)
        shot = local.shot()
        if varied:
            assert len({tuple(c) for c in rgb.tolist()}) > 1, f"{mode}: one colour everywhere proves little"
        for e in range(len(rgb)):
            cx, cy = local.centre(shot, e)
            s = shot["scale"]
            got = shot["rgb"][int(cy * s), int(cx * s)]
            assert np.abs(got - rgb[e]).max() <= 3, (
                f"{mode}: {model._label(e)} drawn {got.tolist()}, kernel says {rgb[e]}"
            )
        local.lab.screenshot(f"mode-{mode}", full_page=False)
