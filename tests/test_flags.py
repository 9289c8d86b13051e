"""On/off arguments of the model and the cache model are checked by one function
(``campaign_widget.errors.check_flag``): True or False (numpy's too) are taken, a truthy stand-in
is refused in the same words, as a TypeError unless the argument's family of errors is another."""

from __future__ import annotations

import numpy as np
import pytest

from campaign_widget import CacheModelError, Machine, Phase, ScheduleError, Workload
from campaign_widget.cache import Cache
from campaign_widget.cache.hierarchy import levels_of
from campaign_widget.errors import check_flag
from campaign_widget.model.transformer import transformer_phases

M = Machine(1e12, 1e11)

FLAGS = {
    "Phase tileable": (lambda v: Phase("A", ops=1, bytes=1, tileable=v).tileable, TypeError, "phase 'A': tileable"),
    "schedule pipeline": (
        lambda v: Workload(
            [Phase("A", duration=1, compute_util=0.5, memory_util=0.5)], settings={"pipeline": v}
        ).settings["pipeline"],
        ScheduleError,
        "pipeline",
    ),
    "Machine normalized": (
        lambda v: Machine(1, 1, name="m", normalized=v).normalized,
        TypeError,
        "machine 'm': normalized",
    ),
    "transformer flash_attention": (
        lambda v: transformer_phases("llama-2-7b", batch=1, seq=16, flash_attention=v) is not None,
        TypeError,
        "flash_attention",
    ),
    "cache inclusive": (lambda v: bool(levels_of([Cache(lines=16)], inclusive=v)), CacheModelError, "inclusive"),
}


@pytest.mark.parametrize("name", FLAGS)
@pytest.mark.parametrize("value", [True, False, np.True_, np.False_], ids=str)
def test_true_and_false_are_taken_numpys_too(name, value):
    taken, _, _ = FLAGS[name]
    result = taken(value)
    assert type(result) is bool and (name.startswith(("transformer", "cache")) or result is bool(value))


@pytest.mark.parametrize("name", FLAGS)
@pytest.mark.parametrize("value", ["yes", "false", 1, 0, None], ids=repr)
def test_a_truthy_stand_in_is_refused_in_one_set_of_words(name, value):
    taken, error, what = FLAGS[name]
    with pytest.raises(error, match=rf"^{what}={value!r} must be True or False$"):
        taken(value)


def test_check_flag_returns_a_python_bool_and_raises_the_type_asked_for():
    assert check_flag(np.True_, "x") is True
    with pytest.raises(TypeError, match=r"^x='on' must be True or False$"):
        check_flag("on", "x")
    with pytest.raises(ScheduleError, match=r"^x=2 must be True or False$"):
        check_flag(2, "x", ScheduleError)
