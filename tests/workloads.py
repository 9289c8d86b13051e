"""Small workloads the tests share."""

from campaign_widget import Phase, Workload


def chain(*specs):
    """A chain of measured phases from (name, duration, compute_util, memory_util) tuples."""
    phases, previous = [], ()
    for name, duration, uc, um in specs:
        phases.append(Phase(name, duration=duration, compute_util=uc, memory_util=um, after=previous))
        previous = (name,)
    return Workload(phases)
