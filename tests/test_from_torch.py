"""Workload.from_torch: phases from torch.export's graph, FLOPs checked against PyTorch's own FlopCounterMode,
bytes from tensor sizes, Inductor's fusion read from its scheduler, dynamic dimensions as parameters, and
the errors of bad input (docs/from-code.md#pytorch)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from workloads import require_torch

from campaign_widget import ArgumentError, Workload, WorkloadError, WrongTypeError

torch = require_torch()
nn = torch.nn
from torch.utils.flop_counter import FlopCounterMode  # noqa: E402 - after the check that torch is there

COUNTED = "FlopCounterMode"


def counter_total(module, *inputs) -> int:
    """FlopCounterMode's own total for one call of the module (on meta tensors: nothing is computed)."""
    with FlopCounterMode(display=False) as counter:
        module(*inputs)
    return int(counter.get_total_flops())


def counted(workload) -> float:
    """The FLOPs of the phases whose count is FlopCounterMode's."""
    report = workload.import_report
    index = {n: i for i, n in enumerate(workload.names)}
    return float(sum(workload.arrays.ops[index[p.name]] for p in report.phases if p.flops == COUNTED))


def small_cnn():
    """A torchvision-style CNN: conv-bn-relu stages, a residual add, pooling, a classifier."""

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
            self.conv2, self.bn2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(self.bn2(self.conv2(y)) + x)

    return nn.Sequential(
        nn.Conv2d(3, 16, 7, stride=2, padding=3, bias=False),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.MaxPool2d(3, stride=2, padding=1),
        Block(16),
        nn.Conv2d(16, 32, 3, stride=2, padding=1),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(32, 10),
    ).eval()


def mlp():
    return nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))


def on_meta(make):
    with torch.device("meta"):
        return make()


MODELS = {
    "cnn": (lambda: on_meta(small_cnn), (2, 3, 32, 32)),
    "mlp": (lambda: on_meta(mlp), (8, 64)),
    "transformer-layer": (
        lambda: on_meta(lambda: nn.TransformerEncoderLayer(64, 4, 128, batch_first=True).eval()),
        (2, 12, 64),
    ),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_total_flops_equal_flop_counter_modes(name):
    make, shape = MODELS[name]
    model = make()
    x = torch.randn(*shape, device="meta")
    workload = Workload.from_torch(model, x)
    expected = counter_total(model, x)
    assert expected > 0
    assert counted(workload) == expected
    assert f"{expected:,} counted by torch.utils.flop_counter.FlopCounterMode" in "\n".join(
        workload.import_report.notes
    )


def test_a_dynamic_batch_and_sequence_stay_parameters_and_the_flops_follow_the_counter():
    model = on_meta(lambda: nn.TransformerEncoderLayer(32, 4, 64, batch_first=True).eval())
    batch, seq = torch.export.Dim("batch"), torch.export.Dim("seq")
    x = torch.randn(2, 6, 32, device="meta")
    workload = Workload.from_torch(model, x, dynamic_shapes=({0: batch, 1: seq},))
    assert workload.params == {"batch": 2, "seq": 6}
    assert counted(workload) == counter_total(model, x)
    for b, s in ((3, 6), (2, 17), (5, 9)):
        moved = workload.with_params(batch=b, seq=s)
        assert counted(moved) == counter_total(model, torch.randn(b, s, 32, device="meta"))
    # bytes follow too: the input's read doubles with the batch
    first = workload.tensors[0][0]
    reads = workload.with_params(batch=4).tensors[0][0]
    assert {k: 2 * v for k, v in first.items() if k == "x"} == {k: v for k, v in reads.items() if k == "x"}


def test_a_linears_bytes_are_its_input_weight_bias_and_output_and_views_are_no_phases():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 8)

        def forward(self, x):
            return torch.relu(self.fc(x.view(4, 16)).t())

    workload = Workload.from_torch(on_meta(Net), torch.randn(2, 2, 16, device="meta"))
    assert workload.names == ["linear", "relu"]  # the view and the transpose move nothing
    (reads, writes), (relu_reads, relu_writes) = workload.tensors
    assert reads == {"x": 4 * 16 * 4, "fc.weight": 8 * 16 * 4, "fc.bias": 8 * 4}
    assert writes == {"linear": 4 * 8 * 4}
    assert relu_reads == {"linear": 4 * 8 * 4}  # the transpose stands for the tensor it views
    indptr, indices = workload.producers
    assert indices[indptr[1] : indptr[2]].tolist() == [0]


def test_the_element_type_sets_the_bytes():
    model = on_meta(lambda: nn.Linear(8, 8).to(torch.float16))
    workload = Workload.from_torch(model, torch.randn(4, 8, device="meta", dtype=torch.float16))
    assert workload.tensors[0][0] == {"input": 4 * 8 * 2, "weight": 8 * 8 * 2, "bias": 8 * 2}  # Linear's argument


def test_operators_without_a_counter_formula_get_the_op_models_and_are_named():
    workload = Workload.from_torch(lambda x: torch.softmax(x * 2, -1), torch.randn(4, 10, device="meta"))
    report = workload.import_report
    assert report.flops_sources == {"mul": "op model", "softmax": "op model"}
    assert workload.arrays.ops.tolist() == [40, 5 * 40]  # one per element; softmax five (max, sub, exp, sum, div)
    assert any("our operator models: mul, softmax" in n for n in report.notes)


def test_an_operator_no_model_knows_is_a_phase_of_unknown_flops_listed_never_zero():
    workload = Workload.from_torch(lambda x: torch.sort(x, -1).values + 1, torch.randn(4, 10, device="meta"))
    report = workload.import_report
    assert report.flops_sources["sort"] == "unknown"
    assert np.isnan(report.phase("sort").ops)
    assert any("FLOPs unknown" in n and "sort" in n for n in report.notes)
    assert workload.tensors[workload.names.index("sort")][0] == {"x": 160}  # its bytes are known


def test_a_module_with_real_weights_on_the_cpu_is_not_run():
    calls = []

    class Counting(nn.Linear):
        def forward(self, x):
            calls.append(type(x).__name__)
            return super().forward(x)

    model = Counting(8, 4)
    weight = model.weight.detach().clone()
    workload = Workload.from_torch(model, torch.randn(3, 8))
    assert workload.names == ["linear"]
    assert calls == ["FakeTensor"]  # traced once, on fake tensors: nothing computed
    assert torch.equal(model.weight, weight)


def test_a_machine_gives_seconds():
    workload = Workload.from_torch(on_meta(mlp), torch.randn(8, 64, device="meta"), machine="h100-sxm")
    assert workload.machine.name and "H100" in workload.machine.name
    assert workload.import_report.machine_source == ""
    assert float(workload.arrays.duration.sum()) < 1e-3


# -- Inductor's fusion --------------------------------------------------------------------------------------


def pointwise_chain(x, w):
    return torch.relu(x @ w) * 2 + 1


def test_inductor_fuses_a_pointwise_chain_and_a_fused_group_moves_only_its_inputs_and_outputs():
    x, w = torch.randn(64, 32, device="meta"), torch.randn(32, 48, device="meta")
    unfused = Workload.from_torch(pointwise_chain, x, w)
    fused = Workload.from_torch(pointwise_chain, x, w, fuse="inductor")
    assert unfused.fusion_groups == ()
    groups = {label: [n for n, g in zip(fused.names, fused.fusion_group) if fused.fusion_groups[g] == label]
              for label in fused.fusion_groups}  # fmt: skip
    assert sorted(groups.values()) == [["matmul"], ["relu", "mul", "add"]]
    out = 64 * 48 * 4
    i = fused.names.index
    # inside the group relu's and mul's outputs stay on chip: the group reads matmul's output, writes add's
    assert fused.arrays.bytes[i("relu")] + fused.arrays.bytes[i("mul")] + fused.arrays.bytes[i("add")] == 2 * out
    assert unfused.arrays.bytes.sum() - fused.arrays.bytes.sum() == 4 * out
    assert fused.arrays.ops.tolist() == unfused.arrays.ops.tolist()
    assert any("Inductor's scheduler made" in n for n in fused.import_report.notes)
    assert "fused by: Inductor (torch.compile's scheduler)" in fused.import_report.notes


def sum_then_exp(x):
    s = x.sum(-1, keepdim=True)
    return torch.exp(x - s)


def test_the_groups_are_inductors_own_its_fusion_limit_changes_them():
    from torch._inductor import config

    x = torch.randn(64, 32, device="meta")
    fused = Workload.from_torch(sum_then_exp, x, fuse="inductor")
    assert fused.names == ["sum_1", "sub", "exp"]
    assert fused.fusion_group.tolist() == [0, 0, 0]  # the scheduler fuses the reduction with what reads it
    with config.patch(max_fusion_size=1):  # the scheduler may fuse nothing: sub and exp stay one kernel (lowering)
        limited = Workload.from_torch(sum_then_exp, x, fuse="inductor")
    assert limited.fusion_group.tolist() == [0, 1, 1]
    assert len(limited.fusion_groups) == 2


@pytest.mark.slow
def test_a_transformer_layer_fused_by_inductor_keeps_the_counters_flops_and_moves_fewer_bytes():
    model = on_meta(lambda: nn.TransformerEncoderLayer(32, 4, 64, batch_first=True).eval())
    x = torch.randn(2, 6, 32, device="meta")
    batch = torch.export.Dim("batch")
    fused = Workload.from_torch(model, x, fuse="inductor", dynamic_shapes=({0: batch},))
    unfused = Workload.from_torch(model, x, dynamic_shapes=({0: batch},))
    assert counted(fused) == counter_total(model, x)
    assert fused.arrays.bytes.sum() < unfused.arrays.bytes.sum()
    assert len(fused.fusion_groups) < len(fused)
    # the groups follow the batch too
    assert counted(fused.with_params(batch=5)) == counter_total(model, torch.randn(5, 6, 32, device="meta"))


# -- bad input ----------------------------------------------------------------------------------------------


def test_data_dependent_control_flow_is_named():
    def branchy(x):
        if x.sum() > 0:
            return x * 2
        return x

    with pytest.raises(WorkloadError, match="data-dependent control flow") as caught:
        Workload.from_torch(branchy, torch.randn(4))
    assert "torch.fx.symbolic_trace" in str(caught.value)


def test_a_module_that_does_not_export_says_why_and_offers_fx():
    class Strange(nn.Module):
        def forward(self, x):
            return x.numpy()

    with pytest.raises(WorkloadError, match="torch.export could not capture") as caught:
        Workload.from_torch(Strange(), torch.randn(3))
    assert "symbolic_trace" in str(caught.value)


@pytest.mark.parametrize(
    ("bad", "where"),
    [(np.ones(3), r"example_inputs\[0\]"), ([torch.ones(2), "text"], r"example_inputs\[0\]\[1\]")],
)
def test_example_inputs_of_the_wrong_kind_are_named(bad, where):
    with pytest.raises(WrongTypeError, match=where):
        Workload.from_torch(lambda x: x + 1, bad)


def test_no_example_input_no_module_and_an_unknown_fusion_are_refused():
    with pytest.raises(ArgumentError, match="example inputs"):
        Workload.from_torch(nn.Linear(2, 2))
    with pytest.raises(WrongTypeError, match="torch.nn.Module"):
        Workload.from_torch("model", torch.ones(2))
    with pytest.raises(ArgumentError, match="fuse='triton'"):
        Workload.from_torch(nn.Linear(2, 2), torch.ones(2), fuse="triton")


def test_a_graph_inductor_cannot_compile_is_said(monkeypatch):
    import torch._inductor.compile_fx as compile_fx

    def refuse(gm, inputs, **_):
        raise RuntimeError("no lowering for aten.frobnicate")

    monkeypatch.setattr(compile_fx, "compile_fx", refuse)
    with pytest.raises(WorkloadError, match="Inductor could not compile the graph: no lowering for aten.frobnicate"):
        Workload.from_torch(
            pointwise_chain, torch.randn(4, 4, device="meta"), torch.eye(4, device="meta"), fuse="inductor"
        )


def test_without_torch_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match=r"pip install 'campaign_widget\[torch\]'") as caught:
        Workload.from_torch(object(), 1)
    assert "\n" not in str(caught.value)


# -- a peer counter's conventions ---------------------------------------------------------------------------

#: fvcore's FlopCountAnalysis of small_cnn() on a (2, 3, 32, 32) input, by operator, written here from a run
#: in a separate environment (fvcore 0.1.5.post20221221 beside torch 2.13.0; fvcore is no dependency):
#: ``FlopCountAnalysis(small_cnn(), torch.randn(2, 3, 32, 32)).by_operator()``; it had no count for
#: ``aten::max_pool2d`` and ``aten::add``.
FVCORE = {"conv": 1941504, "batch_norm": 24576, "adaptive_avg_pool2d": 1024, "linear": 640}


def test_against_fvcore_two_flops_per_multiply_add_and_the_other_conventions():
    workload = Workload.from_torch(on_meta(small_cnn), torch.randn(2, 3, 32, 32, device="meta"))
    report = workload.import_report

    def ours(operator):
        return sum(p.ops for p in report.phases if p.details["operator"] == operator)

    # a multiply-add: fvcore one "flop", PyTorch's counter (and so we) two
    assert ours("aten.conv2d.default") == 2 * FVCORE["conv"]
    assert ours("aten.linear.default") == 2 * FVCORE["linear"]
    # an eval-mode batch norm: fvcore two per element, our operator model five (as for every norm)
    assert ours("aten.batch_norm.default") == 5 / 2 * FVCORE["batch_norm"]
    # pooling: fvcore counts the average pool's inputs and nothing for the max pool; we know neither
    assert report.flops_sources["adaptive_avg_pool2d"] == report.flops_sources["max_pool2d"] == "unknown"
    # elementwise: fvcore skips the residual add and the ReLUs; we count one per element
    assert report.flops_sources["add"] == "op model" and report.phase("add").ops == 2 * 16 * 8 * 8


# -- the optional libraries load only when called -----------------------------------------------------------


def test_importing_the_package_imports_none_of_the_optional_libraries():
    import subprocess

    code = "import campaign_widget, sys; print(sorted(m for m in ('torch', 'jax', 'dace') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_kind_no_builder_is_registered_for_is_said():
    from campaign_widget.model.code_builders import build_from_code

    with pytest.raises(WorkloadError, match="Workload.from_tensorflow has no builder"):
        build_from_code("tensorflow")
