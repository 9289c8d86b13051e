"""Hover linking between the campaign diagram and its bqplot roofline, in real JupyterLab.

Issue: "hovering a phase in the campaign diagram highlights its roofline point, and the reverse".

notebooks/03-roofline.ipynb is opened and run once (Run All); the tests use its first ``Explorer``
(seed 002's three kernels: SAXPY, blocked GEMM, naive GEMM). The Explorer is an HBox of the
diagram (``div.cw-root``) and a ``RooflineView`` whose per-phase points are one bqplot ``Scatter``:
in the DOM one ``g.object_grp > path.dot`` per point, inside the mark's ``<g>``. The scatter's
``hovered_point`` is jslinked (browser side) to the diagram's ``hovered_phase``; the details labels
(the scatter's tooltip, a VBox of 4 ``widget-label``s living in a ``.bqplot_mark_tooltip`` div)
are filled by the kernel from either trait.

Expected styles, colours and spans come from the Python objects under test (an ``Explorer`` built
in the test process: ``points.hovered_style`` / ``unhovered_style`` / ``stroke``, the diagram's
``phase_colors``; ``build_scene`` for where each phase is drawn) and from the canvas' data-* plot
transform, never from hard-coded pixels.
"""

from __future__ import annotations

import numpy as np
import pytest
from labdriver import LabPage, Notebook, check_each_test, hex_rgb, module_page, read_canvas

import campaign_widget as cw
from campaign_widget.figures.scene import build_scene
from campaign_widget.views.explorer import Explorer

pytestmark = pytest.mark.browser

NOTEBOOK = "03-roofline.ipynb"
RENDER_TIMEOUT_MS = 30_000
LINK_TIMEOUT_MS = 10_000
MIN_HOVER_WIDTH_PX = 6  # a phase narrower than this on the canvas cannot be aimed at with the mouse


def seed002_kernels() -> cw.Workload:
    """The notebook's first workload (cell 2), as the model under test builds it."""
    machine = cw.Machine(
        peak_compute=200e9,
        peak_bandwidth=50e9,
        name="seed 002 example",
        ceilings=(cw.Ceiling("no FMA", compute=100e9),),
    )
    n = 2048
    volumes = {"SAXPY": (2 * n, 24 * n), "blocked GEMM": (2 * n**3, 4 * n**3 / 64), "naive GEMM": (2 * n**3, 8 * n**3)}
    speed_of_light = {
        name: max(ops / machine.peak_compute, b / machine.peak_bandwidth) for name, (ops, b) in volumes.items()
    }
    return cw.Workload(
        [cw.Phase(name, ops=ops, bytes=b, duration=speed_of_light[name] / 0.93) for name, (ops, b) in volumes.items()],
        machine=machine,
    )


class Reference:
    """What the Explorer of ``seed002_kernels()`` is, on the Python side."""

    def __init__(self):
        explorer = Explorer(seed002_kernels())
        diagram, points = explorer.diagram, explorer.roofline.points
        self.names = list(diagram.phase_names)
        self.colors = list(diagram.phase_colors)
        self.hovered_style = dict(points.hovered_style)
        self.unhovered_style = dict(points.unhovered_style)
        self.stroke = points.stroke
        self.stroke_width = float(points.stroke_width)
        scene = build_scene(diagram.schedule)
        self.phases = []
        for i, name in enumerate(self.names):
            pieces = np.nonzero(scene.phase == i)[0]
            assert pieces.size == 1, f"phase {name}: expected one piece (no tiling), got {pieces.size}"
            k = int(pieces[0])
            self.phases.append(
                dict(
                    index=i,
                    name=name,
                    colour=self.colors[i],
                    x0=float(scene.x0[k]),
                    x1=float(scene.x1[k]),
                    line_y=float(scene.line_y[k]),
                    top=float(max(scene.well_top[k], scene.fill_top[k])),
                )
            )


# -- the notebook, opened and run once for the module ------------------------------------------------


class Linked:
    def __init__(self, lab: LabPage):
        self.lab, self.page = lab, lab.page
        self.failed = False
        self.explorer = self.page.locator(".widget-hbox:has(.cw-root):has(.bqplot)").first
        self.canvas = self.explorer.locator("canvas.cw-plot")

    def highlighted(self) -> str | None:
        return self.canvas.get_attribute("data-highlighted-phase")

    def wait_highlighted(self, value: str, what: str) -> None:
        try:
            self.page.wait_for_function(
                "([c, v]) => c.dataset.highlightedPhase === v",
                arg=[self.canvas.element_handle(), value],
                timeout=LINK_TIMEOUT_MS,
            )
        except Exception as error:
            raise AssertionError(
                f"{what}: the diagram's canvas data-highlighted-phase is {self.highlighted()!r}, expected {value!r}"
            ) from error

    def point_dots(self, count: int):
        """The phase scatter's ``path.dot``s, in data order: the bqplot mark with ``count`` points (the ridge
        and the aggregate are one-point marks)."""
        marks = self.explorer.evaluate(
            """(e, count) => {
                const groups = new Map();
                for (const dot of e.querySelectorAll('.bqplot g.object_grp > path.dot')) {
                    const mark = dot.parentElement.parentElement;
                    if (!groups.has(mark)) groups.set(mark, groups.size);
                }
                return [...groups.entries()].map(([mark, i]) => mark.querySelectorAll(':scope > g.object_grp').length);
            }""",
            count,
        )
        matching = [i for i, n in enumerate(marks) if n == count]
        assert len(matching) == 1, (
            f"expected one bqplot scatter with {count} points in the first Explorer; "
            f"point counts of its scatter marks: {marks}"
        )
        return matching[0]

    def dot_styles(self, mark: int) -> list[dict]:
        """Computed fill/stroke/opacity/stroke-width of each point of scatter mark ``mark``."""
        return self.explorer.evaluate(
            """(e, mark) => {
                const groups = [];
                for (const dot of e.querySelectorAll('.bqplot g.object_grp > path.dot')) {
                    const m = dot.parentElement.parentElement;
                    if (!groups.includes(m)) groups.push(m);
                }
                return [...groups[mark].querySelectorAll(':scope > g.object_grp > path.dot')].map(d => {
                    const s = getComputedStyle(d);
                    return {fill: s.fill, stroke: s.stroke, opacity: +s.opacity,
                            strokeWidth: parseFloat(s.strokeWidth)};
                });
            }""",
            mark,
        )

    def dot_locator(self, mark: int, index: int):
        return self.explorer.locator(".bqplot g.object_grp > path.dot").nth(self._dot_offset(mark) + index)

    def _dot_offset(self, mark: int) -> int:
        return self.explorer.evaluate(
            """(e, mark) => {
                const groups = []; let offset = 0;
                for (const dot of e.querySelectorAll('.bqplot g.object_grp > path.dot')) {
                    const m = dot.parentElement.parentElement;
                    if (!groups.includes(m)) { groups.push(m); if (groups.length - 1 === mark) return offset; }
                    offset += 1;
                }
                return -1;
            }""",
            mark,
        )

    def details(self, name: str, *, visible: bool | None = None, timeout: float = LINK_TIMEOUT_MS) -> list[str]:
        """The roofline's details labels once they name ``name`` (the tooltip divs live outside the
        Explorer, in bqplot's tooltip container; the one whose first label starts "<name>: OI")."""
        try:
            handle = self.page.wait_for_function(
                """([name, visible]) => {
                    for (const tip of document.querySelectorAll('.bqplot_mark_tooltip')) {
                        const labels = [...tip.querySelectorAll('.widget-label')].map(l => l.textContent);
                        if (labels.length && labels[0].startsWith(name + ': OI')) {
                            const shown = tip.offsetParent !== null && getComputedStyle(tip).display !== 'none';
                            if (visible === null || shown === visible) return labels;
                        }
                    }
                    return false;
                }""",
                arg=[name, visible],
                timeout=timeout,
            )
            return handle.json_value()
        except Exception as error:
            texts = self.page.evaluate(
                "() => [...document.querySelectorAll('.bqplot_mark_tooltip')].map(t => t.textContent).filter(Boolean)"
            )
            raise AssertionError(
                f"no roofline details label reads {name!r}: OI … (visible={visible}); non-empty tooltips: {texts}"
            ) from error


@pytest.fixture(scope="module")
def reference() -> Reference:
    return Reference()


def _open_linked(lab, jupyter_lab) -> Linked:
    nb = Notebook(lab.page, jupyter_lab.url)
    nb.open(NOTEBOOK)
    nb.wait_kernel_idle()
    nb.run_all()
    nb.wait_all_executed(timeout=90_000)
    errors = nb.error_outputs()
    assert not errors, "cells printed errors:\n" + "\n---\n".join(errors)
    state = Linked(lab)
    try:
        state.canvas.wait_for(state="attached", timeout=RENDER_TIMEOUT_MS)
        state.explorer.locator(".bqplot g.object_grp > path.dot").first.wait_for(
            state="attached", timeout=RENDER_TIMEOUT_MS
        )
    except Exception as error:
        raise AssertionError(
            f"the first Explorer (diagram + bqplot roofline) did not render; "
            f"{lab.page.locator('.cw-root').count()} div.cw-root, "
            f"{lab.page.locator('.bqplot').count()} .bqplot on the page"
        ) from error
    state.explorer.scroll_into_view_if_needed()
    lab.page.wait_for_function(
        "c => c.width > 0 && c.dataset.plotLeft !== undefined",
        arg=state.canvas.element_handle(),
        timeout=RENDER_TIMEOUT_MS,
    )
    lab.screenshot("01-after-run-all", full_page=False)
    lab.errors.assert_clean(when="while opening and running notebook 03")
    return state


@pytest.fixture(scope="module")
def linked(open_lab_page, jupyter_lab):
    yield from module_page(open_lab_page("linked"), lambda lab: _open_linked(lab, jupyter_lab))


@pytest.fixture(autouse=True)
def _clean_page(linked, request):
    linked.page.mouse.move(2, 2)  # start and end each test with the mouse off the views
    yield from check_each_test(linked, request)
    linked.page.mouse.move(2, 2)


# -- helpers -------------------------------------------------------------------------------------------


def css_rgb(colour: str) -> str:
    """'#0072B2' or 'black' → the computed-style form 'rgb(0, 114, 178)'."""
    named = {"black": "#000000", "white": "#ffffff"}
    r, g, b = hex_rgb(named.get(colour.lower(), colour))
    return f"rgb({r}, {g}, {b})"


def lighten(colour: str, amount: float) -> str:
    """js/shared/color.js lighten: mix with white."""
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in hex_rgb(colour))


FADE = 0.7  # js/shared/theme.js fadeLighten: the compute line of a phase that is not the highlighted one


def style_problems(styles: list[dict], hovered: int | None, ref: Reference) -> list[str]:
    """What is wrong with the points' computed styles, given which one is hovered (None: none)."""
    problems = []
    for i, s in enumerate(styles):
        where = f"point {i} ({ref.names[i]})"
        if s["fill"] != css_rgb(ref.colors[i]):
            problems.append(f"{where}: fill {s['fill']}, the diagram's phase colour is {ref.colors[i]}")
        if hovered is None:
            want = {"opacity": 1.0, "stroke": css_rgb(ref.stroke), "strokeWidth": ref.stroke_width}
        elif i == hovered:
            want = {
                "opacity": float(ref.hovered_style["opacity"]),
                "stroke": css_rgb(ref.hovered_style["stroke"]),
                "strokeWidth": float(ref.hovered_style["stroke-width"]),
            }
        else:
            want = {
                "opacity": float(ref.unhovered_style["opacity"]),
                "stroke": css_rgb(ref.stroke),
                "strokeWidth": ref.stroke_width,
            }
        for key, value in want.items():
            got = s[key]
            same = abs(got - value) < 1e-6 if isinstance(value, float) else got == value
            if not same:
                problems.append(
                    f"{where}: {key} {got!r}, expected {value!r}"
                    + (
                        " (hovered_style)"
                        if i == hovered
                        else " (unhovered_style)"
                        if hovered is not None
                        else " (no point hovered)"
                    )
                )
    return problems


def wait_styles(linked, mark: int, hovered: int | None, ref: Reference, what: str) -> list[dict]:
    deadline_ms, waited = LINK_TIMEOUT_MS, 0
    while True:
        styles = linked.dot_styles(mark)
        problems = style_problems(styles, hovered, ref)
        if not problems:
            return styles
        if waited >= deadline_ms:
            raise AssertionError(f"{what}:\n  " + "\n  ".join(problems))
        linked.page.wait_for_timeout(100)
        waited += 100


def line_pixels(shot, p, colour: str, tol: int = 24) -> int:
    """Pixels of ``colour`` within 3 CSS px of phase ``p``'s compute line, over its span."""
    x0, x1 = shot.css_x(p["x0"]), shot.css_x(p["x1"])
    mid, half = (x0 + x1) / 2, max(0.5, (x1 - x0) / 2 - 2)
    return len(shot.find_colour(colour, mid, shot.css_y(p["line_y"]), dx=half, dy=3, tol=tol))


def hoverable(shot, ref: Reference) -> list[dict]:
    return [p for p in ref.phases if shot.css_x(p["x1"]) - shot.css_x(p["x0"]) >= MIN_HOVER_WIDTH_PX]


# -- the tests ------------------------------------------------------------------------------------------


def test_diagram_hover_highlights_roofline_point(linked, reference):
    """Hover each phase wide enough to aim at in the diagram: its roofline point takes the hovered
    style, the others the unhovered style, the details labels name it; leaving restores all."""
    ref, page = reference, linked.page
    mark = linked.point_dots(len(ref.names))
    wait_styles(linked, mark, None, ref, "before any hover")
    linked.canvas.scroll_into_view_if_needed()
    shot = read_canvas(linked.canvas)
    targets = hoverable(shot, ref)
    assert len(targets) >= 2, (
        f"fewer than two phases are {MIN_HOVER_WIDTH_PX} px wide on the canvas: "
        f"{[(p['name'], shot.css_x(p['x1']) - shot.css_x(p['x0'])) for p in ref.phases]}"
    )
    # The point colours are the diagram's phase colours, drawn on its canvas at each compute line.
    for p in targets:
        assert line_pixels(shot, p, p["colour"]) >= 10, (
            f"phase {p['name']}'s colour {p['colour']} is not on its compute line in the diagram"
        )

    for p in targets:
        x = shot.view_x + shot.css_x((p["x0"] + p["x1"]) / 2)
        y = shot.view_y + shot.css_y((p["line_y"] + p["top"]) / 2)  # in its memory pipe
        page.mouse.move(x, y, steps=3)
        linked.wait_highlighted(str(p["index"]), f"hovering phase {p['name']} in the diagram")
        styles = wait_styles(
            linked, mark, p["index"], ref, f"hovering phase {p['name']} in the diagram: roofline point styles"
        )
        labels = linked.details(p["name"])
        assert labels[0].startswith(f"{p['name']}: OI"), labels
        if p is targets[-1]:
            linked.lab.screenshot(f"02-diagram-hover-{p['name']}", full_page=False)
        assert styles[p["index"]]["opacity"] > max(s["opacity"] for i, s in enumerate(styles) if i != p["index"])

    page.mouse.move(2, 2)
    linked.wait_highlighted("", "after the mouse left the diagram")
    wait_styles(linked, mark, None, ref, "after the mouse left the diagram: roofline point styles")


def test_roofline_hover_highlights_diagram_phase(linked, reference):
    """Hover each phase's roofline point: the diagram's data-highlighted-phase is its index, the other
    phases' compute lines fade on the canvas, the point shows the hovered style and the details."""
    ref, page = reference, linked.page
    mark = linked.point_dots(len(ref.names))
    linked.canvas.scroll_into_view_if_needed()
    base = read_canvas(linked.canvas)
    linked.wait_highlighted("", "before hovering the roofline")
    visible = hoverable(base, ref)

    for p in ref.phases:
        dot = linked.dot_locator(mark, p["index"])
        dot.scroll_into_view_if_needed()
        box = dot.bounding_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        on_top = page.evaluate(
            "([x, y]) => { const e = document.elementFromPoint(x, y); "
            "return e ? e.tagName + '.' + e.getAttribute('class') : null; }",
            [cx, cy],
        )
        assert on_top == "path.dot element", (
            f"the centre of {p['name']}'s roofline point ({cx:.0f}, {cy:.0f}) is covered by {on_top}"
        )
        page.mouse.move(cx, cy, steps=3)
        linked.wait_highlighted(str(p["index"]), f"hovering {p['name']}'s roofline point")
        wait_styles(linked, mark, p["index"], ref, f"hovering {p['name']}'s roofline point")
        labels = linked.details(p["name"], visible=True)
        assert labels[0].startswith(f"{p['name']}: OI"), labels

        linked.canvas.scroll_into_view_if_needed()
        shot = read_canvas(linked.canvas)
        if p["index"] == len(ref.phases) - 1:
            linked.lab.screenshot(f"03-roofline-hover-{p['name']}", full_page=False)
        assert shot.image.tobytes() != base.image.tobytes(), (
            f"the diagram's pixels did not change while {p['name']}'s roofline point is hovered"
        )
        for q in visible:
            if q is p:
                assert line_pixels(shot, q, q["colour"]) >= 10, (
                    f"{q['name']} is highlighted but its compute line lost its colour {q['colour']}"
                )
            else:
                faded = lighten(q["colour"], FADE)
                assert line_pixels(shot, q, q["colour"]) == 0 and line_pixels(shot, q, faded, tol=12) >= 10, (
                    f"hovering {p['name']}'s point: {q['name']}'s compute line should be faded to {faded}; "
                    f"{line_pixels(shot, q, q['colour'])} px still in {q['colour']}, "
                    f"{line_pixels(shot, q, faded, tol=12)} px in the faded colour"
                )
        page.mouse.move(2, 2)
        linked.wait_highlighted("", f"after leaving {p['name']}'s roofline point")

    wait_styles(linked, mark, None, ref, "after the mouse left the roofline: point styles")
    linked.canvas.scroll_into_view_if_needed()
    after = read_canvas(linked.canvas)
    differing = (np.abs(np.asarray(after.image, dtype=int) - np.asarray(base.image, dtype=int)).max(axis=2) > 8).mean()
    assert differing < 0.001, (
        f"the diagram does not return to its unhighlighted look ({differing:.2%} of pixels differ)"
    )
