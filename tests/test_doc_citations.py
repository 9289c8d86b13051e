"""Citations of the documentation resolve inside the repository.

The code says where its rules are written down as ``docs/<page>.md`` or ``docs/<page>.md#<anchor>``.
Every cited page must exist and every cited anchor must be one of its headings' ids, as mkdocs makes
them (the Markdown extensions of mkdocs.yml, so the slugs are the site's own). Nothing may cite the
design notes that lived outside the repository (their file, or anything in the shared folder beside
a checkout): a reader of a checkout has neither.
"""

import re
from pathlib import Path

import markdown
import yaml

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ["campaign_widget", "js", "tests", "benchmarks", "README.md", "CONTRIBUTING.md"]
SUFFIXES = {".py", ".js", ".mjs", ".md", ".sh"}
SKIPPED = {"node_modules", "static", "__pycache__", "test-artifacts"}
CITATION = re.compile(r"\bdocs/((?:[\w-]+/)*[\w-]+\.md)(?:#([\w-]+))?")
# Spelled in pieces so that this file does not cite what it forbids.
OUTSIDE = re.compile(r"\b" + "design" + r"\.md\b")
#: A path into the shared folder beside the checkout: ``../shared/…`` (or deeper) that names no file of the repository
#: (``js/dataflow/draw.js`` imports ``../shared/color.js``, which is ``js/shared/color.js``).
SHARED_PATH = re.compile(r"((?:\.\./)+" + "shared" + r"/[\w./-]*)")


def scanned_files(root: Path = ROOT) -> list[Path]:
    files = []
    for name in SCANNED:
        top = root / name
        candidates = [top] if top.is_file() else top.rglob("*")
        for path in candidates:
            if path.is_file() and path.suffix in SUFFIXES and not SKIPPED & set(path.relative_to(root).parts):
                files.append(path)
    return sorted(files)


def citations(files: list[Path], root: Path = ROOT) -> list[tuple[str, str, str | None]]:
    """(where, page, anchor) for every docs citation: where is ``file:line``."""
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for match in CITATION.finditer(line):
                found.append((f"{path.relative_to(root).as_posix()}:{number}", match.group(1), match.group(2)))
    return found


def _markdown_extensions() -> tuple[list, dict]:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    names, configs = [], {}
    for entry in config["markdown_extensions"]:
        name, options = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        names.append(name)
        if options:
            configs[name] = {
                key: value == "true" if value in ("true", "false") else value for key, value in options.items()
            }
    return names, configs


def heading_ids(page: Path) -> set[str]:
    """The ids mkdocs gives the page's headings (duplicates numbered, ``{#id}`` honoured)."""
    names, configs = _markdown_extensions()
    md = markdown.Markdown(extensions=names, extension_configs=configs)
    md.convert(page.read_text(encoding="utf-8"))
    ids, todo = set(), list(md.toc_tokens)
    while todo:
        token = todo.pop()
        ids.add(token["id"])
        todo.extend(token["children"])
    return ids


def unresolved(found: list[tuple[str, str, str | None]], docs: Path = ROOT / "docs") -> list[str]:
    bad, anchors = [], {}
    for where, page, anchor in found:
        path = docs / page
        if not path.is_file():
            bad.append(f"{where}: docs/{page} does not exist")
        elif anchor is not None:
            if page not in anchors:
                anchors[page] = heading_ids(path)
            if anchor not in anchors[page]:
                bad.append(f"{where}: docs/{page} has no heading #{anchor}")
    return bad


def outside_citations(files: list[Path], root: Path = ROOT) -> list[str]:
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            outside = [p for p in SHARED_PATH.findall(line) if not (path.parent / p).resolve().is_relative_to(root)]
            if OUTSIDE.search(line) or outside:
                found.append(f"{path.relative_to(root).as_posix()}:{number}: {line.strip()[:100]}")
    return found


def test_every_cited_page_and_heading_exists():
    found = citations(scanned_files())
    assert len(found) >= 10  # the code does cite the docs: the scan sees the citations
    assert unresolved(found) == []


def test_nothing_cites_the_notes_outside_the_repository():
    assert outside_citations(scanned_files()) == []


def test_the_checks_find_a_missing_page_a_missing_heading_and_an_outside_citation(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "semantics.md").write_text("# Title\n\n## Per-phase quantities\n\n## Schedules\n")
    source = tmp_path / "code.py"
    # "DOCS/" stands for the folder, so that the scan of this file does not take the samples for citations
    sample = (
        '"""See DOCS/semantics.md#schedules, DOCS/semantics.md#per-phase-quantities and DOCS/semantics.md."""\n'
        "# DOCS/semantics.md#tiling, DOCS/nowhere.md\n"
        "# as " + "design" + ".md §3 says\n"
        "# the files in ../../" + "shared/wild\n"
    )
    source.write_text(sample.replace("DOCS/", "docs/"))
    found = citations([source], tmp_path)
    assert [(page, anchor) for _, page, anchor in found] == [
        ("semantics.md", "schedules"),
        ("semantics.md", "per-phase-quantities"),
        ("semantics.md", None),
        ("semantics.md", "tiling"),
        ("nowhere.md", None),
    ]
    assert unresolved(found, tmp_path / "docs") == [
        "code.py:2: docs/semantics.md has no heading #tiling",
        "code.py:2: DOCS/nowhere.md does not exist".replace("DOCS/", "docs/"),
    ]
    assert outside_citations([source], tmp_path) == [
        "code.py:3: # as " + "design" + ".md §3 says",
        "code.py:4: # the files in ../../" + "shared/wild",
    ]
    inside = tmp_path / "js" / "view" / "draw.js"
    inside.parent.mkdir(parents=True)
    (tmp_path / "js" / "shared").mkdir()
    inside.write_text('import { f } from "../' + 'shared/format.js";\n')
    assert outside_citations([inside], tmp_path) == []


def test_heading_ids_are_the_sites_slugs():
    ids = heading_ids(ROOT / "docs" / "semantics.md")
    assert {"per-phase-quantities", "schedules", "reference-numbers", "what-a-campaign-diagram-draws"} <= ids
    assert "lock-step-pipelining-steppinglockstep" in heading_ids(ROOT / "docs" / "lockstep.md")
