"""``Workload.from_torch``: a PyTorch module or function → one phase per operator of its exported graph.

The graph is captured by ``torch.export`` (non-strict: the Python code runs once, on fake tensors, so no
operator computes and no weight is read). Each operator that computes or moves data is a phase:

- FLOPs: what ``torch.utils.flop_counter.FlopCounterMode`` counts when the operator runs on the
  graph's fake tensors (matrix products, convolutions, attention). Operators it has no formula for get
  our operator models (``campaign_widget.io.op_models``: elementwise, norms, softmax, reductions); an
  operator neither knows is a phase with unknown FLOPs, listed in the import report.
- Bytes: every tensor it reads (weights and activations) at its size and element type, and every
  tensor it writes; views (``view``, ``t``, ``permute``, ...) move nothing and stand for the tensor they view.
- Dependencies: the graph's edges, through those tensors.
- Dimensions marked dynamic (``dynamic_shapes=`` with ``torch.export.Dim``) stay symbolic through the
  trace, so every FLOP and byte count is an expression in them: the workload's parameters.

``fuse="inductor"`` fuses the phases into the groups Inductor forms (``torch_inductor``).
See docs/from-code.md#pytorch.
"""

from __future__ import annotations

import inspect
import operator
from dataclasses import dataclass, field

from ..._optional import require
from ...errors import ArgumentError, WorkloadError, WrongTypeError, short_repr
from ...model.import_report import ImportReport, PhaseReport
from ...model.machine import Machine
from ...model.phase import Phase
from ...model.workload import Workload
from ..op_models import VIEW_OPS, exact_flops
from ._symbolic import NotExpressible, hint, size_text

FORMAT = "torch-export"
FUSE = ("none", "inductor")
BY_COUNTER = "FlopCounterMode"
BY_MODEL = "op model"
UNKNOWN = "unknown"
SHOWN = 8  # phases named in a note
IDENTITY_WHEN_NOT_TRAINING = ("aten::dropout", "aten::feature_dropout", "aten::alpha_dropout")


@dataclass
class TorchGraph:
    """The exported graph read: its phases, parameters and, per phase, where its FLOPs come from."""

    phases: list[Phase] = field(default_factory=list)
    params: dict[str, int] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # phase → BY_COUNTER, BY_MODEL or UNKNOWN
    ops_text: dict[str, str] = field(default_factory=dict)
    targets: dict[str, str] = field(default_factory=dict)
    counted: int = 0  # FlopCounterMode's total at the example sizes
    fixed: list[str] = field(default_factory=list)  # sizes our expressions cannot spell, fixed at the example's


def from_torch(module_or_fn, *example_inputs, machine=None, fuse="none", dynamic_shapes=None) -> Workload:
    """The workload of ``module_or_fn`` called with ``example_inputs`` (see the module docstring)."""
    torch = require("torch", "Workload.from_torch", "torch")
    if fuse not in FUSE:
        raise ArgumentError(f"fuse={short_repr(fuse)} must be one of {', '.join(map(repr, FUSE))}")
    module = _as_module(torch, module_or_fn)
    _check_inputs(torch, example_inputs)
    exported = _export(torch, module, example_inputs, dynamic_shapes)
    graph = read_graph(torch, exported, dynamic_shapes, example_inputs, module)
    if not graph.phases:
        raise WorkloadError(f"from_torch: {_label(module_or_fn)} computes nothing (no operator in its graph)")
    report = ImportReport(path=f"from_torch({_label(module_or_fn)})", format=FORMAT)
    if machine is None:
        machine = Machine.unit()
        report.machine_source = "unit peaks (pass machine= for durations in seconds)"
    workload = Workload(graph.phases, machine=machine, params=graph.params)
    fused_by = "nobody: one phase per operator of the exported graph (fuse='inductor' for Inductor's groups)"
    if fuse == "inductor":
        from .torch_inductor import inductor_groups

        groups, note = inductor_groups(torch, exported, workload)
        workload = workload.fuse(groups)
        fused_by, report.notes[:0] = "Inductor (torch.compile's scheduler)", [note]
    _report(report, workload, graph, fused_by)
    return workload.with_import_report(report)


def _label(module_or_fn) -> str:
    return getattr(module_or_fn, "__name__", None) or type(module_or_fn).__name__


def _as_module(torch, module_or_fn):
    if isinstance(module_or_fn, torch.nn.Module):
        return module_or_fn
    if not callable(module_or_fn):
        raise WrongTypeError(
            f"from_torch takes a torch.nn.Module or a function of tensors, got {short_repr(module_or_fn)}"
        )

    class Function(torch.nn.Module):
        def forward(self, *args):
            return module_or_fn(*args)

    try:  # the graph's inputs take the function's argument names
        parameters = list(inspect.signature(module_or_fn).parameters.values())
        self_ = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
        Function.forward.__signature__ = inspect.Signature([self_, *parameters])  # type: ignore[attr-defined]
    except (TypeError, ValueError):  # a builtin without a signature: args_0, args_1, ...
        pass
    return Function()


def _check_inputs(torch, example_inputs) -> None:
    if not example_inputs:
        raise ArgumentError("from_torch needs example inputs: from_torch(model, torch.randn(8, 16, device='meta'))")
    for i, value in enumerate(example_inputs):
        _check_input(torch, value, f"example_inputs[{i}]")


def _check_input(torch, value, where: str) -> None:
    if isinstance(value, (tuple, list)):
        for k, item in enumerate(value):
            _check_input(torch, item, f"{where}[{k}]")
    elif isinstance(value, dict):
        for k, item in value.items():
            _check_input(torch, item, f"{where}[{k!r}]")
    elif not isinstance(value, (torch.Tensor, bool, int, float)) and value is not None:
        raise WrongTypeError(
            f"{where}={short_repr(value)} is a {type(value).__name__}: example inputs are tensors "
            "(torch.randn(..., device='meta') computes nothing), numbers, or tuples, lists and dicts of them"
        )


def _export(torch, module, example_inputs, dynamic_shapes):
    try:
        return torch.export.export(module, tuple(example_inputs), dynamic_shapes=dynamic_shapes, strict=False)
    except Exception as e:  # noqa: BLE001 - every failure of the tracer is said as ours, with its reason
        raise WorkloadError(_export_failure(e)) from e


def _export_failure(e: BaseException) -> str:
    text = str(e).strip()
    lines = [line for line in text.splitlines() if line.strip()]
    where = next((line.strip() for line in lines if line.strip().startswith("File ")), "")
    reason = lines[0] if lines else type(e).__name__
    if "data-dependent" in text or "data dependent" in text:
        why = (
            "data-dependent control flow: the code branches on a tensor's values, which a trace cannot follow "
            "(use torch.cond, or branch on shapes); "
        )
    else:
        why = ""
    return (
        f"from_torch: torch.export could not capture the module: {why}{type(e).__name__}: {reason[:300]}"
        + (f" ({where[:200]})" if where else "")
        + "; torch.fx.symbolic_trace(module) shows whether plain FX can trace it"
    )


def read_graph(torch, exported, dynamic_shapes, example_inputs, module) -> TorchGraph:
    """The phases of an exported program (see the module docstring)."""
    graph = TorchGraph()
    names = _parameter_names(torch, exported, dynamic_shapes, example_inputs, module)
    signature = exported.graph_signature
    labels = {
        **signature.inputs_to_parameters,
        **signature.inputs_to_buffers,
        **signature.inputs_to_lifted_tensor_constants,
    }
    tensors: dict = {}  # fx node → the tensor name (a tuple of names for an operator with several outputs)
    for node in exported.graph.nodes:
        if node.op == "placeholder":
            tensors[node] = labels.get(node.name, node.name)
        elif node.op == "call_function":
            _call(torch, node, tensors, names, graph)
    graph.params = {names[s]: v for s, v in names.values_at.items()}
    return graph


class _Names(dict):
    """Tracer symbol → parameter name, with ``values_at``: tracer symbol → the example's value."""

    values_at: dict[str, int]


def _parameter_names(torch, exported, dynamic_shapes, example_inputs, module) -> _Names:
    """The dynamic dimensions: each tracer symbol of a user input's shape named by its ``torch.export.Dim``."""
    names = _Names()
    names.values_at = {}
    user = set(exported.graph_signature.user_inputs)
    placeholders = [n for n in exported.graph.nodes if n.op == "placeholder" and n.name in user]
    specs = _specs(dynamic_shapes, example_inputs, module)
    tensors = [n for n in placeholders if isinstance(n.meta.get("val"), torch.Tensor)]
    for node, spec in zip(tensors, specs):
        shape = node.meta["val"].shape
        for d, dim in spec.items() if isinstance(spec, dict) else enumerate(spec or ()):
            if dim is None or not isinstance(d, int) or d >= len(shape):
                continue
            symbol = getattr(shape[d], "node", None)
            if symbol is not None and symbol.expr.is_Symbol:
                names[str(symbol.expr)] = str(getattr(dim, "__name__", symbol.expr))
    for node in tensors:  # symbols no Dim named (Dim.AUTO) keep the tracer's name
        for size in node.meta["val"].shape:
            symbol = getattr(size, "node", None)
            if symbol is not None and symbol.expr.is_Symbol:
                names.setdefault(str(symbol.expr), str(symbol.expr))
                names.values_at[str(symbol.expr)] = hint(size)
    return names


def _specs(dynamic_shapes, example_inputs, module) -> list:
    """One spec per example input: a dict or tuple of ``Dim`` s, or None."""
    if dynamic_shapes is None:
        return [None] * len(example_inputs)
    if isinstance(dynamic_shapes, dict):
        parameters = list(inspect.signature(module.forward).parameters)
        return [dynamic_shapes.get(name) for name in parameters[: len(example_inputs)]]
    if isinstance(dynamic_shapes, (tuple, list)):
        return list(dynamic_shapes)
    raise WrongTypeError(
        f"dynamic_shapes={short_repr(dynamic_shapes)} must be a tuple (one entry per example input) or a dict "
        "(argument name → {dimension: torch.export.Dim})"
    )


def _call(torch, node, tensors: dict, names: _Names, graph: TorchGraph) -> None:
    target = node.target
    if target is operator.getitem:
        base = tensors.get(node.args[0])
        if isinstance(base, tuple) and isinstance(node.args[1], int):
            tensors[node] = base[node.args[1]]
        return
    schema = getattr(target, "_schema", None)
    name = schema.name if schema is not None else str(target)  # not ATen: arithmetic on sizes, torch.cond
    inputs = _tensor_inputs(torch, node)
    if getattr(target, "is_view", False) or name in VIEW_OPS or _identity(name, node):
        if inputs:
            tensors[node] = tensors.get(inputs[0][0])
        return
    outputs = _tensor_values(torch, node.meta.get("val"))
    if not outputs:  # shape queries and assertions: no data
        return
    reads: dict[str, object] = {}
    for arg, value in inputs:
        tensor = tensors.get(arg)
        if isinstance(tensor, str):
            reads[tensor] = _plus(reads.get(tensor), _size(value, names, graph, node.name))
    out_names = tuple(node.name if len(outputs) == 1 else f"{node.name}.{k}" for k in range(len(outputs)))
    tensors[node] = out_names[0] if len(outputs) == 1 else out_names
    writes = {n: _size(v, names, graph, node.name) for n, v in zip(out_names, outputs)}
    ops, source = _flops(torch, node, name, names, graph)
    graph.sources[node.name] = source
    graph.targets[node.name] = str(target)
    graph.ops_text[node.name] = "unknown" if ops is None else str(ops)
    graph.phases.append(Phase(node.name, ops=ops, reads=reads, writes=writes))


def _identity(name: str, node) -> bool:
    """An operator that returns its input as it is: dropout out of training (a module in ``eval()``)."""
    return name in IDENTITY_WHEN_NOT_TRAINING and len(node.args) > 2 and node.args[2] is False


def _tensor_inputs(torch, node) -> list:
    """(fx node, its value) of every tensor the operator takes, lists (``cat``) flattened, once each."""
    found: list = []

    def visit(arg):
        if isinstance(arg, (tuple, list)):
            for item in arg:
                visit(item)
        elif hasattr(arg, "meta") and isinstance(arg.meta.get("val"), torch.Tensor):
            if all(arg is not seen for seen, _ in found):
                found.append((arg, arg.meta["val"]))

    visit(node.args)
    visit(list(node.kwargs.values()))
    return found


def _tensor_values(torch, value) -> list:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [v for v in value if isinstance(v, torch.Tensor)]
    return []


def _size(value, names: _Names, graph: TorchGraph, where: str):
    """Bytes of a tensor: its elements × its element size, an expression in the dynamic dimensions."""
    return _text(value.numel() * value.element_size(), names, graph, f"{where} bytes")


def _text(value, names: _Names, graph: TorchGraph, what: str):
    try:
        return size_text(value, names)
    except NotExpressible as e:
        graph.fixed.append(f"{what} ({e})")
        return hint(value)


def _plus(a, b):
    if a is None:
        return b
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return f"({a}) + ({b})"


def _flops(torch, node, name: str, names: _Names, graph: TorchGraph):
    """(FLOPs as an int or expression, or None; which counted them)."""
    from torch.utils.flop_counter import FlopCounterMode

    args, kwargs = torch.fx.node.map_arg((node.args, node.kwargs), lambda a: a.meta.get("val"))
    try:
        with FlopCounterMode(display=False) as counter:
            node.target(*args, **kwargs)
    except Exception:  # noqa: BLE001 - an operator that cannot run on fake tensors: its FLOPs are unknown
        counted = None
    else:
        counted = counter.get_flop_counts().get("Global") or None
    if counted:
        total = counter.get_total_flops()
        graph.counted += hint(total)
        return _text(total, names, graph, f"{node.name} FLOPs"), BY_COUNTER
    dims = [list(a.meta["val"].shape) if _is_tensor_node(torch, a) else None for a in node.args]
    modelled = exact_flops(name, dims)
    if modelled is None:
        return None, UNKNOWN
    return _text(modelled, names, graph, f"{node.name} FLOPs"), BY_MODEL


def _is_tensor_node(torch, arg) -> bool:
    return hasattr(arg, "meta") and isinstance(arg.meta.get("val"), torch.Tensor)


def _report(report: ImportReport, workload: Workload, graph: TorchGraph, fused_by: str) -> None:
    index = {n: i for i, n in enumerate(workload.names)}
    a = workload.arrays
    labels = workload.fusion_groups
    groups = {n: labels[g] for n, g in zip(workload.names, workload.fusion_group.tolist()) if g >= 0}
    for phase in graph.phases:
        i = index[phase.name]
        report.phases.append(
            PhaseReport(
                name=phase.name,
                duration=float(a.duration[i]),
                ops=float(a.ops[i]) if graph.sources[phase.name] != UNKNOWN else float("nan"),
                bytes=float(a.bytes[i]),
                flops=graph.sources[phase.name],
                bytes_source="estimated",
                details={
                    "operator": graph.targets[phase.name],
                    "ops": graph.ops_text[phase.name],
                    "fusion_group": groups.get(phase.name, ""),
                },
            )
        )
    by = {s: [n for n, v in graph.sources.items() if v == s] for s in (BY_COUNTER, BY_MODEL, UNKNOWN)}
    report.notes.append(
        f"FLOPs: {graph.counted:,} counted by torch.utils.flop_counter.FlopCounterMode in "
        f"{len(by[BY_COUNTER])} phases (its total for the graph at the example sizes)"
    )
    if by[BY_MODEL]:
        report.notes.append(
            f"{len(by[BY_MODEL])} phases have no FlopCounterMode formula; their FLOPs come from our operator "
            f"models: {_shown(by[BY_MODEL])}"
        )
    if by[UNKNOWN]:
        report.notes.append(
            f"FLOPs unknown (no formula in FlopCounterMode nor in our operator models) for {len(by[UNKNOWN])} "
            f"phases: {_shown(by[UNKNOWN])}"
        )
    report.notes.append("bytes: every tensor an operator reads (weights, activations) and writes, once each")
    report.notes.append(f"fused by: {fused_by}")
    if labels:
        members: dict[str, list[str]] = {}
        for name, label in groups.items():
            members.setdefault(label, []).append(name)
        report.notes.append(
            "fusion groups: " + "; ".join(f"{label}: {', '.join(names)}" for label, names in members.items())
        )
    if workload.params:
        report.notes.append(
            "parameters (dynamic dimensions, at the example inputs' sizes): "
            + ", ".join(f"{k}={v}" for k, v in workload.params.items())
        )
    if graph.fixed:
        report.notes.append(f"{len(graph.fixed)} sizes fixed at the example's values: {_shown(graph.fixed)}")
    report.notes.append("captured by torch.export on fake tensors: no operator ran and no weight was read")


def _shown(items: list[str]) -> str:
    return ", ".join(items[:SHOWN]) + (f", +{len(items) - SHOWN} more" if len(items) > SHOWN else "")
