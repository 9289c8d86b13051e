"""The documentation site (mkdocs.yml, docs/): it builds offline with warnings as errors, and its key
pages hold their figure and their API entries. The build helpers in docs/_build are tested on their own."""

import importlib.util
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "docs" / "_build"
sys.path.insert(0, str(BUILD))

import doctest_fences  # noqa: E402
import gallery  # noqa: E402

VIEWS = [
    "campaign-diagram",
    "stacked-diagrams",
    "explorer",
    "roofline-view",
    "dataflow-view",
    "local-view",
    "sweep-view",
]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_doctest_runs_are_fenced_and_prose_is_kept():
    text = "Prose with [a link](x).\n\n    >>> [1, 2][0]\n    1\n    >>> x = 3\n\nMore prose."
    fenced = doctest_fences.fence_doctests(text)
    assert fenced.splitlines()[:3] == ["Prose with [a link](x).", "", ""]
    assert "    ```pycon\n    >>> [1, 2][0]\n    1\n    >>> x = 3\n    ```" in fenced
    assert fenced.rstrip().endswith("More prose.")
    assert doctest_fences.fence_doctests("no examples here") == "no examples here"


def _notebook(path: Path, cells: list[tuple[str, str]]) -> Path:
    nb = {
        "cells": [
            {"cell_type": kind, "metadata": {}, "source": source}
            | ({"outputs": [], "execution_count": None} if kind == "code" else {})
            for kind, source in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def test_gallery_page_has_markdown_code_output_and_static_figures(tmp_path):
    path = _notebook(
        tmp_path / "10-tiny.ipynb",
        [
            ("markdown", "# A tiny notebook\n\nTwo phases."),
            (
                "code",
                "import campaign_widget as cw\n"
                "w = cw.Workload([cw.Phase('A', duration=3, compute_util=.7, memory_util=.6),\n"
                "                 cw.Phase('B', duration=10, compute_util=.2, memory_util=.9, after=['A'])])\n"
                "print('makespan', w.schedule().makespan)\n"
                "cw.CampaignDiagram(w, tiles=4, pipeline=True)",
            ),
            ("code", "from IPython.display import display\ndisplay(w)\n1 + 1"),
        ],
    )
    page = gallery.render_notebook(path, tmp_path / "out")
    assert page.title == "A tiny notebook" and page.executed
    md = page.markdown
    assert md.startswith("# A tiny notebook\n\nTwo phases.\n\n*From `notebooks/10-tiny.ipynb`")  # title first
    assert "Two phases." in md and "```python\nimport campaign_widget as cw" in md
    assert "```text\nmakespan 13.0\n```" in md
    assert "```text\n2\n```" in md  # a value with no static export is shown as its repr
    assert sorted(page.figures) == ["10-tiny/cell-01-0.png", "10-tiny/cell-02-0.png"]
    for relative, png in page.figures.items():
        assert f"]({relative})" in md
        assert png.read_bytes()[:8] == PNG_MAGIC


def test_gallery_page_of_a_notebook_not_run_keeps_its_code_and_says_why(tmp_path):
    path = _notebook(tmp_path / "11-raise.ipynb", [("code", "raise SystemExit('never run')")])
    page = gallery.render_notebook(path, tmp_path / "out", execute=False)
    assert not page.executed and page.figures == {}
    assert "raise SystemExit('never run')" in page.markdown and "not run when the site is built" in page.markdown


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if importlib.util.find_spec("mkdocs") is None:
        pytest.fail('mkdocs is not installed: the site needs the docs extra, pip install -e ".[docs]"')
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout[-4000:]}\n{run.stderr[-8000:]}"
    return out


def _page(site: Path, name: str) -> str:
    # every page is a file of its own (use_directory_urls: false, so that the site reads from file://)
    path = site / f"{name}.html" if name else site / "index.html"
    if name and not path.is_file():
        path = site / name / "index.html"
    assert path.is_file(), f"the site has no page {name or 'index'}"
    return path.read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.parametrize("view", VIEWS)
def test_every_view_page_shows_its_figure(site, view):
    html = _page(site, f"views/{view}")
    assert f'src="../figures/{view}.png"' in html
    assert (site / "figures" / f"{view}.png").read_bytes()[:8] == PNG_MAGIC
    assert "savefig" in html or "save_sweep_heatmap" in html  # the code that drew it is on the page


class _VisibleText(HTMLParser):
    """The text a reader sees: every text node outside scripts and styles, entities decoded."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        self._hidden += tag in ("script", "style")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    return "".join(parser.parts)


def readme_commands() -> list[str]:
    """The README's first-screen commands: the plain code blocks before its first rule (`---`)."""
    first_screen = (ROOT / "README.md").read_text(encoding="utf-8").split("\n---\n")[0]
    return [block.strip() for block in re.findall(r"^```\n(.*?)^```$", first_screen, re.MULTILINE | re.DOTALL)]


def test_visible_text_decodes_entities_and_skips_scripts():
    html = "<pre><span>pip install -e &quot;.[lab]&quot;</span> &amp;&amp; x</pre><script>var hidden = 1;</script>"
    assert visible_text(html) == 'pip install -e ".[lab]" && x'


def test_the_readme_has_its_two_commands_on_its_first_screen():
    commands = readme_commands()
    assert len(commands) == 2 and commands[1] == "bash tests/run-all.sh"
    assert "notebooks/01-campaign-basics.ipynb" in commands[0]


@pytest.mark.slow
def test_getting_started_has_the_readme_commands_and_a_figure(site):
    html = _page(site, "")
    text = visible_text(html)
    for command in readme_commands():
        assert command in text, f"the getting-started page does not show the README's command {command!r}"
    assert 'src="figures/getting-started.png"' in html


def api_pages() -> dict[str, str]:
    """Every public module → its API page: a top-level module or a package with ``__all__`` at
    api/<name>; a layer folder (a package without ``__all__``) at api/<folder>/, and each of its
    public modules at api/<folder>/<module>."""
    package = ROOT / "campaign_widget"
    pages = {p.stem: f"api/{p.stem}" for p in package.glob("*.py") if not p.stem.startswith("_")}
    for init in package.glob("*/__init__.py"):
        folder = init.parent
        if folder.name.startswith("_"):
            continue
        pages[folder.name] = f"api/{folder.name}"
        if "__all__" not in init.read_text(encoding="utf-8"):
            for module in folder.glob("*.py"):
                if not module.stem.startswith("_"):
                    pages[f"{folder.name}.{module.stem}"] = f"api/{folder.name}/{module.stem}"
    return pages


@pytest.mark.slow
def test_api_reference_has_every_public_module_and_its_entries(site):
    pages = api_pages()
    assert {"model.workload", "views.diagram", "figures.scene", "cache", "io", "errors"} <= set(pages)
    for module, page in sorted(pages.items()):
        assert f'id="campaign_widget.{module}"' in _page(site, page), module
    workload = _page(site, "api/model/workload")
    assert 'id="campaign_widget.model.workload.Workload.schedule"' in workload
    assert 'id="campaign_widget.model.workload.Workload.table"' in workload
    assert 'id="campaign_widget.cache.simulate"' in _page(site, "api/cache")
    assert 'id="campaign_widget.views.diagram.CampaignDiagram"' in _page(site, "api/views/diagram")


@pytest.mark.slow
def test_gallery_has_a_page_per_notebook_with_its_figures(site):
    index = _page(site, "gallery")
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert f'href="{notebook.stem}.html"' in index  # a page of its own (use_directory_urls: false)
        html = _page(site, f"gallery/{notebook.stem}")
        assert notebook.name in html
    basics = _page(site, "gallery/01-campaign-basics")
    assert 'src="01-campaign-basics/cell-01-0.png"' in basics
    assert (site / "gallery" / "01-campaign-basics" / "cell-01-0.png").read_bytes()[:8] == PNG_MAGIC


@pytest.mark.slow
def test_site_reads_offline(site):
    for html in site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        for host in ("fonts.googleapis.com", "fonts.gstatic.com", "cdn.jsdelivr.net", "unpkg.com"):
            assert host not in text, f"{html.relative_to(site)} loads from {host}"
