"""Transformer inference from a model config: prefill and decode as workloads.

``Workload.from_transformer(config, batch=8, seq=2048, stage="decode", machine=m)`` reads a Hugging Face
``config.json`` (a path, a dict, or a preset name: ``presets()``) and builds the phases of one
decoder layer — norms, Q/K/V projections (grouped-query attention from ``num_key_value_heads``),
rotary embedding, scores, softmax, scores × V, output projection, gated or plain MLP (or routed
experts), residual adds — for all ``num_hidden_layers``, then the LM head. ``batch``, ``seq`` and
``kv_len`` stay size parameters: ``with_params``, sliders and sweeps move them.

>>> from campaign_widget import Machine, Workload
>>> w = Workload.from_transformer("llama-2-7b", batch=1, seq=1024, machine=Machine(989.5e12, 3.072e12))
>>> w.params, w.names[:3]
({'batch': 1, 'seq': 1024}, ['attn_norm', 'q_proj', 'k_proj'])
>>> round(float(w.with_params(seq=2048).arrays.ops.sum()) / float(w.arrays.ops.sum()), 2)
2.08

Layers
------
``layers="count"`` (the default): one layer's phases, each carrying the volumes of all
``num_hidden_layers`` (its ops and tensors × L). The diagram then reads as *where a forward pass
spends its time*: one bar per operation, in the order a layer runs them, their widths the whole
model's share, and the roofline has one point per operation; the sequential makespan equals the sum
over layers. ``layers="repeat"`` writes every layer out (``L0.attn_norm`` … ``L31.mlp_add``, then
the LM head): the same makespan with L times as many phases, for pipelining or fusing across layer
boundaries.

Stages and the KV cache
-----------------------
Prefill runs ``batch·seq`` tokens; each attends to the ``seq`` tokens of its sequence. Decode
runs ``batch`` tokens (one new token per sequence), each attending to ``kv_len`` tokens
(``kv_len`` defaults to ``seq``): the scores and scores × V read ``batch·kv_len`` keys and values
from the cache (``Kcache``, ``Vcache``), and the new token's K and V are appended (written by
``k_proj``/``v_proj``, or ``rope`` for the keys). Prefill's parameters are ``batch, seq``, decode's
``batch, kv_len``. ``stage="mixed"`` is continuous batching's step, a prompt of ``seq`` tokens beside
``batch`` sequences decoding at ``kv_len`` (the projections run all their tokens at once), and
``stage="generate"`` a whole request (``campaign_widget.model.generation``); docs/llm-inference.md.

Conventions (LLM-Viewer's: hahnyuan/LLM-Viewer ``model_analyzer.py`` at 01b269d6, but for one count)
-----------------------------------------------------------------------------------------------------
- A matrix product of an ``m×k`` by a ``k×n`` matrix costs ``2·m·n·k`` ops and moves its two
  inputs and its output once (weights at ``weight_dtype``, activations at ``dtype``).
- softmax: 5 ops per score (max, subtract, exp, sum, divide); a norm (RMSNorm or LayerNorm):
  7 ops per element (sum, subtract, power, sum, divide, multiply, add); an activation: 2 ops per
  element of its output; a residual add: 1 op per element. Each reads its input and writes its
  output once; a norm's gain is not counted.
- KV cache: ``k_proj``/``v_proj`` store the new tokens' K and V at ``kv_dtype``; attention reads
  ``batch·kv_len·kv_heads·head_dim`` keys and as many values at ``kv_dtype`` (GQA: kv heads, not
  query heads); scores and probabilities are ``dtype``.
- A phase's time is its roofline time, ``max(ops / peak_compute, bytes / bandwidth)``; the
  sequential makespan is the sum over phases.
- Prefill's scores read Q as LLM-Viewer's main branch reads it: ``batch·seq·kv_heads·head_dim``
  elements at ``dtype`` (its ``load_act``; ``model_analyzer.py`` as main's forks carry it, e.g.
  mmcclean-aws/LLM-Viewer at 29260ca2). Commit 01b269d6, which never reached main, read them at
  ``kv_dtype``: the two differ only when ``kv_dtype`` is not ``dtype``.

``counts="llm-viewer"`` reproduces that tool's numbers exactly (``tests/test_transformer.py``
compares them with its output). ``counts="einsum"`` (the default) keeps the same per-point costs
and differs on purpose where the tool's counts are not those of the computation:

- the gated MLP's activation runs over the ``intermediate_size`` columns (LLM-Viewer:
  ``hidden_size``);
- a residual add reads both operands (LLM-Viewer: one);
- prefill's scores read Q at ``num_attention_heads`` heads (LLM-Viewer: at kv heads, the same only
  without GQA);
- a rotary embedding (3 ops per element of Q and K: two multiplies and an add) writes the keys
  to the cache, for the families that use it (Llama, Mistral, Mixtral; LLM-Viewer has none);
- the LM head (after a final norm) runs on the last position of each sequence — what generation
  needs — at 2 ops per multiply-add (LLM-Viewer: 1, with one row of activations).

FlashAttention (``flash_attention=True``) fuses ``qk_matmul``, ``softmax`` and ``sv_matmul``
(``Workload.fuse``): the scores and probabilities never leave the chip, so the group moves Q, K,
V and O once. This differs on purpose from LLM-Viewer's fused-attention bytes, which re-read the
keys once per block of queries and count the output at ``seq × seq`` elements.

Mixture of experts (``num_local_experts``, ``num_experts_per_tok``): a ``router`` projects each
token onto the experts; ``batch·seq·top_k`` token copies go through the expert MLPs, whose weights
are read once per expert used: ``min(experts, tokens·top_k)`` experts (every routed copy hitting
a different expert while there are fewer copies than experts); ``combine`` sums each token's
``top_k`` outputs with their router weights (2 ops per element).

Tensor parallelism (``tensor_parallel=N``) models one of N devices: heads, kv heads, MLP
columns (and the vocabulary of the LM head) are split N ways, and an all-reduce of the
attention's and the MLP's output follows each (``attn_allreduce``, ``mlp_allreduce``): a ring
all-reduce sends ``2·(N-1)/N`` of the ``tokens·hidden`` activations. It moves its bytes on a
resource named ``network``: the machine's memory level of that name if it has one, else one added
with ``interconnect`` bytes/s (default 450 GB/s, one direction of H100 NVLink 4's 900 GB/s). The
network is a memory level of the machine here (levels are the only named resources a machine
has): each all-reduce is a phase bounded by its bytes over that bandwidth; its adds count as ops.
It is bandwidth only: the latency of a collective, which dominates small decode messages, is not
modelled, nor the all-gather of a split LM head's logits.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..errors import WorkloadError, check_flag, short_repr
from .dtypes import canonical, wider
from .expr import evaluate
from .llm_families import CONFIG_DIR as CONFIG_DIR  # the names callers read here before the families moved
from .llm_families import FAMILIES as FAMILIES
from .llm_families import TransformerConfig, read_config
from .llm_families import presets as presets
from .llm_memory import Footprint, largest_fitting
from .machine import Machine
from .phase import Phase
from .presets import machine_from

STAGES = ("prefill", "decode", "generate", "mixed")
MAX_NEW_TOKENS = 1_000_000  # a generation's decode steps are timed as arrays of this length
COUNTS = ("einsum", "llm-viewer")
LAYERS = ("count", "repeat")
NETWORK = "network"
# one direction of NVLink 4 on an H100 SXM (NVIDIA H100 datasheet: 900 GB/s bidirectional)
INTERCONNECT = 450e9
# NVIDIA H100 SXM datasheet: FP16/BF16 Tensor Core 1,979 TFLOPS with sparsity, half of it dense;
# GPU memory bandwidth 3.35 TB/s
DEFAULT_MACHINE = Machine(peak_compute=1979e12 / 2, peak_bandwidth=3.35e12, name="H100 SXM (FP16 tensor, dense)")

DTYPE_BYTES = {
    "fp32": 4,
    "float32": 4,
    "fp16": 2,
    "float16": 2,
    "half": 2,
    "bf16": 2,
    "bfloat16": 2,
    "fp8": 1,
    "float8": 1,
    "e4m3": 1,
    "e5m2": 1,
    "int8": 1,
    "int4": 0.5,
}


def _dtype(what, value) -> float:
    key = str(value).strip().lower() if isinstance(value, str) else None
    if key not in DTYPE_BYTES:
        raise WorkloadError(f"{what}={short_repr(value)} is not a known dtype; known: {', '.join(DTYPE_BYTES)}")
    return DTYPE_BYTES[key]


def _size(what, value, *, low=1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise WorkloadError(f"{what}={short_repr(value)} must be a whole number")
    if value < low:
        raise WorkloadError(f"{what}={int(value)} must be >= {low}")
    return int(value)


def _times(*factors) -> str:
    """The product of numbers and expressions as one expression (numbers folded into one factor)."""
    number, names = 1, []
    for f in factors:
        if isinstance(f, str):
            names.append(f if f.isidentifier() else f"({f})")
        else:
            number *= f
    if number == 0:
        return "0"
    text = "*".join(names)
    constant = repr(int(number)) if float(number).is_integer() else repr(float(number))
    return f"{constant}*{text}" if text else constant


@dataclass(frozen=True)
class TransformerPass:
    """What ``Workload.from_transformer`` builds a workload from: the phases (volumes in
    ``params``), the machine (with a ``network`` level under tensor parallelism) and the fusion
    groups (FlashAttention)."""

    phases: list
    machine: Machine
    params: dict
    fusion_groups: dict
    config: TransformerConfig
    dtypes: dict  # phase name → the data type it computes in (docs/llm-inference.md#a-peak-per-data-type)


@dataclass(frozen=True)
class Request:
    """The options of ``from_transformer``/``footprint`` once checked: the config, the shape, the
    element widths (bytes) and compute types, and the machine (with its ``network`` level under
    tensor parallelism)."""

    cfg: TransformerConfig
    stage: str
    batch: int
    seq: int
    kv_len: int | None
    new_tokens: int | None
    a: float  # bytes per activation, KV-cache element and weight
    c: float
    w: float
    types: tuple[str, str, str] | str
    flash_attention: bool
    tp: int
    machine: Machine
    counts: str
    layers: str

    @property
    def params(self) -> dict:
        if self.stage == "decode":
            return {"batch": self.batch, "kv_len": self.kv_len}
        if self.stage == "mixed":
            return {"batch": self.batch, "seq": self.seq, "kv_len": self.kv_len}
        return {"batch": self.batch, "seq": self.seq}

    def layer_ops(self, stage: str | None = None) -> list[LayerOp]:
        return _layer_ops(self.cfg, stage or self.stage, self.a, self.c, self.w, self.tp, self.counts)

    def head_ops(self, stage: str | None = None) -> list[LayerOp]:
        return _head_ops(self.cfg, stage or self.stage, self.a, self.w, self.tp, self.counts)


def check_request(
    config,
    *,
    batch: int,
    seq: int,
    stage: str = "prefill",
    kv_len: int | None = None,
    new_tokens: int | None = None,
    dtype: str = "fp16",
    kv_dtype: str | None = None,
    weight_dtype: str | None = None,
    flash_attention: bool = False,
    tensor_parallel: int = 1,
    machine: Machine | str | None = None,
    counts: str = "einsum",
    layers: str = "count",
    interconnect: float | None = None,
) -> Request:
    """Every option of ``from_transformer`` checked, or a ``WorkloadError`` naming the first bad one."""
    cfg = read_config(config)
    if stage not in STAGES:
        raise WorkloadError(f"stage={short_repr(stage)} must be one of {', '.join(STAGES)}")
    if counts not in COUNTS:
        raise WorkloadError(f"counts={short_repr(counts)} must be one of {', '.join(COUNTS)}")
    if layers not in LAYERS:
        raise WorkloadError(f"layers={short_repr(layers)} must be one of {', '.join(LAYERS)}")
    batch = _size("batch", batch)
    seq = _size("seq", seq)
    if stage in ("decode", "mixed"):
        kv_len = seq if kv_len is None else _size("kv_len", kv_len)
    elif kv_len is not None:
        raise WorkloadError(f"kv_len is for stage='decode'; {stage} attends to its own seq tokens")
    if stage == "generate":
        if new_tokens is None:
            raise WorkloadError("stage='generate' needs new_tokens=N, the tokens each sequence generates")
        new_tokens = _size("new_tokens", new_tokens)
        if new_tokens > MAX_NEW_TOKENS:
            raise WorkloadError(f"new_tokens={new_tokens} is more than the limit, {MAX_NEW_TOKENS:,}")
    elif new_tokens is not None:
        raise WorkloadError(f"new_tokens is for stage='generate', not stage={stage!r}")
    if stage == "mixed" and counts == "llm-viewer":
        raise WorkloadError("stage='mixed' has no LLM-Viewer counts (that tool has no mixed step); use counts='einsum'")
    a = _dtype("dtype", dtype)
    c = _dtype("kv_dtype", dtype if kv_dtype is None else kv_dtype)
    w = _dtype("weight_dtype", dtype if weight_dtype is None else weight_dtype)
    flash_attention = check_flag(flash_attention, "flash_attention")
    tp = _size("tensor_parallel", tensor_parallel)
    for what, total in (
        ("num_attention_heads", cfg.heads),
        ("num_key_value_heads", cfg.kv_heads),
        ("intermediate size", cfg.intermediate),
    ):
        if total % tp:
            raise WorkloadError(f"{cfg.family} config: tensor_parallel={tp} does not divide {what}={total}")
    if machine is None:
        machine = DEFAULT_MACHINE
    machine = machine_from(machine)
    if tp > 1 and NETWORK not in machine.level_names:
        bandwidth = INTERCONNECT if interconnect is None else interconnect
        # the network's bandwidth is in bytes/s, not a fraction of a peak: the machine is no longer normalized
        machine = replace(
            machine, levels=((NETWORK, bandwidth), *machine.memory_levels), peak_bandwidth=None, normalized=False
        )
    types = _compute_types(dtype, kv_dtype, weight_dtype, counts)
    return Request(
        cfg, stage, batch, seq, kv_len, new_tokens, a, c, w, types, flash_attention, tp, machine, counts, layers
    )


def transformer_phases(config, **options) -> TransformerPass:
    """The phases of one forward pass (``stage="prefill"`` or ``"decode"``) of a transformer
    given by its config; see the module docstring for what each phase counts. Every bad input is
    refused (``WorkloadError``) before any phase is built."""
    r = config if isinstance(config, Request) else check_request(config, **options)
    if r.stage == "generate":
        raise WorkloadError(
            "transformer_phases builds one pass; a generation is built by campaign_widget.model.generation"
        )
    layer = r.layer_ops()
    count = r.cfg.layers if r.layers == "count" else 1
    copies = [""] if r.layers == "count" else [f"L{i}." for i in range(r.cfg.layers)]
    phases, groups = [], {}
    for k, prefix in enumerate(copies):
        inputs = {"X": copies[k - 1] + "Y" if k else "X"}
        for op in layer:
            phases.append(op.phase(prefix, count, inputs))
        if r.flash_attention:
            for part in ("prefill_", "decode_") if r.stage == "mixed" else ("",):
                groups[f"{prefix}{part}attention"] = [
                    f"{prefix}{part}{n}" for n in ("qk_matmul", "softmax", "sv_matmul")
                ]
    last = copies[-1] + "Y"
    for op in r.head_ops():
        phases.append(op.phase("", 1, {"Y": last}))
    dtypes = {p.name: phase_dtype(p, r.types) for p in phases}
    return TransformerPass(phases, r.machine, r.params, groups, r.cfg, dtypes)


def footprint(config, **options) -> Footprint:
    """The bytes a transformer holds per device — weights, KV cache, largest live activations — for
    ``from_transformer``'s options, against the machine's memory capacity (``Machine(capacity=...)``;
    docs/llm-inference.md#memory-footprint). ``counts="llm-viewer"`` follows LLM-Viewer's
    ``memory_consumption``; a generation (``stage="generate"``) holds the cache of ``seq + new_tokens``
    tokens at its end.

    >>> import campaign_widget as cw
    >>> f = cw.transformer.footprint("llama-2-7b", batch=1, seq=1024, machine="h100-sxm-fp16")
    >>> round(f.weights / 1e9, 2), round(f.kv_cache / 2**20), f.fits
    (13.48, 512, True)
    """
    return _footprint(check_request(config, **options), search=True)


def workload_footprint(workload, *, largest: bool = True, params: Mapping[str, int] | None = None) -> Footprint | None:
    """The footprint of a workload ``from_transformer`` built, at its current size parameters
    (``with_params``; ``params`` overrides some, as a sweep's configuration does) on its current machine
    (``with_machine``); None for a workload built otherwise. ``largest=False`` leaves out the search for
    the largest sizes that fit (``Footprint.largest`` empty): what a sweep's heatmap asks of every cell."""
    options = workload.transformer_options
    if options is None:
        return None
    options.update(workload.params, **(params or {}), machine=workload.machine)
    return _footprint(check_request(**options), search=largest)


def _footprint(r: Request, *, search: bool) -> Footprint:
    size = {"prefill": "seq", "decode": "kv_len", "mixed": "kv_len", "generate": "new_tokens"}[r.stage]

    def parts(batch: int, length: int) -> tuple[float, float, float]:
        if r.stage == "generate":
            tokens, acts = (
                r.seq + length,
                max(
                    _activations(r, "prefill", {"batch": batch, "seq": r.seq}),
                    _activations(r, "decode", {"batch": batch, "kv_len": r.seq + length - 1}),
                ),
            )
        else:
            tokens, acts = length, _activations(r, r.stage, {**r.params, "batch": batch, size: length})
        cached = _cached(r, batch * tokens, tokens, batch) + (_cached(r, r.seq, r.seq, 1) if r.stage == "mixed" else 0)
        kv = 2 * cached * (r.cfg.kv_heads // r.tp) * r.cfg.head_dim * r.c
        return _weights(r), kv, acts

    length = {"prefill": r.seq, "decode": r.kv_len, "mixed": r.kv_len, "generate": r.new_tokens}[r.stage]
    weights, kv, acts = parts(r.batch, length)
    level = r.machine.level_names[-1]
    capacity = r.machine.capacity_of(level)
    largest = {}
    if capacity is not None and search:
        largest = {
            "batch": largest_fitting(lambda n: sum(parts(n, length)), capacity),
            size: largest_fitting(lambda n: sum(parts(r.batch, n)), capacity),
        }
    return Footprint(weights, kv, acts, capacity, largest, level if len(r.machine.level_names) > 1 else "")


def _cached(r: Request, rows: int, tokens: int, batch: int) -> int:
    """Tokens in the KV cache over all layers: ``rows`` (batch × tokens) on each, but a layer with a
    sliding window keeps at most its window's last tokens per sequence (not in LLM-Viewer's mode)."""
    cfg = r.cfg
    if not cfg.window or r.counts == "llm-viewer":
        return cfg.layers * rows
    return (cfg.layers - cfg.window_layers) * rows + cfg.window_layers * batch * min(tokens, cfg.window)


def _weights(r: Request) -> float:
    """Every weight matrix's bytes on one device; in LLM-Viewer's mode its ``memory_consumption_weight``:
    the decoder layers' linear layers only (no embedding, no LM head)."""
    cfg, tp = r.cfg, r.tp
    h, d, nq, nkv, f = cfg.hidden, cfg.head_dim, cfg.heads // tp, cfg.kv_heads // tp, cfg.intermediate // tp
    attention = h * nq * d * 2 + h * nkv * d * 2
    mlp = (3 if cfg.gated or cfg.experts else 2) * h * f * max(cfg.experts, 1) + h * cfg.experts
    widths = {"q_proj": nq * d, "k_proj": nkv * d, "v_proj": nkv * d, "out_proj": h, "gate_proj": f, "up_proj": f}
    biases = sum(widths.get(name, h) for name in _biased(cfg) if name != "gate_proj" or cfg.gated)
    total = cfg.layers * (attention + mlp + biases)
    if r.counts != "llm-viewer":
        vocab = math.ceil(cfg.vocab / tp)  # the LM head (and the embedding table) split by vocabulary
        total += h * vocab * (1 if cfg.tied else 2)
    return float(total * r.w)


def _activations(r: Request, stage: str, params: Mapping[str, int]) -> float:
    """The activations one layer leaves live at once. LLM-Viewer's ``memory_consumption_tmp_act``: the
    sum of every operation's stored activations (the KV-cache appends and the LM head aside); ours: the
    inputs and outputs of the operation that holds the most at a time (no weights, no cache)."""

    def volume(pairs, keep) -> float:
        return float(sum(evaluate(v, params) for t, v in pairs if keep(t)))

    if r.counts == "llm-viewer":
        ops = [op for op in r.layer_ops(stage) if op.name not in ("k_proj", "v_proj") and op.network is None]
        return sum(volume(op.writes, lambda t: True) for op in ops)

    def activation(t: str) -> bool:
        return not t.startswith("W_") and t not in ("Kcache", "Vcache")

    ops = r.layer_ops(stage) + r.head_ops(stage)
    return max(volume(op.reads, activation) + volume(op.writes, activation) for op in ops)


def _compute_types(dtype, kv_dtype, weight_dtype, counts) -> tuple[str, str, str] | str:
    """The canonical (activation, kv, weight) types; in LLM-Viewer's mode the one type its whole pass
    is timed at: its INT8 peak when weights, activations and KV cache are all 8 bits or fewer, else FP16."""
    a = canonical("dtype", dtype)
    c = canonical("kv_dtype", dtype if kv_dtype is None else kv_dtype)
    w = canonical("weight_dtype", dtype if weight_dtype is None else weight_dtype)
    if counts == "llm-viewer":
        return "int8" if max(DTYPE_BYTES[t] for t in (a, c, w)) <= 1 else "fp16"
    return a, c, w


def phase_dtype(phase: Phase, types) -> str:
    """The type a phase computes in: the wider of its operands' (weights and activations for a
    projection, the KV cache and activations for attention), the activations' for the rest."""
    if isinstance(types, str):
        return types
    a, c, w = types
    if any(t.rsplit(".", 1)[-1].startswith("W_") for t, _ in phase.reads):
        return wider(w, a)
    if phase.name.endswith(("qk_matmul", "sv_matmul")):
        return wider(c, a)
    return a


@dataclass(frozen=True)
class LayerOp:
    name: str
    ops: object
    reads: tuple
    writes: tuple
    after: tuple = ()
    network: object = None  # bytes on the network resource (an all-reduce)

    def phase(self, prefix: str, count: int, rename: Mapping[str, str]) -> Phase:
        def tensor(t):
            return rename.get(t, prefix + t)

        def scaled(v):
            return _times(count, v) if count != 1 else v

        reads = {tensor(t): scaled(v) for t, v in self.reads}
        writes = {tensor(t): scaled(v) for t, v in self.writes}
        extra = {}
        if self.network is not None:
            extra["bytes"] = {NETWORK: scaled(self.network)}
        return Phase(
            prefix + self.name,
            ops=scaled(self.ops),
            reads=reads,
            writes=writes,
            after=tuple(prefix + n for n in self.after),
            **extra,
        )


def _layer_ops(cfg: TransformerConfig, stage, a, c, w, tp, counts) -> list[LayerOp]:
    """One decoder layer's operations, volumes in the parameters ``batch`` and ``seq``/``kv_len``."""
    viewer = counts == "llm-viewer"
    h, d = cfg.hidden, cfg.head_dim
    nq, nkv, f = cfg.heads // tp, cfg.kv_heads // tp, cfg.intermediate // tp
    T = {"prefill": "batch*seq", "decode": "batch", "mixed": "batch+seq"}[stage]  # tokens this pass runs
    K = "seq" if stage == "prefill" else "kv_len"  # tokens each one attends to
    kv_tokens = "batch*seq" if stage == "prefill" else "batch*kv_len"
    ops = []

    def op(name, n_ops, reads, writes, **kw):
        ops.append(LayerOp(name, n_ops, tuple(reads.items()), tuple(writes.items()), **kw))

    def linear(name, src, dst, k, n, out_bytes, rows=T, weights=1):
        # src: the input tensor, or {tensor: its rows} for an input in parts (a mixed step's attention)
        parts = src if isinstance(src, dict) else {src: rows}
        reads = {t: _times(r, k, a) for t, r in parts.items()}
        reads[f"W_{name}"] = _times(weights, k, n, w)
        n_ops = _times(2, rows, k, n)
        if name in _biased(cfg):  # a bias: one add per output, its n values read with the weights
            reads[f"W_{name}_bias"] = _times(weights, n, w)
            n_ops = f"{n_ops} + {_times(rows, n)}"
        op(name, n_ops, reads, {dst: _times(rows, n, out_bytes)})

    def all_reduced(block, out):
        if tp > 1:
            ops.append(_allreduce(f"{block}_allreduce", out, out + "r", T, h, a, tp))
            return out + "r"
        return out

    def added(block, out, *, skip, result, viewer_after):
        """The block's output (all-reduced under tensor parallelism) added to the residual stream
        ``skip``; as LLM-Viewer counts it, the add reads only the block's output and follows ``viewer_after``."""
        out = all_reduced(block, out)
        residual = {out: _times(T, h, a)} if viewer else {skip: _times(T, h, a), out: _times(T, h, a)}
        op(f"{block}_add", _times(T, h), residual, {result: _times(T, h, a)}, after=(viewer_after,) if viewer else ())

    def norm(name, src, dst):
        op(name, _times(7, T, h), {src: _times(T, h, a)}, {dst: _times(T, h, a)})

    norm("attn_norm", "X", "N1")
    rope = cfg.rotary and not viewer
    linear("q_proj", "N1", "Q", h, nq * d, a)
    # the new tokens' K (and V) are the cache append: at kv_dtype, unless a rotary embedding follows
    linear("k_proj", "N1", "K", h, nkv * d, a if rope else c)
    linear("v_proj", "N1", "V", h, nkv * d, c)
    q, k_new = "Q", "K"
    if rope:
        op(
            "rope",
            _times(3, T, (nq + nkv) * (cfg.rotary_dim or d)),
            {"Q": _times(T, nq * d, a), "K": _times(T, nkv * d, a)},
            {"Qr": _times(T, nq * d, a), "Kr": _times(T, nkv * d, c)},
        )
        q, k_new = "Qr", "Kr"
    cache_after = ("rope",) if rope else ("k_proj",)  # a decode step's new key joins the cache

    def attention(part, rows, attended, kv_rows, keys, values, after_k=(), after_v=()):
        """Scores, softmax and scores × V of ``rows`` queries, each attending to ``attended`` keys."""
        kv_read = _times(kv_rows, nkv * d, c)
        # LLM-Viewer's main counts a prefill's Q at kv heads, at the activations' width
        q_read = _times(rows, (nkv if viewer and stage == "prefill" else nq) * d, a)
        scores = _times(rows, nq, attended, a)
        S, P = f"{part}S", f"{part}P"
        op(f"{part}qk_matmul", _times(2, rows, nq, attended, d), {q: q_read, keys: kv_read}, {S: scores}, after=after_k)
        op(f"{part}softmax", _times(5, rows, nq, attended), {S: scores}, {P: scores})
        op(
            f"{part}sv_matmul",
            _times(2, rows, nq, attended, d),
            {P: scores, values: kv_read},
            {f"{part}O": _times(rows, nq * d, a)},
            after=after_v,
        )

    window = (lambda k: k) if viewer else (lambda k: _windowed(cfg, k))  # LLM-Viewer has no sliding window
    if stage == "prefill":
        attention("", T, window(K), kv_tokens, k_new, "V")
        linear("out_proj", "O", "A", nq * d, h, a)
    elif stage == "decode":
        attention("", T, window(K), f"batch*{window(K)}", "Kcache", "Vcache", cache_after, ("v_proj",))
        linear("out_proj", "O", "A", nq * d, h, a)
    else:  # one engine step: a new prompt of seq tokens beside batch sequences decoding at kv_len
        attention("prefill_", "seq", window("seq"), "seq", k_new, "V")
        attention(
            "decode_", "batch", window("kv_len"), f"batch*{window('kv_len')}", "Kcache", "Vcache", cache_after,
            ("v_proj",),
        )  # fmt: skip
        linear("out_proj", {"prefill_O": "seq", "decode_O": "batch"}, "A", nq * d, h, a)
    attn_out = "A"
    if cfg.post_norms:
        norm("attn_post_norm", "A", "Ap")
        attn_out = "Ap"
    if cfg.parallel:  # attention and MLP side by side, one residual add of both
        attn_out = all_reduced("attn", attn_out)
        mlp_in = "N1"
        if cfg.parallel == "two":
            norm("mlp_norm", "X", "N2")
            mlp_in = "N2"
    else:
        added("attn", attn_out, skip="X", result="H1", viewer_after="attn_norm")
        norm("mlp_norm", "H1", "N2")
        mlp_in = "N2"
    act_width = h if viewer else f
    if cfg.experts or cfg.gated:
        rows, used, down = T, 1, "D"  # dense: every token, each weight read once
        if cfg.experts:
            E, top = cfg.experts, cfg.top_k
            rows = f"{T}*{top}"  # token copies routed to experts
            used = f"min({E}, {T}*{top})"  # experts whose weights are read
            down = "De"
            op(
                "router",
                _times(2, T, h, E),
                {mlp_in: _times(T, h, a), "W_router": _times(h, E, w)},
                {"R": _times(T, E, a)},
            )
        linear("gate_proj", mlp_in, "G", h, f, a, rows=rows, weights=used)
        linear("up_proj", mlp_in, "U", h, f, a, rows=rows, weights=used)
        op(
            "mlp_act",
            _times(2, rows, act_width),
            {"G": _times(rows, act_width, a), "U": _times(rows, act_width, a)},
            {"M": _times(rows, act_width, a)},
        )
        linear("down_proj", "M", down, f, h, a, rows=rows, weights=used)
        if cfg.experts:
            op(
                "combine",
                _times(2, rows, h),
                {"De": _times(rows, h, a), "R": _times(T, E, a)},
                {"D": _times(T, h, a)},
            )
    else:
        linear("up_proj", mlp_in, "U", h, f, a)
        op("mlp_act", _times(2, T, act_width), {"U": _times(T, act_width, a)}, {"M": _times(T, act_width, a)})
        linear("down_proj", "M", "D", f, h, a)
    mlp_out = "D"
    if cfg.post_norms:
        norm("mlp_post_norm", "D", "Dp")
        mlp_out = "Dp"
    if cfg.parallel:
        mlp_out = all_reduced("mlp", mlp_out)
        both = {"X": _times(T, h, a), attn_out: _times(T, h, a), mlp_out: _times(T, h, a)}
        op("block_add", _times(2, T, h), both, {"Y": _times(T, h, a)})
    else:
        added("mlp", mlp_out, skip="H1", result="Y", viewer_after="attn_add")
    return ops


def _windowed(cfg: TransformerConfig, tokens: str) -> str:
    """The keys a query attends to, per layer, out of ``tokens``: at most ``window`` on the layers with
    a sliding window (Phi-3's, Gemma 2's every other layer, Qwen2's upper layers with use_sliding_window),
    as a mean over the layers when only some have one (the layers' sum stays exact)."""
    if not cfg.window:
        return tokens
    local = f"min({tokens}, {cfg.window})"
    if cfg.window_layers == cfg.layers:
        return local
    rest = cfg.layers - cfg.window_layers
    return f"({rest}*{tokens} + {cfg.window_layers}*{local})/{cfg.layers}"


def _biased(cfg: TransformerConfig) -> tuple[str, ...]:
    """The linear layers of a layer that add a bias (``FAMILIES[...]["bias"]``)."""
    qkv, mlp = ("q_proj", "k_proj", "v_proj"), ("gate_proj", "up_proj", "down_proj")
    return {"qkv": qkv, "mlp": mlp, "all": (*qkv, "out_proj", *mlp)}.get(cfg.bias, ())


def _allreduce(name, src, dst, T, h, a, tp):
    """A ring all-reduce of ``T·h`` activations over ``tp`` devices: each sends (and receives)
    ``2·(tp-1)/tp`` of them, and adds ``(tp-1)/tp`` of them."""
    share = (tp - 1) / tp
    return LayerOp(
        name,
        _times(share, T, h),
        ((src, _times(T, h, a)),),
        ((dst, _times(T, h, a)),),
        network=_times(2 * share, T, h, a),
    )


def _head_ops(cfg: TransformerConfig, stage, a, w, tp, counts) -> list[LayerOp]:
    """The LM head after the last layer (on the last position of each sequence)."""
    h, vocab = cfg.hidden, cfg.vocab // tp if cfg.vocab % tp == 0 else math.ceil(cfg.vocab / tp)
    if counts == "llm-viewer":
        return [
            LayerOp(
                "lm_head",
                _times("batch", h, vocab),
                (("Y", _times(h, a)), ("W_lm_head", _times(h, vocab, w))),
                (("logits", _times(vocab, a)),),
            )
        ]
    rows = "batch+1" if stage == "mixed" else "batch"  # the last position of each sequence
    return [
        LayerOp("final_norm", _times(7, rows, h), (("Y", _times(rows, h, a)),), (("Nf", _times(rows, h, a)),)),
        LayerOp(
            "lm_head",
            _times(2, rows, h, vocab),
            (("Nf", _times(rows, h, a)), ("W_lm_head", _times(h, vocab, w))),
            (("logits", _times(rows, vocab, a)),),
        ),
    ]


def side_by_side(workloads: Mapping[str, object]):
    """Workloads as one, with no dependency between them: ``{"prefill": p, "decode": d}`` gives
    phases ``prefill.q_proj`` … ``decode.lm_head`` on the first workload's machine, at each one's
    current parameter values (numbers: the parts' parameters may share names). Sequential, they
    run one after the other; pipelined (``schedule(tiles=n, pipeline=True)``) their tiles run at the
    same time — a prefill cut into ``n`` chunks beside a decode batch, as chunked prefill serves
    them — and the diagram shows the resources they oversubscribe together and what throttling
    makes of it. Fusion groups carry over."""
    if not isinstance(workloads, Mapping) or not workloads:
        raise WorkloadError(f"side_by_side takes {{label: Workload}}, got {short_repr(workloads)}")
    # the parts' own class builds the whole: this module sits below workload.py and does not import it
    workload_class = type(next(iter(workloads.values())))
    if not hasattr(workload_class, "from_transformer"):
        raise WorkloadError(f"side_by_side takes {{label: Workload}}, got {short_repr(workloads)}")
    phases, groups, machine, dtypes = [], {}, None, {}
    for label, w in workloads.items():
        if type(w) is not workload_class:
            raise WorkloadError(f"side_by_side: {short_repr(label)} is {short_repr(w)}, not a Workload")
        machine = machine or w.machine
        a = w.arrays
        levels = w.machine.level_names
        for i, name in enumerate(w.names):
            reads, writes = w.tensors[i]
            producers = w.producers[1][w.producers[0][i] : w.producers[0][i + 1]]
            per_level = {
                lv: float(a.level_bytes[i, k])
                for k, lv in enumerate(levels)
                if a.level_bytes[i, k] == a.level_bytes[i, k]
            }
            phases.append(
                Phase(
                    f"{label}.{name}",
                    ops=float(a.ops[i]),
                    bytes=per_level if len(levels) > 1 else None,
                    reads={f"{label}.{t}": b for t, b in reads.items()},
                    writes={f"{label}.{t}": b for t, b in writes.items()},
                    after=tuple(f"{label}.{w.names[j]}" for j in producers),
                )
            )
        dtypes.update({f"{label}.{name}": d for name, d in zip(w.names, w.dtypes)})
        for g, group in enumerate(w.fusion_groups):
            groups[f"{label}.{group}"] = [f"{label}.{w.names[i]}" for i in range(len(w)) if w.fusion_group[i] == g]
    combined = workload_class(phases, machine=machine).with_dtypes(dtypes)
    return combined.fuse(groups) if groups else combined
