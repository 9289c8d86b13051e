"""Driving a JupyterLab notebook and reading a widget's canvas, as a person would (mouse and keyboard).

Every wait is on a condition, with a timeout and a message that says what did not happen.
"""

from __future__ import annotations

import base64
import io
import json
import re
import struct
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from PIL import Image

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)[:120]


# -- the page and its errors -----------------------------------------------------------------------


@dataclass
class ConsoleErrors:
    """Page errors and console errors seen by a page; ``new_since(mark)`` for per-test checks."""

    benign: list[tuple[str, str]] = field(default_factory=list)  # (regex, reason): console errors to ignore
    errors: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def attach(self, page) -> None:
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        page.on("console", self._on_console)

    def _on_console(self, message) -> None:
        if message.type != "error":
            return
        location = message.location or {}
        text = f"console.error: {message.text} (at {location.get('url', '?')}:{location.get('lineNumber', '?')})"
        for pattern, _reason in self.benign:
            if re.search(pattern, text, re.IGNORECASE):
                self.ignored.append(text)
                return
        self.errors.append(text)

    def mark(self) -> int:
        return len(self.errors)

    def new_since(self, mark: int) -> list[str]:
        return self.errors[mark:]

    def assert_clean(self, since: int = 0, when: str = "") -> None:
        new = self.new_since(since)
        if new:
            pytest.fail(f"page/console errors{' ' + when if when else ''}:\n  " + "\n  ".join(new), pytrace=False)


class LabPage:
    """A Playwright page on the private Lab, with its error collector and artifact saving.

    Used for one test (``lab_page``) or shared by a module's tests; either way call ``close(failed)``.
    """

    def __init__(
        self,
        browser,
        name: str,
        artifacts_dir: Path,
        *,
        viewport: dict,
        device_scale_factor: float,
        benign: list[tuple[str, str]],
    ):
        self.name = name
        self.artifacts_dir = artifacts_dir
        self.context = browser.new_context(
            viewport=viewport, device_scale_factor=device_scale_factor, accept_downloads=True
        )
        self.context.set_default_timeout(30_000)
        self.context.tracing.start(screenshots=True, snapshots=True)
        self.page = self.context.new_page()
        self.errors = ConsoleErrors(benign=list(benign))
        self.errors.attach(self.page)

    def screenshot(self, label: str, full_page: bool = True) -> Path:
        path = self.artifacts_dir / f"{self.name}-{safe_name(label)}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        return path

    def save_failure(self, label: str) -> None:
        stem = self.artifacts_dir / f"{self.name}-{safe_name(label)}-FAILED"
        try:
            self.page.screenshot(path=f"{stem}.png", full_page=True)
            Path(f"{stem}.html").write_text(self.page.content(), encoding="utf-8")
        except Exception as error:  # the page may be gone; the trace still has it
            Path(f"{stem}.txt").write_text(f"could not capture the page: {error}\n")
        self.save_console_log()

    def save_console_log(self) -> None:
        (self.artifacts_dir / f"{self.name}-console.txt").write_text(
            "errors:\n"
            + "\n".join(self.errors.errors)
            + "\n\nignored (benign, see BENIGN_CONSOLE):\n"
            + "\n".join(self.errors.ignored)
            + "\n",
            encoding="utf-8",
        )

    def close(self, failed: bool) -> None:
        try:
            self.leave_light_theme()
            self.save_console_log()
            if failed:
                trace = self.artifacts_dir / f"{self.name}-trace.zip"
                self.context.tracing.stop(path=str(trace))
            else:
                self.context.tracing.stop()
        finally:
            self.context.close()

    def leave_light_theme(self) -> None:
        """Switch JupyterLab back to its light theme if a test left it dark: the theme is a user
        setting the server keeps, so the next module's page would open dark."""
        try:
            if self.page.evaluate("() => document.body.dataset.jpThemeLight") != "false":
                return
            self.page.keyboard.press("Escape")
            self.page.locator(".lm-MenuBar-item", has_text="Settings").click()
            self.page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
            self.page.locator(".lm-Menu-itemLabel", has_text="JupyterLab Light").first.click()
            self.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'true'", timeout=15_000)
            self.page.wait_for_timeout(1_000)  # the setting is saved to the server after the switch
        except Exception as error:  # a closed or crashed page: nothing to restore, the close goes on
            print(f"labdriver: could not switch JupyterLab back to light: {error}")


# -- the notebook -------------------------------------------------------------------------------------


class Notebook:
    def __init__(self, page, base_url: str):
        self.page = page
        self.base_url = base_url

    # -- opening and running ----------------------------------------------------------------------

    def open(self, path: str, timeout: float = 60_000) -> None:
        """Open ``path`` alone, in a fresh JupyterLab workspace of its own.

        ``/lab/tree/<path>`` would use the server's default workspace, which remembers every notebook
        an earlier page opened and reopens them as background tabs; the page-wide selectors here
        (``.jp-Notebook .jp-Cell``) would then match their hidden, unrun cells too.
        """
        workspace = "cw-" + re.sub(r"[^A-Za-z0-9]+", "-", Path(path).stem) + "-" + uuid.uuid4().hex[:8]
        self.page.goto(f"{self.base_url}/lab/workspaces/{workspace}/tree/{path}?reset", wait_until="domcontentloaded")
        self.page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.wait_for(state="visible", timeout=timeout)
        panels = self.page.locator(".jp-NotebookPanel").count()
        assert panels == 1, f"workspace {workspace!r} opened {panels} notebook panels, expected only {path}"

    def status_bar_text(self) -> str:
        return self.page.locator("#jp-main-statusbar").inner_text()

    def wait_kernel_idle(self, timeout: float = 60_000) -> None:
        # The toolbar's indicator says idle before a kernel exists; the status bar names the kernel.
        try:
            self.page.wait_for_function(
                "() => /ipykernel\\) \\| Idle/.test(document.querySelector('#jp-main-statusbar')?.textContent ?? '')",
                timeout=timeout,
            )
        except Exception as error:
            raise AssertionError(f"the kernel never reported idle; status bar: {self.status_bar_text()!r}") from error

    def run_all(self) -> None:
        self.page.locator(".lm-MenuBar-item", has_text=re.compile(r"^\s*Run\s*$")).click()
        self.page.locator('li[data-command="runmenu:run-all"]').click()

    def code_prompts(self) -> list[str]:
        return self.page.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt").all_inner_texts()

    def wait_all_executed(self, timeout: float = 60_000) -> None:
        """Every code cell shows an execution count (none pending, none unrun) and the kernel is idle."""
        try:
            self.page.wait_for_function(
                """() => {
                    const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
                    const idle = /ipykernel\\) \\| Idle/.test(
                        document.querySelector('#jp-main-statusbar')?.textContent ?? '');
                    return idle && prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
                }""",
                timeout=timeout,
            )
        except Exception as error:
            raise AssertionError(
                f"not every code cell ran: prompts {self.code_prompts()}, status bar {self.status_bar_text()!r}"
            ) from error

    def error_outputs(self) -> list[str]:
        """Tracebacks and stderr text shown in any output area."""
        loc = self.page.locator(
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], '
            '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"], '
            '.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"], '
            '.jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]'
        )
        return loc.all_inner_texts()

    # -- cells ------------------------------------------------------------------------------------

    def cells(self):
        return self.page.locator(".jp-Notebook .jp-Cell")

    def cell_count(self) -> int:
        return self.cells().count()

    def max_execution_count(self) -> int:
        counts = [int(m.group(1)) for p in self.code_prompts() if (m := re.search(r"\[(\d+)\]", p))]
        return max(counts, default=0)

    def append_code_cell(self, code: str) -> int:
        """Select the last cell, Escape to command mode, ``b`` for a new cell below, type ``code``.

        The text goes in as one insertion (like a paste), so the editor's bracket auto-closing cannot
        garble it; the cell's text is read back and compared. Returns the new cell's index.
        """
        before = self.cell_count()
        last = self.cells().nth(before - 1)
        last.scroll_into_view_if_needed()
        last.locator(".jp-InputPrompt").click()  # selects the cell without entering its editor
        self.page.keyboard.press("Escape")
        self.page.keyboard.press("b")
        self._wait(lambda: self.cell_count() == before + 1, 10, "pressing b did not add a cell below the last")
        index = before
        cell = self.cells().nth(index)
        self.page.keyboard.press("Enter")  # edit mode in the new cell
        cell.locator(".cm-editor.cm-focused").wait_for(state="visible", timeout=10_000)
        self.page.keyboard.insert_text(code)
        # innerText doubles empty lines; the editor's own lines are exact.
        typed = cell.locator(".cm-content").evaluate(
            "el => [...el.querySelectorAll('.cm-line')].map(line => line.textContent).join('\\n')"
        )
        if typed.strip() != code.strip():
            raise AssertionError(f"the new cell reads {typed!r}, not the code typed {code!r}")
        return index

    def run_cell(self, index: int, timeout: float = 30.0) -> str:
        """Run cell ``index`` with Shift+Enter (from command mode) and return its output text."""
        after = self.max_execution_count()
        cell = self.cells().nth(index)
        cell.scroll_into_view_if_needed()
        editor = cell.locator(".cm-editor")
        if not editor.evaluate("e => e.classList.contains('cm-focused')"):
            cell.locator(".jp-InputPrompt").click()
            self.page.keyboard.press("Escape")
        self.page.keyboard.press("Shift+Enter")

        def ran():
            m = re.search(r"\[(\d+)\]", cell.locator(".jp-InputPrompt").inner_text())
            return m is not None and int(m.group(1)) > after

        self._wait(ran, timeout, f"cell {index} did not finish running")
        self.wait_kernel_idle(timeout=timeout * 1000)
        return self.output_text(index)

    def output_text(self, index: int) -> str:
        return "\n".join(self.cells().nth(index).locator(".jp-OutputArea-output").all_inner_texts())

    @staticmethod
    def _wait(condition, timeout: float, message: str, interval: float = 0.1):
        deadline = time.monotonic() + timeout
        while True:
            value = condition()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{message} (waited {timeout:g} s)")
            time.sleep(interval)


# -- the widget's canvas ---------------------------------------------------------------------------


@dataclass
class CanvasShot:
    """One read-back of a ``canvas.cw-plot``: its pixels and the plot transform it carries."""

    image: Image.Image  # RGBA, backing-store size
    css_width: float
    css_height: float
    dpr: float  # window.devicePixelRatio
    view_x: float  # canvas' top-left corner in viewport CSS px (what page.mouse takes), when read
    view_y: float
    plot_left: float
    plot_right: float
    plot_top: float
    plot_bottom: float
    t0: float
    t1: float
    y_top: float

    @property
    def scale_x(self) -> float:  # backing px per CSS px, as actually allocated
        return self.image.width / self.css_width

    @property
    def scale_y(self) -> float:
        return self.image.height / self.css_height

    def save(self, stem: Path) -> None:
        """``stem``.png (the backing store) and ``stem``.json (the rest), for looking at a failure later."""
        self.image.save(f"{stem}.png")
        meta = {k: v for k, v in self.__dict__.items() if k != "image"}
        Path(f"{stem}.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, stem: Path) -> CanvasShot:
        meta = json.loads(Path(f"{stem}.json").read_text(encoding="utf-8"))
        return cls(image=Image.open(f"{stem}.png").convert("RGBA"), **meta)

    def css_x(self, t: float) -> float:
        return self.plot_left + (t - self.t0) / (self.t1 - self.t0) * (self.plot_right - self.plot_left)

    def css_y(self, y: float) -> float:
        return self.plot_bottom - y / self.y_top * (self.plot_bottom - self.plot_top)

    def rgb_at(self, css_x: float, css_y: float) -> tuple[int, int, int]:
        return _over_white(self.image.getpixel((int(css_x * self.scale_x), int(css_y * self.scale_y))))

    def find_colour(self, colour: str, css_x: float, css_y: float, dx: float, dy: float, tol: int = 28):
        """Pixels within ``tol`` (max channel difference, composited on white) of ``colour`` in the box
        of half-size dx × dy CSS px around (css_x, css_y); returns their CSS positions."""
        target = hex_rgb(colour)
        sx, sy = self.scale_x, self.scale_y
        x_lo, x_hi = max(0, int((css_x - dx) * sx)), min(self.image.width - 1, int((css_x + dx) * sx))
        y_lo, y_hi = max(0, int((css_y - dy) * sy)), min(self.image.height - 1, int((css_y + dy) * sy))
        hits = []
        px = self.image.load()
        for x in range(x_lo, x_hi + 1):
            for y in range(y_lo, y_hi + 1):
                if max(abs(a - b) for a, b in zip(_over_white(px[x, y]), target)) <= tol:
                    hits.append((x / sx, y / sy))
        return hits

    def column_hits(self, colour: str, css_x: float, tol: int = 28) -> list[float]:
        """CSS y of every pixel of ``colour`` in the column at css_x (for failure messages)."""
        return sorted(
            {round(y, 1) for _, y in self.find_colour(colour, css_x, self.css_height / 2, 0, self.css_height, tol)}
        )


def _over_white(rgba) -> tuple[int, int, int]:
    r, g, b, a = rgba if len(rgba) == 4 else (*rgba, 255)
    return tuple(round(c * a / 255 + 255 * (1 - a / 255)) for c in (r, g, b))


def hex_rgb(colour: str) -> tuple[int, int, int]:
    colour = colour.lstrip("#")
    return tuple(int(colour[i : i + 2], 16) for i in (0, 2, 4))


_READ_CANVAS = """c => {
    const r = c.getBoundingClientRect();
    return {url: c.toDataURL('image/png'), width: c.width, height: c.height, cssWidth: r.width,
            cssHeight: r.height, x: r.left, y: r.top,
            dpr: window.devicePixelRatio, data: {...c.dataset}};
}"""

PLOT_KEYS = ("plotLeft", "plotRight", "plotTop", "plotBottom", "t0", "t1", "yTop")


def read_canvas(canvas_locator) -> CanvasShot:
    raw = canvas_locator.evaluate(_READ_CANVAS)
    missing = [k for k in PLOT_KEYS if k not in raw["data"]]
    if missing:
        raise AssertionError(f"canvas.cw-plot lacks the contract's data-* attributes {missing}; has {raw['data']}")
    image = decode_data_url(raw["url"])
    if (image.width, image.height) != (raw["width"], raw["height"]):
        raise AssertionError(f"toDataURL gave {image.size}, canvas says {raw['width']}x{raw['height']}")
    d = {k: float(raw["data"][k]) for k in PLOT_KEYS}
    return CanvasShot(
        image=image,
        css_width=raw["cssWidth"],
        css_height=raw["cssHeight"],
        dpr=raw["dpr"],
        view_x=raw["x"],
        view_y=raw["y"],
        plot_left=d["plotLeft"],
        plot_right=d["plotRight"],
        plot_top=d["plotTop"],
        plot_bottom=d["plotBottom"],
        t0=d["t0"],
        t1=d["t1"],
        y_top=d["yTop"],
    )


def decode_data_url(url: str) -> Image.Image:
    prefix = "data:image/png;base64,"
    if not url.startswith(prefix):
        raise AssertionError(f"toDataURL did not return a PNG data URL: {url[:40]!r}")
    data = base64.b64decode(url[len(prefix) :])
    assert data.startswith(PNG_SIGNATURE)
    return Image.open(io.BytesIO(data)).convert("RGBA")


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from the IHDR chunk; asserts the PNG signature."""
    if not data.startswith(PNG_SIGNATURE):
        raise AssertionError(f"not a PNG: starts with {data[:8]!r}")
    if data[12:16] != b"IHDR":
        raise AssertionError("PNG without IHDR as its first chunk")
    return struct.unpack(">II", data[16:24])


def wait_for_file(path: Path, timeout: float, what: str) -> bytes:
    """Wait until ``path`` exists with content that stopped growing (or ends with a PNG's IEND chunk)."""
    deadline = time.monotonic() + timeout
    last_size, stable_since = -1, None
    while True:
        if path.exists():
            data = path.read_bytes()
            if data.endswith(b"IEND\xaeB`\x82"):
                return data
            if data and len(data) == last_size:
                if stable_since is not None and time.monotonic() - stable_since > 1.0:
                    return data  # complete but not a PNG: the caller's assertion says so
                stable_since = stable_since or time.monotonic()
            else:
                stable_since = None
            last_size = len(data)
        if time.monotonic() > deadline:
            state = f"{path.stat().st_size} bytes, incomplete" if path.exists() else "absent"
            raise AssertionError(f"{what}: {path} not written within {timeout:g} s ({state})")
        time.sleep(0.1)


def check_each_test(state, request):
    """Around one test of a module-scoped page ``state`` (with ``.lab`` and ``.failed``): artifacts if it
    failed, and a failure if the page logged errors while it ran. Use as the body of an autouse
    fixture: ``yield from check_each_test(state, request)``."""
    mark = state.lab.errors.mark()
    yield
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        state.failed = True
        state.lab.save_failure(request.node.name)
    new = state.lab.errors.new_since(mark)
    if new:
        state.failed = True
        state.lab.save_failure(request.node.name)
        pytest.fail(f"page/console errors during {request.node.name}:\n  " + "\n  ".join(new), pytrace=False)


def module_page(lab: LabPage, setup):
    """The body of a module-scoped page fixture: ``yield from module_page(lab, setup)``.

    ``setup(lab)`` opens and prepares the page and returns the state the module's tests share (with a
    ``failed`` flag they set); a failed setup saves artifacts; the page is closed at the end, its trace
    kept when anything failed.
    """
    failed = True
    try:
        state = setup(lab)
        failed = False
        yield state
        failed = state.failed
    except BaseException:
        lab.save_failure("setup")
        raise
    finally:
        lab.close(failed)


def write_notebook(root_dir: Path, name: str, title: str) -> None:
    """A fresh notebook in the server's (temporary) root: a markdown title cell, the python3 kernel."""
    nb = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": [title]}],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root_dir / name).write_text(json.dumps(nb), encoding="utf-8")


def write_code_notebook(root_dir: Path, name: str, sources: list[str]) -> None:
    """A fresh notebook of code cells (run later with Run All, as a person would), the python3 kernel."""
    cells = [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source}
        for source in sources
    ]
    nb = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root_dir / name).write_text(json.dumps(nb), encoding="utf-8")


def open_with_cell(
    lab: LabPage, jupyter_lab, notebook: str, title: str, cell: str, *, what: str, timeout: float = 60
) -> Notebook:
    """A fresh notebook (``title`` in a markdown cell) opened in ``lab``, its kernel idle, ``cell``
    typed and run; fails naming ``what`` when the cell's output shows an error."""
    write_notebook(jupyter_lab.root_dir, notebook, title)
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(notebook)
    nb.wait_kernel_idle()
    out = nb.run_cell(nb.append_code_cell(cell), timeout=timeout)
    assert "Traceback" not in out and "Error" not in out, f"{what} failed:\n{out}"
    return nb


def drag_range_to(page, slider, target: int) -> tuple[int, int]:
    """Drag a range input's thumb to ``target`` with the mouse; if the drag lands a step or two off (a
    63-step slider is ~2 px per step), nudge with the arrow keys, as a person would. Returns
    (value after the drag, value after nudging)."""
    slider.scroll_into_view_if_needed()
    box = slider.bounding_box()
    state = slider.evaluate("s => ({v: +s.value, min: +s.min, max: +s.max})")
    thumb = 16.0  # Chromium's default range thumb; its centre travels width - thumb

    def x_of(value):
        return box["x"] + thumb / 2 + (value - state["min"]) / (state["max"] - state["min"]) * (box["width"] - thumb)

    y = box["y"] + box["height"] / 2
    page.mouse.move(x_of(state["v"]), y)
    page.mouse.down()
    page.mouse.move(x_of(target), y, steps=6)
    page.mouse.up()
    dragged = int(slider.evaluate("s => +s.value"))
    value = dragged
    for _ in range(8):
        if value == target:
            break
        page.keyboard.press("ArrowRight" if value < target else "ArrowLeft")
        value = int(slider.evaluate("s => +s.value"))
    return dragged, value
