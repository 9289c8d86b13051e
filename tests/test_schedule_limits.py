"""What the engine holds, and what it refuses before allocating: the buffer depth, throttle policies
as values, and the module layout that keeps schedule and timeline out of a cycle."""

import ast
import tracemalloc
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
from workloads import chain, two_phases

import campaign_widget
from campaign_widget import POLICIES, Machine, Phase, ScheduleError, Workload
from campaign_widget.model.schedule import build_schedule
from campaign_widget.model.settings import MAX_DEPTH, Policy, Settings, check_setting

PACKAGE = Path(campaign_widget.__file__).parent


def _fused():
    return Workload(
        [
            Phase("load", ops=4e9, reads={"x": 8e9}, writes={"a": 4e9}),
            Phase("mm", ops=6e10, reads={"a": 4e9, "wt": 2e9}, writes={"b": 4e9}),
            Phase("side", ops=1e9, reads={"y": 1e9}, writes={"c": 1e9}),
            Phase("act", ops=2e9, reads={"b": 4e9, "c": 1e9}, writes={"d": 4e9}),
            Phase("out", ops=1e9, reads={"d": 4e9}, writes={"z": 2e9}),
        ],
        machine=Machine(peak_compute=1e12, peak_bandwidth=1e11),
    ).fuse([["load", "mm"], ["act", "out"]])


def _same(a, b):
    for f in fields(a):
        if f.name == "depth":
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y, err_msg=f.name)
        else:
            assert x == y, f.name


WORKLOADS = {
    "chain": lambda: chain(("A", 3, 0.7, 0.6), ("B", 10, 0.2, 0.9), ("C", 2, 0.6, 0.4)),
    "fused": _fused,
}


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", sorted(WORKLOADS))
@pytest.mark.parametrize("wavefront", [True, False], ids=["wavefront", "events"])
def test_a_depth_beyond_the_tiles_is_the_unbounded_buffer_of_depth_tiles(policy, name, wavefront):
    w = WORKLOADS[name]()
    for tiles in (1, 3, 6):
        want = build_schedule(w, tiles=tiles, pipeline=True, policy=policy, depth=tiles, _wavefront=wavefront)
        for depth in (tiles + 1, 10 * tiles, 10**6, MAX_DEPTH):
            got = build_schedule(w, tiles=tiles, pipeline=True, policy=policy, depth=depth, _wavefront=wavefront)
            _same(got, want)
            assert got.depth == depth  # the schedule says what was asked for


def test_a_huge_depth_allocates_nothing_in_proportion_to_it():
    w = two_phases()
    tracemalloc.start()
    try:
        w.schedule(tiles=4, pipeline=True, policy="dilate+throttle", depth=MAX_DEPTH)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10 * 2**20  # tables of tiles + depth columns would be hundreds of MB


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 10**9, 10**30, 2**64])
def test_an_absurd_depth_is_refused_with_the_limit(depth):
    with pytest.raises(ScheduleError, match=rf"depth=\d+ is above the limit of {MAX_DEPTH:,}.*depth=tiles"):
        chain(("A", 1, 0.5, 0.5), ("B", 1, 0.5, 0.5)).schedule(tiles=4, pipeline=True, depth=depth)
    with pytest.raises(ScheduleError, match="limit"):
        Settings(depth=depth)
    with pytest.raises(ScheduleError, match="limit"):
        check_setting("depth", depth)


def test_policies_are_values_that_say_what_they_do():
    assert POLICIES == ("none", "dilate", "throttle", "dilate+throttle")
    assert [(Policy.named(p).dilates, Policy.named(p).throttles) for p in POLICIES] == [
        (False, False),
        (True, False),
        (False, True),
        (True, True),
    ]
    assert [Policy.named(p).undilated().name for p in POLICIES] == ["none", "none", "throttle", "throttle"]
    with pytest.raises(ScheduleError, match="'none', 'dilate'"):
        Policy.named("dilate+throttle+magic")  # a substring test would have taken it for both
    with pytest.raises(ScheduleError, match="'none', 'dilate'"):
        Policy.named(["throttle"])


def test_the_engine_reads_the_policy_from_its_fields(monkeypatch):
    """A policy whose name contains neither word still dilates and throttles as its fields say."""
    import campaign_widget.model.settings as settings_module

    odd = Policy("both", dilates=True, throttles=True)
    monkeypatch.setitem(settings_module._BY_NAME, "both", odd)
    monkeypatch.setattr(settings_module, "POLICIES", (*POLICIES, "both"))
    w = two_phases()
    got = build_schedule(w, tiles=4, pipeline=True, policy="both")
    want = build_schedule(w, tiles=4, pipeline=True, policy="dilate+throttle")
    assert got.makespan == want.makespan == pytest.approx(11.35, abs=1e-9)
    assert got.policy == "both"


def test_streaming_groups_have_one_owner():
    w = _fused()
    groups = w.streaming_groups
    assert groups.tolist() == [0, 0, 2, 1, 1]  # "side" is in no group: a group of its own
    assert chain(("A", 1, 0.5, 0.5)).streaming_groups is None
    for path in PACKAGE.rglob("*.py"):
        if path.name != "workload.py":
            assert "_full_groups" not in path.read_text() and "_streaming_groups" not in path.read_text(), path


def _imports(path: Path) -> set[str]:
    """Every module of the package that ``path`` imports, at any depth of its code (functions and
    ``if TYPE_CHECKING:`` blocks included)."""
    package = list(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("campaign_widget")}


@pytest.mark.parametrize(
    "low, high",
    [
        ("campaign_widget.model.timeline", "campaign_widget.model.schedule"),
        ("campaign_widget.model.demand", "campaign_widget.model.schedule"),
        ("campaign_widget.model.demand", "campaign_widget.model.timeline"),
        ("campaign_widget.model.settings", "campaign_widget.model.schedule"),
    ],
)
def test_schedule_and_timeline_import_one_way(low, high):
    path = PACKAGE / (low.split(".", 1)[1].replace(".", "/") + ".py")
    assert high not in _imports(path), f"{low} imports {high}"


@pytest.mark.parametrize("policy", ["none", "dilate+throttle"])
def test_a_long_pipeline_is_held_in_arrays_not_in_python_objects_per_tile(policy):
    """A two-phase chain of many tiles has two tiles per wavefront level, so the engine walks it tile
    by tile; the walk reads and writes the tables in place. The schedule keeps 18 numbers per tile
    interval (144 bytes); the peak while computing it stays within a few times that."""
    w = chain(("A", 3, 0.3, 0.6), ("B", 4, 0.4, 0.5))
    tracemalloc.start()
    try:
        s = build_schedule(w, tiles=50_000, pipeline=True, policy=policy)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(s) == 100_000
    assert peak / len(s) < 400  # Python lists of every tile's numbers took over 430
