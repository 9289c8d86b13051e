"""Static exports a journal accepts: embedded TrueType fonts, editable SVG text, a column-wide
layout whose text stays inside the figure, a dark or light theme on request, a bounded canvas,
capped legends, and numbers written for people."""

import shutil
import subprocess

import numpy as np
import pytest
from matplotlib.text import Text
from PIL import Image
from workloads import chain

from campaign_widget import Phase, Workload, presets
from campaign_widget.errors import CampaignWidgetError, FigureTooLargeError
from campaign_widget.formatting import (
    LEGEND_MAX_ENTRIES,
    format_reading,
    format_span_reading,
    format_speedup,
    legend_selection,
    shorten_middle,
)
from campaign_widget.static_figure import panel_for, render_figure, roofline_panel_for, save_workload_figure
from campaign_widget.static_figure import render as render_module
from campaign_widget.static_figure.legend import legend_entries
from campaign_widget.static_figure.style import THEME


@pytest.fixture(scope="module")
def workload():
    return chain(
        ("attention_softmax", 3, 0.7, 0.6), ("B_projection_long", 10, 0.2, 0.9), ("C", 2, 0.9, 0.95)
    ).with_settings(tiles=4, pipeline=True)


@pytest.mark.skipif(shutil.which("pdffonts") is None, reason="pdffonts (poppler-utils) not installed")
def test_pdf_embeds_truetype_fonts_not_type3(workload, tmp_path):
    path = save_workload_figure(workload, tmp_path / "f.pdf", roofline=True, title="a title")
    listing = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout
    rows = listing.splitlines()[2:]
    assert rows, listing  # some font is embedded
    assert not any("Type 3" in row for row in rows), listing
    assert all("TrueType" in row or "CID" in row for row in rows), listing


def test_svg_keeps_text_as_text(workload, tmp_path):
    svg = save_workload_figure(workload, tmp_path / "f.svg", title="editable title").read_text()
    assert "<text" in svg and "editable title" in svg


@pytest.mark.parametrize("width", [3.3, 3.5])
def test_a_journal_column_export_keeps_every_text_inside_the_figure(workload, width):
    schedule = workload.schedule()
    panel = panel_for(workload, schedule, title="fused + pipelined campaign of the encoder block")
    roof = roofline_panel_for(workload, {"schedule": schedule}, colors=panel.colors)
    fig = render_figure([panel], roofline=roof, width=width, dpi=100).figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    outside = []
    for text in fig.findobj(Text):
        if text.get_visible() and text.get_text():
            box = text.get_window_extent(renderer)
            if box.x0 < -0.5 or box.y0 < -0.5 or box.x1 > fig.bbox.width + 0.5 or box.y1 > fig.bbox.height + 0.5:
                outside.append(text.get_text())
    assert not outside


@pytest.mark.parametrize("options", [{"dpi": 1e5}, {"dpi": 12000}, {"width": 3000}])
def test_a_canvas_beyond_the_bound_is_refused_before_matplotlib_allocates(workload, tmp_path, monkeypatch, options):
    def no_figure(*args, **kwargs):
        raise AssertionError("a Figure was made")

    monkeypatch.setattr(render_module, "Figure", no_figure)
    with pytest.raises(FigureTooLargeError, match=r"px a side") as caught:
        save_workload_figure(workload, tmp_path / "f.png", **options)
    assert isinstance(caught.value, CampaignWidgetError)
    assert not (tmp_path / "f.png").exists()


def test_theme_dark_draws_on_the_dark_background_and_leaves_the_light_one_alone(workload, tmp_path):
    before = dict(THEME)
    dark = np.asarray(Image.open(save_workload_figure(workload, tmp_path / "d.png", theme="dark")).convert("RGB"))
    light = np.asarray(Image.open(save_workload_figure(workload, tmp_path / "l.png")).convert("RGB"))
    assert tuple(dark[2, 2]) == (0x11, 0x11, 0x11) and tuple(light[2, 2]) == (255, 255, 255)
    assert THEME == before  # the theme is the figure's, not the process's
    with pytest.raises(CampaignWidgetError, match="theme='sepia' must be one of 'light', 'dark'"):
        save_workload_figure(workload, tmp_path / "s.png", theme="sepia")


def many_kernels(n=189):
    names = [f"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_{k:03d}>" for k in range(n)]
    return Workload(
        [Phase(name, duration=1 + k % 7, compute_util=0.5, memory_util=0.4) for k, name in enumerate(names)]
    )


def test_a_legend_of_189_kernels_is_capped_and_its_names_shortened(tmp_path):
    w = many_kernels()
    panel = panel_for(w, w.schedule(), title="")
    entries = legend_entries([panel])
    phases = [e for e in entries if e["kind"] == "phase"]
    assert len(phases) == LEGEND_MAX_ENTRIES - 1
    assert {"kind": "more", "label": f"+{189 - len(phases)} more"} in entries
    assert all(len(e["label"]) <= 40 and e["label"].endswith(">") for e in phases)  # the distinguishing end kept
    png = Image.open(save_workload_figure(w, tmp_path / "k.png", dpi=96))
    figure = render_figure([panel], dpi=96)
    plot_bottom = max(ax.get_window_extent().y1 for ax in figure.campaign_axes)
    assert (figure.figure.bbox.height - plot_bottom) / png.size[1] < 0.2  # the diagram is not a legend


def test_shorten_middle_keeps_both_ends():
    name = "void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<float, 128, 64>>::run_128x64_sm80"
    short = shorten_middle(name, 40)
    assert len(short) == 40 and short.startswith("void cutlass") and short.endswith("run_128x64_sm80")
    assert "…" in short and shorten_middle("short") == "short"
    assert legend_selection([5, 1, 9, 3], 3) == ([0, 2], 2)  # the two heaviest, in order, two summarized
    assert legend_selection([1, 2], 3) == ([0, 1], 0)


def test_numbers_people_read():
    assert format_reading(5.24288e-06, "s") == "5.24 µs"
    assert format_reading(0.000134374, "s") == "134 µs"
    assert format_reading(0.0021, "s", end=0.5) == "2.1 ms"  # the unit of the axis beside it
    assert format_reading(11.25, "s") == "11.2 s"
    assert format_reading(2.56e13, "FLOP/s") == "25.6 TFLOP/s"
    assert format_span_reading(0.0008, 0.0112, "s") == "0.8–11.2 ms"
    assert format_speedup(0.04) == "25× slower"
    assert format_speedup(2.5) == "2.5× faster"
    assert format_speedup(1.0) == "same time"


def test_the_static_layout_is_the_live_views(workload):
    """js/diagram/layout.js: the title over the plot, then tick labels, x label, legend, and the readout
    (makespan first) under the legend; the time ticks are js/shared/ticks.js's for the plot's width."""
    from campaign_widget.figures.ticks import time_ticks
    from campaign_widget.formatting import time_unit_for

    schedule = workload.schedule()
    panel = panel_for(workload, schedule, title="a title")
    rendered = render_figure([panel], width=8, dpi=96)
    fig = rendered.figure
    fig.canvas.draw()

    def top_of(gid):
        (text,) = [t for t in fig.findobj(Text) if t.get_gid() == gid]
        return fig.bbox.height - text.get_window_extent().y1  # px from the top

    (ax,) = rendered.campaign_axes
    plot = ax.get_window_extent()
    legend = max(
        fig.bbox.height - t.get_window_extent().y0 for t in fig.findobj(Text) if t.get_gid() == "cw-legend-label"
    )
    assert top_of("cw-title") < fig.bbox.height - plot.y1  # above the plot
    assert top_of("cw-makespan") > legend  # under the legend
    factor, _ = time_unit_for("s", panel.time_end)
    want = time_ticks(0, panel.time_end, plot.width, factor)
    assert [label.get_text() for label in ax.get_xticklabels()] == [label for _, label in want]


def test_a_png_request_carries_the_theme_asked(tmp_path):
    from campaign_widget.views.browser_png import PngChannel

    published = []
    channel = PngChannel(published.append)
    channel.request(tmp_path / "a.png", 2, None)
    channel.request(tmp_path / "b.png", 1, None, theme="light")
    assert [{k: v for k, v in r.items() if k != "id"} for r in published[-1]] == [
        {"scale": 2.0},  # no theme asked: the view draws in the one it shows
        {"scale": 1.0, "theme": "light"},
    ]
    with pytest.raises(CampaignWidgetError, match="theme='sepia' must be one of 'light', 'dark' or None"):
        channel.request(tmp_path / "c.png", 1, None, theme="sepia")


def long_dataflow():
    from campaign_widget.views.dataflow import DataflowView

    chain_of = {f"step{k}": f"T{k + 1}[i,j] = T{k}[i,j] * W{k}[j]" for k in range(12)}
    machine = presets.machine("h100-sxm")
    w = Workload.from_einsums(chain_of, {"i": "N", "j": "N"}, params={"N": 1024}, machine=machine)
    return DataflowView(w, overlay="bytes")


def test_a_long_dataflow_export_folds_to_a_page_and_no_edge_label_overprints_another(tmp_path):
    from campaign_widget.static_figure.dataflow_plot import PAGE_WIDTH, render_dataflow, save_dataflow
    from campaign_widget.views.dataflow import style_arrays

    view = long_dataflow()
    graph, layout, scale = view.dataflow, view.graph_layout, view.current_scale()
    assert layout.bounds[2] - layout.bounds[0] > 2 * PAGE_WIDTH * 96  # a graph wider than two pages
    fig, _ = render_dataflow(graph, layout, style_arrays(view.workload, graph, scale), scale.legend)
    assert fig.get_size_inches()[0] <= PAGE_WIDTH + 0.01 and len(fig.axes) > 2  # rows, and the colour bar
    fig.canvas.draw()
    for ax in fig.axes:
        boxes = [t.get_window_extent() for t in ax.texts if t.get_text().endswith("B")]
        for a in range(len(boxes)):
            for b in range(a):
                assert not boxes[a].overlaps(boxes[b]), (ax.texts[a].get_text(), ax.texts[b].get_text())
    named = {t.get_text() for ax in fig.axes for t in ax.texts}
    assert {"step0", "step11", "T0", "T12"} <= named  # every row draws its names
    dark = save_dataflow(
        tmp_path / "d.png", graph, layout, style_arrays(view.workload, graph, scale), scale.legend, theme="dark"
    )
    assert tuple(np.asarray(Image.open(dark).convert("RGB"))[1, 1]) == (0x11, 0x11, 0x11)
    with pytest.raises(FigureTooLargeError):
        save_dataflow(tmp_path / "big.png", graph, layout, style_arrays(view.workload, graph, scale), {}, dpi=12000)


def test_a_panel_takes_the_views_plot_height(workload):
    schedule = workload.schedule()
    rendered = render_figure([panel_for(workload, schedule, plot_height=360)], width=8, dpi=96)
    (ax,) = rendered.campaign_axes
    assert ax.get_window_extent().height == pytest.approx(360, abs=1)
    with pytest.raises(ValueError, match="plot_height=-1"):
        panel_for(workload, schedule, plot_height=-1)
