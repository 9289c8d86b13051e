"""An Explorer's theme is every part's: what Jupyter shows, and what marimo and a page show for it
(the roofline's canvas twin), diagram, roofline and dataflow view alike."""

import pytest
from workloads import mlp_einsums

import campaign_widget as cw
from campaign_widget.views.base import ViewWidget
from campaign_widget.views.composite import JUPYTER, MARIMO, PAGE, shown


@pytest.mark.parametrize("host", [JUPYTER, MARIMO, PAGE])
@pytest.mark.parametrize("theme", ["dark", "light"])
def test_every_part_of_an_explorer_has_its_theme(host, theme):
    explorer = cw.Explorer(mlp_einsums(), theme=theme, dataflow=True)
    views = [widget for widget in shown(explorer._layout(), host) if isinstance(widget, ViewWidget)]
    # Jupyter shows the bqplot roofline (JupyterLab's own theme); the other hosts its canvas twin
    expected = {type(explorer.diagram), type(explorer.dataflow)}
    if host != JUPYTER:
        expected.add(type(explorer.roofline_plot))
    assert {type(view) for view in views} == expected
    assert {type(view).__name__: view.theme for view in views} == {cls.__name__: theme for cls in expected}
