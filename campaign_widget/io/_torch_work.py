"""The work of a trace's GPU events (kernels, memcpys, memsets): from a Nsight Compute report of the same
run, else inherited from the CPU operator that launched them."""

from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from ..model.import_report import ImportReport
from ._common import function_name
from ._torch_phases import nesting
from ._torch_scan import (
    BYTES_COUNTED,
    BYTES_INHERITED,
    BYTES_UNKNOWN,
    FLOPS_COMPUTED,
    FLOPS_COUNTERS,
    FLOPS_INHERITED,
    FLOPS_UNKNOWN,
    GPU_CATEGORIES,
    LAUNCH_CATEGORIES,
    WORK_UNKNOWN,
    Events,
)

# -- the work of GPU events ------------------------------------------------------------------------------------


def give_gpu_work(ev: Events, sel: np.ndarray, report: ImportReport, *, machine, counters=None) -> None:
    """Give the GPU events (kernels, memcpys, memsets) the FLOPs and bytes that the trace itself does not
    record: from a Nsight Compute report of the same run (``counters``), else from the CPU operator that
    launched them; list in the report those whose work stays unknown."""
    gpu_ids = [ev.cats[c] for c in GPU_CATEGORIES if c in ev.cats]
    gpu = np.flatnonzero(np.isin(ev.cat, gpu_ids))
    if gpu.size == 0:
        return
    if counters is not None:
        _counters(ev, gpu, report, machine, counters)
    _inherit(ev, gpu, report)
    chosen = np.intersect1d(gpu, sel, assume_unique=True)
    unknown = chosen[(ev.flops_src[chosen] == FLOPS_UNKNOWN) & (ev.bytes_src[chosen] == BYTES_UNKNOWN)]
    if unknown.size:
        names = Counter(ev.id_to_name[i] for i in ev.name[unknown].tolist())
        report.skipped_detail[WORK_UNKNOWN] = names
        share = float(ev.dur[unknown].sum() / max(ev.dur[chosen].sum(), 1e-300))
        report.notes.append(
            f"work unknown for {unknown.size:,} of {chosen.size:,} GPU events ({share:.1%} of their time, "
            f"{len(names):,} kernel names): the trace records no FLOPs or bytes for them, no Nsight Compute "
            "report (counters=) gives them, and no launching operator has shapes a work model covers "
            f"(record_shapes=True); see import_report.skipped_detail[{WORK_UNKNOWN!r}]"
        )


def _inherit(ev: Events, gpu: np.ndarray, report: ImportReport) -> None:
    """Each GPU event inherits the work of the operator that launched it, split across that operator's
    GPU events by duration.

    The launching operator: the one whose External id the GPU event carries, else the innermost operator
    around the runtime launch with the event's correlation id, on the launch's thread. The operator whose
    work is inherited: the outermost one with a nonzero modelled volume among the launching operator and
    the operators enclosing it (``aten::linear`` for the GEMM its ``aten::addmm`` runs, ``aten::conv2d``
    for every kernel of the convolution), so that no work is counted twice."""
    cpu_id = ev.cats.get("cpu_op")
    need = gpu[(ev.flops_src[gpu] == FLOPS_UNKNOWN) | (ev.bytes_src[gpu] == BYTES_UNKNOWN)]
    if cpu_id is None or need.size == 0:
        return
    cpu = np.flatnonzero(ev.cat == cpu_id)
    launches = np.flatnonzero(np.isin(ev.cat, [ev.cats[c] for c in LAUNCH_CATEGORIES if c in ev.cats]))
    rows = np.concatenate([cpu, launches])  # operators first: row k < cpu.size is an operator
    if rows.size == 0:  # GPU events, but no operator or launch to inherit their work from
        return
    parent, order = nesting(ev.thread[rows], ev.ts[rows], ev.dur[rows])
    f, fs, b, bs = ev.flops[rows], ev.flops_src[rows], ev.bytes[rows], ev.bytes_src[rows]
    modelled = (((fs != FLOPS_UNKNOWN) & (f > 0)) | ((bs != BYTES_UNKNOWN) & (b > 0))).tolist()
    owner = [-1] * rows.size
    up = parent.tolist()
    for i in order.tolist():  # parents before their children
        p = up[i]
        owner[i] = owner[p] if p >= 0 and owner[p] >= 0 else (i if modelled[i] else -1)
    owner = np.asarray(owner, dtype=np.int64)
    ext, corr = ev.ext[need], ev.corr[need]
    ext = np.where(ext == corr, -1, ext)  # some Kineto versions write the correlation id as External id
    by_ext = _lookup(ev.ext[cpu], np.arange(cpu.size), ext)
    by_launch = _lookup(ev.corr[launches], np.arange(cpu.size, rows.size), corr)
    row = np.where(by_ext >= 0, by_ext, by_launch)
    who = np.where(row >= 0, owner[np.maximum(row, 0)], -1)
    take = who >= 0
    if not take.any():
        return
    gpu_rows, who = need[take], who[take]
    total = np.bincount(who, weights=ev.dur[gpu_rows], minlength=rows.size)
    share = ev.dur[gpu_rows] / total[who]
    set_f = (ev.flops_src[gpu_rows] == FLOPS_UNKNOWN) & (fs[who] != FLOPS_UNKNOWN)
    ev.flops[gpu_rows[set_f]] = f[who[set_f]] * share[set_f]
    ev.flops_src[gpu_rows[set_f]] = FLOPS_INHERITED
    set_b = (ev.bytes_src[gpu_rows] == BYTES_UNKNOWN) & (bs[who] != BYTES_UNKNOWN)
    ev.bytes[gpu_rows[set_b]] = b[who[set_b]] * share[set_b]
    ev.bytes_src[gpu_rows[set_b]] = BYTES_INHERITED
    report.notes.append(
        f"{int((set_f | set_b).sum()):,} GPU events inherit the FLOPs and bytes of the operator that launched "
        "them (computed from its recorded shapes, split across its GPU events by duration)"
    )


def _lookup(keys: np.ndarray, values: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """``values`` at the first position of each ``wanted`` key in ``keys`` (-1 where absent or negative)."""
    ok = keys >= 0
    keys, values = keys[ok], values[ok]
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    at = np.searchsorted(keys, wanted)
    at_c = np.minimum(at, max(keys.size - 1, 0))
    hit = (wanted >= 0) & (at < keys.size) & (keys[at_c] == wanted) if keys.size else np.zeros(wanted.size, bool)
    out = np.full(wanted.size, -1, dtype=np.int64)
    out[hit] = values[at_c[hit]]
    return out


def kernel_base(name: str) -> str:
    """A kernel's function name without return type, namespaces, template and call arguments:
    ``void at::native::elementwise_kernel<128, 4>(int, F)`` → ``elementwise_kernel``."""
    return function_name(name) or name.strip()


def _counters(ev: Events, gpu: np.ndarray, report: ImportReport, machine, counters) -> None:
    """FLOPs and bytes of the kernels from a Nsight Compute CSV of the same run: its launches matched to
    the trace's kernels by kernel name, in launch order."""
    from .nsight import read_nsight_csv

    ncu = read_nsight_csv(counters, machine=machine, require=("duration",)).import_report
    kernel_id = ev.cats.get("kernel")
    kernels = gpu[ev.cat[gpu] == kernel_id] if kernel_id is not None else gpu[:0]
    kernels = kernels[np.argsort(ev.ts[kernels], kind="stable")]
    base_of: dict[int, str] = {}
    queue: dict[str, list[int]] = defaultdict(list)
    for row, nid in zip(kernels.tolist(), ev.name[kernels].tolist()):
        base = base_of.get(nid)
        if base is None:
            base = base_of[nid] = kernel_base(ev.id_to_name[nid])
        queue[base].append(row)
    taken: Counter = Counter()
    matched = unmatched = 0
    for p in ncu.phases:
        base = kernel_base(str(p.details.get("kernel", p.name.rsplit(" #", 1)[0])))
        rows = queue.get(base, ())
        k = taken[base]
        if k >= len(rows):
            unmatched += 1
            continue
        taken[base] += 1
        row = rows[k]
        matched += 1
        if p.flops != "unknown" and ev.flops_src[row] in (FLOPS_UNKNOWN, FLOPS_COMPUTED):
            ev.flops[row], ev.flops_src[row] = p.ops, FLOPS_COUNTERS
        if p.bytes_source != "unknown" and ev.bytes_src[row] != BYTES_COUNTED:
            ev.bytes[row], ev.bytes_src[row] = p.bytes, BYTES_COUNTED
    note = f"counters: {matched:,} of {len(ncu.phases):,} Nsight Compute launches in {counters} matched to kernels"
    if unmatched:
        note += f" ({unmatched:,} with no kernel of that name left in the trace)"
    report.notes.append(note + " by name and launch order")
