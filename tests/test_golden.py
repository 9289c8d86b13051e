"""The golden cases shared with node (tests/data/golden/*.json, js/test/golden.test.js): the static
figure formats, ticks and aggregates exactly as the browser view does."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from campaign_widget.figures.scene_pixels import merge_pixel_columns
from campaign_widget.figures.ticks import time_ticks, utilization_ticks
from campaign_widget.formatting import (
    LABEL_MAX_CHARS,
    LEGEND_MAX_ENTRIES,
    format_percent,
    format_quantity,
    format_si,
    format_span,
    format_ticks,
    legend_selection,
    more_label,
    shorten_middle,
    time_unit_for,
)

GOLDEN = Path(__file__).parent / "data" / "golden"


def golden(name):
    return json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))


def num(v):
    return math.nan if v is None else v


@pytest.mark.parametrize("case", golden("format")["si"], ids=str)
def test_format_si(case):
    (v, unit, digits), want = case
    assert format_si(num(v), unit, digits) == want


@pytest.mark.parametrize("case", golden("format")["quantity"], ids=str)
def test_format_quantity(case):
    (v, unit, digits), want = case
    assert format_quantity(num(v), unit, digits) == want


def test_percent_span_and_tick_labels():
    g = golden("format")
    assert [format_percent(v) for v, _ in g["percent"]] == [want for _, want in g["percent"]]
    assert [format_span(a, b) for (a, b), _ in g["span"]] == [want for _, want in g["span"]]
    for (values, step, unit), want in g["ticks"]:
        assert format_ticks(values, step, unit) == want


def test_axis_ticks():
    g = golden("ticks")
    for args, want in g["time"]:
        t0, t1, px, *factor = args
        assert [[float(f"{v:.12g}"), label] for v, label in time_ticks(t0, t1, px, *factor)] == want
    for (unit, end), (factor, display) in g["time_unit"]:
        got = time_unit_for(unit, end)
        assert got[1] == display and got[0] == pytest.approx(factor, rel=1e-9)
    for args, want in g["utilization"]:
        got = utilization_ticks(args["mode"], args["peak"], args["unit"], args["pixelsPerUnit"], args["top"])
        assert [[float(f"{y:.12g}"), label] for y, label in got] == want, args


@pytest.mark.parametrize("case", golden("aggregate")["cases"], ids=lambda case: case["name"])
def test_per_pixel_merging(case):
    dtypes = {"phase": np.int64, "flags": np.uint8}
    pieces = {
        key: np.array([num(v) for v in values], dtypes.get(key, np.float64)) for key, values in case["scene"].items()
    }
    drawn = merge_pixel_columns(pieces, case["t0"], case["t1"], case["columns"], limit=case["limit"])
    keys = case["expected"][0].keys()
    got = [{key: float(f"{float(drawn[key][k]):.7g}") for key in keys} for k in range(drawn["x0"].size)]
    want = [{key: num(value) for key, value in record.items()} for record in case["expected"]]
    assert str(got) == str(want)  # in draw order; str() so that NaN equals NaN


def test_legend_rule():
    """The legend's caps (formatting.py), kept as golden cases so the browser's legend can follow them."""
    g = golden("legend")
    assert (g["max_entries"], g["max_chars"]) == (LEGEND_MAX_ENTRIES, LABEL_MAX_CHARS)
    for (name, max_chars), want in g["shorten_middle"]:
        assert shorten_middle(name, max_chars) == want
    for (weights, max_entries), (shown, hidden) in g["selection"]:
        assert legend_selection(weights, max_entries) == (shown, hidden)
    for hidden, want in g["more"]:
        assert more_label(hidden) == want
