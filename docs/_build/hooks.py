"""MkDocs hooks: the pages and figures the site generates when it is built.

- The API reference: one page per public module of ``campaign_widget`` (a module or a package
  whose name has no leading underscore), grouped in the navigation by ``API_GROUPS``; mkdocstrings
  renders each from its docstrings. A module added to the package gets its page without an edit here.
- The view pages' figures: ``<!-- figure NAME -->`` in a page becomes the example ``NAME`` of
  ``figures.py`` as code, and the PNG that code wrote when the build ran it.
- The gallery: one page per notebook in ``notebooks/`` (``gallery.py``).

Nothing generated is written into ``docs/``: it lives in a scratch folder for the build.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from mkdocs.structure.files import File

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
for path in (str(HERE), str(ROOT)):  # our helpers, and the package of this tree before any installed one
    if path not in sys.path:
        sys.path.insert(0, path)

import figures  # noqa: E402
import gallery  # noqa: E402

log = logging.getLogger("mkdocs.hooks.campaign_widget")

API_GROUPS = {
    "Model": [
        "machine",
        "phase",
        "workload",
        "settings",
        "schedule",
        "timeline",
        "roofline",
        "expr",
        "einsum",
        "fusion",
        "graph",
        "scene",
        "scene_pixels",
        "group_bands",
        "readout",
        "formatting",
    ],
    "Workloads from models": ["transformer"],
    "Data movement": ["dataflow", "cache", "colour_scale"],
    "Machines": ["presets", "host"],
    "Sweeps": ["sweep", "sweep_grid"],
    "Files": ["io", "atomic"],
    "Widgets": [
        "view_base",
        "widget",
        "stack",
        "explorer",
        "roofline_view",
        "roofline_plot",
        "dataflow_view",
        "local_view",
        "sweep_view",
        "sweep_plot",
        "buffers",
        "browser_png",
        "colors",
    ],
    "Front ends": ["html_export", "marimo_display"],
    "Static export": ["static_figure"],
    "Command line": ["cli"],
    "Errors and progress": ["errors", "progress"],
}

FIGURE_MARK = re.compile(r"^<!-- figure ([a-z-]+) -->$", re.MULTILINE)

_state: dict = {}


def public_modules() -> list[str]:
    """The package's public top-level modules and subpackages, by name."""
    package = ROOT / "campaign_widget"
    names = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    names |= {p.parent.name for p in package.glob("*/__init__.py")}
    return sorted(n for n in names if not n.startswith("_"))


def _api_nav() -> list:
    modules = public_modules()
    grouped = {name for members in API_GROUPS.values() for name in members}
    nav: list = [{"campaign_widget": "api/index.md"}]
    for group, members in API_GROUPS.items():
        present = [m for m in members if m in modules]
        if present:
            nav.append({group: [{f"campaign_widget.{m}": f"api/{m}.md"} for m in present]})
    others = [m for m in modules if m not in grouped]
    if others:
        nav.append({"Other": [{f"campaign_widget.{m}": f"api/{m}.md"} for m in others]})
    return nav


def _notebooks() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("*.ipynb"))


def _notebook_title(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return gallery.notebook_title(cells, path.stem)


def on_config(config):
    # The navigation's generated parts: the API reference and the gallery, from what exists now.
    for entry in config["nav"] or []:
        if isinstance(entry, dict) and entry.get("API reference") == "GENERATED":
            entry["API reference"] = _api_nav()
        if isinstance(entry, dict) and entry.get("Gallery") == "GENERATED":
            entry["Gallery"] = [{"Overview": "gallery/index.md"}] + [
                {_notebook_title(p): f"gallery/{p.stem}.md"} for p in _notebooks()
            ]
    return config


def on_files(files, config):
    scratch = Path(tempfile.mkdtemp(prefix="campaign-widget-docs-"))
    _state["scratch"] = scratch
    started = time.perf_counter()

    top = (
        "# `campaign_widget`\n\nThe names the package exports. Each module has its page in the navigation; "
        "the widgets (`CampaignDiagram`, `Explorer`, …) load on first use and are documented in their modules.\n\n"
        "::: campaign_widget\n"
    )
    files.append(File.generated(config, "api/index.md", content=top))
    for module in public_modules():
        title = f"# `campaign_widget.{module}`\n\n::: campaign_widget.{module}\n"
        files.append(File.generated(config, f"api/{module}.md", content=title))

    for name in figures.EXAMPLES:
        png = figures.make_figure(name, scratch / "figures")
        files.append(File.generated(config, f"figures/{name}.png", abs_src_path=str(png)))
    log.info("view figures drawn in %.1f s", time.perf_counter() - started)

    rows = []
    for path in _notebooks():
        page = gallery.render_notebook(path, scratch / "gallery")
        files.append(File.generated(config, f"gallery/{page.stem}.md", content=page.markdown))
        for relative, png in page.figures.items():
            files.append(File.generated(config, f"gallery/{relative}", abs_src_path=str(png)))
        how = f"{len(page.figures)} figures" if page.executed else "code only (not run at build time)"
        rows.append(f"| [{page.title}]({page.stem}.md) | `{path.name}` | {how} |")
        log.info("gallery: %s in %.1f s (%s)", path.name, page.seconds, how)
    index = "\n".join(
        [
            "# Gallery",
            "",
            "The notebooks in `notebooks/` (they all run in CI), rendered when this site was built: their",
            "Markdown and code, what each cell printed and, drawn by the package's static export (the same",
            "scene the live widget draws), the figure of every view a cell displays. Open a notebook in",
            "JupyterLab for the live widgets: sliders, hover, zoom.",
            "",
            "| notebook | file | output |",
            "|---|---|---|",
            *rows,
            "",
        ]
    )
    files.append(File.generated(config, "gallery/index.md", content=index))
    log.info("generated pages and figures in %.1f s", time.perf_counter() - started)
    return files


def on_page_markdown(markdown, page, config, files):
    def example(match):
        name = match.group(1)
        if name not in figures.EXAMPLES:
            raise ValueError(f"{page.file.src_uri}: no example {name!r} in docs/_build/figures.py")
        depth = page.file.src_uri.count("/")
        image = "../" * depth + f"figures/{name}.png"
        code = figures.EXAMPLES[name].rstrip()
        return f"```python\n{code}\n```\n\n![{name}, drawn by the static export]({image})\n"

    return FIGURE_MARK.sub(example, markdown)


def on_post_build(config):
    scratch = _state.pop("scratch", None)
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)
