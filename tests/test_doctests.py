"""Every docstring example in the package runs and gives what it shows."""

import doctest
import importlib
import pkgutil

import pytest

import campaign_widget

MODULES = sorted(m.name for m in pkgutil.walk_packages(campaign_widget.__path__, "campaign_widget."))


def test_the_modules_are_found():
    assert {
        "campaign_widget.model.workload",
        "campaign_widget.model.expr",
        "campaign_widget.io.schema",
        "campaign_widget.static_figure",
    } <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
