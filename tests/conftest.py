import os

import pytest
from hypothesis import settings
from workloads import figure_2b as _figure_2b
from workloads import hopper

# CI runs each property test on the same examples every time (a submission's run must say the same of
# the same code); a developer's run draws new ones, which is where the property tests find bugs.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def figure_2b():
    """The paper's Figure 2b: three measured phases on a Hopper GPU's FP32 peak."""
    return _figure_2b(machine=hopper())
