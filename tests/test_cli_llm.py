"""The command line's transformer flags: precisions, tensor parallelism, counts, FlashAttention, whole
generations, and the memory footprint against the machine's capacity."""

from __future__ import annotations

import pytest

import campaign_widget as cw
from campaign_widget import Workload
from campaign_widget.cli import main
from campaign_widget.model.generation import generation


def summary(capsys, *flags):
    assert main(["summary", "--transformer", "llama-2-7b", *flags]) == 0
    return capsys.readouterr().out


def test_every_flag_reaches_the_builder(capsys):
    flags = ["--batch", "4", "--seq", "512", "--dtype", "int8", "--kv-dtype", "fp16", "--weight-dtype", "int4"]
    flags += ["--tensor-parallel", "2", "--counts", "llm-viewer", "--flash-attention", "--machine", "h100-sxm-tensor"]
    out = summary(capsys, *flags)
    w = Workload.from_transformer(
        "llama-2-7b", batch=4, seq=512, dtype="int8", kv_dtype="fp16", weight_dtype="int4", tensor_parallel=2,
        counts="llm-viewer", flash_attention=True, machine="h100-sxm-tensor",
    )  # fmt: skip
    assert out.startswith(f"llama-2-7b: {len(w)} phases on ")
    assert all(name in out for name in w.names)  # the all-reduces and the fused attention's phases


def test_the_footprint_and_the_fit_are_printed(capsys):
    fits = summary(capsys, "--stage", "decode", "--batch", "1", "--machine", "h100-sxm")
    f = cw.transformer.footprint("llama-2-7b", batch=1, seq=2048, stage="decode", machine="h100-sxm")
    assert f"memory: {f.describe()}" in fits and "fits in 80 GB" in fits
    over = summary(capsys, "--stage", "decode", "--batch", "128", "--seq", "8192", "--machine", "h100-sxm")
    assert "does NOT fit in 80 GB" in over and "largest that fit: batch" in over
    assert "no memory capacity" in summary(capsys)  # the default machine gives none


def test_a_generation_prints_its_figures(capsys):
    out = summary(capsys, "--stage", "generate", "--new-tokens", "64", "--seq", "256", "--batch", "2")
    g = generation("llama-2-7b", batch=2, seq=256, new_tokens=64)
    assert f"generation: {g.describe()}" in out and "tokens/s" in out


def test_render_takes_the_transformer_flags(tmp_path, capsys):
    path = tmp_path / "gen.svg"
    argv = [
        "render",
        "--transformer",
        "gpt2",
        "--stage",
        "generate",
        "--new-tokens",
        "8",
        "--seq",
        "32",
        "-o",
        str(path),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert path.stat().st_size > 0 and "memory: " in out and "generation: " in out


def test_overriding_a_presets_peaks_renames_the_machine(capsys):
    out = summary(capsys, "--machine", "h100-sxm-fp16", "--peak-compute", "500T")
    assert "on H100 SXM (dense FP16 tensor), peaks from the command line" in out.splitlines()[0]
    plain = summary(capsys, "--machine", "h100-sxm-fp16")
    assert plain.splitlines()[0].endswith("on H100 SXM (dense FP16 tensor)")


@pytest.mark.parametrize(
    "flags, words",
    [
        (["--stage", "generate"], "needs --new-tokens"),
        (["--stage", "generate", "--new-tokens", "0"], "--new-tokens 0 must be >= 1"),
        (["--new-tokens", "5"], "--new-tokens is for --stage generate"),
        (["--dtype", "fp5"], "invalid choice"),
        (["--tensor-parallel", "3"], "does not divide"),
        (["--machine", "h100-sxm-tensor", "--dtype", "int4"], "no compute peak for int4"),
    ],
)
def test_bad_transformer_flags_are_one_line(flags, words, capsys):
    assert main(["summary", "--transformer", "llama-2-7b", *flags]) != 0
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
