// The anywidget view of a campaign diagram. Python computes the scene; this view draws it, and
// owns hover, zoom and pan. See js/diagram/CONTRACT.md.
import { canvasPlot } from "../shared/canvas-plot.js";
import { element } from "../shared/dom.js";
import { attachPngExport, renderPng } from "../shared/export.js";
import { themeColours } from "../shared/page-theme.js";
import { CSS } from "../shared/styles.js";
import { THEME } from "../shared/theme.js";
import { tooltipContent } from "../shared/tooltip.js";
import { fullDomain, panBy, sameZoom, visibleDomain, zoomAfterDomainChange, zoomAround, zoomFromWindow } from "../shared/zoom.js";
import { mountView } from "../shared/view-shell.js";
import { DETAIL_LIMIT, piecesToDraw } from "./aggregate.js";
import { createControls } from "./controls.js";
import { drawFigure } from "./draw.js";
import { readFigure } from "./figure.js";
import { hitTest } from "./hit.js";
import { attachPlotInteraction } from "./interaction.js";
import { layoutFigure } from "./layout.js";
import { RASTER_LIMIT } from "./raster.js";
import { createReadout } from "./readout.js";
import { createZoomSharing } from "./zoom-sharing.js";

// Traits the figure is drawn from. Not the controls the kernel answers with a new scene (tiles,
// peaks, …): redrawing on the view's own write would draw the old scene once more; the scene
// carries the values it was computed for, so each change draws once, when its scene arrives.
const FIGURE_TRAITS = [
  "scene", "phase_names", "phase_colors", "phase_table", "resource_names", "units", "makespan",
  "warnings", "readout_lines", "legend_features", "y_axis", "title", "height", "time_max", "fusion_groups",
];
const CONTROL_TRAITS = [
  "peak_compute", "peak_bandwidth", "peak_compute_range", "peak_bandwidth_range", "tiles",
  "tiles_max", "pipeline", "policy", "policies", "stepping", "depth", "y_axis", "show_controls", "units",
  "params", "param_ranges", "level", "levels",
];
const DEFAULT_PLOT_HEIGHT = 320;
const HOVER_TOLERANCE_PX = 4;

function render({ model, el }) {
  return mountView({ model, el, className: "cw-root", css: CSS }, setup);
}

function setup(view) {
  const { model, document, window, root, writer } = view;

  // DOM: header (controls + toolbar), plot (canvas + tooltip), readout.
  const header = element(document, "div", "cw-header");
  const toolbar = element(document, "div", "cw-toolbar");
  const downloadButton = element(document, "button", "cw-download", "Download PNG");
  const resetButton = element(document, "button", "cw-reset-zoom", "Reset zoom");
  downloadButton.type = resetButton.type = "button";
  toolbar.append(resetButton, downloadButton);
  const plot = canvasPlot(view, { className: "cw-plot", label: "campaign diagram" });
  const { canvas, ctx, tooltip } = plot;
  const readout = createReadout(document);
  const controls = createControls(document, model, writer);
  header.append(controls.element, toolbar);
  root.append(header, plot.wrap, readout.element);

  const epochMs = () => window.performance.timeOrigin + window.performance.now();
  let figure = readFigure(model);
  const full = () => fullDomain(figure.scene.x_max, figure.timeMax);
  let zoom = zoomFromWindow(model.get("time_window"), full());
  let hovered = -1;
  let highlightPhase = null; // from hovered_phase: this view's hover or the linked roofline's
  let writtenPhase = null; // what this view last wrote to hovered_phase
  let layout = null;
  let scenes = 0; // new scenes received (data-scenes: a test checks one draw per scene)
  // Light and dark (js/shared/page-theme.js): this view's colours, put into the shared THEME before
  // each draw, so views of different themes on one page each draw in their own.
  let theme = null;

  const plotHeight = () => {
    const height = Number(model.get("height"));
    return Number.isFinite(height) && height > 0 ? height : DEFAULT_PLOT_HEIGHT;
  };

  /** Lay out and draw the figure onto any context, at `ratio` device px per CSS px. */
  function drawInto(target, width, ratio, { hover, highlight, resize }) {
    if (theme) Object.assign(THEME, theme);
    const viewport = {
      width, ratio, hovered: hover, highlightPhase: highlight,
      plotHeight: plotHeight(),
      domain: visibleDomain(zoom, full()),
    };
    target.setTransform(1, 0, 0, 1, 0, 0);
    const next = layoutFigure(target, figure, viewport);
    resize(next.width, next.height);
    const pieces = piecesToDraw(figure.scene, figure.index, next.domain[0], next.domain[1], next.plot.right - next.plot.left,
      DETAIL_LIMIT, { rasterLimit: RASTER_LIMIT });
    drawFigure(target, figure, viewport, next, pieces);
    return { layout: next, pieces };
  }

  function writeDataAttributes(drawn, pieces, milliseconds) {
    const { domain, yTop } = drawn;
    plot.markPlot(drawn.plot, {
      t0: String(domain[0]),
      t1: String(domain[1]),
      yTop: String(yTop),
      piecesDrawn: String(pieces.n),
      aggregated: String(pieces.aggregated),
      drawMs: milliseconds.toFixed(1),
      highlightedPhase: highlightPhase === null ? "" : String(highlightPhase),
      yTicks: drawn.yTicks.map((t) => String(t.y)).join(","),
    });
  }

  function draw() {
    if (!ctx) return;
    const width = plot.width();
    if (width <= 0) return;
    const ratio = window.devicePixelRatio || 1;
    const started = window.performance.now();
    const { layout: drawn, pieces } = drawInto(ctx, width, ratio, {
      hover: hovered,
      highlight: highlightPhase,
      resize: plot.size,
    });
    layout = drawn;
    writeDataAttributes(drawn, pieces, window.performance.now() - started);
    canvas.dataset.drawnAt = epochMs().toFixed(1);
  }
  const requestDraw = view.requestDraw;

  const sharing = createZoomSharing({ model, window, zoom: () => zoom, full });
  /** Show `next` (null: everything); true when that changed the view. */
  function setZoom(next, publish) {
    if (sameZoom(next, zoom, full())) return false;
    zoom = next;
    requestDraw();
    if (publish) sharing.publish(publish);
    return true;
  }
  function followWindow() {
    setZoom(zoomFromWindow(model.get("time_window"), full()), false);
  }

  function refresh() {
    const receivedAt = epochMs();
    const previousRaw = figure.sceneEntry.raw;
    const previousFull = full();
    figure = readFigure(model, figure);
    if (figure.sceneEntry.raw !== previousRaw) {
      // For benchmarks/bench_browser.py: when the new scene arrived and how long decoding took.
      canvas.dataset.receivedAt = receivedAt.toFixed(1);
      canvas.dataset.scenes = String(++scenes);
      canvas.dataset.decodeMs = (epochMs() - receivedAt).toFixed(1);
    }
    const nextFull = full();
    if (nextFull[1] !== previousFull[1]) {
      setZoom(zoomAfterDomainChange(zoom, previousFull, nextFull), { now: true });
    }
    if (figure.sceneEntry.raw !== previousRaw) {
      hovered = -1;
      tooltip.hide();
    }
    readout.update(figure.readout);
    view.arrived(); // drawn at once when the message is set whole; hover, zoom and pan draw once per frame
  }

  // Hover, zoom, pan.
  function hover(x, y) {
    let hit = -1;
    if (layout && x >= layout.plot.left && x <= layout.plot.right && y >= layout.plot.top && y <= layout.plot.bottom) {
      const tolerance = HOVER_TOLERANCE_PX * (layout.yTop / (layout.plot.bottom - layout.plot.top));
      hit = hitTest(figure.scene, figure.index, layout.x.invert(x), layout.y.invert(y), tolerance);
    }
    if (hit >= 0) plot.showTooltip(tooltipContent(figure, hit), { x, y });
    else tooltip.hide();
    if (hit !== hovered) {
      hovered = hit;
      requestDraw();
    }
    writeHoveredPhase(hit >= 0 ? figure.scene.phase[hit] : null);
  }
  function leave() {
    tooltip.hide();
    if (hovered !== -1) {
      hovered = -1;
      requestDraw();
    }
    writeHoveredPhase(null);
  }
  // Hover linking: hovered_phase is written (once per frame at most) and followed.
  function writeHoveredPhase(phase) {
    if (phase === writtenPhase) return;
    writtenPhase = phase;
    writer.write("hovered_phase", phase);
  }
  function followHoveredPhase() {
    const value = model.get("hovered_phase");
    const next = Number.isInteger(value) && value >= 0 ? value : null;
    if (next === highlightPhase) return;
    highlightPhase = next;
    requestDraw();
  }
  const detachInteraction = attachPlotInteraction(canvas, {
    plot: () => layout?.plot,
    onZoom(x, factor) {
      const changed = setZoom(zoomAround(zoom, full(), layout.x.invert(x), factor), {});
      if (changed) leave();
      return changed;
    },
    onWheelPan(dx) {
      if (!zoom || !(layout.x.slope > 0)) return false;
      return setZoom(panBy(zoom, full(), dx / layout.x.slope), {});
    },
    onPanStart: () => ({ zoom, slope: layout.x.slope }),
    onPan(dx, start) {
      if (!start.zoom || !(start.slope > 0)) return;
      setZoom(panBy(start.zoom, full(), -dx / start.slope), {});
    },
    onReset: () => setZoom(null, { now: true }),
    onHover: hover,
    onLeave: leave,
  });

  // PNG: the download button and the kernel's png-request (export.js).
  function send(content, buffers) {
    try {
      model.send(content, undefined, buffers);
    } catch (error) {
      console.error("campaign_widget: could not send", content?.type, error);
    }
  }
  const png = attachPngExport({
    document, window, button: downloadButton, send,
    title: () => figure.title,
    closed: view.closed,
    render(scale, themeName) {
      const width = layout?.width ?? (plot.width() || 800);
      // save_png(theme=...): this one picture in the theme asked for; the view keeps its own
      const own = theme;
      if (themeName === "light" || themeName === "dark") theme = themeColours(themeName);
      try {
        return renderPng(document, (target, ratio, resize) => {
          drawInto(target, width, ratio, { hover: -1, highlight: null, resize });
        }, scale); // draws before its first await: the theme is restored after the drawing
      } finally {
        theme = own;
      }
    },
  });
  view.listen(resetButton, "click", () => setZoom(null, { now: true }));

  const { on } = view;
  view.onChange(FIGURE_TRAITS, refresh);
  view.onChange(CONTROL_TRAITS, () => controls.sync());
  on("change:time_window", followWindow);
  on("change:hovered_phase", followHoveredPhase);
  on("msg:custom", png.onMessage);
  // Requests the kernel left in png_requests (e.g. save_png in the next cell under Run All, before
  // this view existed): each answered once by this view; the kernel keeps the first answer.
  const answeredPng = new Set();
  function answerPngRequests() {
    for (const request of model.get("png_requests") ?? []) {
      if (!request?.id || answeredPng.has(request.id)) continue;
      answeredPng.add(request.id);
      png.onMessage({ type: "png-request", id: request.id, scale: request.scale, theme: request.theme });
    }
  }
  on("change:png_requests", answerPngRequests);

  view.followTheme({ ctx, canvases: [canvas] }, (next) => {
    theme = next;
  });

  followHoveredPhase();
  refresh();
  send({ type: "view-ready" });
  answerPngRequests();

  return {
    draw,
    dispose() {
      detachInteraction();
      png.dispose();
      controls.destroy();
      if (writtenPhase !== null) writer.write("hovered_phase", null);
      sharing.dispose();
      send({ type: "view-closed" });
    },
  };
}

export default { render };
