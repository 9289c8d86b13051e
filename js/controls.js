// The control bar (div.cw-controls): log sliders for the peaks, tiles, pipeline, policy, stepping, depth,
// y axis, and one integer slider per workload parameter (input.cw-param[data-param=name]). Each control writes its trait through the frame-coalescing writer, shows its live value
// in span.cw-value, and follows changes made from Python.
import { element, labelled, setOptions } from "./dom.js";
import { formatSI } from "./format.js";
import { needsKernel } from "./kernel.js";
import { createParamSliders } from "./param-sliders.js";

const LOG_SLIDER_STEPS = 1000;
// Controls the view answers itself (the scene carries what they need); every other one asks the
// kernel for a new scene and is hidden where there is none (js/kernel.js).
const FRONT_END_CONTROLS = new Set(["y axis"]);

/** What each control does, in a sentence: its label's tooltip (sliders add their range). */
export const CONTROL_HELP = {
  "peak compute": "The machine's peak compute rate: lower it to see which phases become compute-bound.",
  "peak bandwidth": "The machine's peak memory bandwidth: lower it to see which phases become memory-bound.",
  tiles: "How many tiles each phase is cut into; with pipelining, tiles of different phases overlap.",
  pipeline: "Let a consumer's tile start as soon as its producers' tile is done, instead of one tile at a time.",
  policy: "What happens when concurrent tiles ask for more than 100% of a resource: dilate stretches a tile to end with its longest neighbour, throttle slows every running tile until demand fits.",
  stepping: "When a pipelined tile starts: event (as soon as its inputs and buffer allow) or lockstep (each step waits for the previous step's longest tile, as the paper authors' tool does).",
  "pipe level": "The memory level drawn as the pipe above each compute line; most time picks the level that bounds the longest phases.",
  depth: "Buffer depth between a producer and a consumer: how many tiles a producer may run ahead (2 = double buffering).",
  "y axis": "Relative: utilization as a fraction of peak; absolute: rates in the machine's units.",
};

/** [lo, hi] from a *_range trait, falling back around `value` when it is missing or bad. */
export function logRange(range, value) {
  let [lo, hi] = Array.isArray(range) ? range.map(Number) : [NaN, NaN];
  if (!(lo > 0) || !(hi > lo)) {
    const centre = value > 0 ? value : 1;
    [lo, hi] = [centre / 1000, centre * 1000];
  }
  return [Math.log10(lo), Math.log10(hi)];
}

function clampInteger(value, lo, hi) {
  const n = Math.round(Number(value));
  return Number.isFinite(n) ? Math.min(Math.max(n, lo), hi) : lo;
}

/**
 * createControls(document, model, writer) → { element, sync(), destroy() }.
 * sync() re-reads every trait into the controls (called on any relevant trait change).
 */
export function createControls(document, model, writer) {
  const bar = element(document, "div", { className: "cw-controls" });
  const controls = [];
  const cleanups = [];

  function listen(node, event, handler) {
    node.addEventListener(event, handler);
    cleanups.push(() => node.removeEventListener(event, handler));
  }

  function addControl(labelText, input, sync, { showValue = true } = {}) {
    const value = element(document, "span", { className: "cw-value" });
    value.hidden = !showValue; // a select or number box already shows its value: no second readout
    const label = labelled(document, bar, labelText, input, value);
    label.title = CONTROL_HELP[labelText] ?? "";
    if (!FRONT_END_CONTROLS.has(labelText)) needsKernel(label);
    controls.push(() => sync(value));
    return value;
  }

  function logSlider(key, className, labelText, unitKey) {
    const input = element(document, "input", { type: "range", className });
    const unit = () => (model.get("units") ?? {})[unitKey] ?? "";
    const show = (valueSpan, peak) => { valueSpan.textContent = formatSI(peak, unit()); };
    const valueSpan = addControl(labelText, input, (span) => {
      const peak = Number(model.get(key));
      const [lo, hi] = logRange(model.get(`${key}_range`), peak);
      input.min = String(lo);
      input.max = String(hi);
      input.step = String((hi - lo) / LOG_SLIDER_STEPS);
      if (!writer.isPending(key) && peak > 0) input.value = String(Math.log10(peak));
      show(span, writer.isPending(key) ? 10 ** Number(input.value) : peak);
      input.title = `${formatSI(10 ** lo, unit())} … ${formatSI(10 ** hi, unit())}`;
    });
    listen(input, "input", () => {
      const peak = 10 ** Number(input.value);
      show(valueSpan, peak);
      writer.write(key, peak);
    });
  }

  logSlider("peak_compute", "cw-peak-compute", "peak compute", "compute");
  logSlider("peak_bandwidth", "cw-peak-bandwidth", "peak bandwidth", "bandwidth");

  const tiles = element(document, "input", { type: "range", className: "cw-tiles", min: "1", step: "1" });
  const tilesMax = () => Math.max(1, Math.round(Number(model.get("tiles_max"))) || Math.max(64, Number(model.get("tiles")) || 1));
  const tilesValue = addControl("tiles", tiles, (span) => {
    tiles.max = String(tilesMax());
    tiles.title = `1 … ${tilesMax()} (the range grows as you reach its end; or set diagram.tiles from Python)`;
    if (!writer.isPending("tiles")) tiles.value = String(model.get("tiles") ?? 1);
    span.textContent = writer.isPending("tiles") ? tiles.value : String(model.get("tiles") ?? 1);
  });
  listen(tiles, "input", () => {
    const value = clampInteger(tiles.value, 1, tilesMax());
    tilesValue.textContent = String(value);
    writer.write("tiles", value);
  });

  const pipeline = element(document, "input", { type: "checkbox", className: "cw-pipeline" });
  const pipelineValue = addControl("pipeline", pipeline, (span) => {
    pipeline.checked = Boolean(model.get("pipeline"));
    span.textContent = pipeline.checked ? "on" : "off";
  });
  listen(pipeline, "change", () => {
    pipelineValue.textContent = pipeline.checked ? "on" : "off";
    writer.write("pipeline", pipeline.checked);
  });

  function selectControl(key, className, labelText, options) {
    const select = element(document, "select", { className });
    const valueSpan = addControl(labelText, select, (span) => {
      const current = String(model.get(key) ?? "");
      setOptions(document, select, options(), current);
      span.textContent = current;
    }, { showValue: false });
    listen(select, "change", () => {
      valueSpan.textContent = select.value;
      writer.write(key, select.value);
    });
  }

  // The policies are the kernel's `policies` trait (campaign_widget.settings.POLICIES), so a policy
  // added there is offered here with no change to the view.
  selectControl("policy", "cw-policy", "policy", () => {
    const synced = model.get("policies");
    return Array.isArray(synced) ? synced.map(String) : [];
  });
  // When a pipelined tile starts: "event" (the design notes' rule) or "lockstep" (the paper authors' tool).
  selectControl("stepping", "cw-stepping", "stepping", () => ["event", "lockstep"]);

  // The memory level drawn as the pipe (design.md §8), offered only where the machine has several:
  // "" lets the kernel pick the level that bounds the most time.
  const levelSelect = element(document, "select", { className: "cw-level" });
  const levelValue = addControl("pipe level", levelSelect, (span) => {
    const levels = (model.get("levels") ?? []).map(String);
    setOptions(document, levelSelect, ["", ...levels], String(model.get("level") ?? ""), ["most time", ...levels]);
    span.textContent = model.get("level") || "most time";
    if (levelSelect.parentNode) levelSelect.parentNode.hidden = levels.length < 2; // its label
  }, { showValue: false });
  listen(levelSelect, "change", () => {
    levelValue.textContent = levelSelect.value || "most time";
    writer.write("level", levelSelect.value);
  });

  const depth = element(document, "input", { type: "number", className: "cw-depth", min: "1", step: "1" });
  const depthValue = addControl("depth", depth, (span) => {
    if (!writer.isPending("depth") && document.activeElement !== depth) depth.value = String(model.get("depth") ?? 2);
    span.textContent = String(model.get("depth") ?? 2);
  }, { showValue: false });
  const writeDepth = () => {
    if (depth.value === "") return;
    const value = clampInteger(depth.value, 1, Number.MAX_SAFE_INTEGER);
    depthValue.textContent = String(value);
    writer.write("depth", value);
  };
  listen(depth, "input", writeDepth);
  listen(depth, "change", () => {
    writeDepth();
    depth.value = String(clampInteger(depth.value, 1, Number.MAX_SAFE_INTEGER));
  });

  const yAxis = element(document, "button", { type: "button", className: "cw-y-axis", title: "click to switch the y axis between relative (fraction of peak) and absolute (rates)" });
  const yAxisValue = addControl("y axis", yAxis, (span) => {
    const mode = model.get("y_axis") === "absolute" ? "absolute" : "relative";
    yAxis.textContent = mode; // the button names the axis shown; a click switches to the other
    span.textContent = mode;
  }, { showValue: false });
  listen(yAxis, "click", () => {
    const next = model.get("y_axis") === "absolute" ? "relative" : "absolute";
    yAxisValue.textContent = next;
    writer.write("y_axis", next);
    writer.flush();
  });

  // One integer slider per workload parameter (js/param-sliders.js), after the schedule controls.
  const params = createParamSliders(document, model, writer);
  needsKernel(params.element);
  bar.append(params.element);

  function sync() {
    for (const control of controls) control();
    params.sync();
    bar.hidden = model.get("show_controls") === false;
  }
  sync();

  return {
    element: bar,
    sync,
    destroy() {
      for (const cleanup of cleanups) cleanup();
      cleanups.length = 0;
      params.destroy();
    },
  };
}
