"""The builders of workloads from a user's code (PyTorch, JAX, DaCe), which the ``io`` layer registers.

``Workload.from_torch``, ``from_jax`` and ``from_dace`` belong to the model's ``Workload``, but what they
do reads the user's program through a tracer and, for DaCe, through the SDFG reader of ``io``: a layer
above the model. So the model owns this registry and the ``io`` layer fills it when it is imported
(docs/architecture.md#workloads-from-code); every import of the package imports ``io`` through the
facade first, so a builder is always there when ``Workload`` is."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import WorkloadError

_BUILDERS: dict[str, Callable[..., Any]] = {}


def register_code_builder(kind: str, build: Callable[..., Any]) -> None:
    """Make ``build`` the builder of ``Workload.from_<kind>`` (registering again replaces it)."""
    _BUILDERS[kind] = build


def build_from_code(kind: str, *args: Any, **options: Any) -> Any:
    """The workload ``Workload.from_<kind>(*args, **options)`` builds."""
    build = _BUILDERS.get(kind)
    if build is None:
        raise WorkloadError(
            f"Workload.from_{kind} has no builder: it is registered by campaign_widget.io (import campaign_widget)"
        )
    return build(*args, **options)
