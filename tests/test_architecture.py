"""The layout's rules, read from the code: layers as folders, every import pointing down a layer, and
no import cycle between the package's modules (imports inside functions and under TYPE_CHECKING count)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "campaign_widget"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py") if "static" not in p.parts}


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def import_graph() -> dict[str, set[str]]:
    """Module → the package modules it imports: at module level, inside any function, and under
    ``if TYPE_CHECKING:`` alike (an annotation's import is an arrow too)."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = _resolve(module, is_package, node.level, node.module)
                else:
                    base = node.module or ""
                # ``from pkg import mod`` depends on pkg.mod; ``from mod import name`` on mod
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in targets:
                # the deepest package module the import names
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != module and target.startswith("campaign_widget"):
                    graph[module].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative). Arrows into the
    top-level ``campaign_widget`` are left out: it is the facade that re-exports every layer, and a
    module reaching it reaches the module that defines the name."""

    def edges(m: str):
        return (t for t in graph[m] if t != "campaign_widget")

    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(edges(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges(child))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


#: The layers, from the ground up (docs/architecture.md). A module imports only from its own layer
#: or the ones below it. The ground is the package's own top-level modules (but ``cli``).
LAYERS = ("ground", "model", "cache", "io", "sweep", "job", "figures", "static_figure", "views", "facade", "cli")


def layer(module: str) -> str:
    parts = module.split(".")
    if parts == ["campaign_widget"]:
        return "facade"
    if len(parts) == 2 and not (PACKAGE / parts[1]).is_dir():
        return "cli" if parts[1] == "cli" else "ground"
    return parts[1]


def test_every_module_stands_in_a_layer():
    assert sorted({layer(m) for m in _modules()} - set(LAYERS)) == []


def test_no_import_cycle_type_checking_and_deferred_imports_included():
    assert cycles(import_graph()) == []


def test_every_import_points_down_a_layer():
    upward = sorted(
        f"{module} ({layer(module)}) -> {target} ({layer(target)})"
        for module, targets in import_graph().items()
        for target in targets
        if LAYERS.index(layer(target)) > LAYERS.index(layer(module))
    )
    assert upward == []


def test_the_cycle_check_can_fail():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_is_over_800_lines():
    long = {m: n for m, p in _modules().items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800}
    assert long == {}


def test_the_top_level_holds_at_most_twelve_modules():
    assert len(list(PACKAGE.glob("*.py"))) <= 12


def test_no_private_name_crosses_from_a_public_module():
    """A module's ``_name`` stays in it; names a package's modules share live in a private module
    (``_paths.py``), as anywidget keeps its ``_util``."""
    crossings = []
    for module, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                source = node.module.split(".")[-1]
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__") and not source.startswith("_"):
                        crossings.append(f"{module}: from {node.module} import {alias.name}")
    assert crossings == []
