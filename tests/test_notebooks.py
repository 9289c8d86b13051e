"""Every notebook in notebooks/ runs headless, top to bottom, without an error."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))

pytestmark = pytest.mark.notebooks


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ has no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path):
    nb = nbformat.read(path, as_version=4)
    # allow_errors: the client runs every cell and this test reports the first failing one by its source
    NotebookClient(
        nb, timeout=600, kernel_name="python3", allow_errors=True, resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    code = [cell for cell in nb.cells if cell.cell_type == "code" and cell.source.strip()]
    for cell in code:
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        assert not errors, (
            f"{path.name}: cell {cell.execution_count} raised {errors[0]['ename']}: "
            f"{errors[0]['evalue']}\n--- cell source ---\n{cell.source}"
        )
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1)), "not every cell ran, in order"
