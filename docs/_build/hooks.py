"""MkDocs hooks: the pages and figures the site generates when it is built.

- The API reference: one page per public module of ``campaign_widget`` (a module or a package
  whose name has no leading underscore, and each public module of a layer folder), grouped in the
  navigation by layer (``API_GROUPS``); mkdocstrings renders each from its docstrings. A module added to the package gets its page without an edit here.
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

#: The API reference's navigation, by layer from the ground up (docs/architecture.md). A package with
#: ``__all__`` (cache, io, sweep, static_figure) is one page, its API; a layer folder without one
#: (model, figures, views) is a page of its docstring and one page per public module in it.
API_GROUPS = {
    "Ground": ["errors", "formatting", "progress", "atomic"],
    "Model": ["model"],
    "Cache model": ["cache"],
    "Files": ["io"],
    "Sweeps": ["sweep"],
    "Figures": ["figures"],
    "Static export": ["static_figure"],
    "Views": ["views"],
    "Command line": ["cli"],
}

FIGURE_MARK = re.compile(r"^<!-- figure ([a-z-]+) -->$", re.MULTILINE)

_state: dict = {}


def _is_folder_of_modules(package: Path) -> bool:
    """A layer folder: its ``__init__`` exports nothing (no ``__all__``), each module is a topic."""
    return "__all__" not in (package / "__init__.py").read_text(encoding="utf-8")


def public_modules() -> list[str]:
    """Every module with an API page, dotted below ``campaign_widget``: the public top-level modules
    and packages, and the public modules of each layer folder."""
    package = ROOT / "campaign_widget"
    names = {p.stem for p in package.glob("*.py") if p.stem != "__init__"}
    for init in package.glob("*/__init__.py"):
        names.add(init.parent.name)
        if _is_folder_of_modules(init.parent):
            names |= {f"{init.parent.name}.{p.stem}" for p in init.parent.glob("*.py") if p.stem != "__init__"}
    return sorted(n for n in names if not any(part.startswith("_") for part in n.split(".")))


def api_page(module: str) -> str:
    """Where ``campaign_widget.<module>``'s page is: api/model/index.md, api/model/workload.md, api/io.md."""
    folder = ROOT / "campaign_widget" / module
    if (folder / "__init__.py").is_file() and _is_folder_of_modules(folder):
        return f"api/{module}/index.md"
    return "api/" + module.replace(".", "/") + ".md"


def _api_nav() -> list:
    modules = public_modules()
    grouped = {name for members in API_GROUPS.values() for name in members}
    nav: list = [{"campaign_widget": "api/index.md"}]
    for group, members in API_GROUPS.items():
        entries = []
        for top in (m for m in members if m in modules):
            entries.append({f"campaign_widget.{top}": api_page(top)})
            entries += [{f"campaign_widget.{m}": api_page(m)} for m in modules if m.startswith(f"{top}.")]
        if entries:
            nav.append({group: entries})
    others = [m for m in modules if m.split(".")[0] not in grouped]
    if others:
        nav.append({"Other": [{f"campaign_widget.{m}": api_page(m)} for m in others]})
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
        files.append(File.generated(config, api_page(module), content=title))

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
        # at its own size in a sideways-scrolling box (docs/assets/figures.css): its text stays 12 px
        return f'```python\n{code}\n```\n\n<div class="cw-figure" markdown>\n![{name}, drawn by the static export]({image})\n</div>\n'

    return FIGURE_MARK.sub(example, markdown)


def on_post_build(config):
    scratch = _state.pop("scratch", None)
    if scratch is not None:
        shutil.rmtree(scratch, ignore_errors=True)
