// The anywidget view of a campaign diagram. Python computes the scene; this view draws it, and
// owns hover, zoom and pan. See js/diagram/CONTRACT.md.
import { element, sizeCanvas } from "../shared/dom.js";
import { DETAIL_LIMIT, piecesToDraw } from "./aggregate.js";
import { RASTER_LIMIT } from "./raster.js";
import { createControls } from "./controls.js";
import { watchKernel } from "../shared/kernel.js";
import { drawFigure } from "./draw.js";
import { attachPngExport, renderPng } from "../shared/export.js";
import { readFigure } from "./figure.js";
import { hitTest } from "./hit.js";
import { attachPlotInteraction } from "./interaction.js";
import { layoutFigure } from "./layout.js";
import { createReadout } from "./readout.js";
import { CSS } from "../shared/styles.js";
import { followTheme, themeColours } from "../shared/page-theme.js";
import { THEME } from "../shared/theme.js";
import { createTooltip, tooltipContent } from "../shared/tooltip.js";
import { createTraitWriter } from "../shared/trait-writer.js";
import { fullDomain, panBy, sameZoom, visibleDomain, zoomAfterDomainChange, zoomAround, zoomFromWindow } from "../shared/zoom.js";
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
  const document = el.ownerDocument ?? globalThis.document;
  const window = document.defaultView ?? globalThis;

  // DOM: header (controls + toolbar), plot (canvas + tooltip), readout.
  const root = element(document, "div", "cw-root");
  const style = element(document, "style", null, CSS);
  const header = element(document, "div", "cw-header");
  const toolbar = element(document, "div", "cw-toolbar");
  const downloadButton = element(document, "button", "cw-download", "Download PNG");
  const resetButton = element(document, "button", "cw-reset-zoom", "Reset zoom");
  downloadButton.type = resetButton.type = "button";
  toolbar.append(resetButton, downloadButton);
  const plotWrap = element(document, "div", "cw-plot-wrap");
  const canvas = element(document, "canvas", "cw-plot");
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", "campaign diagram");
  const tooltip = createTooltip(document);
  plotWrap.append(canvas, tooltip.element);
  const readout = createReadout(document);
  const writer = createTraitWriter(model, {
    requestFrame: (f) => window.requestAnimationFrame(f),
    cancelFrame: (id) => window.cancelAnimationFrame(id),
  });
  const controls = createControls(document, model, writer);
  header.append(controls.element, toolbar);
  root.append(style, header, plotWrap, readout.element);
  el.append(root);
  const kernel = watchKernel({ model, root, document });

  const ctx = canvas.getContext("2d");
  const epochMs = () => window.performance.timeOrigin + window.performance.now();
  let figure = readFigure(model);
  const full = () => fullDomain(figure.scene.x_max, figure.timeMax);
  let zoom = zoomFromWindow(model.get("time_window"), full());
  let hovered = -1;
  let highlightPhase = null; // from hovered_phase: this view's hover or the linked roofline's
  let writtenPhase = null; // what this view last wrote to hovered_phase
  let layout = null;
  let frame = null;
  let dataArrived = false; // the kernel's data changed since the last draw
  let draws = 0;
  let scenes = 0; // new scenes received (data-scenes: a test checks one draw per scene)
  let closed = false;

  const plotHeight = () => {
    const height = Number(model.get("height"));
    return Number.isFinite(height) && height > 0 ? height : DEFAULT_PLOT_HEIGHT;
  };

  /** Lay out and draw the figure onto any context, at `ratio` device px per CSS px. */
  function drawInto(target, width, ratio, { hover, highlight, resize }) {
    if (theme) Object.assign(THEME, theme);
    const view = {
      width, ratio, hovered: hover, highlightPhase: highlight,
      plotHeight: plotHeight(),
      domain: visibleDomain(zoom, full()),
    };
    target.setTransform(1, 0, 0, 1, 0, 0);
    const next = layoutFigure(target, figure, view);
    resize(next.width, next.height);
    const pieces = piecesToDraw(figure.scene, figure.index, next.domain[0], next.domain[1], next.plot.right - next.plot.left,
      DETAIL_LIMIT, { rasterLimit: RASTER_LIMIT });
    drawFigure(target, figure, view, next, pieces);
    return { layout: next, pieces };
  }

  function writeDataAttributes(drawn, pieces, milliseconds) {
    const { plot, domain, yTop } = drawn;
    Object.assign(canvas.dataset, {
      plotLeft: String(plot.left),
      plotRight: String(plot.right),
      plotTop: String(plot.top),
      plotBottom: String(plot.bottom),
      t0: String(domain[0]),
      t1: String(domain[1]),
      yTop: String(yTop),
      piecesDrawn: String(pieces.n),
      aggregated: String(pieces.aggregated),
      draws: String(++draws),
      drawMs: milliseconds.toFixed(1),
      highlightedPhase: highlightPhase === null ? "" : String(highlightPhase),
      yTicks: drawn.yTicks.map((t) => String(t.y)).join(","),
    });
  }

  function draw() {
    frame = null;
    dataArrived = false; // whatever asked for this draw, it shows the data there is
    if (closed || !ctx) return;
    const width = Math.floor(plotWrap.clientWidth);
    if (width <= 0) return;
    const ratio = window.devicePixelRatio || 1;
    const started = window.performance.now();
    const { layout: drawn, pieces } = drawInto(ctx, width, ratio, {
      hover: hovered,
      highlight: highlightPhase,
      resize(w, h) {
        sizeCanvas(canvas, ctx, w, h, ratio);
      },
    });
    layout = drawn;
    writeDataAttributes(drawn, pieces, window.performance.now() - started);
    canvas.dataset.drawnAt = epochMs().toFixed(1);
  }

  function requestDraw() {
    if (frame === null && !closed) frame = window.requestAnimationFrame(draw);
  }

  // New data from the kernel is drawn at once, when the message's last trait has been set
  // (Backbone's one "change" after its "change:<trait>" events), not at the next animation frame:
  // the picture then makes the coming frame instead of waiting for it and being drawn into it.
  // Hover, zoom and pan still draw once per frame.
  function drawArrivedData() {
    if (!dataArrived || closed) return;
    dataArrived = false;
    if (frame !== null) window.cancelAnimationFrame(frame);
    draw();
  }

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
    dataArrived = true;
    requestDraw();
  }

  // Hover, zoom, pan.
  function hover(x, y) {
    let hit = -1;
    if (layout && x >= layout.plot.left && x <= layout.plot.right && y >= layout.plot.top && y <= layout.plot.bottom) {
      const tolerance = HOVER_TOLERANCE_PX * (layout.yTop / (layout.plot.bottom - layout.plot.top));
      hit = hitTest(figure.scene, figure.index, layout.x.invert(x), layout.y.invert(y), tolerance);
    }
    if (hit >= 0) tooltip.show(tooltipContent(figure, hit), x, y, { width: plotWrap.clientWidth, height: plotWrap.clientHeight });
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
    closed: () => closed,
    render(scale, themeName) {
      const width = layout?.width ?? (Math.floor(plotWrap.clientWidth) || 800);
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
  const resetZoom = () => setZoom(null, { now: true });
  resetButton.addEventListener("click", resetZoom);

  // Model listeners, all removed on cleanup.
  const modelListeners = [];
  function on(event, handler) {
    model.on(event, handler);
    modelListeners.push([event, handler]);
  }
  for (const trait of FIGURE_TRAITS) on(`change:${trait}`, refresh);
  on("change", drawArrivedData);
  const syncControls = () => controls.sync();
  for (const trait of CONTROL_TRAITS) on(`change:${trait}`, syncControls);
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

  // Light and dark (js/shared/page-theme.js): this view's colours, put into the shared THEME before each
  // draw, so views of different themes on one page each draw in their own.
  let theme = null;
  const stopWatchingTheme = followTheme({ model, root, document, window, ctx, canvases: [canvas] }, (next) => {
    theme = next;
  }, requestDraw);

  // Only a new width needs a new picture: the height follows the figure (a draw that adds a
  // readout line grows the canvas itself), and redrawing for it would draw each such change twice.
  const onResize = () => {
    if (Math.floor(plotWrap.clientWidth) !== layout?.width) requestDraw();
  };
  const resizeObserver = typeof window.ResizeObserver === "function" ? new window.ResizeObserver(onResize) : null;
  resizeObserver?.observe(plotWrap);

  followHoveredPhase();
  refresh();
  send({ type: "view-ready" });
  answerPngRequests();

  return () => {
    closed = true;
    for (const [event, handler] of modelListeners) model.off(event, handler);
    resizeObserver?.disconnect();
    stopWatchingTheme();
    detachInteraction();
    png.dispose();
    resetButton.removeEventListener("click", resetZoom);
    controls.destroy();
    if (writtenPhase !== null) writer.write("hovered_phase", null);
    writer.dispose();
    if (frame !== null) window.cancelAnimationFrame(frame);
    sharing.dispose();
    kernel.dispose();
    send({ type: "view-closed" });
    root.remove();
  };
}

export default { render };
