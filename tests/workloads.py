"""What the tests share: the paper's small workloads, the figure's colours as theme.json has them, and
the one way tests get PyTorch for real traces.

The fixtures (``figure_2b``) are in conftest.py; the helpers here are plain functions, so module-scoped
fixtures, parametrize lists and browser tests (whose notebook cells are built from the same specs by
``chain_source``) use them too.
"""

import json
from importlib import resources

import numpy as np
import pytest

from campaign_widget import Machine, Phase, Workload

#: The paper's Figure 2b: (name, duration, compute_util, memory_util) per phase, a chain A → B → C.
FIGURE_2B = (("A", 3, 0.70, 0.25), ("B", 10, 0.20, 0.90), ("C", 2, 0.60, 0.40))
#: Two phases whose pipelined tiles oversubscribe memory (150 % demand at 4 tiles, policy "none").
TWO_PHASES = (("A", 3, 0.7, 0.6), ("B", 10, 0.2, 0.9))
#: A Hopper GPU's FP32 peak and HBM3 bandwidth, the machine of Figure 2b's fixture.
H100_FP32 = dict(peak_compute=51.2e12, peak_bandwidth=3.35e12, name="H100")


def chain(*specs, machine=None, scale=1.0):
    """A chain of measured phases from (name, duration, compute_util, memory_util) tuples, each
    duration times ``scale``."""
    phases, previous = [], ()
    for name, duration, uc, um in specs:
        phases.append(Phase(name, duration=duration * scale, compute_util=uc, memory_util=um, after=previous))
        previous = (name,)
    return Workload(phases, machine=machine)


def figure_2b(machine=None):
    """The paper's Figure 2b as a workload (on ``machine``, by default none)."""
    return chain(*FIGURE_2B, machine=machine)


def two_phases(machine=None, scale=1.0):
    """``TWO_PHASES`` as a workload."""
    return chain(*TWO_PHASES, machine=machine, scale=scale)


def hopper():
    return Machine(**H100_FP32)


def mlp_einsums():
    """A two-layer MLP of Einsums whose phases name the tensors they read and write (its Explorer has
    a dataflow view), with parameters B and D."""
    return Workload.from_einsums(
        {"up": "H[b,f] = X[b,d] * W1[d,f]", "down": "Y[b,d] = H[b,f] * W2[f,d]"},
        {"b": "B", "d": "D", "f": "4*D"},
        params={"B": 2, "D": 32},
        machine=Machine(peak_compute=1e12, peak_bandwidth=1e10),
    )


def chain_source(specs, name="w", machine="None"):
    """One line of Python that builds ``chain(*specs)`` in a notebook cell (``machine``: its source)."""
    phases, previous = [], []
    for phase, duration, uc, um in specs:
        phases.append(
            f"cw.Phase({phase!r}, duration={duration!r}, compute_util={uc!r}, memory_util={um!r}, after={previous!r})"
        )
        previous = [phase]
    return f"{name} = cw.Workload([{', '.join(phases)}], machine={machine})"


# -- the figure's colours, read from the file both renderers read ------------------------------------

THEME_FILE = json.loads(resources.files("campaign_widget").joinpath("theme.json").read_text(encoding="utf-8"))


def theme_color(key, look="light"):
    """theme.json's colour ``key`` in ``look`` ("light" or "dark", which falls back to light)."""
    light = THEME_FILE["theme"]
    return THEME_FILE["dark"].get(key, light[key]) if look == "dark" else light[key]


def hex_rgb(color):
    """``#rrggbb`` as three floats 0–255."""
    color = color.lstrip("#")
    return np.array([int(color[i : i + 2], 16) for i in (0, 2, 4)], dtype=float)


def near_color(pixels, color, tolerance):
    """Per pixel of an (..., 3) RGB array: every channel within ``tolerance`` of ``color``."""
    return np.abs(np.asarray(pixels, dtype=float)[..., :3] - hex_rgb(color)).max(axis=-1) <= tolerance


def warning_pixels(pixels, look="light", tolerance=40):
    """Pixels in the oversubscription colour (theme ``warning``; its ``hatch`` is the same colour at
    90 % alpha, within ``tolerance`` once composited on the light background)."""
    return near_color(pixels, theme_color("warning", look), tolerance)


def require_torch():
    """PyTorch, to make real profiler traces; CI installs it, so a missing torch fails, never skips."""
    try:
        import torch
    except ImportError:
        pytest.fail("PyTorch is needed to make real traces for these tests: pip install torch==2.13.0")
    return torch


def job_rank(k: int, events):
    """A rank of a job by hand (campaign_widget.job): (name, kind, start, end) events, no steps."""
    from campaign_widget.job._rank import Rank

    names = tuple(sorted({e[0] for e in events}))
    n = len(events)
    return Rank(
        file=f"rank{k}.json", rank=k, world_size=2, backend="gloo", rank_from="distributedInfo",
        names=names, lanes=("main",),
        start=np.array([e[2] for e in events], float), end=np.array([e[3] for e in events], float),
        name=np.array([names.index(e[0]) for e in events]), kind=np.array([e[1] for e in events], np.int8),
        lane=np.zeros(n, np.int64), flops=np.zeros(n), bytes=np.zeros(n),
        steps=np.zeros((0, 2)), regions=np.zeros((0, 3)),
    )  # fmt: skip
