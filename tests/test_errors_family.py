"""One error family: every exception class of the package is a ``CampaignWidgetError``, and the package raises
no bare ``ValueError`` or ``TypeError`` of its own (``WrongTypeError`` is both a family member and a TypeError)."""

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import campaign_widget
from campaign_widget.errors import CampaignWidgetError

PACKAGE = Path(campaign_widget.__file__).parent

#: Where no bare ValueError/TypeError may be made: every folder and top-level module of the package.
SCOPE = tuple(sorted(p.name for p in PACKAGE.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()))

#: (module path, function) that still make a bare builtin, and why.
ALLOWED = {
    (
        "model/expr.py",
        "_whole_array",
    ): "control flow: raised and caught in the same function, which raises an ExpressionError",
}

BUILTINS = {"ValueError", "TypeError"}


def _sources():
    for entry in SCOPE:
        path = PACKAGE / entry
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


def bare_builtins(tree: ast.AST) -> list[tuple[str, int]]:
    """(enclosing function, line) of each bare ValueError/TypeError made (called, or raised by its name)."""
    found = []

    def visit(node, function):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
        made = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BUILTINS
        raised = isinstance(node, ast.Raise) and isinstance(node.exc, ast.Name) and node.exc.id in BUILTINS
        if made or raised:
            found.append((function, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, "<module>")
    return found


def test_the_scope_names_what_there_is():
    assert [entry for entry in SCOPE if not (PACKAGE / entry).exists()] == []


def test_no_bare_value_or_type_error_is_raised_in_scope():
    found = []
    for path in _sources():
        where = path.relative_to(PACKAGE).as_posix()
        for function, line in bare_builtins(ast.parse(path.read_text(encoding="utf-8"))):
            if (where, function) not in ALLOWED:
                found.append(f"{where}:{line} in {function}")
    assert found == []


def test_every_allowed_bare_builtin_is_still_there():
    """An entry of ALLOWED whose bare builtin is gone is removed, so the list only shrinks."""
    present = {
        (path.relative_to(PACKAGE).as_posix(), function)
        for path in _sources()
        for function, _ in bare_builtins(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert sorted(set(ALLOWED) - present) == []


def test_the_finder_sees_raises_calls_and_names():
    tree = ast.parse(
        "def f():\n    raise ValueError('x')\n"
        "def g():\n    return TypeError('y')\n"
        "def h():\n    raise TypeError\n"
        "def ok():\n    try:\n        pass\n    except ValueError:\n        raise WorkloadError('z') from None\n"
    )
    assert bare_builtins(tree) == [("f", 2), ("g", 4), ("h", 6)]


def _modules():
    for info in pkgutil.walk_packages(campaign_widget.__path__, "campaign_widget."):
        yield importlib.import_module(info.name)


def test_every_exception_class_of_the_package_is_a_campaign_widget_error():
    """Warnings are exceptions to Python but not errors: they stay ``Warning``s."""
    strays = sorted(
        f"{module.__name__}.{name}"
        for module in _modules()
        for name, cls in inspect.getmembers(module, inspect.isclass)
        if cls.__module__ == module.__name__
        and issubclass(cls, BaseException)
        and not issubclass(cls, (CampaignWidgetError, Warning))
    )
    assert strays == []
