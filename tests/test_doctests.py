"""The examples in the docstrings run."""

import doctest
import importlib

import pytest

MODULES = ["campaign_widget.machine", "campaign_widget.phase", "campaign_widget.workload", "campaign_widget.roofline",
           "campaign_widget.einsum"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
