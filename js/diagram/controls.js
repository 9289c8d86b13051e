// The control bar (div.cw-controls): log sliders for the peaks, tiles (a slider and a number box),
// pipeline, policy, when tiles start (the `stepping` trait), depth, y axis, and one integer slider per
// workload parameter (input.cw-param[data-param=name]). Each control has a label whose tooltip says
// what it does (CONTROL_HELP), shows its range beside it where it has one (span.cw-range), writes its
// trait through the frame-coalescing writer, shows its live value once (span.cw-value beside a
// slider; a select or number box shows its own) and follows changes made from Python.
import { element, labelled, setOptions } from "../shared/dom.js";
import { formatNumber, formatSI } from "../shared/format.js";
import { needsKernel } from "../shared/kernel.js";
import { createParamSliders } from "../shared/param-sliders.js";

const LOG_SLIDER_STEPS = 1000;
// Controls the view answers itself (the scene carries what they need); every other one asks the
// kernel for a new scene and is hidden where there is none (js/shared/kernel.js).
const FRONT_END_CONTROLS = new Set(["y axis"]);
// A range is quieter than the value beside it (inline: the shared stylesheet is js/shared/styles.js's).
const RANGE_STYLE = "color: var(--jp-ui-font-color2, #666); font-size: 0.9em; font-variant-numeric: tabular-nums;";

/** What each control does, in a sentence: its label's tooltip (sliders add their range). */
export const CONTROL_HELP = {
  "peak compute": "The machine's peak compute rate: lower it to see which phases become compute-bound.",
  "peak bandwidth": "The machine's peak memory bandwidth (on a machine with several memory levels, the farthest level's, named beside it): lower it to see which phases become memory-bound.",
  tiles: "How many tiles each phase is cut into; with pipelining, tiles of different phases overlap. Drag, or type any count in the box and press Enter.",
  pipeline: "Let a consumer's tile start as soon as its producers' tile is done, instead of one tile at a time.",
  policy: "What happens when concurrent tiles ask for more than 100% of a resource: dilate stretches a tile to end with its longest neighbour, throttle slows every running tile until demand fits.",
  "tiles start": "When a pipelined tile starts: \"when ready\" starts it as soon as its producers' tile and its own previous tile are done and its buffer has room; \"in lockstep\" starts the tiles in steps, each step when the previous step's longest tile ends, as the paper authors' tool does.",
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

/** The stepping trait's values and what the select shows for each. */
export const STEPPING_LABELS = { event: "when ready", lockstep: "in lockstep" };

/** "lo … hi" of a slider's range, plain numbers with SI prefixes past a million (the unit is on the
 * value beside it: "512 G … 5.12 P" for FLOP/s, "0.01 … 100" for × peak). */
export function rangeText(lo, hi) {
  return `${formatNumber(lo, 3)} … ${formatNumber(hi, 3)}`;
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

  function addControl(labelText, input, sync, { showValue = true, after = [] } = {}) {
    const value = element(document, "span", { className: "cw-value" });
    value.hidden = !showValue; // a select or number box already shows its value: no second readout
    const label = labelled(document, bar, labelText, ...[input].flat(), value, ...after);
    label.title = CONTROL_HELP[labelText] ?? "";
    if (!FRONT_END_CONTROLS.has(labelText)) needsKernel(label);
    controls.push(() => sync(value));
    value.control = label; // its label, for a control whose label follows the state
    return value;
  }

  function logSlider(key, className, labelText, unitKey, levelOf = null) {
    const input = element(document, "input", { type: "range", className });
    const range = element(document, "span", { className: "cw-range", style: RANGE_STYLE });
    const unit = () => (model.get("units") ?? {})[unitKey] ?? "";
    const show = (valueSpan, peak) => { valueSpan.textContent = formatSI(peak, unit()); };
    const valueSpan = addControl(labelText, input, (span) => {
      const name = valueSpan?.control?.children?.[0]; // span.cw-label
      if (levelOf && name) name.textContent = levelOf() ? `${labelText} (${levelOf()})` : labelText; // the level it sets
      const peak = Number(model.get(key));
      const [lo, hi] = logRange(model.get(`${key}_range`), peak);
      input.min = String(lo);
      input.max = String(hi);
      input.step = String((hi - lo) / LOG_SLIDER_STEPS);
      if (!writer.isPending(key) && peak > 0) input.value = String(Math.log10(peak));
      show(span, writer.isPending(key) ? 10 ** Number(input.value) : peak);
      input.title = `${formatSI(10 ** lo, unit())} … ${formatSI(10 ** hi, unit())}`;
      range.textContent = rangeText(10 ** lo, 10 ** hi);
    }, { after: [range] });
    listen(input, "input", () => {
      const peak = 10 ** Number(input.value);
      show(valueSpan, peak);
      writer.write(key, peak);
    });
  }

  logSlider("peak_compute", "cw-peak-compute", "peak compute", "compute");
  // The bandwidth slider sets the farthest memory level's peak (the last of `levels`): named where there are several.
  logSlider("peak_bandwidth", "cw-peak-bandwidth", "peak bandwidth", "bandwidth", () => {
    const levels = model.get("levels") ?? [];
    return levels.length > 1 ? String(levels[levels.length - 1]) : "";
  });

  // Tiles: a slider up to tiles_max (the kernel grows it with the workload and as the slider nears its
  // end) and a number box that takes any count, typed and sent on Enter or when it loses focus: the
  // kernel checks it (a whole number >= 1 a view can be sent), and a refused count comes back as the
  // kernel's value with the reason in the readout.
  const tiles = element(document, "input", { type: "range", className: "cw-tiles", min: "1", step: "1" });
  const tilesBox = element(document, "input", {
    type: "number", className: "cw-tiles-box", min: "1", step: "1", "aria-label": "tiles (type a count)", style: "width: 5.5em;",
    title: "type any whole number of tiles >= 1 and press Enter, also past the slider's end",
  });
  const tilesRange = element(document, "span", { className: "cw-range", style: RANGE_STYLE });
  const tilesMax = () => Math.max(1, Math.round(Number(model.get("tiles_max"))) || Math.max(64, Number(model.get("tiles")) || 1));
  let typingTiles = false;
  addControl("tiles", [tiles, tilesBox], () => {
    tiles.max = String(tilesMax());
    tiles.title = `1 … ${tilesMax()} (the range grows as you reach its end; type a larger count in the box)`;
    tilesRange.textContent = `1 … ${tilesMax()}`;
    const shown = writer.isPending("tiles") ? tiles.value : String(model.get("tiles") ?? 1);
    if (!writer.isPending("tiles")) tiles.value = shown;
    if (!typingTiles) tilesBox.value = shown;
  }, { showValue: false, after: [tilesRange] });
  listen(tiles, "input", () => {
    const value = clampInteger(tiles.value, 1, tilesMax());
    tilesBox.value = String(value);
    writer.write("tiles", value);
  });
  const commitTiles = () => {
    typingTiles = false;
    const typed = tilesBox.value.trim();
    if (typed === "" || !Number.isFinite(Number(typed))) {
      tilesBox.value = String(model.get("tiles") ?? 1); // nothing a count: the kernel's value again
      return;
    }
    const value = Number(typed); // as typed, 2.5 and 0 included: the kernel says what is wrong with it
    if (Number.isInteger(value) && value >= 1 && value <= tilesMax()) tiles.value = String(value);
    writer.write("tiles", value);
    writer.flush();
  };
  listen(tilesBox, "input", () => { typingTiles = true; });
  // Enter sends, Escape undoes; the keys stay in the box (data-lm-suppress-shortcuts keeps
  // JupyterLab's command-mode shortcuts, Enter among them, out of it).
  tilesBox.setAttribute("data-lm-suppress-shortcuts", "true");
  listen(tilesBox, "keydown", (event) => {
    event.stopPropagation?.();
    if (event.key === "Enter") {
      event.preventDefault?.();
      commitTiles();
    } else if (event.key === "Escape") {
      typingTiles = false;
      tilesBox.value = String(model.get("tiles") ?? 1);
    }
  });
  listen(tilesBox, "change", () => { if (typingTiles) commitTiles(); }); // left the box with a new count

  const pipeline = element(document, "input", { type: "checkbox", className: "cw-pipeline" });
  const pipelineValue = addControl("pipeline", pipeline, (span) => {
    pipeline.checked = Boolean(model.get("pipeline"));
    span.textContent = pipeline.checked ? "on" : "off";
  });
  listen(pipeline, "change", () => {
    pipelineValue.textContent = pipeline.checked ? "on" : "off";
    writer.write("pipeline", pipeline.checked);
  });

  function selectControl(key, className, labelText, options, optionLabel = (v) => v) {
    const select = element(document, "select", { className });
    const valueSpan = addControl(labelText, select, (span) => {
      const current = String(model.get(key) ?? "");
      const values = options();
      setOptions(document, select, values, current, values.map(optionLabel));
      span.textContent = current;
    }, { showValue: false });
    listen(select, "change", () => {
      valueSpan.textContent = select.value;
      writer.write(key, select.value);
    });
  }

  // The policies are the kernel's `policies` trait (campaign_widget.model.settings.POLICIES), so a policy
  // added there is offered here with no change to the view.
  selectControl("policy", "cw-policy", "policy", () => {
    const synced = model.get("policies");
    return Array.isArray(synced) ? synced.map(String) : [];
  });
  // When a pipelined tile starts (the `stepping` trait): "event", the design notes' rule, shown as
  // "when ready", or "lockstep", the paper authors' tool, shown as "in lockstep".
  selectControl("stepping", "cw-stepping", "tiles start", () => Object.keys(STEPPING_LABELS), (v) => STEPPING_LABELS[v] ?? v);

  // The memory level drawn as the pipe (docs/memory-hierarchy.md#the-pipe-level-of-a-campaign-diagram), offered only where the machine has several:
  // "" lets the kernel pick the level that bounds the most time.
  const levelSelect = element(document, "select", { className: "cw-level" });
  const levelValue = addControl("pipe level", levelSelect, (span) => {
    const levels = (model.get("levels") ?? []).map(String);
    // "most time" names the level it chose (the pipe's, resource_names[1])
    const chosen = String((model.get("resource_names") ?? [])[1] ?? "");
    const mostTime = model.get("level") || !chosen ? "most time" : `most time (${chosen})`;
    setOptions(document, levelSelect, ["", ...levels], String(model.get("level") ?? ""), [mostTime, ...levels]);
    span.textContent = model.get("level") || mostTime;
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

  // One integer slider per workload parameter (js/shared/param-sliders.js), after the schedule controls.
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
