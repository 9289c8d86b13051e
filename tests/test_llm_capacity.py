"""A transformer's memory footprint per device (campaign_widget.transformer.footprint) against a machine's capacity."""

from __future__ import annotations

import pytest

import campaign_widget as cw
from campaign_widget import CampaignWidgetError, Machine

footprint = cw.transformer.footprint

# LLM-Viewer's figures for meta-llama/Llama-2-7b-hf (hidden 4096, 32 layers, 32 heads and KV heads,
# intermediate 11008). LLM-Viewer is not on a registry this build reaches, so they are computed by hand
# from its released code: hahnyuan/LLM-Viewer model_analyzer.py, the "memory footprint" block of
# ModelAnalyzer.analyze, the same at commits 01b269d600a36f674fd0e7952763f1560f39d368 and
# a626beedd238997aee3ad07e9bb6964ac713af24:
#   memory_consumption_weight   = 32 layers × Σ linear ic·oc·w_byte (q, k, v, o: 4096·4096; gate, up,
#                                 down: 4096·11008; computed before the LM head is added)
#   memory_consumption_kv_cache = 32 layers × (k_proj + v_proj store_kv_cache) = 32·2·batch·seqlen·4096·kv_byte
#   memory_consumption_tmp_act  = Σ of one layer's store_act in the stage (k_proj, v_proj store 0)
LAYER_PARAMS = 4 * 4096 * 4096 + 3 * 4096 * 11008


def viewer_tmp_act(tokens: int, attended: int, batch: int, a_byte: float) -> float:
    """One layer's store_act: q, o, down, sv, two norms, two adds, mlp_act write tokens·4096; gate and up
    tokens·11008; qk and softmax batch·32·tokens/batch·attended scores each."""
    return (9 * tokens * 4096 + 2 * tokens * 11008 + 2 * 32 * tokens * attended) * a_byte


LLM_VIEWER = [
    # (options, weights, kv_cache, tmp_act)
    (dict(batch=1, seq=1024), 32 * LAYER_PARAMS * 2, 32 * 2 * 1 * 1024 * 4096 * 2, viewer_tmp_act(1024, 1024, 1, 2)),
    (
        dict(batch=1, seq=1024, stage="decode"),
        32 * LAYER_PARAMS * 2,
        32 * 2 * 1 * 1024 * 4096 * 2,
        viewer_tmp_act(1, 1024, 1, 2),
    ),
    (
        dict(batch=8, seq=2048, weight_dtype="int4", kv_dtype="int8"),
        32 * LAYER_PARAMS * 0.5,
        32 * 2 * 8 * 2048 * 4096 * 1,
        viewer_tmp_act(8 * 2048, 2048, 8, 2),
    ),
]


@pytest.mark.parametrize("options, weights, kv_cache, tmp_act", LLM_VIEWER)
def test_llama_2_7b_footprint_is_llm_viewers(options, weights, kv_cache, tmp_act):
    f = footprint("llama-2-7b", counts="llm-viewer", **options)
    assert (f.weights, f.kv_cache, f.activations) == (weights, kv_cache, tmp_act)
    assert f.total == weights + kv_cache + tmp_act  # its memory_consumption


def test_our_counts_add_the_lm_head_and_the_embedding_and_keep_the_largest_operation():
    viewer = footprint("llama-2-7b", batch=1, seq=1024, counts="llm-viewer")
    ours = footprint("llama-2-7b", batch=1, seq=1024)
    assert ours.weights == viewer.weights + 2 * 4096 * 32000 * 2  # an untied LM head and embedding table
    assert ours.kv_cache == viewer.kv_cache
    # the largest live operation of a 1024-token prefill: softmax reads and writes 32·1024·1024 scores
    assert ours.activations == 2 * 32 * 1024 * 1024 * 2
    gpt2 = footprint("gpt2", batch=1, seq=16)
    assert gpt2.weights == (12 * (4 * 768 * 768 + 2 * 768 * 3072) + 768 * 50257) * 2  # tied: counted once


def test_grouped_query_attention_caches_the_kv_heads_and_tensor_parallel_splits_per_device():
    llama3 = footprint("llama-3-8b", batch=4, seq=8192, stage="decode")
    assert llama3.kv_cache == 32 * 2 * 4 * 8192 * 8 * 128 * 2  # 8 KV heads of 128
    one = footprint("llama-2-7b", batch=4, seq=512, counts="llm-viewer")
    two = footprint("llama-2-7b", batch=4, seq=512, counts="llm-viewer", tensor_parallel=2)
    assert two.weights == one.weights / 2 and two.kv_cache == one.kv_cache / 2


def test_a_generation_holds_the_cache_of_the_prompt_and_the_new_tokens():
    f = footprint("llama-2-7b", batch=2, seq=1000, stage="generate", new_tokens=24)
    assert f.kv_cache == footprint("llama-2-7b", batch=2, seq=1024).kv_cache


def test_a_mixed_step_holds_the_running_caches_and_the_new_prompts():
    mixed = footprint("llama-3-8b", batch=32, seq=512, kv_len=2048, stage="mixed")
    alone = (
        footprint("llama-3-8b", batch=1, seq=512).kv_cache
        + footprint("llama-3-8b", batch=32, seq=2048, stage="decode").kv_cache
    )
    assert mixed.kv_cache == alone


def test_capacity_says_whether_it_fits_the_headroom_and_the_largest_batch_and_length():
    h100 = Machine(989.5e12, 3.35e12, capacity=80e9)
    f = footprint("llama-2-7b", batch=16, seq=4096, stage="decode", machine=h100)
    assert f.capacity == 80e9 and f.fits is (f.total <= 80e9) and f.headroom == 80e9 - f.total
    for size, value in f.largest.items():
        at = {"batch": 16, "kv_len": 4096, size: value}
        over = {**at, size: value + 1}
        assert footprint("llama-2-7b", seq=4096, stage="decode", machine=h100, **at).fits
        assert not footprint("llama-2-7b", seq=4096, stage="decode", machine=h100, **over).fits
    assert set(f.largest) == {"batch", "kv_len"}
    too_big = footprint("llama-2-7b", batch=256, seq=32768, stage="decode", machine=h100)
    assert too_big.fits is False and too_big.headroom < 0 and "does NOT fit" in too_big.describe()
    assert footprint("llama-2-7b", batch=1, seq=8).capacity is None  # the default machine gives none


def test_capacity_per_memory_level_and_the_footprint_against_the_farthest():
    m = Machine(19.5e12, levels={"L2": 7.2e12, "HBM": 2.0e12}, capacity={"L2": 40e6, "HBM": 80e9})
    assert m.capacity_of("L2") == 40e6 and m.capacity_of() == 80e9
    f = footprint("llama-2-7b", batch=1, seq=128, machine=m)
    assert f.capacity == 80e9 and f.level == "HBM"
    assert cw.model.presets.machine("h100-sxm").capacity_of() == 80e9


def test_capacity_and_typed_peaks_survive_a_workload_file(tmp_path):
    for preset in ("a100-sxm-80gb-levels", "h100-sxm-tensor"):
        w = cw.Workload([cw.Phase("g", ops=1e12, bytes=1e9)], machine=preset)
        again = cw.load(cw.save(w, tmp_path / f"{preset}.yaml"))
        assert again.machine == w.machine and again.machine.capacity and again.machine.capacity == w.machine.capacity
    text = "machine: {preset: h100-sxm-tensor, peak_compute: 1979e12}\nphases:\n- {name: a, ops: 1e12, bytes: 1e9}\n"
    (tmp_path / "faster.yaml").write_text(text)
    peaks = dict(cw.load(tmp_path / "faster.yaml").machine.peaks)
    assert peaks["fp16"] == 1979e12 and peaks["int8"] == 2 * 1979e12  # the preset's peaks, scaled together


@pytest.mark.parametrize(
    "build, words",
    [
        (lambda: Machine(1, 1, capacity=0), "capacity of 'memory'=0 must be a finite number > 0"),
        (lambda: Machine(1, 1, capacity=-5e9), "must be a finite number > 0"),
        (lambda: Machine(1, 1, capacity="80GB"), "must be a number"),
        (lambda: Machine(1, 1, capacity={"HBM": 1}), "no memory level; its levels are memory"),
        (lambda: footprint("llama-2-7b", batch=0, seq=8), "batch=0 must be >= 1"),
        (lambda: footprint("llama-2-7b", batch=1, seq=8, dtype="fp5"), "not a known dtype"),
        (lambda: footprint("llama-2-7b", batch=1, seq=8, stage="generate"), "needs new_tokens"),
    ],
)
def test_bad_capacity_and_options_are_refused(build, words):
    with pytest.raises(CampaignWidgetError, match=words):
        build()
