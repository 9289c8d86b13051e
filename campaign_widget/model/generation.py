"""A whole generation: a prompt's prefill, then ``new_tokens`` decode steps with a growing KV cache, on
one time axis (docs/llm-inference.md#whole-generations).

``Workload.from_transformer(config, batch=8, seq=1024, stage="generate", new_tokens=256)`` builds it;
``generation(config, ...)`` gives the same phases with the request's figures: time to first token,
time per output token (mean and last), end-to-end latency and tokens/s for the batch.

Decode step ``j`` (0, 1, …) attends to ``kv_len = seq + j`` tokens, as LLM-Viewer's
``analyze_generate_task`` lays a generation out. Every volume of a decode step is affine in ``kv_len``,
so its sum over a run of steps is exact from two evaluations. The steps are grouped into runs over
which every operation keeps the resource that bounds it (its time then sums as its volumes do), and the
last step is a run of its own: ``decode[2048:2304].q_proj`` holds the q projections of the steps that
attend to 2048 … 2303 tokens. The workload's sequential makespan is then exactly the sum of the
single-step workloads' (``tests/test_llm_generation.py``) with a few phases per run, however many steps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import WorkloadError
from ..formatting import format_si
from .expr import evaluate
from .machine import Machine
from .phase import Phase
from .transformer import NETWORK, LayerOp, Request, check_request, phase_dtype

FUSED = ("S", "P")  # the tensors FlashAttention keeps on chip (never moved)


@dataclass(frozen=True)
class Generation:
    """The phases of a generation and its figures (seconds; tokens/s for the whole batch)."""

    phases: list
    machine: Machine
    dtypes: dict
    fusion_groups: dict
    batch: int
    seq: int
    new_tokens: int
    ttft: float  # the prefill: the prompt in, the first token's logits out
    step_times: np.ndarray  # each decode step's time, kv_len = seq, seq + 1, …

    @property
    def tpot_mean(self) -> float:
        return float(self.step_times.mean())

    @property
    def tpot_last(self) -> float:
        return float(self.step_times[-1])

    @property
    def latency(self) -> float:
        return self.ttft + float(self.step_times.sum())

    @property
    def tokens_per_second(self) -> float:
        """The batch's generated tokens over the end-to-end latency."""
        return self.batch * self.new_tokens / self.latency

    def describe(self) -> str:
        return (
            f"time to first token {format_si(self.ttft, 's')}, per output token {format_si(self.tpot_mean, 's')} "
            f"mean, {format_si(self.tpot_last, 's')} last; {self.new_tokens:,} tokens × {self.batch} in "
            f"{format_si(self.latency, 's')}: {self.tokens_per_second:,.4g} tokens/s"
        )


@dataclass(frozen=True)
class _Line:
    """One decode operation's volume, ``at0 + slope·step`` from its piece's first step, for each quantity."""

    op: LayerOp
    count: int
    values: dict[object, tuple]  # quantity (or (reads|writes, tensor)) → (at0, slope), exact


def generation(config, **options) -> Generation:
    """A prefill of ``seq`` tokens and ``new_tokens`` decode steps for ``from_transformer``'s options
    (``stage="generate"`` implied); refused before any work when an option is bad."""
    options = {"stage": "generate", **options}
    r = check_request(config, **options)
    if r.stage != "generate":
        raise WorkloadError(f"generation: stage={r.stage!r}; a generation is stage='generate'")
    if r.layers != "count":
        raise WorkloadError("stage='generate' builds layers='count' (each operation carries all its layers)")
    n = r.new_tokens
    assert n is not None  # check_request requires it for a generation
    peaks = {d: r.machine.peak_for(d) for d in set(_types(r).values())}
    prefill = {"batch": r.batch, "seq": r.seq}
    phases, groups = _prefill_phases(r, prefill)
    ttft = sum(_time(r, _volumes(op, count, prefill), peaks[_type(r, op)]) for op, count in _ops(r, "prefill"))
    step_times = []
    previous = phases[-1].name
    for first, last in _pieces(r, n):  # the steps over which every volume is one affine function of kv_len
        lines = [_line(r, op, count, r.seq + first) for op, count in _ops(r, "decode")]
        times, bounds = _step_times(r, peaks, lines, last - first)
        step_times.append(times.sum(axis=1))
        changes = np.flatnonzero(np.any(bounds[1:] != bounds[:-1], axis=1)) + 1
        starts = sorted({0, *changes.tolist(), *([last - first - 1] if last == n else [])})
        for start, end in zip(starts, [*starts[1:], last - first]):
            prefix = f"decode[{r.seq + first + start}:{r.seq + first + end}]."
            run = [_summed_phase(r, line, prefix, start, end) for line in lines]
            run[0] = _after(run[0], previous)
            phases += run
            previous = run[-1].name
            if r.flash_attention:
                groups[f"{prefix}attention"] = [f"{prefix}{m}" for m in ("qk_matmul", "softmax", "sv_matmul")]
    dtypes = {p.name: phase_dtype(p, r.types) for p in phases}
    times = np.concatenate(step_times)
    return Generation(phases, r.machine, dtypes, groups, r.batch, r.seq, n, float(ttft), times)


def _pieces(r: Request, n: int) -> list[tuple[int, int]]:
    """The decode steps as ranges [first, last) over which every volume is affine in kv_len: all of
    them, split after the step that attends to a sliding window's full width."""
    window = 0 if r.counts == "llm-viewer" else r.cfg.window
    split = window - r.seq + 1  # the first step that attends to more tokens than the window
    return [(0, split), (split, n)] if 0 < split < n else [(0, n)]


def _step_times(r: Request, peaks: dict, lines: list, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """(steps, operations) arrays: each step's time of each operation, and which resource bounds it."""
    offsets = np.arange(steps, dtype=np.float64)
    times = np.empty((steps, len(lines)))
    bounds = np.empty((steps, len(lines)), dtype=np.int8)
    for i, line in enumerate(lines):
        per_resource = [
            (float(a) + float(s) * offsets) / rate for (a, s), rate in zip(_quantities(r, line), _rates(r, peaks, line))
        ]
        stacked = np.vstack(per_resource)
        times[:, i] = stacked.max(axis=0)
        bounds[:, i] = stacked.argmax(axis=0)
    return times, bounds


def _ops(r: Request, stage: str) -> list[tuple[LayerOp, int]]:
    return [(op, r.cfg.layers) for op in r.layer_ops(stage)] + [(op, 1) for op in r.head_ops(stage)]


def _types(r: Request) -> dict:
    return {op.name: _type(r, op) for stage in ("prefill", "decode") for op, _ in _ops(r, stage)}


def _type(r: Request, op: LayerOp) -> str:
    return phase_dtype(op.phase("", 1, {}), r.types)


def _moved(r: Request, pairs) -> list:
    """The tensors that move: all but FlashAttention's on-chip scores and probabilities."""
    return [(t, v) for t, v in pairs if not (r.flash_attention and t in FUSED)]


def _volumes(op: LayerOp, count: int, params: Mapping[str, int]) -> dict:
    """The op's exact ops, tensor bytes and network bytes at ``params``, × ``count`` layers."""

    def value(v) -> Fraction:
        return Fraction(evaluate(v, params)) * count

    return {
        "ops": value(op.ops),
        "reads": [(t, value(v)) for t, v in op.reads],
        "writes": [(t, value(v)) for t, v in op.writes],
        "network": None if op.network is None else value(op.network),
    }


def _far(r: Request, volumes: dict) -> Fraction:
    return sum((v for _, v in _moved(r, volumes["reads"] + volumes["writes"])), Fraction(0))


def _time(r: Request, volumes: dict, peak: float) -> float:
    """A phase's roofline time as the workload times it: compute, the farthest level, the network."""
    far = r.machine.bandwidth(r.machine.level_names[-1])
    times = [float(volumes["ops"]) / peak, float(_far(r, volumes)) / far]
    if volumes["network"] is not None:
        times.append(float(volumes["network"]) / r.machine.bandwidth(NETWORK))
    return max(times)


def _line(r: Request, op: LayerOp, count: int, kv_len: int) -> _Line:
    """The op's volumes from ``kv_len`` on, as (value there, change per step), exactly."""
    at0 = _volumes(op, count, {"batch": r.batch, "kv_len": kv_len})
    at1 = _volumes(op, count, {"batch": r.batch, "kv_len": kv_len + 1})
    values: dict[object, tuple] = {
        "ops": (at0["ops"], at1["ops"] - at0["ops"]),
        "far": (_far(r, at0), _far(r, at1) - _far(r, at0)),
    }
    if op.network is not None:
        values["network"] = (at0["network"], at1["network"] - at0["network"])
    for kind in ("reads", "writes"):
        for (t, a), (_, b) in zip(at0[kind], at1[kind]):
            values[kind, t] = (a, b - a)
    return _Line(op, count, values)


def _quantities(r: Request, line: _Line) -> list:
    return [line.values["ops"], line.values["far"]] + ([line.values["network"]] if "network" in line.values else [])


def _rates(r: Request, peaks: dict, line: _Line) -> list:
    rates = [peaks[_type(r, line.op)], r.machine.bandwidth(r.machine.level_names[-1])]
    return rates + ([r.machine.bandwidth(NETWORK)] if "network" in line.values else [])


def _summed(pair, start: int, end: int) -> float:
    """Σ over steps start … end−1 of ``at0 + slope·step``, exactly."""
    at0, slope = pair
    steps = end - start
    return float(at0 * steps + slope * Fraction((start + end - 1) * steps, 2))


def _summed_phase(r: Request, line: _Line, prefix: str, start: int, end: int) -> Phase:
    op = line.op
    extra = {}
    if op.network is not None:  # a plain number would be the farthest level's: both levels given
        far = r.machine.level_names[-1]
        extra["bytes"] = {
            NETWORK: _summed(line.values["network"], start, end),
            far: _summed(line.values["far"], start, end),
        }
    return Phase(
        prefix + op.name,
        ops=_summed(line.values["ops"], start, end),
        reads={prefix + t: _summed(line.values["reads", t], start, end) for t, _ in op.reads},
        writes={prefix + t: _summed(line.values["writes", t], start, end) for t, _ in op.writes},
        after=tuple(prefix + a for a in op.after),
        **extra,
    )


def _prefill_phases(r: Request, params: Mapping[str, int]) -> tuple[list, dict]:
    prefix = "prefill."
    phases = []
    for op, count in _ops(r, "prefill"):
        v = _volumes(op, count, params)
        far = r.machine.level_names[-1]
        extra = {} if v["network"] is None else {"bytes": {NETWORK: float(v["network"]), far: float(_far(r, v))}}
        phases.append(
            Phase(
                prefix + op.name,
                ops=float(v["ops"]),
                reads={prefix + t: float(b) for t, b in v["reads"]},
                writes={prefix + t: float(b) for t, b in v["writes"]},
                after=tuple(prefix + a for a in op.after),
                **extra,
            )
        )
    groups = {f"{prefix}attention": [f"{prefix}{m}" for m in ("qk_matmul", "softmax", "sv_matmul")]}
    return phases, groups if r.flash_attention else {}


def _after(phase: Phase, previous: str) -> Phase:
    """``phase`` also after ``previous`` (a decode step follows the token the step before produced)."""
    return Phase(
        phase.name,
        ops=phase.ops,
        reads=dict(phase.reads),
        writes=dict(phase.writes),
        after=(*phase.after, previous),
        bytes=dict(phase.bytes) if isinstance(phase.bytes, tuple) else None,
    )
