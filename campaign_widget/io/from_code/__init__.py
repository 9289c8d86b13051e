"""Workloads from a user's code: ``Workload.from_torch``, ``from_jax``, ``from_dace`` (docs/from-code.md).

Importing this package registers the three builders with the model (``model.code_builders``); each
builder imports its library (torch, jax, dace) only when called, and without it says which extra installs it.
"""

from __future__ import annotations

from ...model.code_builders import register_code_builder


def _torch(*args, **options):
    from .torch_export import from_torch

    return from_torch(*args, **options)


def _jax(*args, **options):
    from .jax_xla import from_jax

    return from_jax(*args, **options)


def _dace(*args, **options):
    from .dace_sdfg import from_dace

    return from_dace(*args, **options)


register_code_builder("torch", _torch)
register_code_builder("jax", _jax)
register_code_builder("dace", _dace)
