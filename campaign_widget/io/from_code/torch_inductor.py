"""The fusion groups Inductor (``torch.compile``'s compiler) forms for an exported graph, read from its scheduler.

The exported graph goes through Inductor's own pipeline (``compile_fx``: its decompositions, its lowering,
its scheduler) on fake tensors. When the scheduler has fused its nodes, a post-fusion hook reads each
kernel it made (a fused scheduler node, or one node alone, or an extern kernel such as a matrix product)
and stops the compile there: no code is generated or compiled. Each kernel's origins (the FX nodes it
computes) lead, through the nodes' provenance, back to the operators of the exported graph: our phases.

Where Inductor computes one operator in two kernels (a norm's statistics, then its normalization, when
it does not fuse them; a cheap operator recomputed inside two consumers), those kernels make one group:
a phase is in one group. The fusion is the one Inductor makes for the device of the example inputs (a
meta tensor is compiled for the CPU): its C++ backend, not the GPU's Triton (docs/from-code.md#pytorch).
"""

from __future__ import annotations

from ...errors import CampaignWidgetError, WorkloadError


class _Fused(CampaignWidgetError):
    """Raised by the post-fusion hook: the groups are read, the compile need not go on."""


def inductor_groups(torch, exported, workload) -> tuple[dict[str, list[str]], str]:
    """(fusion group label → phase names, a note for the import report) for an exported program and its
    unfused workload."""
    from torch._inductor import config
    from torch._inductor.compile_fx import compile_fx

    phases = set(workload.names)
    gm = exported.graph_module
    graph_id = id(gm.graph)
    kernels: list[tuple[str, list[str]]] = []

    def read_kernels(nodes: list) -> list:
        for kernel in nodes:
            members: list[str] = []
            for part in kernel.get_nodes():
                ir = part.node
                if ir is None:
                    continue
                extern = type(part).__name__ == "ExternKernelSchedulerNode"
                origins = [ir.origin_node] if extern and getattr(ir, "origin_node", None) is not None else ir.origins
                for origin in origins:
                    members.extend(n for n in _exported_names(origin, gm.graph, graph_id) if n in phases)
            kernels.append((kernel.get_name(), list(dict.fromkeys(members))))
        raise _Fused

    inputs = _compile_inputs(torch, [n.meta["val"] for n in gm.graph.nodes if n.op == "placeholder"])
    try:
        with config.patch(_post_fusion_custom_pass=read_kernels, fx_graph_cache=False, fx_graph_remote_cache=False):
            compile_fx(gm, inputs)
    except Exception as e:  # noqa: BLE001 - the hook's stop, or Inductor's own failure
        if not kernels:
            raise WorkloadError(f"from_torch(fuse='inductor'): Inductor could not compile the graph: {e}") from e
    groups = _merged(kernels)
    absent = _place_absent(workload, groups)
    note = (
        f"Inductor's scheduler made {len(kernels)} kernels for the {inputs[0].device.type if inputs else 'cpu'} "
        f"(read after its fusion pass, nothing compiled); {len(groups)} fusion groups of phases"
        + (
            f"; {absent} phases no kernel computes (identities it removed) join their consumer's group"
            if absent
            else ""
        )
    )
    return groups, note


def _compile_inputs(torch, values: list) -> list:
    """The placeholders' fake tensors, those on the meta device moved to the CPU (Inductor compiles for a
    device); symbolic sizes stay symbolic."""
    mode = torch._guards.detect_fake_mode(values)
    if mode is None:
        return values
    with mode:
        return [
            torch.empty_strided(v.shape, v.stride(), dtype=v.dtype, device="cpu")
            if isinstance(v, torch.Tensor) and v.device.type == "meta"
            else v
            for v in values
        ]


def _exported_names(node, graph, graph_id: int) -> list[str]:
    """The exported graph's operators an FX node of Inductor's graph comes from (its provenance)."""
    if node.graph is graph:
        return [node.name]
    found: list[str] = []
    stack = list(node.meta.get("from_node") or ())
    while stack:
        source = stack.pop()
        if getattr(source, "graph_id", None) == graph_id:
            found.append(source.name)
        else:
            stack.extend(getattr(source, "from_node", None) or ())
    return found


def _merged(kernels: list[tuple[str, list[str]]]) -> dict[str, list[str]]:
    """Kernels that share a phase joined (union-find), labelled by their kernels' names; kernels of no phase
    left out."""
    parent = list(range(len(kernels)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    home: dict[str, int] = {}
    for k, (_, members) in enumerate(kernels):
        for name in members:
            if name in home:
                parent[root(k)] = root(home[name])
            else:
                home[name] = k
    joined: dict[int, tuple[list[str], list[str]]] = {}
    for k, (label, members) in enumerate(kernels):
        if members:
            labels, names = joined.setdefault(root(k), ([], []))
            labels.append(label)
            names.extend(m for m in members if m not in names)
    return {"inductor " + "+".join(labels): names for labels, names in joined.values()}


def _place_absent(workload, groups: dict[str, list[str]]) -> int:
    """Phases in no kernel (an eval-mode dropout, an identity Inductor removes) put in the group of their
    first consumer in a group, else of their producer: between two phases of one kernel, alone, they
    would make a cycle between groups. Returns how many."""
    names = workload.names
    group_of = {n: label for label, members in groups.items() for n in members}
    indptr, indices = workload.producers
    consumers: dict[int, list[int]] = {}
    for i in range(len(names)):
        for p in indices[indptr[i] : indptr[i + 1]].tolist():
            consumers.setdefault(p, []).append(i)
    absent = 0
    for i in reversed(range(len(names))):  # consumers first: a chain of absent phases joins one group
        if names[i] in group_of:
            continue
        near = consumers.get(i, []) + indices[indptr[i] : indptr[i + 1]].tolist()
        label = next((group_of[names[j]] for j in near if names[j] in group_of), None)
        if label is not None:
            groups[label].append(names[i])
            group_of[names[i]] = label
            absent += 1
    return absent
