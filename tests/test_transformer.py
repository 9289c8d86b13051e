"""Transformer inference workloads from a model config (campaign_widget.model.transformer)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from campaign_widget import Machine, Workload, WorkloadError, sweep
from campaign_widget.model.transformer import NETWORK, presets, read_config

from_transformer = Workload.from_transformer

# Reference numbers from LLM-Viewer (hahnyuan/LLM-Viewer): model_analyzer.py at commit
# 01b269d600a36f674fd0e7952763f1560f39d368 with the config module of configs/Mixtral.py at that commit
# (Llama's linear layers and lm_head post-processing), hardwares/hardware_params.py at f307ca5a and
# roofline_model.py at f5bfeb2f, reconstructed in a separate venv (Python 3.11, no dependencies: the
# Hugging Face AutoConfig replaced by meta-llama/Llama-2-7b-hf's config.json fields) and run as
# ModelAnalyzer(config, "nvidia_H100_SXM").analyze(seqlen, batchsize) with w_bit = a_bit = kv_bit = 16.
# Per layer: (OPs, memory_access in bytes) of one decoder layer, lm_head once; total_time: its
# total_results[stage]["inference_time"] (the 16 layers' roofline times × 32, plus lm_head's), in s.
# Decode at seqlen=S is one new token per sequence attending to S tokens: our kv_len=S.
LLM_VIEWER_H100 = Machine(peak_compute=1979e12 / 2, peak_bandwidth=3072e9, name="nvidia_H100_SXM (LLM-Viewer)")
LLM_VIEWER = {
    "b1_s1024_prefill": {
        "q_proj": (34359738368, 50331648),
        "k_proj": (34359738368, 50331648),
        "v_proj": (34359738368, 50331648),
        "out_proj": (34359738368, 50331648),
        "gate_proj": (92341796864, 121110528),
        "up_proj": (92341796864, 121110528),
        "down_proj": (92341796864, 121110528),
        "qk_matmul": (8589934592, 83886080),
        "sv_matmul": (8589934592, 83886080),
        "softmax": (167772160, 134217728),
        "attn_norm": (29360128, 16777216),
        "mlp_norm": (29360128, 16777216),
        "attn_add": (4194304, 16777216),
        "mlp_add": (4194304, 16777216),
        "mlp_act": (8388608, 25165824),
        "lm_head": (131072000, 262216192),
        "total_time": 0.017595876276198085,
    },
    "b1_s1024_decode": {
        "q_proj": (33554432, 33570816),
        "k_proj": (33554432, 33570816),
        "v_proj": (33554432, 33570816),
        "out_proj": (33554432, 33570816),
        "gate_proj": (90177536, 90207744),
        "up_proj": (90177536, 90207744),
        "down_proj": (90177536, 90207744),
        "qk_matmul": (8388608, 8462336),
        "sv_matmul": (8388608, 8462336),
        "softmax": (163840, 131072),
        "attn_norm": (28672, 16384),
        "mlp_norm": (28672, 16384),
        "attn_add": (4096, 16384),
        "mlp_add": (4096, 16384),
        "mlp_act": (8192, 24576),
        "lm_head": (131072000, 262216192),
        "total_time": 0.004481735500000001,
    },
    "b8_s2048_prefill": {
        "q_proj": (549755813888, 301989888),
        "k_proj": (549755813888, 301989888),
        "v_proj": (549755813888, 301989888),
        "out_proj": (549755813888, 301989888),
        "gate_proj": (1477468749824, 585105408),
        "up_proj": (1477468749824, 585105408),
        "down_proj": (1477468749824, 585105408),
        "qk_matmul": (274877906944, 2415919104),
        "sv_matmul": (274877906944, 2415919104),
        "softmax": (5368709120, 4294967296),
        "attn_norm": (469762048, 268435456),
        "mlp_norm": (469762048, 268435456),
        "attn_add": (67108864, 268435456),
        "mlp_add": (67108864, 268435456),
        "mlp_act": (134217728, 402653184),
        "lm_head": (1048576000, 262216192),
        "total_time": 0.324992910585836,
    },
    "b8_s2048_decode": {
        "q_proj": (268435456, 33685504),
        "k_proj": (268435456, 33685504),
        "v_proj": (268435456, 33685504),
        "out_proj": (268435456, 33685504),
        "gate_proj": (721420288, 90419200),
        "up_proj": (721420288, 90419200),
        "down_proj": (721420288, 90419200),
        "qk_matmul": (134217728, 135331840),
        "sv_matmul": (134217728, 135331840),
        "softmax": (2621440, 2097152),
        "attn_norm": (229376, 131072),
        "mlp_norm": (229376, 131072),
        "attn_add": (32768, 131072),
        "mlp_add": (32768, 131072),
        "mlp_act": (65536, 196608),
        "lm_head": (1048576000, 262216192),
        "total_time": 0.007163287500000001,
    },
}
# The same run for Llama-3-8B (meta-llama/Meta-Llama-3-8B's config.json: 8 KV heads, grouped-query
# attention), analyze(4096, 4): its KV-cache reads at kv heads, and prefill's Q counted like K.
LLM_VIEWER_LLAMA3 = {
    "b4_s4096_prefill": {
        "q_proj": (549755813888, 301989888),
        "k_proj": (137438953472, 176160768),
        "v_proj": (137438953472, 176160768),
        "out_proj": (549755813888, 301989888),
        "gate_proj": (1924145348608, 721420288),
        "up_proj": (1924145348608, 721420288),
        "down_proj": (1924145348608, 721420288),
        "qk_matmul": (549755813888, 4362076160),
        "sv_matmul": (549755813888, 4462739456),
        "softmax": (10737418240, 8589934592),
        "attn_norm": (469762048, 268435456),
        "mlp_norm": (469762048, 268435456),
        "attn_add": (67108864, 268435456),
        "mlp_add": (67108864, 268435456),
        "mlp_act": (134217728, 402653184),
        "lm_head": (2101346304, 1050937856),
        "total_time": 0.42825009836280087,
    },
    "b4_s4096_decode": {
        "q_proj": (134217728, 33619968),
        "k_proj": (33554432, 8429568),
        "v_proj": (33554432, 8429568),
        "out_proj": (134217728, 33619968),
        "gate_proj": (469762048, 117587968),
        "up_proj": (469762048, 117587968),
        "down_proj": (469762048, 117587968),
        "qk_matmul": (134217728, 34635776),
        "sv_matmul": (134217728, 34635776),
        "softmax": (2621440, 2097152),
        "attn_norm": (114688, 65536),
        "mlp_norm": (114688, 65536),
        "attn_add": (16384, 65536),
        "mlp_add": (16384, 65536),
        "mlp_act": (32768, 98304),
        "lm_head": (2101346304, 1050937856),
        "total_time": 0.005639936833333333,
    },
}
LLM_VIEWER_FLASH = {
    # fused_attention (OPs, bytes) per layer, use_flashattention=True, same run
    "b1_s1024_prefill": (17347641344, 209715200),
    "b8_s2048_decode": (271056896, 136380416),
}


def _case(key):
    batch, seq, stage = key.split("_")
    return int(batch[1:]), int(seq[1:]), stage


def _llama2(key, **options):
    batch, seq, stage = _case(key)
    return from_transformer(
        "llama-2-7b", batch=batch, seq=seq, stage=stage, machine=LLM_VIEWER_H100, counts="llm-viewer", **options
    )


def _per_layer(w, name, layers=32):
    i = w.names.index(name)
    count = 1 if name == "lm_head" else layers
    return w.arrays.ops[i] / count, w.arrays.bytes[i] / count


@pytest.mark.parametrize(
    ("model", "key"),
    [("llama-2-7b", k) for k in sorted(LLM_VIEWER)] + [("llama-3-8b", k) for k in sorted(LLM_VIEWER_LLAMA3)],
)
def test_per_layer_ops_bytes_and_total_time_match_llm_viewer(model, key):
    batch, seq, stage = _case(key)
    w = from_transformer(model, batch=batch, seq=seq, stage=stage, machine=LLM_VIEWER_H100, counts="llm-viewer")
    ref = (LLM_VIEWER if model == "llama-2-7b" else LLM_VIEWER_LLAMA3)[key]
    layers = {n: v for n, v in ref.items() if n != "total_time"}
    assert sorted(w.names) == sorted(layers)
    for name, (ops, bytes_) in layers.items():
        got_ops, got_bytes = _per_layer(w, name)
        assert got_ops == pytest.approx(ops, rel=1e-12), name
        assert got_bytes == pytest.approx(bytes_, rel=1e-12), name
    assert float(w.schedule().makespan) == pytest.approx(ref["total_time"], rel=1e-12)
    assert float(w.arrays.duration.sum()) == pytest.approx(ref["total_time"], rel=1e-12)


def test_prefill_is_compute_bound_and_decode_memory_bound_on_the_projections():
    prefill, decode = _llama2("b8_s2048_prefill"), _llama2("b8_s2048_decode")
    q = prefill.names.index("q_proj")
    assert prefill.table()["bound"][q] == "compute"
    assert decode.table()["bound"][decode.names.index("q_proj")] == "memory"


def test_kv_len_is_a_parameter_and_moves_the_decode_volumes():
    w = from_transformer("llama-3-8b", batch=4, seq=1024, stage="decode")
    assert w.params == {"batch": 4, "kv_len": 1024}
    moved = w.with_params(kv_len=4096)
    built = from_transformer("llama-3-8b", batch=4, seq=4096, stage="decode")
    np.testing.assert_allclose(moved.arrays.ops, built.arrays.ops)
    np.testing.assert_allclose(moved.arrays.bytes, built.arrays.bytes)
    qk = w.names.index("qk_matmul")
    assert moved.arrays.bytes[qk] > 3 * w.arrays.bytes[qk]
    # the projections do not depend on the cache length
    q = w.names.index("q_proj")
    assert moved.arrays.bytes[q] == w.arrays.bytes[q]


def test_gqa_reads_the_cache_at_kv_heads_and_appends_one_token():
    w = from_transformer("llama-3-8b", batch=2, seq=1, stage="decode", kv_len=1000)
    reads, writes = w.tensors[w.names.index("qk_matmul")]
    # 32 layers × batch 2 × 1000 tokens × 8 kv heads × 128 dims × 2 bytes
    assert reads["Kcache"] == 32 * 2 * 1000 * 8 * 128 * 2
    assert reads["Qr"] == 32 * 2 * 32 * 128 * 2
    _, rope_writes = w.tensors[w.names.index("rope")]
    assert rope_writes["Kr"] == 32 * 2 * 8 * 128 * 2  # the new token's keys, one per sequence
    _, v_writes = w.tensors[w.names.index("v_proj")]
    assert v_writes["V"] == 32 * 2 * 8 * 128 * 2


def test_einsum_counts_differ_from_llm_viewer_only_where_documented():
    ours = from_transformer("llama-2-7b", batch=1, seq=1024, machine=LLM_VIEWER_H100)
    viewer = _llama2("b1_s1024_prefill")
    same = ["attn_norm", "q_proj", "v_proj", "out_proj", "qk_matmul", "softmax", "sv_matmul", "mlp_norm"]
    same += ["gate_proj", "up_proj", "down_proj"]
    for name in same:
        assert _per_layer(ours, name) == pytest.approx(_per_layer(viewer, name), rel=1e-12), name
    # the activation over intermediate_size columns, not hidden_size
    ops, bytes_ = _per_layer(ours, "mlp_act")
    assert (ops, bytes_) == (2 * 1024 * 11008, 3 * 1024 * 11008 * 2)
    # a residual add reads both operands
    assert _per_layer(ours, "attn_add")[1] == 3 * 1024 * 4096 * 2
    # the rotary embedding and the final norm are phases of their own; the LM head is 2·m·n·k
    assert "rope" in ours.names and "final_norm" in ours.names
    assert _per_layer(ours, "lm_head")[0] == 2 * 1 * 4096 * 32000
    # the keys move once more: k_proj writes them, rope writes the cache
    assert _per_layer(ours, "k_proj") == pytest.approx(_per_layer(viewer, "k_proj"), rel=1e-12)


def test_flash_attention_fuses_scores_softmax_and_values():
    plain = from_transformer("llama-2-7b", batch=1, seq=1024, machine=LLM_VIEWER_H100)
    flash = from_transformer("llama-2-7b", batch=1, seq=1024, machine=LLM_VIEWER_H100, flash_attention=True)
    group = ["qk_matmul", "softmax", "sv_matmul"]
    idx = [flash.names.index(n) for n in group]
    assert flash.fusion_groups == ("attention",)
    assert all(flash.fusion_group[i] == 0 for i in idx)
    assert flash.arrays.ops[idx].sum() == plain.arrays.ops[idx].sum()
    # Q, K, V read and O written once; the 1024 × 1024 scores and probabilities move nothing
    layer = 1024 * 32 * 128 * 2
    assert flash.arrays.bytes[idx].sum() / 32 == 4 * layer
    assert plain.arrays.bytes[idx].sum() / 32 == 4 * layer + 4 * 32 * 1024 * 1024 * 2
    # on purpose not LLM-Viewer's fused bytes (keys re-read per block, output counted at seq × seq)
    assert flash.arrays.bytes[idx].sum() / 32 < LLM_VIEWER_FLASH["b1_s1024_prefill"][1]
    assert float(flash.schedule().makespan) < float(plain.schedule().makespan)


def test_mixtral_routes_top_k_copies_and_reads_the_experts_used():
    one = from_transformer("mixtral-8x7b", batch=1, seq=1, stage="decode", kv_len=512)
    gate = one.names.index("gate_proj")
    reads, _ = one.tensors[gate]
    assert reads["W_gate_proj"] == 32 * 2 * 4096 * 14336 * 2  # two experts for one token
    assert one.arrays.ops[gate] == 32 * 2 * 2 * 4096 * 14336
    many = one.with_params(batch=64)
    reads, _ = many.tensors[gate]
    assert reads["W_gate_proj"] == 32 * 8 * 4096 * 14336 * 2  # every expert, read once
    assert {"router", "combine"} <= set(one.names)


def test_tensor_parallel_splits_heads_and_adds_all_reduces_on_the_network():
    one = from_transformer("llama-3-8b", batch=8, seq=512)
    two = from_transformer("llama-3-8b", batch=8, seq=512, tensor_parallel=2, interconnect=450e9)
    assert NETWORK in two.machine.level_names
    for name in ("q_proj", "qk_matmul", "gate_proj"):
        assert two.arrays.ops[two.names.index(name)] == one.arrays.ops[one.names.index(name)] / 2
    ar = two.names.index("attn_allreduce")
    level = two.machine.level_names.index(NETWORK)
    # ring all-reduce: 2·(N-1)/N of the 8·512 × 4096 fp16 activations, per layer
    assert two.arrays.level_bytes[ar, level] == 32 * 8 * 512 * 4096 * 2
    assert two.arrays.duration[ar] == pytest.approx(32 * 8 * 512 * 4096 * 2 / 450e9)
    assert two.table()["bound_resource"][ar] == NETWORK


def test_repeated_layers_have_the_makespan_of_one_layer_with_a_count():
    counted = from_transformer("gpt2", batch=2, seq=128)
    repeated = from_transformer("gpt2", batch=2, seq=128, layers="repeat")
    assert len(repeated) == 12 * (len(counted) - 2) + 2
    assert repeated.names[:2] == ["L0.attn_norm", "L0.q_proj"]
    assert float(repeated.schedule().makespan) == pytest.approx(float(counted.schedule().makespan), rel=1e-12)
    # the layers are chained: layer 1 reads layer 0's output
    reads, _ = repeated.tensors[repeated.names.index("L1.attn_norm")]
    assert "L0.Y" in reads


def test_gpt2_has_a_plain_mlp_and_no_rotary_embedding():
    w = from_transformer("gpt2", batch=1, seq=64)
    assert "gate_proj" not in w.names and "rope" not in w.names
    up = w.names.index("up_proj")
    assert w.arrays.ops[up] == 12 * 2 * 64 * 768 * 3072


def test_every_preset_loads_and_a_local_config_json_reads_the_same(tmp_path):
    assert set(presets()) >= {"llama-2-7b", "llama-3-8b", "mistral-7b", "mixtral-8x7b", "gpt2"}
    for name in presets():
        assert read_config(name).layers >= 1
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
                                "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 32,
                                "vocab_size": 128256}))  # fmt: skip
    local, preset = read_config(path), read_config("llama-3-8b")
    assert (local.kv_heads, local.intermediate, local.vocab, local.name) == (8, 14336, 128256, "config")
    assert {**local.__dict__, "name": ""} == {**preset.__dict__, "name": ""}
    w = Workload.from_transformer(str(path), batch=1, seq=16)
    assert w.params == {"batch": 1, "seq": 16}


def test_a_null_num_key_value_heads_is_multi_head_attention():
    assert read_config({**LLAMA, "num_key_value_heads": None}).kv_heads == 4
    assert read_config({k: v for k, v in LLAMA.items() if k != "num_key_value_heads"}).kv_heads == 4


def test_a_sweep_over_batch_and_kv_len_moves_decode():
    w = from_transformer("llama-3-8b", batch=1, seq=1024, stage="decode")
    result = sweep(w, batch=[1, 64], kv_len=[512, 4096], progress=False)
    makespan = result["makespan"]
    assert len(makespan) == 4 and np.all(np.diff(makespan) > 0)


LLAMA = {"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
         "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 100}  # fmt: skip


@pytest.mark.parametrize(
    ("config", "options", "message"),
    [
        (
            {k: v for k, v in LLAMA.items() if k != "intermediate_size"},
            {},
            "llama config: the field 'intermediate_size' is missing",
        ),
        ({**LLAMA, "hidden_size": 66}, {}, "hidden size 66 is not divisible by the 4 attention heads"),
        ({**LLAMA, "num_key_value_heads": 3}, {}, "num_key_value_heads=3 does not divide num_attention_heads=4"),
        (LLAMA, {"tensor_parallel": 3}, "tensor_parallel=3 does not divide num_attention_heads=4"),
        (LLAMA, {"stage": "decode", "kv_len": 0}, "kv_len=0 must be >= 1"),
        (LLAMA, {"dtype": "fp12"}, "dtype='fp12' is not a known dtype"),
        (LLAMA, {"kv_dtype": "int3"}, "kv_dtype='int3' is not a known dtype"),
        (LLAMA, {"stage": "train"}, "stage='train' must be one of prefill, decode"),
        ({**LLAMA, "model_type": "bert"}, {}, "model_type='bert' is not a known family"),
        ({**LLAMA, "model_type": "mixtral"}, {}, "mixtral config: the field 'num_local_experts' is missing"),
        ({**LLAMA, "num_hidden_layers": "32"}, {}, "llama config: num_hidden_layers='32' must be a whole number"),
        ("no-such-model", {}, "no such file and no such preset"),
    ],
)
def test_bad_input_is_refused_before_any_work(config, options, message):
    with pytest.raises(WorkloadError, match=message.replace("(", r"\(").replace("[", r"\[")):
        from_transformer(config, **{"batch": 1, "seq": 8, **options})


def test_prefill_beside_decode_overlaps_when_pipelined():
    from campaign_widget.model.transformer import side_by_side

    prefill = from_transformer("llama-3-8b", batch=1, seq=512, flash_attention=True)
    decode = from_transformer("llama-3-8b", batch=32, seq=2048, stage="decode", flash_attention=True)
    both = side_by_side({"prefill": prefill, "decode": decode})
    assert both.names[0] == "prefill.attn_norm" and "decode.lm_head" in both.names
    assert both.fusion_groups == ("prefill.attention", "decode.attention")
    alone = float(prefill.schedule().makespan) + float(decode.schedule().makespan)
    assert float(both.schedule().makespan) == pytest.approx(alone, rel=1e-12)
    np.testing.assert_allclose(both.arrays.bytes.sum(), prefill.arrays.bytes.sum() + decode.arrays.bytes.sum())
    raw = both.schedule(tiles=8, pipeline=True, policy="none")
    throttled = both.schedule(tiles=8, pipeline=True, policy="dilate+throttle")
    assert raw.oversubscribed and not throttled.oversubscribed
    assert float(throttled.makespan) < alone


def test_a_kv_len_slider_moves_the_decode_diagram():
    pytest.importorskip("anywidget")
    from campaign_widget.views.diagram import CampaignDiagram

    w = from_transformer("llama-3-8b", batch=8, seq=1024, stage="decode")
    diagram = CampaignDiagram(w)
    assert diagram.params == {"batch": 8, "kv_len": 1024}
    before = diagram.makespan
    diagram.params = {"kv_len": 8192}
    assert diagram.makespan > before
    assert diagram.makespan == pytest.approx(float(w.with_params(kv_len=8192).schedule().makespan))
