"""The critical path in real JupyterLab (docs/distributed-jobs.md#the-critical-path-in-the-diagram): the
view draws the scene's flag bit 3 as a bold edge in the theme's critical colour around the compute line of
each tile on the path, and nowhere else. Figure 2b in two tiles, pipelined: B1 (t 6.5-11.5, line 0.2) is
on the path, C0 (t 6.5-7.5, stacked on B to 0.8) is not; the same diagram without the option has no edge."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from labdriver import LabPage, module_page, open_with_cell, read_canvas

from campaign_widget.static_figure.style import theme

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-critical-path.ipynb"
CELL = """\
import campaign_widget as cw
from ipywidgets import VBox
m = cw.Machine(51.2e12, 3.35e12, name="H100")
w = cw.Workload([cw.Phase("A", duration=3, compute_util=0.7, memory_util=0.25),
                 cw.Phase("B", duration=10, compute_util=0.2, memory_util=0.9, after=["A"]),
                 cw.Phase("C", duration=2, compute_util=0.6, memory_util=0.4, after=["B"])], machine=m)
VBox([cw.CampaignDiagram(w, tiles=2, pipeline=True, critical_path=True, theme="light"),
      cw.CampaignDiagram(w, tiles=2, pipeline=True, theme="light")])
"""
TIMEOUT_MS = 30_000
LIGHT = theme("light")
REACH = LIGHT["compute_line_width"] / 2 + LIGHT["critical_width"] + 1  # CSS px from the line's centre


def _open(lab: LabPage, jupyter_lab) -> SimpleNamespace:
    """The notebook run and both diagrams drawn; ``failed`` is set by a failing test (``module_page``)."""
    nb = open_with_cell(lab, jupyter_lab, NOTEBOOK, "# Browser test: the critical path", CELL, what="the cell")
    lab.page.wait_for_function(
        "() => [...document.querySelectorAll('.cw-root canvas.cw-plot')].filter(c => Number(c.dataset.draws) > 0).length >= 2",
        timeout=TIMEOUT_MS,
    )
    return SimpleNamespace(nb=nb, canvases=lab.page.locator(".cw-root canvas.cw-plot"), failed=False)


@pytest.fixture(scope="module")
def path_page(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("critical-path"), lambda lab: _open(lab, jupyter_lab))


def test_the_edge_is_drawn_on_the_path_only(path_page):
    try:
        on, off = read_canvas(path_page.canvases.nth(0)), read_canvas(path_page.canvases.nth(1))
        edge = LIGHT["critical"]
        b1 = on.find_colour(edge, on.css_x(9.0), on.css_y(0.2), 20, REACH, tol=40)
        assert len(b1) > 10, f"no edge around B1's line; column: {on.column_hits(edge, on.css_x(9.0), tol=40)}"
        c0 = on.find_colour(edge, on.css_x(7.0), on.css_y(0.8), 3, REACH, tol=40)
        assert not c0, f"C0 (off the path) is edged at {c0[:5]}"
        plain = off.find_colour(edge, off.css_x(9.0), off.css_y(0.2), 20, REACH, tol=40)
        assert not plain, "the diagram without critical_path draws an edge"
    except BaseException:
        path_page.failed = True
        raise
