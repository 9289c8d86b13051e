"""The local view of one phase (design.md §7, seed 001 Figs. 4-5) as a live anywidget.

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
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import traitlets as t

from ..cache import Cache, CacheResult, Layout, StackDistances, Trace, packed_strides, simulate, stack_distances, trace
from ..errors import WorkloadError, short_repr
from ..figures.colour_scale import PALETTES, SCALINGS, hex_colors, rgb, scale_range, severity, severity_rows
from ..figures.local import bar_ticks, colour_bar, element_grid, place_tensors
from ..model.einsum import Einsum
from .base import Choice, ViewWidget
from .buffers import ArrayDict, cast

if TYPE_CHECKING:
    from ..model.workload import Workload
    from .diagram import CampaignDiagram

MODES = ("iteration", "flattened", "related", "reuse", "misses")
REUSE_STATS = ("min", "median", "max")
CAPACITY_UNITS = ("lines", "bytes")
MAX_LINE = 1 << 16
MAX_VIEW_ELEMENTS = 200_000
MAX_TABLE_ENTRIES = 2_000_000  # capacities × elements sent at once (~10 MB); beyond, each step asks the kernel
READOUT_HEADER = (
    "tensor",
    "accesses",
    "misses",
    "cold",
    "capacity",
    "conflict",
    "bytes",
)  # beyond this the element grids are unreadable and the tab slow
COLD_ONLY_RGB = (0x3A, 0x3A, 0x3A)  # reuse heatmap: accessed, never reused (only cold misses)
UNTOUCHED_RGB = (0xFF, 0xFF, 0xFF)  # never accessed
_COLD_ONLY, _UNTOUCHED = hex_colors([COLD_ONLY_RGB, UNTOUCHED_RGB])  # the swatches' CSS colours
_LAYOUT_FIELDS = ("order", "pad", "offset", "byte_offset", "strides")


class LocalView(ViewWidget, bundle="local.js"):
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
            raise TypeError(f"LocalView cache={cache!r} must be a campaign_widget.cache.Cache")
        self._ready = False
        self._table = None
        self._workload = workload
        self._einsum, widths = _einsum_of(workload, phase)
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
            name: _layout_dict(name, value, len(self._shapes[self._names.index(name)]))
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
        return {name: _layout_dict(name, layout, len(shapes[name])) for name, layout in value.items()}

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

    def apply(self, *, mode: str = "ratio", write_back: bool = False) -> Workload:
        """The workload with this phase's bytes predicted for the current cache, loop order and layouts
        (``campaign_widget.cache.with_predicted_traffic``; ``mode="ratio"`` scales the local miss ratios
        to the workload's sizes, ``"exact"`` simulates at them). Callbacks registered with ``on_apply``
        receive it (e.g. to show it in a campaign diagram); it is also kept in ``applied``."""
        if self._phase is None or self._workload is None:
            raise WorkloadError("LocalView.apply: this view was opened on an Einsum, not on a phase of a workload")
        from ..cache import with_predicted_traffic

        workload = with_predicted_traffic(
            self._workload,
            self._phase,
            self.cache,
            local_sizes=self._sizes,
            layouts=self._layout_objects(),
            loop_order=self.loop_order,
            mode=mode,
            write_back=write_back,
        )
        self.applied = workload
        before = _phase_bytes(self._workload, self._phase)
        after = _phase_bytes(workload, self._phase)
        self.message = (
            f"applied to phase {self._phase!r}: {before:,.0f} B logical → {after:,.0f} B predicted "
            f"({self.cache.describe()}, loops {','.join(self.loop_order)}, {mode})"
        )
        for callback in list(self._apply_callbacks):
            callback(workload)
        if self._linked:
            self.message += f"; shown in {len(self._linked)} linked diagram{'s' if len(self._linked) > 1 else ''}"
        self._applied_with = (self._apply_controls(), self.message, after)
        self.set_trait("apply_pending", False)
        return workload

    def _apply_controls(self) -> dict[str, Any]:
        """The controls ``apply()`` reads, by the words the pending note uses for them."""
        return {
            "cache line": self.line,
            "capacity": self.capacity,
            "ways": self.ways,
            "loop order": tuple(self.loop_order),
            "layouts": repr(sorted(self.layouts.items())),
        }

    @t.observe("line", "capacity", "ways", "loop_order", "layouts")
    def _on_apply_control(self, change: dict[str, Any]) -> None:
        """After an apply, a control change leaves the phase with the bytes of the old controls: the
        message says so, and what the phase shows, until the next apply (or until the controls are
        back where they were). Applying at every step instead would redraw linked diagrams as a
        slider moves, which ``link`` promises not to do."""
        if not self._ready or self._applied_with is None:
            return
        controls, applied_message, shown = self._applied_with
        changed = [name for name, value in self._apply_controls().items() if controls[name] != value]
        if not changed:
            if self.apply_pending:
                self.message = applied_message
            self.set_trait("apply_pending", False)
            return
        old = Cache(line=controls["cache line"], lines=controls["capacity"], ways=controls["ways"])
        what = changed[0] if len(changed) == 1 else ", ".join(changed[:-1]) + " and " + changed[-1]
        self.message = (
            f"{what} changed — press Apply to update phase {self._phase!r} (it shows {shown:,.0f} B predicted "
            f"for {old.describe()}, loops {','.join(controls['loop order'])})"
        )
        self.set_trait("apply_pending", True)

    def on_apply(self, callback: Callable[[Workload], object], remove: bool = False) -> None:
        """Call ``callback(workload)`` with each workload ``apply()`` (or the view's button) makes."""
        if remove:
            self._apply_callbacks.remove(callback)
        else:
            self._apply_callbacks.append(callback)

    def link(self, diagram: CampaignDiagram) -> LocalView:
        """Show each applied workload in ``diagram``: ``apply()`` and the view's button call
        ``diagram.set_workload(applied)``, so the phase's bar takes its predicted bytes (its controls —
        tiles, policy, peaks — stay). Nothing changes until the next apply. Returns the view, so
        ``LocalView(...).link(diagram)`` can end a cell. ``unlink(diagram)`` undoes it."""
        from .diagram import CampaignDiagram

        if not isinstance(diagram, CampaignDiagram):
            raise TypeError(f"LocalView.link takes a campaign_widget.CampaignDiagram, got {type(diagram).__name__}")
        if self._phase is None or self._workload is None:
            raise WorkloadError(
                "LocalView.link: this view was opened on an Einsum, not on a phase of a workload; "
                "open it as LocalView(workload, phase_name, local_sizes) to apply to a diagram"
            )
        if self._phase not in diagram.phase_names:
            raise WorkloadError(
                f"LocalView.link: the diagram has no phase {self._phase!r}; its phases: {list(diagram.phase_names)}"
            )
        if id(diagram) not in self._linked:
            self._linked[id(diagram)] = (diagram, diagram.set_workload)
            self.on_apply(self._linked[id(diagram)][1])
        return self

    def unlink(self, diagram: CampaignDiagram) -> None:
        """Stop showing applied workloads in ``diagram`` (a diagram not linked is an error naming it)."""
        if id(diagram) not in self._linked:
            raise ValueError(
                f"LocalView.unlink: {type(diagram).__name__} at {id(diagram):#x} is not linked to this view"
            )
        _, callback = self._linked.pop(id(diagram))
        self.on_apply(callback, remove=True)

    @property
    def linked(self) -> list[CampaignDiagram]:
        """The diagrams ``apply()`` updates, in the order they were linked."""
        return [diagram for diagram, _ in self._linked.values()]

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
            raise ValueError(f"select: tensor {short_repr(tensor)} is not one of {list(self._names)}")
        k = self._names.index(tensor)
        flat = (
            (int(np.ravel_multi_index(tuple(index), self._shapes[k])) if index else 0)
            if isinstance(index, (tuple, list))
            else int(index)
        )
        if not 0 <= flat < self._counts[k]:
            raise ValueError(f"select: {tensor}{list(np.atleast_1d(index))} is outside shape {self._shapes[k]}")
        self.selection = [*self.selection, int(self._first[k] + flat)]

    def _layout_objects(self) -> dict[str, Layout]:
        out = {}
        for k, name in enumerate(self._names):
            spec = self.layouts.get(name, {})
            order, pad = spec.get("order", "C"), int(spec.get("pad", 0))
            strides = spec.get("strides")
            if strides is None and (pad or order not in ("C", "F")):
                strides = packed_strides(
                    self._shapes[k], order if order in ("C", "F") else _permutation(order), pad=pad
                )
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
        self._stats = _per_element_stats(g[warm], d[warm], n)  # (n, 3): min, median, max; NaN if none
        # per tensor histogram of distances: misses(C) = cold + #{d >= C} per tensor, every C at once
        T = len(self._names)
        width = sd.histogram.size + 1
        self._tensor_hist = np.bincount(
            tr.tensor[warm].astype(np.int64) * width + d[warm], minlength=T * width
        ).reshape(T, width)
        self._tensor_cold = np.bincount(tr.tensor[~warm], minlength=T)
        self._tensor_accesses = np.bincount(tr.tensor, minlength=T)
        # line number of every element (accessed or not): the overlay's "same line"
        self._line_of = _element_lines(tr, self._counts, self.line)
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

    def _heat(self) -> None:
        """Access counts and reuse distances per element, coloured (flattened and reuse modes)."""
        s, info = severity(self._count, self.scaling), scale_range(self._count, self.scaling)
        stat = self._stats[:, REUSE_STATS.index(self.reuse_stat)]
        rs = severity(stat, self.scaling, zero_is_value=True)
        rinfo = scale_range(stat, self.scaling, zero_is_value=True)
        reuse_rgb = rgb(rs, self.palette)
        reuse_rgb[(self._count > 0) & np.isnan(stat)] = COLD_ONLY_RGB
        reuse_rgb[self._count == 0] = UNTOUCHED_RGB
        count_rgb = rgb(s, self.palette)
        count_rgb[self._count == 0] = UNTOUCHED_RGB
        stats = self._stats.astype(np.float32)
        self.heat = {
            "count": cast(self._count, "int32"),
            "count_rgb": cast(count_rgb, "uint8"),
            "cold": cast(self._cold, "int32"),
            "reuse": cast(stats, "float32"),
            "reuse_rgb": cast(reuse_rgb, "uint8"),
            "line": cast(self._line_of, "int32"),
            "bars": {
                "flattened": colour_bar(info, self.palette, "accesses per element"),
                "reuse": colour_bar(rinfo, self.palette, f"{self.reuse_stat} reuse distance", "lines"),
            },
            "swatches": {
                "flattened": [{"colour": _UNTOUCHED, "label": "never accessed"}],
                "reuse": [
                    {"colour": _COLD_ONLY, "label": "cold only (never reused)"},
                    {"colour": _UNTOUCHED, "label": "never accessed"},
                ],
                "misses": [{"colour": _UNTOUCHED, "label": "no miss"}],
                "related": [{"colour": _UNTOUCHED, "label": "not related"}],
            },
            # the colours that say "nothing here" and "cold only": a dark theme draws its own for them
            "neutral": {"untouched": _UNTOUCHED, "cold_only": _COLD_ONLY},
        }

    def _fa_per_tensor(self, capacity: int) -> np.ndarray:
        """Fully associative misses per tensor for ``capacity`` lines, from the per-tensor histograms."""
        ge = self._tensor_hist[:, min(capacity, self._tensor_hist.shape[1] - 1) :].sum(axis=1)
        return self._tensor_cold + ge

    def _capacity_table(self) -> None:
        """Fully associative misses for EVERY capacity 1 … capacity_max, from one pass over the
        distances: per tensor (readout) and per element (misses mode, as severities on a 255-colour
        palette), so the view redraws a capacity step at once, before the kernel answers."""
        D = self._distinct_lines + 1  # from here on only cold misses remain: the last row holds for all larger C
        n = int(self._counts.sum())
        d = self._distances.distance
        warm = d >= 0
        if D * n > MAX_TABLE_ENTRIES:
            self._table = None
            self.capacity_table = {}
            return
        capacities = np.arange(1, D + 1)
        # per tensor: cold + #{d >= C}
        suffix = np.cumsum(self._tensor_hist[:, ::-1], axis=1)[:, ::-1]  # suffix[t, c] = #{d >= c}
        width = suffix.shape[1]
        ge_t = np.where(capacities[None, :] < width, suffix[:, np.minimum(capacities, width - 1)], 0)
        fa_t = (self._tensor_cold[:, None] + ge_t).T  # (D, T)
        # per element: the same from a histogram per element
        W = int(d[warm].max()) + 2 if warm.any() else 1
        H = np.bincount(self._g[warm] * W + d[warm], minlength=n * W).reshape(n, W)
        suffix_e = np.cumsum(H[:, ::-1], axis=1)[:, ::-1]
        take = np.minimum(capacities, W - 1)
        ge_e = np.where(capacities[None, :] < W, suffix_e[:, take], 0)
        per_element = (self._cold[:, None] + ge_e).T  # (D, n)
        sev = np.full((D, n), 255, np.uint8)
        s, ranges = severity_rows(per_element, self.scaling)
        ok = np.isfinite(s)
        sev[ok] = np.round(s[ok] * 254).astype(np.uint8)
        lut = np.vstack([rgb(np.linspace(0, 1, 255), self.palette), [UNTOUCHED_RGB]]).astype(np.uint8)
        self._table = fa_t
        self.capacity_table = {
            "capacities": D,
            "tensor_misses": cast(fa_t, "int32"),
            "cold": [int(c) for c in self._tensor_cold],
            "accesses": [int(a) for a in self._tensor_accesses],
            "line": int(self.line),
            "element_misses": cast(per_element, "int32"),
            "severity": cast(sev, "uint8"),
            "lut": cast(lut, "uint8"),
            "ticks": [bar_ticks(r) for r in ranges],
            "bar": colour_bar({"method": self.scaling}, self.palette, "misses per element"),
        }

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

    def _send_miss_map(self, miss_access: np.ndarray) -> None:
        n = int(self._counts.sum())
        per_element = np.bincount(self._g, weights=miss_access, minlength=n).astype(np.int64)
        s, info = severity(per_element, self.scaling), scale_range(per_element, self.scaling)
        colours = rgb(s, self.palette)
        colours[per_element == 0] = UNTOUCHED_RGB
        self.miss_map = {
            "capacity": int(self.capacity),
            "ways": self.ways,
            "misses": cast(per_element, "int32"),
            "misses_rgb": cast(colours, "uint8"),
            "bar": colour_bar(info, self.palette, "misses per element"),
        }

    def _selected(self) -> None:
        """Related accesses, cache-line mask and distance histogram of the clicked elements."""
        n = int(self._counts.sum())
        sel = np.array(sorted(set(self.selection)), np.int64)
        g, tr, d = self._g, self._trace, self._distances.distance
        if sel.size:
            touched = np.isin(g, sel)
            weight = np.bincount(tr.point[touched], minlength=tr.points)
            related = np.bincount(g, weights=weight[tr.point], minlength=n).astype(np.int64)
            key = self._tensor_of.astype(np.int64) * (int(self._line_of.max()) + 1) + self._line_of
            line_mask = np.isin(key, key[sel])
            mine = d[touched]
            title = f"stack distances of {self._label(int(sel[0]))}" + (
                f" and {sel.size - 1} more" if sel.size > 1 else ""
            )
        else:
            related = np.zeros(n, np.int64)
            line_mask = np.zeros(n, bool)
            mine = d
            title = "stack distances of all accesses"
        warm = mine[mine >= 0]
        hist = np.bincount(warm) if warm.size else np.zeros(0, np.int64)
        s, info = severity(related, self.scaling), scale_range(related, self.scaling)
        colours = rgb(s, self.palette)
        colours[related == 0] = UNTOUCHED_RGB
        self.selected = {
            "related": cast(related, "int32"),
            "related_rgb": cast(colours, "uint8"),
            "line_mask": cast(line_mask, "uint8"),
            "hist": cast(hist, "int32"),
            "hist_cold": int(mine.size - warm.size),
            "hist_title": title,
            "bar": colour_bar(info, self.palette, "related accesses"),
        }

    def _label(self, g: int) -> str:
        k = int(self._tensor_of[g])
        idx = np.unravel_index(g - int(self._first[k]), self._shapes[k]) if self._shapes[k] else ()
        return f"{self._names[k]}[{','.join(str(int(i)) for i in idx)}]"

    def element_of(self, tensor: str, index: Sequence[int]) -> int:
        """The global element number (as in ``selection``) of ``tensor[index]``."""
        k = self._names.index(tensor)
        return int(self._first[k] + (np.ravel_multi_index(tuple(index), self._shapes[k]) if index else 0))

    def __repr__(self) -> str:
        return (
            f"LocalView({self._trace.einsum.name!r}, sizes={self._sizes}, loop_order={self.loop_order}, "
            f"{self.cache.describe()})"
        )


_MODEL_CONTROLS = {"line", "capacity", "ways", "loop_order", "layouts"}


def _einsum_of(
    workload: Workload | None, phase: str | Einsum | Sequence[Any]
) -> tuple[Einsum | str | Sequence[Any], int | Mapping[str, int] | None]:
    """The Einsum of ``phase`` and its element bytes (None: not known): given directly, or the phase of
    that name of a workload built by ``Workload.from_einsums`` (``workload.einsums``, ``.element_bytes``)."""
    if isinstance(phase, Einsum) or (isinstance(phase, str) and "=" in phase) or isinstance(phase, (tuple, list)):
        return phase, None
    if isinstance(phase, str) and workload is not None:
        names = list(getattr(workload, "names", []))
        if phase not in names:
            raise WorkloadError(f"LocalView: phase {short_repr(phase)} is not in the workload; its phases: {names}")
        einsums = getattr(workload, "einsums", None) or {}  # Workload.from_einsums keeps them
        if phase not in einsums:
            raise WorkloadError(
                f"LocalView: phase {short_repr(phase)} carries no Einsum (build the workload with "
                "Workload.from_einsums, or pass the Einsum itself, e.g. "
                "LocalView(None, 'C[i,j] = A[i,k] * B[k,j]', sizes))"
            )
        return einsums[phase], getattr(workload, "element_bytes", None)
    raise WorkloadError(
        f"LocalView: phase={short_repr(phase)} is neither an Einsum nor the name of a phase of the workload"
    )


def _element_lines(tr: Trace, counts: np.ndarray, line: int) -> np.ndarray:
    """Cache-line number of every element of every tensor (accessed or not), from the trace's layouts
    (design.md §7: addr = base + byte_offset + elem_bytes·(offset + Σ e_d·stride_d)); 0-D tensors too."""
    bases = tr.bases_for(line)
    out = []
    for k, shape in enumerate(tr.shapes):
        flat = np.arange(int(counts[k]))
        offset = np.zeros_like(flat)
        if shape:
            for idx, stride in zip(np.unravel_index(flat, shape), tr.strides[k]):
                offset = offset + idx * stride
        out.append((bases[k] + tr.byte_offsets[k] + tr.elem_bytes[k] * (tr.offsets[k] + offset)) // line)
    return np.concatenate(out)


def _phase_bytes(workload: Workload, phase: str) -> float:
    return float(workload.arrays.bytes[workload.names.index(phase)])


def _layout_dict(name: str, value: Layout | Mapping[str, Any], ndim: int) -> dict:
    """A tensor's layout as the view edits it: {order, pad, offset, byte_offset[, strides]}; errors
    name the tensor, the field and the value. ``order``: "C", "F", or the dimensions from outermost
    to innermost in memory, e.g. "2,0,1" (seed 001's hdiff: in_field[I,J,K] stored as [K,I,J])."""
    if isinstance(value, Layout):
        out = {"order": value.order, "pad": 0, "offset": value.offset, "byte_offset": value.byte_offset}
        if value.strides is not None:
            out["strides"] = list(value.strides)
        return out
    if not isinstance(value, Mapping):
        raise t.TraitError(
            f"layouts[{short_repr(name)}]={value!r} must be a Layout or a dict of {list(_LAYOUT_FIELDS)}"
        )
    unknown = [k for k in value if k not in _LAYOUT_FIELDS]
    if unknown:
        raise t.TraitError(f"layouts[{short_repr(name)}] has unknown fields {unknown}; known: {list(_LAYOUT_FIELDS)}")
    out = {"order": value.get("order", "C")}
    if out["order"] not in ("C", "F"):
        perm = _permutation(out["order"])
        if perm is None or sorted(perm) != list(range(ndim)):
            raise t.TraitError(
                f"layouts[{short_repr(name)}].order={out['order']!r} must be 'C', 'F' or an order of the "
                f"dimensions 0…{ndim - 1}, outermost first, e.g. {','.join(map(str, range(ndim)[::-1]))!r}"
            )
        out["order"] = ",".join(map(str, perm))
    for key in ("pad", "offset", "byte_offset"):
        v = value.get(key, 0)
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise t.TraitError(f"layouts[{short_repr(name)}].{key}={v!r} must be a whole number >= 0")
        out[key] = int(v)
    if value.get("strides") is not None:
        strides = value["strides"]
        if not isinstance(strides, (list, tuple)) or not all(isinstance(s, int) and s >= 1 for s in strides):
            raise t.TraitError(f"layouts[{short_repr(name)}].strides={strides!r} must be a list of whole numbers >= 1")
        if out["pad"]:
            raise t.TraitError(f"layouts[{short_repr(name)}]: give strides or pad={out['pad']}, not both")
        out["strides"] = list(strides)
    return out


def _permutation(text: object) -> list[int] | None:
    try:
        return [int(p) for p in str(text).replace(" ", "").split(",") if p != ""]
    except ValueError:
        return None


def _per_element_stats(elements: np.ndarray, distances: np.ndarray, n: int) -> np.ndarray:
    """(n, 3) min, median, max of the finite distances of each element (NaN where it has none);
    the median of an even count is the mean of the two middle values (design.md §7)."""
    out = np.full((n, 3), np.nan)
    if elements.size == 0:
        return out
    order = np.lexsort((distances, elements))
    e, v = elements[order], distances[order].astype(np.float64)
    starts = np.flatnonzero(np.r_[True, e[1:] != e[:-1]])
    counts = np.diff(np.r_[starts, e.size])
    which = e[starts]
    out[which, 0] = v[starts]
    out[which, 2] = v[starts + counts - 1]
    out[which, 1] = (v[starts + (counts - 1) // 2] + v[starts + counts // 2]) / 2
    return out
