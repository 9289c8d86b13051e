"""Notebook 10, about memory levels, shows them live (issue 29, item 14): a displayed view whose
diagram has a level menu (several levels) beside the hierarchical roofline of those levels; and its
static figures follow the front end's theme (item 9): each is a ThemedFigure, drawn in both themes."""

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.notebooks

NOTEBOOK = Path(__file__).parent.parent / "notebooks" / "10-memory-hierarchy.ipynb"

# Run in the notebook's kernel after its cells: per displayed widget, the views inside it.
PROBE = """
import json
from ipywidgets.widgets.widget import _instances
from campaign_widget.views.diagram import CampaignDiagram
from campaign_widget.views.roofline import RooflineView
from campaign_widget.views.themed_figure import ThemedFigure

def _inside(w, seen):
    if id(w) in seen:
        return
    seen.add(id(w))
    yield w
    for name in ("children", "diagram", "roofline"):
        value = getattr(w, name, None)
        for child in value if isinstance(value, (list, tuple)) else [value]:
            if child is not None and hasattr(child, "model_id"):
                yield from _inside(child, seen)

found = {}
for model_id, widget in list(_instances.items()):
    parts = list(_inside(widget, set()))
    found[model_id] = {
        "diagram_levels": max((len(p.levels) for p in parts if isinstance(p, CampaignDiagram)), default=0),
        "roofline_levels": max((len(p.shown_levels) for p in parts if isinstance(p, RooflineView)), default=0),
        "themed": isinstance(widget, ThemedFigure) and widget.light_png != widget.dark_png,
    }
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def run():
    """(notebook after its run, per displayed widget what the probe found, the displayed model ids per cell)."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    )
    with client.setup_kernel():
        for index, cell in enumerate(nb.cells):
            client.execute_cell(cell, index)
        probe = nbformat.v4.new_code_cell(PROBE)
        nb.cells.append(probe)
        client.execute_cell(probe, len(nb.cells) - 1)
    views = json.loads("".join(o.get("text", "") for o in probe.outputs if o.get("name") == "stdout"))
    return nb, views


def _displayed(nb, views):
    return [
        (cell, views.get(o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"], {}))
        for cell in nb.cells[:-1]
        if cell.cell_type == "code"
        for o in cell.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]


def test_notebook_10_shows_the_level_menu_and_the_per_level_roofline_live(run):
    shown = [v for _, v in _displayed(*run)]
    assert any(v.get("diagram_levels", 0) >= 2 and v.get("roofline_levels", 0) >= 2 for v in shown), (
        f"notebook 10 displays no live view with a level menu and a per-level roofline: {shown}"
    )


def test_notebook_10s_static_figures_follow_the_theme(run):
    nb, views = run
    themed = [cell.source for cell, v in _displayed(nb, views) if v.get("themed")]
    # every figure a cell shows is a widget: a bare PNG (IPython's Image) or a matplotlib figure is one theme only
    bare = [
        cell.source
        for cell in nb.cells[:-1]
        if cell.cell_type == "code"
        for o in cell.get("outputs", [])
        if "image/png" in o.get("data", {}) and "application/vnd.jupyter.widget-view+json" not in o.get("data", {})
    ]
    assert not bare, f"notebook 10 shows figures drawn in one theme only: {bare}"
    assert len(themed) >= 2, f"notebook 10's two static figures are not drawn in both themes: {themed}"
