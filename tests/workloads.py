"""Small workloads the tests share, and the one way tests get PyTorch for real traces."""

import pytest

from campaign_widget import Phase, Workload


def chain(*specs):
    """A chain of measured phases from (name, duration, compute_util, memory_util) tuples."""
    phases, previous = [], ()
    for name, duration, uc, um in specs:
        phases.append(Phase(name, duration=duration, compute_util=uc, memory_util=um, after=previous))
        previous = (name,)
    return Workload(phases)


def require_torch():
    """PyTorch, to make real profiler traces; CI installs it, so a missing torch fails, never skips."""
    try:
        import torch
    except ImportError:
        pytest.fail("PyTorch is needed to make real traces for these tests: pip install torch==2.13.0")
    return torch
