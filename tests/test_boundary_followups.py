"""Boundary rules the fuzzing found in the readers and writers, each with the input that showed it."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import campaign_widget as cw

DATA = Path(__file__).parent / "data"
M = cw.Machine(1e12, 1e11)


def test_an_einsum_csv_with_a_column_named_twice_is_refused(tmp_path):
    text = (DATA / "einsums.csv").read_text().splitlines()
    header = text[0].split(",")
    doubled = ",".join(header + ["runtime"])
    rows = [line + ",9" for line in text[1:]]
    path = tmp_path / "twice.csv"
    path.write_text("\n".join([doubled, *rows]) + "\n")
    with pytest.raises(cw.WorkloadFileError, match="runtime"):
        cw.load(path, machine=M)


def test_a_cascade_error_names_the_files_field(tmp_path):
    text = (DATA / "figure-10-cascade.yaml").read_text().replace("bw_util: 0.8", "bw_util: -0.5", 1)
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(cw.WorkloadFileError) as error:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cw.load(path, machine=M)
    assert "bw_util" in str(error.value) and "memory_util" not in str(error.value)


def test_save_png_refuses_a_read_only_file(tmp_path):
    from campaign_widget.views.browser_png import _writable_target

    target = tmp_path / "figure.png"
    target.write_bytes(b"keep")
    os.chmod(target, 0o444)
    with pytest.raises(PermissionError, match="figure.png"):
        _writable_target(target)
    assert target.read_bytes() == b"keep"


def test_fusion_group_labels_are_checked_wherever_they_are_attached():
    w = cw.Workload([cw.Phase("A", ops=1, bytes=1), cw.Phase("B", ops=1, bytes=1, after=["A"])], machine=M)
    for label in ("", "a\x00b", "x" * 100_000):
        with pytest.raises((cw.WorkloadError, TypeError)):
            w.with_fusion_groups([label], np.array([0, 0]), fused=False)


def test_closing_a_gzipped_stream_closes_its_file(monkeypatch):
    from campaign_widget.io import _common

    opened = []

    def recording(path):
        handle = open(path, "rb")  # noqa: SIM115 - closed by the stream under test
        opened.append(handle)
        return handle

    monkeypatch.setattr(_common, "open_regular", recording)
    path = DATA / "sdfg" / "hdiff.sdfgz"
    stream = _common.open_binary(str(path), None, path)
    assert stream.read(2)
    stream.close()
    assert opened and opened[0].closed


def test_a_shut_down_executor_is_a_sweep_error_naming_it():
    import concurrent.futures as cf

    executor = cf.ThreadPoolExecutor(1)
    executor.shutdown()
    w = cw.Workload([cw.Phase("A", ops=1, bytes=1)], machine=M)
    with pytest.raises(cw.SweepError, match="executor=.*refused the sweep's work"):
        cw.sweep(w, progress=False, executor=executor, tiles=[1, 2, 3])


def test_dataflow_graph_names_a_wrong_argument():
    from campaign_widget.figures.dataflow import dataflow_graph

    with pytest.raises(TypeError, match="must be a campaign_widget.Workload"):
        dataflow_graph("w")


def test_numpy_bools_are_on_off_options():
    from campaign_widget.io.checks import flag

    assert flag("percent", np.True_) is True and flag("percent", np.False_) is False
    with pytest.raises(TypeError):
        flag("percent", "yes")


def test_an_sdfg_start_state_that_names_no_state_is_refused_where_it_must_choose(tmp_path):
    import json

    source = json.loads((DATA / "sdfg" / "loop_copy.sdfg").read_text())
    source["start_state"] = 999  # two source blocks: DaCe itself needs start_state to choose
    source["nodes"].append(
        {"type": "SDFGState", "label": "alone", "id": len(source["nodes"]), "nodes": [], "edges": []}
    )
    path = tmp_path / "bad_start.sdfg"
    path.write_text(json.dumps(source))
    with pytest.raises(cw.WorkloadFileError, match="start_state.*names no block"):
        cw.load(path, params={"N": 8})
