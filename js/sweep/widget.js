// The anywidget view of a sweep's heatmap (campaign_widget/views/sweep_canvas.py). The kernel computes every
// colour and label (`grid`, from campaign_widget/figures/sweep_grid.py) and words the hovered configuration
// (`hovered_rows`); this view draws them, writes `color` and `positions` from its selects, `hovered`
// from the pointer and `selected` from a click on a computed cell. With no kernel (a page of
// campaign_widget.views.page) the selects are hidden, as a new colour or position is a new grid from
// Python, and the tooltip reads the rows the page carries (`rows_by_configuration`).
import { element, labelled, listen, setOptions, sizeCanvas } from "../shared/dom.js";
import { needsKernel, watchKernel } from "../shared/kernel.js";
import { followTheme } from "../shared/page-theme.js";
import { CSS } from "../shared/styles.js";
import { createTooltip } from "../shared/tooltip.js";
import { createTraitWriter } from "../shared/trait-writer.js";
import { cellAt, cellConfiguration, drawHeatmap, readGrid } from "./draw.js";

const DRAW_TRAITS = ["grid", "x_title", "y_title", "color", "title", "height", "selected"];
const SWEEP_CSS = `
.cw-sweep-lines { margin: 2px 0 0; font-size: 12px; line-height: 1.45; }
`;

function render({ model, el }) {
  const document = el.ownerDocument ?? globalThis.document;
  const window = document.defaultView ?? globalThis;
  const root = element(document, "div", "cw-root cw-sweep-plot");
  const style = element(document, "style", null, CSS + SWEEP_CSS);
  const controls = element(document, "div", "cw-controls cw-sweep-controls");
  const plotWrap = element(document, "div", "cw-plot-wrap");
  const canvas = element(document, "canvas", "cw-plot cw-sweep-canvas");
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", "sweep heatmap");
  const tooltip = createTooltip(document);
  plotWrap.append(canvas, tooltip.element);
  const lines = element(document, "div", "cw-sweep-lines");
  root.append(style, controls, plotWrap, lines);
  el.append(root);
  needsKernel(controls);
  const kernel = watchKernel({ model, root, document });
  const ctx = canvas.getContext("2d");
  const cleanups = [];
  const writer = createTraitWriter(model, {
    requestFrame: (f) => window.requestAnimationFrame(f),
    cancelFrame: (id) => window.cancelAnimationFrame(id),
  });

  let grid = readGrid(model.get("grid"));
  let layout = null;
  let drawnWidth = null;
  let frame = null;
  let draws = 0;
  let closed = false;
  let theme = null;
  let hoveredCell = null;
  let pointer = null;

  function selectedCell() {
    const selected = model.get("selected");
    if (!Number.isInteger(selected)) return null;
    for (let k = 0; k < grid.indices.length; k++) {
      if (grid.indices[k] === selected) return { row: Math.floor(k / grid.nx), col: k % grid.nx };
    }
    return null;
  }

  function draw() {
    frame = null;
    if (closed || !ctx) return;
    const width = Math.floor(plotWrap.clientWidth);
    if (width <= 0) return;
    const height = Math.max(160, Number(model.get("height")) || 360);
    sizeCanvas(canvas, ctx, width, height, window.devicePixelRatio || 1);
    const selected = selectedCell();
    layout = drawHeatmap(ctx, width, height, {
      grid, xTitle: model.get("x_title"), yTitle: model.get("y_title"), colorTitle: model.get("color"),
      title: model.get("title"), selectedCell: selected, hoveredCell,
    }, theme);
    drawnWidth = width;
    const { plot } = layout;
    Object.assign(canvas.dataset, {
      draws: String(++draws),
      plotLeft: String(plot.left), plotRight: String(plot.right), plotTop: String(plot.top), plotBottom: String(plot.bottom),
      rows: String(grid.ny), columns: String(grid.nx),
      bestCell: grid.bestCell ? grid.bestCell.join(",") : "",
      selectedCell: selected ? `${selected.row},${selected.col}` : "",
    });
  }
  function requestDraw() {
    if (frame === null && !closed) frame = window.requestAnimationFrame(draw);
  }

  // the selects: the colour column, then one per other axis
  const colorSelect = element(document, "select", { className: "cw-sweep-color", "aria-label": "colour" });
  listen(cleanups, colorSelect, "change", () => writer.write("color", colorSelect.value));
  const axisSelects = new Map();
  function fillControls() {
    setOptions(document, colorSelect, model.get("color_options") ?? [], model.get("color"));
    const options = model.get("axis_options") ?? [];
    const positions = model.get("positions") ?? {};
    if (axisSelects.size !== options.length || options.some(([name]) => !axisSelects.has(name))) {
      axisSelects.clear();
      const labels = [labelled(document, null, "colour", colorSelect)];
      for (const [name] of options) {
        const select = element(document, "select", { className: `cw-sweep-axis cw-sweep-axis-${name}`, "aria-label": name });
        select.dataset.axis = name;
        listen(cleanups, select, "change", () => {
          writer.write("positions", { ...(model.get("positions") ?? {}), [name]: Number(select.value) });
        });
        axisSelects.set(name, select);
        labels.push(labelled(document, null, name, select));
      }
      controls.replaceChildren(...labels);
    }
    for (const [name, values] of options) {
      setOptions(document, axisSelects.get(name), values.map((_, j) => j), positions[name], values);
    }
  }
  function fillLines() {
    const best = model.get("grid")?.best_line ?? "";
    const status = model.get("status") ?? "";
    lines.replaceChildren(...[status, best].filter(Boolean).map((line) => element(document, "div", null, line)));
  }

  // hover: the kernel words the configuration's row (`hovered_rows`), shown at the pointer once it has;
  // a page brings the row of every configuration on its grid (`rows_by_configuration`) instead
  function hoverRows(cell) {
    const saved = model.get("rows_by_configuration");
    if (saved && typeof saved === "object") return saved[String(cell.index)] ?? [];
    return model.get("hovered") === cell.index ? model.get("hovered_rows") ?? [] : [];
  }
  function showRow() {
    const cell = hoveredCell && cellConfiguration(grid, hoveredCell.row, hoveredCell.col);
    const rows = cell ? hoverRows(cell) : [];
    if (!cell || pointer === null || rows.length === 0) {
      tooltip.hide();
      return;
    }
    tooltip.show({ title: rows[0][0], rows: rows.slice(1) }, pointer.x, pointer.y,
      { width: plotWrap.clientWidth, height: plotWrap.clientHeight });
  }
  function cellUnder(event) {
    if (!layout) return null;
    const box = canvas.getBoundingClientRect();
    const x = event.clientX - box.left;
    const y = event.clientY - box.top;
    pointer = { x, y };
    return cellAt(layout, grid, x, y);
  }
  function onMove(event) {
    const cell = cellUnder(event);
    const same = cell && hoveredCell && cell.row === hoveredCell.row && cell.col === hoveredCell.col;
    if (!same) {
      hoveredCell = cell;
      writer.write("hovered", cell ? cellConfiguration(grid, cell.row, cell.col).index : null);
      requestDraw();
    }
    showRow();
  }
  function onLeave() {
    pointer = null;
    if (hoveredCell !== null) {
      hoveredCell = null;
      writer.write("hovered", null);
      requestDraw();
    }
    tooltip.hide();
  }
  function onClick(event) {
    const cell = cellUnder(event);
    if (!cell) return;
    const { index, computed } = cellConfiguration(grid, cell.row, cell.col);
    if (computed) writer.write("selected", index);
  }
  listen(cleanups, canvas, "pointermove", onMove);
  listen(cleanups, canvas, "pointerleave", onLeave);
  listen(cleanups, canvas, "click", onClick);

  const stopWatchingTheme = followTheme({ model, root, document, window, ctx, canvases: [canvas] }, (next) => {
    theme = next;
  }, requestDraw);

  const listeners = [];
  function on(event, handler) {
    model.on(event, handler);
    listeners.push([event, handler]);
  }
  on("change:grid", () => {
    grid = readGrid(model.get("grid"));
    hoveredCell = null;
    fillLines();
  });
  on("change:status", fillLines);
  for (const trait of ["color_options", "axis_options", "positions", "color"]) on(`change:${trait}`, fillControls);
  for (const trait of DRAW_TRAITS) on(`change:${trait}`, requestDraw);
  on("change:hovered_rows", showRow);

  const resizeObserver = typeof window.ResizeObserver === "function"
    ? new window.ResizeObserver(() => {
      if (Math.floor(plotWrap.clientWidth) !== drawnWidth) requestDraw();
    })
    : null;
  resizeObserver?.observe(plotWrap);

  fillControls();
  fillLines();
  requestDraw();

  return () => {
    closed = true;
    for (const [event, handler] of listeners) model.off(event, handler);
    for (const cleanup of cleanups) cleanup();
    resizeObserver?.disconnect();
    stopWatchingTheme();
    kernel.dispose();
    writer.dispose();
    if (frame !== null) window.cancelAnimationFrame(frame);
    root.remove();
  };
}

export default { render };
