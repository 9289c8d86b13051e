"""Issue 29's legibility classes drawn by the JavaScript views, read back as pixels in headless Chromium
(the plain front-end pages of test_frontend_themes.py: our bundle, the kernel's synced state, a
front end's theme markers; no JupyterLab)."""

from __future__ import annotations

import numpy as np
import pytest
from labdriver import hex_rgb, read_canvas
from test_frontend_themes import BY_NAME, luminance, open_page, state_json  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser


def _plot_pixels(page) -> tuple[np.ndarray, object]:
    shot = read_canvas(page.locator("canvas.cw-plot"))
    rgb = np.asarray(shot.image.convert("RGB"), dtype=float)
    sx, sy = shot.scale_x, shot.scale_y
    box = rgb[
        int(shot.plot_top * sy) + 2 : int(shot.plot_bottom * sy) - 2,
        int(shot.plot_left * sx) + 2 : int(shot.plot_right * sx) - 2,
    ]
    return box, shot


def _hover(page, phase) -> None:
    before = page.locator("canvas.cw-plot").get_attribute("data-draws")
    page.evaluate("phase => window.cwModel.set('hovered_phase', phase)", phase)
    page.wait_for_function(
        "n => document.querySelector('canvas.cw-plot').dataset.draws !== n", arg=before, timeout=5_000
    )
    page.wait_for_timeout(200)


# -- 9. hover dims the other phases toward the background -------------------------------------------


@pytest.mark.parametrize("front", ["jupyterlab-dark", "jupyterlab-light"])
def test_hover_fades_the_other_phases_toward_the_background(open_page, front, artifacts_dir):  # noqa: F811
    theme = BY_NAME[front]
    page, errors = open_page(theme, browser_dark=theme.dark)
    plain, _ = _plot_pixels(page)
    _hover(page, 0)
    hovered, shot = _plot_pixels(page)
    shot.image.save(artifacts_dir / f"hover-{front}.png")  # what a person sees, kept with the run
    bg = np.array(hex_rgb(theme.background), float)
    changed = np.abs(hovered - plain).max(axis=2) > 24
    assert changed.sum() > 200, "hovering phase 0 changed almost nothing in the plot"
    before = np.abs(plain[changed] - bg).sum(axis=1)
    after = np.abs(hovered[changed] - bg).sum(axis=1)
    toward = float(np.mean(after < before))
    assert toward > 0.8, (
        f"{front}: of the {int(changed.sum())} pixels a hover changed, only {toward:.0%} moved toward the "
        f"background {theme.background}: the faded phases stand out instead of sinking back"
    )
    errors.assert_clean(when=f"hovering in {front}")


# -- 9. a static figure in a notebook follows the front end's theme -----------------------------------


def _figure_state() -> str:
    from test_frontend_themes import as_json, widget_state
    from workloads import two_phases

    from campaign_widget.static_figure import panel_for
    from campaign_widget.views.themed_figure import ThemedFigure

    w = two_phases()
    return as_json(widget_state(ThemedFigure.of_panels([panel_for(w, w.schedule())], width=5)))


def _shown_background(page) -> tuple[int, int, int]:
    """The top-left pixel of the picture the <img> shows now (its margin: the figure's background)."""
    from labdriver import decode_data_url

    url = page.evaluate(
        """() => { const img = document.querySelector('img.cw-figure'); const c = document.createElement('canvas');
        c.width = img.naturalWidth; c.height = img.naturalHeight; c.getContext('2d').drawImage(img, 0, 0);
        return c.toDataURL('image/png'); }"""
    )
    return decode_data_url(url).convert("RGB").getpixel((2, 2))


def test_a_static_figure_takes_and_follows_the_front_ends_theme(open_page, artifacts_dir):  # noqa: F811
    state = _figure_state()
    dark, light = BY_NAME["jupyterlab-dark"], BY_NAME["jupyterlab-light"]
    page, errors = open_page(dark, browser_dark=False, bundle="figure.js", state=state, canvas="img.cw-figure")
    page.wait_for_function("() => document.querySelector('img.cw-figure').complete")
    shown = _shown_background(page)
    page.screenshot(path=str(artifacts_dir / "themed-figure-dark.png"))
    assert luminance(shown) < 60, f"in a dark JupyterLab the figure is drawn light (background {shown})"
    page.evaluate("markers => window.cwSetMarkers(markers)", light.markers())
    page.wait_for_function("() => document.querySelector('img.cw-figure').dataset.theme === 'light'", timeout=5_000)
    page.wait_for_function("() => document.querySelector('img.cw-figure').complete")
    page.wait_for_timeout(200)
    shown = _shown_background(page)
    page.screenshot(path=str(artifacts_dir / "themed-figure-light.png"))
    assert luminance(shown) > 200, f"switched to light, the figure stays dark (background {shown})"
    errors.assert_clean(when="showing a static figure")
