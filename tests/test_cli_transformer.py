"""campaign-widget summary --transformer: a model config's forward pass from the command line."""

from __future__ import annotations

import pytest

from campaign_widget import Workload
from campaign_widget.cli import main


def test_summary_of_a_decode_pass(capsys):
    assert main(["summary", "--transformer", "llama-2-7b", "--batch", "8", "--seq", "2048", "--stage", "decode"]) == 0
    out = capsys.readouterr().out
    w = Workload.from_transformer("llama-2-7b", batch=8, seq=2048, stage="decode")
    assert out.startswith(f"llama-2-7b: {len(w)} phases on ")
    assert all(name in out for name in w.names)


def test_kv_len_reaches_the_builder(capsys):
    main(["summary", "--transformer", "llama-2-7b", "--stage", "decode", "--kv-len", "128"])
    short = capsys.readouterr().out
    main(["summary", "--transformer", "llama-2-7b", "--stage", "decode", "--kv-len", "8192"])
    assert capsys.readouterr().out != short


@pytest.mark.parametrize(
    "argv, words",
    [
        (["summary"], "required: FILE"),
        (["summary", "x.yaml", "--transformer", "gpt2"], "not both"),
        (["summary", "--transformer", "no-such-model"], "no such preset"),
        (["summary", "--transformer", "gpt2", "--stage", "decode", "--kv-len", "0"], "--kv-len"),
    ],
)
def test_bad_transformer_input_is_one_line(argv, words, capsys):
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err
