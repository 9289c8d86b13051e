// The anywidget view of the dataflow graph (docs/data-movement.md#the-global-view, seed 001's global view). Python computes
// the graph, its layout, values and colours; this view draws them and owns hover, zoom, pan,
// selection and the minimap. Text from users is drawn with fillText or set as textContent only.
import { element, labelled, setOptions } from "../shared/dom.js";
import { downloadBlob, renderPng } from "../shared/export.js";
import { needsKernel } from "../shared/kernel.js";
import { createParamSliders } from "../shared/param-sliders.js";
import { CSS } from "../shared/styles.js";
import { mountView } from "../shared/view-shell.js";
import { wheelZoomFactor } from "../shared/zoom.js";
import { centreOn, fitCamera, minZoom, panCamera, startCamera, toWorld, visibleWorld, zoomAt } from "./camera.js";
import { drawGraph, drawLegend, LEGEND_HEIGHT } from "./draw.js";
import { hitEdge, hitNode } from "./hit.js";
import { foldGraph } from "./fold.js";
import { decodeGraph, decodeStyle } from "./model.js";
import { drawMinimapPicture, MINIMAP_SIZE, viewportBox } from "./minimap.js";
import { edgeTooltip, nodeTooltip, showTooltip } from "./tooltip.js";

const NODE_XY_MAX = 2000; // data-node-xy is written for graphs of at most this many nodes
const LABELS_LISTED = 300; // data-labels lists the labels drawn when there are at most this many

// On top of the views' shared CSS (js/shared/styles.js): only what is the dataflow view's own.
const DATAFLOW_CSS = `${CSS}
.cwd-params:empty { display: none; }
.cwd-params input[type=range] { width: 140px; }
.cwd-plot-wrap { position: relative; width: 100%; }
.cwd-plot { display: block; width: 100%; cursor: grab; touch-action: none; user-select: none; background: var(--jp-layout-color0, #fff); border: 1px solid var(--jp-border-color2, #e3e3e3); box-sizing: border-box; }
.cwd-minimap { position: absolute; right: 6px; border: 1px solid var(--jp-border-color1, #999); background: var(--jp-layout-color1, #fbfbfb); cursor: pointer; }
.cwd-tooltip-title { font-weight: bold; }
.cwd-tooltip-label { color: var(--jp-ui-font-color2, #666); }
.cwd-error { color: var(--jp-error-color1, #c0392b); }
`;

function render({ model, el }) {
  const renderAt = Date.now(); // epoch ms, for the benchmark's breakdown (state arrived → first frame)
  return mountView({ model, el, className: "cw-root cwd-root", css: DATAFLOW_CSS }, (view) => setup(view, renderAt));
}

function setup(view, renderAt) {
  const { model, document, window, root, writer } = view;

  // DOM: controls, parameter sliders, plot (canvas + minimap + tooltip).
  const controls = element(document, "div", "cw-controls cwd-controls");
  const overlay = element(document, "select", "cwd-overlay");
  const scaling = element(document, "select", "cwd-scaling");
  const buckets = element(document, "input", { className: "cwd-buckets", type: "number", min: "0", step: "1" });
  const palette = element(document, "select", "cwd-palette");
  const reverse = element(document, "input", { className: "cwd-reverse", type: "checkbox" });
  labelled(document, controls, "overlay", overlay);
  labelled(document, controls, "scaling", scaling);
  const bucketsWrap = labelled(document, controls, "buckets", buckets);
  labelled(document, controls, "palette", palette);
  labelled(document, controls, "reverse", reverse);
  const toolbar = element(document, "div", "cw-toolbar");
  const fitButton = element(document, "button", { className: "cwd-fit", type: "button" }, "Fit");
  const downloadButton = element(document, "button", { className: "cwd-download", type: "button" }, "Download PNG");
  toolbar.append(fitButton, downloadButton);
  const errorLine = element(document, "span", "cwd-error");
  controls.append(errorLine, toolbar);
  const params = element(document, "div", "cw-controls cwd-params");
  const plotWrap = element(document, "div", "cwd-plot-wrap");
  const canvas = element(document, "canvas", { className: "cwd-plot", role: "img", "aria-label": "dataflow graph" });
  const minimap = element(document, "canvas", "cwd-minimap");
  minimap.style.top = `${LEGEND_HEIGHT + 6}px`;
  const tooltip = element(document, "div", "cw-tooltip cwd-tooltip");
  tooltip.hidden = true;
  plotWrap.append(canvas, minimap, tooltip);
  root.append(controls, params, plotWrap);
  // the overlay's colours and the parameters are computed in the kernel; fit, zoom and hover are not
  needsKernel(overlay, scaling, buckets, palette, reverse, params);

  const ctx = canvas.getContext("2d");
  const miniCtx = minimap.getContext("2d");
  // Light and dark (js/shared/page-theme.js): the canvas, legend, minimap and edge labels follow the theme.
  let theme = null;
  // `layered`: Python's layout as sent; `graph`: it folded into bands for the plot's aspect
  // (js/dataflow/fold.js), what is drawn, hit and shown in the minimap.
  let layered = decodeGraph(model.get("graph"));
  let graph = layered;
  let foldedFor = ""; // the plot size the fold was chosen for
  let style = decodeStyle(model.get("paint"), graph, model.get("values"));
  let styleStale = false; // paint or values changed since `style` was decoded
  let names = model.get("node_names") ?? [];
  let camera = null;
  let cameraFor = null; // the graph bounds the camera was made for
  let hoverNode = -1;
  let hoverEdge = -1;
  let highlight = -1;
  let draws = 0;
  let miniPicture = null;
  let miniCamera = null;
  let lastCounts = null;

  const plotHeight = () => Math.max(160, Number(model.get("height")) || 480);
  const area = () => ({ left: 0, top: LEGEND_HEIGHT, width: Math.floor(plotWrap.clientWidth), height: plotHeight() });
  function ensureFold(a) {
    const key = `${a.width}x${a.height}`;
    if (foldedFor === key) return;
    foldedFor = key;
    const next = foldGraph(layered, a.width, a.height);
    if (next.fold.key === graph.fold?.key) return; // the same bands: keep the view (and its camera)
    graph = next;
    miniPicture = null;
    hoverNode = hoverEdge = -1;
    canvas.dataset.bands = String(graph.fold.bands);
    // for tests (tests/browser): node centres as drawn, in world px (screen = world · k + t)
    canvas.dataset.nodeXy = graph.nNodes <= NODE_XY_MAX ? JSON.stringify({ x: Array.from(graph.x), y: Array.from(graph.y) }) : "";
  }
  function ensureCamera(a) {
    const key = graph.bounds.join(",");
    if (!camera || cameraFor !== key) {
      camera = startCamera(graph.bounds, a.width, a.height, graph.nNodes ? graph.y[0] : undefined);
      cameraFor = key;
    }
  }
  function phaseOf(node) {
    return node >= 0 && node < graph.nPhases ? node : -1;
  }

  function drawInto(target, a, ratio, { hover }) {
    target.setTransform(ratio, 0, 0, ratio, 0, 0);
    target.fillStyle = theme.background;
    target.fillRect(0, 0, a.width, a.top + a.height);
    drawLegend(target, model.get("legend"), { left: 0, top: 0, width: a.width }, theme);
    const selected = model.get("selected_phase");
    return drawGraph(target, graph, style, names, a, {
      camera, ratio, theme, highlight: hover ? highlight : -1, selected: Number.isInteger(selected) ? selected : -1,
      hoverEdge: hover ? hoverEdge : -1,
    });
  }

  function drawMinimap(a) {
    // Shown only when part of the graph is out of view (it would just cover nodes otherwise).
    const [vx0, vy0, vx1, vy1] = visibleWorld(camera, a.width, a.height);
    const [bx0, by0, bx1, by1] = graph.bounds;
    minimap.hidden = vx0 <= bx0 && vy0 <= by0 && vx1 >= bx1 && vy1 >= by1;
    if (minimap.hidden) return;
    const ratio = window.devicePixelRatio || 1;
    const { width, height } = MINIMAP_SIZE;
    if (!miniPicture) {
      miniPicture = document.createElement("canvas");
      miniPicture.width = Math.round(width * ratio);
      miniPicture.height = Math.round(height * ratio);
      miniCamera = drawMinimapPicture(miniPicture.getContext("2d"), graph, style, width, height, ratio, theme.background);
    }
    if (minimap.width !== miniPicture.width) {
      minimap.width = miniPicture.width;
      minimap.height = miniPicture.height;
      minimap.style.width = `${width}px`;
      minimap.style.height = `${height}px`;
    }
    miniCtx.setTransform(1, 0, 0, 1, 0, 0);
    miniCtx.drawImage(miniPicture, 0, 0);
    miniCtx.setTransform(ratio, 0, 0, ratio, 0, 0);
    const [bx, by, bw, bh] = viewportBox(miniCamera, camera, a.width, a.height);
    miniCtx.strokeStyle = "#d93025";
    miniCtx.lineWidth = 1.5;
    miniCtx.strokeRect(Math.max(0.5, bx), Math.max(0.5, by), Math.max(3, Math.min(bw, width - 1)), Math.max(3, Math.min(bh, height - 1)));
  }

  function draw() {
    if (!ctx) return;
    const a = area();
    if (a.width <= 0) return;
    ensureFold(a);
    ensureCamera(a);
    if (styleStale) decodeNow();
    const ratio = window.devicePixelRatio || 1;
    const started = window.performance.now();
    const w = Math.round(a.width * ratio);
    const h = Math.round((a.top + a.height) * ratio);
    if (canvas.width !== w) canvas.width = w;
    if (canvas.height !== h) canvas.height = h;
    canvas.style.height = `${a.top + a.height}px`;
    lastCounts = drawInto(ctx, a, ratio, { hover: true });
    const graphDrawn = window.performance.now();
    drawMinimap(a);
    canvas.dataset.minimapMs = (window.performance.now() - graphDrawn).toFixed(2);
    const selected = model.get("selected_phase");
    Object.assign(canvas.dataset, {
      k: String(camera.k), tx: String(camera.tx), ty: String(camera.ty), plotTop: String(a.top),
      plotWidth: String(a.width), plotHeight: String(a.height),
      nodesDrawn: String(lastCounts.nodes), edgesDrawn: String(lastCounts.edges), labelsDrawn: String(lastCounts.labels),
      lod: String(lastCounts.lod), draws: String(++draws), drawMs: (window.performance.now() - started).toFixed(2),
      highlightedPhase: highlight >= 0 ? String(highlight) : "",
      selectedPhase: Number.isInteger(selected) ? String(selected) : "",
      overlay: style.overlay,
    });
    // for tests and benchmarks: the graph's drawn box and the labels written with theirs (CSS px of the canvas)
    const [gx0, gy0, gx1, gy1] = graph.bounds;
    canvas.dataset.graphBox = [gx0 * camera.k + camera.tx, gy0 * camera.k + camera.ty + a.top, gx1 * camera.k + camera.tx,
      gy1 * camera.k + camera.ty + a.top].map((v) => v.toFixed(1)).join(",");
    canvas.dataset.labels = lastCounts.drawn.length <= LABELS_LISTED
      ? JSON.stringify(lastCounts.drawn.map((d) => ({ ...d, box: d.box.map((v) => Math.round(v * 10) / 10) }))) : "";
    canvas.dataset.drawnAt = String(Date.now());
    if (draws === 1) Object.assign(canvas.dataset, { renderAt: String(renderAt), firstDrawAt: String(Date.now()) });
  }
  const requestDraw = view.requestDraw;

  // Controls ↔ traits.
  function syncControls() {
    const choices = model.get("choices") ?? {};
    setOptions(document, overlay, choices.overlay ?? [model.get("overlay")], model.get("overlay"));
    setOptions(document, scaling, choices.scaling ?? [model.get("scaling")], model.get("scaling"));
    const pal = model.get("palette");
    const paletteNames = [...(choices.palette ?? [])];
    if (Array.isArray(pal)) paletteNames.push("custom");
    setOptions(document, palette, paletteNames, Array.isArray(pal) ? "custom" : String(pal));
    if (document.activeElement !== buckets) buckets.value = String(model.get("buckets") ?? 0);
    bucketsWrap.hidden = model.get("scaling") !== "hist";
    reverse.checked = Boolean(model.get("reverse"));
    errorLine.textContent = String(model.get("error") ?? "");
  }
  function write(key, value) {
    writer.write(key, value);
    writer.flush();
  }
  const onOverlay = () => write("overlay", overlay.value);
  const onScaling = () => write("scaling", scaling.value);
  const onPalette = () => { if (palette.value !== "custom") write("palette", palette.value); };
  const onReverse = () => write("reverse", reverse.checked);
  const onBuckets = () => {
    const n = Math.floor(Number(buckets.value));
    if (Number.isFinite(n) && (n === 0 || n >= 2)) write("buckets", n);
  };
  for (const [target, fn] of [[overlay, onOverlay], [scaling, onScaling], [palette, onPalette], [reverse, onReverse], [buckets, onBuckets]]) {
    view.listen(target, "change", fn);
  }

  // One parameter update in flight at a time: the next waits until the kernel's new colours or
  // values arrive (or PARAM_WAIT_MS), and only the latest slider position is sent, so a drag over
  // a workload that takes a second to re-evaluate does not queue up dozens of re-evaluations.
  const PARAM_WAIT_MS = 2000;
  let paramsInFlight = null;
  let paramsQueued = null;
  function sendParams(value) {
    if (paramsInFlight !== null) {
      paramsQueued = value;
      return;
    }
    writer.write("params", value);
    paramsInFlight = window.setTimeout(paramsAnswered, PARAM_WAIT_MS);
  }
  function paramsAnswered() {
    if (paramsInFlight !== null) window.clearTimeout(paramsInFlight);
    paramsInFlight = null;
    if (paramsQueued !== null) {
      const next = paramsQueued;
      paramsQueued = null;
      sendParams(next);
    }
  }
  const sliders = createParamSliders(document, model, writer, { send: sendParams, inputClass: "cwd-param", valueClass: "cwd-value" });
  params.append(sliders.element);
  const buildParams = () => {
    sliders.sync();
    params.hidden = sliders.count === 0;
  };

  // Hover, click, zoom, pan: no kernel round trip except hovered/selected phase writes.
  function position(event) {
    const rect = canvas.getBoundingClientRect();
    return [event.clientX - rect.left, event.clientY - rect.top - LEGEND_HEIGHT];
  }
  function pick(px, py) {
    if (styleStale) decodeNow();
    const a = area();
    if (px < 0 || py < 0 || px > a.width || py > a.height || !camera) return { node: -1, edge: -1 };
    const [wx, wy] = toWorld(camera, px, py);
    const node = hitNode(graph, wx, wy);
    if (node >= 0) return { node, edge: -1 };
    return { node: -1, edge: hitEdge(graph, style, wx, wy, 5 / camera.k, camera.k, highlight) };
  }
  function writeHovered(phase) {
    const selected = model.get("selected_phase");
    const value = phase >= 0 ? phase : Number.isInteger(selected) ? selected : null;
    if (model.get("hovered_phase") !== value || writer.isPending("hovered_phase")) writer.write("hovered_phase", value);
  }
  function hover(px, py) {
    const { node, edge } = pick(px, py);
    if (node !== hoverNode || edge !== hoverEdge) {
      hoverNode = node;
      hoverEdge = edge;
      requestDraw();
    }
    const bounds = { width: plotWrap.clientWidth, height: plotWrap.clientHeight };
    if (node >= 0) showTooltip(tooltip, nodeTooltip(graph, style, names, model.get("units") ?? {}, node), px, py + LEGEND_HEIGHT, bounds);
    else if (edge >= 0) showTooltip(tooltip, edgeTooltip(graph, style, names, model.get("units") ?? {}, edge), px, py + LEGEND_HEIGHT, bounds);
    else tooltip.hidden = true;
    writeHovered(phaseOf(node));
  }
  function leave() {
    tooltip.hidden = true;
    if (hoverNode !== -1 || hoverEdge !== -1) {
      hoverNode = hoverEdge = -1;
      requestDraw();
    }
    writeHovered(-1);
  }
  let drag = null;
  function onPointerDown(event) {
    if (event.button !== 0) return;
    const [px, py] = position(event);
    if (py < 0) return;
    drag = { x: px, y: py, camera, moved: false, pointerId: event.pointerId };
    canvas.setPointerCapture?.(event.pointerId);
  }
  function onPointerMove(event) {
    const [px, py] = position(event);
    if (drag) {
      if (Math.abs(px - drag.x) + Math.abs(py - drag.y) > 3) drag.moved = true;
      if (drag.moved) {
        tooltip.hidden = true;
        canvas.style.cursor = "grabbing";
        camera = panCamera(drag.camera, px - drag.x, py - drag.y);
        requestDraw();
      }
      return;
    }
    hover(px, py);
  }
  function onPointerUp(event) {
    if (!drag) return;
    const [px, py] = position(event);
    canvas.releasePointerCapture?.(drag.pointerId);
    const clicked = !drag.moved;
    drag = null;
    canvas.style.cursor = "";
    if (clicked) {
      const { node } = pick(px, py);
      const phase = phaseOf(node);
      const current = model.get("selected_phase");
      const next = phase >= 0 && phase !== current ? phase : null;
      writer.write("selected_phase", next);
      writer.write("hovered_phase", next ?? (phase >= 0 ? phase : null));
      requestDraw();
    }
  }
  function onWheel(event) {
    const [px, py] = position(event);
    if (py < 0 || !camera) return;
    event.preventDefault();
    const a = area();
    camera = zoomAt(camera, px, py, 1 / wheelZoomFactor(event.deltaY, event.deltaMode), minZoom(graph.bounds, a.width, a.height));
    tooltip.hidden = true;
    requestDraw();
  }
  function fit() {
    const a = area();
    camera = fitCamera(graph.bounds, a.width, a.height);
    requestDraw();
  }
  function onMinimap(event) {
    if (!miniCamera) return;
    const rect = minimap.getBoundingClientRect();
    const mx = event.clientX - rect.left;
    const my = event.clientY - rect.top;
    const a = area();
    camera = centreOn(camera, (mx - miniCamera.tx) / miniCamera.k, (my - miniCamera.ty) / miniCamera.k, a.width, a.height);
    requestDraw();
  }
  const listeners = [
    [canvas, "pointerdown", onPointerDown], [canvas, "pointermove", onPointerMove], [canvas, "pointerup", onPointerUp],
    [canvas, "pointercancel", onPointerUp], [canvas, "pointerleave", () => { if (!drag) leave(); }],
    [canvas, "wheel", onWheel, { passive: false }], [canvas, "dblclick", fit], [fitButton, "click", fit],
    [minimap, "click", onMinimap],
  ];
  for (const [target, type, fn, options] of listeners) view.listen(target, type, fn, options);

  async function download() {
    try {
      const a = area();
      const { blob } = await renderPng(document, (target, ratio, resize) => {
        resize(a.width, a.top + a.height);
        drawInto(target, a, ratio, { hover: false });
      }, window.devicePixelRatio || 1);
      downloadBlob(document, blob, "dataflow.png");
    } catch (error) {
      console.error("campaign_widget: PNG download failed", error);
    }
  }
  view.listen(downloadButton, "click", download);

  // Model listeners: new data from the kernel is drawn at once when the message is set whole (view.arrived).
  const { on } = view;
  on("change:graph", () => {
    layered = decodeGraph(model.get("graph"));
    graph = layered;
    foldedFor = "";
    styleStale = true;
    miniPicture = null;
    hoverNode = hoverEdge = -1;
    arrived();
  });
  // paint and values come together after a parameter step: decoded once, when the draw needs them
  function decodeNow() {
    const started = window.performance.now();
    style = decodeStyle(model.get("paint"), graph, model.get("values"));
    styleStale = false;
    miniPicture = null;
    canvas.dataset.paintMs = (window.performance.now() - started).toFixed(2);
  }
  const arrived = view.arrived;
  function restyle() {
    canvas.dataset.paintReceived = String(window.performance.now());
    styleStale = true;
    arrived();
  }
  on("change:paint", () => { restyle(); paramsAnswered(); });
  on("change:values", () => { restyle(); paramsAnswered(); });
  on("change:node_names", () => { names = model.get("node_names") ?? []; arrived(); });
  on("change:legend", arrived);
  on("change:height", requestDraw);
  on("change:selected_phase", requestDraw);
  on("change:hovered_phase", () => {
    const v = model.get("hovered_phase");
    const next = Number.isInteger(v) && v >= 0 ? v : -1;
    if (next !== highlight) {
      highlight = next;
      requestDraw();
    }
  });
  for (const key of ["overlay", "scaling", "buckets", "palette", "reverse", "choices", "error"]) on(`change:${key}`, syncControls);
  on("change:param_ranges", buildParams);
  on("change:params", () => { sliders.answered(); buildParams(); });
  view.observeResize([plotWrap]);
  {
    const v = model.get("hovered_phase");
    highlight = Number.isInteger(v) && v >= 0 ? v : -1;
  }
  syncControls();
  buildParams();
  view.followTheme({ ctx, canvases: [canvas] }, (next) => {
    theme = next;
    miniPicture = null;
  });

  return {
    draw,
    dispose() {
      sliders.destroy();
      if (paramsInFlight !== null) window.clearTimeout(paramsInFlight);
    },
  };
}

export default { render };
