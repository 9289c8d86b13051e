"""The gallery: each notebook in notebooks/ as a static page, its figures drawn by the static export.

A notebook's code cells run in this process, in order, in one namespace, from the notebook's folder
(as a kernel would run them). What a cell shows — its last expression and every ``display(...)`` —
is drawn with the package's own export (``savefig``, the sweep heatmap, matplotlib's ``savefig``)
instead of the live widget; printed text is kept below the cell. Notebooks in ``NOT_EXECUTED`` are
shown as code only, with the reason.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import json
import linecache
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

NOT_EXECUTED = {
    # Its numbers are this machine's measured peaks and a profile taken under whatever else runs;
    # its checks compare the two, so a busy build machine can fail them.
    "04-profile-a-model": (
        "it measures the peaks of the machine that runs it and profiles a PyTorch model there: "
        "its figures are that machine's, and a busy build machine makes them vary"
    ),
    # Dask's worker processes cannot start from code run by exec(); the sweep's figures are on the
    # SweepView page, drawn from a local sweep.
    "09-sweeps": "it starts a two-worker Dask cluster, which needs a kernel of its own",
}

FIGURE_DPI = 100  # figures sized for a page, not for print: tens of kB each
MAX_WIDTH = 16.0  # inches


@dataclass
class NotebookPage:
    """One notebook rendered: the page's Markdown and the figures it links to (relative name -> file)."""

    stem: str
    title: str
    markdown: str
    figures: dict[str, Path] = field(default_factory=dict)
    seconds: float = 0.0
    executed: bool = True


def notebook_title(cells: list[dict], stem: str) -> str:
    """The first Markdown heading of the notebook, else its file name."""
    for cell in cells:
        if cell["cell_type"] == "markdown":
            for line in _source(cell).splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return stem


def render_notebook(path: Path, out_dir: Path, *, execute: bool | None = None) -> NotebookPage:
    """Render the notebook at ``path``; its figures are written under ``out_dir / path.stem``."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = nb["cells"]
    stem = path.stem
    reason = NOT_EXECUTED.get(stem)
    if execute is None:
        execute = reason is None
    page = NotebookPage(stem=stem, title=notebook_title(cells, stem), markdown="", executed=execute)
    note = [
        f"*From `notebooks/{path.name}`: its Markdown and code as in the notebook; "
        + (
            "below each cell, what it printed and, drawn by the package's static export, what it displayed.*"
            if execute
            else f"this notebook is not run when the site is built, because {reason or 'it was asked not to be'}. "
            "Run it in Jupyter to see its output.*"
        ),
        "",
    ]
    titled = bool(cells) and cells[0]["cell_type"] == "markdown" and _source(cells[0]).lstrip().startswith("# ")
    parts: list[str] = [] if titled else note  # the note follows the notebook's title, if it has one
    runner = _CellRunner(path.parent, out_dir / stem, stem) if execute else None
    started = time.perf_counter()
    for index, cell in enumerate(cells):
        source = _source(cell)
        if cell["cell_type"] == "markdown":
            parts += [source, "", *(note if titled and index == 0 else [])]
        elif cell["cell_type"] == "code" and source.strip():
            parts += ["```python", source.rstrip(), "```", ""]
            if runner is not None:
                parts += runner.run(index, source)
    page.seconds = time.perf_counter() - started
    if runner is not None:
        page.figures = runner.figures
        runner.close()
    page.markdown = "\n".join(parts)
    return page


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


class _CellRunner:
    """Runs a notebook's cells in one namespace and turns what they show into Markdown."""

    def __init__(self, folder: Path, figure_dir: Path, stem: str):
        self.folder, self.figure_dir, self.stem = folder, figure_dir, stem
        self.namespace: dict = {"__name__": "__main__"}
        self.figures: dict[str, Path] = {}
        self._shown: list = []

    def run(self, index: int, source: str) -> list[str]:
        import IPython.display
        import matplotlib
        import matplotlib.pyplot as plt

        matplotlib.use("Agg")
        tree = ast.parse(source)
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        self._shown = []
        printed = io.StringIO()
        saved_display, saved_show = IPython.display.display, plt.show
        IPython.display.display = lambda *objects, **_: self._shown.extend(objects)
        plt.show = lambda *_, **__: self._shown.extend(plt.figure(n) for n in plt.get_fignums())
        cwd = os.getcwd()
        try:
            os.chdir(self.folder)
            with (
                contextlib.redirect_stdout(printed),
                contextlib.redirect_stderr(io.StringIO()),  # progress bars
                warnings.catch_warnings(),
            ):
                warnings.simplefilter("ignore")
                filename = f"<{self.stem} cell {index}>"
                # the cell's source where inspect looks for it, as IPython keeps it (DaCe parses a program's source)
                linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
                # dont_inherit: a kernel has no ``from __future__ import annotations``, and this module does
                exec(compile(tree, filename, "exec", dont_inherit=True), self.namespace)  # noqa: S102
                if last is not None:
                    expression = compile(ast.Expression(last.value), filename, "eval", dont_inherit=True)
                    value = eval(expression, self.namespace)  # noqa: S307 - the notebook's own code, as a kernel runs it
                    if value is not None:
                        self._shown.append(value)
        finally:
            os.chdir(cwd)
            IPython.display.display, plt.show = saved_display, saved_show
        out = []
        if printed.getvalue().strip():
            out += ["```text", printed.getvalue().rstrip(), "```", ""]
        for k, obj in enumerate(self._shown):
            out += self._show(obj, f"cell-{index:02d}-{k}")
        plt.close("all")
        return out

    def _show(self, obj, name: str) -> list[str]:
        """Markdown for one displayed object: a figure from the static export where it has one."""
        png = self.figure_dir / f"{name}.png"
        png.parent.mkdir(parents=True, exist_ok=True)
        kind = type(obj).__name__
        if not self._save_figure(obj, png):
            return self._as_text(obj)
        relative = f"{self.stem}/{png.name}"
        self.figures[relative] = png
        return [f"![{kind}, as the static export draws it]({relative})", ""]

    @staticmethod
    def _save_figure(obj, png: Path) -> bool:
        import campaign_widget as cw
        from campaign_widget.static_figure import save_workload_figure

        kind = type(obj).__name__
        if kind == "Figure" and type(obj).__module__.startswith("matplotlib"):
            obj.savefig(png, dpi=FIGURE_DPI)
        elif isinstance(obj, cw.Workload):  # a workload displays as an Explorer: diagram and roofline
            save_workload_figure(obj, png, roofline=True, width=11.0, dpi=FIGURE_DPI)
        elif kind == "SweepView":
            from campaign_widget.static_figure import save_sweep_heatmap

            save_sweep_heatmap(png, obj.result, x=obj.x, y=obj.y, dpi=FIGURE_DPI)
        elif callable(getattr(obj, "savefig", None)):
            options = {"dpi": FIGURE_DPI}
            if "max_width" in inspect.signature(obj.savefig).parameters:
                options["max_width"] = MAX_WIDTH  # a dataflow graph as wide as a page can show
            obj.savefig(png, **options)
        else:
            return False
        return True

    @staticmethod
    def _as_text(obj) -> list[str]:
        readout = getattr(obj, "readout", None)
        if type(obj).__name__ == "LocalView" and isinstance(readout, dict) and readout.get("rows"):
            # The local view has no static export: its miss readout stands in for it.
            header, rows = readout["header"], readout["rows"]
            table = ["| " + " | ".join(map(str, header)) + " |", "|" + "---|" * len(header)]
            table += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
            return ["*The `LocalView` is interactive only; its miss readout:*", "", *table, ""]
        to_string = getattr(obj, "to_string", None)
        text = to_string() if callable(to_string) and type(obj).__name__ == "DataFrame" else repr(obj)
        return ["```text", text.rstrip(), "```", ""]

    def close(self) -> None:
        # Whatever the notebook left open (a cluster it did not close) goes with its namespace.
        self.namespace.clear()
