"""A PyTorch profiler / Chrome trace as a measured timeline: ``read_torch_trace(path,
machine=..., timeline=True)`` and ``load(path, machine=..., timeline=True)``.

Returns a :class:`~campaign_widget.model.timeline.Timeline` (a ``Schedule``) whose ``workload`` is exactly the
workload ``read_torch_trace`` gives without ``timeline`` (one phase per group, so the roofline keeps one
point per phase) and whose intervals are the kept events — the selected complete events, only the
outermost ones with ``nested="outer"`` — each at its measured start and end, on its thread or stream
(``"pid/tid"``) as a lane. Times are seconds from the earliest kept event or annotation.

Rates: each interval runs at the rates of its own event's FLOPs and bytes over its duration, as
fractions of the machine's peaks (an outermost event without volumes of its own carries those of the
events nested in it, exactly as the phase import counts them; unknown volumes count 0), so the area
under a phase's intervals is the phase's FLOPs and bytes.

Annotation ranges (``record_function`` → ``user_annotation``, ``ProfilerStep#N``) on any thread become
the timeline's bands, ``ProfilerStep#N`` included (it is left out only of the grouping);
``timeline.steps()`` and ``timeline.cut()`` cut the timeline into comparable steps.

Memory: the file is read in batches of events (``_jsonstream``), keeping ~90 bytes per event read and 32
per annotation, never the events themselves. ``progress``: ``None`` shows a progress bar (in a notebook, an
ipywidgets bar; else a line on stderr) for files above 32 MB, ``True``/``False`` always/never, or a
callable ``progress(done_bytes, total_bytes, what)``.
"""

from __future__ import annotations

from inspect import signature

from .torch_trace import read_torch_trace

__all__ = ["read_torch_timeline"]


def read_torch_timeline(path, **options):
    """Read a PyTorch profiler (Kineto) / Chrome trace as a ``Timeline``: ``read_torch_trace(path,
    timeline=True, **options)``, with every option of ``read_torch_trace`` but ``timeline`` (see the
    module docstring)."""
    _SIGNATURE.bind(path, **options)  # timeline= (or any option the trace reader lacks): a TypeError
    return read_torch_trace(path, timeline=True, **options)


_SIGNATURE = signature(read_torch_trace).replace(
    parameters=[p for p in signature(read_torch_trace).parameters.values() if p.name != "timeline"]
)
read_torch_timeline.__signature__ = _SIGNATURE
