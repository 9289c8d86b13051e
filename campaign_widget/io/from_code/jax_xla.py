"""``Workload.from_jax``: a JAX function → one phase per fusion of the module XLA compiles for it.

``jax.jit(fn).lower(*example_args).compile()`` compiles the function for the default backend (the CPU
where there is no accelerator); example arguments may be ``jax.ShapeDtypeStruct`` s, so nothing is
computed. The compiled module's entry computation is a sequence of fusions and the few operations XLA
leaves unfused (a while loop, a custom call, a copy): each one is a phase, the fusion decisions XLA's.

Each phase's FLOPs and bytes accessed are XLA's own cost analysis (``HloCostAnalysis``) of that one
instruction: it is cut out of the optimized module into a module of its own (its operands as
parameters, the computations it calls as they are) and analysed on the same backend. Where that cannot
be done, its bytes come from the optimized HLO's operand and result shapes and its FLOPs are unknown.
The sum over phases is checked against the compiled module's own ``cost_analysis()`` totals, and
both are in the import report. Dependencies follow the operands. See docs/from-code.md#jax.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from ..._optional import require
from ...errors import WorkloadError, WrongTypeError, short_repr
from ...model.import_report import ImportReport, PhaseReport
from ...model.machine import Machine
from ...model.phase import Phase
from ...model.workload import Workload

FORMAT = "xla-hlo"
ALIASES = {"get-tuple-element", "bitcast", "tuple"}  # name a tensor, move nothing
NO_WORK = {"parameter", "constant", "after-all", "partition-id", "replica-id"}
ELEMENT_BYTES = {"pred": 1, "s4": 1, "u4": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2}
ELEMENT_BYTES.update({"s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16})
ELEMENT_BYTES.update({t: 1 for t in ("f8e4m3fn", "f8e5m2", "f8e4m3fnuz", "f8e5m2fnuz", "f8e4m3b11fnuz", "f8e8m0fnu")})
_ARRAY = re.compile(r"\b([a-z][a-z0-9]*)\[([0-9,]*)\]")
_OPERAND = r"%{}(?=[,)\s])"
_METADATA = re.compile(r",?\s*metadata=\{[^}]*\}")  # names stack frames of the whole module: not the cut-out's


@dataclass
class Instruction:
    name: str
    opcode: str
    shape: str
    text: str
    operands: list[str]
    op_name: str


def from_jax(fn, *example_args, machine=None) -> Workload:
    """The workload of ``jax.jit(fn)`` at ``example_args`` (see the module docstring)."""
    jax = require("jax", "Workload.from_jax", "jax")
    hlo = require("jaxlib._hlo", "Workload.from_jax", "jax")
    if not callable(fn):
        raise WrongTypeError(f"from_jax takes a function of arrays, got {short_repr(fn)}")
    _check_args(jax, example_args)
    label = getattr(fn, "__name__", type(fn).__name__)
    try:
        compiled = jax.jit(fn).lower(*example_args).compile()
    except Exception as e:  # noqa: BLE001 - tracing or compiling failed: said as ours, with its reason
        raise WorkloadError(_compile_failure(label, e)) from e
    executable = compiled.runtime_executable()
    (module,) = executable.hlo_modules()[:1]
    text = module.to_string()
    entry = _entry(module, text)
    totals = _totals(compiled.cost_analysis())
    report = ImportReport(path=f"from_jax({label})", format=FORMAT)
    if machine is None:
        machine = Machine.unit()
        report.machine_source = "unit peaks (pass machine= for durations in seconds)"
    phases, costs = _phases(hlo, executable.client, text, entry, report)
    if not phases:
        raise WorkloadError(f"from_jax: {label} compiles to a module that computes nothing (no fusion, no operation)")
    workload = Workload(phases, machine=machine)
    _report(report, workload, costs, totals, executable.client.platform)
    return workload.with_import_report(report)


def _check_args(jax, example_args) -> None:
    if not example_args:
        raise WrongTypeError("from_jax needs example arguments: from_jax(f, jax.ShapeDtypeStruct((8, 16), 'float32'))")
    for i, arg in enumerate(example_args):
        for leaf in jax.tree_util.tree_leaves(arg):
            if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")) and not isinstance(leaf, (bool, int, float)):
                raise WrongTypeError(
                    f"example_args[{i}] holds {short_repr(leaf)}, a {type(leaf).__name__}: example arguments are "
                    "arrays, jax.ShapeDtypeStruct (computes nothing), numbers, or pytrees of them"
                )


def _compile_failure(label: str, e: BaseException) -> str:
    lines = [line for line in str(e).splitlines() if line.strip()]
    reason = lines[0][:300] if lines else ""
    kind = type(e).__name__
    hint = ""
    if "Concretization" in kind or "TracerBool" in kind or "Tracer" in reason:
        hint = " (Python control flow on a traced value: use jax.lax.cond / jax.lax.while_loop, or mark it static)"
    return f"from_jax: jax.jit({label}) does not compile: {kind}: {reason}{hint}"


def _entry(module, text: str):
    match = re.search(r"^ENTRY %?([^\s(]+)", text, re.M)
    name = match.group(1) if match else None
    for computation in module.computations():
        if computation.name == name:
            return computation
    raise WorkloadError(f"from_jax: the compiled module has no entry computation {name!r}")


def _totals(analysis) -> dict:
    if isinstance(analysis, (list, tuple)):  # one per device in older jax
        analysis = analysis[0] if analysis else {}
    return dict(analysis or {})


def _instruction(raw) -> Instruction:
    text = raw.to_string()
    head = text.split(" = ", 1)[1] if " = " in text else text
    if head.startswith("("):
        depth, end = 0, len(head)
        for at, ch in enumerate(head):
            depth += (ch == "(") - (ch == ")")
            if depth == 0:
                end = at + 1
                break
        shape = head[:end]
    else:
        shape = head.split(" ", 1)[0]
    op_name = re.search(r'op_name="([^"]*)"', text)
    opcode = head[len(shape) :].strip().split("(", 1)[0]  # as HLO text spells it: fusion, get-tuple-element
    return Instruction(
        name=raw.name,
        opcode=opcode,
        shape=shape,
        text=text,
        operands=[o.name for o in raw.operands()],
        op_name=op_name.group(1) if op_name else "",
    )


def shape_bytes(shape: str) -> int:
    """Bytes of an HLO shape (``f32[8,16]{1,0}``, or a tuple of them)."""
    total = 0
    for kind, dims in _ARRAY.findall(shape):
        if kind in ELEMENT_BYTES:
            total += ELEMENT_BYTES[kind] * math.prod(int(d) for d in dims.split(",") if d)
    return total


def _phases(hlo, client, text: str, entry, report: ImportReport):
    instructions = [_instruction(raw) for raw in entry.instructions()]
    by_name = {i.name: i for i in instructions}
    others = _called_computations(text)
    tensor: dict[str, str] = {}  # instruction → the tensor it names
    for i in instructions:
        if i.opcode == "parameter":
            tensor[i.name] = i.op_name or i.name
    rows: dict[str, dict] = {}  # phase → its instruction, cost, FLOPs, bytes, reads, writes
    carried: dict[str, tuple[float, float]] = {}  # alias → (FLOPs, bytes) its consumer's phase takes on
    pending = [i for i in instructions if i.opcode not in NO_WORK]
    for i in _in_order(pending, by_name):
        cost = _cost(hlo, client, others, i, by_name)
        taken = [carried.pop(o) for o in i.operands if o in carried]
        if i.opcode in ALIASES:  # a tuple's pointer table is bytes too: charged to the phase that reads it
            tensor[i.name] = tensor.get(i.operands[0], i.operands[0]) if len(i.operands) == 1 else i.name
            own = (cost or {}).get("flops", 0.0), (cost or {}).get("bytes accessed", 0.0)
            carried[i.name] = (own[0] + sum(t[0] for t in taken), own[1] + sum(t[1] for t in taken))
            continue
        reads: dict[str, int] = {}
        for o in i.operands:
            if by_name[o].opcode != "constant":
                name = tensor.get(o, o)
                reads[name] = reads.get(name, 0) + shape_bytes(by_name[o].shape)
        tensor[i.name] = i.name
        flops: float | None
        nbytes: float
        if cost is None:
            flops, nbytes = None, float(sum(shape_bytes(by_name[o].shape) for o in i.operands) + shape_bytes(i.shape))
        else:
            flops, nbytes = cost.get("flops", 0.0), cost.get("bytes accessed", 0.0)
        for t in taken:
            flops, nbytes = (flops or 0.0) + t[0], nbytes + t[1]
        rows[i.name] = {"instruction": i, "cost": cost, "flops": flops, "bytes": nbytes, "reads": reads}
        rows[i.name]["writes"] = {i.name: shape_bytes(i.shape)}
    for alias, (extra_flops, extra_bytes) in carried.items():  # the entry's result tuple: charged to what it gathers
        producer = _producer(alias, rows, by_name)
        if producer is not None:
            row = rows[producer]
            row["flops"], row["bytes"] = (row["flops"] or 0.0) + extra_flops, row["bytes"] + extra_bytes
    phases = [
        Phase(name, ops=r["flops"], bytes=r["bytes"], reads=r["reads"], writes=r["writes"]) for name, r in rows.items()
    ]
    return phases, rows


def _producer(name: str, rows: dict, by_name: dict) -> str | None:
    """The phase an alias (through aliases of aliases) stands for, if any."""
    seen, stack = set(), [name]
    while stack:
        current = stack.pop(0)
        if current in rows:
            return current
        if current not in seen:
            seen.add(current)
            stack.extend(by_name[current].operands if current in by_name else ())
    return None


def _in_order(pending: list[Instruction], by_name: dict) -> list[Instruction]:
    """The instructions with every operand before its users (the module lists them in schedule order,
    which a tensor's alias needs)."""
    done: set[str] = {n for n, i in by_name.items() if i.opcode in NO_WORK}
    out, left = [], list(pending)
    while left:
        ready = [i for i in left if all(o in done for o in i.operands)]
        if not ready:
            raise WorkloadError(
                f"from_jax: the compiled module's instructions {[i.name for i in left][:5]} form a cycle"
            )
        for i in ready:
            done.add(i.name)
            out.append(i)
        left = [i for i in left if i.name not in done]
    return out


def _called_computations(text: str) -> str:
    """Every computation of the module but its entry, as text (what a cut-out instruction may call)."""
    blocks = re.split(r"\n\s*\n", text)
    kept = [b for b in blocks[1:] if b.lstrip().startswith("%")]  # not the entry, not the stack-frame tables
    return _METADATA.sub("", "\n\n".join(kept))


def _cost(hlo, client, others: str, i: Instruction, by_name: dict) -> dict | None:
    """XLA's cost analysis of one instruction, cut out into a module of its own (None where that fails)."""
    from jax._src.lib import xla_client

    body = i.text.split(" = ", 1)[1]
    params = []
    for k, o in enumerate(i.operands):
        body = re.sub(_OPERAND.format(re.escape(o)), f"%p{k}", body)
        params.append((f"p{k}", by_name[o].shape))
    body = _METADATA.sub("", body)
    signature = ", ".join(f"{p}: {s}" for p, s in params)
    lines = [f"  %{p} = {s} parameter({k})" for k, (p, s) in enumerate(params)]
    entry = f"ENTRY %cut ({signature}) -> {i.shape} {{\n" + "\n".join(lines) + f"\n  ROOT %{i.name} = {body}\n}}"
    try:
        module = hlo.hlo_module_from_text(f"HloModule cut\n\n{others}\n\n{entry}\n")
        return dict(xla_client._xla.hlo_module_cost_analysis(client, module))
    except Exception:  # noqa: BLE001 - an instruction XLA's parser or analysis refuses on its own: shapes then
        return None


def _report(report: ImportReport, workload: Workload, costs: dict, totals: dict, platform: str) -> None:
    index = {n: k for k, n in enumerate(workload.names)}
    a = workload.arrays
    flops_sum = bytes_sum = transcendentals = 0.0
    shapes_only = []
    for name, row in costs.items():
        i, cost, flops, nbytes = row["instruction"], row["cost"], row["flops"], row["bytes"]
        k = index[name]
        flops_sum += flops or 0.0
        bytes_sum += nbytes
        transcendentals += (cost or {}).get("transcendentals", 0.0)
        if cost is None:
            shapes_only.append(name)
        report.phases.append(
            PhaseReport(
                name=name,
                duration=float(a.duration[k]),
                ops=float(a.ops[k]) if flops is not None else float("nan"),
                bytes=float(a.bytes[k]),
                flops="XLA cost analysis" if flops is not None else "unknown",
                bytes_source="XLA cost analysis" if cost is not None else "HLO shapes",
                details={
                    "opcode": i.opcode,
                    "kind": (re.search(r"kind=(k\w+)", i.text) or [None, ""])[1],
                    "op_name": i.op_name,
                    "transcendentals": (cost or {}).get("transcendentals", 0.0),
                },
            )
        )
    report.notes.append(
        f"fused by: XLA ({platform} compiler): {len(costs)} phases, one per fusion or unfused operation of the "
        "compiled module's entry computation"
    )
    report.notes.append(
        f"sum over phases: {flops_sum:,.0f} FLOPs, {bytes_sum:,.0f} bytes accessed, {transcendentals:,.0f} "
        f"transcendentals; the compiled module's cost_analysis(): {totals.get('flops', 0):,.0f} FLOPs, "
        f"{totals.get('bytes accessed', 0):,.0f} bytes accessed, {totals.get('transcendentals', 0):,.0f} transcendentals"
    )
    report.notes.append("transcendentals (exp, log, tanh, ...) are counted apart from FLOPs, as XLA does")
    if shapes_only:
        report.notes.append(
            f"{len(shapes_only)} phases XLA's analysis could not take alone: bytes from HLO shapes, FLOPs unknown: "
            + ", ".join(shapes_only[:8])
        )
    if platform == "cpu":
        report.notes.append(
            "compiled for the CPU: XLA's GPU compiler fuses differently (matrix products with their epilogues, "
            "reductions with what follows them), so a GPU's module can have fewer, larger fusions"
        )
