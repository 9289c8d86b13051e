"""Writes the small hand-made traces of this folder (run it to regenerate them; see README.md)."""

import gzip
import json
from pathlib import Path

HERE = Path(__file__).parent


def ev(ph="X", **kw):
    return {"ph": ph, **kw}


def gpu_linked():
    """One training-style step on a GPU: aten::linear (with its aten::t and aten::addmm) launching two
    kernels, aten::relu launching one kernel linked only by its correlation id, an unlinked kernel, a
    memcpy and flow events."""
    cpu = dict(pid=10, tid=10)
    gpu = dict(pid=0, tid=7)
    events = [
        ev(cat="cpu_op", name="aten::linear", ts=100, dur=50, **cpu,
           args={"External id": 1, "Input Dims": [[8, 64], [32, 64], [32]], "Input type": ["float"] * 3}),
        ev(cat="cpu_op", name="aten::t", ts=102, dur=3, **cpu,
           args={"External id": 2, "Input Dims": [[32, 64]], "Input type": ["float"]}),
        ev(cat="cpu_op", name="aten::addmm", ts=106, dur=40, **cpu,
           args={"External id": 3, "Input Dims": [[32], [8, 64], [64, 32], [], []],
                 "Input type": ["float", "float", "float", "Scalar", "Scalar"]}),
        ev(cat="cuda_runtime", name="cudaLaunchKernel", ts=110, dur=5, **cpu,
           args={"External id": 3, "cbid": 211, "correlation": 11}),
        ev(ph="s", id=11, ts=110, cat="ac2g", name="ac2g", **cpu),
        ev(cat="cuda_runtime", name="cudaLaunchKernel", ts=120, dur=5, **cpu,
           args={"External id": 3, "cbid": 211, "correlation": 12}),
        ev(cat="cpu_op", name="aten::relu", ts=160, dur=20, **cpu,
           args={"External id": 4, "Input Dims": [[8, 32]], "Input type": ["float"]}),
        ev(cat="cuda_runtime", name="cudaLaunchKernel", ts=165, dur=5, **cpu,
           args={"External id": 4, "cbid": 211, "correlation": 13}),
        ev(cat="cuda_runtime", name="cudaLaunchKernel", ts=190, dur=5, **cpu, args={"cbid": 211, "correlation": 14}),
        ev(cat="kernel", name="ampere_sgemm_32x32_sliced1x4_tn", ts=130, dur=4, **gpu,
           args={"External id": 3, "correlation": 11, "stream": 7, "grid": [4, 1, 1]}),
        ev(ph="f", id=11, ts=130, cat="ac2g", name="ac2g", bp="e", **gpu),
        ev(cat="kernel", name="void splitKreduce_kernel<32, 16, int, float>(cublasSplitKParams<float>)", ts=135,
           dur=1, **gpu, args={"External id": 3, "correlation": 12}),
        ev(cat="kernel", name="void at::native::vectorized_elementwise_kernel<4, at::native::relu>(int)", ts=170,
           dur=2, **gpu, args={"correlation": 13}),
        ev(cat="kernel", name="mystery_kernel", ts=200, dur=3, **gpu, args={"correlation": 14}),
        ev(cat="gpu_memcpy", name="Memcpy DtoH (Device -> Pinned)", ts=210, dur=2, **gpu,
           args={"correlation": 15, "bytes": 1024}),
        ev(ph="M", name="thread_name", pid=0, tid=7, args={"name": "stream 7"}),
    ]  # fmt: skip
    return {"schemaVersion": 1, "record_shapes": 1, "traceEvents": events, "traceName": "gpu_linked"}


def pytorch18():
    """The layout PyTorch 1.8-1.9 wrote: categories Operator, Runtime, Kernel, Memset, Memcpy; "external
    id" in lower case; stream lanes as strings."""
    cpu = dict(pid=25738, tid="25738")
    gpu = dict(pid=0, tid="stream 7")
    events = [
        ev(cat="Operator", name="aten::mm", ts=1000, dur=30, **cpu,
           args={"External id": 7, "Input Dims": [[16, 32], [32, 8]], "Input type": ["float", "float"]}),
        ev(cat="Runtime", name="cudaLaunchKernel", ts=1005, dur=4, **cpu,
           args={"cbid": 211, "correlation": 501, "external id": 7}),
        ev(cat="Kernel", name="volta_sgemm_32x32_sliced1x4_nn", ts=1020, dur=6, **gpu,
           args={"queued": 0, "device": 0, "stream": 7, "correlation": 501, "external id": 7}),
        ev(cat="Memset", name="Memset (Device)", ts=1030, dur=1, **gpu,
           args={"device": 0, "correlation": 502, "external id": 8, "bytes": 512}),
        ev(cat="Kernel", name="volta_sgemm_32x32_sliced1x4_nn", ts=1040, dur=5, **gpu,
           args={"correlation": 503, "external id": 7}),
        ev(ph="i", s="t", name="[memory]", pid=25738, tid=25738, ts=1001, args={"Bytes": 4}),
        ev(ph="f", id=501, pid=0, tid="stream 7", ts=1020, cat="async", name="launch", bp="e"),
    ]  # fmt: skip
    return {"schemaVersion": 1, "traceEvents": events}


LONG_NAME = (
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_"
    + "_".join(f"cutlass::gemm::GemmShape<{64 + k}, {128 + k}, 32>" for k in range(80))
    + ">(Params)"
)[:3000]


def long_name():
    """A kernel whose templated name is 3,000 characters long, next to a short one."""
    gpu = dict(pid=0, tid=7)
    events = [
        ev(cat="kernel", name=LONG_NAME, ts=0, dur=7, **gpu, args={"correlation": 1}),
        ev(cat="kernel", name="short_kernel", ts=10, dur=2, **gpu, args={"correlation": 2}),
        ev(cat="kernel", name=LONG_NAME, ts=20, dur=3, **gpu, args={"correlation": 3}),
    ]
    return {"traceEvents": events}


def execution_trace():
    """PyTorch's other JSON format (ExecutionTraceObserver): nodes, no trace events."""
    return {
        "schema": "1.0.1",
        "pid": 1,
        "time": "2024-01-01 00:00:00",
        "start_ts": 0,
        "nodes": [
            {"name": "[pytorch|profiler|execution_trace|thread]", "id": 2, "rf_id": 0, "parent": 1, "inputs": [],
             "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
            {"name": "aten::add", "id": 5, "rf_id": 3, "parent": 2, "inputs": [[1, 2, 0, 4, 4, "cpu"]],
             "input_shapes": [[2, 2]], "input_types": ["Tensor(float)"], "outputs": [], "output_shapes": [],
             "output_types": []},
        ],
    }  # fmt: skip


def main():
    (HERE / "gpu_linked.json").write_text(json.dumps(gpu_linked(), indent=1) + "\n")
    (HERE / "pytorch18.json").write_text(json.dumps(pytorch18(), indent=1) + "\n")
    (HERE / "long_name.json").write_text(json.dumps(long_name()) + "\n")
    (HERE / "execution_trace.json.gz").write_bytes(gzip.compress(json.dumps(execution_trace()).encode(), mtime=0))


if __name__ == "__main__":
    main()
