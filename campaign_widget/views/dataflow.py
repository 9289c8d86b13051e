"""The global data-movement view (docs/data-movement.md#the-global-view, seed 001) as a live anywidget.

Python computes everything — the graph, its layered layout, the overlay's values, their
severities and colours, the colour bar — and syncs it as binary buffers; the view
(``js/dataflow/widget.js``) only draws, and owns hover, zoom, pan and the minimap.
"""

from __future__ import annotations

import collections
import os
import pathlib
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import traitlets as t

from ..errors import WrongTypeError, short_repr
from ..figures import colour_scale
from ..figures import dataflow as dataflow_figure
from . import base as view_base
from .base import Choice, ViewWidget, check_params
from .buffers import ArrayDict, cast

if TYPE_CHECKING:
    from ..model.workload import Workload

PHASE_FILL = "#ffffff"  # phases under an edge overlay (bytes)
TENSOR_FILL = "#e8edf3"
EDGE_GREY = "#9aa0a6"  # edges under a phase overlay
FAR_GREY = "#9aa7b4"  # a node with no overlay value, seen from far out


class DataflowView(ViewWidget, bundle="dataflow.js"):
    """The dataflow graph of a workload: phases (boxes) and tensors (ellipses), read and write edges
    with their bytes, coloured by one overlay under one scaling (docs/data-movement.md#scalings).

    >>> view = DataflowView(workload, overlay="intensity", scaling="hist")   # doctest: +SKIP
    >>> view.palette = "viridis"                                               # doctest: +SKIP
    >>> view.savefig("dataflow.svg")                                           # doctest: +SKIP

    ``overlay``: ``bytes`` (edges) or ``ops``, ``intensity``, ``duration``, ``efficiency`` (phases);
    ``scaling``: ``median``, ``mean``, ``hist`` (``buckets`` = 0: one step per distinct value, n ≥ 2:
    equal-width buckets), ``linear``, ``log``; ``palette``: ``gyr``, ``viridis``, ``cividis``,
    ``RdYlGn`` or a list of colours; ``reverse`` flips it. ``selected_phase`` (click) and
    ``hovered_phase`` (hover, else the selection) are phase indices, for linking with
    ``CampaignDiagram.hovered_phase``. ``params`` (when the workload has parameters) re-evaluates
    the workload when set; the view shows one slider per parameter over ``param_ranges``.
    ``theme``: ``"auto"`` (the front end's light or dark: JupyterLab, VS Code, Colab, marimo), ``"light"`` or ``"dark"``. A value the view
    writes that is refused is not stored; ``error`` says why.
    """

    view_writable = frozenset(
        {"overlay", "scaling", "buckets", "palette", "reverse", "params", "selected_phase", "hovered_phase", "theme"}
    )

    overlay = Choice(dataflow_figure.OVERLAYS, default_value="bytes").tag(sync=True)
    scaling = Choice(colour_scale.SCALINGS, default_value="median").tag(sync=True)
    buckets = t.Int(0).tag(sync=True)
    palette = t.Union([t.Unicode(), t.List(t.Unicode())], default_value="gyr").tag(sync=True)
    reverse = t.Bool(False).tag(sync=True)
    params = t.Dict().tag(sync=True)
    param_ranges = t.Dict().tag(sync=True)
    selected_phase = t.Int(None, allow_none=True).tag(sync=True)
    hovered_phase = t.Int(None, allow_none=True).tag(sync=True)
    height = t.Int(480, min=160).tag(sync=True)

    # computed here, drawn there
    graph = ArrayDict(read_only=True)
    node_names = t.List(read_only=True).tag(sync=True)  # str per node; no per-item trait: 4·10^4 names
    values = ArrayDict(read_only=True)  # numbers per node/edge: change with the workload
    paint = ArrayDict(read_only=True)  # colours: change with the overlay (not "style": ipywidgets unpacks it)
    legend = t.Dict(read_only=True).tag(sync=True)
    units = t.Dict(read_only=True).tag(sync=True)
    choices = t.Dict(read_only=True).tag(sync=True)
    error = t.Unicode("", read_only=True).tag(sync=True)  # why the last value from the view was refused

    def __init__(
        self,
        workload: Workload,
        overlay: str = "bytes",
        scaling: str = "median",
        palette: str | Sequence[str] = "gyr",
        reverse: bool = False,
        buckets: int = 0,
        *,
        param_ranges: dict | None = None,
        height: int = 480,
        theme: str = "auto",
        **kwargs: Any,
    ) -> None:
        from ..model.workload import Workload

        if not isinstance(workload, Workload):
            raise WrongTypeError(f"DataflowView takes a campaign_widget.Workload, got {type(workload).__name__}")
        self.check_arguments(kwargs)
        self._ready = False
        self._base = workload
        self._workload = workload
        self._layout = None
        self._structure = None
        self._evaluated = None  # (params, workload, graph) computed by the params validator
        # (benchmarks/bench_dataflow.py --slider) wall-clock stamps of the last parameter steps:
        # received, computed, sent
        self._timings: collections.deque = collections.deque(maxlen=256)
        self._timing = None
        super().__init__()
        params = dict(getattr(workload, "params", None) or {})
        ranges = view_base.param_ranges(params, param_ranges)
        with self.hold_trait_notifications():
            self.overlay, self.scaling, self.buckets = overlay, scaling, buckets
            self.palette, self.reverse, self.height, self.theme = palette, reverse, height, theme
            self.param_ranges = ranges
            self.params = params
            self.set_trait(
                "choices",
                {
                    "overlay": list(dataflow_figure.OVERLAYS),
                    "scaling": list(dataflow_figure.SCALINGS),
                    "palette": list(colour_scale.PALETTES),
                },
            )
        self._ready = True
        self._rebuild()

    # -- validation before storing: errors name the trait, the value and the valid ones -------------

    @t.validate("buckets")
    def _valid_buckets(self, proposal: dict[str, Any]) -> int:
        value = proposal["value"]
        if value == 1 or value < 0:
            raise t.TraitError(f"buckets={value!r}: give 0 (one colour step per distinct value) or at least 2")
        return value

    @t.validate("palette")
    def _valid_palette(self, proposal: dict[str, Any]) -> str | list[str]:
        try:
            return colour_scale.check_palette(proposal["value"])
        except ValueError as error:
            raise t.TraitError(f"palette: {error}") from None

    @t.validate("params")
    def _valid_params(self, proposal: dict[str, Any]) -> dict[str, int]:
        """Checked and evaluated before storing: sizes that do not evaluate (an overflow, a zero
        extent) are refused, and the workload they give is kept for the observer."""
        value = check_params(proposal["value"], dict(getattr(self._base, "params", None) or {}))
        # Compared with the accepted values (the drawn workload's): under ipywidgets' set_state the
        # trait already holds the proposal when this runs.
        if self._ready and value != dict(self._workload.params or {}):
            self._timing = {"trait": "params", "received": time.time()}
            base = self._base
            try:
                workload = base if value == dict(base.params or {}) else base.with_params(**value)
                graph = dataflow_figure.dataflow_graph(workload)
            except (ArithmeticError, TypeError, ValueError) as error:
                raise t.TraitError(f"params={short_repr(value)}: {error}") from None
            self._evaluated = (value, workload, graph)
        return value

    @t.validate("selected_phase", "hovered_phase")
    def _valid_phase(self, proposal: dict[str, Any]) -> int | None:
        value = proposal["value"]
        if value is not None and not 0 <= value < len(self._base):
            raise t.TraitError(f"{proposal['trait'].name}={value!r} is not a phase index (0..{len(self._base) - 1})")
        return value

    # -- recomputation ------------------------------------------------------------------------------

    @t.observe("overlay", "scaling", "buckets", "palette", "reverse")
    def _on_style(self, _change: dict[str, Any]) -> None:
        if self._ready:
            self._restyle()

    @t.observe("params")
    def _on_params(self, change: dict[str, Any]) -> None:
        if not self._ready or change["old"] == change["new"]:
            return
        evaluated, self._evaluated = self._evaluated, None
        if evaluated is not None and evaluated[0] == change["new"]:
            self._workload, graph = evaluated[1], evaluated[2]
        else:
            self._workload, graph = self._base.with_params(**change["new"]), None
        self._rebuild(graph)

    @property
    def workload(self) -> Workload:
        """The workload drawn (re-evaluated at the current ``params``)."""
        return self._workload

    @property
    def dataflow(self) -> dataflow_figure.DataflowGraph:
        return self._graph

    @property
    def graph_layout(self) -> dataflow_figure.Layout:
        """Node positions and sizes of the layered layout (``layout`` is the ipywidgets CSS layout);
        the view folds its layers into bands to fit the plot (js/dataflow/CONTRACT.md, "Fold")."""
        return self._layout

    def current_scale(self) -> dataflow_figure.Scale:
        """The overlay's values, severities, colours and colour bar as drawn now."""
        return self._scale

    def _rebuild(self, graph: dataflow_figure.DataflowGraph | None = None) -> None:
        """Graph (and, when its structure changed, the layout) → synced traits, then the style."""
        self._graph = graph or dataflow_figure.dataflow_graph(self._workload)
        key = self._graph.structure_key()
        with self.hold_sync():
            if key != self._structure:
                self._layout = dataflow_figure.layered_layout(self._graph)
                self._structure = key
                self.set_trait("node_names", list(self._graph.names))
                self.set_trait("graph", graph_payload(self._graph, self._layout))
            m = self._workload.machine
            self.set_trait("units", {"bytes": m.bytes_unit, "ops": m.ops_unit, "time": m.time_unit})
            self._scale = dataflow_figure.scale(
                self._workload, self._graph, self.overlay, self.scaling, self.palette, self.reverse, self.buckets
            )
            arrays = style_arrays(self._workload, self._graph, self._scale)
            self.set_trait("values", values_payload(self._workload, self._graph, self._scale, arrays))
            self._restyle(self._scale, arrays)
            if self._timing is not None:
                self._timing["computed"] = time.time()

    def _restyle(self, computed: dataflow_figure.Scale | None = None, arrays: dict | None = None) -> None:
        self._scale = computed or dataflow_figure.scale(
            self._workload, self._graph, self.overlay, self.scaling, self.palette, self.reverse, self.buckets
        )
        with self.hold_sync():
            self.set_trait("paint", paint_payload(self._workload, self._graph, self._scale, arrays))
            self.set_trait("legend", self._scale.legend)

    def set_workload(self, workload: Workload) -> None:
        """Draw another version of the workload (e.g. on other peaks); the layout is kept when the
        graph's structure is unchanged, and the current ``params`` are applied to it."""
        self._base = workload
        params = {k: v for k, v in self.params.items() if k in (getattr(workload, "params", None) or {})}
        self._workload = workload.with_params(**params) if params else workload
        self._rebuild()

    def set_params(self, **values: int) -> None:
        """Set some parameters (the others keep their values): ``view.set_params(S=4096)``."""
        self.params = {**self.params, **values}

    def send_state(self, key=None) -> None:
        timing = self._timing
        if timing is None or "computed" not in timing:
            return super().send_state(key)
        self._timing = None
        super().send_state(key)
        timing["sent"] = time.time()
        self._timings.append(timing)

    def _refused(self, text: str) -> None:
        self.set_trait("error", f"refused: {text}")

    def _accepted(self, sync_data: dict[str, Any]) -> None:
        if self.error:
            self.set_trait("error", "")

    # -- static export ------------------------------------------------------------------------------

    def savefig(self, path: str | os.PathLike[str], *, dpi: int = 150, max_width: float = 40.0) -> pathlib.Path:
        """Write PNG, SVG or PDF (by suffix) of the whole graph with no browser: the same layout and
        colours as the view, written atomically. Returns the path."""
        from ..static_figure.dataflow_plot import save_dataflow

        return save_dataflow(
            path,
            self._graph,
            self._layout,
            style_arrays(self._workload, self._graph, self._scale),
            self._scale.legend,
            dpi=dpi,
            max_width=max_width,
        )

    def __repr__(self) -> str:
        return (
            f"DataflowView({self._graph.n_phases} phases, {self._graph.n_nodes - self._graph.n_phases} tensors, "
            f"overlay={self.overlay!r}, scaling={self.scaling!r}, palette={self.palette!r})"
        )


def style_arrays(workload: Workload, graph: dataflow_figure.DataflowGraph, scale: dataflow_figure.Scale) -> dict:
    """Fill and stroke per node and edge, as drawn by the view and the static figure."""
    n, m = graph.n_nodes, graph.n_edges
    node_rgb = np.empty((n, 3), np.uint8)
    node_rgb[graph.kind == dataflow_figure.NODE_PHASE] = colour_scale.hex_to_rgb(PHASE_FILL)
    node_rgb[graph.kind == dataflow_figure.NODE_TENSOR] = colour_scale.hex_to_rgb(TENSOR_FILL)
    edge_rgb = np.empty((m, 3), np.uint8)
    edge_rgb[:] = colour_scale.hex_to_rgb(EDGE_GREY)
    node_value = np.full(n, np.nan)
    if scale.target == "edges":
        edge_rgb[:] = scale.rgb
        edge_rgb[graph.edge_kind == dataflow_figure.EDGE_ORDER] = colour_scale.hex_to_rgb(EDGE_GREY)
    else:
        node_rgb[: graph.n_phases] = scale.rgb
        node_value[: graph.n_phases] = scale.values
    # Far out, nodes are a few pixels and edges are gone: each node shows the hottest thing it
    # touches (under an edge overlay, the largest s of its edges), most severe drawn last.
    if scale.target == "edges":
        far_s = np.full(n, np.nan)
        ok = ~np.isnan(scale.s)
        for ends in (graph.src, graph.dst):
            np.fmax.at(far_s, ends[ok], scale.s[ok])
    else:
        far_s = np.concatenate([scale.s, np.full(n - graph.n_phases, np.nan)])
    far_rgb = colour_scale.rgb(far_s, scale.palette, scale.reverse)
    far_rgb[np.isnan(far_s)] = colour_scale.hex_to_rgb(FAR_GREY)
    # Edge width and level-of-detail rank follow the bytes moved, whatever the overlay.
    moved = graph.bytes
    rank = colour_scale.severity(moved, "hist")
    rank = np.where(np.isnan(rank), 0.0, rank)
    width = np.where(graph.edge_kind == dataflow_figure.EDGE_ORDER, 1.0, 1.25 + 2.5 * rank)
    return {
        "node_rgb": node_rgb,
        "edge_rgb": edge_rgb,
        "node_value": node_value,
        "edge_rank": rank,
        "node_far_rgb": far_rgb,
        "node_far_s": far_s,
        "edge_width": width,
        "target": scale.target,
    }


def graph_payload(graph: dataflow_figure.DataflowGraph, layout: dataflow_figure.Layout) -> dict:
    return {
        "n_nodes": graph.n_nodes,
        "n_edges": graph.n_edges,
        "n_phases": graph.n_phases,
        "bounds": list(layout.bounds),
        "x": cast(layout.x, "float32"),
        "y": cast(layout.y, "float32"),
        "w": cast(layout.width, "float32"),
        "h": cast(layout.height, "float32"),
        "kind": cast(graph.kind, "uint8"),
        "fused_tensor": cast(graph.fused_tensor, "uint8"),
        "src": cast(graph.src, "int32"),
        "dst": cast(graph.dst, "int32"),
        "edge_kind": cast(graph.edge_kind, "uint8"),
        "fused": cast(graph.fused, "uint8"),
        "route_offsets": cast(layout.route_offsets, "int32"),
        "route_x": cast(layout.route_x, "float32"),
        "route_y": cast(layout.route_y, "float32"),
    }


def paint_payload(
    workload: Workload, graph: dataflow_figure.DataflowGraph, scale: dataflow_figure.Scale, arrays: dict | None = None
) -> dict:
    """What an overlay, scaling or palette change sends: colours and severities (``arrays``: the
    ``style_arrays`` already computed for this scale)."""
    arrays = arrays or style_arrays(workload, graph, scale)
    return {
        "target": scale.target,
        "overlay": scale.overlay,
        "node_rgb": cast(arrays["node_rgb"].reshape(-1), "uint8"),
        "edge_rgb": cast(arrays["edge_rgb"].reshape(-1), "uint8"),
        "s": cast(scale.s, "float32"),
        "node_far_rgb": cast(arrays["node_far_rgb"].reshape(-1), "uint8"),
        "node_far_s": cast(arrays["node_far_s"], "float32"),
    }


def values_payload(
    workload: Workload, graph: dataflow_figure.DataflowGraph, scale: dataflow_figure.Scale, arrays: dict | None = None
) -> dict:
    """What a workload (parameter) change sends: the numbers shown on hover, edge widths and ranks."""
    arrays = arrays or style_arrays(workload, graph, scale)
    table = workload.table()
    payload = {
        "edge_rank": cast(arrays["edge_rank"], "float32"),
        "edge_width": cast(arrays["edge_width"], "float32"),
        "edge_bytes": cast(graph.bytes, "float64"),
        "edge_logical_bytes": cast(graph.logical_bytes, "float64"),
        "edge_predicted_bytes": cast(graph.predicted_bytes, "float64"),
        "tensor_bytes": cast(graph.tensor_bytes, "float64"),
    }
    for key in ("ops", "bytes", "intensity", "duration", "efficiency"):
        payload[f"phase_{key}"] = cast(np.asarray(table[key], np.float64), "float64")
    return payload
