"""A page written by ``views.page`` asks its host for one missing-kernel note, at its top, for all its
views (rather than one per view); the host brings the views' own words for it. What the page shows
in a browser is tests/browser/test_static_html.py."""

import json
import re
from pathlib import Path

from workloads import figure_2b, mlp_einsums

import campaign_widget as cw
from campaign_widget.views import page as html_export

KERNEL_JS = Path(__file__).parents[1] / "js" / "shared" / "kernel.js"


def test_a_page_of_views_asks_for_one_note_for_the_page():
    explorer = cw.Explorer(mlp_einsums(), dataflow=True)
    data = html_export.Page().add(explorer).data()
    assert len(data["models"]) == 3  # diagram, roofline, dataflow view: one note for the three
    assert data["kernel_note"] is True
    assert html_export.Page().add(cw.CampaignDiagram(figure_2b())).data()["kernel_note"] is True


def test_a_page_with_no_view_asks_for_no_note():
    assert html_export.Page().data()["kernel_note"] is False
    assert html_export.Page().text("only words").data()["kernel_note"] is False


def test_the_pages_host_words_the_note_as_the_views_do(tmp_path):
    (note,) = re.findall(r'export const NO_KERNEL_NOTE = (".*?");', KERNEL_JS.read_text(encoding="utf-8"))
    path = cw.CampaignDiagram(figure_2b()).to_html(tmp_path / "fig.html")
    host = path.read_text(encoding="utf-8").split('<script type="module">', 1)[1]
    assert json.loads(note) in host
