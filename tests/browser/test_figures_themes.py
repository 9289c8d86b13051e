"""Notebook 06's 24-phase diagram and a §5 figure (a pipelined pair
with no policy, whose content reaches above 1.0), screenshotted in
JupyterLab's light and dark themes, checked in the pixels (the §5 case here is the §5.2 pair made
compute-heavy, A(3, .9, .3) → B(10, .9, .5), so that both its compute lines and pipes go above 1.0):

* every one of the 24 phases is drawn in a colour of its own (each of the view's ``phase_colors``,
  all different, is found on the canvas);
* the y axis has tick marks above 1.0 where the content goes above 1.0 (tick positions from the
  canvas' ``data-y-ticks``, the tick mark's pixels in the axis colour at those rows);
* in the dark theme the canvas background is dark, and light in the light theme.

Expected colours come from the kernel (the view's ``phase_colors`` trait, read back by a cell), the
expected reach from the model (``build_scene(...).y_max``).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from labdriver import LabPage, Notebook, check_each_test, hex_rgb, module_page, read_canvas, write_notebook

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-figures-themes.ipynb"
CELL_06 = (
    "import json\n"
    "import campaign_widget as cw\n"
    "from campaign_widget.figures.scene import build_scene\n"
    "_nb = json.load(open('06-mamba.ipynb'))\n"
    "exec(''.join(_nb['cells'][1]['source']))\n"
    "mamba = cw.CampaignDiagram(unfused, height=260, title='mamba, unfused')\n"
    "print('COLORS', json.dumps(list(mamba.phase_colors)))\n"
    "mamba"
)
CELL_02 = (
    "hungry = cw.Workload([cw.Phase('A', duration=3, compute_util=.9, memory_util=.3),\n"
    "                      cw.Phase('B', duration=10, compute_util=.9, memory_util=.5, after=['A'])])\n"
    "over = cw.CampaignDiagram(hungry, tiles=4, pipeline=True, policy='none', height=260, title='pipelined, no policy')\n"
    "print('YMAX', build_scene(over.schedule).y_max)\n"
    "over"
)


class Figures:
    def __init__(self, lab: LabPage, nb: Notebook, colors: list[str], y_max: float):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.colors, self.y_max = colors, y_max
        self.canvases = self.page.locator(".cw-root canvas.cw-plot")
        self.failed = False

    def set_theme(self, name: str) -> None:
        """Settings → Theme → JupyterLab Light/Dark, as a person would; wait for the redraw."""
        self.page.locator(".lm-MenuBar-item", has_text="Settings").click()
        self.page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
        self.page.locator(".lm-Menu-itemLabel", has_text=f"JupyterLab {name.title()}").first.click()
        for k in range(2):
            self.page.wait_for_function(
                "([c, t]) => c.dataset.theme === t", arg=[self.canvases.nth(k).element_handle(), name], timeout=30_000
            )
        self.page.wait_for_timeout(800)  # the view re-reads the page colours 300 ms after the switch


def _open(lab: LabPage, jupyter_lab) -> Figures:
    write_notebook(jupyter_lab.root_dir, NOTEBOOK, "# Browser test: figures in both themes")
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    out = nb.run_cell(nb.append_code_cell(CELL_06), timeout=120)
    assert "COLORS" in out, f"the notebook-06 cell failed:\n{out}"
    colors = json.loads(out.split("COLORS", 1)[1].strip().splitlines()[0])
    out = nb.run_cell(nb.append_code_cell(CELL_02), timeout=120)
    assert "YMAX" in out, f"the §5 cell failed:\n{out}"
    y_max = float(out.split("YMAX", 1)[1].split()[0])
    state = Figures(lab, nb, colors, y_max)
    for k in range(2):
        lab.page.wait_for_function(
            "c => +c.dataset.draws > 0", arg=state.canvases.nth(k).element_handle(), timeout=60_000
        )
    return state


@pytest.fixture(scope="module")
def figures(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("figures-themes"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(figures, request):
    yield from check_each_test(figures, request)


def _pixels(shot) -> np.ndarray:
    rgba = np.asarray(shot.image.convert("RGBA"), dtype=np.int16)
    return rgba[..., :3]


def _count_colour(pixels: np.ndarray, colour: str, tol: int = 6) -> int:
    return int((np.abs(pixels - np.array(hex_rgb(colour))).max(axis=-1) <= tol).sum())


def _check(figures: Figures, theme: str) -> None:
    mamba, over = figures.canvases.nth(0), figures.canvases.nth(1)
    mamba.scroll_into_view_if_needed()
    figures.lab.screenshot(f"{theme}-mamba", full_page=False)
    shot = read_canvas(mamba)
    pixels = _pixels(shot)

    # The background: sampled in the plot's top-right corner, above everything drawn.
    corner = pixels[int((shot.plot_top + 3) * shot.scale_y), int((shot.plot_right - 3) * shot.scale_x)]
    luminance = 0.2126 * corner[0] + 0.7152 * corner[1] + 0.0722 * corner[2]
    if theme == "dark":
        assert luminance < 80, f"dark theme, but the plot background is {tuple(corner)}"
    else:
        assert luminance > 200, f"light theme, but the plot background is {tuple(corner)}"

    # 24 phases, 24 colours, each on the canvas (its compute line is drawn in exactly that colour).
    assert len(figures.colors) == 24 and len(set(c.lower() for c in figures.colors)) == 24, figures.colors
    missing = [c for c in figures.colors if _count_colour(pixels, c) < 3]
    assert not missing, f"{theme}: phase colours not found on the canvas: {missing}"

    # The §5 figure: content above 1.0, so tick marks above 1.0, drawn in the axis colour.
    over.scroll_into_view_if_needed()
    figures.lab.screenshot(f"{theme}-over", full_page=False)
    shot = read_canvas(over)
    assert figures.y_max > 1.05, f"the case should reach above 1.0, reaches {figures.y_max}"
    ticks = [float(v) for v in over.get_attribute("data-y-ticks").split(",")]
    above = [t for t in ticks if t > 1.0 + 1e-9]
    assert above, f"content reaches {figures.y_max:.2f} but the y ticks stop at {max(ticks)}"
    assert max(ticks) + 0.5 >= figures.y_max, f"ticks {ticks} leave {figures.y_max:.2f} far above the last"
    pixels = _pixels(shot)
    background = pixels[int((shot.plot_top + 3) * shot.scale_y), int((shot.plot_right - 3) * shot.scale_x)]
    for t in above:
        row = int(round(shot.css_y(t) * shot.scale_y))
        x0, x1 = int((shot.plot_left - 4) * shot.scale_x), int(shot.plot_left * shot.scale_x)
        band = pixels[max(0, row - 1) : row + 2, x0:x1]
        contrast = np.abs(band - background).max(axis=-1)
        assert (contrast > 60).any(), f"{theme}: no tick mark at y = {t} (row {row}) left of the plot"


def test_light_theme(figures):
    figures.set_theme("light")
    _check(figures, "light")


def test_dark_theme(figures):
    figures.set_theme("dark")
    try:
        _check(figures, "dark")
    finally:
        figures.set_theme("light")
