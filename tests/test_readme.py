"""What the README (and the pages it leans on) claims, read against the repository: its two commands
(CI runs the test command word for word), the Node.js version the locked JavaScript tools need, the
throttle policies, the layout's folders and modules, the paths it names, and no path of one build
machine anywhere in the repository."""

import json
import re
from pathlib import Path

import campaign_widget as cw

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SKIPPED_FOLDERS = {"node_modules", ".git", "build", "test-artifacts", "static", "__pycache__"}


def section(text: str, heading: str) -> str:
    """The body of the Markdown section ``heading`` (a whole heading line), up to the next heading of
    the same or a higher level."""
    level = len(heading) - len(heading.lstrip("#"))
    start = re.search(rf"^{re.escape(heading)}$", text, re.MULTILINE).end()
    following = re.search(rf"^#{{1,{level}}} ", text[start:], re.MULTILINE)
    return text[start : start + following.start()] if following else text[start:]


def _commands():
    return re.findall(r"```\n(.+?)\n```", README)


def test_readme_first_screen_has_two_commands_and_ci_runs_the_test_one():
    setup, tests = _commands()[:2]
    assert "jupyterlab" in setup and "notebooks/01-campaign-basics.ipynb" in setup
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci_lines[-1] == tests


# -- Node.js: the lowest version every locked package admits ----------------------------------------


def version(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in re.findall(r"\d+", text)[:3]]
    return tuple(parts + [0] * (3 - len(parts)))


def admits(candidate: tuple[int, int, int], range_: str) -> bool:
    """Whether ``candidate`` satisfies an npm ``engines`` range: alternatives joined by ``||``, each
    a list of comparators (``>=18.18.0``, ``>= 8``, ``^20.19.0``, ``20``, ``<22``)."""
    for alternative in range_.split("||"):
        comparators = re.findall(r"(\^|~|>=|<=|>|<|=)?\s*v?(\d+(?:\.\d+){0,2})", alternative)
        if comparators and all(_satisfies(candidate, op, bound) for op, bound in comparators):
            return True
    return False


def _satisfies(candidate, op: str, bound: str) -> bool:
    low, given = version(bound), bound.count(".") + 1
    if op == "^":
        top = (low[0] + 1, 0, 0) if low[0] else (0, low[1] + 1, 0)
        return low <= candidate < top
    if op == "~" or (op in ("", "=") and given < 3):  # "20" and "~20.1" are whole ranges
        top = (low[0] + 1, 0, 0) if given == 1 else (low[0], low[1] + 1, 0)
        return low <= candidate < top
    return {
        ">=": candidate >= low,
        ">": candidate > low,
        "<=": candidate <= low,
        "<": candidate < low,
        "": candidate == low,
        "=": candidate == low,
    }[op]


def lowest_admitted(ranges: list[str]) -> tuple[int, int, int]:
    """The lowest version that every range admits; it is one of the ranges' lower bounds."""
    bounds = sorted({version(b) for r in ranges for b in re.findall(r"\d+(?:\.\d+){0,2}", r)} | {(0, 0, 0)})
    return next(b for b in bounds if all(admits(b, r) for r in ranges))


def lock_engines() -> list[str]:
    packages = json.loads((ROOT / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    engines = (entry.get("engines") for entry in packages.values())
    return [e["node"] for e in engines if isinstance(e, dict) and "node" in e]


def stated_node_minimums(text: str) -> list[tuple[int, int, int]]:
    return [version(v) for v in re.findall(r"Node\.js ≥ (\d+(?:\.\d+){0,2})", text)]


def test_npm_ranges_are_read_as_npm_reads_them():
    assert admits((20, 19, 0), "^20.19.0 || ^22.13.0 || >=24") and not admits((21, 0, 0), "^20.19.0 || ^22.13.0")
    assert admits((20, 5, 0), "20 || >=22") and not admits((21, 0, 0), "20 || >=22")
    assert admits((18, 18, 0), ">= 18") and not admits((18, 17, 9), ">=18.18")
    assert lowest_admitted([">=18", "^20.19.0 || >=24", "20 || >=22"]) == (20, 19, 0)
    assert lowest_admitted([">=18"]) == (18, 0, 0)


def test_the_readme_states_the_node_version_the_locked_tools_need():
    need = lowest_admitted(lock_engines())
    assert need >= (20, 19, 0)  # eslint 10's range: the lock is read
    for name in ("README.md", "CONTRIBUTING.md", "docs/index.md"):
        stated = stated_node_minimums((ROOT / name).read_text(encoding="utf-8"))
        assert stated, f"{name} names no minimum Node.js version (as 'Node.js ≥ X.Y')"
        assert set(stated) == {need}, f"{name} says Node.js ≥ {stated}; the locked packages need {need}"


# -- the throttle policies --------------------------------------------------------------------------


def readme_policies(text: str) -> list[str]:
    match = re.search(r"Policies: `cw\.POLICIES`\s*=\s*((?:`[^`]+`(?:,\s*)?)+)", text)
    assert match, "the README lists the policies as: Policies: `cw.POLICIES` = `a`, `b`, …"
    return re.findall(r"`([^`]+)`", match.group(1))


def semantics_policies(text: str) -> list[str]:
    return re.findall(r"^- `([^`]+)`$", section(text, "### Policies"), re.MULTILINE)


def test_the_readme_lists_exactly_the_policies():
    assert readme_policies(README) == list(cw.POLICIES)


def test_the_semantics_page_lists_exactly_the_policies():
    assert semantics_policies((ROOT / "docs" / "semantics.md").read_text(encoding="utf-8")) == list(cw.POLICIES)


def contract_policies(text: str) -> list[str]:
    row = re.search(r"^\| `policy` \| (.+?) \|", text, re.MULTILINE)
    assert row, "the diagram's contract has a `policy` row listing the policies"
    return re.findall(r'"([^"]+)"', row.group(1))


def test_the_diagram_contract_lists_exactly_the_policies():
    contract = (ROOT / "js" / "diagram" / "CONTRACT.md").read_text(encoding="utf-8")
    assert contract_policies(contract) == list(cw.POLICIES)


def test_the_policy_readers_see_a_list_that_differs():
    assert readme_policies("Policies: `cw.POLICIES` = `none`, `dilate`.") == ["none", "dilate"]
    assert semantics_policies("### Policies\n\n- `none`\n- `squash`\n\n### Next\n- `x`\n") == ["none", "squash"]
    assert contract_policies('| `policy` | "none" \\| "squash" | live |') == ["none", "squash"]


# -- the layout -------------------------------------------------------------------------------------


def layout_claims(text: str) -> tuple[list[str], list[str]]:
    """The Layout section's names that do not resolve, and the layer folders it does not name.

    A backticked path (with a ``/``) must exist; a backticked bare name in a bullet about one
    folder of the package must be a module there (``diagram`` → views/diagram.py) or a name that
    package exports (``load``)."""
    import importlib

    body = section(text, "## Layout")
    missing = []
    for bullet in re.split(r"\n(?=- )", body):
        folder = re.match(r"- `(campaign_widget/[\w/]*)`", bullet)
        for name in re.findall(r"`([\w./]+)`", bullet):
            if "/" in name:
                if not (ROOT / name).exists():
                    missing.append(name)
            elif folder:
                where = ROOT / folder.group(1)
                module = importlib.import_module(folder.group(1).rstrip("/").replace("/", "."))
                if not ((where / name).is_file() or (where / f"{name}.py").is_file() or hasattr(module, name)):
                    missing.append(f"{folder.group(1)}{name}")
    folders = sorted(
        p.parent.name for p in (ROOT / "campaign_widget").glob("*/__init__.py") if not p.parent.name.startswith("_")
    )
    unnamed = [f for f in folders if f"`campaign_widget/{f}/`" not in body]
    return missing, unnamed


def test_the_layout_names_what_exists_and_every_layer_folder():
    missing, unnamed = layout_claims(README)
    assert missing == [] and unnamed == []
    assert "`campaign_widget/views/`" in section(README, "## Layout")  # the section was read


def test_the_layout_check_finds_a_stale_name_and_a_folder_left_out():
    stale = "## Layout\n\n- `campaign_widget/views/`: `widget`, `dataflow`.\n- `js/nowhere.js`\n"
    missing, unnamed = layout_claims(stale)
    assert missing == ["campaign_widget/views/widget", "js/nowhere.js"]
    assert "model" in unnamed and "views" not in unnamed


# -- paths the prose names --------------------------------------------------------------------------

PATH_ROOTS = ("campaign_widget/", "js/", "tests/", "docs/", "benchmarks/", "notebooks/", ".ci/")


def named_paths_missing(text: str) -> list[str]:
    """Backticked repository paths that do not exist (templates such as ``tests/test_<format>.py`` and
    globs are not paths)."""
    names = re.findall(r"`([\w./-]+)`", text)
    return sorted({n for n in names if n.startswith(PATH_ROOTS) and not (ROOT / n.split("#")[0]).exists()})


def test_every_path_the_readme_and_contributing_name_exists():
    for name in ("README.md", "CONTRIBUTING.md"):
        assert named_paths_missing((ROOT / name).read_text(encoding="utf-8")) == [], name


def test_the_path_check_finds_a_moved_file():
    assert named_paths_missing("see `campaign_widget/settings.py` and `campaign_widget/model/settings.py`") == [
        "campaign_widget/settings.py"
    ]


# -- no path of one machine -------------------------------------------------------------------------

#: The roots of a build machine's own files; a path under them means nothing on another machine.
MACHINE_PATH = re.compile("/" + "(?:work|root|home)" + "/")
#: (file, text) pairs that match and are not this machine's: a sample Nsight log line names the
#: profiled program's path on the machine that ran it.
NOT_OURS = {("tests/test_nsight_exports.py", "/" + "home/u/gemm")}


def machine_paths(files: list[Path], root: Path = ROOT) -> list[str]:
    found = []
    for path in files:
        relative = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if MACHINE_PATH.search(line) and not any(relative == f and text in line for f, text in NOT_OURS):
                found.append(f"{relative}:{number}: {line.strip()[:120]}")
    return found


def repository_files(suffixes=(".py", ".md", ".sh", ".js", ".toml", ".yml", ".yaml", ".cfg")) -> list[Path]:
    return sorted(
        p
        for p in ROOT.rglob("*")
        if p.is_file()
        and (p.suffix in suffixes or p.parent.name == ".ci")
        and not SKIPPED_FOLDERS & set(p.relative_to(ROOT).parts)
    )


def test_no_file_names_a_path_of_one_machine():
    files = repository_files()
    assert ROOT / "tests" / "browser" / "conftest.py" in files and ROOT / ".ci" / "run" in files
    assert machine_paths(files) == []


def test_the_machine_path_check_finds_one(tmp_path):
    (tmp_path / "tests").mkdir()
    sample = tmp_path / "tests" / "x.py"
    sample.write_text("ok = 1\nsee = '" + "/" + "work/shared/notes.md'\n")
    assert machine_paths([sample], tmp_path) == ["tests/x.py:2: see = '" + "/" + "work/shared/notes.md'"]
    sample.write_text("line = '(" + "/" + "home/u/gemm)'\n")
    assert machine_paths([sample], tmp_path) == ["tests/x.py:1: line = '(" + "/" + "home/u/gemm)'"]
    allowed = tmp_path / "tests" / "test_nsight_exports.py"
    allowed.write_text("line = '(" + "/" + "home/u/gemm)'\n")
    assert machine_paths([allowed], tmp_path) == []


# -- which displays carry a PNG -----------------------------------------------------------------------

VIEWS = {  # every view class → its module
    "CampaignDiagram": "diagram",
    "StackedDiagrams": "stack",
    "Explorer": "explorer",
    "RooflineView": "roofline",
    "RooflinePlot": "roofline_canvas",
    "DataflowView": "dataflow",
    "LocalView": "local",
    "SweepView": "sweep",
    "SweepHeatmap": "sweep_canvas",
}


def view_class(name: str):
    import importlib

    return getattr(importlib.import_module(f"campaign_widget.views.{VIEWS[name]}"), name)


def carries_png(cls) -> bool:
    """Whether a view's notebook display adds a PNG of its figure: it draws one with no browser
    (``savefig``) and its display bundle goes through ``with_static_png``."""
    import inspect

    from campaign_widget.views.base import ViewWidget

    if not hasattr(cls, "savefig"):
        return False
    owner = next(k for k in cls.__mro__ if "_repr_mimebundle_" in vars(k))
    return owner is ViewWidget or "with_static_png" in inspect.getsource(owner._repr_mimebundle_)


def readme_png_views(text: str) -> list[str]:
    match = re.search(r"The notebook displays of ((?:`\w+`(?:,\s+|\s+and\s+)?)+)", text)
    assert match, "the README names the views whose display carries a PNG: The notebook displays of `A`, …"
    return re.findall(r"`(\w+)`", match.group(1))


def test_the_readme_names_exactly_the_views_whose_display_carries_a_png():
    carrying = sorted(name for name in VIEWS if carries_png(view_class(name)))
    assert sorted(readme_png_views(README)) == carrying


def test_a_view_without_savefig_carries_no_png():
    class NoFigure:
        def _repr_mimebundle_(self, **kwargs):
            return {}

    assert not carries_png(NoFigure) and carries_png(view_class("CampaignDiagram"))
    assert readme_png_views("The notebook displays of `A` and `B` carry") == ["A", "B"]
