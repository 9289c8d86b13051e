// The anywidget view of a sweep's heatmap (campaign_widget/views/sweep_canvas.py). The kernel computes every
// colour and label (`grid`, from campaign_widget/figures/sweep_grid.py) and words the hovered configuration
// (`hovered_rows`); this view draws them, writes `color` and `positions` from its selects, `hovered`
// from the pointer and `selected` from a click on a computed cell. With no kernel (a page of
// campaign_widget.views.page) the selects are hidden, as a new colour or position is a new grid from
// Python, and the tooltip reads the rows the page carries (`rows_by_configuration`).
import { canvasPlot } from "../shared/canvas-plot.js";
import { element, labelled, setOptions } from "../shared/dom.js";
import { needsKernel } from "../shared/kernel.js";
import { CSS } from "../shared/styles.js";
import { mountView } from "../shared/view-shell.js";
import { cellAt, cellConfiguration, drawHeatmap, readGrid } from "./draw.js";

const DRAW_TRAITS = ["grid", "x_title", "y_title", "color", "title", "height", "selected"];
const SWEEP_CSS = `
.cw-sweep-lines { margin: 2px 0 0; font-size: 12px; line-height: 1.45; }
`;

function render({ model, el }) {
  return mountView({ model, el, className: "cw-root cw-sweep-plot", css: CSS + SWEEP_CSS }, setup);
}

function setup(view) {
  const { model, document, root, writer } = view;
  const controls = element(document, "div", "cw-controls cw-sweep-controls");
  const plot = canvasPlot(view, { className: "cw-plot cw-sweep-canvas", label: "sweep heatmap" });
  const { canvas, ctx } = plot;
  const lines = element(document, "div", "cw-sweep-lines");
  root.append(controls, plot.wrap, lines);
  needsKernel(controls);

  let grid = readGrid(model.get("grid"));
  let layout = null;
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
    const box = plot.fit();
    if (!box) return;
    const selected = selectedCell();
    layout = drawHeatmap(ctx, box.width, box.height, {
      grid, xTitle: model.get("x_title"), yTitle: model.get("y_title"), colorTitle: model.get("color"),
      title: model.get("title"), selectedCell: selected, hoveredCell,
    }, theme);
    plot.markPlot(layout.plot, {
      rows: String(grid.ny), columns: String(grid.nx),
      bestCell: grid.bestCell ? grid.bestCell.join(",") : "",
      selectedCell: selected ? `${selected.row},${selected.col}` : "",
    });
  }

  // the selects: the colour column, then one per other axis
  const colorSelect = element(document, "select", { className: "cw-sweep-color", "aria-label": "colour" });
  view.listen(colorSelect, "change", () => writer.write("color", colorSelect.value));
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
        view.listen(select, "change", () => {
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
    const unfit = model.get("grid")?.unfit_label ?? ""; // the hatched cells' legend, in the kernel's words
    const status = model.get("status") ?? "";
    lines.replaceChildren(...[status, best, unfit].filter(Boolean).map((line) => element(document, "div", null, line)));
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
      plot.tooltip.hide();
      return;
    }
    plot.showTooltip({ title: rows[0][0], rows: rows.slice(1) }, pointer);
  }
  function cellUnder(event) {
    if (!layout) return null;
    pointer = plot.pointer(event);
    return cellAt(layout, grid, pointer.x, pointer.y);
  }
  view.listen(canvas, "pointermove", (event) => {
    const cell = cellUnder(event);
    const same = cell && hoveredCell && cell.row === hoveredCell.row && cell.col === hoveredCell.col;
    if (!same) {
      hoveredCell = cell;
      writer.write("hovered", cell ? cellConfiguration(grid, cell.row, cell.col).index : null);
      view.requestDraw();
    }
    showRow();
  });
  view.listen(canvas, "pointerleave", () => {
    pointer = null;
    if (hoveredCell !== null) {
      hoveredCell = null;
      writer.write("hovered", null);
      view.requestDraw();
    }
    plot.tooltip.hide();
  });
  view.listen(canvas, "click", (event) => {
    const cell = cellUnder(event);
    if (!cell) return;
    const { index, computed } = cellConfiguration(grid, cell.row, cell.col);
    if (computed) writer.write("selected", index);
  });

  view.followTheme({ ctx, canvases: [canvas] }, (next) => {
    theme = next;
  });
  view.on("change:grid", () => {
    grid = readGrid(model.get("grid"));
    hoveredCell = null;
    fillLines();
  });
  view.on("change:status", fillLines);
  view.onChange(["color_options", "axis_options", "positions", "color"], fillControls);
  view.on("change:hovered_rows", showRow);

  fillControls();
  fillLines();
  return { draw, redrawOn: DRAW_TRAITS };
}

export default { render };
