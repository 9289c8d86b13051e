// The anywidget view of a roofline (campaign_widget/views/roofline_canvas.py). The kernel computes every
// number (`geometry`, from campaign_widget/model/roofline.py) and every word (`hovered_details`,
// `readout_lines`); this view draws them, owns the hover and writes `hovered_phase`, and writes
// `shown_levels` from its legend's level boxes. A page with no kernel (campaign_widget.views.page)
// carries every phase's words in `details_by_phase`, and the tooltip reads them there. Nothing here
// asks Python for a new picture (the level boxes only choose which of the drawn levels show), so no
// control is hidden without a kernel.
import { element, sizeCanvas } from "../shared/dom.js";
import { followTheme } from "../shared/page-theme.js";
import { CSS } from "../shared/styles.js";
import { createTooltip } from "../shared/tooltip.js";
import { createTraitWriter } from "../shared/trait-writer.js";
import { drawRoofline, hitPoint, levelShape, readGeometry, SHAPE_GLYPHS } from "./draw.js";

const DRAW_TRAITS = ["geometry", "phase_colors", "units", "title", "height", "shown_levels"];
const ROOFLINE_CSS = `
.cw-roofline-legend { display: flex; flex-wrap: wrap; gap: 2px 10px; margin: 4px 0 0; font-size: 11px; }
.cw-roofline-legend label { display: inline-flex; gap: 3px; align-items: center; }
.cw-roofline-readout { margin: 2px 0 0; font-size: 12px; line-height: 1.45; }
`;

function render({ model, el }) {
  const document = el.ownerDocument ?? globalThis.document;
  const window = document.defaultView ?? globalThis;
  const root = element(document, "div", "cw-root cw-roofline");
  const style = element(document, "style", null, CSS + ROOFLINE_CSS);
  const plotWrap = element(document, "div", "cw-plot-wrap");
  const canvas = element(document, "canvas", "cw-plot cw-roofline-plot");
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", "roofline");
  const tooltip = createTooltip(document);
  plotWrap.append(canvas, tooltip.element);
  const legend = element(document, "div", "cw-roofline-legend");
  const readout = element(document, "div", "cw-roofline-readout");
  root.append(style, plotWrap, legend, readout);
  el.append(root);
  const ctx = canvas.getContext("2d");
  const writer = createTraitWriter(model, {
    requestFrame: (f) => window.requestAnimationFrame(f),
    cancelFrame: (id) => window.cancelAnimationFrame(id),
  });

  let geometry = readGeometry(model.get("geometry"));
  let drawn = null;
  let frame = null;
  let draws = 0;
  let closed = false;
  let theme = null;
  let ownHover = null; // the phase under this view's pointer

  const hovered = () => {
    const value = model.get("hovered_phase");
    return Number.isInteger(value) && value >= 0 ? value : null;
  };
  const shownLevels = () => new Set(model.get("shown_levels") ?? []);

  function draw() {
    frame = null;
    if (closed || !ctx) return;
    const width = Math.floor(plotWrap.clientWidth);
    if (width <= 0) return;
    const height = Math.max(160, Number(model.get("height")) || 360);
    const ratio = window.devicePixelRatio || 1;
    sizeCanvas(canvas, ctx, width, height, ratio);
    const state = {
      geometry, colors: model.get("phase_colors") ?? [], units: model.get("units") ?? {},
      title: model.get("title"), shownLevels: shownLevels(), hovered: hovered(),
    };
    drawn = { ...drawRoofline(ctx, width, height, state, theme), width };
    const { plot } = drawn.scales;
    Object.assign(canvas.dataset, {
      draws: String(++draws),
      plotLeft: String(plot.left), plotRight: String(plot.right), plotTop: String(plot.top), plotBottom: String(plot.bottom),
      xRange: geometry.xRange.join(","), yRange: geometry.yRange.join(","),
      pointsDrawn: String(drawn.points.length),
      highlightedPhase: state.hovered === null ? "" : String(state.hovered),
    });
  }
  function requestDraw() {
    if (frame === null && !closed) frame = window.requestAnimationFrame(draw);
  }

  function fillLegend() {
    const names = model.get("phase_names") ?? [];
    const colors = model.get("phase_colors") ?? [];
    const items = [];
    const mark = geometry.hierarchical ? "▬" : "●";
    names.forEach((name, i) => {
      const item = element(document, "span", "cw-roofline-swatch");
      const swatch = element(document, "span", null, mark);
      swatch.style.color = colors[i] ?? "#999999";
      item.append(swatch, ` ${name}`);
      items.push(item);
    });
    items.push(element(document, "span", "cw-roofline-swatch", "◆ schedule"));
    if (geometry.hierarchical) {
      const shown = shownLevels();
      geometry.levels.forEach((level, k) => {
        const box = element(document, "input", { type: "checkbox" });
        box.checked = shown.has(level);
        box.dataset.level = level;
        box.addEventListener("change", () => {
          const next = geometry.levels.filter((name) =>
            name === level ? box.checked : shownLevels().has(name));
          writer.write("shown_levels", next);
        });
        const label = element(document, "label", "cw-roofline-level");
        label.append(box, `${SHAPE_GLYPHS[levelShape(k, geometry.levels.length)]} ${level}`);
        items.push(label);
      });
    }
    legend.replaceChildren(...items);
  }
  function fillReadout() {
    readout.replaceChildren(...(model.get("readout_lines") ?? []).map((line) => element(document, "div", null, line)));
  }

  // The kernel words the hovered phase (`hovered_details`): shown once it has, at the pointer. A page
  // brings every phase's words (`details_by_phase`) instead.
  let pointer = null;
  function hoverLines() {
    const saved = model.get("details_by_phase");
    if (Array.isArray(saved)) return ownHover === null ? [] : saved[ownHover] ?? [];
    return hovered() === ownHover ? model.get("hovered_details") ?? [] : [];
  }
  function showDetails() {
    const lines = hoverLines();
    if (ownHover === null || pointer === null || lines.length === 0) {
      tooltip.hide();
      return;
    }
    tooltip.show({ title: lines[0], rows: lines.slice(1).map((line) => ["", line]) }, pointer.x, pointer.y,
      { width: plotWrap.clientWidth, height: plotWrap.clientHeight });
  }
  function writeHover(phase) {
    if (phase === ownHover) return;
    ownHover = phase;
    writer.write("hovered_phase", phase);
    requestDraw();
  }
  function onMove(event) {
    if (!drawn) return;
    const box = canvas.getBoundingClientRect();
    const x = event.clientX - box.left;
    const y = event.clientY - box.top;
    const phase = hitPoint(drawn.points, drawn.scales, x, y);
    pointer = { x, y };
    writeHover(phase);
    showDetails();
  }
  function onLeave() {
    pointer = null;
    writeHover(null);
    tooltip.hide();
  }
  canvas.addEventListener("pointermove", onMove);
  canvas.addEventListener("pointerleave", onLeave);

  const stopWatchingTheme = followTheme({ model, root, document, window, ctx, canvases: [canvas] }, (next) => {
    theme = next;
  }, requestDraw);

  const listeners = [];
  function on(event, handler) {
    model.on(event, handler);
    listeners.push([event, handler]);
  }
  on("change:geometry", () => {
    geometry = readGeometry(model.get("geometry"));
    fillLegend();
  });
  on("change:phase_names", fillLegend);
  on("change:phase_colors", fillLegend);
  on("change:shown_levels", fillLegend);
  on("change:readout_lines", fillReadout);
  for (const trait of DRAW_TRAITS) on(`change:${trait}`, requestDraw);
  on("change:hovered_phase", requestDraw);
  on("change:hovered_details", showDetails);

  const resizeObserver = typeof window.ResizeObserver === "function"
    ? new window.ResizeObserver(() => {
      if (Math.floor(plotWrap.clientWidth) !== drawn?.width) requestDraw();
    })
    : null;
  resizeObserver?.observe(plotWrap);

  fillLegend();
  fillReadout();
  requestDraw();

  return () => {
    closed = true;
    for (const [event, handler] of listeners) model.off(event, handler);
    canvas.removeEventListener("pointermove", onMove);
    canvas.removeEventListener("pointerleave", onLeave);
    resizeObserver?.disconnect();
    stopWatchingTheme();
    if (ownHover !== null) writer.write("hovered_phase", null);
    writer.dispose();
    if (frame !== null) window.cancelAnimationFrame(frame);
    root.remove();
  };
}

export default { render };
