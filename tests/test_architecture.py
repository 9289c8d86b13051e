"""The layout's rules, read from the code: no import cycle between the package's modules (imports
inside functions count too), and the model never imports the widgets."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "campaign_widget"
WIDGETS = {
    "widget",
    "dataflow_view",
    "local_view",
    "roofline_view",
    "roofline_plot",
    "explorer",
    "stack",
    "sweep_view",
    "sweep_plot",
    "marimo_display",
}


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


def _runtime_nodes(tree: ast.AST):
    """Every node but those under ``if TYPE_CHECKING:`` (names for annotations, never imported)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                todo.extend(child.orelse)
                continue
            todo.append(child)


def import_graph() -> dict[str, set[str]]:
    """Module → the package modules it imports, at module level or inside any function."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
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


# The one call up a layer: ``workload.save(path)`` and ``Workload.load(path)`` are the documented
# spellings of ``campaign_widget.io.save``/``load``, so those two methods import the file layer when
# called (never at import). Any other arrow that closes a cycle fails the test.
ALLOWED_UPWARD = {("campaign_widget.workload", "campaign_widget.io")}


def test_no_import_cycle_deferred_imports_included():
    graph = import_graph()
    for source, target in ALLOWED_UPWARD:
        graph[source].discard(target)
    assert cycles(graph) == []


def test_the_allowed_upward_import_is_only_the_file_methods():
    text = (PACKAGE / "workload.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    users = {
        function.name
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.ImportFrom) and node.level == 1 and (node.module or "").split(".")[0] == "io"
    }
    assert users == {"save", "load"}


def test_the_cycle_check_can_fail():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_model_never_imports_the_widgets():
    graph = import_graph()
    widget_modules = {f"campaign_widget.{name}" for name in WIDGETS}
    above_the_model = widget_modules | {"campaign_widget", "campaign_widget.cli", "campaign_widget.static_figure"}
    for module, targets in graph.items():
        if module in above_the_model or module.startswith("campaign_widget.static_figure."):
            continue
        reached = sorted(targets & widget_modules)
        assert not reached, f"{module} imports widget modules {reached}"


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
