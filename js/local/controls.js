// The local view's controls: playback (one slider per loop index, play/pause, speed), view (mode,
// statistic, scaling, palette, cache-line overlay, clear), cache (line, capacity, ways, loop order)
// and one row per tensor layout (order, row padding, offset). Model controls write their trait;
// Python validates and recomputes, and a refused value comes back as the stored one plus a message.
import { element, labelled as labelControl } from "../shared/dom.js";

export const MODES = [
  ["iteration", "iteration (playback)"],
  ["flattened", "flattened: accesses per element"],
  ["related", "related accesses (clicked)"],
  ["reuse", "reuse distance"],
  ["misses", "misses per element"],
];
export const SPEEDS = [1, 2, 5, 10, 30, 100, 300];
export const SCALINGS = [
  ["median", "median-centred"],
  ["mean", "mean-centred"],
  ["hist", "rank (hist)"],
  ["linear", "linear"],
  ["log", "log"],
];
export const MAX_LINE = 65536; // LocalView's MAX_LINE

/**
 * What each control says: its label and its tooltip (one sentence). Per-loop and per-tensor entries
 * are functions of the loop's name and extent or the tensor's name.
 */
export const HELP = {
  loop: (name, extent) => ({
    label: `loop ${name} (0…${Math.max(0, extent - 1)})`,
    title: `The counter of loop ${name}, 0 … ${Math.max(0, extent - 1)}: drag to show the iteration it picks`,
  }),
  play: { title: "Play the loop nest one iteration after another, at the playback speed; press again to pause" },
  speed: { label: "playback speed", title: "How many iterations a second the playback shows" },
  mode: {
    label: "grids show",
    title: "What the grids show: the current iteration's accesses, the accesses per element, the accesses " +
      "related to the clicked elements, each element's reuse distance, or its misses",
  },
  reuseStat: {
    label: "reuse distance per element",
    title: "Which of an element's reuse distances (lines touched between two uses) the reuse heatmap " +
      "colours: the shortest, the median or the longest",
  },
  scaling: {
    label: "colour scale",
    title: "How values map to colours: centred on the median or the mean (value ÷ 2 × centre), by rank, " +
      "or linearly or logarithmically between the smallest and the largest",
  },
  palette: { label: "palette", title: "The heatmaps' colours; viridis and cividis stay readable with colour blindness" },
  overlay: {
    label: "cache-line overlay",
    title: "Outline the elements that share a cache line with a clicked element",
  },
  clear: { title: "Forget the clicked elements (the related accesses and the histogram go back to all accesses)" },
  apply: { title: "Give the workload's phase the bytes this cache, loop order and layouts predict (linked diagrams redraw)" },
  line: {
    label: `line size (B, 1…${MAX_LINE})`,
    title: `Bytes per cache line, a power of two from 1 to ${MAX_LINE}; press Enter or leave the box to apply`,
  },
  capacity: {
    label: "capacity",
    title: "The cache's size: misses are counted for this many lines (a fully associative step is read " +
      "from the distance histogram at once)",
  },
  unit: { label: "capacity unit", title: "Show the capacity in cache lines or in bytes (lines × line size)" },
  ways: {
    label: "associativity",
    title: "Fully associative (one set of all lines) or N-way set-associative (sets of N lines, a line " +
      "goes to set line mod sets); the capacity must be a multiple of N",
  },
  loopOrder: {
    label: "loop order (outermost first)",
    title: "The loops from outermost to innermost, e.g. \"ikj\" or \"k,i,j\", each index once; press Enter to apply",
  },
  order: (tensor) => ({
    label: "order",
    title: `How ${tensor} lies in memory: C (row-major), F (column-major) or its dimensions outermost ` +
      "first, e.g. \"1,0\"",
  }),
  pad: (tensor) => ({
    label: "row pad (elements)",
    title: `Extra elements after every row of ${tensor} (every column in F order), 0 or more`,
  }),
  offset: (tensor) => ({
    label: "offset (elements)",
    title: `Elements left free before ${tensor}'s first one, 0 or more: it shifts ${tensor} across cache lines`,
  }),
};
const WAYS = [null, 1, 2, 4, 8, 16, 32];
let views = 0; // a per-view prefix keeps element ids (datalists) unique when a model is shown twice

const option = (document, value, label) => element(document, "option", { value: String(value) }, label);

/** "2 KiB"-style byte counts for the capacity label. */
export function formatBytes(bytes) {
  if (!Number.isFinite(bytes)) return "—";
  const units = ["B", "KiB", "MiB", "GiB"];
  let v = bytes;
  let k = 0;
  while (v >= 1024 && k < units.length - 1 && v % 1024 === 0) {
    v /= 1024;
    k++;
  }
  return `${v} ${units[k]}`;
}

/** The capacity control's label with its range, in the unit shown: "capacity (1…40 lines)". */
export function capacityRangeLabel(min, max, lineBytes, unit) {
  if (unit === "bytes") return `capacity (${formatBytes(min * lineBytes)}…${formatBytes(max * lineBytes)})`;
  return `capacity (${min}…${max} lines)`;
}

/** The capacity slider's label: lines, or their bytes when the unit is bytes. */
export function capacityLabel(lines, lineBytes, unit) {
  return unit === "bytes" ? formatBytes(lines * lineBytes) : `${lines} line${lines === 1 ? "" : "s"}`;
}

/** Parse the loop-order text box: "k, i, j" or "kij" (single-letter indices) → ["k", "i", "j"]. */
export function parseLoopOrder(text, known) {
  const trimmed = String(text).trim();
  if (trimmed.includes(",") || trimmed.includes(" ")) return trimmed.split(/[\s,]+/).filter(Boolean);
  if (known.every((name) => name.length === 1)) return [...trimmed];
  return [trimmed];
}

/**
 * createControls(document, model, writer, handlers) → { element, sync(), rebuildLoops(), setPlaying(),
 * setLoopValues(), destroy() }. handlers: { onLoopInput(indices), onPlay(), onSpeed(speed), onClear() }.
 */
export function createControls(document, model, writer, handlers) {
  const root = element(document, "div", { className: "cwl-controls" });
  const uid = `cwl${++views}`;
  const cleanups = [];
  const listen = (el, event, fn) => {
    el.addEventListener(event, fn);
    cleanups.push(() => el.removeEventListener(event, fn));
    if (event === "change" && el.tagName === "INPUT" && (el.type === "number" || el.type === "text")) {
      const onKey = (e) => { if (e.key === "Enter") fn(); }; // Enter commits, as leaving the field does
      el.addEventListener("keydown", onKey);
      cleanups.push(() => el.removeEventListener("keydown", onKey));
    }
  };
  // a control with its label (dom.js) and its tooltip, on the label and on each input
  const labelled = (parent, help, ...inputs) => {
    const label = labelControl(document, parent, help.label, ...inputs);
    label.title = help.title;
    for (const input of inputs) if (input.tagName !== "SPAN") input.title = help.title;
    return label;
  };

  // -- playback --
  const playback = element(document, "div", { className: "cwl-row cwl-playback" });
  const loopsBox = element(document, "span", { className: "cwl-loops" });
  const play = element(document, "button", { className: "cwl-play", type: "button", title: HELP.play.title }, "Play");
  const speed = element(document, "select", { className: "cwl-speed" });
  for (const s of SPEEDS) speed.append(option(document, s, `${s} it/s`));
  speed.value = "5";
  const iteration = element(document, "span", { className: "cw-value cwl-iteration" });
  playback.append(loopsBox, play);
  labelled(playback, HELP.speed, speed);
  playback.append(iteration);
  listen(play, "click", () => handlers.onPlay());
  listen(speed, "change", () => handlers.onSpeed(Number(speed.value)));
  let loopInputs = [];
  let loopValues = [];

  function rebuildLoops() {
    const loops = model.get("loops") ?? {};
    const names = loops.names ?? [];
    const extents = loops.extents ?? [];
    loopsBox.replaceChildren();
    loopInputs = names.map((name, k) => {
      const input = element(document, "input", {
        type: "range", min: "0", max: String(Math.max(0, extents[k] - 1)), step: "1", value: "0",
        className: "cwl-loop", "data-loop": name,
      });
      const value = element(document, "span", { className: "cw-value cwl-loop-value" }, "0");
      labelled(loopsBox, HELP.loop(name, extents[k]), input, value);
      const onInput = () => {
        value.textContent = input.value;
        handlers.onLoopInput(loopInputs.map((i) => Number(i.input.value)));
      };
      input.addEventListener("input", onInput);
      return { input, value, onInput };
    });
  }

  function setLoopValues(indices, point, count) {
    loopValues = indices;
    loopInputs.forEach(({ input, value }, k) => {
      input.value = String(indices[k] ?? 0);
      value.textContent = String(indices[k] ?? 0);
    });
    iteration.textContent = `iteration ${point + 1} / ${count}`;
  }

  function setPlaying(playing) {
    play.textContent = playing ? "Pause" : "Play";
    play.setAttribute("aria-pressed", playing ? "true" : "false");
  }

  // -- view --
  const viewRow = element(document, "div", { className: "cwl-row cwl-view" });
  const mode = element(document, "select", { className: "cwl-mode" });
  for (const [value, label] of MODES) mode.append(option(document, value, label));
  const stat = element(document, "select", { className: "cwl-reuse-stat" });
  for (const s of ["min", "median", "max"]) stat.append(option(document, s, s));
  const scaling = element(document, "select", { className: "cwl-scaling" });
  for (const [value, label] of SCALINGS) scaling.append(option(document, value, label));
  const palette = element(document, "select", { className: "cwl-palette" });
  for (const [v, l] of [["gyr", "green-yellow-red"], ["viridis", "viridis"], ["cividis", "cividis"]]) {
    palette.append(option(document, v, l));
  }
  const overlay = element(document, "input", { type: "checkbox", className: "cwl-line-overlay" });
  const clear = element(document, "button", { className: "cwl-clear", type: "button", title: HELP.clear.title }, "Clear selection");
  const apply = element(document, "button", { className: "cwl-apply", type: "button", title: HELP.apply.title }, "Apply to workload");
  labelled(viewRow, HELP.mode, mode);
  labelled(viewRow, HELP.reuseStat, stat);
  labelled(viewRow, HELP.scaling, scaling);
  labelled(viewRow, HELP.palette, palette);
  labelled(viewRow, HELP.overlay, overlay);
  viewRow.append(clear, apply);
  listen(mode, "change", () => writer.write("mode", mode.value));
  listen(stat, "change", () => writer.write("reuse_stat", stat.value));
  listen(scaling, "change", () => writer.write("scaling", scaling.value));
  listen(palette, "change", () => writer.write("palette", palette.value));
  listen(overlay, "change", () => writer.write("line_overlay", overlay.checked));
  listen(clear, "click", () => handlers.onClear());
  listen(apply, "click", () => writer.write("apply_requests", (Number(model.get("apply_requests")) || 0) + 1));

  // -- cache --
  const cacheRow = element(document, "div", { className: "cwl-row cwl-cache" });
  const line = element(document, "input", { type: "number", className: "cwl-line", min: "1", max: String(MAX_LINE), step: "1" });
  const capacity = element(document, "input", { type: "range", className: "cwl-capacity", min: "1", step: "1" });
  const capacityValue = element(document, "span", { className: "cw-value cwl-capacity-value" });
  const unit = element(document, "select", { className: "cwl-capacity-unit" });
  unit.append(option(document, "lines", "lines"), option(document, "bytes", "bytes"));
  const ways = element(document, "select", { className: "cwl-ways" });
  for (const w of WAYS) ways.append(option(document, w ?? "full", w === null ? "fully associative" : `${w}-way`));
  const order = element(document, "input", { type: "text", className: "cwl-loop-order", size: "10" });
  labelled(cacheRow, HELP.line, line);
  const capacityLabelled = labelled(cacheRow, HELP.capacity, capacity, capacityValue);
  const capacityText = capacityLabelled.children[0]; // dom.js: span.cw-label comes first
  labelled(cacheRow, HELP.unit, unit);
  labelled(cacheRow, HELP.ways, ways);
  labelled(cacheRow, HELP.loopOrder, order);
  const showCapacity = (lines) => {
    capacityValue.textContent = capacityLabel(lines, Number(model.get("line")), model.get("capacity_unit"));
  };
  listen(line, "change", () => writer.write("line", Number(line.value)));
  listen(capacity, "input", () => {
    showCapacity(Number(capacity.value));
    writer.write("capacity", Number(capacity.value));
    handlers.onCapacity?.(Number(capacity.value));
  });
  listen(unit, "change", () => writer.write("capacity_unit", unit.value));
  listen(ways, "change", () => writer.write("ways", ways.value === "full" ? null : Number(ways.value)));
  listen(order, "change", () => {
    const known = model.get("loop_order") ?? [];
    writer.write("loop_order", parseLoopOrder(order.value, known));
  });

  // -- layouts: one row per tensor --
  const layoutRow = element(document, "div", { className: "cwl-row cwl-layouts" });
  let layoutInputs = new Map();
  function rebuildLayouts() {
    const layouts = model.get("layouts") ?? {};
    const names = Object.keys(layouts);
    if (names.length === layoutInputs.size && names.every((n) => layoutInputs.has(n))) return;
    layoutRow.replaceChildren();
    layoutInputs = new Map();
    for (const name of names) {
      const box = element(document, "span", { className: "cwl-layout", "data-tensor": name });
      box.append(element(document, "span", { className: "cwl-tensor-name" }, name));
      // "C", "F", or the dimensions outermost first ("2,0,1"): a text field with the two usual ones offered
      const ord = element(document, "input", { type: "text", className: "cwl-order", size: "5", list: `${uid}-orders-${layoutInputs.size}` });
      const choices = element(document, "datalist", { id: `${uid}-orders-${layoutInputs.size}` });
      choices.append(option(document, "C", "C (row-major)"), option(document, "F", "F (column-major)"));
      box.append(choices);
      const pad = element(document, "input", { type: "number", className: "cwl-pad", min: "0", step: "1" });
      const offset = element(document, "input", { type: "number", className: "cwl-offset", min: "0", step: "1" });
      labelled(box, HELP.order(name), ord);
      labelled(box, HELP.pad(name), pad);
      labelled(box, HELP.offset(name), offset);
      layoutRow.append(box);
      const write = (field, value) => {
        const current = model.get("layouts") ?? {};
        writer.write("layouts", { ...current, [name]: { ...(current[name] ?? {}), [field]: value } });
      };
      listen(ord, "change", () => write("order", ord.value));
      listen(pad, "change", () => write("pad", Number(pad.value)));
      listen(offset, "change", () => write("offset", Number(offset.value)));
      layoutInputs.set(name, { ord, pad, offset });
    }
  }

  root.append(playback, viewRow, cacheRow, layoutRow);

  function sync() {
    const setIf = (key, input, value) => {
      if (!writer.isPending(key) && document.activeElement !== input) input.value = String(value);
    };
    setIf("mode", mode, model.get("mode"));
    setIf("reuse_stat", stat, model.get("reuse_stat"));
    setIf("scaling", scaling, model.get("scaling"));
    setIf("palette", palette, model.get("palette"));
    overlay.checked = Boolean(model.get("line_overlay"));
    apply.hidden = !model.get("can_apply");
    apply.classList.toggle("cwl-pending", Boolean(model.get("apply_pending")));
    if (!writer.isPending("line")) line.value = String(model.get("line"));
    const waysValue = model.get("ways");
    if (!writer.isPending("ways")) ways.value = waysValue === null || waysValue === undefined ? "full" : String(waysValue);
    const step = waysValue ? Number(waysValue) : 1;
    capacity.min = String(step);
    capacity.step = String(step);
    capacity.max = String(Math.max(step, Number(model.get("capacity_max")) || 1));
    if (!writer.isPending("capacity")) capacity.value = String(model.get("capacity"));
    if (capacityText) {
      capacityText.textContent = capacityRangeLabel(Number(capacity.min), Number(capacity.max), Number(model.get("line")), model.get("capacity_unit"));
    }
    showCapacity(writer.isPending("capacity") ? Number(capacity.value) : Number(model.get("capacity")));
    if (!writer.isPending("capacity_unit")) unit.value = model.get("capacity_unit");
    if (!writer.isPending("loop_order")) order.value = (model.get("loop_order") ?? []).join(",");
    rebuildLayouts();
    if (!writer.isPending("layouts")) {
      const layouts = model.get("layouts") ?? {};
      for (const [name, inputs] of layoutInputs) {
        const l = layouts[name] ?? {};
        inputs.ord.value = l.order ?? "C";
        inputs.pad.value = String(l.pad ?? 0);
        inputs.offset.value = String(l.offset ?? 0);
      }
    }
  }

  return {
    element: root,
    sync,
    rebuildLoops,
    setLoopValues,
    setPlaying,
    get loopValues() {
      return loopValues;
    },
    destroy() {
      for (const c of cleanups) c();
      for (const { input, onInput } of loopInputs) input.removeEventListener("input", onInput);
    },
  };
}
