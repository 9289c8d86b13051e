"""Issue 29, what the command line prints (items 1, 2, 6, 11): the printed text, from each class's description.

1. a policy whose schedule oversubscribes a resource prints its makespan as not achievable;
2. a phase whose bytes the file does not give reads "unknown", with no bound and no advice; names that
   shorten alike are told apart;
6. an error is printed whole (its advice is never cut), a transformer's errors use the flags, ``render``
   takes ``--transformer``, one phase is "1 phase", advice points to what a command-line user can reach;
11. the "lower bound" says what it is.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from campaign_widget.cli import main

DATA = Path(__file__).parent / "data"
FIG8 = str(DATA / "figure-8.yaml")
LONG = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>::run_"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _trace(tmp_path, names, **args) -> Path:
    """A GPU trace of kernels called ``names``, each recording ``args`` (e.g. its FLOPs)."""
    gpu = dict(pid=0, tid=7)
    events = [
        dict(ph="X", cat="kernel", name=name, ts=20 * k, dur=10, args={"stream": 7, **args}, **gpu)
        for k, name in enumerate(names)
    ]
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"traceEvents": events}))
    return path


def _rows(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("phase "))
    return lines[start + 1 : lines.index("", start)]


# -- 1. infeasible schedules ------------------------------------------------------------------------


def test_an_oversubscribed_policys_makespan_is_printed_as_not_achievable(capsys):
    code, out, _ = run(capsys, "summary", FIG8, "--tiles", "4", "--pipeline")
    assert code == 0
    none = next(line for line in out.splitlines() if re.match(r"\W*none\b", line.strip(" *")))
    assert "infeasible" in none and "not achievable" in none, none
    throttled = next(line for line in out.splitlines() if line.strip(" *").startswith("throttle "))
    assert "infeasible" not in throttled, throttled


# -- 2. unknown is not a bound ----------------------------------------------------------------------


def test_bytes_a_trace_does_not_record_read_unknown_with_no_bound_and_no_advice(capsys, tmp_path):
    path = _trace(tmp_path, ["gemm", "relu"], flops=2e9)
    code, out, _ = run(capsys, "summary", path, "--machine", "h100-sxm")
    assert code == 0
    for row in _rows(out):
        assert "bytes unknown" in row.lower(), row
        for claim in ("inf", "compute-bound", "memory-bound", "fix", "Near roof", "Below roof"):
            assert claim not in row, row


def test_names_shortened_alike_are_told_apart_in_the_table(capsys, tmp_path):
    tail = "_" + "t" * 40
    names = [LONG + "x" * 30 + middle + tail for middle in ("a", "b")]
    code, out, _ = run(capsys, "summary", _trace(tmp_path, names, flops=2e9), "--machine", "h100-sxm")
    assert code == 0
    shown = [row.split("  ")[0] for row in _rows(out)]
    assert len(shown) == 2 and shown[0] != shown[1], shown


# -- 6. CLI errors whole ----------------------------------------------------------------------------


def test_a_long_error_is_printed_whole_with_its_advice():
    from campaign_widget.cli._output import say

    advice = "to fix it, pass --machine NAME and the counters with --ncu FILE (the dram__bytes metrics)"
    listed = ", ".join(f"preset-{k}" for k in range(120))
    stream = io.StringIO()
    say(f"campaign-widget: error: no peaks in this file ({listed}); {advice}; the presets again: {listed}", stream)
    printed = stream.getvalue()
    assert printed.count("\n") == 1  # one line
    assert advice in printed, printed[-300:]


def test_a_transformers_errors_name_the_flags(capsys):
    code, _, err = run(capsys, "summary", "--transformer", "llama-3-8b", "--batch", "0")
    assert code != 0 and "--batch 0" in err and "batch=0" not in err, err
    code, _, err = run(capsys, "summary", "--transformer", "llama-3-8b", "--kv-len", "16")
    assert code != 0 and "--kv-len" in err and "kv_len" not in err and "stage=" not in err, err


def test_render_draws_a_transformer_as_summary_reads_it(capsys, tmp_path):
    out_png = tmp_path / "decode.png"
    code, out, err = run(capsys, "render", "--transformer", "gpt2", "--stage", "decode", "-o", out_png)
    assert code == 0, err
    assert out_png.stat().st_size > 0


def test_one_phase_is_one_phase(capsys, tmp_path):
    code, out, _ = run(capsys, "summary", _trace(tmp_path, ["only"], flops=2e9), "--machine", "h100-sxm")
    assert code == 0
    assert " 1 phase on " in out and "1 phases" not in out, out.splitlines()[0]


def test_advice_points_to_what_a_command_line_user_can_reach(capsys, tmp_path):
    code, _, err = run(capsys, "summary", _trace(tmp_path, ["k"], flops=2e9))  # a trace with no machine
    assert code != 0 and "--machine" in err
    assert "campaign_widget." not in err and "machine=" not in err and "()" not in err, err


# -- 11. numbers ------------------------------------------------------------------------------------


def test_the_lower_bound_says_what_it_is(capsys):
    code, out, _ = run(capsys, "summary", FIG8, "--tiles", "4", "--pipeline")
    assert code == 0
    bound = next(line for line in out.splitlines() if "lower bound" in line)
    assert "peak compute" in bound and "peak bandwidth" in bound, bound
    assert "no feasible schedule is shorter" in bound, bound
