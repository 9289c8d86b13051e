"""Hardening, round two: a PNG reply that cannot be used never leaves ``save_png`` waiting, and the
public calls below refuse what they cannot use with the argument named (a TypeError for a wrong type,
a ``CampaignWidgetError`` for a wrong value) instead of taking a truthy string as on, truncating a float
or handing it to numpy, ``re`` or ``pathlib``."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from campaign_widget import CampaignDiagram, CampaignWidgetError, Machine, Phase, StackedDiagrams, Workload, einsum
from campaign_widget.cache import Cache, CacheModelError, simulate, stack_distances, trace
from campaign_widget.errors import ScheduleError, WorkloadError
from campaign_widget.figures.colour_scale import severity, severity_rows
from campaign_widget.io import WorkloadFileError, load, read_sdfg, read_torch_trace
from campaign_widget.model.timeline import Timeline, from_intervals
from campaign_widget.views.browser_png import PngChannel

DATA = Path(__file__).parent / "data"
TORCH = DATA / "torch" / "gpu_linked.json"
M = Machine(1e12, 1e11, name="test")
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def two_phases() -> Workload:
    return Workload(
        [
            Phase("A", duration=3, compute_util=0.5, memory_util=0.2),
            Phase("B", duration=1, compute_util=0.1, memory_util=0.9, after=["A"]),
        ],
        machine=Machine(peak_compute=1, peak_bandwidth=1),
    )


# -- a PNG reply: judged before anything is consumed, and the export always finishes ---------------------


def asked(tmp_path, name="fig.png"):
    published = []
    channel = PngChannel(published.append)
    export = channel.request(tmp_path / name, 2, None)  # no time limit: only the reply can finish it
    return channel, export, published[-1][0]["id"], published


@pytest.mark.parametrize("side", ["width", "height"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, "1600", None, True, 0, -3, 2.5, 2**40])
def test_a_reply_with_a_size_that_is_no_whole_number_of_pixels_fails_the_export(tmp_path, side, value):
    channel, export, request_id, published = asked(tmp_path)
    reply = {"type": "png-reply", "id": request_id, "width": 1600, "height": 720, side: value}
    channel.on_message(reply, [memoryview(PNG)])  # returns: the handler never raises on a bad reply
    assert export.wait(0) and export.done  # a caller blocked in wait() is released
    assert side in export.error and "whole number of pixels" in export.error
    assert not (tmp_path / "fig.png").exists()  # nothing written from a reply that was refused
    assert published[-1] == []  # and nothing left pending for another view to draw again


def test_a_reply_without_a_size_fails_the_export_and_a_good_one_still_writes(tmp_path):
    channel, export, request_id, _ = asked(tmp_path)
    channel.on_message({"type": "png-reply", "id": request_id}, [memoryview(PNG)])
    assert export.done and "width=None" in export.error
    channel, export, request_id, _ = asked(tmp_path, "good.png")
    channel.on_message({"type": "png-reply", "id": request_id, "width": 1600.0, "height": 720}, [memoryview(PNG)])
    assert export.done and export.error is None and export.size == (1600, 720)
    assert (tmp_path / "good.png").read_bytes() == PNG


def test_a_write_that_fails_in_any_way_finishes_the_export(tmp_path, monkeypatch):
    channel, export, request_id, _ = asked(tmp_path)

    def refuses(path, data):
        raise CampaignWidgetError("no room for this file")

    monkeypatch.setattr("campaign_widget.views.browser_png.write_atomic", refuses)
    channel.on_message({"type": "png-reply", "id": request_id, "width": 10, "height": 10}, [memoryview(PNG)])
    assert export.done and "no room for this file" in export.error


def test_a_view_error_and_a_reply_of_no_request_are_bounded_and_harmless(tmp_path):
    channel, export, request_id, _ = asked(tmp_path)
    channel.on_message({"type": "png-reply", "id": ["not", "hashable"], "width": 1, "height": 1}, [memoryview(PNG)])
    assert not export.done  # not an answer to this request
    channel.on_message({"type": "png-error", "id": request_id, "message": "x" * 100_000}, [])
    assert export.done and len(export.error) <= 300


def test_the_widget_releases_a_waiting_save_png_on_a_nan_width(figure_2b, tmp_path):
    w = CampaignDiagram(figure_2b)
    export = w.save_png(tmp_path / "fig.png", timeout=None)
    reply = {"type": "png-reply", "id": w.png_requests[0]["id"], "width": math.nan, "height": 720}
    w._on_view_message(w, reply, [memoryview(PNG)])
    assert export.wait(0) and "width=nan" in export.error
    assert w.png_requests == [] and not (tmp_path / "fig.png").exists()


@pytest.mark.parametrize("name, named", [("fig.svg", "'.svg'"), ("fig.png.txt", "'.txt'"), ("figure", "no suffix")])
def test_save_png_refuses_a_suffix_other_than_png_naming_it(figure_2b, tmp_path, name, named):
    w = CampaignDiagram(figure_2b)
    with pytest.raises(CampaignWidgetError, match=f"{name}.*{named}"):
        w.save_png(tmp_path / name)
    assert w.png_requests == []
    assert w.save_png(tmp_path / "upper.PNG", timeout=None).path.name == "upper.PNG"


@pytest.mark.parametrize("path", [None, 3, b"fig.png"])
def test_save_png_names_a_path_that_is_no_path(figure_2b, path):
    with pytest.raises(TypeError, match="path="):
        CampaignDiagram(figure_2b).save_png(path)


# -- on/off options are True or False ------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, named",
    [
        (dict(timeline="yes"), "timeline='yes'"),
        (dict(timeline="false"), "timeline='false'"),
        (dict(timeline=1), "timeline=1"),
        (dict(warn="no"), "warn='no'"),
        (dict(progress="yes"), "progress='yes'"),
        (dict(timeline=True, progress="yes"), "progress='yes'"),
        (dict(timeline=True, warn="no"), "warn='no'"),
    ],
)
def test_the_torch_readers_refuse_truthy_values_as_options(options, named):
    with pytest.raises(TypeError, match=named):
        read_torch_trace(TORCH, machine=M, **options)
    with pytest.raises(TypeError, match=named):
        load(TORCH, machine=M, **options)


def test_the_torch_readers_take_true_false_none_and_a_callable():
    assert isinstance(read_torch_trace(TORCH, machine=M, timeline=True, warn=False), Timeline)
    calls = []
    timeline = read_torch_trace(TORCH, machine=M, timeline=True, warn=False, progress=lambda *a: calls.append(a))
    assert len(timeline) > 0 and calls
    assert isinstance(read_torch_trace(TORCH, machine=M, progress=False, warn=False), Workload)


@pytest.mark.parametrize("spec", [{"einsum": "C[i] = A[i] * B[i]", "ops_per_point": True}])
def test_ops_per_point_true_is_no_count_of_operations(spec):
    with pytest.raises(WorkloadError, match="ops_per_point=True"):
        einsum.parse("e", spec)
    with pytest.raises(WorkloadError, match="ops_per_point=True"):
        Workload.from_einsums({"e": spec}, {"i": 4}, machine=M)


# -- numbers are not coerced ---------------------------------------------------------------------------


def small_trace():
    return trace("C[i] = A[i]", {"i": 8}, elem_bytes=8)


@pytest.mark.parametrize("element", [2.5, 2.0, np.float64(2), "2", None, True, [1, 2.5]])
def test_element_indices_are_whole_numbers(element):
    t = small_trace()
    with pytest.raises(TypeError, match=r"element=.* must be a whole number"):
        t.element_address("A", element)
    assert int(t.element_address("A", 2)) == int(t.element_address("A", np.int32(2))) == 16


@pytest.mark.parametrize("call", ["element_address", "related", "index_values"])
def test_element_and_point_indices_past_the_tensor_are_refused(call):
    t = small_trace()
    with pytest.raises(CacheModelError, match=r"=8 is out of range: the indices run from 0 to 7"):
        t.index_values(8) if call == "index_values" else getattr(t, call)("A", 8)
    with pytest.raises(CacheModelError, match=r"=-1 is out of range"):
        t.index_values(-1) if call == "index_values" else getattr(t, call)("A", [0, -1])
    with pytest.raises(TypeError, match=r"=2.5 must be a whole number"):
        t.index_values(2.5) if call == "index_values" else getattr(t, call)("A", 2.5)


def test_same_line_takes_one_whole_element_and_a_tensor_name():
    t = small_trace()
    assert t.same_line("A", 3).tolist() == list(range(8))
    with pytest.raises(TypeError, match="element=2.5"):
        t.same_line("A", 2.5)
    with pytest.raises(TypeError, match=r"element=\[1, 2\] must be one flat element index"):
        t.same_line("A", [1, 2])
    with pytest.raises(TypeError, match="tensor=3 must be a tensor name"):
        t.element_address(3, 0)


@pytest.mark.parametrize("capacity", [math.nan, math.inf, 2.5, 2.0, "4", None, True, [2.5, 3]])
def test_misses_take_whole_capacities(capacity):
    d = stack_distances(small_trace())
    with pytest.raises(TypeError, match=r"capacity=.* must be a whole number"):
        d.misses(capacity)
    with pytest.raises(TypeError, match=r"capacity=.* must be a whole number"):
        simulate(small_trace(), Cache(lines=4)).fa_misses(capacity)


def test_misses_of_huge_and_small_capacities():
    d = stack_distances(trace("C[i,j] = A[i,k] * B[k,j]", {"i": 4, "j": 4, "k": 4}))
    assert d.misses(10**30) == d.misses(d.max + 1) == d.cold  # any capacity past the longest distance
    assert d.misses([1, 10**30]).tolist() == [d.misses(1), d.cold]
    assert d.misses(np.array([1, 2], np.uint8)).tolist() == [d.misses(1), d.misses(2)]
    with pytest.raises(CacheModelError, match="capacity=0 must be at least 1 line"):
        d.misses([3, 0])


@pytest.mark.parametrize("call", [lambda t: simulate(t, Cache()), lambda t: stack_distances(t)])
def test_simulate_and_stack_distances_name_a_trace_that_is_no_trace(call):
    with pytest.raises(TypeError, match=r"trace='C\[i\]=A\[i\]' must be a Trace.*campaign_widget.cache.trace"):
        call("C[i]=A[i]")


@pytest.mark.parametrize("values", [None, "12", ["1", "2"], [True, False], {"a": 1}, [1j], [[1, 2], [3]]])
def test_severity_takes_numbers_only(values):
    with pytest.raises(TypeError, match="values=.* must be numbers"):
        severity(values)
    with pytest.raises(TypeError, match="values=.* must be numbers"):
        severity_rows(values if values is None or isinstance(values, (str, dict)) else [values, values])


def test_severity_keeps_missing_entries_missing_and_names_its_options():
    s = severity([1, None, 3])
    assert math.isnan(s[1]) and s[0] == 0.25
    with pytest.raises(TypeError, match="zero_is_value='yes'"):
        severity([1, 2], zero_is_value="yes")
    with pytest.raises(CampaignWidgetError, match="unknown scaling 'x'"):
        severity([1, 2], "x")
    with pytest.raises(CampaignWidgetError, match="2-D"):
        severity_rows([1, 2])


# -- measured timelines ----------------------------------------------------------------------------------

INTERVALS = dict(phase=["A", "B", "A"], start=[0, 0.5, 2], end=[1, 1.5, 4], lane=[0, 1, 0])


@pytest.mark.parametrize("until", [math.inf, math.nan, -1.0, 10**400])
def test_from_intervals_until_is_a_finite_time(until):
    with pytest.raises(ScheduleError, match=r"until=.* must be a finite number of seconds >= 0"):
        from_intervals(two_phases(), **INTERVALS, until=until)
    with pytest.raises(ScheduleError, match="until="):
        Timeline.from_intervals(two_phases(), **INTERVALS, until=until)
    with pytest.raises(TypeError, match="until='5'"):
        from_intervals(two_phases(), **INTERVALS, until="5")
    assert from_intervals(two_phases(), **INTERVALS, until=5).makespan == 5.0


def test_from_intervals_origin_is_finite():
    with pytest.raises(ScheduleError, match="origin=nan"):
        from_intervals(two_phases(), **INTERVALS, origin=math.nan)


@pytest.mark.parametrize(
    "bands, message",
    [
        (([0], [1], [3], [0], ["s"]), r"band name index\[0\]=3 is past the 1 names"),
        (([0], [1], [-1], [0], ["s"]), r"band name index\[0\]=-1"),
        (([0], [1], [0], [5], ["s"]), r"band lane index\[0\]=5 is past the 2 lane_names"),
        (([0], [1], [0.5], [0], ["s"]), "band name index must hold whole numbers"),
        (([0, 1], [1], [0], [0], ["s"]), "band end has 1 entries; band start has 2: one per band"),
        (([0], [1], [0, 0], [0], ["s"]), "band name index has 2 entries"),
        (([math.nan], [1], [0], [0], ["s"]), r"band start\[0\]=nan must be a finite number"),
        (([2], [1], [0], [0], ["s"]), r"band end\[0\]=1.0 is before band start\[0\]=2.0"),
        (([0], [1], [0], [0]), "five entries"),
        (([0], [1], [0], [0], [7]), r"band names\[0\]=7 must be a str"),
    ],
)
def test_bands_are_refused_when_they_name_no_band_or_lane(bands, message):
    with pytest.raises(ScheduleError, match=message):
        from_intervals(two_phases(), **INTERVALS, bands=bands)


def test_bands_on_a_lane_with_no_interval_and_steps_by_a_pattern():
    t = from_intervals(two_phases(), **INTERVALS, bands=([0, 1], [1, 2], [0, 1], [-1, 0], ["ProfilerStep#1", "x"]))
    assert t.bands() == [("ProfilerStep#1", 0.0, 1.0, None), ("x", 1.0, 2.0, 0)]
    assert [a.tolist() for a in t.steps()] == [[0.0], [1.0]]
    with pytest.raises(ScheduleError, match=r"pattern='\(' is not a regular expression"):
        t.steps("(")
    with pytest.raises(ScheduleError, match=r"pattern='\['"):
        t.cut("[")
    with pytest.raises(TypeError, match="pattern=3 must be a regular expression"):
        t.steps(3)
    with pytest.raises(TypeError, match="t0='a'"):
        t.window("a", 1)


# -- one panel per label ---------------------------------------------------------------------------------


def test_stacked_diagrams_refuse_two_panels_of_one_label():
    w = two_phases()
    with pytest.raises(CampaignWidgetError, match=r"panels 1 and '1' are both labelled '1'"):
        StackedDiagrams({1: w, "1": (w, {"tiles": 4})})
    one = CampaignDiagram(w)
    with pytest.raises(CampaignWidgetError, match="panel 'b' is the CampaignDiagram of panel 'a'"):
        StackedDiagrams({"a": one, "b": one})
    with pytest.raises(TypeError, match="panels=.* must be a mapping"):
        StackedDiagrams([w, w])
    with pytest.raises(TypeError, match="shared_time='no'"):
        StackedDiagrams({"a": w}, shared_time="no")
    assert list(StackedDiagrams({1: w, 2: w}).diagrams) == ["1", "2"]


# -- ambiguous files ---------------------------------------------------------------------------------------


def sdfg_with(tmp_path, change) -> Path:
    doc = json.loads((DATA / "sdfg" / "loop_copy.sdfg").read_text())
    change(doc)
    path = tmp_path / "two.sdfg"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("second", [0, "0"])
def test_an_sdfg_with_two_states_of_one_id_is_refused(tmp_path, second):
    def twice(doc):
        doc["nodes"][1]["id"] = second

    with pytest.raises(WorkloadFileError, match=r"two\.sdfg: nodes\[1\]\.id: '0' is the id of two blocks"):
        read_sdfg(sdfg_with(tmp_path, twice), machine=M, params={"N": 8, "T": 2})


def test_two_blocks_of_one_id_in_a_loop_body_are_refused(tmp_path):
    doc = json.loads((DATA / "sdfg" / "regions_dace2.sdfg").read_text())
    loop = next(n for n in doc["nodes"] if n["type"] == "LoopRegion")
    body = loop["nodes"]
    body.append(dict(body[0]))  # a copy of the first block: its id too
    path = tmp_path / "two.sdfg"
    path.write_text(json.dumps(doc))
    with pytest.raises(WorkloadFileError, match=r"is the id of two blocks"):
        read_sdfg(path, machine=M, params={"N": 8, "T": 2})


# -- fuzzing these boundaries (the suite's bounds and values: tests/test_fuzz_api.py) ----------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_fuzz_api import FUZZ, HOSTILE, bounded, check  # noqa: E402

SIDE = st.one_of(st.integers(-5, 5000), HOSTILE)
BUFFERS = st.sampled_from([[memoryview(PNG)], [PNG], [], [memoryview(b"<html>")], [None], [3]])


@FUZZ
@given(kind=st.sampled_from(["png-reply", "png-error"]), width=SIDE, height=SIDE, message=HOSTILE, buffers=BUFFERS)
def test_fuzz_every_png_reply_finishes_the_export_and_never_raises(
    tmp_path_factory, kind, width, height, message, buffers
):
    folder = tmp_path_factory.mktemp("png")
    channel, export, request_id, published = asked(folder)
    reply = {"type": kind, "id": request_id, "width": width, "height": height, "message": message}
    result, _, _ = bounded(channel.on_message, reply, buffers)
    assert result is None, f"the handler raised {type(result).__name__}: {str(result)[:200]}"
    assert export.wait(0) and published[-1] == []
    written = (folder / "fig.png").exists()
    assert written == (export.error is None)
    if written:
        assert export.size == (int(width), int(height)) and (folder / "fig.png").read_bytes() == PNG


@FUZZ
@given(element=HOSTILE, capacity=HOSTILE, point=HOSTILE, line=HOSTILE)
def test_fuzz_cache_indices_and_capacities(element, capacity, point, line):
    t = small_trace()
    check(t.element_address, "A", element)
    check(t.element_address, "A", 1, line)
    check(t.same_line, "A", element)
    check(t.related, "C", element)
    check(t.index_values, point)
    check(t.tensor_index, element)
    check(stack_distances(t).misses, capacity)
    check(simulate, element, Cache(lines=4))


@FUZZ
@given(
    values=st.one_of(HOSTILE, st.lists(HOSTILE, max_size=4)),
    method=HOSTILE,
    buckets=HOSTILE,
    zero=HOSTILE,
)
def test_fuzz_severity(values, method, buckets, zero):
    from campaign_widget.figures.colour_scale import scale_range

    check(severity, values)
    check(severity, [1, 2, 3], method, buckets, zero_is_value=zero)
    check(severity_rows, values)
    check(severity_rows, [[1, 2], [3, 4]], method, buckets)
    check(scale_range, values, zero_is_value=zero)


@FUZZ
@given(until=HOSTILE, origin=HOSTILE, band=st.lists(HOSTILE, min_size=5, max_size=5), pattern=HOSTILE)
def test_fuzz_from_intervals_and_band_patterns(until, origin, band, pattern):
    w = two_phases()
    check(from_intervals, w, **INTERVALS, until=until)
    check(from_intervals, w, **INTERVALS, origin=origin)
    check(from_intervals, w, **INTERVALS, bands=band)
    check(from_intervals, w, **INTERVALS, bands=[[band[0]], [band[1]], [band[2]], [band[3]], [band[4]]])
    t = from_intervals(w, **INTERVALS, bands=([0], [1], [0], [0], ["ProfilerStep#1"]))
    check(t.steps, pattern)
    check(t.window, origin, until)


@FUZZ
@given(timeline=HOSTILE, warn=HOSTILE, progress=HOSTILE)
def test_fuzz_torch_reader_options(timeline, warn, progress):
    result = check(read_torch_trace, TORCH, machine=M, timeline=timeline, warn=warn, progress=progress)
    if result is not None:  # taken: only as True or False, never a truthy stand-in
        assert all(isinstance(v, (bool, np.bool_)) for v in (timeline, warn))
        assert progress is None or isinstance(progress, bool) or callable(progress)
