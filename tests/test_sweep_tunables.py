"""A sweep tunable set on the package survives patch-and-restore, whichever way a test tool restores it."""

from __future__ import annotations

import importlib
import pickle

import pytest

from campaign_widget.sweep import _tuning

sweep = importlib.import_module("campaign_widget.sweep")  # the package (campaign_widget.sweep is the function)


@pytest.mark.parametrize("name", _tuning.TUNABLE)
def test_a_patched_tunable_is_restored_by_monkeypatch(name):
    before = getattr(_tuning, name)
    patch = pytest.MonkeyPatch()
    patch.setattr(sweep, name, 3)
    assert getattr(_tuning, name) == 3 and getattr(sweep, name) == 3
    patch.undo()
    assert getattr(_tuning, name) == before and getattr(sweep, name) == before


def test_restoring_by_the_saved_value_or_by_the_module_dict_both_work():
    before = _tuning.MAX_CONFIGURATIONS
    # the older pytest: read the value, set it back
    saved = sweep.MAX_CONFIGURATIONS
    sweep.MAX_CONFIGURATIONS = 5
    sweep.MAX_CONFIGURATIONS = saved
    assert _tuning.MAX_CONFIGURATIONS == before
    # pytest ≥ 9.2 looks in the module's __dict__ only where no data descriptor stands in the way
    assert "MAX_CONFIGURATIONS" not in vars(sweep)
    assert isinstance(type(sweep).__dict__["MAX_CONFIGURATIONS"], property)


def test_deleting_a_tunable_says_what_to_do_instead():
    with pytest.raises(AttributeError, match="set it to another value instead"):
        del sweep.MAX_CONFIGURATIONS
    assert sweep.MAX_CONFIGURATIONS == _tuning.MAX_CONFIGURATIONS


def test_the_package_still_pickles_by_name():
    assert pickle.loads(pickle.dumps(sweep)) is sweep
