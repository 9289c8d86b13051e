"""Every tool the tests need is pinned: a fresh machine installs the versions the suite passed with.

`constraints.txt` (made by `uv pip compile`, its header says how; CONTRIBUTING.md, "Pinned tools") pins
every distribution of the lab, test, dev, docs, jax and dace extras. The test command installs through it, so
every third-party module a test imports must be pinned there, and the build back end the editable
install runs must be the pinned one. PyTorch is the one exception: tests/run-all.sh pins its CPU build
itself (a plain `torch` pin would pull the CUDA build).
"""

import ast
import os
import re
import sys
from importlib.metadata import packages_distributions
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest's own TOML reader, pinned there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "constraints.txt"
RUN_ALL = ROOT / "tests" / "run-all.sh"
#: Fixture makers, run by hand with the tools that wrote the files they make (tests/data/SOURCES.md):
#: no test runs them, so their imports (DaCe, the paper authors' tool) are not the suite's.
FIXTURE_MAKERS = "make_*.py"


def normalized(name: str) -> str:
    """A distribution's name as PEP 503 compares names."""
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(text: str) -> dict[str, set[str]]:
    """Distribution → the versions pinned for it (one per environment marker)."""
    found: dict[str, set[str]] = {}
    for line in text.splitlines():
        match = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;]+)", line)
        if match:
            found.setdefault(normalized(match.group(1)), set()).add(match.group(2))
    return found


def imported_top_modules(path: Path) -> set[str]:
    """The top-level names of every absolute import in one file, in-function ones included."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def suite_files() -> list[Path]:
    data = ROOT / "tests" / "data"
    return sorted(p for p in (ROOT / "tests").rglob("*.py") if not (p.is_relative_to(data) and p.match(FIXTURE_MAKERS)))


def our_modules() -> set[str]:
    """Every module name the repository itself provides: the package, test helpers, notebook and data
    apps, docs helpers (a ``name.py`` or a ``name/__init__.py`` anywhere outside installed trees)."""
    skip = {"node_modules", ".git", "build", "test-artifacts", "__pycache__"}
    names = set()
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if d not in skip]
        names |= {f[:-3] for f in files if f.endswith(".py")}
        if "__init__.py" in files:
            names.add(Path(folder).name)
    return names


def third_party_imports(files: list[Path]) -> dict[str, list[str]]:
    """Third-party top-level module → the test files importing it."""
    found: dict[str, list[str]] = {}
    ours = our_modules()
    for path in files:
        for module in imported_top_modules(path):
            if module in sys.stdlib_module_names or module in ours:
                continue
            found.setdefault(module, []).append(str(path.relative_to(ROOT)))
    return found


def unpinned(imports: dict[str, list[str]], pinned: dict[str, set[str]], pinned_elsewhere: set[str]) -> list[str]:
    """What the tests import with no pin: a module whose distribution constraints.txt does not pin, or
    one that no installed distribution provides and no pin is named after."""
    providers = packages_distributions()
    missing = []
    for module, files in sorted(imports.items()):
        dists = {normalized(d) for d in providers.get(module, [])}
        if not dists and normalized(module) not in pinned:  # e.g. tomli, pinned for Python 3.10 only
            missing.append(f"{module} (no installed distribution provides it; imported by {files[0]})")
        elif dists and not dists & (set(pinned) | pinned_elsewhere):
            missing.append(f"{module} ({', '.join(sorted(dists))}; imported by {files[0]})")
    return missing


def torch_pin() -> str | None:
    match = re.search(r'pip install -q (?:-c constraints\.txt )?"?torch==([0-9][^"\s]*)"?', RUN_ALL.read_text())
    return match.group(1) if match else None


def test_every_third_party_module_the_tests_import_is_pinned():
    imports = third_party_imports(suite_files())
    assert {"numpy", "pytest", "hypothesis", "playwright"} <= set(imports)  # the walk sees the suite
    assert torch_pin() is not None, "tests/run-all.sh installs torch==<version>"
    assert unpinned(imports, pins(CONSTRAINTS.read_text()), {"torch"}) == []


def test_the_check_finds_a_module_constraints_do_not_pin():
    pinned = pins(CONSTRAINTS.read_text())
    without_numpy = {name: versions for name, versions in pinned.items() if name != "numpy"}
    assert unpinned({"numpy": ["tests/x.py"]}, without_numpy, set()) == ["numpy (numpy; imported by tests/x.py)"]
    assert unpinned({"no_such_module_here": ["tests/x.py"]}, pinned, set())[0].startswith("no_such_module_here (no ")


def test_constraints_pin_every_requirement_of_the_project_and_its_extras():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in ("lab", "test", "dev", "docs", "jax", "dace"):  # the extras the header's command compiles
        wanted += project["optional-dependencies"][extra]
    pinned = pins(CONSTRAINTS.read_text())
    names = {normalized(re.match(r"[A-Za-z0-9._-]+", req).group(0)) for req in wanted}
    assert sorted(names - set(pinned)) == []
    assert "uv pip compile pyproject.toml" in CONSTRAINTS.read_text().splitlines()[1]  # how to refresh


def test_the_build_back_end_is_the_pinned_one():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    build = pyproject["build-system"]["requires"]
    hook = pyproject["tool"]["hatch"]["build"]["hooks"]["jupyter-builder"]["dependencies"]
    pinned = pins(CONSTRAINTS.read_text())
    assert len(build) >= 2 and hook
    for requirement in build + hook:
        name, _, version = requirement.partition("==")
        assert version, f"{requirement}: the build-system requires are exact pins"
        assert {version} == pinned.get(normalized(name)), f"{requirement} is not constraints.txt's pin"


def test_the_test_commands_install_through_the_constraints():
    command = 'python -m pip install -q -c constraints.txt -e ".[lab,test,jax,dace]"'
    assert command in RUN_ALL.read_text()
    assert command in (ROOT / ".ci" / "run").read_text()
    assert 'python -m pip install -c constraints.txt -e ".[lab,test]"' in (ROOT / "README.md").read_text()
