"""The pipe-level control in real JupyterLab (docs/memory-hierarchy.md#the-pipe-level-of-a-campaign-diagram): on a machine with several memory levels the
diagram offers a "pipe level" menu; choosing L2 redraws the pipe with L2's demand and the readout names
L2's oversubscription. A one-level machine shows no such menu."""

from __future__ import annotations

import re

import pytest
from labdriver import LabPage, module_page, open_with_cell

pytestmark = pytest.mark.browser

NOTEBOOK = "cw-browser-pipe-level.ipynb"
CELL = """\
import campaign_widget as cw
machine = cw.Machine(peak_compute=100, levels={"L2": 40, "DRAM": 10})
w = cw.Workload([cw.Phase("A", ops=300, bytes={"L2": 200, "DRAM": 20}),
                 cw.Phase("B", ops=200, bytes={"L2": 40, "DRAM": 60}, after=["A"])], machine=machine)
diagram = cw.CampaignDiagram(w, tiles=2, pipeline=True)
one = cw.CampaignDiagram(cw.Workload([cw.Phase("A", duration=1, compute_util=0.5, memory_util=0.5)]))
from ipywidgets import VBox
VBox([diagram, one])
"""
TIMEOUT_MS = 30_000


class PipePage:
    def __init__(self, lab: LabPage, nb):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.failed = False
        self.roots = self.page.locator(".cw-root")


def _open(lab: LabPage, jupyter_lab) -> PipePage:
    nb = open_with_cell(lab, jupyter_lab, NOTEBOOK, "# Browser test: the pipe level", CELL, what="the cell")
    page = PipePage(lab, nb)
    page.page.locator("select.cw-level").first.wait_for(state="attached", timeout=TIMEOUT_MS)
    return page


@pytest.fixture(scope="module")
def pipe_page(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("pipe-level"), lambda lab: _open(lab, jupyter_lab))


def test_choosing_l2_redraws_the_pipe_and_names_l2(pipe_page):
    page = pipe_page.page
    try:
        select = pipe_page.roots.nth(0).locator("select.cw-level")
        assert select.is_visible()
        options = select.locator("option").all_inner_texts()
        # the default says which level it chose (issue 29: every level named)
        assert options[1:] == ["L2", "DRAM"] and re.fullmatch(r"most time \((L2|DRAM)\)", options[0]), options
        before = pipe_page.roots.nth(0).locator("canvas").first.screenshot()
        select.select_option("L2")
        out = pipe_page.nb.run_cell(pipe_page.nb.append_code_cell("print(diagram.level, diagram.resource_names)"))
        assert "L2 ['compute', 'L2']" in out, out
        page.wait_for_timeout(500)
        after = pipe_page.roots.nth(0).locator("canvas").first.screenshot()
        assert before != after, "choosing L2 did not redraw the diagram"
        out = pipe_page.nb.run_cell(pipe_page.nb.append_code_cell("print([t for t, _ in diagram.readout_lines])"))
        assert "L2 oversubscribed" in out, out
    except BaseException:
        pipe_page.failed = True
        raise


def test_a_one_level_machine_offers_no_level_menu(pipe_page):
    select = pipe_page.roots.nth(1).locator("select.cw-level")
    assert select.count() == 1 and not select.is_visible()
