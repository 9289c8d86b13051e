"""Holistic Trace Analysis's temporal breakdown and communication overlap of a job's folder: the reference
figures tests/test_job.py holds (docs/distributed-jobs.md#against-holistic-trace-analysis).

Run it with the Python of a separate venv that has HTA (not a dependency of campaign_widget):

    python -m venv /tmp/hta && /tmp/hta/bin/pip install HolisticTraceAnalysis
    /tmp/hta/bin/python benchmarks/hta_reference.py tests/data/gloo/ranks2

HTA counts the events of GPU streams only. A gloo job has none, so before HTA computes, the events
campaign_widget counts as the device's (the outermost CPU operators of each thread, and gloo's
collectives) are put on a stream of their own thread, and gloo's collectives are named as HTA knows
communication (``ncclKernel <name>``: HTA types a kernel as communication by NCCL's kernel names only).
Everything else (the parse, the last iteration left out, the merges, the sums) is HTA's own code.
"""

from __future__ import annotations

import logging
import sys
import warnings


def main(folder: str) -> None:
    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    import hta
    from hta.analyzers.breakdown_analysis import BreakdownAnalysis
    from hta.analyzers.communication_analysis import CommunicationAnalysis
    from hta.trace_analysis import TraceAnalysis

    analysis = TraceAnalysis(trace_dir=folder)
    trace = analysis.t
    table = trace.symbol_table
    names = table.get_sym_table()
    for df in trace.traces.values():
        if df["stream"].ne(-1).any():
            continue  # a GPU trace: HTA's own device events
        text = df["name"].map(lambda i: names[i])
        cats = df["cat"].map(lambda i: names[i])
        outer = _outermost(df[cats.eq("cpu_op")])
        gloo = text.str.startswith("gloo:")
        device = df.index.isin(outer) | gloo
        lanes = {tid: k + 1 for k, tid in enumerate(sorted(set(df.loc[device, "tid"])))}  # HTA keeps streams in int8
        df.loc[device, "stream"] = df.loc[device, "tid"].map(lanes).astype(df["stream"].dtype)
        for i in sorted(set(df.loc[gloo, "name"])):
            table.add_symbols([f"ncclKernel {names[i]}"])
        names = table.get_sym_table()
        ids = table.get_sym_id_map()
        df.loc[gloo, "name"] = df.loc[gloo, "name"].map(lambda i: ids[f"ncclKernel {names[i]}"])
    print(f"HolisticTraceAnalysis {getattr(hta, '__version__', '?')}")
    temporal = BreakdownAnalysis.get_temporal_breakdown(trace, visualize=False)
    overlap = CommunicationAnalysis.get_comm_comp_overlap(trace, visualize=False)
    for row, ov in zip(temporal.to_dict("records"), overlap.to_dict("records")):
        print(
            f"rank {row['rank']}: idle {row['idle_time(us)']} us, compute {row['compute_time(us)']} us, "
            f"non-compute {row['non_compute_time(us)']} us, span {row['kernel_time(us)']} us, "
            f"overlap {ov['comp_comm_overlap_pctg']} %"
        )


def _outermost(ops):
    """The index of the operators not nested in another on their thread (a stack per thread)."""
    keep = []
    for _, group in ops.sort_values(["tid", "ts", "dur"], ascending=[True, True, False]).groupby("tid"):
        end = None
        for index, ts, dur in zip(group.index, group["ts"], group["dur"]):
            if end is None or ts >= end:
                keep.append(index)
                end = ts + dur
    return keep


if __name__ == "__main__":
    main(sys.argv[1])
