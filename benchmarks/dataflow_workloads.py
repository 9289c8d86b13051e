"""A synthetic workload for the dataflow benchmarks: a deep chain of layers with weights and
residual connections, sized like a large model (10^4 phases, 3·10^4 tensors)."""

from __future__ import annotations

from campaign_widget import Machine, Phase, Workload


def big_workload(n_phases: int = 10_000) -> Workload:
    """Phase i reads the previous activation, two weights of its own and, every 4th phase, the
    activation four phases back; it writes one activation: n phases, 3n tensors."""
    phases = []
    for i in range(n_phases):
        reads = {f"w{i}a": 4096.0 * (1 + i % 7), f"w{i}b": 2048.0 * (1 + i % 3)}
        if i:
            reads[f"act{i - 1}"] = 65536.0 * (1 + i % 5)
        if i >= 4 and i % 4 == 0:
            reads[f"act{i - 4}"] = 65536.0 * (1 + (i - 4) % 5)
        phases.append(
            Phase(f"layer{i}", ops=1e6 * (1 + i % 11), reads=reads, writes={f"act{i}": 65536.0 * (1 + i % 5)})
        )
    return Workload(phases, machine=Machine(peak_compute=1e12, peak_bandwidth=1e11))
