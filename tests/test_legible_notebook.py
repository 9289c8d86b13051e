"""Notebook 10, about memory levels, shows them live (issue 29, item 14): a displayed view whose
diagram has a level menu (several levels) beside the hierarchical roofline of those levels."""

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
    }
print(json.dumps(found))
"""


def test_notebook_10_shows_the_level_menu_and_the_per_level_roofline_live():
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
    displayed = [
        o["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
        for cell in nb.cells[:-1]
        if cell.cell_type == "code"
        for o in cell.get("outputs", [])
        if "application/vnd.jupyter.widget-view+json" in o.get("data", {})
    ]
    shown = [views.get(model_id, {}) for model_id in displayed]
    assert any(v.get("diagram_levels", 0) >= 2 and v.get("roofline_levels", 0) >= 2 for v in shown), (
        f"notebook 10 displays no live view with a level menu and a per-level roofline: {shown}"
    )
