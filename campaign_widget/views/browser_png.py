"""PNG export through a view: the request waits in a trait, a view draws the PNG, the kernel writes it.

A request is state, not a message: it sits in the widget's ``png_requests`` trait until a view of
the widget renders (or already shows) and answers it, so ``save_png`` in the cell after the one that
displays the diagram works under Run All, when that cell runs before the view exists. The kernel
cannot wait for the reply inside the cell that asks (the reply is queued behind that cell), so a
request returns a handle at once; the file appears when the first view answers. Replies are matched
to requests by id and duplicates from other views are dropped.
"""

from __future__ import annotations

import math
import os
import threading
import uuid
import warnings
from pathlib import Path

from ..atomic import check_writable, write_atomic
from ..errors import CampaignWidgetError, WrongTypeError, short_repr

THEMES = ("light", "dark")  # the looks a view can draw a PNG in (campaign_widget/theme.json)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class PngExport:
    """The pending or finished export of one PNG; ``done``, ``error``, ``path``, ``size``."""

    def __init__(self, path: Path, scale: float):
        self.path = path
        self.scale = scale
        self.size: tuple[int, int] | None = None
        self.error: str | None = None
        self._finished = threading.Event()

    @property
    def done(self) -> bool:
        return self._finished.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until written or failed (useful from another thread, not from the asking cell)."""
        return self._finished.wait(timeout)

    def _finish(self, error: str | None = None, size=None):
        self.error, self.size = error, size
        self._finished.set()

    def __repr__(self):
        state = "written" if self.done and not self.error else (f"failed: {self.error}" if self.error else "pending")
        return f"<PngExport {str(self.path)!r} {state}>"


class PngChannel:
    """Tracks displayed views of one widget and its outstanding PNG requests.

    ``publish(requests)`` stores the pending requests (``[{"id", "scale"}]``, with ``"theme"``:
    ``"light"`` or ``"dark"`` when one was asked, else the view draws in the theme it shows) where
    every view, present or future, reads them: the widget's ``png_requests`` trait.
    """

    def __init__(self, publish):
        self._publish = publish
        self.views = 0
        self._pending: dict[str, tuple[PngExport, dict]] = {}
        self._lock = threading.Lock()

    def request(self, path, scale: float, timeout: float | None, theme: str | None = None) -> PngExport:
        if theme is not None and theme not in THEMES:
            raise CampaignWidgetError(
                f"theme={short_repr(theme)} must be one of {', '.join(map(repr, THEMES))} or None"
            )
        if isinstance(scale, bool) or not (isinstance(scale, (int, float)) and 0 < scale <= 8):
            raise CampaignWidgetError(f"scale={scale!r} must be a number in (0, 8]")
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or math.isnan(timeout) or timeout <= 0
        ):
            raise CampaignWidgetError(f"timeout={timeout!r} must be a number of seconds > 0 (or None / inf: no limit)")
        target = _writable_target(path)
        export = PngExport(target, scale)
        request_id = uuid.uuid4().hex
        with self._lock:
            asked = {"scale": float(scale)} if theme is None else {"scale": float(scale), "theme": theme}
            self._pending[request_id] = (export, asked)
            self._publish_pending()
        if timeout is not None and math.isfinite(timeout):
            timer = threading.Timer(timeout, self._expire, args=(request_id, timeout))
            timer.daemon = True
            timer.start()
        return export

    def _publish_pending(self) -> None:
        self._publish([{"id": request_id, **asked} for request_id, (_, asked) in self._pending.items()])

    def on_message(self, content: dict, buffers) -> None:
        kind = content.get("type")
        if kind == "view-ready":
            self.views += 1
        elif kind == "view-closed":
            self.views = max(0, self.views - 1)
        elif kind in ("png-reply", "png-error"):
            request_id = content.get("id")
            if not isinstance(request_id, str):
                return  # not an answer to any request of ours
            # the reply is judged whole before the request is taken off: what is written, or the
            # reason it is not, is known before anything changes
            data, size, error = _judged(kind, content, buffers)
            with self._lock:
                entry = self._pending.pop(request_id, None)
            if entry is None:
                return  # another view answered first, or the request expired
            export = entry[0]
            written = False
            try:
                with self._lock:
                    self._publish_pending()
                if error is None:
                    write_atomic(export.path, data)
                    written = True
            except OSError as failure:
                error = f"cannot write {str(export.path)!r}: {failure.strerror or failure}"
            except Exception as failure:  # noqa: BLE001 - whatever fails, the waiting caller is released
                error = f"cannot write {str(export.path)!r}: {type(failure).__name__}: {failure}"
            finally:
                # a caller blocked in wait() returns whatever happened above, an interrupt included
                if written:
                    export._finish(size=size)
                else:
                    export._finish(error=_bounded(error or "the PNG was not written (interrupted)"))

    def _expire(self, request_id: str, timeout: float) -> None:
        with self._lock:
            entry = self._pending.pop(request_id, None)
            if entry is not None:
                self._publish_pending()
        if entry is not None:
            export = entry[0]
            message = (
                f"no view answered within {timeout:g} s: display the diagram (end a cell with it) so that "
                "a view can draw the PNG, or use savefig() for export with no browser"
            )
            export._finish(error=message)
            warnings.warn(f"save_png({str(export.path)!r}): {message}", RuntimeWarning, stacklevel=1)


MAX_SIDE = 2**31 - 1  # pixels: a canvas side beyond this is no image a browser draws
MAX_MESSAGE = 300  # characters of a view's error message kept in ``PngExport.error``


def _judged(kind: str, content: dict, buffers) -> tuple[bytes, tuple[int, int] | None, str | None]:
    """``(png bytes, (width, height), None)`` for a good reply, ``(b"", None, why not)`` for any other."""
    if kind == "png-error":
        message = content.get("message")
        text = message if isinstance(message, str) and message.strip() else "the view could not draw the PNG"
        return b"", None, text
    try:
        data = bytes(buffers[0]) if buffers else b""
    except (TypeError, ValueError, BufferError):
        data = b""
    if not data.startswith(PNG_SIGNATURE):
        return b"", None, "the view sent bytes that are not a PNG"
    size = []
    for side in ("width", "height"):
        value = content.get(side)
        if not _whole_pixels(value):
            return (
                b"",
                None,
                f"the view sent {side}={short_repr(value)}, not a whole number of pixels from 1 to {MAX_SIDE:,}",
            )
        size.append(int(value))
    return data, (size[0], size[1]), None


def _whole_pixels(value) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value) and value == int(value) and 1 <= value <= MAX_SIDE


def _bounded(message: str) -> str:
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def _writable_target(path) -> Path:
    """``path`` as a file the kernel can write, or an error naming it, before any view is asked."""
    if not isinstance(path, (str, os.PathLike)):
        raise WrongTypeError(f"save_png: path={short_repr(path)} must be a file path (str or os.PathLike)")
    target = Path(path)
    if "\x00" in str(target):
        raise CampaignWidgetError(f"save_png: path {short_repr(str(target))} contains a NUL character")
    folder = target.parent
    if target.is_dir():
        raise IsADirectoryError(f"save_png: {str(target)!r} is a folder; give a file name such as figure.png")
    if target.suffix.lower() != ".png":
        suffix = f"the suffix {target.suffix!r}" if target.suffix else "no suffix"
        raise CampaignWidgetError(
            f"save_png: {short_repr(str(target))} has {suffix}, but the view draws a PNG: name the file *.png "
            "(savefig() writes SVG or PDF)"
        )
    if not folder.is_dir():
        raise FileNotFoundError(f"save_png: folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"save_png: cannot write {str(target)!r} (no permission)")
    check_writable(target)  # the one rule of every writer: a read-only file is not replaced
    return target
