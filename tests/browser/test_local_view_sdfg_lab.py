"""LocalView.from_sdfg in real JupyterLab: the five-point stencil map of tests/data/sdfg/stencil5.sdfg.

Expected accesses and misses come from the program in make_fixtures.py written by hand as an Einsum
(``STENCIL`` in tests/test_local_view_sdfg.py) and traced by ``campaign_widget.cache``, never from the
view; pixel positions from the grid geometry the widget sends and the canvas' own ``data-*`` attributes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from labdriver import check_each_test, decode_data_url, hex_rgb, module_page, open_with_cell

from campaign_widget.cache import Cache, simulate, trace
from campaign_widget.views.buffers import from_payload
from campaign_widget.views.local import LocalView

pytestmark = pytest.mark.browser

NOTEBOOK = "browser-test-local-view-sdfg.ipynb"
FIXTURE = Path(__file__).resolve().parent.parent / "data" / "sdfg" / "stencil5.sdfg"
SIZES = {"i": 6, "j": 6}
STENCIL = "B[i+1,j+1] = 0.2 * (A[i+1,j+1] + A[i+1,j] + A[i+1,j+2] + A[i+2,j+1] + A[i,j+1])"
CELL = f"""from campaign_widget.views.local import LocalView
from campaign_widget.cache import Cache
view = LocalView.from_sdfg({str(FIXTURE)!r}, "stencil5_51", {SIZES!r}, cache=Cache(line=64, lines=4))
view"""
READ, WRITE = "#1f77b4", "#e6550d"  # js/local/draw.js LOCAL_THEME.read, .write
TOL = 30


class State:
    def __init__(self, lab, nb):
        self.lab, self.page, self.nb = lab, lab.page, nb
        self.failed = False
        self.root = self.page.locator(".cwl-root").first
        self.canvas = self.root.locator("canvas.cwl-canvas")
        self.model = LocalView.from_sdfg(FIXTURE, "stencil5_51", SIZES, cache=Cache(line=64, lines=4))
        self.x, self.y = from_payload(self.model.grid["x"]), from_payload(self.model.grid["y"])

    def shot(self) -> dict:
        raw = self.canvas.evaluate(
            "c => ({url: c.toDataURL('image/png'), w: c.getBoundingClientRect().width, data: {...c.dataset}})"
        )
        image = decode_data_url(raw["url"])
        raw["rgb"] = np.asarray(image.convert("RGB")).astype(int)
        raw["scale"] = image.width / raw["w"]
        return raw

    def colour_in_cell(self, shot, e, colour) -> int:
        cell = float(shot["data"]["cell"])
        cx = float(shot["data"]["originX"]) + (self.x[e] + 0.5) * cell
        cy = float(shot["data"]["originY"]) + (self.y[e] + 0.5) * cell
        r, s = 0.3 * cell, shot["scale"]
        box = shot["rgb"][int((cy - r) * s) : int((cy + r) * s) + 1, int((cx - r) * s) : int((cx + r) * s) + 1]
        return int((np.abs(box - np.array(hex_rgb(colour))).max(axis=2) <= TOL).sum())

    def total_misses(self) -> int:
        cells = self.root.locator("table.cwl-readout-table tr").last.locator("td").all_inner_texts()
        assert cells and cells[0] == "total", cells
        return int(cells[2].replace(",", ""))


def _open(lab, jupyter_lab) -> State:
    nb = open_with_cell(
        lab, jupyter_lab, NOTEBOOK, "# Browser test: local view of an SDFG map", CELL, what="the cell", timeout=60
    )
    state = State(lab, nb)
    state.canvas.wait_for(state="attached", timeout=30_000)
    lab.page.wait_for_function(
        "c => c.width > 0 && c.dataset.cell !== undefined", arg=state.canvas.element_handle(), timeout=30_000
    )
    lab.errors.assert_clean(when="while creating the local view of the SDFG map")
    return state


@pytest.fixture(scope="module")
def sdfg_view(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("local-view-sdfg"), lambda lab: _open(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(sdfg_view, request):
    yield from check_each_test(sdfg_view, request)


def test_the_stencil_map_plays_its_memlets_and_counts_the_einsums_misses(sdfg_view):
    page, model = sdfg_view.page, sdfg_view.model
    sdfg_view.canvas.scroll_into_view_if_needed()
    hand = trace(STENCIL, SIZES, elem_bytes=8)
    # iteration 0 touches A at the five points of the stencil around (1, 1) and writes B[1, 1]
    at0 = hand.point == 0
    touched = {
        int(model._first[t] + e): bool(w) for t, e, w in zip(hand.tensor[at0], hand.element[at0], hand.is_write[at0])
    }
    assert len(touched) == 6
    shot = sdfg_view.shot()
    assert int(shot["data"]["highlighted"]) == 6, shot["data"]
    for e, written in touched.items():
        assert sdfg_view.colour_in_cell(shot, e, WRITE if written else READ) > 4, (
            f"iteration 0 touches {model._label(e)} but it is not highlighted"
        )
    sdfg_view.lab.screenshot("sdfg-stencil", full_page=False)
    # the readout: the hand-written Einsum's misses, and the note on the shifted indices
    assert sdfg_view.total_misses() == simulate(hand, Cache(line=64, lines=4)).misses
    assert "the map's i is i + 1" in sdfg_view.root.locator(".cwl-readout").inner_text()
    # interchange the loops in the view: the readout follows the hand-written Einsum traced j-outer
    order = sdfg_view.root.locator("input.cwl-loop-order")
    order.scroll_into_view_if_needed()
    order.fill("ji")
    order.press("Enter")
    want = simulate(trace(STENCIL, SIZES, elem_bytes=8, loop_order="ji"), Cache(line=64, lines=4)).misses
    assert want != simulate(hand, Cache(line=64, lines=4)).misses, "pick a cache where the order matters"
    total = sdfg_view.root.locator("table.cwl-readout-table tr").last
    page.wait_for_function(
        "([row, want]) => +row.querySelectorAll('td')[2].textContent.replace(/,/g, '') === want",
        arg=[total.element_handle(), want],
        timeout=30_000,  # a kernel round trip; 10 s ran out once in a fresh CI run on a loaded machine
    )
