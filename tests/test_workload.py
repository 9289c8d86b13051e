"""Per-phase quantities of docs/semantics.md#per-phase-quantities on hand-made examples, and every bad input refused by name."""

import math
import warnings

import numpy as np
import pytest

from campaign_widget import Machine, Phase, UtilizationAboveOneWarning, Workload, save
from campaign_widget.cache import with_predicted_traffic

M = Machine(peak_compute=200e9, peak_bandwidth=50e9, name="seed 002 example")


def test_volumes_give_speed_of_light_durations_and_bounds():
    w = Workload(
        [
            Phase("saxpy", ops=2e9, bytes=24e9),  # OI 1/12: memory-bound, 0.48 s
            Phase("gemm", ops=400e9, bytes=12.5e9),  # OI 32: compute-bound, 2 s
            Phase("even", ops=4e9, bytes=1e9),  # OI 4 = ridge: balanced
        ],
        machine=M,
    )
    t = w.table()
    assert list(t["name"]) == ["saxpy", "gemm", "even"]
    np.testing.assert_allclose(t["duration"], [24e9 / 50e9, 400e9 / 200e9, 4e9 / 200e9])
    np.testing.assert_allclose(t["intensity"], [1 / 12, 32, 4])
    assert list(t["bound"]) == ["memory", "compute", "balanced"]
    np.testing.assert_allclose(t["efficiency"], 1.0)
    np.testing.assert_allclose(t["compute_util"], [2e9 / 200e9 / 0.48, 1.0, 1.0])
    np.testing.assert_allclose(t["memory_util"], [1.0, 12.5e9 / 50e9 / 2, 1.0])


def test_utilizations_give_volumes_and_efficiency(figure_2b):
    t = figure_2b.table()
    P, BW = 51.2e12, 3.35e12
    np.testing.assert_allclose(t["ops"], [0.7 * P * 3, 0.2 * P * 10, 0.6 * P * 2])
    np.testing.assert_allclose(t["bytes"], [0.25 * BW * 3, 0.9 * BW * 10, 0.4 * BW * 2])
    np.testing.assert_allclose(t["t_sol"], [0.7 * 3, 0.9 * 10, 0.6 * 2])
    np.testing.assert_allclose(t["efficiency"], [0.7, 0.9, 0.6])
    assert list(t["bound"]) == ["compute", "memory", "compute"]
    # the paper's 35.8, 10.2 and 30.7 TFLOP/s
    np.testing.assert_allclose(np.round(t["compute_util"] * P / 1e12, 1), [35.8, 10.2, 30.7])


def test_to_dataframe_has_the_table_columns(figure_2b):
    pytest.importorskip("pandas")
    df = figure_2b.to_dataframe()
    assert list(df.columns) == [
        "name",
        "duration",
        "compute_util",
        "memory_util",
        "ops",
        "bytes",
        "intensity",
        "t_sol",
        "bound",
        "efficiency",
        "bytes_source",
        "bound_resource",
    ]
    assert df["duration"].sum() == 15


def test_peaks_move_analytical_durations_but_not_measured_ones():
    w = Workload(
        [Phase("analytical", ops=100, bytes=400), Phase("measured", duration=2, ops=100, bytes=100)],
        machine=Machine(peak_compute=100, peak_bandwidth=100),
    )
    faster = w.with_peaks(peak_bandwidth=400)
    np.testing.assert_allclose(w.arrays.duration, [4, 2])
    np.testing.assert_allclose(faster.arrays.duration, [1, 2])
    np.testing.assert_allclose(faster.arrays.memory_util, [1.0, 100 / 400 / 2])
    np.testing.assert_allclose(faster.arrays.bytes, w.arrays.bytes)


def test_topological_order_is_stable_and_follows_after():
    w = Workload(
        [
            Phase("c", duration=1, compute_util=0.1, after=["b"]),
            Phase("a", duration=1, compute_util=0.1),
            Phase("b", duration=1, compute_util=0.1, after=["a"]),
            Phase("z", duration=1, compute_util=0.1),
        ]
    )
    assert w.names == ["a", "b", "c", "z"]


def test_from_arrays_matches_phases():
    names = [f"p{i}" for i in range(5)]
    fast = Workload.from_arrays(
        names, ops=np.arange(1, 6) * 1e9, bytes=np.full(5, 1e9), after=[()] + [(n,) for n in names[:-1]], machine=M
    )
    slow = Workload(
        [Phase(n, ops=(i + 1) * 1e9, bytes=1e9, after=() if i == 0 else (names[i - 1],)) for i, n in enumerate(names)],
        machine=M,
    )
    for key in ("duration", "compute_util", "memory_util", "efficiency"):
        np.testing.assert_allclose(fast.table()[key], slow.table()[key])


def test_no_machine_means_peak_time_units():
    w = Workload([Phase("A", duration=3, compute_util=0.5, memory_util=0.25)])
    assert w.machine.normalized
    np.testing.assert_allclose([w.arrays.ops[0], w.arrays.bytes[0]], [1.5, 0.75])


# -- bad input: the message names the phase, the field and the value -------------------------


@pytest.mark.parametrize(
    "field, value",
    [
        ("duration", float("nan")),
        ("duration", float("inf")),
        ("duration", -1.0),
        ("ops", float("nan")),
        ("bytes", -5.0),
        ("compute_util", -0.1),
        ("memory_util", float("inf")),
    ],
)
def test_bad_numbers_name_phase_field_and_value(field, value):
    kwargs = {"duration": 1.0, "compute_util": 0.5} if field not in ("duration", "compute_util") else {}
    kwargs.setdefault("compute_util" if field == "duration" else "duration", 0.5 if field == "duration" else 1.0)
    kwargs[field] = value
    if field in ("ops", "bytes"):
        kwargs.pop("compute_util", None)
    with pytest.raises(ValueError) as err:
        Phase("kernel-7", **kwargs)
    text = str(err.value)
    assert "kernel-7" in text and field in text and str(value) in text


@pytest.mark.parametrize("key", ["duration", "ops"])
def test_bad_numbers_in_columns_are_named_too(key):
    values = [1.0, float("inf") if key == "duration" else -3.0]
    kwargs = {
        key: values,
        "compute_util" if key == "duration" else "bytes": [0.5, 0.5] if key == "duration" else [1, 1],
    }
    with pytest.raises(ValueError, match=r"'q'.*" + key):
        Workload.from_arrays(["p", "q"], machine=M, **kwargs)


@pytest.mark.parametrize(
    "name, value",
    [("peak_compute", float("nan")), ("peak_bandwidth", -1.0), ("peak_compute", 0.0), ("peak_bandwidth", float("inf"))],
)
def test_bad_peaks_are_named(name, value):
    kwargs = {"peak_compute": 1.0, "peak_bandwidth": 1.0, name: value}
    with pytest.raises(ValueError, match=name + r"=" + ("nan" if math.isnan(value) else "")):
        Machine(**kwargs)


def test_phase_with_nothing_to_go_on():
    with pytest.raises(ValueError, match=r"'idle'.*neither"):
        Phase("idle")
    with pytest.raises(ValueError, match=r"'idle'.*duration=None.*required"):
        Phase("idle", compute_util=0.5)


def test_volumes_without_a_machine():
    with pytest.raises(ValueError, match=r"'gemm'.*ops=.*no machine"):
        Workload([Phase("gemm", ops=1e9, bytes=1e6)])


def test_duplicate_names_unknown_producer_cycle_empty():
    p = dict(duration=1, compute_util=0.5)
    with pytest.raises(ValueError, match=r"'A'.*duplicate"):
        Workload([Phase("A", **p), Phase("A", **p)])
    with pytest.raises(ValueError, match=r"'B'.*'nope'"):
        Workload([Phase("A", **p), Phase("B", after=["nope"], **p)])
    with pytest.raises(
        ValueError,
        match=r"cycle.*'A' -> 'B' -> 'C' -> 'A'|cycle.*'B' -> 'C' -> 'A' -> 'B'|"
        r"cycle.*'C' -> 'A' -> 'B' -> 'C'",
    ):
        Workload(
            [Phase("A", after=["C"], **p), Phase("B", after=["A"], **p), Phase("C", after=["B"], **p), Phase("D", **p)]
        )
    with pytest.raises(ValueError, match="empty"):
        Workload([])
    with pytest.raises(TypeError):
        Workload(["not a phase"])


def test_zero_work_analytical_phase_is_refused():
    with pytest.raises(ValueError, match=r"'noop'.*no work"):
        Workload([Phase("noop", ops=0, bytes=0)], machine=M)


def test_utilization_above_one_is_kept_and_warned_once_naming_the_phase():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = Workload(
            [
                Phase("hot", duration=1, compute_util=0.5, memory_util=1.3),
                Phase("ok", duration=1, compute_util=0.5, memory_util=0.3),
            ]
        )
    mine = [c for c in caught if issubclass(c.category, UtilizationAboveOneWarning)]
    assert len(mine) == 1 and "'hot'" in str(mine[0].message) and "1.3" in str(mine[0].message)
    assert w.arrays.memory_util[0] == pytest.approx(1.3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w.with_peaks(peak_compute=2.0)  # a slider move does not warn again
    assert not [c for c in caught if issubclass(c.category, UtilizationAboveOneWarning)]


def test_phase_names_are_kept_as_given():
    w = Workload([Phase("<b>bold</b> & 'quoted'", duration=1, compute_util=0.5)])
    assert w.names == ["<b>bold</b> & 'quoted'"]


def test_from_arrays_columns_must_match_the_phases():
    with pytest.raises(ValueError, match="after has 1 entries for 2 phases"):
        Workload.from_arrays(["a", "b"], ops=[1, 1], bytes=[1, 1], after=[()], machine=M)
    with pytest.raises(ValueError, match="ops has 3 values for 2 phases"):
        Workload.from_arrays(["a", "b"], ops=[1, 1, 1], bytes=[1, 1], machine=M)


# -- a frozen value ---------------------------------------------------------------------------------


def test_a_workload_cannot_be_mutated(figure_2b):
    from campaign_widget import Machine

    for name, value in (
        ("machine", Machine(1.0, 1.0)),
        ("settings", {"tiles": 3}),
        ("fusion_groups", ("g",)),
        ("_bytes", None),
        ("anything", 1),
    ):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(figure_2b, name, value)
    with pytest.raises(ValueError, match="read-only"):
        figure_2b.arrays.duration[0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        figure_2b.tileable[0] = False
    settings = figure_2b.settings
    settings["tiles"] = 99
    assert figure_2b.settings.get("tiles") != 99


def test_copies_derive_everything_anew(figure_2b):
    faster = figure_2b.with_peaks(peak_bandwidth=figure_2b.machine.peak_bandwidth * 2)
    assert faster.machine.peak_bandwidth == 2 * figure_2b.machine.peak_bandwidth
    memory_bound = figure_2b.arrays.bound == 1
    assert memory_bound.any()
    assert (faster.arrays.memory_util[memory_bound] < figure_2b.arrays.memory_util[memory_bound]).all()
    assert figure_2b.with_settings(tiles=4).settings == {**figure_2b.settings, "tiles": 4}


def test_a_workload_pickles_whole(figure_2b):
    import pickle

    again = pickle.loads(pickle.dumps(figure_2b.with_settings(tiles=2)))
    assert again.names == figure_2b.names and again.settings["tiles"] == 2
    assert float(again.schedule().makespan) == float(figure_2b.schedule(tiles=2).makespan)
    with pytest.raises(AttributeError):
        again.machine = None


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"tiles": 0}, "tiles=0 must be >= 1"),
        ({"policy": "bogus"}, "policy='bogus' is not one of"),
        ({"depth": 1.5}, "depth=1.5 must be a whole number"),
        ({"pipeline": "yes"}, "pipeline='yes' must be True or False"),
    ],
)
def test_settings_are_validated_where_they_are_made(figure_2b, settings, message):
    from campaign_widget import ScheduleError, Workload

    with pytest.raises(ScheduleError, match=message):
        Workload([Phase("A", duration=1, compute_util=0.5, memory_util=0.5)], settings=settings)
    with pytest.raises(ScheduleError, match=message):
        figure_2b.with_settings(**settings)


# -- parameters (docs/data-movement.md#sizes-and-parameters) ------------------------------------------------------------------------


def _gemm(**params):
    from campaign_widget import Machine, Workload

    return Workload.from_einsums(
        {"gemm": "Z[m,n] = A[m,k] * B[k,n]", "act": "Y[m,n] = Z[m,n]"},
        {"m": "B*S", "n": "D", "k": "D/H"},
        params={"B": 2, "S": 8, "D": 32, "H": 4, **params},
        machine=Machine(1e12, 1e11),
    )


def test_sizes_as_expressions_follow_the_parameters():
    w = _gemm()
    m, n, k = 2 * 8, 32, 32 // 4
    assert w.sizes == {"m": m, "n": n, "k": k}
    assert w.params == {"B": 2, "S": 8, "D": 32, "H": 4}
    assert list(w.arrays.ops) == [2 * m * n * k, m * n]
    assert list(w.arrays.bytes) == [4 * (m * k + k * n + m * n), 4 * 2 * m * n]
    longer = w.with_params(S=64)
    m2 = 2 * 64
    assert longer.sizes["m"] == m2 and longer.params["S"] == 64
    assert list(longer.arrays.ops) == [2 * m2 * n * k, m2 * n]
    assert longer.tensors[0][0] == {"A": 4 * m2 * k, "B": 4 * k * n}
    assert longer.arrays.duration[0] > w.arrays.duration[0]
    assert w.params["S"] == 8  # the original is untouched


def test_fusion_follows_new_parameters():
    w = _gemm().fuse({"both": ["gemm", "act"]})
    m, n, k = 16, 32, 8
    assert list(w.arrays.bytes) == [4 * (m * k + k * n), 4 * m * n]  # Z stays on chip
    bigger = w.with_params(B=4)
    assert list(bigger.arrays.bytes) == [4 * (2 * m * k + k * n), 4 * 2 * m * n]
    assert bigger.fusion_groups == ("both",)


@pytest.mark.parametrize(
    "change, error, message",
    [
        (
            {"Q": 3},
            "WorkloadError",
            r"unknown parameters \['Q'\]; this workload's parameters are \['B', 'D', 'H', 'S'\]",
        ),
        ({"H": 3}, "ExpressionError", r"size 'k'=.*32/3.*positive whole number"),
        ({"S": 0}, "WorkloadError", "parameter 'S'=0 must be >= 1"),
        ({"S": 2.5}, "TypeError", "parameter 'S'=2.5 must be a whole number"),
    ],
)
def test_bad_parameter_values_name_the_parameter(change, error, message):
    import campaign_widget

    with pytest.raises(getattr(campaign_widget, error, TypeError), match=message):
        _gemm().with_params(**change)


def test_unknown_parameters_in_sizes_are_listed_at_once():
    from campaign_widget import ExpressionError, Machine, Workload

    with pytest.raises(ExpressionError, match=r"'S'.*'H'|'H'.*'S'"):
        Workload.from_einsums(
            {"g": "Z[m,n] = A[m,k] * B[k,n]"},
            {"m": "B*S", "n": 4, "k": "D/H"},
            params={"B": 1, "D": 4},
            machine=Machine(1e12, 1e11),
        )


def test_phases_take_expressions():
    from campaign_widget import ExpressionError, Machine, Workload

    w = Workload(
        [Phase("p", ops="2*N**3", reads={"A": "8*N*N"}, writes={"C": "8*N*N"})],
        machine=Machine(1e9, 1e9),
        params={"N": 10},
    )
    assert float(w.arrays.ops[0]) == 2000 and float(w.arrays.bytes[0]) == 1600
    with pytest.raises(ExpressionError, match="phase 'p'.*ops.*Attribute"):
        Phase("p", ops="N.__class__", bytes=1)
    with pytest.raises(ExpressionError, match=r"unknown parameters \['N'\]"):
        Workload([Phase("p", ops="2*N", bytes=4)], machine=Machine(1e9, 1e9))


def test_predicted_traffic_feeds_the_phase_and_a_loop_interchange_shortens_it():
    from campaign_widget import Machine, Workload
    from campaign_widget.cache import Cache

    n = 32
    w = Workload.from_einsums(
        {"gemm": "C[i,j] = A[i,k] * B[k,j]"},
        {"i": n, "j": n, "k": n},
        machine=Machine(peak_compute=1e12, peak_bandwidth=1e9),
        element_bytes=8,
    )
    small = Cache(line=64, lines=32, ways=None)
    ijk = with_predicted_traffic(w, "gemm", small, loop_order=["i", "j", "k"])
    ikj = with_predicted_traffic(w, "gemm", small, loop_order=["i", "k", "j"])
    assert list(ijk.table()["bytes_source"]) == ["predicted"] and list(w.table()["bytes_source"]) == ["logical"]
    for predicted in (ijk, ikj):
        misses = predicted.predicted["gemm"]["misses"]
        assert float(predicted.arrays.bytes[0]) == 64 * misses  # line × misses
        assert float(predicted.logical_bytes[0]) == 3 * n * n * 8
    # ijk walks B down a column (a new line every access); ikj streams rows: fewer misses, a shorter phase
    assert ikj.arrays.duration[0] < ijk.arrays.duration[0]
    assert ijk.arrays.duration[0] > w.arrays.duration[0]


def test_stepping_is_a_setting_of_the_workload_and_its_file(tmp_path):
    from campaign_widget import Workload, load

    chain = [
        Phase("P0", duration=8, compute_util=0.6, memory_util=0.9),
        Phase("P1", duration=5, compute_util=0.3, memory_util=0.5, after=["P0"]),
        Phase("P2", duration=4, compute_util=0.4, memory_util=0.8, after=["P1"]),
    ]
    w = Workload(chain, settings={"tiles": 2, "pipeline": True, "policy": "throttle", "stepping": "lockstep"})
    again = load(save(w, tmp_path / "w.yaml"))
    assert again.settings["stepping"] == "lockstep"
    # the issue's counterexample: the paper authors' tool (lock step) 14.1, docs/semantics.md#pipelining's rule 14.7
    assert round(float(again.schedule().makespan), 6) == 14.1
    assert round(float(again.schedule(stepping="event").makespan), 6) == 14.7
