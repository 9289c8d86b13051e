import assert from "node:assert/strict";
import { test } from "node:test";
import { capacityLabel, capacityRangeLabel, createControls, formatBytes, HELP, parseLoopOrder } from "../local/controls.js";

test("loop order text: commas, spaces or single letters", () => {
  assert.deepEqual(parseLoopOrder("k, i ,j", ["i", "j", "k"]), ["k", "i", "j"]);
  assert.deepEqual(parseLoopOrder("ikj", ["i", "j", "k"]), ["i", "k", "j"]);
  assert.deepEqual(parseLoopOrder("row col", ["row", "col"]), ["row", "col"]);
  assert.deepEqual(parseLoopOrder("rowcol", ["row", "col"]), ["rowcol"], "not split when names are longer");
});

test("capacity label in lines or bytes", () => {
  assert.equal(capacityLabel(1, 64, "lines"), "1 line");
  assert.equal(capacityLabel(32, 64, "lines"), "32 lines");
  assert.equal(capacityLabel(32, 64, "bytes"), "2 KiB");
  assert.equal(capacityLabel(3, 64, "bytes"), "192 B");
  assert.equal(formatBytes(48 * 1024), "48 KiB");
  assert.equal(formatBytes(1536), "1536 B", "not a whole KiB: bytes");
  assert.equal(capacityRangeLabel(1, 40, 64, "lines"), "capacity (1…40 lines)");
  assert.equal(capacityRangeLabel(2, 64, 64, "bytes"), "capacity (128 B…4 KiB)");
});

/** Just enough DOM for the controls: elements with attributes, title, children and listeners. */
function fakeDocument() {
  return {
    activeElement: null,
    createElement(tag) {
      const listeners = {};
      const node = {
        tagName: tag.toUpperCase(), className: "", textContent: "", title: "", hidden: false, value: "", dataset: {},
        attributes: {}, children: [], style: {}, parent: null,
        classList: { toggle(name, on) { node.attributes[`class:${name}`] = Boolean(on); } },
        get options() { return this.children; },
        setAttribute(name, value) { this.attributes[name] = String(value); },
        append(...kids) { for (const k of kids) k.parent = this; this.children.push(...kids); },
        replaceChildren(...kids) { for (const k of kids) k.parent = this; this.children = kids; },
        addEventListener(type, fn) { (listeners[type] ??= []).push(fn); },
        removeEventListener(type, fn) { listeners[type] = (listeners[type] ?? []).filter((f) => f !== fn); },
      };
      return node;
    },
  };
}

const walk = (node, out = []) => {
  out.push(node);
  for (const kid of node.children ?? []) walk(kid, out);
  return out;
};
const labelOf = (node) => {
  for (let n = node.parent; n; n = n.parent) {
    if (n.tagName === "LABEL") return n.children.find((k) => k.className === "cw-label")?.textContent ?? "";
  }
  return null;
};

function controlsFor(values) {
  const model = { get: (key) => values[key] };
  const writer = { write() {}, isPending: () => false, flush() {} };
  const controls = createControls(fakeDocument(), model, writer, {});
  controls.rebuildLoops();
  controls.sync();
  return controls;
}

const STATE = {
  loops: { names: ["i", "j", "k"], extents: [6, 6, 4], count: 144 }, mode: "iteration", reuse_stat: "median",
  scaling: "median", palette: "gyr", line_overlay: true, line: 64, capacity: 8, capacity_max: 40, capacity_unit: "lines",
  ways: null, loop_order: ["i", "j", "k"], layouts: { A: { order: "C", pad: 0, offset: 0 }, B: { order: "C", pad: 0, offset: 0 } },
  can_apply: true,
};

test("every control has its own clear label and a one-sentence tooltip", () => {
  const nodes = walk(controlsFor(STATE).element);
  const inputs = nodes.filter((n) => ["INPUT", "SELECT"].includes(n.tagName));
  assert.ok(inputs.length >= 5 + 3 + 4 + 3 * 2, `${inputs.length} inputs`);
  const seen = new Map();
  for (const input of inputs) {
    const label = labelOf(input);
    const what = `${input.className} (${label})`;
    assert.ok(label && label.length > 2, `${input.className} has no label`);
    assert.ok(/^[A-Z].*[^.]$/.test(input.title) && !/[.!?]\s+[A-Z]/.test(input.title), `${what}: tooltip ${JSON.stringify(input.title)}`);
    assert.ok(input.title.length >= 30, `${what}: the tooltip says what it does`);
    const key = `${input.parent.parent?.attributes?.["data-tensor"] ?? ""}/${label}`;
    assert.ok(!seen.has(key), `two controls labelled ${JSON.stringify(label)}: ${seen.get(key)} and ${input.className}`);
    seen.set(key, input.className);
  }
  for (const button of nodes.filter((n) => n.tagName === "BUTTON")) {
    assert.ok(button.textContent && button.title.length >= 20, `button ${button.className}: ${JSON.stringify(button.title)}`);
  }
  const labels = (cls) => labelOf(inputs.find((n) => n.className === cls));
  assert.equal(labels("cwl-capacity-unit"), HELP.unit.label, "the unit dropdown is labelled on its own");
  assert.notEqual(labels("cwl-capacity-unit"), labels("cwl-capacity"));
  assert.ok(!/^(reuse|scaling)$/.test(labels("cwl-reuse-stat")) && !/^(reuse|scaling)$/.test(labels("cwl-scaling")));
  const scaling = inputs.find((n) => n.className === "cwl-scaling");
  assert.ok(scaling.children.find((o) => o.attributes.value === "median").textContent !== "median", "the scale's options say what they are");
});

test("sliders and the line box show their ranges, in the capacity unit shown", () => {
  const inputs = walk(controlsFor(STATE).element).filter((n) => n.tagName === "INPUT");
  const loops = inputs.filter((n) => n.className === "cwl-loop").map(labelOf);
  assert.deepEqual(loops, ["loop i (0…5)", "loop j (0…5)", "loop k (0…3)"]);
  assert.equal(labelOf(inputs.find((n) => n.className === "cwl-capacity")), "capacity (1…40 lines)");
  assert.match(labelOf(inputs.find((n) => n.className === "cwl-line")), /1…65536/);
  const bytes = walk(controlsFor({ ...STATE, capacity_unit: "bytes", ways: 2, capacity_max: 64 }).element);
  assert.equal(labelOf(bytes.find((n) => n.className === "cwl-capacity")), "capacity (128 B…4 KiB)", "2-way: from 2 lines");
});

test("the Apply button is marked while the phase shows the bytes of older controls", () => {
  const pending = walk(controlsFor({ ...STATE, apply_pending: true }).element).find((n) => n.className === "cwl-apply");
  assert.equal(pending.attributes["class:cwl-pending"], true);
  const done = walk(controlsFor({ ...STATE, apply_pending: false }).element).find((n) => n.className === "cwl-apply");
  assert.equal(done.attributes["class:cwl-pending"], false);
});
