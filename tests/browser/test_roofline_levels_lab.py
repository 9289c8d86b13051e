"""The hierarchical roofline in real JupyterLab: an L1/L2/DRAM workload's ``Explorer`` draws one roof per
level, labelled with its name, and per phase one point per level; unticking a level's checkbox in the
legend removes its points from the picture.

Where each point should be comes from an ``Explorer`` of the same workload built in the test process
(its level scatters' data), mapped onto the page through the axes' decade ticks as drawn (log scales);
the pixels are read from a screenshot of the figure.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from labdriver import LabPage, check_each_test, hex_rgb, module_page, open_with_cell
from PIL import Image

import campaign_widget as cw
from campaign_widget.views.explorer import Explorer

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-roofline-levels.ipynb"
WORKLOAD = """\
import campaign_widget as cw
machine = cw.Machine(peak_compute=100, levels={"L1": 400, "L2": 100, "DRAM": 25})
w = cw.Workload([
    cw.Phase("A", ops=300, bytes={"L1": 1000, "L2": 400, "DRAM": 30}, duration=8),
    cw.Phase("B", ops=200, bytes={"L1": 400, "L2": 100, "DRAM": 80}, after=["A"], duration=10),
    cw.Phase("C", ops=1000, bytes={"L1": 500, "L2": 200, "DRAM": 20}, after=["B"], duration=12.5),
], machine=machine)
"""
CELL = WORKLOAD + "explorer = cw.Explorer(w)\nexplorer"
LABELS = {"L1": "L1", "L2": "L2", "DRAM": "DRAM"}  # each roof is named above its ridge
TIMEOUT_MS = 30_000
COLOUR_TOLERANCE = 40


def reference_view():
    namespace = {"cw": cw}
    exec(WORKLOAD, namespace)
    return Explorer(namespace["w"])


class LevelsPage:
    def __init__(self, lab: LabPage):
        self.lab, self.page = lab, lab.page
        self.failed = False
        self.figure = self.page.locator(".widget-vbox:has(> .bqplot) .bqplot").first

    def shot(self):
        """(RGB pixels, device px per CSS px, the figure's box, data → page mapping) of the figure now."""
        self.figure.scroll_into_view_if_needed()
        box = self.figure.bounding_box()
        ticks = self.figure.evaluate(
            """(fig) => [...fig.querySelectorAll('g.tick')].map(t => {
                const line = t.querySelector('line'), text = t.querySelector('text');
                if (!line || !text) return null;
                const r = line.getBoundingClientRect();
                return {text: text.textContent.trim(), vertical: r.height > r.width,
                        x: r.x + r.width / 2, y: r.y + r.height / 2};
            }).filter(Boolean)"""
        )
        image = np.asarray(Image.open(io.BytesIO(self.figure.screenshot())).convert("RGB"), dtype=np.int16)
        return image, image.shape[1] / box["width"], box, _mapping(ticks)

    def visible_texts(self) -> dict:
        """Text of the figure's SVG text elements that are drawn (a box > 0), with their boxes."""
        return self.figure.evaluate(
            """(fig) => {
                const out = {};
                for (const t of fig.querySelectorAll('text')) {
                    const r = t.getBoundingClientRect(), s = (t.textContent || '').trim();
                    if (s && r.width > 0 && r.height > 0) out[s] = {x: r.x, y: r.y, width: r.width, height: r.height};
                }
                return out;
            }"""
        )


def _open(lab: LabPage, jupyter_lab) -> LevelsPage:
    open_with_cell(lab, jupyter_lab, NOTEBOOK, "# Browser test: the hierarchical roofline", CELL, what="the cell")
    state = LevelsPage(lab)
    state.figure.wait_for(timeout=60_000)
    lab.page.wait_for_function(
        "(fig) => [...fig.querySelectorAll('text')].some(t => t.textContent.trim() === 'DRAM')",
        arg=state.figure.element_handle(),
        timeout=60_000,
    )
    lab.page.wait_for_timeout(500)  # bqplot's transitions settle
    return state


@pytest.fixture(scope="module")
def levels_page(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("roofline-levels"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(levels_page, request):
    yield from check_each_test(levels_page, request)


def expected_points(view) -> dict[str, list[tuple[float, float, str]]]:
    """Per level: (x, y, colour) of each point, from the reference view's scatters."""
    return {
        level: [(float(x), float(y), c) for x, y, c in zip(s.x, s.y, s.colors)]
        for level, s in view.level_points.items()
    }


def _mapping(ticks):
    """log10(value) → page px on each axis, fitted through its labelled decade ticks (at least two)."""
    fits = []
    for vertical, coord in ((True, "x"), (False, "y")):
        pairs = [(np.log10(float(t["text"])), t[coord]) for t in ticks if t["vertical"] == vertical and t["text"]]
        assert len(pairs) >= 2, f"fewer than two labelled ticks on the {coord} axis: {ticks}"
        fits.append(np.polyfit(*np.array(pairs).T, 1))
    return fits


def to_css(mapping, x: float, y: float) -> tuple[float, float]:
    """Where data (x, y) lands on the page."""
    (ax, bx), (ay, by) = mapping
    return ax * np.log10(x) + bx, ay * np.log10(y) + by


def colour_near(image, scale, box, css_x, css_y, colour, radius=3.0) -> bool:
    col, row = (css_x - box["x"]) * scale, (css_y - box["y"]) * scale
    r = int(radius * scale)
    window = image[max(0, int(row) - r) : int(row) + r + 1, max(0, int(col) - r) : int(col) + r + 1].reshape(-1, 3)
    return bool(np.any(np.all(np.abs(window - np.array(hex_rgb(colour))) <= COLOUR_TOLERANCE, axis=1)))


def test_three_roofs_labelled_and_every_levels_points(levels_page):
    state, view = levels_page, reference_view().roofline
    texts = state.visible_texts()
    missing = [label for label in LABELS.values() if label not in texts]
    assert not missing, f"roof labels not drawn: {missing}; texts drawn: {sorted(texts)}"
    image, scale, box, mapping = state.shot()
    state.lab.screenshot("roofline-levels", full_page=False)
    background = np.median(image.reshape(-1, 3), axis=0)
    for level, label in LABELS.items():
        r = texts[label]
        region = image[
            int((r["y"] - box["y"]) * scale) : int((r["y"] - box["y"] + r["height"]) * scale),
            int((r["x"] - box["x"]) * scale) : int((r["x"] - box["x"] + r["width"]) * scale),
        ].reshape(-1, 3)
        ink = np.abs(region - background).sum(axis=1) > 200
        assert ink.sum() >= 20, f"the {level} roof's label {label!r} has no ink in the pixels"
    for level, points in expected_points(view).items():
        assert len(points) == 3, f"{level}: expected one point per phase, the model has {len(points)}"
        for x, y, colour in points:
            css = to_css(mapping, x, y)
            assert colour_near(image, scale, box, *css, colour), f"{level} point ({x:.3g}, {y:.3g}) not in {colour}"


def test_unticking_a_level_removes_its_points(levels_page):
    state, view = levels_page, reference_view().roofline
    box_locator = state.page.locator(".widget-checkbox", has_text="L1").locator("input").first
    box_locator.click()
    try:
        state.page.wait_for_function(
            "(fig) => ![...fig.querySelectorAll('text')].some(t => t.textContent.trim() === 'L1'"
            " && t.getBoundingClientRect().width > 0)",
            arg=state.figure.element_handle(),
            timeout=TIMEOUT_MS,
        )
        state.page.wait_for_timeout(500)
        image, scale, box, mapping = state.shot()
        state.lab.screenshot("roofline-levels-no-L1", full_page=False)
        points = expected_points(view)
        for x, y, colour in points["L1"]:
            css = to_css(mapping, x, y)
            assert not colour_near(image, scale, box, *css, colour), f"the unticked L1 point ({x:.3g}, {y:.3g}) stays"
        for level in ("L2", "DRAM"):
            for x, y, colour in points[level]:
                css = to_css(mapping, x, y)
                assert colour_near(image, scale, box, *css, colour), f"the {level} point ({x:.3g}, {y:.3g}) went"
        texts = state.visible_texts()
        assert LABELS["L2"] in texts and LABELS["DRAM"] in texts and LABELS["L1"] not in texts, sorted(texts)
    finally:
        box_locator.click()  # back as it was, for any test after this one
