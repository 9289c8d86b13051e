import pytest

from campaign_widget import Machine, Phase, Workload


@pytest.fixture
def figure_2b():
    """The paper's Figure 2b: three measured phases on a Hopper GPU's FP32 peak."""
    hopper = Machine(peak_compute=51.2e12, peak_bandwidth=3.35e12, name="H100")
    return Workload(
        [
            Phase("A", duration=3, compute_util=0.70, memory_util=0.25),
            Phase("B", duration=10, compute_util=0.20, memory_util=0.90, after=["A"]),
            Phase("C", duration=2, compute_util=0.60, memory_util=0.40, after=["B"]),
        ],
        machine=hopper,
    )
