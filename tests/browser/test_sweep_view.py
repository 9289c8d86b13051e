"""SweepView in real JupyterLab + headless Chromium.

The module writes its own notebook, types a cell that sweeps docs/semantics.md#schedules's workload
A(3, .7, .6) → B(10, .2, .9) over tiles × policy × depth (pipelined) and displays
``cw.SweepView(result, x="tiles", y="policy")``, then uses it as a person would: it hovers a cell
and reads that configuration's row; it clicks a cell and sees that configuration's campaign diagram
open below with the model's makespan; it picks another depth in the dropdown and sees the cell
colours change. It reads what bqplot drew: the colour bar's numbers carry their unit and stay inside
the figure, the hover tooltip is narrower than the figure, the clicked cell is outlined in the pixels,
a boolean column is two named colours. A second cell shows a sweep still running
(``SweepView.live``) fill in, with its progress bar moving.

Expected numbers come from the model under test (``Workload.schedule``) computed here, never from
the widget's own output.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from labdriver import LabPage, Notebook, check_each_test, hex_rgb, module_page, open_with_cell
from PIL import Image
from workloads import TWO_PHASES, chain_source, two_phases

import campaign_widget as cw
from campaign_widget.static_figure.heatmap import value_label
from campaign_widget.views.sweep import BOOLEAN_COLORS

pytestmark = pytest.mark.browser

NOTEBOOK = "browser-test-sweep-view.ipynb"
TIMEOUT_MS = 30_000
TILES = [1, 2, 4, 8]
POLICIES = list(cw.POLICIES)
DEPTHS = [1, 2]

# No blank lines: labdriver's read-back of the typed cell doubles them.
SWEEP_CELL = f"""import campaign_widget as cw
{chain_source(TWO_PHASES, machine='cw.Machine.unit(time_unit="ticks")')}
result = cw.sweep(w, progress=False, tiles=[1, 2, 4, 8], pipeline=[True], policy=list(cw.POLICIES), depth=[1, 2])
view = cw.SweepView(result, x="tiles", y="policy", color="makespan")
view"""

# 96 phases, up to 64 tiles, 12 depths: a second or more of work (the sweep reuses its plans and
# batches), so the view is seen filling in.
LIVE_CELL = """chain = cw.Workload([cw.Phase(f"p{i}", duration=1 + i % 5, compute_util=0.3 + 0.005 * (i % 48), memory_util=0.8 - 0.005 * (i % 48), after=[f"p{i-1}"] if i else []) for i in range(96)], machine=cw.Machine.unit())
live = cw.SweepView.live(chain, x="tiles", y="policy", tiles=list(range(4, 68, 4)), pipeline=[True], policy=list(cw.POLICIES), depth=list(range(1, 13)))
live"""
LIVE_DEPTHS = 12
LIVE_TILES = list(range(4, 68, 4))
UNIT = "ticks"  # the machine's time unit: makespans read in it
# The heatmap's own cells: the first mark's rows (the clicked cell's outline is a second grid above it)
MAIN_CELLS = "(root) => [...root.querySelector('g.heatmaprow').parentNode.querySelectorAll('rect.heatmapcell')]"


def workload() -> cw.Workload:
    return two_phases(machine=cw.Machine.unit(time_unit="ticks"))


def model_makespan(tiles, policy, depth) -> float:
    return float(workload().schedule(tiles=tiles, pipeline=True, policy=policy, depth=depth).makespan)


class Page:
    def __init__(self, lab: LabPage, nb: Notebook):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.failed = False
        self.view = self.page.locator(".cw-sweep").first

    def cell(self, row: int, col: int):
        """The heatmap rect of row ``row`` (policy index) and column ``col`` (tiles index)."""
        return self.view.locator("g.heatmaprow").nth(row).locator("rect.heatmapcell").nth(col)

    def _centre(self, row: int, col: int):
        cell = self.cell(row, col)
        cell.scroll_into_view_if_needed()
        box = cell.bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def click_cell(self, row: int, col: int) -> None:
        """A mouse click at the cell's centre, as a person clicks (the best cell's marker is there)."""
        # as a hand does: the mouse arrives, the hover tooltip settles beside it, then the button goes
        # down and up (a click in one jump can land on the tooltip still drawn where the mouse was)
        self.hover_cell(row, col)
        self.page.wait_for_timeout(400)
        self.page.mouse.down()
        self.page.mouse.up()

    def hover_cell(self, row: int, col: int) -> None:
        self.page.mouse.move(2, 2)
        self.page.mouse.move(*self._centre(row, col), steps=4)

    def depth_shown(self) -> int:
        return int(
            self.view.locator(".cw-sweep-axis-depth select").evaluate("s => s.options[s.selectedIndex].textContent")
        )

    def fills(self) -> list[str]:
        return self.view.evaluate(f"root => ({MAIN_CELLS})(root).map(e => getComputedStyle(e).fill)")


def _open(lab, jupyter_lab) -> Page:
    nb = open_with_cell(
        lab, jupyter_lab, NOTEBOOK, "# Browser test: sweep heatmap", SWEEP_CELL, what="the sweep cell", timeout=90
    )
    state = Page(lab, nb)
    cells = state.view.locator("rect.heatmapcell")
    lab.page.wait_for_function(
        f"() => document.querySelector('.cw-sweep g.heatmaprow') && "
        f"({MAIN_CELLS})(document.querySelector('.cw-sweep')).length === {len(TILES) * len(POLICIES)}",
        timeout=TIMEOUT_MS,
    )
    assert cells.count() >= len(TILES) * len(POLICIES)
    lab.errors.assert_clean(when="while drawing the sweep heatmap")
    return state


@pytest.fixture(scope="module")
def sweep_page(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("sweep-view"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(sweep_page, request):
    yield from check_each_test(sweep_page, request)


def test_the_heatmap_shows_the_best_configuration(sweep_page):
    s = sweep_page
    # the model's best feasible configuration (none/dilate oversubscribe memory on this workload)
    best = min(
        (model_makespan(t, p, d), t, p, d)
        for t in TILES
        for p in POLICIES
        for d in DEPTHS
        if not workload().schedule(tiles=t, pipeline=True, policy=p, depth=d).oversubscribed
    )
    text = s.view.locator(".cw-sweep-best").inner_text()
    assert f"tiles {best[1]}," in text and f"policy {best[2]}," in text and f"depth {best[3]} " in text, text
    assert f"makespan {value_label(best[0], UNIT)}" in text, text
    assert s.depth_shown() == best[3]  # the dropdowns start at the best configuration
    # the marker sits on the best cell: its centre is inside that rect
    marker = s.view.locator("path.dot, .dot").first.bounding_box()
    cell = s.cell(POLICIES.index(best[2]), TILES.index(best[1])).bounding_box()
    cx, cy = marker["x"] + marker["width"] / 2, marker["y"] + marker["height"] / 2
    assert cell["x"] <= cx <= cell["x"] + cell["width"] and cell["y"] <= cy <= cell["y"] + cell["height"], (
        marker,
        cell,
    )
    s.lab.screenshot("sweep-heatmap", full_page=False)


def test_hovering_a_cell_shows_its_row(sweep_page):
    s = sweep_page
    depth = s.depth_shown()
    s.hover_cell(POLICIES.index("throttle"), TILES.index(2))
    want = model_makespan(2, "throttle", depth)
    readout = s.view.locator(".cw-sweep-hover")
    s.page.wait_for_function(
        "([el, t]) => el.textContent.includes(t)",
        arg=[readout.element_handle(), "tiles=2, pipeline=True, policy=throttle"],
        timeout=TIMEOUT_MS,
    )
    text = readout.inner_text()
    assert f"depth={depth}" in text and f"makespan {value_label(want, UNIT)}" in text, text
    feasible = not workload().schedule(tiles=2, pipeline=True, policy="throttle", depth=depth).oversubscribed
    assert f"feasible {value_label(feasible)}" in text and "peak_demand_memory" in text, text


def test_clicking_a_cell_opens_that_configurations_diagram(sweep_page):
    s = sweep_page
    depth = s.depth_shown()
    for tiles, policy in ((4, "none"), (8, "dilate+throttle")):
        s.click_cell(POLICIES.index(policy), TILES.index(tiles))
        want = model_makespan(tiles, policy, depth)
        diagram = s.view.locator(".cw-sweep-diagram .cw-root")
        # looked up on every poll: the previous click's diagram is replaced by a new one
        s.page.wait_for_function(
            """([root, m]) => { const span = root.querySelector('.cw-sweep-diagram span.cw-makespan');
                                return span && Math.abs(parseFloat(span.textContent) - m) <= 1e-6 * Math.max(1, m); }""",
            arg=[s.view.element_handle(), want],
            timeout=TIMEOUT_MS,
        )
        assert s.view.locator(".cw-sweep-diagram .cw-root").count() == 1
        selection = s.view.locator(".cw-sweep-selection").inner_text()
        assert f"tiles={tiles}, pipeline=True, policy={policy}, depth={depth}" in selection, selection
        canvas = diagram.locator("canvas.cw-plot")
        s.page.wait_for_function(
            "c => c.width > 0 && c.dataset.t1 !== undefined", arg=canvas.element_handle(), timeout=TIMEOUT_MS
        )
        assert (
            abs(float(canvas.get_attribute("data-t1")) - want) <= 0.05 * want + 1e-9
            or float(canvas.get_attribute("data-t1")) >= want
        )  # the time axis reaches the makespan
    s.lab.screenshot("sweep-clicked", full_page=True)


def test_the_depth_dropdown_changes_the_slice(sweep_page):
    s = sweep_page
    before = s.fills()
    depth = s.depth_shown()
    other = [d for d in DEPTHS if d != depth][0]
    s.view.locator(".cw-sweep-axis-depth select").select_option(label=str(other))
    # the model says the slices differ somewhere (depth changes the pipelined schedules)
    assert any(model_makespan(t, p, depth) != model_makespan(t, p, other) for t in TILES for p in POLICIES)
    s.page.wait_for_function(
        "before => { const now = [...document.querySelectorAll('.cw-sweep rect.heatmapcell')]"
        ".map(e => getComputedStyle(e).fill); return now.some((f, i) => f !== before[i]); }",
        arg=before,
        timeout=TIMEOUT_MS,
    )
    s.hover_cell(POLICIES.index("none"), TILES.index(8))
    want = model_makespan(8, "none", other)
    s.page.wait_for_function(
        "([el, t]) => el.textContent.includes(t)",
        arg=[
            s.view.locator(".cw-sweep-hover").element_handle(),
            f"tiles=8, pipeline=True, policy=none, depth={other} — makespan {value_label(want, UNIT)}",
        ],
        timeout=TIMEOUT_MS,
    )


def _figure_box(s):
    return s.view.locator(".bqplot").first.evaluate("f => f.getBoundingClientRect().toJSON()")


def test_the_colour_bar_reads_in_units_inside_the_figure(sweep_page):
    s = sweep_page
    s.view.locator(".cw-sweep-axis-depth select").select_option(label="2")  # makespans differ in this slice
    s.view.locator(".cw-sweep-color select").select_option("makespan")
    s.page.wait_for_function(
        "root => root.querySelectorAll('.ColorBar .tick text').length >= 2",
        arg=s.view.element_handle(),
        timeout=TIMEOUT_MS,
    )
    s.page.wait_for_timeout(600)
    figure = _figure_box(s)
    ticks = s.view.evaluate(
        """root => [...root.querySelectorAll('.ColorBar .tick text')].filter(t => t.textContent.trim())
            .map(t => ({text: t.textContent, box: t.getBoundingClientRect().toJSON()}))"""
    )
    s.lab.screenshot("sweep-colour-bar", full_page=False)
    assert len(ticks) >= 2, ticks
    assert all(t["text"].endswith(f" {UNIT}") for t in ticks), [t["text"] for t in ticks]
    outside = [t["text"] for t in ticks if t["box"]["right"] > figure["right"] - 1]
    assert not outside, f"colour-bar labels cut at the figure's right edge {figure['right']:.0f}: {outside}"


def test_the_hover_tooltip_is_narrower_than_the_figure(sweep_page):
    s = sweep_page
    s.hover_cell(POLICIES.index("throttle"), TILES.index(8))  # the right column; not the best cell's marker
    tooltip = s.page.locator(".bqplot_mark_tooltip", has_text="configuration #").first
    s.page.wait_for_function(
        "t => t && +getComputedStyle(t).opacity > 0.5 && t.getBoundingClientRect().width > 0",
        arg=tooltip.element_handle(timeout=TIMEOUT_MS),
        timeout=TIMEOUT_MS,
    )
    box = tooltip.evaluate("t => t.getBoundingClientRect().toJSON()")
    figure = _figure_box(s)
    s.lab.screenshot("sweep-tooltip", full_page=False)
    assert box["width"] <= figure["width"], (
        f"the tooltip is {box['width']:.0f} px wide, the figure {figure['width']:.0f}"
    )
    assert "makespan" in tooltip.inner_text()
    s.page.mouse.move(2, 2)


def _edge_pixels(s, row: int, col: int) -> tuple[np.ndarray, np.ndarray]:
    """(the four edge midpoints just inside the cell, the cell's centre) as RGB, from a screenshot."""
    s.cell(row, col).scroll_into_view_if_needed()
    box = s.cell(row, col).bounding_box()
    shot = np.asarray(Image.open(io.BytesIO(s.page.screenshot())).convert("RGB"), dtype=np.int16)
    scale = shot.shape[1] / s.page.viewport_size["width"]
    x0, y0, w, h = box["x"], box["y"], box["width"], box["height"]
    inset = 0.75
    points = [
        (x0 + w / 2, y0 + inset),
        (x0 + w / 2, y0 + h - inset),
        (x0 + inset, y0 + h / 2),
        (x0 + w - inset, y0 + h / 2),
    ]
    edges = np.array([shot[int(y * scale), int(x * scale)] for x, y in points])
    return edges, shot[int((y0 + h / 2) * scale), int((x0 + w / 2) * scale)]


def test_the_clicked_cell_is_outlined(sweep_page):
    s = sweep_page
    outline = np.array(
        s.page.evaluate(
            """() => { const p = document.createElement('div'); document.body.append(p);
                p.style.color = 'var(--jp-content-font-color0, #111111)';
                const v = getComputedStyle(p).color.match(/[\\d.]+/g).map(Number); p.remove();
                return v.length > 3 ? v.slice(0, 3).map(c => Math.round(c * v[3] + 255 * (1 - v[3]))) : v; }"""
        )
    )
    clicked, other = (POLICIES.index("throttle"), TILES.index(2)), (POLICIES.index("dilate"), TILES.index(4))
    s.click_cell(*clicked)
    s.page.wait_for_function(
        "el => el.textContent.includes('tiles=2, pipeline=True, policy=throttle')",
        arg=s.view.locator(".cw-sweep-selection").element_handle(),
        timeout=TIMEOUT_MS,
    )
    s.page.mouse.move(2, 2)
    s.page.wait_for_timeout(600)
    edges, centre = _edge_pixels(s, *clicked)
    s.lab.screenshot("sweep-outlined", full_page=False)
    near = np.abs(edges - outline).max(axis=1) <= 40
    assert near.all(), f"the clicked cell's edges {edges.tolist()} are not the outline colour {outline.tolist()}"
    assert (np.abs(edges - centre).max(axis=1) > 40).all(), "the outline is the cell's own colour"
    edges, _ = _edge_pixels(s, *other)
    assert not (np.abs(edges - outline).max(axis=1) <= 40).all(), "a cell not clicked is outlined too"


def test_a_boolean_colour_is_two_named_colours(sweep_page):
    s = sweep_page
    # depth 2: feasible and infeasible configurations both (the model says so)
    feasible = {
        not workload().schedule(tiles=t, pipeline=True, policy=p, depth=2).oversubscribed
        for t in TILES
        for p in POLICIES
    }
    assert feasible == {True, False}
    s.view.locator(".cw-sweep-axis-depth select").select_option(label="2")
    s.view.locator(".cw-sweep-color select").select_option("feasible")
    try:
        s.page.wait_for_function(
            "root => [...root.querySelectorAll('.ColorBar .tick text')].map(t => t.textContent).join() === 'no,yes'",
            arg=s.view.element_handle(),
            timeout=TIMEOUT_MS,
        )
        s.page.wait_for_timeout(600)
        s.lab.screenshot("sweep-feasible", full_page=False)
        fills = set(s.fills())
        named = {"rgb({}, {}, {})".format(*hex_rgb(c)) for c in BOOLEAN_COLORS}  # no, yes
        assert fills <= named and len(fills) == 2, f"feasible cells in {fills}, not the two colours {named}"
    finally:
        s.view.locator(".cw-sweep-color select").select_option("makespan")


def test_a_running_sweep_fills_in_with_a_progress_bar(sweep_page):
    s = sweep_page
    index = s.nb.append_code_cell(LIVE_CELL)
    s.nb.cells().nth(index).scroll_into_view_if_needed()
    s.page.keyboard.press("Shift+Enter")
    live = s.page.locator(".cw-sweep").nth(1)
    status = live.locator(".cw-sweep-status")
    status.wait_for(state="attached", timeout=TIMEOUT_MS)
    # record every text the status label shows, and the null-coloured (not yet computed) cells each time
    live.evaluate("""root => {
        const status = root.querySelector('.cw-sweep-status');
        window.__cwLive = [];
        const cells = () => root.querySelector('g.heatmaprow')
            ? [...root.querySelector('g.heatmaprow').parentNode.querySelectorAll('rect.heatmapcell')] : [];
        const record = () => window.__cwLive.push([status.textContent,
            cells().filter(e => getComputedStyle(e).fill === 'rgb(221, 221, 221)').length]);
        record();
        new MutationObserver(record).observe(root, {subtree: true, childList: true, characterData: true,
                                                    attributes: true});
    }""")
    total = len(LIVE_TILES) * len(POLICIES) * LIVE_DEPTHS
    s.page.wait_for_function("el => el.textContent.includes('(done')", arg=status.element_handle(), timeout=240_000)
    seen = s.page.evaluate("() => window.__cwLive")
    counts = [(int(m.group(1)), grey) for text, grey in seen if (m := re.match(r"(\d+) / (\d+)", text))]
    partial = [(n, grey) for n, grey in counts if 0 < n < total]
    assert partial, f"the progress never showed a partial count: {sorted(set(counts))[:20]}"
    assert any(grey > 0 for _, grey in partial), f"no cell was waiting (grey) while the sweep ran: {seen[:30]}"
    assert f"{total} / {total} configurations (done" in status.inner_text()
    bar = live.locator(".cw-sweep-progress .progress-bar")
    assert re.match(r"100(\.0+)?%", bar.evaluate("e => e.style.width"))
    fills = live.evaluate(f"root => ({MAIN_CELLS})(root).map(e => getComputedStyle(e).fill)")
    assert len(fills) == len(LIVE_TILES) * len(POLICIES) and len(set(fills)) > 1
    assert "rgb(221, 221, 221)" not in fills  # no cell left uncomputed
    s.lab.screenshot("sweep-live-done", full_page=False)
