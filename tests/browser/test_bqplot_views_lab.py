"""The two bqplot views (RooflineView, SweepView) in real JupyterLab, read from the SVG bqplot draws
and from the pixels, in the light and the dark theme:

* the roofline's legend entries have gaps between them, and a name with underscores shows its
  underscores (the legend's text boxes are tall enough for the glyphs below the baseline);
* a ceiling's name lies inside the plot frame and off its own line (above a compute ceiling's flat
  part, under a bandwidth ceiling's slope); the ridge's label is not covered by a point at the ridge;
* the figures' title, axis titles and tick labels are in the page's text colour in both themes (not
  bqplot's dark-theme orange).

Where the lines are comes from the model (the machine's peaks and ceilings), mapped onto the page
through the axes' ticks as drawn (log scales).
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from labdriver import LabPage, check_each_test, module_page, open_with_cell
from PIL import Image

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-bqplot-views.ipynb"
P, BW = 1e12, 1e11  # the ridge at OI 10
FLAT, SLOPED = "FP64 (non-tensor)", "PCIe (host link)"
CELL = f"""\
import ipywidgets
import campaign_widget as cw
from campaign_widget.views.roofline import RooflineView
m = cw.Machine(peak_compute={P!r}, peak_bandwidth={BW!r}, ceilings=(
    cw.Ceiling({FLAT!r}, compute={P / 4!r}), cw.Ceiling({SLOPED!r}, bandwidth={BW / 5!r})))
w = cw.Workload([
    cw.Phase('q_proj', ops=2e9, bytes=8e9),
    cw.Phase('k_proj', ops=1e9, bytes=4e9, after=['q_proj']),
    cw.Phase('at_ridge', ops=4e11, bytes=4e10, after=['k_proj']),
], machine=m)
roof = RooflineView(cw.CampaignDiagram(w, height=200), height=320)
sweep = cw.SweepView(cw.sweep(w, progress=False, tiles=[1, 2, 4], policy=list(cw.POLICIES)), x='tiles', y='policy')
ipywidgets.VBox([roof, sweep])
"""
RIDGE_PHASE = "at_ridge"  # OI 10 at the peak: its point sits on the ridge, the largest of the three
UNDERSCORED = "q_proj"
LEGEND_GAP_PX = 12  # at least, between one legend entry's name and the next entry's mark
LEGEND_GROUPING = 3  # that gap is at least this many times the gap between a mark and its own name
TEXT_CONTRAST = 100  # luminance difference of text from its background, 0…255
ORANGE = (255, 165, 0)


def luminance(rgb) -> np.ndarray:
    rgb = np.asarray(rgb, dtype=np.float64)
    return 0.2126 * rgb[..., 0] + 0.7152 * rgb[..., 1] + 0.0722 * rgb[..., 2]


# the text boxes of every legend entry, as drawn: a DOM Range around each text gives the glyphs' box
_LEGEND = """(root) => {
    const box = (node) => { const r = document.createRange(); r.selectNodeContents(node);
                            const b = r.getBoundingClientRect();
                            return {x: b.x, y: b.y, right: b.right, bottom: b.bottom, height: b.height}; };
    return [...root.querySelectorAll(':scope > .widget-hbox')].map((entry) => {
        const labels = [...entry.querySelectorAll('.widget-label')];
        return {mark: box(labels[0]), name: box(labels[1]), text: labels[1].textContent,
                clip: labels[1].getBoundingClientRect().toJSON()};
    });
}"""

# every SVG text of a figure with its box (page px) and computed fill, and the plot frame
_TEXTS = """(fig) => {
    const probe = document.createElement('div'); document.body.append(probe);
    const rgb = (c) => { probe.style.color = ''; probe.style.color = c;
        return getComputedStyle(probe).color.match(/[\\d.]+/g).slice(0, 3).map(Number); };
    const out = [];
    for (const t of fig.querySelectorAll('text')) {
        const s = (t.textContent || '').trim(), r = t.getBoundingClientRect();
        if (!s || r.width === 0) continue;
        out.push({text: s, cls: t.getAttribute('class') || t.parentNode.getAttribute('class') || '',
                  x: r.x, y: r.y, right: r.right, bottom: r.bottom, fill: rgb(getComputedStyle(t).fill)});
    }
    const frame = fig.querySelector('.plotarea_background, rect.plotarea_events').getBoundingClientRect();
    const page = rgb(getComputedStyle(document.body).getPropertyValue('--jp-layout-color0') || 'white');
    probe.remove();
    return {texts: out, frame: frame.toJSON(), page};
}"""


class Views:
    def __init__(self, lab: LabPage):
        self.lab, self.page = lab, lab.page
        self.failed = False
        self.roof_box = self.page.locator(".widget-vbox:has(> .bqplot)").first
        self.roof = self.roof_box.locator(".bqplot").first
        self.legend = self.roof_box.locator(":scope > .widget-hbox").first
        self.sweep = self.page.locator(".cw-sweep .bqplot").first

    def texts(self, figure) -> dict:
        figure.scroll_into_view_if_needed()
        return figure.evaluate(_TEXTS)

    def text(self, figure, content: str) -> dict:
        found = [t for t in self.texts(figure)["texts"] if t["text"] == content]
        assert found, f"no SVG text {content!r} drawn; texts: {sorted(t['text'] for t in self.texts(figure)['texts'])}"
        return found[0]

    def pixels(self, clip: dict) -> np.ndarray:
        """RGB pixels of a page region (CSS px box), at the page's device pixel ratio."""
        shot = self.page.screenshot(
            clip={"x": clip["x"], "y": clip["y"], "width": clip["width"], "height": clip["height"]}
        )
        return np.asarray(Image.open(io.BytesIO(shot)).convert("RGB"), dtype=np.int16)

    def mapping(self):
        """log10(value) → page px on each axis of the roofline, through its labelled ticks."""
        ticks = self.roof.evaluate(
            """(fig) => [...fig.querySelectorAll('g.tick')].map(t => {
                const line = t.querySelector('line'), text = t.querySelector('text');
                if (!line || !text || !text.textContent.trim()) return null;
                const r = line.getBoundingClientRect();
                return {text: text.textContent.trim(), vertical: r.height > r.width,
                        x: r.x + r.width / 2, y: r.y + r.height / 2};
            }).filter(Boolean)"""
        )
        fits = []
        for vertical, coord in ((True, "x"), (False, "y")):
            pairs = [(_log_tick(t["text"]), t[coord]) for t in ticks if t["vertical"] == vertical]
            pairs = [(v, c) for v, c in pairs if v is not None]
            assert len(pairs) >= 2, f"fewer than two readable ticks on the {coord} axis: {ticks}"
            fits.append(np.polyfit(*np.array(pairs).T, 1))
        return fits

    def set_theme(self, name: str) -> None:
        """Settings → Theme → JupyterLab Light/Dark, as a person would."""
        self.page.locator(".lm-MenuBar-item", has_text="Settings").click()
        self.page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
        self.page.locator(".lm-Menu-itemLabel", has_text=f"JupyterLab {name.title()}").first.click()
        light = "true" if name == "light" else "false"
        self.page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'", timeout=30_000)
        self.page.wait_for_timeout(800)


_SI = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "m": 1e-3, "µ": 1e-6, "n": 1e-9}


def _log_tick(text: str) -> float | None:
    """log10 of a tick label as bqplot writes it ("100G", "0.1", "1T"), None if it is not a number."""
    text = text.replace("−", "-")
    factor = _SI.get(text[-1:], None)
    try:
        value = float(text[:-1]) * factor if factor else float(text)
    except ValueError:
        return None
    return float(np.log10(value)) if value > 0 else None


def _open(lab: LabPage, jupyter_lab) -> Views:
    open_with_cell(lab, jupyter_lab, NOTEBOOK, "# Browser test: the bqplot views", CELL, what="the cell", timeout=120)
    views = Views(lab)
    views.roof.wait_for(timeout=60_000)
    views.sweep.wait_for(timeout=60_000)
    lab.page.wait_for_function(
        "(fig) => [...fig.querySelectorAll('text')].some(t => t.textContent.startsWith('ridge'))",
        arg=views.roof.element_handle(),
        timeout=60_000,
    )
    lab.page.wait_for_timeout(800)  # bqplot's transitions and its debounced relayout settle
    return views


@pytest.fixture(scope="module")
def views(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("bqplot-views"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(views, request):
    yield from check_each_test(views, request)


def test_legend_entries_have_gaps(views):
    views.legend.scroll_into_view_if_needed()
    entries = views.legend.evaluate(_LEGEND)
    views.lab.screenshot("roofline-legend", full_page=False)
    assert [e["text"] for e in entries][:4] == ["q_proj", "k_proj", "at_ridge", "schedule"], entries
    gaps = [
        (a["text"], round(b["mark"]["x"] - a["name"]["right"], 1))
        for a, b in zip(entries, entries[1:])
        if abs(a["name"]["y"] - b["mark"]["y"]) < 4  # the same row
    ]
    assert gaps, f"the legend has no two entries on one row: {entries}"
    tight = [g for g in gaps if g[1] < LEGEND_GAP_PX]
    assert not tight, f"legend entries run together (gap after each name, px): {gaps}"
    own = max(e["name"]["x"] - e["mark"]["right"] for e in entries)
    assert min(g for _, g in gaps) >= LEGEND_GROUPING * max(own, 1.0), (
        f"a name sits as near the next mark ({gaps}) as its own ({own:.1f} px): the entries read run together"
    )


def test_an_underscore_in_a_name_is_drawn(views):
    views.legend.scroll_into_view_if_needed()
    entry = [e for e in views.legend.evaluate(_LEGEND) if e["text"] == UNDERSCORED][0]
    # the label's own box must hold the text's whole box: below the baseline is where "_" is drawn
    assert entry["clip"]["bottom"] >= entry["name"]["bottom"] - 0.5, (
        f"the legend label's box ends at {entry['clip']['bottom']:.1f} px, its text's at "
        f"{entry['name']['bottom']:.1f} px: the underscore is cut off"
    )
    # and in the pixels: the underscore's own box has ink in its lower part
    underscore = views.legend.evaluate(
        """(root, name) => { const label = [...root.querySelectorAll('.widget-label')]
                                 .find(l => l.textContent === name);
            const text = label.firstChild, r = document.createRange(), at = name.indexOf('_');
            r.setStart(text, at); r.setEnd(text, at + 1); return r.getBoundingClientRect().toJSON(); }""",
        UNDERSCORED,
    )
    pixels = views.pixels(underscore)
    background = np.median(views.pixels({**underscore, "y": underscore["y"] - 14, "height": 6}).reshape(-1, 3), 0)
    lower = pixels[pixels.shape[0] // 2 :]
    ink = np.abs(luminance(lower) - float(luminance(background))) > TEXT_CONTRAST
    assert ink.sum() >= 3, f"no underscore pixels in {UNDERSCORED!r}'s '_' box {underscore}"


def test_ceiling_labels_are_inside_the_frame_and_off_their_lines(views):
    drawn = views.texts(views.roof)
    frame = drawn["frame"]
    (ax, bx), (ay, by) = views.mapping()

    def page_y(value):
        return ay * np.log10(value) + by

    def page_x_inverse(px):
        return 10 ** ((px - bx) / ax)

    views.lab.screenshot("roofline-ceilings", full_page=False)
    for name in (FLAT, SLOPED):
        t = views.text(views.roof, name)
        inside = (
            t["x"] >= frame["x"] - 0.5
            and t["right"] <= frame["right"] + 0.5
            and t["y"] >= frame["y"] - 0.5
            and t["bottom"] <= frame["bottom"] + 0.5
        )
        assert inside, f"ceiling label {name!r} at {t} leaves the plot frame {frame}"
    flat = views.text(views.roof, FLAT)
    line_y = page_y(P / 4)  # the compute ceiling's flat part
    assert flat["bottom"] <= line_y + 0.5, (
        f"{FLAT!r} (bottom {flat['bottom']:.1f}) is struck by its line at {line_y:.1f}"
    )
    sloped = views.text(views.roof, SLOPED)
    # the bandwidth ceiling rises to the right: under it means under its height at the label's left end
    line_y = page_y(BW / 5 * page_x_inverse(sloped["x"]))
    assert sloped["y"] >= line_y - 0.5, f"{SLOPED!r} (top {sloped['y']:.1f}) is struck by its line at {line_y:.1f}"


def test_the_ridge_label_is_not_covered_by_a_point(views):
    ridge = [t for t in views.texts(views.roof)["texts"] if t["text"].startswith("ridge")][0]
    colours = views.roof.evaluate("(fig) => [...fig.querySelectorAll('path.dot')].map(d => getComputedStyle(d).fill)")
    point = [c for c in colours if c and c != "none"]
    assert point, "no point drawn"
    box = {
        "x": ridge["x"],
        "y": ridge["y"],
        "width": ridge["right"] - ridge["x"],
        "height": ridge["bottom"] - ridge["y"],
    }
    pixels = views.pixels(box).reshape(-1, 3)
    views.lab.screenshot("roofline-ridge", full_page=False)
    covered = {}
    for c in set(point):
        rgb = np.array([int(v) for v in c[c.index("(") + 1 : c.index(")")].split(",")[:3]])
        covered[c] = int(np.all(np.abs(pixels - rgb) <= 24, axis=1).sum())
    assert max(covered.values()) == 0, f"a point's colour shows inside the ridge label's box {box}: {covered}"


# per axis: its title's box and its tick labels' boxes (page px)
_AXIS_BOXES = """(fig) => [...fig.querySelectorAll('text.axislabel')].map((label) => {
    const axis = label.closest('g.axis'), box = (e) => e.getBoundingClientRect().toJSON();
    return {label: label.textContent, box: box(label),
            ticks: [...axis.querySelectorAll('.tick text')].filter((t) => t.textContent.trim())
                       .map((t) => ({text: t.textContent, box: box(t)}))};
})"""


def _overlap(a: dict, b: dict) -> bool:
    return a["x"] < b["right"] and b["x"] < a["right"] and a["y"] < b["bottom"] and b["y"] < a["bottom"]


def test_axis_titles_are_clear_of_their_tick_labels(views):
    for what, figure in (("roofline", views.roof), ("sweep heatmap", views.sweep)):
        figure.scroll_into_view_if_needed()
        axes = figure.evaluate(_AXIS_BOXES)
        assert len([a for a in axes if a["label"]]) >= 2, f"{what}: axis titles missing: {axes}"
        for axis in axes:
            hit = [t["text"] for t in axis["ticks"] if axis["label"] and _overlap(axis["box"], t["box"])]
            assert not hit, f"{what}: the axis title {axis['label']!r} is drawn over its tick labels {hit}"


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_titles_axis_labels_and_ticks_use_the_theme_text_colour(views, theme):
    views.set_theme(theme)
    for what, figure in (("roofline", views.roof), ("sweep heatmap", views.sweep)):
        drawn = views.texts(figure)
        page = float(luminance(drawn["page"]))
        views.lab.screenshot(f"{theme}-{what.replace(' ', '-')}", full_page=False)
        kinds = {"mainheading": [], "axislabel": [], "tick": []}
        for t in drawn["texts"]:
            kind = next((k for k in kinds if k in t["cls"].split()), None)
            if kind:
                kinds[kind].append(t)
        assert kinds["mainheading"] and kinds["axislabel"], f"{what}: no title or axis title drawn: {drawn['texts']}"
        for kind, texts in kinds.items():
            for t in texts:
                assert tuple(t["fill"]) != ORANGE, f"{what}, {theme}: {kind} {t['text']!r} is bqplot's orange"
                contrast = abs(float(luminance(t["fill"])) - page)
                assert contrast > TEXT_CONTRAST, (
                    f"{what}, {theme}: {kind} {t['text']!r} in {t['fill']} on the page's {drawn['page']}"
                )


def _css_rgb(page, colour: str) -> np.ndarray:
    """A CSS colour as the page resolves it, composited on white when translucent."""
    return np.array(
        page.evaluate(
            """(c) => { const p = document.createElement('div'); document.body.append(p); p.style.color = c;
                const v = getComputedStyle(p).color.match(/[\\d.]+/g).map(Number); p.remove();
                return v.length > 3 ? v.slice(0, 3).map(x => Math.round(x * v[3] + 255 * (1 - v[3]))) : v; }""",
            colour,
        )
    )


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_clicked_sweep_cell_is_outlined(views, theme):
    from campaign_widget.views.sweep import OUTLINE

    views.set_theme(theme)
    page = views.page
    cell = page.locator(".cw-sweep g.heatmaprow").nth(2).locator("rect.heatmapcell").nth(1)  # throttle, 2 tiles
    cell.scroll_into_view_if_needed()
    box = cell.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(2, 2)
    page.mouse.move(x, y, steps=4)  # as a hand: arrive, let the tooltip settle beside the mouse, click
    page.wait_for_timeout(400)
    page.mouse.down()
    page.mouse.up()
    page.wait_for_function(
        "() => (document.querySelector('.cw-sweep-selection')?.textContent ?? '').includes('policy=throttle')",
        timeout=30_000,
    )
    page.mouse.move(2, 2)
    page.wait_for_timeout(600)
    shot = np.asarray(Image.open(io.BytesIO(page.screenshot())).convert("RGB"), dtype=np.int16)
    scale = shot.shape[1] / page.viewport_size["width"]
    views.lab.screenshot(f"{theme}-sweep-outlined", full_page=False)
    inset = 0.75
    points = [
        (x, box["y"] + inset),
        (x, box["y"] + box["height"] - inset),
        (box["x"] + inset, y),
        (box["x"] + box["width"] - inset, y),
    ]
    edges = np.array([shot[int(py * scale), int(px * scale)] for px, py in points])
    centre = shot[int(y * scale), int(x * scale)]
    outline = _css_rgb(page, OUTLINE)
    assert (np.abs(edges - outline).max(axis=1) <= 40).all(), (
        f"{theme}: the clicked cell's edges {edges.tolist()} are not the outline colour {outline.tolist()}"
    )
    assert (np.abs(edges - centre).max(axis=1) > 40).all(), f"{theme}: the outline is the cell's own colour"


def test_back_to_light(views):
    views.set_theme("light")
