"""The local view of one phase (docs/data-movement.md#the-local-view-of-one-phase, seed 001 Figs. 4-5) as a live anywidget.

Python computes every number: the trace, stack distances and misses come from
``campaign_widget.cache``; this module derives the per-element arrays the view draws (access counts,
heatmap colours, reuse-distance min/median/max, related accesses, cache-line masks, histogram bins,
miss readout) and syncs them as binary buffers. The JS view (``js/local/``) only draws them.

>>> view = LocalView(None, "C[i,j] = A[i,k] * B[k,j]", {"i": 8, "j": 8, "k": 8})   # doctest: +SKIP
>>> view.capacity = 16          # redraws the readout from the histogram; no re-simulation   # doctest: +SKIP
>>> view.loop_order = ["i", "k", "j"]                                              # doctest: +SKIP
"""

from __future__ import annotations

import math
import pathlib
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import traitlets as t

from ..cache import Cache, CacheResult, Layout, StackDistances, Trace, packed_strides, simulate, stack_distances, trace
from ..errors import WorkloadError, WrongTypeError, short_repr
from ..figures.colour_scale import PALETTES, SCALINGS
from ..figures.local import element_grid, place_tensors
from ..model.einsum import Einsum
from .base import Choice, ViewWidget
from .buffers import ArrayDict, cast
from .local_apply import ApplyToWorkload
from .local_arrays import COLD_ONLY_RGB as COLD_ONLY_RGB  # the reuse heatmap's colours, named here too
from .local_arrays import REUSE_STATS, ElementArrays, element_lines, per_element_stats
from .local_arrays import UNTOUCHED_RGB as UNTOUCHED_RGB
from .local_inputs import einsum_of, layout_dict, permutation

if TYPE_CHECKING:
    from ..model.workload import Workload
    from .diagram import CampaignDiagram

MODES = ("iteration", "flattened", "related", "reuse", "misses")
CAPACITY_UNITS = ("lines", "bytes")
MAX_LINE = 1 << 16
MAX_VIEW_ELEMENTS = 200_000  # beyond this the element grids are unreadable and the tab slow
READOUT_HEADER = ("tensor", "accesses", "misses", "cold", "capacity", "conflict", "bytes")


class LocalView(ApplyToWorkload, ElementArrays, ViewWidget, bundle="local.js"):
    """The accesses of one phase, element by element, with its cache lines, reuse distances and misses.

    ``workload``/``phase``: the phase to look at. ``phase`` is an Einsum (``"C[i,j] = A[i,k] * B[k,j]"``,
    a numpy-style tuple or a parsed ``Einsum``; ``workload`` may then be None), or the name of a phase
    of ``workload`` that carries its Einsum. ``local_sizes``: the small loop sizes to trace
    ({index: size}). ``layouts``: {tensor: Layout or {"order", "pad", "offset", "byte_offset"}}
    ("pad": extra elements after every row, or every column in F order). ``cache``: a ``Cache`` (line size, capacity in
    lines, ways). ``loop_order``: the loops, outermost first. ``elem_bytes``: bytes per element, or
    ``{tensor: bytes}`` (``"*"``: the others; default 4).
    ``diagram``: a ``CampaignDiagram`` to update whenever the prediction is applied (``link``).

    Applying to a diagram: open the view on a phase of a workload and link it to the campaign diagram
    that shows that workload; the view's **Apply to workload** button (or ``apply()``) then redraws the
    diagram with the phase's predicted bytes, so a loop interchange (ijk → ikj) shortens its bar::

        diagram = CampaignDiagram(workload)
        local = LocalView(workload, "gemm", {"i": 8, "j": 8, "k": 8}, diagram=diagram)
        # or: local.link(diagram)

    A control changed after an apply does not re-apply by itself (linked diagrams would redraw as a
    slider moves): ``apply_pending`` turns True and ``message`` says which control changed and what
    the phase still shows, until the next apply or until the controls are back where they were.

    Controls (traits, validated before they are stored; the view writes them and a refused value is
    reported in ``message``): ``line``, ``capacity`` (lines; ``capacity_bytes`` in bytes),
    ``ways`` (None: fully associative), ``loop_order``, ``layouts``; view state: ``mode``
    ("iteration" playback, "flattened" accesses per element, "related", "reuse", "misses"),
    ``reuse_stat``, ``scaling``, ``palette``, ``line_overlay``, ``selection`` (clicked elements, as
    global element numbers; ``select(tensor, index)`` from Python), ``point`` (playback iteration),
    ``theme`` (``"auto"``: the front end's light or dark; ``"light"``; ``"dark"``).
    """

    view_writable = frozenset(
        {
            "line",
            "capacity",
            "ways",
            "loop_order",
            "layouts",
            "capacity_unit",
            "mode",
            "reuse_stat",
            "scaling",
            "palette",
            "line_overlay",
            "selection",
            "point",
            "apply_requests",
            "theme",
        }
    )

    # -- model controls (validated; changing one recomputes) --
    line = t.Int(64).tag(sync=True)
    capacity = t.Int(512).tag(sync=True)
    ways = t.Int(None, allow_none=True).tag(sync=True)
    loop_order = t.List(t.Unicode()).tag(sync=True)
    layouts = t.Dict().tag(sync=True)
    # -- view state --
    capacity_unit = Choice(CAPACITY_UNITS, default_value="lines").tag(sync=True)
    capacity_max = t.Int(1).tag(sync=True)
    mode = Choice(MODES, default_value="iteration").tag(sync=True)
    reuse_stat = Choice(REUSE_STATS, default_value="median").tag(sync=True)
    scaling = Choice(SCALINGS, default_value="median").tag(sync=True)
    palette = Choice(PALETTES, default_value="gyr").tag(sync=True)
    line_overlay = t.Bool(True).tag(sync=True)
    selection = t.List(t.Int()).tag(sync=True)
    point = t.Int(0).tag(sync=True)
    # -- computed here, drawn there (arrays as binary buffers) --
    tensors = t.Dict().tag(sync=True)
    grid = ArrayDict()
    loops = t.Dict().tag(sync=True)
    accesses = ArrayDict()
    heat = ArrayDict()
    selected = ArrayDict()
    readout = t.Dict().tag(sync=True)
    capacity_table = ArrayDict()  # fully associative misses for every capacity (see _capacity_table)
    miss_map = ArrayDict()  # per-element misses when the table does not apply (set-associative)
    cache_kind = t.Unicode("fully associative", read_only=True).tag(sync=True)  # Cache.kind, shown by the view
    message = t.Unicode("").tag(sync=True)
    apply_requests = t.Int(0).tag(sync=True)  # the view's "Apply to workload" button counts up
    can_apply = t.Bool(False).tag(sync=True)
    # the controls differ from those of the last apply: the phase (and linked diagrams) show older bytes
    apply_pending = t.Bool(False, read_only=True).tag(sync=True)

    def __init__(
        self,
        workload: Workload | None,
        phase: str | Einsum | Sequence[Any],
        local_sizes: Mapping[str, int],
        *,
        layouts: Mapping[str, Layout | Mapping[str, Any]] | None = None,
        cache: Cache | None = None,
        loop_order: Sequence[str] | str | None = None,
        elem_bytes: int | Mapping[str, int] | None = None,
        mode: str = "iteration",
        theme: str = "auto",
        diagram: CampaignDiagram | None = None,
        **kwargs: Any,
    ) -> None:
        self.check_arguments(kwargs)
        cache = Cache() if cache is None else cache
        if not isinstance(cache, Cache):
            raise WrongTypeError(f"LocalView cache={cache!r} must be a campaign_widget.cache.Cache")
        self._ready = False
        self._table = None
        self._workload = workload
        self._einsum, widths = einsum_of(workload, phase)
        self._phase = phase if isinstance(phase, str) and "=" not in phase else None
        self._sizes = dict(local_sizes)
        # element bytes: given, else the workload's (one number, or {tensor: bytes, "*": default})
        if isinstance(elem_bytes, Mapping):
            bad = {
                k: v
                for k, v in elem_bytes.items()
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1
            }
            if bad:
                raise WorkloadError(
                    f"LocalView: elem_bytes={dict(elem_bytes)!r}: {bad} must be whole numbers of bytes >= 1"
                )
            widths, elem_bytes = dict(elem_bytes), None
        if elem_bytes is None:
            elem_bytes = widths.get("*", 4) if isinstance(widths, Mapping) else (widths or 4)
        self._elem_bytes = int(elem_bytes)
        self._widths = {k: int(v) for k, v in widths.items() if k != "*"} if isinstance(widths, Mapping) else {}
        self._apply_callbacks = []
        self._linked = {}  # id(diagram) -> (diagram, its callback)
        self.applied = None
        self._applied_with = None  # the controls of the last apply (_apply_controls) and its message
        self.sdfg_map = None  # LocalView.from_sdfg: the SDFG map this view traces (io.sdfg.SDFGMap)
        # a first trace fixes the tensors, their shapes and the loop indices (and fails fast, clearly)
        probe = trace(
            self._einsum,
            self._sizes,
            loop_order=loop_order,
            elem_bytes=self._elem_bytes,
            line=cache.line,
            layouts={k: Layout(elem_bytes=v) for k, v in self._widths.items()},
        )
        self._names, self._shapes = probe.tensors, probe.shapes
        self._indices = tuple(probe.loop_order)
        self._counts = np.array([math.prod(s) for s in self._shapes], np.int64)
        if self._counts.sum() > MAX_VIEW_ELEMENTS:
            raise WorkloadError(
                f"LocalView: local sizes {self._sizes} give {int(self._counts.sum()):,} elements, "
                f"more than the view draws ({MAX_VIEW_ELEMENTS:,}); choose smaller local sizes"
            )
        self._first = np.concatenate([[0], np.cumsum(self._counts)[:-1]]).astype(np.int64)
        super().__init__()
        unknown = [name for name in (layouts or {}) if name not in self._names]
        if unknown:
            raise WorkloadError(f"LocalView: layouts names unknown tensors {unknown}; the tensors: {list(self._names)}")
        initial_layouts = {
            name: layout_dict(name, value, len(self._shapes[self._names.index(name)]))
            for name, value in (layouts or {}).items()
        }
        with self.hold_trait_notifications():
            self.line = cache.line
            self.ways = cache.ways
            self.capacity = cache.lines
            self.loop_order = list(probe.loop_order)
            self.layouts = {
                name: initial_layouts.get(name, {"order": "C", "pad": 0, "offset": 0}) for name in self._names
            }
            self.mode, self.theme = mode, theme
        self.can_apply = self._phase is not None
        self._ready = True
        self._geometry()
        self._retrace()
        if diagram is not None:
            self.link(diagram)

    # -- validation: refused values name the field and the value ------------------------------------

    @t.validate("line")
    def _valid_line(self, proposal: dict[str, Any]) -> int:
        value = proposal["value"]
        if value < 1 or value & (value - 1) or value > MAX_LINE:
            raise t.TraitError(f"line={value!r} must be a power of two number of bytes, 1 … {MAX_LINE}")
        return value

    @t.validate("capacity")
    def _valid_capacity(self, proposal: dict[str, Any]) -> int:
        value = proposal["value"]
        if value < 1:
            raise t.TraitError(f"capacity={value!r} must be at least 1 line")
        if self.ways is not None and value % self.ways:
            raise t.TraitError(f"capacity={value!r} lines is not divisible by ways={self.ways}")
        return value

    @t.validate("ways")
    def _valid_ways(self, proposal: dict[str, Any]) -> int | None:
        value = proposal["value"]
        if value is None:
            return value
        if value < 1:
            raise t.TraitError(f"ways={value!r} must be at least 1 (or None: fully associative)")
        if self.capacity % value:
            raise t.TraitError(f"ways={value!r} does not divide capacity={self.capacity} lines")
        return value

    @t.validate("loop_order")
    def _valid_loop_order(self, proposal: dict[str, Any]) -> list[str]:
        value = list(proposal["value"])
        indices = getattr(self, "_indices", None)
        if indices and len(value) == 1 and sorted(value[0]) == sorted(indices):
            value = list(value[0])  # "ikj": one letter per index, as trace() takes it
        if indices and sorted(value) != sorted(indices):
            raise t.TraitError(f"loop_order={value!r} must name each loop index once: {list(self._indices)}")
        return value

    @t.validate("layouts")
    def _valid_layouts(self, proposal: dict[str, Any]) -> dict[str, dict]:
        value = proposal["value"]
        names = getattr(self, "_names", ())
        unknown = [k for k in value if k not in names]
        if unknown:
            raise t.TraitError(f"layouts names unknown tensors {unknown}; the tensors: {list(names)}")
        shapes = dict(zip(names, getattr(self, "_shapes", ())))
        return {name: layout_dict(name, layout, len(shapes[name])) for name, layout in value.items()}

    @t.validate("selection")
    def _valid_selection(self, proposal: dict[str, Any]) -> list[int]:
        value = list(proposal["value"])
        total = int(self._counts.sum()) if getattr(self, "_ready", False) else 0
        bad = [v for v in value if not 0 <= v < total]
        if bad:
            raise t.TraitError(f"selection={value!r}: elements {bad} are not in 0 … {total - 1}")
        return value

    @t.validate("point")
    def _valid_point(self, proposal: dict[str, Any]) -> int | None:
        value = proposal["value"]
        points = int(self.loops.get("count", 0)) if self.loops else 0
        if points and not 0 <= value < points:
            raise t.TraitError(f"point={value!r} is not an iteration 0 … {points - 1}")
        return value

    def _refused(self, text: str) -> None:
        """A refused value from the view is reported in ``message`` (the view is sent the stored one)."""
        self.message = f"refused: {text}"

    def _accepted(self, sync_data: dict[str, Any]) -> None:
        if self.message.startswith("refused") and set(sync_data) & _MODEL_CONTROLS:
            self.message = ""

    # -- recomputation --------------------------------------------------------------------------

    @t.observe("loop_order", "layouts", "line")
    def _on_trace_control(self, change: dict[str, Any]) -> None:
        if self._ready:
            try:
                self._retrace()
            except WorkloadError as error:  # e.g. strides the shape does not allow: keep the last good trace
                with self.hold_trait_notifications():
                    self.set_trait(change["name"], change["old"])
                raise t.TraitError(str(error)) from None

    @t.observe("capacity", "ways")
    def _on_cache_control(self, change: dict[str, Any]) -> None:
        if self._ready:
            with self.hold_sync():
                self.capacity_max = max(self._distinct_lines + 1, self.capacity)  # the slider reaches it
                self._misses()

    @t.observe("line", "capacity", "ways")
    def _on_cache_kind(self, change: dict[str, Any]) -> None:
        self.set_trait("cache_kind", self.cache.kind)

    @t.observe("reuse_stat", "scaling", "palette")
    def _on_colour_control(self, change: dict[str, Any]) -> None:
        if self._ready:
            with self.hold_sync():
                self._heat()
                self._capacity_table()
                self._misses()
                self._selected()

    @t.observe("selection")
    def _on_selection(self, change: dict[str, Any]) -> None:
        if self._ready:
            self._selected()

    @t.observe("apply_requests")
    def _on_apply_request(self, change: dict[str, Any]) -> None:
        if self._ready and change["new"] > change["old"]:
            try:
                self.apply()
            except (WorkloadError, ValueError, TypeError) as error:
                self.message = f"could not apply: {error}"

    @classmethod
    def from_sdfg(
        cls,
        sdfg: str | pathlib.Path | Workload,
        phase: str,
        local_sizes: Mapping[str, int],
        *,
        params: Mapping[str, int] | None = None,
        element_bytes: int | Mapping[str, int] | None = None,
        **options: Any,
    ) -> LocalView:
        """The local view of one map of a DaCe SDFG: each memlet crossing the map's entry is one read per
        iteration and the memlet into its exit the write, their subsets (single elements, e.g. ``A[i+1, j-1]``)
        the index expressions (``campaign_widget.io.sdfg.map_accesses``; dace is not needed).

        ``sdfg``: an ``.sdfg``/``.sdfgz`` path, or a workload ``read_sdfg`` made (its file and its parameter
        values are used). ``phase``: the map's phase name as ``read_sdfg`` gives it (its label; ``#2``…
        when repeated). ``local_sizes``: {map parameter: small size}; each loop index runs from 0 (index
        ``i`` of a map over ``1:N-1`` stands for ``i + 1``: ``map.notes`` says so). ``params``: values of
        symbols the ranges or the index expressions use (default: the SDFG's constants). The other
        options are ``LocalView``'s (``cache``, ``layouts``, ``loop_order`` — default the map's parameter
        order — ``mode``). The view keeps the map in ``sdfg_map``; ``apply()`` needs a phase of a workload
        built from Einsums and is not offered here.

        >>> view = LocalView.from_sdfg("stencil5.sdfg", "stencil5_51", {"i": 8, "j": 8})   # doctest: +SKIP
        """
        from ..io.sdfg import FORMAT, map_accesses
        from ..model.workload import Workload

        if isinstance(sdfg, Workload):
            report = getattr(sdfg, "import_report", None)
            if (
                report is None
                or getattr(report, "format", None) != FORMAT
                or not pathlib.Path(str(report.path)).is_file()
            ):
                raise WorkloadError(
                    "LocalView.from_sdfg: the workload was not read from an SDFG file that still "
                    "exists (read_sdfg(path)); pass the path instead"
                )
            params = {**sdfg.params, **dict(params or {})}
            sdfg = report.path
        found = map_accesses(sdfg, phase, params=params, element_bytes=element_bytes)
        options.setdefault("loop_order", found.loop_order)
        view = cls(None, found.einsum, local_sizes, elem_bytes=found.element_bytes, **options)
        view.sdfg_map = found
        view._misses()  # the readout's notes say what the trace takes from the map
        return view

    @t.observe("line", "capacity", "ways", "loop_order", "layouts")
    def _on_apply_control(self, change: dict[str, Any]) -> None:
        self._note_apply_pending()

    @property
    def cache(self) -> Cache:
        """The cache the controls describe."""
        return Cache(line=self.line, lines=self.capacity, ways=self.ways)

    @property
    def capacity_bytes(self) -> int:
        """The capacity in bytes (lines × line)."""
        return self.capacity * self.line

    @capacity_bytes.setter
    def capacity_bytes(self, value: int) -> None:
        if not isinstance(value, (int, np.integer)) or value < 1 or value % self.line:
            raise t.TraitError(f"capacity_bytes={value!r} must be a positive multiple of line={self.line} bytes")
        self.capacity = int(value) // self.line

    @property
    def trace(self) -> Trace:
        """The current trace (loop order and layouts as the controls say)."""
        return self._trace

    @property
    def distances(self) -> StackDistances:
        return self._distances

    def result(self) -> CacheResult:
        """``campaign_widget.cache.simulate`` of the current trace in the current cache."""
        return simulate(self._trace, self.cache, distances=self._distances)

    def select(self, tensor: str, index: int | Sequence[int]) -> None:
        """Click element ``index`` (a tuple, or a flat C-order number) of ``tensor``, as the view does."""
        if tensor not in self._names:
            raise WorkloadError(f"select: tensor {short_repr(tensor)} is not one of {list(self._names)}")
        k = self._names.index(tensor)
        flat = (
            (int(np.ravel_multi_index(tuple(index), self._shapes[k])) if index else 0)
            if isinstance(index, (tuple, list))
            else int(index)
        )
        if not 0 <= flat < self._counts[k]:
            raise WorkloadError(f"select: {tensor}{list(np.atleast_1d(index))} is outside shape {self._shapes[k]}")
        self.selection = [*self.selection, int(self._first[k] + flat)]

    def _layout_objects(self) -> dict[str, Layout]:
        out = {}
        for k, name in enumerate(self._names):
            spec = self.layouts.get(name, {})
            order, pad = spec.get("order", "C"), int(spec.get("pad", 0))
            strides = spec.get("strides")
            if strides is None and (pad or order not in ("C", "F")):
                strides = packed_strides(self._shapes[k], order if order in ("C", "F") else permutation(order), pad=pad)
            out[name] = Layout(
                order=order if order in ("C", "F") else "C",
                strides=None if strides is None else tuple(strides),
                offset=int(spec.get("offset", 0)),
                byte_offset=int(spec.get("byte_offset", 0)),
                elem_bytes=self._widths.get(name),
            )
        return out

    def _geometry(self) -> None:
        """Element grids of every tensor, placed once (shapes do not change with the controls)."""
        grids = [element_grid(shape) for shape in self._shapes]
        origins, width, height = place_tensors([(w, h) for _, _, w, h in grids])
        xs = np.concatenate([x + ox for (x, _, _, _), (ox, _) in zip(grids, origins)])
        ys = np.concatenate([y + oy for (_, y, _, _), (_, oy) in zip(grids, origins)])
        self._tensor_of = np.repeat(np.arange(len(self._names)), self._counts)
        with self.hold_sync():
            self.tensors = {
                "names": list(self._names),
                "shapes": [list(s) for s in self._shapes],
                "origins": [list(map(int, o)) for o in origins],
                "sizes": [[int(w), int(h)] for _, _, w, h in grids],
                "first": [int(f) for f in self._first],
                "extent": [int(width), int(height)],
            }
            self.grid = {
                "x": cast(xs, "int32"),
                "y": cast(ys, "int32"),
                "tensor": cast(self._tensor_of, "int32"),
            }

    def _retrace(self) -> None:
        """Trace → stack distances → everything drawn (loop order, layouts or line changed)."""
        started = time.perf_counter()
        tr = trace(
            self._einsum,
            self._sizes,
            layouts=self._layout_objects(),
            loop_order=self.loop_order,
            elem_bytes=self._elem_bytes,
            line=self.line,
        )
        sd = stack_distances(tr, line=self.line)
        self._trace, self._distances = tr, sd
        g = self._first[tr.tensor] + tr.element  # global element number of every access
        self._g = g
        n = int(self._counts.sum())
        self._count = np.bincount(g, minlength=n)
        d = sd.distance
        warm = d >= 0
        self._cold = np.bincount(g[~warm], minlength=n)
        self._stats = per_element_stats(g[warm], d[warm], n)  # (n, 3): min, median, max; NaN if none
        # per tensor histogram of distances: misses(C) = cold + #{d >= C} per tensor, every C at once
        T = len(self._names)
        width = sd.histogram.size + 1
        self._tensor_hist = np.bincount(
            tr.tensor[warm].astype(np.int64) * width + d[warm], minlength=T * width
        ).reshape(T, width)
        self._tensor_cold = np.bincount(tr.tensor[~warm], minlength=T)
        self._tensor_accesses = np.bincount(tr.tensor, minlength=T)
        # line number of every element (accessed or not): the overlay's "same line"
        self._line_of = element_lines(tr, self._counts, self.line)
        points = tr.points
        start = np.searchsorted(tr.point, np.arange(points + 1))
        distinct_lines = int(np.unique(tr.addresses(self.line) // self.line).size)
        self._distinct_lines = distinct_lines
        with self.hold_sync():
            self.capacity_max = max(distinct_lines + 1, self.capacity)
            self.loops = {
                "names": list(tr.loop_order),
                "extents": [int(tr.sizes[i]) for i in tr.loop_order],
                "count": int(points),
            }
            if self.point >= points:
                self.point = 0
            self.accesses = {
                "start": cast(start, "int32"),
                "element": cast(g, "int32"),
                "write": cast(tr.is_write, "uint8"),
            }
            self._heat()
            self._capacity_table()
            self._misses()
            self._selected()
        self._retrace_seconds = time.perf_counter() - started

    def _misses(self) -> None:
        """Misses by class per tensor (readout) and per element (misses mode) for the current cache.

        Fully associative: read off the per-tensor histograms (no re-simulation); the view already
        drew the step from ``capacity_table``. Set-associative: the distances within each set depend
        on the number of sets, so ``simulate`` runs (reusing the fully associative distances) and the
        per-element misses are sent in ``miss_map``."""
        started = time.perf_counter()
        C = self.capacity
        fa = self._fa_per_tensor(C)
        if self.ways is None:
            misses = fa
            if self._table is None:
                d = self._distances.distance
                self._send_miss_map((d < 0) | (d >= C))
            elif self.miss_map:
                self.miss_map = {}
        else:
            result = simulate(self._trace, Cache(line=self.line, lines=C, ways=self.ways), distances=self._distances)
            misses = np.bincount(self._trace.tensor, weights=result.miss, minlength=len(self._names)).astype(np.int64)
            self._send_miss_map(result.miss)
        cold, capacity, conflict = self._tensor_cold, fa - self._tensor_cold, misses - fa
        rows = [
            [
                name,
                int(self._tensor_accesses[k]),
                int(misses[k]),
                int(cold[k]),
                int(capacity[k]),
                int(conflict[k]),
                int(misses[k]) * self.line,
            ]
            for k, name in enumerate(self._names)
        ]
        rows.append(
            [
                "total",
                int(self._tensor_accesses.sum()),
                int(misses.sum()),
                int(cold.sum()),
                int(capacity.sum()),
                int(conflict.sum()),
                int(misses.sum()) * self.line,
            ]
        )
        self.readout = {
            "header": list(READOUT_HEADER),
            "rows": rows,
            "lines": self._readout_notes(),
            "capacity": int(C),
            "ways": self.ways,
            "stamp": time.time(),
        }
        self._misses_seconds = time.perf_counter() - started

    def _readout_notes(self) -> list[str]:
        """The readout's lines under the table, for the current cache."""
        lines = [
            f"{self.cache.kind} LRU cache of {self.capacity} lines × {self.line} B; misses = cold + capacity + conflict; "
            "bytes = line × misses",
            self._trace.summary(),
        ]
        for name, count in self._trace.out_of_range.items():
            lines.append(f"{name}: {count:,} out-of-range accesses counted and left out of the trace")
        if getattr(self, "sdfg_map", None) is not None:
            lines.append(f"SDFG map {self.sdfg_map.phase!r}: " + "; ".join(self.sdfg_map.notes or ("as in the file",)))
        return lines

    def __repr__(self) -> str:
        return (
            f"LocalView({self._trace.einsum.name!r}, sizes={self._sizes}, loop_order={self.loop_order}, "
            f"{self.cache.describe()})"
        )


_MODEL_CONTROLS = {"line", "capacity", "ways", "loop_order", "layouts"}
