// One integer slider per workload parameter, for every view that has `params` and `param_ranges`
// (name → {range: [lo, hi], log}): log scaled when the range spans decades. A move writes the
// whole `params` dict (through `send`, by default the frame-coalescing writer); the label shows the
// slider's value until the kernel's arrives.
import { element, labelled, listen } from "./dom.js";

/** The integer a slider at `position` stands for, clamped to spec.range. */
export function sliderValue(spec, position) {
  const [lo, hi] = spec.range.map(Number);
  const raw = Number(position);
  const v = Math.round(spec.log ? 10 ** raw : raw);
  return Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : lo;
}

/** The slider position of `value` under spec (its log10 on a log slider). */
export function sliderPosition(spec, value) {
  return spec.log ? Math.log10(value) : value;
}

/**
 * createParamSliders(document, model, writer, { send, inputClass, valueClass }) → { element, sync(),
 * answered(), destroy() }. `element` (span.cw-params) holds one label.cw-control[data-param] per
 * parameter: input.cw-param[data-param] (plus `inputClass`) and its span.cw-value (plus `valueClass`).
 */
export function createParamSliders(document, model, writer, { send, inputClass = "", valueClass = "" } = {}) {
  const box = element(document, "span", { className: "cw-params" });
  const write = send ?? ((value) => writer.write("params", value));
  const cleanups = [];
  let sliders = new Map(); // name → { input, value, spec }
  let pending = {}; // slider values written but not yet in the model
  let keys = "";

  function build(ranges, names) {
    keys = names.join("\n");
    for (const cleanup of cleanups) cleanup();
    cleanups.length = 0;
    box.replaceChildren();
    sliders = new Map();
    for (const name of names) {
      const input = element(document, "input", { type: "range", className: `cw-param ${inputClass}`.trim(), "data-param": name });
      const value = element(document, "span", { className: `cw-value ${valueClass}`.trim() });
      const label = labelled(document, box, name, input, value);
      label.dataset.param = name;
      const [lo, hi] = Array.isArray(ranges[name]?.range) ? ranges[name].range : [];
      label.title = `size parameter ${name}: the workload's volumes are re-evaluated at its new value`
        + (lo !== undefined && hi !== undefined ? ` (${lo} … ${hi})` : "");
      const entry = { input, value, spec: ranges[name] };
      listen(cleanups, input, "input", () => {
        const v = sliderValue(entry.spec, input.value);
        value.textContent = String(v);
        pending = { ...pending, [name]: v };
        write({ ...(model.get("params") ?? {}), ...pending });
      });
      sliders.set(name, entry);
    }
  }

  function sync() {
    const ranges = model.get("param_ranges") ?? {};
    const names = Object.keys(ranges).filter((name) => Array.isArray(ranges[name]?.range));
    if (names.join("\n") !== keys) build(ranges, names);
    if (!writer.isPending("params")) pending = {};
    const values = model.get("params") ?? {};
    for (const [name, entry] of sliders) {
      entry.spec = ranges[name];
      const [lo, hi] = entry.spec.range.map(Number);
      entry.input.min = String(sliderPosition(entry.spec, lo));
      entry.input.max = String(sliderPosition(entry.spec, hi));
      entry.input.step = entry.spec.log ? "any" : "1";
      const mine = name in pending;
      const v = mine ? pending[name] : Number(values[name]);
      if (Number.isFinite(v) && !mine && document.activeElement !== entry.input) {
        entry.input.value = String(sliderPosition(entry.spec, v));
      }
      entry.value.textContent = Number.isFinite(v) ? String(v) : "";
    }
    box.hidden = sliders.size === 0;
  }

  return {
    element: box,
    sync,
    /** The kernel answered (new params): forget the values shown ahead of it. */
    answered() {
      pending = {};
    },
    get count() {
      return sliders.size;
    },
    destroy() {
      for (const cleanup of cleanups) cleanup();
      cleanups.length = 0;
    },
  };
}
