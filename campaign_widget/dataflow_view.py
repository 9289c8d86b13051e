"""The global data-movement view (design.md §7, seed 001) as a live anywidget.

Python computes everything — the graph, its layered layout, the overlay's values, their
severities and colours, the colour bar — and syncs it as binary buffers; the view
(``js/dataflow/widget.js``) only draws, and owns hover, zoom, pan and the minimap.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anywidget
import numpy as np
import traitlets as t

from . import dataflow as model
from .buffers import to_payload

if TYPE_CHECKING:
    from .workload import Workload

_BUNDLE = pathlib.Path(__file__).parent / "static" / "dataflow.js"
PHASE_FILL = "#ffffff"  # phases under an edge overlay (bytes)
TENSOR_FILL = "#e8edf3"
EDGE_GREY = "#9aa0a6"  # edges under a phase overlay
FAR_GREY = "#9aa7b4"  # a node with no overlay value, seen from far out
_LOG_SLIDER_SPAN = 100  # a parameter range spanning this factor or more gets a log slider


def _bundle() -> pathlib.Path:
    if not _BUNDLE.exists():
        raise RuntimeError(
            f"the dataflow view's front end is not built ({_BUNDLE} is missing): install the package with "
            "`pip install .` (or `-e .`), or run `npm install && npm run build` in the source tree"
        )
    return _BUNDLE


def _param_range(value: float) -> list[int]:
    v = max(1, int(value))
    return [max(1, v // 16), v * 16]


class DataflowView(anywidget.AnyWidget):
    """The dataflow graph of a workload: phases (boxes) and tensors (ellipses), read and write edges
    with their bytes, coloured by one overlay under one scaling (design.md §7).

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
    """

    _esm = _BUNDLE if _BUNDLE.exists() else ""  # a missing build is reported by __init__

    overlay = t.Unicode("bytes").tag(sync=True)
    scaling = t.Unicode("median").tag(sync=True)
    buckets = t.Int(0).tag(sync=True)
    palette = t.Union([t.Unicode(), t.List(t.Unicode())], default_value="gyr").tag(sync=True)
    reverse = t.Bool(False).tag(sync=True)
    params = t.Dict().tag(sync=True)
    param_ranges = t.Dict().tag(sync=True)
    selected_phase = t.Int(None, allow_none=True).tag(sync=True)
    hovered_phase = t.Int(None, allow_none=True).tag(sync=True)
    height = t.Int(480, min=160).tag(sync=True)

    # computed here, drawn there
    graph = t.Dict(read_only=True).tag(sync=True)
    node_names = t.List(read_only=True).tag(sync=True)  # str per node; no per-item trait: 4·10^4 names
    values = t.Dict(read_only=True).tag(sync=True)  # numbers per node/edge: change with the workload
    paint = t.Dict(read_only=True).tag(
        sync=True
    )  # colours: change with the overlay (not "style": ipywidgets unpacks it)
    legend = t.Dict(read_only=True).tag(sync=True)
    units = t.Dict(read_only=True).tag(sync=True)
    choices = t.Dict(read_only=True).tag(sync=True)
    error = t.Unicode("", read_only=True).tag(sync=True)

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
        **kwargs: Any,
    ) -> None:
        from .workload import Workload

        if not isinstance(workload, Workload):
            raise TypeError(f"DataflowView takes a campaign_widget.Workload, got {type(workload).__name__}")
        if kwargs:
            raise TypeError(f"DataflowView got unexpected keyword arguments: {', '.join(sorted(kwargs))}")
        _bundle()
        self._ready = False
        self._base = workload
        self._workload = workload
        self._layout = None
        self._structure = None
        super().__init__()
        params = dict(getattr(workload, "params", None) or {})
        ranges = {name: _param_range(value) for name, value in params.items()}
        for name, bounds in (param_ranges or {}).items():
            if name not in params:
                raise ValueError(
                    f"param_ranges names {name!r}, which is not a parameter of this workload "
                    f"(parameters: {', '.join(params) or 'none'})"
                )
            lo, hi = (int(b) for b in bounds)
            if not 1 <= lo < hi:
                raise ValueError(f"param_ranges[{name!r}]={bounds!r} must be two integers 1 <= lo < hi")
            ranges[name] = [lo, hi]
        with self.hold_trait_notifications():
            self.overlay, self.scaling, self.buckets = overlay, scaling, buckets
            self.palette, self.reverse, self.height = palette, reverse, height
            self.param_ranges = {k: {"range": v, "log": v[1] / v[0] >= _LOG_SLIDER_SPAN} for k, v in ranges.items()}
            self.params = params
            self.set_trait(
                "choices",
                {"overlay": list(model.OVERLAYS), "scaling": list(model.SCALINGS), "palette": list(model.PALETTES)},
            )
        self._ready = True
        self._rebuild()

    # -- validation before storing: errors name the trait, the value and the valid ones -------------

    @t.validate("overlay")
    def _valid_overlay(self, proposal: dict[str, Any]) -> str:
        return _named("overlay", proposal["value"], model.OVERLAYS)

    @t.validate("scaling")
    def _valid_scaling(self, proposal: dict[str, Any]) -> str:
        return _named("scaling", proposal["value"], model.SCALINGS)

    @t.validate("buckets")
    def _valid_buckets(self, proposal: dict[str, Any]) -> int:
        value = proposal["value"]
        if value == 1 or value < 0:
            raise t.TraitError(f"buckets={value!r}: give 0 (one colour step per distinct value) or at least 2")
        return value

    @t.validate("palette")
    def _valid_palette(self, proposal: dict[str, Any]) -> str | list[str]:
        try:
            return model.check_palette(proposal["value"])
        except ValueError as error:
            raise t.TraitError(f"palette: {error}") from None

    @t.validate("params")
    def _valid_params(self, proposal: dict[str, Any]) -> dict[str, int]:
        value = dict(proposal["value"])
        known = dict(getattr(self._base, "params", None) or {})
        unknown = sorted(set(value) - set(known))
        if unknown:
            raise t.TraitError(
                f"params: unknown parameter(s) {', '.join(map(repr, unknown))}; this workload's "
                f"parameters are {', '.join(known) or 'none'}"
            )
        for name, v in value.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not float(v).is_integer() or v < 1:
                raise t.TraitError(f"params[{name!r}]={v!r} must be a positive integer")
            value[name] = int(v)
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
        base = self._base
        current = dict(getattr(base, "params", None) or {})
        if change["new"] == current:
            self._workload = base
        else:
            self._workload = base.with_params(**change["new"])
        self._rebuild()

    @property
    def workload(self) -> Workload:
        """The workload drawn (re-evaluated at the current ``params``)."""
        return self._workload

    @property
    def dataflow(self) -> model.DataflowGraph:
        return self._graph

    @property
    def graph_layout(self) -> model.Layout:
        """Node positions and sizes as drawn (``layout`` is the ipywidgets CSS layout)."""
        return self._layout

    def current_scale(self) -> model.Scale:
        """The overlay's values, severities, colours and colour bar as drawn now."""
        return self._scale

    def _rebuild(self) -> None:
        """Graph (and, when its structure changed, the layout) → synced traits, then the style."""
        self._graph = model.dataflow_graph(self._workload)
        key = self._graph.structure_key()
        with self.hold_sync():
            if key != self._structure:
                self._layout = model.layered_layout(self._graph)
                self._structure = key
                self.set_trait("node_names", list(self._graph.names))
                self.set_trait("graph", graph_payload(self._graph, self._layout))
            m = self._workload.machine
            self.set_trait("units", {"bytes": m.bytes_unit, "ops": m.ops_unit, "time": m.time_unit})
            self._scale = model.scale(
                self._workload, self._graph, self.overlay, self.scaling, self.palette, self.reverse, self.buckets
            )
            self.set_trait("values", values_payload(self._workload, self._graph, self._scale))
            self._restyle(self._scale)

    def _restyle(self, computed: model.Scale | None = None) -> None:
        self._scale = computed or model.scale(
            self._workload, self._graph, self.overlay, self.scaling, self.palette, self.reverse, self.buckets
        )
        with self.hold_sync():
            self.set_trait("paint", paint_payload(self._workload, self._graph, self._scale))
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

    # -- static export ------------------------------------------------------------------------------

    def savefig(self, path: str | os.PathLike[str], *, dpi: int = 150, max_width: float = 40.0) -> pathlib.Path:
        """Write PNG, SVG or PDF (by suffix) of the whole graph with no browser: the same layout and
        colours as the view, written atomically. Returns the path."""
        from .static_figure.dataflow_plot import save_dataflow

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


def _named(trait: str, value: str, valid: Sequence[str]) -> str:
    if value not in valid:
        raise t.TraitError(f"unknown {trait} {value!r}; valid: {', '.join(valid)}")
    return value


def style_arrays(workload: Workload, graph: model.DataflowGraph, scale: model.Scale) -> dict:
    """Fill and stroke per node and edge, as drawn by the view and the static figure."""
    n, m = graph.n_nodes, graph.n_edges
    node_rgb = np.empty((n, 3), np.uint8)
    node_rgb[graph.kind == model.NODE_PHASE] = model._hex_to_rgb(PHASE_FILL)
    node_rgb[graph.kind == model.NODE_TENSOR] = model._hex_to_rgb(TENSOR_FILL)
    edge_rgb = np.empty((m, 3), np.uint8)
    edge_rgb[:] = model._hex_to_rgb(EDGE_GREY)
    node_value = np.full(n, np.nan)
    if scale.target == "edges":
        edge_rgb[:] = scale.rgb
        edge_rgb[graph.edge_kind == model.EDGE_ORDER] = model._hex_to_rgb(EDGE_GREY)
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
    far_rgb = model.rgb(far_s, scale.palette, scale.reverse)
    far_rgb[np.isnan(far_s)] = model._hex_to_rgb(FAR_GREY)
    # Edge width and level-of-detail rank follow the bytes moved, whatever the overlay.
    moved = graph.bytes
    rank = model.severity(moved, "hist")
    rank = np.where(np.isnan(rank), 0.0, rank)
    width = np.where(graph.edge_kind == model.EDGE_ORDER, 1.0, 1.25 + 2.5 * rank)
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


def graph_payload(graph: model.DataflowGraph, layout: model.Layout) -> dict:
    return {
        "n_nodes": graph.n_nodes,
        "n_edges": graph.n_edges,
        "n_phases": graph.n_phases,
        "bounds": list(layout.bounds),
        "x": to_payload(layout.x, "float32"),
        "y": to_payload(layout.y, "float32"),
        "w": to_payload(layout.width, "float32"),
        "h": to_payload(layout.height, "float32"),
        "kind": to_payload(graph.kind, "uint8"),
        "fused_tensor": to_payload(graph.fused_tensor, "uint8"),
        "src": to_payload(graph.src, "int32"),
        "dst": to_payload(graph.dst, "int32"),
        "edge_kind": to_payload(graph.edge_kind, "uint8"),
        "fused": to_payload(graph.fused, "uint8"),
        "route_offsets": to_payload(layout.route_offsets, "int32"),
        "route_x": to_payload(layout.route_x, "float32"),
        "route_y": to_payload(layout.route_y, "float32"),
    }


def paint_payload(workload: Workload, graph: model.DataflowGraph, scale: model.Scale) -> dict:
    """What an overlay, scaling or palette change sends: colours and severities."""
    arrays = style_arrays(workload, graph, scale)
    return {
        "target": scale.target,
        "overlay": scale.overlay,
        "node_rgb": to_payload(arrays["node_rgb"].reshape(-1), "uint8"),
        "edge_rgb": to_payload(arrays["edge_rgb"].reshape(-1), "uint8"),
        "s": to_payload(scale.s, "float32"),
        "node_far_rgb": to_payload(arrays["node_far_rgb"].reshape(-1), "uint8"),
        "node_far_s": to_payload(arrays["node_far_s"], "float32"),
    }


def values_payload(workload: Workload, graph: model.DataflowGraph, scale: model.Scale) -> dict:
    """What a workload (parameter) change sends: the numbers shown on hover, edge widths and ranks."""
    arrays = style_arrays(workload, graph, scale)
    table = workload.table()
    payload = {
        "edge_rank": to_payload(arrays["edge_rank"], "float32"),
        "edge_width": to_payload(arrays["edge_width"], "float32"),
        "edge_bytes": to_payload(graph.bytes, "float64"),
        "edge_logical_bytes": to_payload(graph.logical_bytes, "float64"),
        "edge_predicted_bytes": to_payload(graph.predicted_bytes, "float64"),
        "tensor_bytes": to_payload(graph.tensor_bytes, "float64"),
    }
    for key in ("ops", "bytes", "intensity", "duration", "efficiency"):
        payload[f"phase_{key}"] = to_payload(np.asarray(table[key], np.float64), "float64")
    return payload
