"""Fusion (docs/semantics.md#fusion): a tensor produced and consumed inside one fusion group costs no memory
traffic; every other tensor is read or written once, by the group."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from ..errors import WorkloadError, WrongTypeError, short_repr
from .graph import cycle_text, topological_order
from .phase import check_name
from .workload_protocols import FusableWorkload, W


def fuse(workload: W, groups: Mapping[str, Sequence[str]] | Sequence[Sequence[str]]) -> W:
    """The workload with its phases fused into ``groups`` (labels → phase names, or a list of lists).

    Phases named in no group stay on their own. Every phase in a group must be known by volumes
    and tensors (``reads``/``writes``) with no measured duration: a measured time cannot be fused.
    """
    _check_workload(workload)
    labelled = _labelled(groups)
    names = workload.names
    index = {name: i for i, name in enumerate(names)}
    group = np.full(len(names), -1, dtype=np.int64)
    for g, (label, members) in enumerate(labelled):
        if not members:
            raise WorkloadError(f"fusion group {short_repr(label)} is empty")
        for name in members:
            if not isinstance(name, str):
                raise WrongTypeError(
                    f"fusion group {short_repr(label)}: {short_repr(name)} is not a phase name (a string)"
                )
            if name not in index:
                raise WorkloadError(
                    f"fusion group {short_repr(label)} names {short_repr(name)}, which is not a phase of this workload"
                )
            i = index[name]
            if group[i] >= 0:
                raise WorkloadError(
                    f"phase {short_repr(name)} is in fusion groups {short_repr(labelled[group[i]][0])} and "
                    f"{short_repr(label)}"
                )
            group[i] = g
    measured = workload.measured
    tensors = workload.tensors
    for i in np.flatnonzero(group >= 0):
        if measured[i]:
            raise WorkloadError(
                f"phase {short_repr(names[i])} has a measured duration, which fusion cannot change: fuse phases known by "
                "volumes and tensors, or measure the fused kernel"
            )
        if not tensors[i][0] and not tensors[i][1]:
            raise WorkloadError(
                f"phase {short_repr(names[i])} names no tensors (reads=/writes=): fusion needs them to know "
                "which traffic stays on chip"
            )
    solo = group < 0
    group[solo] = len(labelled) + np.arange(int(solo.sum()))
    _check_groups_acyclic(workload, group, labelled)
    marked = np.where(group < len(labelled), group, -1)
    return workload.with_fusion_groups([label for label, _ in labelled], marked, fused=True)


def mark_groups(workload: W, group_of: Mapping[str, str]) -> W:
    """The workload with fusion-group labels attached as they are (``{phase name: group label}``),
    its bytes untouched: for workloads whose fused traffic is already known (e.g. read from a file)."""
    _check_workload(workload)
    if not isinstance(group_of, Mapping):
        raise WrongTypeError(f"group_of={short_repr(group_of)} must map phase names to fusion-group labels")
    names = workload.names
    known = set(names)
    unknown = [n for n in group_of if n not in known]
    if unknown:
        raise WorkloadError(f"fusion groups name {short_repr(unknown[0])}, which is not a phase of this workload")
    for label in group_of.values():
        check_name("fusion group label", label)
    labels = tuple(dict.fromkeys(group_of[n] for n in names if n in group_of))
    group = np.array([labels.index(group_of[n]) if n in group_of else -1 for n in names], dtype=np.int64)
    return workload.with_fusion_groups(labels, group, fused=False)


def _check_workload(workload: object) -> None:
    # what fusion needs of a workload, by its public methods: the workload module imports this one
    if not all(callable(getattr(workload, name, None)) for name in ("with_fusion_groups", "table")):
        raise WrongTypeError(f"workload={short_repr(workload)} must be a campaign_widget.Workload")


def _labelled(groups: Mapping[str, Sequence[str]] | Sequence[Sequence[str]]) -> list[tuple[str, list[str]]]:
    """(label, members) per group; labels are checked here, where they are made, as phase names are:
    a label a file cannot hold (empty, NUL, a lone surrogate, over MAX_NAME characters) is refused."""
    if isinstance(groups, Mapping):
        out = []
        for label, members in groups.items():
            check_name("fusion group label", label)
            if isinstance(members, str) or not isinstance(members, Iterable):
                raise WrongTypeError(
                    f"fusion group {short_repr(label)} is {short_repr(members)}; give a list of phase names"
                )
            out.append((label, list(members)))
        return out
    if isinstance(groups, str) or not isinstance(groups, Iterable):
        raise WrongTypeError(
            f"groups={short_repr(groups)} must map labels to lists of phase names, or be a list of such lists"
        )
    out = []
    for k, members in enumerate(groups):
        if isinstance(members, str) or not isinstance(members, Iterable):
            raise WrongTypeError(f"fusion group {k + 1} is {short_repr(members)}; give a list of phase names")
        out.append((f"group {k + 1}", list(members)))
    return out


def _check_groups_acyclic(
    workload: FusableWorkload, group: np.ndarray, labelled: Sequence[tuple[str, list[str]]]
) -> None:
    """Fused groups run as units: the graph between groups must stay acyclic."""
    label_of: dict[int, str] = {}
    for p, g in enumerate(group.tolist()):
        label_of.setdefault(g, labelled[g][0] if g < len(labelled) else f"phase {short_repr(workload.names[p])}")
    needs: dict[int, set[int]] = {g: set() for g in label_of}
    indptr, producers = workload.producers
    for p, g in enumerate(group.tolist()):
        needs[g].update(int(group[q]) for q in producers[indptr[p] : indptr[p + 1]] if group[q] != g)
    ids = sorted(label_of)
    try:  # by group number: a label may read like another group's ("phase 'a'")
        topological_order([str(g) for g in ids], [tuple(str(q) for q in needs[g]) for g in ids])
    except WorkloadError as error:
        cycle = [label_of[int(g)] for g in error.cycle]
        raise WorkloadError(
            f"these fusion groups split a dependency chain, making a cycle between groups: {cycle_text(cycle)}"
        ) from None


def fused_bytes(
    tensors: Sequence[tuple[Mapping[str, float], Mapping[str, float]]], logical_bytes: np.ndarray, group: np.ndarray
) -> np.ndarray:
    """Per phase: inputs from outside its group (once per group) + outputs needed outside it.

    ``tensors`` per phase (reads, writes), ``group`` per phase (every phase in some group)."""
    writer_group: dict[str, int] = {}
    readers: dict[str, set[int]] = {}
    for p, (reads, writes) in enumerate(tensors):
        for t in writes:
            writer_group[t] = int(group[p])
        for t in reads:
            readers.setdefault(t, set()).add(int(group[p]))
    new_bytes = np.array(logical_bytes, dtype=np.float64)
    loaded: set[tuple[int, str]] = set()
    for p, (reads, writes) in enumerate(tensors):
        if not reads and not writes:
            continue  # known by volume only: nothing to fuse
        g = int(group[p])
        total = 0.0
        for t, size in reads.items():
            if writer_group.get(t) == g or (g, t) in loaded:
                continue
            loaded.add((g, t))
            total += size
        for t, size in writes.items():
            if readers.get(t, set()) - {g} or t not in readers:
                total += size
        new_bytes[p] = total
    return new_bytes
