"""The local view read as a person reads it, in JupyterLab's light and dark themes: the miss readout's
cells on one line, a histogram x axis with ticks, the capacity label clear of every bar, the apply
note that says when the phase shows older bytes, and a label, range and tooltip on every control.

The notebook shows notebook 08's horizontal diffusion (``hdiff`` at 8 × 8 × 5, float64, 64-byte lines,
16 lines fully associative) as a phase of a workload, so the view can apply to it. Expected numbers
(distances, predicted bytes, the slider's range) come from the model (``campaign_widget.cache``) and
the traits the view is sent; where things are drawn comes from the canvases' own data-* attributes
(js/local/CONTRACT.md), checked against the pixels.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from labdriver import check_each_test, decode_data_url, drag_range_to, hex_rgb, module_page, open_with_cell

import campaign_widget as cw
from campaign_widget.cache import Cache, stack_distances, with_predicted_traffic

pytestmark = pytest.mark.browser

NOTEBOOK = "browser-test-local-legible.ipynb"
DIAMOND = [(0, 2), (1, 1), (1, 2), (1, 3), (2, 0), (2, 1), (2, 3), (2, 4), (3, 1), (3, 2), (3, 3), (4, 2)]
HDIFF = (
    "out_field[i,j,k] = in_field[i+2,j+2,k] - coeff[i,j,k] * ("
    + " + ".join(f"in_field[i+{a},j+{b},k]" for a, b in DIAMOND)
    + ")"
)
LOCAL = {"i": 8, "j": 8, "k": 5}
FULL = {"i": 256, "j": 256, "k": 160}
CELL = f"""import campaign_widget as cw
from campaign_widget.cache import Cache
full = cw.Workload.from_einsums({{"hdiff": {{"einsum": {HDIFF!r}, "ops_per_point": 30}}}}, {FULL!r},
                                machine=cw.Machine(peak_compute=1e12, peak_bandwidth=100e9), element_bytes=8)
view = cw.LocalView(full, "hdiff", {LOCAL!r}, cache=Cache(line=64, lines=16))
view"""
# js/local/draw.js LOCAL_THEME: the bars' colours (the same in both themes)
BAR_COLOURS = {"hit": "#2ca02c", "miss": "#d62728", "cold": "#6a3d9a"}
TEXT_CONTRAST = 100  # some pixel of a label differs this much in luminance from the background
THEMES = ["light", "dark"]


def workload() -> cw.Workload:
    return cw.Workload.from_einsums(
        {"hdiff": {"einsum": HDIFF, "ops_per_point": 30}},
        FULL,
        machine=cw.Machine(peak_compute=1e12, peak_bandwidth=100e9),
        element_bytes=8,
    )


def predicted_bytes(capacity: int) -> float:
    w = with_predicted_traffic(
        workload(), "hdiff", Cache(line=64, lines=capacity), local_sizes=LOCAL, loop_order=["i", "j", "k"], mode="ratio"
    )
    return float(w.arrays.bytes[w.names.index("hdiff")])


def luminance(rgb) -> np.ndarray:
    rgb = np.asarray(rgb, dtype=np.float64)
    return 0.2126 * rgb[..., 0] + 0.7152 * rgb[..., 1] + 0.0722 * rgb[..., 2]


class State:
    def __init__(self, lab, nb):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.failed = False
        self.root = self.page.locator(".cwl-root").first
        self.canvas = self.root.locator("canvas.cwl-canvas")
        self.hist = self.root.locator("canvas.cwl-hist")
        self.message = self.root.locator("div.cwl-message")
        self.apply = self.root.locator("button.cwl-apply")
        self.slider = self.root.locator("input.cwl-capacity")

    def set_theme(self, name: str) -> None:
        """Settings → Theme → JupyterLab Light/Dark, as a person would; wait for the view's redraw."""
        if self.hist.evaluate("c => c.dataset.theme") != name:
            self.page.locator(".lm-MenuBar-item", has_text="Settings").click()
            self.page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
            self.page.locator(".lm-Menu-itemLabel", has_text=f"JupyterLab {name.title()}").first.click()
        for canvas in (self.canvas, self.hist):
            self.page.wait_for_function(
                "([c, t]) => c.dataset.theme === t", arg=[canvas.element_handle(), name], timeout=30_000
            )
        self.page.wait_for_timeout(800)  # the view re-reads the page colours 300 ms after the switch

    def hist_shot(self) -> tuple[np.ndarray, float, dict]:
        """The histogram's pixels (RGB), backing px per CSS px, and its data-*."""
        self.hist.scroll_into_view_if_needed()
        raw = self.hist.evaluate(
            "c => ({url: c.toDataURL('image/png'), w: c.getBoundingClientRect().width, data: {...c.dataset}})"
        )
        image = np.asarray(decode_data_url(raw["url"]).convert("RGB"), dtype=np.int16)
        return image, image.shape[1] / raw["w"], raw["data"]

    def set_capacity(self, target: int) -> int:
        value = drag_range_to(self.page, self.slider, target)[1]
        self.page.wait_for_function(
            "([c, v]) => c.dataset.capacity === String(v)", arg=[self.hist.element_handle(), value], timeout=10_000
        )
        return value


def _open(lab, jupyter_lab) -> State:
    nb = open_with_cell(
        lab, jupyter_lab, NOTEBOOK, "# Browser test: the local view, legible", CELL, what="the view's cell", timeout=90
    )
    state = State(lab, nb)
    lab.page.wait_for_function("c => +c.dataset.draws > 0", arg=state.hist.element_handle(), timeout=60_000)
    lab.errors.assert_clean(when="while creating the local view")
    return state


@pytest.fixture(scope="module")
def local(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("local-legible"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(local, request):
    yield from check_each_test(local, request)


def box(text: str) -> tuple[float, float, float, float]:
    x, y, w, h = (float(v) for v in text.split(","))
    return x, y, w, h


def overlap(a, b) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def region(pixels: np.ndarray, scale: float, b) -> np.ndarray:
    x, y, w, h = b
    return pixels[int(y * scale) : int((y + h) * scale), int(x * scale) : int((x + w) * scale)]


@pytest.mark.parametrize("theme", THEMES)
def test_readout_cells_are_one_line(local, theme):
    local.set_theme(theme)
    table = local.root.locator("table.cwl-readout-table")
    table.scroll_into_view_if_needed()
    cells = table.evaluate(
        """t => [...t.querySelectorAll('tr')].map((tr) => [...tr.children].map((td) => {
            const range = document.createRange(); range.selectNodeContents(td);
            const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
            const s = getComputedStyle(td);
            const inner = td.getBoundingClientRect().height - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom)
                - parseFloat(s.borderTopWidth) - parseFloat(s.borderBottomWidth);
            return {text: td.textContent, lines: tops.size, inner, line: range.getBoundingClientRect().height,
                    fontSize: parseFloat(s.fontSize)};
        }))"""
    )
    local.lab.screenshot(f"{theme}-readout", full_page=False)
    clipped = table.evaluate(
        """t => { const side = t.closest('.cwl-side').getBoundingClientRect();
            return [...t.querySelectorAll('td, th')].filter((td) => td.getBoundingClientRect().right > side.right + 0.5)
                .map((td) => td.textContent); }"""
    )
    assert not clipped, f"{theme}: readout cells stick out of the side panel: {clipped}"
    header, *rows = cells
    assert [c["text"] for c in header][-1] == "bytes"
    assert any("KiB" in row[-1]["text"] for row in rows), "pick a view whose bytes read in KiB"
    for row in cells:
        for cell in row:
            assert cell["lines"] == 1, f"{theme}: the readout cell {cell['text']!r} wraps onto {cell['lines']} lines"
            assert cell["inner"] < 1.6 * cell["fontSize"], (
                f"{theme}: the cell {cell['text']!r} is {cell['inner']:.1f} px tall, more than one line"
            )
    for row in rows:
        assert abs(row[-1]["inner"] - row[0]["inner"]) < 0.5, f"{theme}: the bytes cell is taller than its row's name"


@pytest.mark.parametrize("theme", THEMES)
def test_histogram_x_axis_has_nice_ticks_and_cold_apart(local, theme):
    local.set_theme(theme)
    local.root.locator("button.cwl-clear").click()  # the histogram of all accesses
    view = cw.LocalView(workload(), "hdiff", LOCAL, cache=Cache(line=64, lines=16))
    longest = int(stack_distances(view.trace, line=64).distance.max())
    pixels, scale, data = local.hist_shot()
    local.lab.screenshot(f"{theme}-histogram", full_page=False)
    assert "ticks" in data, "the histogram says where its ticks are (data-ticks)"
    ticks = json.loads(data["ticks"])
    numbers = [(int(label.replace(",", "")), x) for label, x, _ in ticks[:-1]]
    assert ticks[-1][0] == "cold", ticks
    assert len(numbers) >= 3, f"{theme}: only {[t[0] for t in ticks]} on the histogram's x axis"
    values = [v for v, _ in numbers]
    steps = {b - a for a, b in zip(values, values[1:])}
    assert values[0] == 0 and len(steps) == 1 and steps.pop() in (1, 2, 5, 10, 20, 50, 100), values
    assert values[-1] <= longest, f"a tick at {values[-1]} beyond the longest distance {longest}"
    xs = [x for _, x in numbers] + [ticks[-1][1]]
    assert xs == sorted(xs) and ticks[-1][1] - numbers[-1][1] > 20, "cold stands apart, right of the distances"
    background = pixels[2, 2]
    for label, x, y in ticks:
        b = (x - 3.5 * len(label), y, 7 * len(label), 11)
        contrast = np.abs(luminance(region(pixels, scale, b)) - float(luminance(background))).max()
        assert contrast > TEXT_CONTRAST, f"{theme}: no visible text for the tick {label!r} at x = {x}"


@pytest.mark.parametrize("theme", THEMES)
def test_the_capacity_label_covers_no_bar(local, theme):
    local.set_theme(theme)
    local.root.locator("button.cwl-clear").click()
    maximum = int(local.slider.evaluate("s => +s.max"))
    for target in (4, maximum // 2, maximum - 1):
        value = local.set_capacity(target)
        local.page.wait_for_timeout(150)
        pixels, scale, data = local.hist_shot()
        assert "labelBox" in data, "the histogram says where the capacity label is (data-label-box)"
        label, plot = box(data["labelBox"]), box(data["plotBox"])
        width = pixels.shape[1] / scale
        assert not overlap(label, plot), f"{theme}, capacity {value}: the label {label} is inside the plot {plot}"
        assert label[0] >= 0 and label[0] + label[2] <= width and label[1] >= 0, f"the label {label} leaves the canvas"
        inside = region(pixels, scale, label)
        for kind, colour in BAR_COLOURS.items():
            hits = int((np.abs(inside - np.array(hex_rgb(colour))).max(axis=-1) <= 24).sum())
            assert hits == 0, f"{theme}, capacity {value}: {hits} px of a {kind} bar inside the label's box"
        contrast = np.abs(luminance(inside) - float(luminance(pixels[2, 2]))).max()
        assert contrast > TEXT_CONTRAST, f"{theme}: the capacity label is not visible"
        # the tallest bar reaches the plot's top: the plot box is where the bars are
        top_rows = region(pixels, scale, (plot[0], plot[1], plot[2], 3))
        assert any((np.abs(top_rows - np.array(hex_rgb(c))).max(axis=-1) <= 24).any() for c in BAR_COLOURS.values()), (
            f"{theme}: no bar reaches the top of the plot box {plot}"
        )
    local.lab.screenshot(f"{theme}-capacity-label", full_page=False)


@pytest.mark.parametrize("theme", THEMES)
def test_after_a_capacity_change_the_apply_note_is_pending_until_apply(local, theme):
    local.set_theme(theme)
    before = local.set_capacity(16)
    local.apply.click()
    want = f"{predicted_bytes(before):,.0f} B predicted"
    local.page.wait_for_function(
        "([m, want]) => m.textContent.startsWith('applied to phase') && m.textContent.includes(want)",
        arg=[local.message.element_handle(), want],
        timeout=20_000,
    )
    after = local.set_capacity(40)
    assert predicted_bytes(after) != predicted_bytes(before), "pick capacities whose predictions differ"
    local.page.wait_for_function(
        "m => m.textContent.includes('press Apply')", arg=local.message.element_handle(), timeout=10_000
    )
    text = local.message.inner_text()
    assert text.startswith("capacity changed — press Apply to update phase 'hdiff'"), text
    assert f"it shows {want}" in text and "16 lines of 64 B" in text, text
    assert "cwl-pending" in (local.apply.get_attribute("class") or ""), "the Apply button is marked"
    assert "cwl-note" in (local.message.get_attribute("class") or ""), "a pending apply is news, not an error"
    local.lab.screenshot(f"{theme}-apply-pending", full_page=False)
    local.apply.click()
    new = f"{predicted_bytes(after):,.0f} B predicted"
    local.page.wait_for_function(
        "([m, want]) => m.textContent.startsWith('applied to phase') && m.textContent.includes(want)",
        arg=[local.message.element_handle(), new],
        timeout=20_000,
    )
    local.page.wait_for_function(
        "b => !b.classList.contains('cwl-pending')", arg=local.apply.element_handle(), timeout=10_000
    )


_CONTROLS = """(root) => {
    const probe = document.createElement('div'); document.body.append(probe);
    const rgb = (c) => { probe.style.color = ''; probe.style.color = c;
        return getComputedStyle(probe).color.match(/[\\d.]+/g).slice(0, 3).map(Number); };
    const page = rgb(getComputedStyle(document.body).getPropertyValue('--jp-layout-color0') || 'white');
    const out = [...root.querySelectorAll('.cwl-controls input, .cwl-controls select, .cwl-controls button')]
        .filter((e) => e.offsetParent !== null && e.tagName !== 'DATALIST')
        .map((e) => {
            const label = e.closest('label.cw-control')?.querySelector('.cw-label');
            return {cls: e.className, tag: e.tagName, text: e.tagName === 'BUTTON' ? e.textContent : null,
                    label: label ? label.textContent : null, labelRgb: label ? rgb(getComputedStyle(label).color) : null,
                    title: e.title, hoverTitle: e.closest('[title]')?.title ?? '',
                    tensor: e.closest('[data-tensor]')?.dataset.tensor ?? ''};
        });
    probe.remove();
    return {page, out};
}"""


@pytest.mark.parametrize("theme", THEMES)
def test_every_control_has_a_label_its_range_and_a_tooltip(local, theme):
    local.set_theme(theme)
    found = local.root.evaluate(_CONTROLS)
    controls, page = found["out"], float(luminance(found["page"]))
    assert len(controls) >= 15, controls
    seen = set()
    for c in controls:
        what = f"{c['tag'].lower()}.{c['cls']} ({c['label'] or c['text']})"
        assert len(c["title"]) >= 30 and c["title"] == c["hoverTitle"], f"{what}: tooltip {c['title']!r}"
        if c["tag"] == "BUTTON":
            assert c["text"], what
            continue
        assert c["label"] and len(c["label"]) > 2, f"{what} has no label"
        assert abs(float(luminance(c["labelRgb"])) - page) > TEXT_CONTRAST, f"{theme}: {what}'s label is faint"
        key = (c["tensor"], c["label"])
        assert key not in seen, f"two controls labelled {c['label']!r}"
        seen.add(key)
    labels = {c["cls"]: c["label"] for c in controls}
    assert labels["cwl-capacity-unit"] and labels["cwl-capacity-unit"] != labels["cwl-capacity"], labels
    assert labels["cwl-reuse-stat"] not in ("reuse", "scaling") and labels["cwl-scaling"] not in ("reuse", "scaling")
    maximum = int(local.slider.evaluate("s => s.max"))
    assert labels["cwl-capacity"] == f"capacity (1…{maximum} lines)", labels["cwl-capacity"]
    loops = [c["label"] for c in controls if c["cls"] == "cwl-loop"]
    assert loops == [f"loop {i} (0…{LOCAL[i] - 1})" for i in ("i", "j", "k")], loops
