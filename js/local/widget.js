// The local view of one phase (docs/data-movement.md#element-grids): tensors as element grids, the loop nest played back,
// related accesses, cache lines, reuse distances and misses. Python (campaign_widget/views/local.py)
// computes every number and colour; this view decodes the arrays it sends and draws them.
import { decodeArray } from "../shared/codecs.js";
import { element, sizeCanvas } from "../shared/dom.js";
import { needsKernel } from "../shared/kernel.js";
import { mountView } from "../shared/view-shell.js";
import { createControls } from "./controls.js";
import { drawColourBar, drawHistogram, drawSwatches, drawTensors, localLook, neutralSwap } from "./draw.js";
import {
  advance, buildHitGrid, elementLabel, fitCell, hitElement, indicesFromPoint, pointFromIndices, rgbStyles,
} from "./geometry.js";
import { cacheNote, READOUT_HEADER, rowText, tableRows } from "./readout.js";
import { LOCAL_CSS } from "./style.js";

const DATA_TRAITS = ["tensors", "grid", "loops", "accesses", "heat", "selected", "capacity_table", "miss_map"];
const CONTROL_TRAITS = ["mode", "reuse_stat", "scaling", "palette", "line_overlay", "line", "capacity",
  "capacity_max", "capacity_unit", "ways", "loop_order", "layouts", "can_apply"];
const LEGEND_HEIGHT = 44;
const HIST_HEIGHT = 170;

/** Decode every synced array of the view into one plain object. */
export function readData(model) {
  const tensors = model.get("tensors") ?? {};
  const grid = model.get("grid") ?? {};
  const loops = model.get("loops") ?? {};
  const accesses = model.get("accesses") ?? {};
  const heat = model.get("heat") ?? {};
  const selected = model.get("selected") ?? {};
  const table = model.get("capacity_table") ?? {};
  const missMap = model.get("miss_map") ?? {};
  const x = decodeArray(grid.x) ?? new Int32Array(0);
  const y = decodeArray(grid.y) ?? new Int32Array(0);
  const tensorOf = decodeArray(grid.tensor) ?? new Int32Array(0);
  const n = Math.min(x.length, y.length);
  const [width, height] = tensors.extent ?? [0, 0];
  const styles = (payload) => {
    const rgb = decodeArray(payload);
    return rgb && rgb.length >= 3 * n ? rgbStyles(rgb, n) : null;
  };
  return {
    tensors: {
      names: tensors.names ?? [], shapes: tensors.shapes ?? [], origins: tensors.origins ?? [],
      sizes: tensors.sizes ?? [], first: tensors.first ?? [],
    },
    x, y, n, tensorOf, width, height,
    hitGrid: buildHitGrid(x, y, width, height),
    loops: { names: loops.names ?? [], extents: loops.extents ?? [], count: loops.count ?? 0 },
    start: decodeArray(accesses.start) ?? new Int32Array(1),
    accessElement: decodeArray(accesses.element) ?? new Int32Array(0),
    accessWrite: decodeArray(accesses.write) ?? new Uint8Array(0),
    fills: {
      flattened: styles(heat.count_rgb),
      reuse: styles(heat.reuse_rgb),
      misses: styles(missMap.misses_rgb),
      related: styles(selected.related_rgb),
    },
    count: decodeArray(heat.count),
    cold: decodeArray(heat.cold),
    misses: decodeArray(missMap.misses),
    table: table.capacities > 0 ? {
      capacities: table.capacities, tensorMisses: decodeArray(table.tensor_misses), cold: table.cold ?? [],
      accesses: table.accesses ?? [], line: table.line, elementMisses: decodeArray(table.element_misses),
      severity: decodeArray(table.severity), lut: rgbStyles(decodeArray(table.lut), 256), ticks: table.ticks ?? [],
      bar: table.bar,
    } : null,
    reuse: decodeArray(heat.reuse),
    lineId: decodeArray(heat.line),
    related: decodeArray(selected.related),
    lineMask: decodeArray(selected.line_mask),
    bars: { ...(heat.bars ?? {}), related: selected.bar, misses: missMap.bar },
    swatches: heat.swatches ?? {},
    neutral: heat.neutral ?? {},
    hist: {
      counts: decodeArray(selected.hist) ?? new Int32Array(0),
      cold: Number(selected.hist_cold ?? 0),
      title: selected.hist_title ?? "stack distances",
    },
  };
}

function render({ model, el }) {
  return mountView({ model, el, className: "cw-root cwl-root", css: LOCAL_CSS }, setup);
}

function setup(view) {
  const { model, document, window, root, writer, requestDraw } = view;
  const message = element(document, "div", "cwl-message");
  message.setAttribute("role", "status");
  const main = element(document, "div", "cwl-main");
  const plotWrap = element(document, "div", "cwl-plot-wrap");
  const canvas = element(document, "canvas", "cwl-canvas");
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", "local view: tensors element by element");
  const tooltip = element(document, "div", "cw-tooltip cwl-tooltip");
  tooltip.hidden = true;
  plotWrap.append(canvas, tooltip);
  const side = element(document, "div", "cwl-side");
  const hist = element(document, "canvas", "cwl-hist");
  hist.setAttribute("role", "img");
  hist.setAttribute("aria-label", "histogram of stack distances");
  const readout = element(document, "div", "cwl-readout");
  side.append(hist, readout);
  main.append(plotWrap, side);

  let data = readData(model);
  let point = Math.max(0, Number(model.get("point")) || 0);
  let capacityShown = Number(model.get("capacity")) || 1; // the slider's capacity, drawn before the kernel answers
  let playing = false;
  let speed = 5;
  let playFrom = { point: 0, time: 0 };
  let playFrame = null;
  let draws = 0;
  let histDraws = 0;
  let layout = { cell: 8, originX: 0, originY: 0 };

  const controls = createControls(document, model, writer, {
    onLoopInput(indices) {
      if (playing) stop();
      setPoint(pointFromIndices(indices, data.loops.extents), { write: true });
    },
    onPlay() {
      if (playing) stop();
      else start();
    },
    onSpeed(value) {
      speed = value;
      if (playing) playFrom = { point, time: window.performance.now() };
    },
    onClear() {
      writer.write("selection", []);
    },
    onCapacity(value) {
      capacityShown = value;
      if (tableApplies()) {
        showReadout();
        requestDraw();
      }
    },
  });
  root.append(controls.element, message, main);
  // Playback and the modes are drawn from the arrays sent; the cache, the layouts, the colours and
  // what a selection relates to are computed in the kernel.
  needsKernel(...root.querySelectorAll(".cwl-cache, .cwl-layouts, .cwl-reuse-stat, .cwl-scaling, .cwl-palette, .cwl-line-overlay, .cwl-clear, .cwl-apply"));
  const ctx = canvas.getContext("2d");
  const histCtx = hist.getContext("2d");
  // Light and dark (js/shared/page-theme.js): the grids, legend and histogram follow the theme.
  let look = localLook();
  view.followTheme({ ctx, canvases: [canvas, hist] }, (theme) => {
    look = localLook(theme);
  });

  function setPoint(next, { write = false } = {}) {
    const count = Math.max(1, data.loops.count);
    point = Math.min(Math.max(0, next), count - 1);
    const indices = indicesFromPoint(point, data.loops.extents);
    controls.setLoopValues(indices, point, count);
    if (write) writer.write("point", point);
    requestDraw();
  }

  function tick(now) {
    playFrame = null;
    if (!playing || view.closed()) return;
    const next = advance(playFrom.point, now - playFrom.time, speed, data.loops.count);
    if (next !== point) setPoint(next);
    playFrame = window.requestAnimationFrame(tick);
  }
  function start() {
    playing = true;
    controls.setPlaying(true);
    playFrom = { point, time: window.performance.now() };
    playFrame = window.requestAnimationFrame(tick);
    canvas.dataset.playing = "true";
  }
  function stop() {
    playing = false;
    controls.setPlaying(false);
    if (playFrame !== null) window.cancelAnimationFrame(playFrame);
    playFrame = null;
    canvas.dataset.playing = "false";
    writer.write("point", point);
  }

  /** Elements the current iteration touches: Map element → "read" | "write". */
  function currentAccesses() {
    const out = new Map();
    const lo = data.start[point] ?? 0;
    const hi = data.start[point + 1] ?? lo;
    for (let a = lo; a < hi; a++) {
      const e = data.accessElement[a];
      if (data.accessWrite[a]) out.set(e, "write");
      else if (!out.has(e)) out.set(e, "read");
    }
    return out;
  }

  function draw() {
    if (!ctx) return;
    const started = window.performance.now();
    const ratio = window.devicePixelRatio || 1;
    const available = Math.max(200, Math.floor(plotWrap.clientWidth) - 8);
    const cell = fitCell(data.width, available);
    const labelSize = Math.max(9, Math.min(13, Math.round(cell * 1.2)));
    const originX = 4;
    const originY = 6;
    const width = Math.max(available, originX + data.width * cell + 4);
    const gridBottom = originY + data.height * cell;
    const height = gridBottom + LEGEND_HEIGHT;
    layout = { cell, originX, originY };
    sizeCanvas(canvas, ctx, width, height, ratio);
    ctx.fillStyle = look.background;
    ctx.fillRect(0, 0, width, height);
    const mode = model.get("mode");
    const fromTable = mode === "misses" && tableApplies();
    const fill = mode === "iteration" ? null : fromTable ? tableFill() : data.fills[mode] ?? null;
    const showIteration = mode === "iteration" || playing;
    const selection = new Set(model.get("selection") ?? []);
    const swap = neutralSwap(data.neutral, look);
    const counts = drawTensors(ctx, { cell, originX, originY, labelSize, look }, {
      tensors: data.tensors, x: data.x, y: data.y, n: data.n, fill, swap,
      highlight: showIteration ? currentAccesses() : null,
      lineMask: model.get("line_overlay") ? data.lineMask : null,
      selection,
    });
    // legend row: colour bar of the mode, and swatches of what it marks apart
    const legendY = gridBottom + 18;
    let x = originX;
    const bar = fromTable ? { ...data.table.bar, ticks: data.table.ticks[tableRow()] ?? [] } : data.bars[mode];
    if (fill && bar) {
      drawColourBar(ctx, bar, x, legendY, 180, 10, look);
      x += 200;
    }
    const swatches = [];
    if (showIteration) swatches.push({ colour: look.read, label: "read" }, { colour: look.write, label: "written" });
    for (const s of data.swatches[mode] ?? []) swatches.push({ ...s, colour: swap.get(String(s.colour).toLowerCase()) ?? s.colour });
    if (model.get("line_overlay") && selection.size) swatches.push({ colour: look.line, label: "same cache line" });
    if (selection.size) swatches.push({ colour: look.selection, label: "clicked" });
    drawSwatches(ctx, swatches, x, legendY + 5, 10, look);
    Object.assign(canvas.dataset, {
      cell: String(cell), originX: String(originX), originY: String(originY), point: String(point),
      mode: String(mode), highlighted: String(counts.highlighted), lineCells: String(counts.lineCells),
      draws: String(++draws), drawMs: (window.performance.now() - started).toFixed(1),
      selection: String(selection.size), drawnAt: window.performance.now().toFixed(1),
      capacity: String(capacityShown),
    });
    drawHist();
  }

  function drawHist() {
    if (!histCtx) return;
    const ratio = window.devicePixelRatio || 1;
    const width = Math.max(220, Math.floor(side.clientWidth) || 300);
    sizeCanvas(hist, histCtx, width, HIST_HEIGHT, ratio);
    const capacity = capacityShown;
    const placed = drawHistogram(histCtx, data.hist, capacity, width, HIST_HEIGHT, look, {
      lineBytes: Number(model.get("line")), unit: model.get("capacity_unit"),
    });
    const box = (b) => [b.x, b.y, b.w, b.h].map((v) => v.toFixed(1)).join(",");
    Object.assign(hist.dataset, {
      draws: String(++histDraws),
      capacity: String(capacity),
      ticks: JSON.stringify(placed.ticks.map((t) => [t.label, +t.x.toFixed(1), +t.y.toFixed(1)])),
      labelBox: box(placed.labelBox),
      plotBox: box(placed.plot),
    });
  }

  /** Fully associative with a table: a capacity step is drawn from it at once. */
  function tableApplies() {
    const ways = model.get("ways");
    return Boolean(data.table) && (ways === null || ways === undefined);
  }
  function tableRow() {
    return Math.min(Math.max(1, capacityShown), data.table.capacities) - 1;
  }
  function tableFill() {
    const { severity, lut } = data.table;
    const offset = tableRow() * data.n;
    const out = new Array(data.n);
    for (let e = 0; e < data.n; e++) out[e] = lut[severity[offset + e]];
    return out;
  }
  function missesOf(e) {
    if (tableApplies()) return data.table.elementMisses[tableRow() * data.n + e];
    return data.misses ? data.misses[e] : undefined;
  }

  function showReadout() {
    const value = model.get("readout") ?? {};
    let rows = value.rows ?? [];
    let notes = value.lines ?? [];
    if (tableApplies()) {
      rows = tableRows(data.table, data.tensors.names, capacityShown);
      notes = [cacheNote(model.get("cache_kind"), capacityShown, data.table.line), ...notes.slice(1)];
    }
    const table = element(document, "table", "cwl-readout-table");
    const head = element(document, "tr");
    for (const h of value.header ?? READOUT_HEADER) head.append(element(document, "th", null, String(h)));
    table.append(head);
    for (const row of rows) {
      const tr = element(document, "tr");
      for (const cellText of rowText(row)) tr.append(element(document, "td", null, cellText));
      table.append(tr);
    }
    const list = element(document, "ul", "cwl-notes");
    for (const line of notes) list.append(element(document, "li", null, String(line)));
    readout.replaceChildren(table, list);
    readout.dataset.capacity = String(tableApplies() ? capacityShown : value.capacity ?? "");
  }

  function showMessage() {
    const text = model.get("message") ?? "";
    message.textContent = text;
    message.hidden = !text;
    // a refused value or a failed apply is an error; what apply did, or that it is due, is news
    message.classList.toggle("cwl-note", !/^(refused|could not)/.test(text));
    message.classList.toggle("cwl-pending", Boolean(model.get("apply_pending")));
  }

  function refreshData() {
    const loopsBefore = JSON.stringify(data.loops);
    data = readData(model);
    showReadout();
    if (JSON.stringify(data.loops) !== loopsBefore) {
      if (playing) stop();
      controls.rebuildLoops();
      setPoint(Math.min(point, Math.max(0, data.loops.count - 1)));
    }
    requestDraw();
  }

  // hover tooltip and clicks, in cell coordinates
  function elementAt(event) {
    const rect = canvas.getBoundingClientRect();
    const cx = (event.clientX - rect.left - layout.originX) / layout.cell;
    const cy = (event.clientY - rect.top - layout.originY) / layout.cell;
    return hitElement(data.hitGrid, data.width, data.height, cx, cy);
  }
  function describe(e) {
    const t = data.tensorOf[e];
    const flat = e - (data.tensors.first[t] ?? 0);
    const lines = [elementLabel(data.tensors.names[t] ?? "?", data.tensors.shapes[t] ?? [], flat)];
    if (data.count) lines.push(`accesses: ${data.count[e]}`);
    if (data.reuse && data.reuse.length >= 3 * data.n) {
      const [lo, med, hi] = [data.reuse[3 * e], data.reuse[3 * e + 1], data.reuse[3 * e + 2]];
      lines.push(Number.isNaN(lo) ? "reuse distance: —" : `reuse distance: min ${lo}, median ${med}, max ${hi}`);
    }
    if (data.cold) lines.push(`cold misses: ${data.cold[e]}`);
    const misses = missesOf(e);
    if (misses !== undefined) lines.push(`misses: ${misses}`);
    if (data.related && data.related[e]) lines.push(`related accesses: ${data.related[e]}`);
    if (data.lineId) lines.push(`cache line: ${data.lineId[e]}`);
    return lines;
  }
  function onMove(event) {
    const e = elementAt(event);
    if (e < 0) {
      tooltip.hidden = true;
      return;
    }
    tooltip.replaceChildren(...describe(e).map((text, k) => element(document, "div", k ? "cw-tooltip-row" : "cw-tooltip-title", text)));
    const rect = plotWrap.getBoundingClientRect();
    tooltip.style.left = `${Math.min(event.clientX - rect.left + 12, Math.max(0, rect.width - 240))}px`;
    tooltip.style.top = `${event.clientY - rect.top + 12}px`;
    tooltip.hidden = false;
  }
  function onLeave() {
    tooltip.hidden = true;
  }
  function onClick(event) {
    const e = elementAt(event);
    if (e < 0) return;
    const current = model.get("selection") ?? [];
    const next = current.includes(e) ? current.filter((v) => v !== e) : [...current, e];
    writer.write("selection", next);
    const mode = model.get("mode");
    if (mode === "iteration" || mode === "flattened") writer.write("mode", "related");
    if (playing) stop();
  }
  view.listen(canvas, "mousemove", onMove);
  view.listen(canvas, "mouseleave", onLeave);
  view.listen(canvas, "click", onClick);

  const { on } = view;
  view.onChange(DATA_TRAITS, refreshData);
  view.onChange(CONTROL_TRAITS, () => {
    controls.sync();
    requestDraw();
  });
  on("change:capacity", () => {
    if (!writer.isPending("capacity")) capacityShown = Number(model.get("capacity")) || 1;
    showReadout();
  });
  on("change:ways", showReadout);
  on("change:selection", requestDraw);
  on("change:readout", () => {
    canvas.dataset.readoutAt = window.performance.now().toFixed(1);
    showReadout();
    drawHist();
  });
  on("change:message", showMessage);
  on("change:apply_pending", () => {
    showMessage();
    controls.sync();
  });
  on("change:point", () => {
    if (!playing && !writer.isPending("point")) setPoint(Number(model.get("point")) || 0);
  });

  view.observeResize([plotWrap, side]); // the histogram takes the side's width
  controls.rebuildLoops();
  controls.sync();
  setPoint(point);
  showReadout();
  showMessage();

  return {
    draw,
    dispose() {
      if (playing) stop();
      controls.destroy();
    },
  };
}

export default { render };
