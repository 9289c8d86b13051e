"""The axes a sweep can have."""

from __future__ import annotations

#: Axes every workload has. Workloads with size parameters (``workload.params``) add one axis per
#: parameter name.
SETTING_AXES = ("tiles", "pipeline", "policy", "depth")
PEAK_AXES = ("peak_compute", "peak_bandwidth")
STANDARD_AXES = SETTING_AXES + PEAK_AXES
