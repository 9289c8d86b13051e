"""Whole generations: a prefill and new_tokens decode steps on one time axis (campaign_widget.model.generation)."""

from __future__ import annotations

import numpy as np
import pytest

from campaign_widget import CampaignWidgetError, Machine, Workload
from campaign_widget.model.generation import generation
from campaign_widget.model.transformer import MAX_NEW_TOKENS

# a low ridge (1.2 ops/byte): the decode attention turns from memory- to compute-bound as the cache grows
LOW_RIDGE = Machine(peak_compute=1.2e12, peak_bandwidth=1e12, name="low ridge")


def single_steps(model, batch, seq, new_tokens, **options):
    """The prefill and each decode step built one by one: the workloads a generation is the sum of."""
    prefill = Workload.from_transformer(model, batch=batch, seq=seq, **options)
    steps = [
        Workload.from_transformer(model, batch=batch, seq=seq, stage="decode", kv_len=seq + j, **options)
        for j in range(new_tokens)
    ]
    return prefill, steps


CASES = [
    ("llama-2-7b", 1, 128, 40, {}),
    ("llama-3-8b", 4, 1, 120, {"machine": LOW_RIDGE, "kv_dtype": "int8"}),
    ("llama-2-7b", 8, 256, 30, {"flash_attention": True}),
    ("llama-2-7b", 8, 256, 30, {"tensor_parallel": 2}),
    ("llama-3-8b", 16, 64, 30, {"machine": "h100-sxm-tensor", "dtype": "int8", "kv_dtype": "fp16"}),
    ("mixtral-8x7b", 2, 64, 20, {"counts": "llm-viewer"}),
]


@pytest.mark.parametrize("model, batch, seq, new_tokens, options", CASES)
def test_a_generation_is_exactly_the_sum_of_its_single_step_workloads(model, batch, seq, new_tokens, options):
    whole = Workload.from_transformer(model, batch=batch, seq=seq, stage="generate", new_tokens=new_tokens, **options)
    prefill, steps = single_steps(model, batch, seq, new_tokens, **options)
    parts = [prefill, *steps]
    # volumes are whole numbers of ops and bytes, summed exactly
    assert whole.arrays.ops.sum() == sum(p.arrays.ops.sum() for p in parts)
    assert whole.arrays.bytes.sum() == sum(p.arrays.bytes.sum() for p in parts)
    # times: the same roofline times, summed in another order
    total = sum(p.arrays.duration.sum() for p in parts)
    assert whole.arrays.duration.sum() == pytest.approx(total, rel=1e-12)
    assert float(whole.schedule().makespan) == pytest.approx(total, rel=1e-12)
    g = generation(model, batch=batch, seq=seq, new_tokens=new_tokens, **options)
    assert g.ttft == pytest.approx(prefill.arrays.duration.sum(), rel=1e-12)
    assert g.tpot_last == pytest.approx(steps[-1].arrays.duration.sum(), rel=1e-12)
    step_times = [s.arrays.duration.sum() for s in steps]
    np.testing.assert_allclose(g.step_times, step_times, rtol=1e-12)
    assert g.tpot_mean == pytest.approx(np.mean(step_times), rel=1e-12)
    assert g.latency == pytest.approx(total, rel=1e-12)
    assert g.tokens_per_second == pytest.approx(batch * new_tokens / total, rel=1e-12)


def test_the_steps_are_grouped_into_runs_not_built_one_by_one():
    w = Workload.from_transformer("llama-2-7b", batch=8, seq=1024, stage="generate", new_tokens=100_000)
    prefill = Workload.from_transformer("llama-2-7b", batch=8, seq=1024)
    assert len(w) <= 4 * len(prefill)  # the prefill, a run or two, and the last step alone
    runs = sorted({n.split(".")[0] for n in w.names if n.startswith("decode[")}, key=lambda r: int(r[7:].split(":")[0]))
    assert runs[0].startswith("decode[1024:") and runs[-1] == "decode[101023:101024]"
    switching = Workload.from_transformer(
        "llama-3-8b", batch=4, seq=1, stage="generate", new_tokens=120, machine=LOW_RIDGE
    )
    assert len({n.split(".")[0] for n in switching.names}) > 3  # the bound changes: more runs


def test_each_run_follows_the_token_of_the_one_before():
    w = Workload.from_transformer("gpt2", batch=2, seq=16, stage="generate", new_tokens=5)
    firsts = [i for i, n in enumerate(w.names) if n.endswith(".attn_norm")]
    producers, offsets = w.producers[1], w.producers[0]
    for i in firsts[1:]:
        before = {w.names[j] for j in producers[offsets[i] : offsets[i + 1]]}
        assert any(b.endswith(".lm_head") for b in before)
    assert float(w.schedule().makespan) == pytest.approx(float(w.arrays.duration.sum()), rel=1e-12)


def test_a_mixed_step_runs_a_prompt_beside_the_decode_batch_and_reads_the_weights_once():
    mixed = Workload.from_transformer("llama-3-8b", batch=32, seq=512, kv_len=2048, stage="mixed")
    prefill = Workload.from_transformer("llama-3-8b", batch=1, seq=512)
    decode = Workload.from_transformer("llama-3-8b", batch=32, seq=2048, stage="decode")

    def phase(w, name, column="ops"):
        return float(getattr(w.arrays, column)[w.names.index(name)])

    assert mixed.params == {"batch": 32, "seq": 512, "kv_len": 2048}
    # the projections run the 32 + 512 tokens together, their weights read once
    assert phase(mixed, "q_proj") == phase(prefill, "q_proj") + phase(decode, "q_proj")
    weights = mixed.tensors[mixed.names.index("q_proj")][0]["W_q_proj"]
    assert weights == prefill.tensors[prefill.names.index("q_proj")][0]["W_q_proj"]
    # each part's attention is that pass's own
    for name in ("qk_matmul", "softmax", "sv_matmul"):
        for part, alone in (("prefill_", prefill), ("decode_", decode)):
            assert phase(mixed, part + name) == phase(alone, name)
            assert phase(mixed, part + name, "bytes") == phase(alone, name, "bytes")
    assert mixed.arrays.duration.sum() < prefill.arrays.duration.sum() + decode.arrays.duration.sum()
    flash = Workload.from_transformer("llama-3-8b", batch=32, seq=512, stage="mixed", flash_attention=True)
    assert flash.fusion_groups == ("prefill_attention", "decode_attention")
    with pytest.raises(CampaignWidgetError, match="no LLM-Viewer counts"):
        Workload.from_transformer("llama-3-8b", batch=32, seq=512, stage="mixed", counts="llm-viewer")


@pytest.mark.parametrize(
    "options, words",
    [
        ({"new_tokens": 0}, "new_tokens=0 must be >= 1"),
        ({"new_tokens": MAX_NEW_TOKENS + 1}, "more than the limit"),
        ({"new_tokens": 2.5}, "must be a whole number"),
        ({}, "needs new_tokens"),
        ({"new_tokens": 4, "kv_len": 8}, "kv_len is for stage='decode'"),
        ({"new_tokens": 4, "layers": "repeat"}, "layers='count'"),
        ({"new_tokens": 4, "stage": "decode"}, "new_tokens is for stage='generate'"),
    ],
)
def test_bad_generation_input_is_refused_before_any_work(options, words):
    options = {"stage": "generate", **options}
    with pytest.raises(CampaignWidgetError, match=words.replace("(", r"\(")):
        Workload.from_transformer("gpt2", batch=1, seq=8, **options)
