// The anywidget view of a roofline (campaign_widget/views/roofline_canvas.py). The kernel computes every
// number (`geometry`, from campaign_widget/model/roofline.py) and every word (`hovered_details`,
// `readout_lines`); this view draws them, owns the hover and writes `hovered_phase`, and writes
// `shown_levels` from its legend's level boxes. A page with no kernel (campaign_widget.views.page)
// carries every phase's words in `details_by_phase`, and the tooltip reads them there. Nothing here
// asks Python for a new picture (the level boxes only choose which of the drawn levels show), so no
// control is hidden without a kernel.
import { canvasPlot } from "../shared/canvas-plot.js";
import { element } from "../shared/dom.js";
import { CSS } from "../shared/styles.js";
import { mountView } from "../shared/view-shell.js";
import { drawRoofline, hitPoint, levelShape, readGeometry, SHAPE_GLYPHS } from "./draw.js";

const DRAW_TRAITS = ["geometry", "phase_colors", "units", "title", "height", "shown_levels", "hovered_phase"];
const ROOFLINE_CSS = `
.cw-roofline-legend { display: flex; flex-wrap: wrap; gap: 2px 10px; margin: 4px 0 0; font-size: 11px; }
.cw-roofline-legend label { display: inline-flex; gap: 3px; align-items: center; }
.cw-roofline-readout { margin: 2px 0 0; font-size: 12px; line-height: 1.45; }
`;

function render({ model, el }) {
  return mountView({ model, el, className: "cw-root cw-roofline", css: CSS + ROOFLINE_CSS, kernel: false }, setup);
}

function setup(view) {
  const { model, document, root, writer } = view;
  const plot = canvasPlot(view, { className: "cw-plot cw-roofline-plot", label: "roofline" });
  const { canvas, ctx } = plot;
  const legend = element(document, "div", "cw-roofline-legend");
  const readout = element(document, "div", "cw-roofline-readout");
  root.append(plot.wrap, legend, readout);

  let geometry = readGeometry(model.get("geometry"));
  let drawn = null;
  let theme = null;
  let ownHover = null; // the phase under this view's pointer

  const hovered = () => {
    const value = model.get("hovered_phase");
    return Number.isInteger(value) && value >= 0 ? value : null;
  };
  const shownLevels = () => new Set(model.get("shown_levels") ?? []);

  function draw() {
    const box = plot.fit();
    if (!box) return;
    const state = {
      geometry, colors: model.get("phase_colors") ?? [], units: model.get("units") ?? {},
      title: model.get("title"), shownLevels: shownLevels(), hovered: hovered(),
    };
    drawn = drawRoofline(ctx, box.width, box.height, state, theme);
    plot.markPlot(drawn.scales.plot, {
      xRange: geometry.xRange.join(","), yRange: geometry.yRange.join(","),
      pointsDrawn: String(drawn.points.length),
      highlightedPhase: state.hovered === null ? "" : String(state.hovered),
    });
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
      plot.tooltip.hide();
      return;
    }
    plot.showTooltip({ title: lines[0], rows: lines.slice(1).map((line) => ["", line]) }, pointer);
  }
  function writeHover(phase) {
    if (phase === ownHover) return;
    ownHover = phase;
    writer.write("hovered_phase", phase);
    view.requestDraw();
  }
  view.listen(canvas, "pointermove", (event) => {
    if (!drawn) return;
    pointer = plot.pointer(event);
    writeHover(hitPoint(drawn.points, drawn.scales, pointer.x, pointer.y));
    showDetails();
  });
  view.listen(canvas, "pointerleave", () => {
    pointer = null;
    writeHover(null);
    plot.tooltip.hide();
  });

  view.followTheme({ ctx, canvases: [canvas] }, (next) => {
    theme = next;
  });
  view.on("change:geometry", () => {
    geometry = readGeometry(model.get("geometry"));
    fillLegend();
  });
  view.onChange(["phase_names", "phase_colors", "shown_levels"], fillLegend);
  view.on("change:readout_lines", fillReadout);
  view.on("change:hovered_details", showDetails);

  fillLegend();
  fillReadout();
  return {
    draw,
    redrawOn: DRAW_TRAITS,
    dispose() {
      if (ownHover !== null) writer.write("hovered_phase", null);
    },
  };
}

export default { render };
