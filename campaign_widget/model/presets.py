"""Named machines with sourced peaks, for workload files (``machine: h100-sxm``) and the command line.

Every entry cites where its numbers come from. Peaks are the vendor's (or the paper's) theoretical
numbers; seed 002 reminds us that sustained bandwidth (STREAM) is typically 60–90% of them, so a
measured phase well below 100% of these peaks may still be at its practical limit.

>>> from campaign_widget.model.presets import machine
>>> machine("H100-SXM").peak_compute
67000000000000.0
>>> machine("fusemax").peak_compute == 2 * 256 * 256 * 0.94e9
True
"""

from __future__ import annotations

from ..errors import WorkloadError, WrongTypeError, short_repr
from .machine import Ceiling, Machine

TERA, GIGA = 1e12, 1e9


def _fp32_gpu(name: str, *, fp32: float, fp64: float, bandwidth: float, capacity: float) -> Machine:
    """A GPU at its FP32 non-tensor peak, its FP64 non-tensor peak a ceiling (a datasheet's two rows)."""
    return Machine(
        peak_compute=fp32,
        peak_bandwidth=bandwidth,
        name=f"{name} (FP32, non-tensor)",
        ceilings=(Ceiling("FP64 (non-tensor)", compute=fp64),),
        capacity=capacity,
    )


def _tensor_gpu(name: str, *, peaks: dict[str, float], bandwidth: float, capacity: float) -> Machine:
    """A GPU with a compute peak per data type (docs/llm-inference.md#a-peak-per-data-type): its tensor
    cores' dense figure for each type they take (the datasheets' figures "with sparsity" halved), its
    vector units' for fp32 and fp64; fp16 first, the peak of a phase with no type."""
    return Machine(
        peak_compute=peaks, peak_bandwidth=bandwidth, name=f"{name} (tensor cores, per type)", capacity=capacity
    )


# Every compute row of the NVIDIA H100 Tensor Core GPU datasheet, SXM form factor (tensor-core rows "with
# sparsity", halved to the dense figure): FP64 34 TFLOPS, FP64 Tensor Core 67, FP32 67, TF32 Tensor Core
# 989, BF16 and FP16 Tensor Core 1,979, FP8 Tensor Core 3,958, INT8 Tensor Core 3,958 TOPS. Hopper has no
# INT4 tensor-core row. fp64 is the FP64 Tensor Core figure (a matrix product in FP64 runs there). The
# H200 SXM datasheet gives the same compute rows.
HOPPER_SXM = {
    "fp16": 1979 / 2 * TERA,
    "bf16": 1979 / 2 * TERA,
    "fp8": 3958 / 2 * TERA,
    "int8": 3958 / 2 * TERA,
    "tf32": 989 / 2 * TERA,
    "fp32": 67 * TERA,
    "fp64": 67 * TERA,
}

MACHINES: dict[str, Machine] = {
    # NVIDIA H100 Tensor Core GPU datasheet, SXM form factor: FP32 67 TFLOPS (non-tensor),
    # FP64 34 TFLOPS, GPU memory bandwidth 3.35 TB/s (HBM3). 67 TFLOP/s = 132 SMs × 128 FP32
    # lanes × 2 (FMA) × 1.98 GHz boost (66.9 rounded).
    # GPU memory 80GB (HBM3), read as 10^9 bytes.
    "h100-sxm": _fp32_gpu("H100 SXM", fp32=67 * TERA, fp64=34 * TERA, bandwidth=3.35 * TERA, capacity=80 * GIGA),
    # The paper's "Hopper" (seed 000, §4, Figure 2b, citing NVIDIA [17]): "a peak non-tensor-core
    # FP32 throughput of 51.2 TFLOPs/sec". 51.2 TFLOP/s matches the H100 *PCIe* FP32 figure in
    # NVIDIA's Hopper architecture whitepaper (114 SMs × 128 FP32 lanes × 2 × 1.755 GHz), not the
    # SXM datasheet's 67: keep this preset to reproduce the paper's 35.8 / 10.2 / 30.7 TFLOP/s.
    # The paper gives no bandwidth for that figure (it only uses compute); we pair it with the H100
    # SXM's 3.35 TB/s, as the tests' Figure 2b fixture does.
    "hopper-paper": Machine(
        peak_compute=51.2 * TERA,
        peak_bandwidth=3.35 * TERA,
        name="Hopper as in the paper (FP32, 51.2 TFLOP/s)",
    ),
    # NVIDIA H200 Tensor Core GPU datasheet, SXM: FP32 67 TFLOPS, FP64 34 TFLOPS, 4.8 TB/s (HBM3e),
    # GPU memory 141GB.
    "h200-sxm": _fp32_gpu("H200 SXM", fp32=67 * TERA, fp64=34 * TERA, bandwidth=4.8 * TERA, capacity=141 * GIGA),
    # NVIDIA A100 Tensor Core GPU datasheet, A100 80GB SXM: FP32 19.5 TFLOPS, FP64 9.7 TFLOPS,
    # GPU memory bandwidth 2,039 GB/s (HBM2e), GPU memory 80GB.
    "a100-sxm-80gb": _fp32_gpu(
        "A100 SXM 80GB", fp32=19.5 * TERA, fp64=9.7 * TERA, bandwidth=2039 * GIGA, capacity=80 * GIGA
    ),
    # NVIDIA H100 Tensor Core GPU datasheet, SXM: every compute row (HOPPER_SXM), GPU memory 80GB,
    # bandwidth 3.35 TB/s.
    "h100-sxm-tensor": _tensor_gpu(
        "H100 SXM",
        peaks=HOPPER_SXM,
        bandwidth=3.35 * TERA,
        capacity=80 * GIGA,
    ),
    # NVIDIA H200 Tensor Core GPU datasheet, SXM: the H100 SXM's compute rows (HOPPER_SXM), GPU memory
    # 141GB, 4.8 TB/s.
    "h200-sxm-tensor": _tensor_gpu(
        "H200 SXM",
        peaks=HOPPER_SXM,
        bandwidth=4.8 * TERA,
        capacity=141 * GIGA,
    ),
    # The NVIDIA A100 Tensor Core GPU datasheet, A100 80GB SXM: FP64 Tensor Core 19.5 TFLOPS, FP32 19.5,
    # TF32 Tensor Core 156 (312 with sparsity), BF16 and FP16 Tensor Core 312 (624), INT8 Tensor Core
    # 624 TOPS (1,248); GPU memory 80GB, 2,039 GB/s. Ampere has no FP8.
    "a100-sxm-80gb-tensor": _tensor_gpu(
        "A100 SXM 80GB",
        peaks={
            "fp16": 312 * TERA,
            "bf16": 312 * TERA,
            "int8": 624 * TERA,
            "tf32": 156 * TERA,
            "fp32": 19.5 * TERA,
            "fp64": 19.5 * TERA,
        },
        bandwidth=2039 * GIGA,
        capacity=80 * GIGA,
    ),
    # NVIDIA H100 Tensor Core GPU datasheet, SXM form factor: FP16 Tensor Core 1,979 TFLOPS with
    # sparsity (the datasheet's footnote), so 989.5 TFLOP/s dense; GPU memory bandwidth 3.35 TB/s,
    # GPU memory 80GB.
    "h100-sxm-fp16": Machine(
        peak_compute=989.5 * TERA,
        peak_bandwidth=3.35 * TERA,
        name="H100 SXM (dense FP16 tensor)",
        capacity=80 * GIGA,
    ),
    # The A100 80GB SXM above with its L2 as a memory level. NVIDIA A100 Tensor Core GPU Architecture
    # whitepaper: L2 cache read bandwidth 5120 bytes/clock (2048 on V100, "2.3x the L2 cache read
    # bandwidth of V100" once clocks are counted), at the A100's 1410 MHz boost clock:
    # 5120 × 1.41e9 = 7.2192 TB/s. HBM2e: 2,039 GB/s (datasheet, as above). The whitepaper gives no
    # aggregate L1 bandwidth, so L1 is not a level here. Capacities: the whitepaper's 40 MB L2, the
    # datasheet's 80GB HBM2e.
    "a100-sxm-80gb-levels": Machine(
        peak_compute=19.5 * TERA,
        levels={"L2": 5120 * 1.41e9, "HBM": 2039 * GIGA},
        capacity={"L2": 40e6, "HBM": 80 * GIGA},
        name="A100 SXM 80GB (FP32, non-tensor; L2, HBM)",
        ceilings=(Ceiling("FP64 (non-tensor)", compute=9.7 * TERA),),
    ),
    # The paper's low-rank GEMM machine (seed 000, Table 3, "LR-GEMM" column): FuseMax, a 256×256
    # 2D MAC array at 940 MHz with 400 GB/s. A MAC counts as 2 ops (multiply + add), so the peak
    # is 2 · 256 · 256 · 0.94e9 = 123.2 Tops/s.
    "fusemax": Machine(
        peak_compute=2 * 256 * 256 * 0.94e9,
        peak_bandwidth=400 * GIGA,
        name="FuseMax (paper, LR-GEMM)",
        ops_unit="op",
    ),
    # The paper's Mamba machine (seed 000, Table 3, "Mamba-1 (370m)" column): "FuseMax-like",
    # a 256×256 2D array + a 1D array at 1.75 GHz, 2039 GB/s. Table 3 does not size the 1D array
    # or say how it counts; we take FuseMax's 1D array of 256 PEs (one per column of the 2D array)
    # doing 1 op per cycle each (exp, max, divide are not MACs), and 2 ops per 2D MAC:
    #   peak = (2 · 256 · 256 + 256) · 1.75e9 = 229.824 Tops/s.
    # The two arrays are also given as ceilings, so a phase that only uses one of them can be read
    # against its own roof: 2D alone 229.376 Tops/s, 1D alone 448 Gops/s.
    "fusemax-mamba": Machine(
        peak_compute=(2 * 256 * 256 + 256) * 1.75e9,
        peak_bandwidth=2039 * GIGA,
        name="FuseMax-like (paper, Mamba-1)",
        ops_unit="op",
        ceilings=(
            Ceiling("2D array only", compute=2 * 256 * 256 * 1.75e9),
            Ceiling("1D array only", compute=256 * 1.75e9),
        ),
    ),
    # Seed 002's worked example ("Consider a machine with ..."): 200 GFLOP/s and 50 GB/s, ridge
    # point 4 FLOP/byte.
    "seed002-example": Machine(
        peak_compute=200 * GIGA,
        peak_bandwidth=50 * GIGA,
        name="seed 002 example machine",
    ),
}


def _key(name: str) -> str:
    return "-".join(str(name).strip().lower().replace("_", " ").replace("-", " ").split())


def unknown_preset(name: str) -> str:
    """What is wrong with a preset name that names no preset: the name and every preset."""
    return f"unknown machine preset {short_repr(name)}; known presets: {', '.join(MACHINES)}"


def machine(name: str) -> Machine:
    """The preset called ``name``; case, spaces, ``_`` and ``-`` do not matter (``"H100 SXM"``)."""
    if not isinstance(name, str):
        raise WorkloadError(f"machine preset name must be a string, got {short_repr(name)}")
    found = MACHINES.get(_key(name))
    if found is None:
        raise WorkloadError(unknown_preset(name))
    return found


def machine_from(value: object, who: str = "machine") -> Machine:
    """``machine=`` as every entry point takes it (``Workload(...)``, ``Workload.from_arrays``,
    ``from_einsums``, ``from_transformer``, ``with_machine``, ``campaign_widget.load``): a ``Machine``
    as it is, or the name of a preset (see ``machine``). ``who`` names the argument in the error: a
    ``WorkloadError`` for a name that is no preset, a ``TypeError`` for anything else."""
    if isinstance(value, Machine):
        return value
    if isinstance(value, str):
        found = MACHINES.get(_key(value))
        if found is None:
            raise WorkloadError(f"{who}: {unknown_preset(value)}")
        return found
    raise WrongTypeError(
        f"{who}={short_repr(value)} must be a campaign_widget.Machine or a preset name; "
        f"known presets: {', '.join(MACHINES)}"
    )


def names() -> list[str]:
    """The preset names, in the order of ``MACHINES``."""
    return list(MACHINES)
