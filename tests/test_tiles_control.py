"""The diagram's tiles control: its range grows with the workload, and a typed count is checked in
Python (widget.tiles_slider_max; the view's number box sends what was typed)."""

from __future__ import annotations

import pytest
from workloads import chain, two_phases

from campaign_widget import CampaignDiagram
from campaign_widget.views.diagram import MAX_VIEW_PIECES, tiles_slider_max


def long_chain(phases: int):
    return chain(*[(f"P{i}", 1.0, 0.3, 0.4) for i in range(phases)])


def test_the_slider_reaches_four_tiles_per_phase():
    assert CampaignDiagram(two_phases()).tiles_max == 64, "a small workload keeps the 64 a person expects"
    many = long_chain(31)
    assert CampaignDiagram(many).tiles_max == 4 * 31
    assert CampaignDiagram(many, tiles=50).tiles_max == 200, "and four times the tiles asked"


def test_the_slider_never_reaches_past_what_a_view_can_be_sent():
    huge = long_chain(40_000)
    assert tiles_slider_max(huge, 1) == MAX_VIEW_PIECES // 40_000
    assert tiles_slider_max(long_chain(1), 10**7) == 10**6, "MAX_TILES_SLIDER"
    assert tiles_slider_max(long_chain(2), 10**7) == MAX_VIEW_PIECES // 2


def test_a_new_workload_gets_its_own_range():
    diagram = CampaignDiagram(two_phases())
    diagram.set_workload(long_chain(40))
    assert diagram.tiles_max == 160


def test_a_typed_count_past_the_end_is_taken_and_the_slider_grows():
    diagram = CampaignDiagram(two_phases())
    diagram.set_state({"tiles": 500})  # from the view's number box
    assert diagram.tiles == 500
    assert diagram.tiles_max >= 1000
    assert diagram.warnings == []


@pytest.mark.parametrize(
    ("typed", "said"),
    [(0, "tiles=0 must be >= 1"), (-3, "tiles=-3 must be >= 1"), (2.5, "tiles=2.5 must be a whole number")],
)
def test_a_typed_count_python_refuses_is_said_and_not_stored(typed, said):
    diagram = CampaignDiagram(two_phases(), tiles=4)
    sent = []
    diagram.send_state = lambda key=None: sent.append(key)
    diagram.set_state({"tiles": typed})
    assert diagram.tiles == 4
    assert any(said in line for line in diagram.warnings), diagram.warnings
    assert sent and "tiles" in sent[-1], "the number box goes back to the kernel's value"


def test_setting_tiles_from_python_names_the_field_and_the_value():
    diagram = CampaignDiagram(two_phases())
    with pytest.raises(Exception, match=r"tiles=0 must be >= 1"):
        diagram.tiles = 0
