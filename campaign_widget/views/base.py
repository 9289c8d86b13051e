"""What every anywidget view of the package shares (``CampaignDiagram``, ``DataflowView``,
``LocalView``, ``RooflinePlot``, ``SweepHeatmap``): its front-end bundle, the refusal of unknown
keyword arguments, the theme, how state written by the view is accepted or refused, the page and
the display's PNG, and (``buffers.ArrayDict``) how arrays travel. The composites (ipywidgets boxes
of these) share ``composite.Composite``.

The front ends share the same pieces in JavaScript: ``js/shared/page-theme.js`` (light and dark from
JupyterLab's ``--jp-*`` variables and ``theme.json``), ``js/shared/dom.js`` (labelled controls) and
``js/shared/param-sliders.js`` (one slider per workload parameter).
"""

from __future__ import annotations

import base64
import functools
import math
import numbers
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import anywidget
import traitlets as t
from ipywidgets.widgets.widget import JUPYTER_WIDGETS_ECHO, _remove_buffers

from ..errors import ArgumentError, CampaignWidgetError, WorkloadError, WrongTypeError, short_repr

STATIC = Path(__file__).parents[1] / "static"
THEMES = ("auto", "light", "dark")
PARAM_SPAN = 16  # a parameter slider reaches from value/16 to value×16 unless param_ranges says otherwise
LOG_SLIDER_SPAN = 100  # a parameter range spanning this factor or more gets a log slider
DISPLAY_MODES = ("live+png", "live", "png")  # ViewWidget.display_mode
DISPLAY_DPI = 100  # the display's PNG: one pixel per CSS pixel of a figure's inches at 100 px each


class Choice(t.Enum):
    """One of a fixed tuple of strings; a refused value's error names the trait, the value and the
    valid ones (``unknown overlay 'flops'; valid: bytes, ops, …``)."""

    def error(self, obj, value, error=None, info=None):
        raise t.TraitError(f"unknown {self.name} {value!r}; valid: {', '.join(map(str, self.values))}")


class ViewArgumentError(ArgumentError, t.TraitError):
    """A view's constructor argument its trait refuses: ours (naming the view, the trait and the value) and
    still the ``TraitError`` traitlets raises."""


def _refusals_named(init):
    """``init`` (a view's constructor) with a trait's refusal of an argument raised as ours."""

    @functools.wraps(init)
    def constructed(self, *args: Any, **kwargs: Any) -> None:
        try:
            init(self, *args, **kwargs)
        except t.TraitError as error:
            if isinstance(error, CampaignWidgetError):
                raise
            raise ViewArgumentError(f"{type(self).__name__}: {error}") from None

    return constructed


class ViewWidget(anywidget.AnyWidget):
    """Base of the package's anywidget views. A subclass names its bundle (``class X(ViewWidget,
    bundle="x.js")``) and may list the traits the view may write (``view_writable``); every other
    synced trait is the kernel's, and a write of it from the view is refused.

    ``theme`` (``"auto"``, ``"light"`` or ``"dark"``; default ``"auto"``): the look of the view.
    ``"auto"`` follows the front end's theme (JupyterLab, VS Code, Colab, marimo; else the browser's colour scheme).
    """

    theme = Choice(THEMES, default_value="auto").tag(sync=True)

    #: Traits the view may write; None: every synced trait.
    view_writable: ClassVar[frozenset[str] | None] = None
    #: What a display of the view holds (``DISPLAY_MODES``): ``"live+png"`` the live view and a PNG
    #: of its figure (``image/png``, drawn with no browser by the view's ``savefig``) for renderings
    #: with no widget front end (GitHub, a docs build, nbconvert without widget state); ``"live"``
    #: the live view alone, displayed faster; ``"png"`` the PNG alone, for a notebook exported as a
    #: static page (nbconvert shows a saved live view before a PNG, and that view needs scripts from
    #: a CDN). Set it on the class or on one view, or CAMPAIGN_WIDGET_DISPLAY in the kernel's environment.
    display_mode: ClassVar[str] = os.environ.get("CAMPAIGN_WIDGET_DISPLAY", "live+png").strip() or "live+png"
    _bundle_path: ClassVar[Path]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_msg(self._answer_kernel_ping)

    def __init_subclass__(cls, bundle: str | None = None, **kwargs: Any) -> None:
        if "__init__" in cls.__dict__:
            cls.__init__ = _refusals_named(cls.__dict__["__init__"])  # type: ignore[method-assign]
        if bundle is not None:
            # A path (anywidget's convention): with ANYWIDGET_HMR=1 and `npm run dev` the view hot-reloads.
            cls._bundle_path = STATIC / bundle
            cls._esm = cls._bundle_path
        super().__init_subclass__(**kwargs)

    @classmethod
    def check_arguments(cls, kwargs: Mapping[str, Any]) -> None:
        """Unknown keyword arguments are an error (a typo must not be silently ignored), and so is a
        missing front end."""
        if kwargs:
            raise WrongTypeError(f"{cls.__name__} got unexpected keyword arguments: {', '.join(sorted(kwargs))}")
        if not cls._bundle_path.is_file():
            raise RuntimeError(
                f"the front end of {cls.__name__} is not built ({cls._bundle_path} is missing): install the "
                "package with `pip install .` (or `-e .`), or run `npm install && npm run build` in the source tree"
            )

    def _answer_kernel_ping(self, _widget, content, _buffers) -> None:
        # js/shared/kernel.js asks once whether a kernel is behind the view's model; only a live one answers
        if isinstance(content, dict) and content.get("type") == "kernel-ping":
            self.send({"type": "kernel-pong"})

    # -- without a kernel: a static page, and a PNG in the display ---------------------------------

    def to_html(self, path: str | os.PathLike[str], *, title: str = "") -> Path:
        """Write this view as one self-contained HTML file (``campaign_widget.views.page``): its
        front end, its state and its data embedded, nothing fetched, no kernel. It opens from disk
        in a browser with hover, zoom and pan; the controls that recompute in Python are hidden.
        Written whole or not at all; returns the path."""
        from .page import write_html

        return write_html(path, [self], title=title)

    def _add_to_page(self, page) -> None:
        page.add(self)

    def _page_state(self, state: dict[str, Any]) -> dict[str, Any]:
        """The synced state (serialized, as ``get_state`` gives it) a page starts from. A view whose
        state holds less than the page needs, because the kernel sends the rest on request (a zoomed
        window's detail), puts the whole here."""
        return state

    def static_png(self) -> bytes | None:
        """A PNG of the figure with no browser (the view's ``savefig``), or None if the view has none."""
        return static_png(self)

    def _repr_mimebundle_(self, **kwargs: Any):
        return with_static_png(self, super()._repr_mimebundle_(**kwargs))

    # -- state from the view ------------------------------------------------------------------------

    def set_state(self, sync_data: dict[str, Any]) -> None:
        """State from the view: only ``view_writable`` traits, each validated before it is stored. A
        refused value never lands in its trait: the view is sent the stored values back and told why
        (``_refused``)."""
        writable = self.view_writable
        refused = sorted(k for k in sync_data if writable is not None and k not in writable)
        if refused:
            self.log.warning(
                "%s: the view may not write %s (computed in the kernel)", type(self).__name__, ", ".join(refused)
            )
            sync_data = {k: v for k, v in sync_data.items() if k not in refused}
        try:
            self._check_view_state(sync_data)
            self._echo(sync_data)
            self._store_from_view(sync_data)
        except (t.TraitError, CampaignWidgetError, ArithmeticError, TypeError) as error:  # a validator's refusal
            self._refused(str(error))
            refused = sorted(set(refused) | set(sync_data))
        else:
            if sync_data:
                self._accepted(sync_data)
        if refused:
            self.send_state(refused)

    def _echo(self, sync_data: dict[str, Any]) -> None:
        """The ``echo_update`` ipywidgets' own ``set_state`` sends before storing (the protocol that keeps
        every front end of one widget in step); a value refused after it is sent back by ``send_state``."""
        if not JUPYTER_WIDGETS_ECHO:
            return
        echo = {k: v for k, v in sync_data.items() if k in self.keys and self.trait_metadata(k, "echo_update", True)}
        if echo:
            state, buffer_paths, buffers = _remove_buffers(echo)
            self._send({"method": "echo_update", "state": state, "buffer_paths": buffer_paths}, buffers=buffers)

    def _store_from_view(self, sync_data: dict[str, Any]) -> None:
        """Store the view's values as an assignment from Python would (ipywidgets' ``set_state`` does it
        under ``hold_trait_notifications``, whose validators then see the proposal already in the trait):
        one trait at a time, each validated while its trait still holds the accepted value (and the traits
        before it their new ones), stored without validating again; the observers hear of all at the end.
        A refusal anywhere puts every trait back and raises it."""
        names = [name for name in sync_data if name in self.keys]
        old = {name: self._trait_values.get(name, t.Undefined) for name in names}
        held: list = []
        with self._lock_property(**sync_data):
            try:
                for name in names:
                    from_json = self.trait_metadata(name, "from_json", self._trait_from_json)
                    value = self.traits()[name]._validate(self, from_json(sync_data[name], self))
                    self.notify_change = held.append  # type: ignore[method-assign]
                    try:
                        with self.cross_validation_lock:  # validated just now: not again on storing
                            self.set_trait(name, value)
                    finally:
                        del self.notify_change
            except BaseException:
                for name, value in old.items():
                    if value is not t.Undefined:
                        self._trait_values[name] = value  # back as it was, telling no observer
                raise
            for change in held:
                self.notify_change(change)

    def _check_view_state(self, sync_data: dict[str, Any]) -> None:
        """Checks of values from the view before any is stored (raise ``TraitError``)."""

    def _refused(self, text: str) -> None:
        """Tell the view why its value was refused (each view has its text trait)."""
        self.log.warning("%s: %s", type(self).__name__, text)

    def _accepted(self, sync_data: dict[str, Any]) -> None:
        """A value from the view was stored."""


# -- parameter sliders --------------------------------------------------------------------------------


def param_ranges(
    params: Mapping[str, Any], given: Mapping[str, Any] | None, *, defaults: bool = True
) -> dict[str, dict]:
    """Slider limits per parameter: ``{name: {"range": [lo, hi], "log": hi/lo >= LOG_SLIDER_SPAN}}``.
    ``given`` maps names to ``[lo, hi]`` (or to that dict form); the others get value/16 .. value×16
    (only with ``defaults``). Errors name the parameter and the value."""
    ranges = (
        {name: [max(1, int(v) // PARAM_SPAN), max(2, int(v) * PARAM_SPAN)] for name, v in params.items()}
        if defaults
        else {}
    )
    for name, bounds in (given or {}).items():
        if name not in params:
            raise WorkloadError(
                f"param_ranges names {short_repr(name)}, which is not a parameter of this workload "
                f"(parameters: {', '.join(map(repr, params)) or 'none'})"
            )
        if isinstance(bounds, Mapping):
            bounds = bounds.get("range")
        try:
            lo, hi = bounds
            ok = all(not isinstance(b, bool) and float(b).is_integer() for b in (lo, hi)) and 1 <= lo < hi
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise WorkloadError(f"param_ranges[{short_repr(name)}]={bounds!r} must be two integers 1 <= lo < hi")
        ranges[name] = [int(lo), int(hi)]
    return {name: {"range": r, "log": r[1] / r[0] >= LOG_SLIDER_SPAN} for name, r in ranges.items()}


def check_params(value: Mapping[str, Any], known: Mapping[str, Any]) -> dict[str, int]:
    """Parameter values as positive ints, checked against the workload's parameters ``known``;
    a ``TraitError`` names the parameter and the value."""
    unknown = sorted(set(value) - set(known))
    if unknown:
        raise t.TraitError(
            f"params: unknown parameter(s) {', '.join(map(repr, unknown))}; this workload's "
            f"parameters are {', '.join(map(repr, known)) or 'none'}"
        )
    out = {}
    for name, v in value.items():
        whole = False
        if not isinstance(v, bool) and isinstance(v, numbers.Real):
            try:
                whole = math.isfinite(v) and float(v) >= 1 and v == int(v)
            except OverflowError:  # an integer beyond a float
                whole = False
        if not whole:
            raise t.TraitError(f"params[{short_repr(name)}]={short_repr(v)} must be a positive integer")
        out[name] = int(v)
    return out


def static_png(view) -> bytes | None:
    """A PNG of ``view``'s figure drawn with no browser (its ``savefig``), or None if it has none."""
    savefig = getattr(view, "savefig", None)
    if savefig is None:
        return None
    with tempfile.TemporaryDirectory(prefix="cw-display-") as folder:
        target = Path(folder) / "figure.png"
        savefig(target, dpi=DISPLAY_DPI)
        return target.read_bytes()


def with_static_png(view, bundle):
    """``view``'s display bundle with a PNG of its figure added, as ``view.display_mode`` (or
    ``ViewWidget.display_mode`` for the composites that are ipywidgets boxes) asks."""
    mode = getattr(view, "display_mode", ViewWidget.display_mode)
    if mode not in DISPLAY_MODES:
        log = getattr(view, "log", None)
        if log is not None:
            log.warning("%s: display_mode %r is not one of %s", type(view).__name__, mode, ", ".join(DISPLAY_MODES))
        mode = "live+png"
    if bundle is None or mode == "live":
        return bundle
    # anywidget's bundle is (data, metadata); an ipywidgets box's is the data alone
    data, metadata = (bundle, None) if isinstance(bundle, Mapping) else bundle
    try:
        png = static_png(view)
    except Exception as error:  # the live view is still shown: a failed fallback must not hide it
        log = getattr(view, "log", None)
        if log is not None:
            log.warning("%s: no static PNG in the display (%s)", type(view).__name__, error)
        png = None
    if png is None:
        return bundle
    if mode == "png":
        data = {key: value for key, value in data.items() if key == "text/plain"}
    data = {**data, "image/png": base64.b64encode(png).decode("ascii")}
    return data if metadata is None else (data, metadata)
