"""A compute peak per data type: each phase timed at the peak of its operands' type, one roof per type in use."""

from __future__ import annotations

import numpy as np
import pytest

from campaign_widget import CampaignWidgetError, Machine, Workload
from campaign_widget.figures.roofline import roofline_geometry

# LLM-Viewer's H100 (hahnyuan/LLM-Viewer hardwares/hardware_params.py at f307ca5a, "nvidia_H100_SXM"):
# bandwidth 3072e9, FP16 1979e12/2, INT8 3958e12/2. Its model_analyzer.py (get_hardware_info, the same on
# 01b269d6 and on its main branch) times the whole pass at INT8 when w_bit, a_bit and kv_bit are all <= 8,
# else at FP16.
FP16, INT8, BW = 1979e12 / 2, 3958e12 / 2, 3072e9
TYPED_H100 = Machine(peak_compute={"fp16": FP16, "int8": INT8}, peak_bandwidth=BW, name="H100 (LLM-Viewer)")


def test_a_w8a8_prefill_is_timed_at_the_int8_peak_as_llm_viewer_times_it():
    w = Workload.from_transformer(
        "llama-2-7b", batch=1, seq=1024, machine=TYPED_H100, dtype="int8", counts="llm-viewer"
    )
    q = w.names.index("q_proj")
    # LLM-Viewer's q_proj at seqlen 1024, batch 1 (ic = oc = 4096), all at 1 byte: OPs = 2·1024·4096·4096;
    # memory = 4096·4096 weights + 1024·4096 in + 1024·4096 out; compute-bound at the INT8 peak
    # (× its 32 layers: layers="count" carries the whole model's volumes on one layer's phases)
    ops, memory = 32 * 2 * 1024 * 4096 * 4096, 32 * (4096 * 4096 + 2 * 1024 * 4096)
    assert w.arrays.ops[q] == ops and w.arrays.bytes[q] == memory
    assert w.arrays.duration[q] == pytest.approx(max(ops / INT8, memory / BW), rel=1e-15)
    assert ops / INT8 > memory / BW
    # every phase at the INT8 peak: the pass on a machine whose one peak is INT8
    at_int8 = w.with_machine(Machine(peak_compute=INT8, peak_bandwidth=BW))
    np.testing.assert_array_equal(w.arrays.duration, at_int8.arrays.duration)
    at_fp16 = w.with_machine(Machine(peak_compute=FP16, peak_bandwidth=BW))
    assert at_fp16.arrays.duration.sum() > w.arrays.duration.sum()


def test_llm_viewer_mode_times_everything_at_fp16_when_one_operand_is_wider_than_8_bits():
    w = Workload.from_transformer(
        "llama-2-7b", batch=1, seq=1024, machine=TYPED_H100, dtype="int8", kv_dtype="fp16", counts="llm-viewer"
    )
    assert set(w.dtypes) == {"fp16"}
    assert set(w.compute_peaks) == {FP16}


def test_each_phase_runs_at_the_wider_of_its_operands_types():
    w = Workload.from_transformer(
        "llama-2-7b", batch=4, seq=512, machine="h100-sxm-tensor", dtype="int8", kv_dtype="fp16"
    )
    types = dict(zip(w.names, w.dtypes))
    assert types["q_proj"] == types["down_proj"] == "int8"  # int8 weights × int8 activations
    assert types["qk_matmul"] == types["sv_matmul"] == "fp16"  # int8 queries × an fp16 cache
    assert types["softmax"] == types["attn_norm"] == "int8"
    w4a16 = Workload.from_transformer("llama-2-7b", batch=4, seq=512, machine="h100-sxm-tensor", weight_dtype="int4")
    assert set(w4a16.dtypes) == {"fp16"}  # int4 weights are widened to the fp16 activations


def test_the_roofline_draws_one_roof_per_type_in_use():
    mixed = Workload.from_transformer(
        "llama-2-7b", batch=8, seq=1024, machine=TYPED_H100, dtype="int8", kv_dtype="fp16"
    )
    geometry = roofline_geometry(mixed, mixed.schedule())
    names = [name for name, _, _ in geometry.ceilings]
    assert names == ["int8 peak"]
    _, _, y = geometry.ceilings[0]
    assert y[-1] == INT8 and geometry.peak_compute == FP16 and geometry.y_range[1] >= INT8
    fp16 = Workload.from_transformer("llama-2-7b", batch=8, seq=1024, machine=TYPED_H100)
    assert roofline_geometry(fp16, fp16.schedule()).ceilings == ()
    # no int8 phase sits above its own roof: efficiency at most 1
    assert (roofline_geometry(mixed, mixed.schedule()).phases.efficiency <= 1 + 1e-12).all()


def test_without_typed_peaks_every_number_stays_the_same():
    one_peak = Machine(peak_compute=FP16, peak_bandwidth=BW)
    w = Workload.from_transformer("llama-2-7b", batch=2, seq=256, machine=one_peak, dtype="int8")
    untyped = w.with_dtypes({name: None for name in w.names})
    assert untyped.dtypes == (None,) * len(w)
    np.testing.assert_array_equal(w.arrays.duration, untyped.arrays.duration)
    assert set(w.compute_peaks) == {FP16}


def test_scaling_peak_compute_scales_every_typed_peak():
    faster = TYPED_H100.with_peaks(peak_compute=2 * FP16)
    assert dict(faster.peaks) == {"fp16": 2 * FP16, "int8": 2 * INT8}
    assert faster.peak_compute == 2 * FP16


def test_the_presets_carry_their_datasheet_rows():
    from campaign_widget.model.presets import machine

    h100 = dict(machine("h100-sxm-tensor").peaks)
    assert h100["fp16"] == h100["bf16"] == 989.5e12 and h100["int8"] == h100["fp8"] == 1979e12
    assert machine("h100-sxm-tensor").peak_compute == 989.5e12
    assert "fp8" not in dict(machine("a100-sxm-80gb-tensor").peaks)


@pytest.mark.parametrize(
    "build, words",
    [
        (lambda: Machine(peak_compute={"fp16": 0}, peak_bandwidth=1), "must be a finite number > 0"),
        (lambda: Machine(peak_compute={"fp16": "fast"}, peak_bandwidth=1), "must be a number"),
        (lambda: Machine(peak_compute={"fp17": 1e12}, peak_bandwidth=1), "not a known dtype"),
        (lambda: Machine(peak_compute={}, peak_bandwidth=1), "empty"),
        (lambda: Machine(peak_compute={"fp16": 1, "float16": 2}, peak_bandwidth=1), "fp16 twice"),
        (
            lambda: Workload.from_transformer("gpt2", batch=1, seq=8, machine=TYPED_H100, dtype="int4"),
            "no compute peak for int4; its types are fp16, int8",
        ),
        (
            lambda: Workload.from_transformer("gpt2", batch=1, seq=8, dtype="fp32").with_machine(TYPED_H100),
            "no compute peak for fp32",
        ),
    ],
)
def test_bad_peaks_are_refused_naming_the_types(build, words):
    with pytest.raises(CampaignWidgetError, match=words.replace("(", r"\(")):
        build()


def test_llm_viewer_mode_reads_prefill_queries_at_the_activations_width_as_its_main_branch_does():
    # LLM-Viewer's main (model_analyzer.py as its forks carry it, e.g. mmcclean-aws/LLM-Viewer at 29260ca2):
    # prefill qk_matmul load_act = seqlen·head_size·batch·kv_heads·a_byte, load_kv_cache the same at
    # kv_byte, store_act = seqlen²·batch·heads·a_byte. Llama-2-7B, batch 2, seqlen 512, a 16 bits, kv 8 bits.
    w = Workload.from_transformer(
        "llama-2-7b", batch=2, seq=512, machine=TYPED_H100, kv_dtype="int8", counts="llm-viewer"
    )
    qk = w.names.index("qk_matmul")
    expected = 512 * 128 * 2 * 32 * 2 + 512 * 128 * 2 * 32 * 1 + 512 * 512 * 2 * 32 * 2
    assert w.arrays.bytes[qk] == 32 * expected
