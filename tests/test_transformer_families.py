"""More model families: each preset is a real config.json of its family, read with its layout."""

from __future__ import annotations

import json

import pytest

import campaign_widget as cw
from campaign_widget import CampaignWidgetError, Workload
from campaign_widget.model.llm_families import CONFIG_DIR, FAMILIES
from campaign_widget.model.transformer import presets, read_config

# Published parameter counts (weights + biases + norm gains, from each model card or paper): our weights
# count every matrix and bias, not the norms' gains nor learned position tables, so they sit just under.
PUBLISHED = {
    "llama-2-7b": 6_738_415_616,  # Llama-2-7b-hf's num_parameters()
    "gpt-j-6b": 6_053_381_344,  # EleutherAI/gpt-j-6b model card
    "pythia-6.9b": 6_857_302_016,  # the Pythia paper's table of models
    "gemma-7b": 8_537_680_896,  # the Gemma report: 7,751,248,896 non-embedding + 786,432,000 embedding
    "gemma-2-9b": 9_241_705_984,  # the Gemma 2 report: 8,324,201,984 + 917,504,000
    "qwen2-7b": 7.6e9,  # the Qwen2 report, rounded to 0.1B
    "falcon-7b": 6.92e9,
    "opt-6.7b": 6.7e9,
    "phi-3-mini-4k": 3.8e9,
}
NEW = ["qwen2-7b", "gemma-7b", "gemma-2-9b", "phi-3-mini-4k", "falcon-7b", "pythia-6.9b", "opt-6.7b", "gpt-j-6b"]


def test_every_new_family_has_a_preset_of_that_family_with_its_source():
    families = {json.loads((CONFIG_DIR / f"{name}.json").read_text())["model_type"] for name in NEW}
    assert families == {"qwen2", "gemma", "gemma2", "phi3", "falcon", "gpt_neox", "opt", "gptj"}
    for name in NEW:
        fields = json.loads((CONFIG_DIR / f"{name}.json").read_text())
        assert fields["_source"].startswith("https://huggingface.co/") and fields["_source"].split()[0].endswith(
            "config.json"
        )
        assert set(presets()) >= set(NEW)


@pytest.mark.parametrize("name, published", PUBLISHED.items())
def test_the_weights_count_the_published_parameters(name, published):
    weights = cw.transformer.footprint(name, batch=1, seq=1).weights / 2  # fp16: 2 bytes a parameter
    exact = isinstance(published, int)
    assert weights <= published if exact else True
    assert weights == pytest.approx(published, rel=1e-3 if exact else 1.5e-2)


@pytest.mark.parametrize("name", NEW)
def test_each_new_family_builds_prefill_decode_and_a_generation(name):
    for stage in ("prefill", "decode"):
        w = Workload.from_transformer(name, batch=2, seq=128, stage=stage)
        assert w.arrays.duration.sum() > 0 and "lm_head" in w.names
    g = Workload.from_transformer(name, batch=2, seq=128, stage="generate", new_tokens=4)
    steps = [Workload.from_transformer(name, batch=2, seq=128, stage="decode", kv_len=128 + j) for j in range(4)]
    prefill = Workload.from_transformer(name, batch=2, seq=128)
    assert g.arrays.ops.sum() == prefill.arrays.ops.sum() + sum(s.arrays.ops.sum() for s in steps)


def test_parallel_blocks_add_attention_and_mlp_to_the_residual_once():
    for name, norms in (
        ("gpt-j-6b", {"attn_norm"}),
        ("falcon-7b", {"attn_norm"}),
        ("pythia-6.9b", {"attn_norm", "mlp_norm"}),
    ):
        w = Workload.from_transformer(name, batch=1, seq=64)
        assert "block_add" in w.names and "attn_add" not in w.names and "mlp_add" not in w.names
        assert {n for n in w.names if n.endswith("_norm") and n != "final_norm"} == norms
        reads, _ = w.tensors[w.names.index("block_add")]
        assert set(reads) == {"X", "A", "D"}
    shared = Workload.from_transformer("gpt-j-6b", batch=1, seq=64)
    assert "N1" in shared.tensors[shared.names.index("up_proj")][0]  # the MLP reads the attention's norm


def test_biases_rotary_fractions_post_norms_and_attention_heads_follow_the_family():
    def ops_of(name, phase, **config):
        w = Workload.from_transformer(
            read_config({**json.loads((CONFIG_DIR / f"{name}.json").read_text()), **config}), batch=1, seq=10
        )
        return float(w.arrays.ops[w.names.index(phase)])

    qwen = read_config("qwen2-7b")
    assert (qwen.bias, qwen.kv_heads, qwen.head_dim) == ("qkv", 4, 128)
    # a bias adds one op per output: q_proj 2·10·3584·3584 + 10·3584 per layer, × 28 layers
    assert ops_of("qwen2-7b", "q_proj") == 28 * (2 * 10 * 3584 * 3584 + 10 * 3584)
    assert ops_of("qwen2-7b", "out_proj") == 28 * 2 * 10 * 3584 * 3584  # no bias on o_proj
    # GPT-NeoX turns a quarter of each 128-wide head: 3 ops × 10 tokens × (32 + 32) heads × 32 dims
    assert ops_of("pythia-6.9b", "rope") == 32 * 3 * 10 * 64 * 32
    assert ops_of("gpt-j-6b", "rope") == 28 * 3 * 10 * 32 * 64  # rotary_dim 64
    assert read_config("falcon-7b").kv_heads == 1  # multi-query
    assert (
        read_config(
            {
                **json.loads((CONFIG_DIR / "falcon-7b.json").read_text()),
                "new_decoder_architecture": True,
                "num_attention_heads": 64,
                "num_kv_heads": 8,
            }
        ).parallel
        == "two"
    )
    gemma2 = Workload.from_transformer("gemma-2-9b", batch=1, seq=10)
    assert {"attn_post_norm", "mlp_post_norm"} <= set(gemma2.names)
    assert read_config("gemma-7b").head_dim == 256 and read_config("gemma-7b").tied
    assert read_config("opt-6.7b").rotary is False and read_config("opt-6.7b").intermediate == 16384


def test_an_unknown_family_is_refused_with_the_supported_ones():
    with pytest.raises(CampaignWidgetError, match="model_type='bert' is not a known family; supported: ") as caught:
        read_config({"model_type": "bert", "hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1})
    assert all(family in str(caught.value) for family in FAMILIES)
    with pytest.raises(CampaignWidgetError, match="rotary_pct"):
        read_config({**json.loads((CONFIG_DIR / "pythia-6.9b.json").read_text()), "rotary_pct": 2})


def test_sliding_windows_cap_the_keys_attended_and_the_cache_held():
    phi3 = read_config("phi-3-mini-4k")
    assert (phi3.window, phi3.window_layers) == (2047, 32)
    gemma2 = read_config("gemma-2-9b")
    assert (gemma2.window, gemma2.window_layers) == (4096, 21)  # every other of 42 layers, from the first
    assert read_config("qwen2-7b").window == 0  # use_sliding_window is false
    windowed = {
        **json.loads((CONFIG_DIR / "qwen2-7b.json").read_text()),
        "use_sliding_window": True,
        "max_window_layers": 20,
    }
    assert (read_config(windowed).window, read_config(windowed).window_layers) == (131072, 8)

    def qk(name, kv_len, **options):
        w = Workload.from_transformer(name, batch=2, seq=16, stage="decode", kv_len=kv_len, **options)
        return float(w.arrays.ops[w.names.index("qk_matmul")])

    # Phi-3: 32 heads of 96 over at most 2047 keys on every layer
    assert qk("phi-3-mini-4k", 3000) == 32 * 2 * 2 * 32 * 2047 * 96 == qk("phi-3-mini-4k", 2047)
    # Gemma 2: 21 layers over all 6000 keys, 21 over the window's 4096
    assert qk("gemma-2-9b", 6000) == 2 * 2 * 16 * 256 * (21 * 6000 + 21 * 4096)
    assert qk("phi-3-mini-4k", 3000, counts="llm-viewer") == 32 * 2 * 2 * 32 * 3000 * 96  # LLM-Viewer: no window
    cache = cw.transformer.footprint("phi-3-mini-4k", batch=2, seq=16, stage="decode", kv_len=3000).kv_cache
    assert cache == 2 * 32 * 2 * 2047 * 32 * 96 * 2
    cache = cw.transformer.footprint("gemma-2-9b", batch=1, seq=16, stage="decode", kv_len=6000).kv_cache
    assert cache == 2 * (21 * 6000 + 21 * 4096) * 8 * 256 * 2


@pytest.mark.parametrize("name, seq", [("phi-3-mini-4k", 2040), ("gemma-2-9b", 4090)])
def test_a_generation_across_the_window_is_still_the_sum_of_its_steps(name, seq):
    n = 16
    whole = Workload.from_transformer(name, batch=2, seq=seq, stage="generate", new_tokens=n)
    parts = [Workload.from_transformer(name, batch=2, seq=seq)]
    parts += [Workload.from_transformer(name, batch=2, seq=seq, stage="decode", kv_len=seq + j) for j in range(n)]
    assert whole.arrays.ops.sum() == sum(p.arrays.ops.sum() for p in parts)
    assert whole.arrays.bytes.sum() == sum(p.arrays.bytes.sum() for p in parts)
    total = sum(p.arrays.duration.sum() for p in parts)
    assert whole.arrays.duration.sum() == pytest.approx(total, rel=1e-12)
