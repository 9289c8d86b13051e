"""The static exporter (campaign_widget/static_figure.py): valid files, the right colours at the
places the scene predicts, warnings only when oversubscribed, literal user text, the roofline's
geometry, and speed on 10^5 pieces."""

import re
import shutil
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image
from workloads import THEME_FILE, chain, figure_2b, theme_color, two_phases, warning_pixels
from workloads import hex_rgb as rgb

from campaign_widget import Ceiling, Machine, Phase, Workload
from campaign_widget.figures.phase_colours import phase_colors
from campaign_widget.figures.scene import build_scene
from campaign_widget.formatting import format_percent, format_quantity, format_si, format_span
from campaign_widget.static_figure import (
    Panel,
    RooflinePanel,
    draw_campaign,
    lighten,
    panel_for,
    readout_lines,
    render_figure,
    roofline_panel_for,
    save_workload_figure,
    savefig,
)

P, BW = 200e9, 50e9  # seed 002's example machine


def png_pixels(path):
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"), dtype=float)


def window(img, col, row, radius=2):
    r, c = int(round(row)), int(round(col))
    return img[max(0, r - radius) : r + radius + 1, max(0, c - radius) : c + radius + 1].reshape(-1, 3)


def has_color(img, col, row, color, tolerance=14.0, radius=2):
    """Some pixel within ``radius`` of (col, row) is within ``tolerance`` of ``color`` (each channel)."""
    assert 0 <= col < img.shape[1] and 0 <= row < img.shape[0], f"({col:.0f}, {row:.0f}) is off the image"
    return bool(np.any(np.all(np.abs(window(img, col, row, radius) - rgb(color)) <= tolerance, axis=1)))


# -- files ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def example_panel():
    w = figure_2b()
    return panel_for(w, w.schedule(), title="Figure 2b: three phases, measured")


def test_png_is_a_png_of_width_times_dpi(example_panel, tmp_path):
    path = savefig(tmp_path / "fig.png", [example_panel], width=6.5, dpi=150)
    assert path == tmp_path / "fig.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(path) as im:
        im.load()
        assert im.format == "PNG"
        assert im.size[0] == round(6.5 * 150)
        assert 0.25 * im.size[0] < im.size[1] < im.size[0]  # a landscape figure, not a sliver


def test_svg_parses_with_an_svg_root(example_panel, tmp_path):
    path = savefig(tmp_path / "fig.svg", [example_panel])
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg") and "<svg" in path.read_text(encoding="utf-8")
    assert float(root.get("width").removesuffix("pt")) == pytest.approx(8.0 * 72)


def test_pdf_has_header_and_trailer(example_panel, tmp_path):
    path = savefig(tmp_path / "fig.PDF", [example_panel])  # the suffix is case-insensitive
    data = path.read_bytes()
    assert data.startswith(b"%PDF-")
    assert data.rstrip().endswith(b"%%EOF")
    # rasterize it: one page, 8 in wide, with the phase colours on it
    assert shutil.which("pdftoppm"), "pdftoppm is missing: apt-get install poppler-utils (.ci/run does)"
    subprocess.run(
        ["pdftoppm", "-png", "-r", "50", "-singlefile", str(path), str(tmp_path / "page")],
        check=True,
        capture_output=True,
    )
    img = png_pixels(tmp_path / "page.png")
    assert img.shape[1] == 400
    for color in example_panel.colors[:3]:
        assert np.any(np.all(np.abs(img - rgb(color)) <= 12, axis=2)), color
    # its page is 8 in wide: the MediaBox in points (matplotlib writes one, uncompressed)
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([0-9.]+)\s+([0-9.]+)\s*\]", data)
    assert len(boxes) == 1 and float(boxes[0][0]) == pytest.approx(8.0 * 72)


@pytest.mark.parametrize("name", ["fig.jpg", "fig", "fig.png.txt", "fig.eps"])
def test_other_suffixes_are_refused_before_drawing(example_panel, tmp_path, name):
    with pytest.raises(ValueError) as info:
        savefig(tmp_path / name, [example_panel])
    message = str(info.value)
    assert repr((tmp_path / name).suffix) in message
    assert all(s in message for s in (".png", ".svg", ".pdf"))
    assert not (tmp_path / name).exists()
    with pytest.raises(ValueError, match="unknown suffix"):
        save_workload_figure(figure_2b(), tmp_path / name)


def test_exports_are_deterministic(example_panel, tmp_path):
    # (SVG clip-path ids are random unless the global rcParams["svg.hashsalt"] is set, which this
    # module never touches.)
    for suffix in (".png", ".pdf"):
        a = savefig(tmp_path / f"a{suffix}", [example_panel]).read_bytes()
        b = savefig(tmp_path / f"b{suffix}", [example_panel]).read_bytes()
        assert a == b, suffix


# -- pixels where the model puts them -------------------------------------------------------------


def test_each_phase_colour_is_where_the_scene_puts_it_and_nowhere_else(example_panel, tmp_path):
    scene = example_panel.scene
    rendered = render_figure([example_panel], dpi=100)
    img = png_pixels(rendered.save(tmp_path / "fig.png"))
    ax = rendered.campaign_axes[0]
    assert len(scene) == 3 and list(scene.phase) == [0, 1, 2]

    def spots(i):
        """The compute line's centre and the memory fill's centre of piece i, in PNG pixels."""
        mid = (scene.x0[i] + scene.x1[i]) / 2
        fill_mid = (scene.line_y[i] + min(scene.fill_top[i], scene.well_top[i])) / 2
        return rendered.pixel(ax, mid, scene.line_y[i]), rendered.pixel(ax, mid, fill_mid)

    for i in range(3):
        line_color = example_panel.colors[scene.phase[i]]
        fill_color = lighten(line_color, THEME_FILE["theme"]["fillLighten"])
        (lc, lr), (fc, fr) = spots(i)
        assert has_color(img, lc, lr, line_color), f"phase {i}'s compute line missing"
        assert has_color(img, fc, fr, fill_color), f"phase {i}'s memory fill missing"
        for j in range(3):
            if j == i:
                continue
            (oc, orow), (ofc, ofr) = spots(j)
            assert not has_color(img, oc, orow, line_color, radius=3), f"phase {i}'s colour at phase {j}"
            assert not has_color(img, ofc, ofr, fill_color, radius=3)
    # the well above B's fill is grey (unused bandwidth), and the space above A's guard rail is white
    mid_b = (scene.x0[1] + scene.x1[1]) / 2
    grey_y = (scene.fill_top[1] + scene.well_top[1]) / 2
    assert has_color(img, *rendered.pixel(ax, mid_b, grey_y), theme_color("well"), radius=0)
    above = (scene.well_top[0] + 1.0) / 2
    assert has_color(img, *rendered.pixel(ax, 1.0, above), theme_color("background"), tolerance=2, radius=0)


def test_vertical_grid_stops_at_one(tmp_path):
    w = two_phases()  # pipelined without a policy: A's spill pokes above 1.0, so the plot does too
    panel = panel_for(w, w.schedule(tiles=4, pipeline=True, policy="none"))
    rendered = render_figure([panel], dpi=100)
    img = png_pixels(rendered.save(tmp_path / "fig.png"))
    ax = rendered.campaign_axes[0]
    top = ax.get_ylim()[1]
    assert top == pytest.approx(panel.scene.y_max * 1.04) and panel.scene.y_max > 1.0
    x = 8.0  # a time tick where only B runs; its pipe ends at 0.45
    assert 8.0 in list(ax.get_xticks())
    assert has_color(img, *rendered.pixel(ax, x, 0.75), theme_color("grid"), tolerance=6, radius=1)
    assert not has_color(img, *rendered.pixel(ax, x, (1.0 + top) / 2), theme_color("grid"), tolerance=6, radius=1)
    assert has_color(img, *rendered.pixel(ax, x, (1.0 + top) / 2), theme_color("background"), tolerance=1, radius=0)
    assert max(float(t) for t in ax.get_yticks()) == 1.0  # ticks only up to 1.0, pipes above it


def test_dilated_time_is_dashed_and_the_rest_solid(tmp_path):
    w = two_phases()
    panel = panel_for(w, w.schedule(tiles=4, pipeline=True, policy="dilate+throttle"))
    scene = panel.scene
    rendered = render_figure([panel], dpi=200)
    img = png_pixels(rendered.save(tmp_path / "fig.png"))
    ax = rendered.campaign_axes[0]
    # A's first stacked tile: solid for its own 0.75 s, dashed for the time dilation added
    i = int(np.flatnonzero((scene.phase == 0) & (scene.base_y > 0))[0])
    x0, x1, dash = scene.x0[i], scene.x1[i], scene.dash_from[i]
    assert x0 < dash < x1

    def coverage(a, b):
        xs = np.linspace(a, b, 60)[3:-3]
        cols, rows = rendered.pixel(ax, xs, np.full(xs.size, scene.line_y[i]))
        hits = [has_color(img, c, r, phase_colors(w.names)[0], tolerance=20, radius=0) for c, r in zip(cols, rows)]
        return np.mean(hits)

    assert coverage(x0, dash) > 0.95
    assert 0.3 < coverage(dash, x1) < 0.85  # 5 px on, 3 px off


# -- oversubscription -----------------------------------------------------------------------------


@pytest.mark.parametrize("policy, oversubscribed", [("none", True), ("dilate+throttle", False)])
def test_warning_red_only_when_oversubscribed(tmp_path, policy, oversubscribed):
    w = two_phases()
    panel = panel_for(w, w.schedule(tiles=4, pipeline=True, policy=policy))
    scene = panel.scene
    rendered = render_figure([panel], dpi=100)
    img = png_pixels(rendered.save(tmp_path / "fig.png"))
    ax = rendered.campaign_axes[0]
    spills = np.flatnonzero(scene.fill_top > scene.well_top)
    red = warning_pixels(img)
    if not oversubscribed:
        assert spills.size == 0 and scene.over_t0.size == 0
        assert not red.any(), "warning red drawn for a feasible schedule"
        return
    assert scene.over_demand.max() == pytest.approx(1.5)
    assert spills.size == 3
    expected = np.zeros(red.shape, bool)
    for i in spills:  # the hatched spill, exactly over each oversubscribed piece
        (c0, r0), (c1, r1) = (
            rendered.pixel(ax, scene.x0[i], scene.fill_top[i]),
            rendered.pixel(ax, scene.x1[i], scene.well_top[i]),
        )
        box = red[int(r0) + 1 : int(r1), int(c0) + 1 : int(c1)]
        assert box.size and box.mean() > 0.1, f"no hatch over piece {i}"
        expected[max(0, int(r0) - 2) : int(r1) + 3, max(0, int(c0) - 2) : int(c1) + 3] = True
    # and nowhere else in the plot
    c0, r_top = rendered.pixel(ax, 0.0, ax.get_ylim()[1])
    c1, r_zero = rendered.pixel(ax, scene.x_max, 0.0)
    plot = np.zeros(red.shape, bool)
    plot[int(r_top) : int(r_zero), int(c0) : int(c1)] = True
    assert not (red & plot & ~expected).any()
    text = " ".join(line for line, _ in readout_lines(panel))
    assert "memory oversubscribed: up to 150% demand in 3 intervals, 0.75–6.5 s" in text


def test_compute_above_one_is_a_red_line(tmp_path):
    w = chain(("A", 2, 0.8, 0.1), ("B", 4, 0.6, 0.1))
    panel = panel_for(w, w.schedule(tiles=2, pipeline=True, policy="none"))
    scene = panel.scene
    over = np.flatnonzero(scene.flags & 1)
    assert over.size
    rendered = render_figure([panel], dpi=100)
    img = png_pixels(rendered.save(tmp_path / "fig.png"))
    ax = rendered.campaign_axes[0]
    for i in over:
        mid = (scene.x0[i] + scene.x1[i]) / 2
        assert has_color(img, *rendered.pixel(ax, mid, scene.line_y[i]), theme_color("warning"), tolerance=20)


# -- text is data ---------------------------------------------------------------------------------


def test_user_text_is_drawn_literally_not_as_mathtext_or_markup(tmp_path):
    name = "$\\alpha$ <b>x</b>"
    w = Workload(
        [
            Phase(name, duration=3, compute_util=0.7, memory_util=0.25),
            Phase("a_b^c", duration=2, compute_util=0.3, memory_util=0.6, after=[name]),
        ]
    )
    path = save_workload_figure(w, tmp_path / "fig.svg", title="$x$ & a_b^c", roofline=True)
    svg = path.read_text(encoding="utf-8")
    ET.fromstring(svg)  # still well-formed: the markup in the name is escaped
    assert "$\\alpha$ &lt;b&gt;x&lt;/b&gt;" in svg
    assert "<b>x</b>" not in svg
    assert "$x$ &amp; a_b^c" in svg
    # kept as text, character for character (mathtext would draw "$\alpha$" as one glyph, α)
    texts = ["".join(e.itertext()) for e in ET.fromstring(svg).iter() if e.tag.endswith("}text")]
    assert name in texts


# -- layout ---------------------------------------------------------------------------------------


def test_stacked_panels_share_the_time_axis_and_keep_phase_colours(tmp_path):
    w = two_phases()
    seq, pipe = w.schedule(), w.schedule(tiles=4, pipeline=True, policy="dilate+throttle")
    panels = [panel_for(w, seq, title="sequential"), panel_for(w, pipe, title="pipelined")]
    rendered = render_figure(panels, roofline=roofline_panel_for(w, {"sequential": seq, "pipelined": pipe}))
    top, bottom = rendered.campaign_axes
    assert top.get_xlim() == bottom.get_xlim() == (0.0, 13.0)
    assert top.get_position().y0 > bottom.get_position().y1  # stacked top to bottom
    assert rendered.roofline_axes.get_position().x0 > top.get_position().x1  # roofline on the right
    assert top.get_position().x0 == pytest.approx(bottom.get_position().x0)
    path = rendered.save(tmp_path / "stack.png")
    with Image.open(path) as im:
        assert im.size[0] == 1600
    texts = [t.get_text() for t in rendered.figure.findobj(lambda a: hasattr(a, "get_text"))]
    assert "sequential" in texts and "pipelined" in texts
    assert "makespan 13 s" in texts and "makespan 11.35 s" in texts


def test_fusion_groups_are_bands_with_labels(tmp_path):
    m = Machine(P, BW)
    w = Workload(
        [
            Phase("QK", ops=4e10, reads=[("Q", 2e9), ("K", 2e9)], writes=[("S", 4e9)]),
            Phase("softmax", ops=2e9, reads=[("S", 4e9)], writes=[("P", 4e9)], after=["QK"]),
            Phase("PV", ops=4e10, reads=[("P", 4e9), ("V", 2e9)], writes=[("O", 2e9)], after=["softmax"]),
            Phase("proj", ops=3e10, reads=[("O", 2e9), ("W", 1e9)], writes=[("Y", 2e9)], after=["PV"]),
        ],
        machine=m,
    ).fuse({"attention": ["QK", "softmax", "PV"]})
    panel = panel_for(w, w.schedule(), title="fused")
    scene = panel.scene
    assert list(panel.group_labels) == ["attention"] and scene.group_t0.size == 1
    rendered = render_figure([panel], dpi=100)
    ax = rendered.campaign_axes[0]
    assert "attention" in [t.get_text() for t in ax.texts]
    img = png_pixels(rendered.save(tmp_path / "fused.png"))
    top = ax.get_ylim()[1]
    band = rgb(theme_color("background")) * (1 - 0.045)  # theme groupBand: rgba(0, 0, 0, 0.045)
    inside = (scene.group_t0[0] + scene.group_t1[0]) / 2
    col, row = rendered.pixel(ax, inside, top * 0.995)
    assert np.all(np.abs(window(img, col, row, 0) - band) <= 2)
    past = (scene.group_t1[0] + scene.x_max) / 2  # proj, outside the group: no band above it
    assert has_color(img, *rendered.pixel(ax, past, top * 0.995), theme_color("background"), tolerance=1, radius=0)


def test_a_narrow_figure_puts_the_roofline_below():
    w = two_phases()
    s = w.schedule()
    rendered = render_figure([panel_for(w, s)], roofline=roofline_panel_for(w, {"sequential": s}), width=3.5)
    diagram, roof = rendered.campaign_axes[0].get_position(), rendered.roofline_axes.get_position()
    assert roof.y1 < diagram.y0 and roof.width > 0.6 and diagram.width > 0.6
    wide = render_figure([panel_for(w, s)], roofline=roofline_panel_for(w, {"sequential": s}), width=8)
    assert wide.roofline_axes.get_position().x0 > wide.campaign_axes[0].get_position().x1


def test_time_max_extends_the_axis():
    w = two_phases()
    panel = panel_for(w, w.schedule(), time_max=20.0)
    rendered = render_figure([panel])
    assert rendered.campaign_axes[0].get_xlim() == (0.0, 20.0)


def test_absolute_axis_labels_peaks_in_units():
    w = figure_2b().with_machine(Machine(P, BW))
    panel = panel_for(w, w.schedule(), y_axis="absolute")
    ax = render_figure([panel]).campaign_axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == "200 GFLOP/s" and float(ax.get_yticks()[-1]) == 1.0
    assert ax.get_ylabel() == "compute (FLOP/s)"


def test_draw_campaign_onto_any_axes():
    from matplotlib.figure import Figure

    w = figure_2b()
    fig = Figure(figsize=(6, 3))
    ax = fig.add_axes([0.15, 0.3, 0.8, 0.5])
    draw_campaign(ax, panel_for(w, w.schedule()), legend=False)
    assert ax.get_xlim() == (0.0, 15.0)
    with pytest.raises(ValueError, match="y_axis"):
        Panel(scene=build_scene(w.schedule()), names=w.names, colors=["#000000"] * 3, y_axis="log")


def test_labels_read_as_in_the_browser():
    assert format_quantity(10.75, "s", 6) == "10.75 s"
    assert format_si(2.56e13, "FLOP/s") == "25.6 TFLOP/s"
    assert format_percent(1.5) == "150%" and format_percent(0.071) == "7.1%"
    assert format_span(0.75, 6.5) == "0.75–6.5"
    assert lighten("#0072B2", 0.35) == "#59a3cd"  # js/shared/color.js: Math.round(c + (255 - c) * 0.35)


# -- roofline -------------------------------------------------------------------------------------


def seed_002_kernels():
    """Seed 002's SAXPY, blocked GEMM and naive GEMM (n = 1024) on 200 GFLOP/s, 50 GB/s."""
    n = 1024
    m = Machine(P, BW, name="seed 002", ceilings=(Ceiling("no SIMD", compute=50e9),))
    return Workload(
        [
            Phase("saxpy", ops=2 * n, bytes=24 * n, duration=2 * n / 3e9),
            Phase("gemm blocked", ops=2 * n**3, bytes=4 * n**3 / 64, duration=2 * n**3 / 180e9),
            Phase("gemm naive", ops=2 * n**3, bytes=8 * n**3, duration=2 * n**3 / 10e9),
        ],
        machine=m,
    )


def test_roofline_roofs_and_ridge_at_4(tmp_path):
    rp = RooflinePanel(peak_compute=P, peak_bandwidth=BW)
    assert rp.ridge == 4
    rendered = render_figure([], roofline=rp, dpi=100)
    ax = rendered.roofline_axes
    assert ax.get_xscale() == ax.get_yscale() == "log"
    (ridge,) = [a for a in ax.get_lines() if a.get_gid() == "ridge"]
    assert list(ridge.get_xdata()) == [4.0, 4.0] and max(ridge.get_ydata()) == P
    (roof,) = [a for a in ax.get_lines() if a.get_gid() == "roof"]
    xs, ys = np.asarray(roof.get_xdata()), np.asarray(roof.get_ydata())
    np.testing.assert_allclose(ys, np.minimum(P, BW * xs))
    assert 4.0 in xs and ys[xs >= 4].tolist() == [P] * int((xs >= 4).sum())

    img = png_pixels(rendered.save(tmp_path / "roof.png"))
    dark = "#333333"
    assert has_color(img, *rendered.pixel(ax, 40.0, P), dark, tolerance=30)  # flat roof right of the ridge
    assert has_color(img, *rendered.pixel(ax, 0.4, BW * 0.4), dark, tolerance=30)  # slanted roof
    assert not has_color(img, *rendered.pixel(ax, 0.4, P), dark, tolerance=60)  # no flat roof left of it
    assert not has_color(img, *rendered.pixel(ax, 40.0, BW * 40.0 / 20), dark, tolerance=60)
    col, row = rendered.pixel(ax, 4.0, P)  # the ridge point at x = 4, and its dotted line below
    assert has_color(img, col, row, dark, tolerance=30, radius=0)
    col, row = rendered.pixel(ax, 4.0, np.sqrt(P * ax.get_ylim()[0]))
    assert has_color(img, col, row, dark, tolerance=60, radius=4)
    assert not has_color(img, *rendered.pixel(ax, 8.0, np.sqrt(P * ax.get_ylim()[0])), dark, tolerance=60)
    texts = [t.get_text() for t in ax.texts]
    assert "ridge 4 FLOP/B" in texts and "200 GFLOP/s" in texts


def test_roofline_points_ceilings_and_aggregates():
    w = seed_002_kernels()
    schedule = w.schedule()
    rp = roofline_panel_for(w, {"sequential": schedule})
    np.testing.assert_allclose(rp.intensity, [1 / 12, 32, 0.25])
    np.testing.assert_allclose(rp.share, w.arrays.duration / w.arrays.duration.sum())
    assert rp.aggregates[0][0] == "sequential"
    assert rp.aggregates[0][2] == pytest.approx(w.arrays.ops.sum() / schedule.makespan)
    ax = render_figure([panel_for(w, schedule)], roofline=rp).roofline_axes
    (points,) = [c for c in ax.collections if c.get_gid() == "phase-points"]
    sizes = np.asarray(points.get_sizes())
    order = np.argsort(-rp.share, kind="stable")
    np.testing.assert_allclose(sizes / sizes.max(), rp.share[order] / rp.share.max())  # area ∝ share
    np.testing.assert_allclose(points.get_offsets()[:, 1], rp.achieved[order])
    assert "no SIMD" in [t.get_text() for t in ax.texts]
    assert [a for a in ax.get_lines() if a.get_gid() == "aggregate-point"]
    assert "sequential" in [t.get_text() for t in ax.texts]


def test_save_workload_figure_with_roofline(tmp_path):
    w = seed_002_kernels()
    path = save_workload_figure(w, tmp_path / "w.png", tiles=4, roofline=True, dpi=80)
    with Image.open(path) as im:
        assert im.size[0] == 640
    path = save_workload_figure(w, tmp_path / "w.pdf", title="")
    assert path.read_bytes().startswith(b"%PDF-")


# -- robustness -----------------------------------------------------------------------------------


def test_a_hundred_thousand_pieces_export_merged_per_pixel(tmp_path):
    # Speed is measured by benchmarks/bench_model.py (static export rows), not asserted here.
    # Pieces narrower than a pixel at the figure's dpi are merged per pixel column and phase, as
    # the browser view does; without that merge the SVG was 40 MB.
    w = chain(("A", 3, 0.7, 0.6), ("B", 10, 0.2, 0.9), ("C", 5, 0.3, 0.3))
    schedule = w.schedule(tiles=26_000, pipeline=True, policy="none")
    panel = panel_for(w, schedule)
    assert len(panel.scene) >= 100_000
    rendered = render_figure([panel])
    path = rendered.save(tmp_path / "big.png")
    img = png_pixels(path)
    ax = rendered.campaign_axes[0]
    # mid-run, A's and B's merged pieces are both drawn in the column at the middle of the schedule
    col = int(round(rendered.pixel(ax, schedule.makespan / 2, 0.5)[0]))
    column = img[:, col - 1 : col + 2].reshape(-1, 3).astype(float)
    for color in phase_colors(w.names)[:2]:
        assert np.any(np.all(np.abs(column - rgb(color)) <= 14, axis=1)), f"{color} missing mid-run"
    assert warning_pixels(img).any()
    svg = savefig(tmp_path / "big.svg", [panel])
    assert svg.stat().st_size < 20e6


def test_threads_export_side_by_side(example_panel, tmp_path):
    errors = []

    def export(k):
        try:
            savefig(tmp_path / f"t{k}.png", [example_panel], dpi=60)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=export, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    sizes = {Image.open(tmp_path / f"t{k}.png").size for k in range(4)}
    assert len(sizes) == 1 and next(iter(sizes))[0] == 480


def test_no_pyplot_no_global_state(tmp_path):
    code = (
        "import matplotlib, sys\n"
        "raw = lambda: dict(dict.items(matplotlib.rcParams))  # reading 'backend' would import pyplot\n"
        "before = raw()\n"
        "from campaign_widget.static_figure import save_workload_figure\n"
        "from campaign_widget import Phase, Workload\n"
        "w = Workload([Phase('A', duration=1, compute_util=.5, memory_util=.5)])\n"
        f"save_workload_figure(w, {str(tmp_path / 'x.png')!r}, roofline=True)\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
        "assert raw() == before\n"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=str(tmp_path.parent),
        env={**__import__("os").environ, "PYTHONPATH": str(__import__("pathlib").Path(__file__).parents[1])},
    )


def test_nothing_to_draw_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="nothing to draw"):
        savefig(tmp_path / "x.png", [])


def test_a_figure_of_thousands_of_phases_draws_a_few_artists_not_one_per_phase():
    # issue 31: a 5,000-phase chain took 8 s, an artist (and a text measurement) per phase; the
    # browser batches per style, and so must the figure: its artist count does not grow with the phases.
    def artists(n):
        w = chain(*[(f"p{i}", 1.0 + i % 7, 0.2 + (i % 5) / 10, 0.3 + (i % 3) / 5) for i in range(n)])
        ax = render_figure([panel_for(w, w.schedule(tiles=2, pipeline=True, policy="dilate+throttle"))]).campaign_axes[
            0
        ]
        return len(ax.get_children())

    few, many = artists(40), artists(2000)
    assert many <= few + 5, (few, many)
