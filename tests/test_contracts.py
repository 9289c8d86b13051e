"""Every synced view has a contract, and the contract's trait tables name its synced traits exactly.

A view is a subclass of the views' base (``ViewWidget``) whose ``_esm`` is one of the bundles that
package.json builds (``name=js/FOLDER/widget.js`` → ``campaign_widget/static/name.js``); its contract is
``js/FOLDER/CONTRACT.md``. The traits a contract names are the backticked names in the first cell of
the rows of its trait tables (a markdown table whose first header cell is ``trait``)."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

import anywidget
import pytest

import campaign_widget.views
from campaign_widget.views.base import ViewWidget

REPO = Path(__file__).resolve().parents[1]
ENTRY = re.compile(r"(\w+)=(js/\S+)/widget\.js")
NAME = re.compile(r"`([A-Za-z_]\w*)`")


def contract_folders() -> dict[str, str]:
    """Bundle file name (``widget.js``) → the folder of its view's source (``js/diagram``)."""
    build = json.loads((REPO / "package.json").read_text())["scripts"]["build"]
    return {f"{name}.js": folder for name, folder in ENTRY.findall(build)}


def view_classes() -> list[type]:
    for module in pkgutil.iter_modules(campaign_widget.views.__path__):
        importlib.import_module(f"{campaign_widget.views.__name__}.{module.name}")
    found, todo = [], list(ViewWidget.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if Path(getattr(cls.__dict__.get("_esm"), "_path", "")).name in contract_folders():
            found.append(cls)
    return sorted(found, key=lambda cls: cls.__name__)


def synced_traits(cls: type) -> set[str]:
    """The class's synced traits, less those every anywidget has (``_view_name``, ``layout``, ``tooltip``, …)."""
    return set(cls.class_trait_names(sync=True)) - set(anywidget.AnyWidget.class_trait_names(sync=True))


def contract_traits(text: str) -> set[str]:
    """The backticked names in the first cells of the rows of every table headed ``| trait | …``."""
    names: set[str] = set()
    in_table = False
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else None
        if cells is None:
            in_table = False
        elif cells[0] == "trait":
            in_table = True
        elif in_table and not set(cells[0]) <= set("-: "):
            names.update(NAME.findall(cells[0]))
    return names


def contract_of(cls: type) -> Path:
    return REPO / contract_folders()[Path(cls.__dict__["_esm"]._path).name] / "CONTRACT.md"


VIEWS = view_classes()


def test_every_bundle_with_a_view_folder_has_its_view():
    assert {Path(cls.__dict__["_esm"]._path).name for cls in VIEWS} == set(contract_folders())
    assert len(VIEWS) == len(contract_folders())


@pytest.mark.parametrize("cls", VIEWS, ids=lambda cls: cls.__name__)
def test_the_contract_names_every_synced_trait_and_no_other(cls):
    path = contract_of(cls)
    assert path.is_file(), f"{cls.__name__} has no contract at {path.relative_to(REPO)}"
    named = contract_traits(path.read_text())
    traits = synced_traits(cls)
    assert not traits - named, f"{path.relative_to(REPO)} names no row for {sorted(traits - named)}"
    assert not named - traits, f"{path.relative_to(REPO)} names {sorted(named - traits)}, not traits of {cls.__name__}"


def test_a_missing_row_and_a_stray_one_are_found():
    text = "| trait | what |\n|---|---|\n| `a`, `b` | two |\n| `c` | one |\n\n| key | x |\n|---|---|\n| `d` | no |\n"
    assert contract_traits(text) == {"a", "b", "c"}
    assert contract_traits(text.replace("| `c` | one |\n", "")) == {"a", "b"}
