"""Stacked panels' titles: makespans in the unit of the time axis, a slowdown said as such."""

import workloads

from campaign_widget import StackedDiagrams, Workload
from campaign_widget.views.stack import panel_title


def _scaled(scale: float) -> Workload:
    return workloads.two_phases(scale=scale)


def test_titles_read_in_the_axis_unit_and_say_slower_not_a_fraction():
    # microsecond-long phases; the second panel is 25 times longer than the first
    fast, slow = _scaled(1e-6), _scaled(25e-6)
    stack = StackedDiagrams({"fast": fast, "slow": slow})
    first, second = (d.title for d in stack.diagrams.values())
    assert stack.diagrams["fast"].units["time"] == "s"
    # the shared axis reaches 325 µs: both makespans in µs, 3 significant digits
    assert first == "fast: makespan 13 µs", first
    assert second == "slow: makespan 325 µs, 25× slower than fast", second
    assert "e-" not in first + second and "0.04" not in second


def test_a_panel_faster_than_the_first_and_one_as_fast():
    assert panel_title("b", 2.0, "s", end=5.0, speedup=2.5, against="a") == "b: makespan 2 s, 2.5× faster than a"
    assert panel_title("b", 5.0, "s", end=5.0, speedup=1.0, against="a") == "b: makespan 5 s, same time as a"
    assert panel_title("a", 0.000134374, "s", end=0.0005, speedup=None, against="a") == "a: makespan 134.4 µs"


def test_each_panel_its_own_axis_gives_each_title_its_own_unit():
    stack = StackedDiagrams({"fast": _scaled(1e-6), "slow": _scaled(25e-3)}, shared_time=False)
    first, second = (d.title for d in stack.diagrams.values())
    assert first == "fast: makespan 13 µs" and second.startswith("slow: makespan 325 ms"), (first, second)
