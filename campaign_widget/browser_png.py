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

from .atomic import check_writable, write_atomic
from .errors import CampaignWidgetError, short_repr

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
            raise ValueError(f"scale={scale!r} must be a number in (0, 8]")
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or math.isnan(timeout) or timeout <= 0
        ):
            raise ValueError(f"timeout={timeout!r} must be a number of seconds > 0 (or None / inf: no limit)")
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
            with self._lock:
                entry = self._pending.pop(content.get("id"), None)
                if entry is not None:
                    self._publish_pending()
            if entry is None:
                return  # another view answered first, or the request expired
            export = entry[0]
            if kind == "png-error":
                export._finish(error=str(content.get("message", "the view could not draw the PNG")))
                return
            data = bytes(buffers[0]) if buffers else b""
            if not data.startswith(PNG_SIGNATURE):
                export._finish(error="the view sent bytes that are not a PNG")
                return
            try:
                write_atomic(export.path, data)
            except OSError as error:
                export._finish(error=f"cannot write {str(export.path)!r}: {error.strerror or error}")
                return
            export._finish(size=(int(content.get("width", 0)), int(content.get("height", 0))))

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


def _writable_target(path) -> Path:
    """``path`` as a file the kernel can write, or an error naming it, before any view is asked."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise IsADirectoryError(f"save_png: {str(target)!r} is a folder; give a file name such as figure.png")
    if not folder.is_dir():
        raise FileNotFoundError(f"save_png: folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"save_png: cannot write {str(target)!r} (no permission)")
    check_writable(target)  # the one rule of every writer: a read-only file is not replaced
    return target
