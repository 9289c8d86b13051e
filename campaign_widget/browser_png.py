"""PNG export through a displayed view: request bytes over the widget's comm, write them to disk.

The kernel cannot wait for the reply inside the cell that asks (the reply is queued behind that
cell), so a request returns a handle at once; the file appears when the first view answers.
Replies are matched to requests by id and duplicates from other views are dropped.
"""

from __future__ import annotations

import threading
import uuid
import warnings
from pathlib import Path

from .atomic import write_atomic

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
    """Tracks displayed views of one widget and its outstanding PNG requests."""

    def __init__(self, send):
        self._send = send
        self.views = 0
        self._pending: dict[str, PngExport] = {}
        self._lock = threading.Lock()

    def request(self, path, scale: float, timeout: float) -> PngExport:
        if not (isinstance(scale, (int, float)) and 0 < scale <= 8):
            raise ValueError(f"scale={scale!r} must be a number in (0, 8]")
        if self.views <= 0:
            raise RuntimeError(
                "save_png needs a displayed view of this diagram to draw the PNG: display it (end a cell "
                "with it), run that cell, then call save_png in a later cell; for export with no browser "
                "use savefig()")
        target = Path(path)
        if not target.parent.exists():
            raise FileNotFoundError(f"save_png: folder {str(target.parent)!r} does not exist")
        export = PngExport(target, scale)
        request_id = uuid.uuid4().hex
        with self._lock:
            self._pending[request_id] = export
        self._send({"type": "png-request", "id": request_id, "scale": float(scale)})
        timer = threading.Timer(timeout, self._expire, args=(request_id, timeout))
        timer.daemon = True
        timer.start()
        return export

    def on_message(self, content: dict, buffers) -> None:
        kind = content.get("type")
        if kind == "view-ready":
            self.views += 1
        elif kind == "view-closed":
            self.views = max(0, self.views - 1)
        elif kind in ("png-reply", "png-error"):
            with self._lock:
                export = self._pending.pop(content.get("id"), None)
            if export is None:
                return  # another view answered first, or the request expired
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
            export = self._pending.pop(request_id, None)
        if export is not None:
            message = f"no view answered within {timeout:g} s; is the diagram still displayed?"
            export._finish(error=message)
            warnings.warn(f"save_png({str(export.path)!r}): {message}", RuntimeWarning, stacklevel=1)
