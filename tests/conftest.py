import pytest
from workloads import figure_2b as _figure_2b
from workloads import hopper


@pytest.fixture
def figure_2b():
    """The paper's Figure 2b: three measured phases on a Hopper GPU's FP32 peak."""
    return _figure_2b(machine=hopper())
