// What the views share: the theme (js/shared/page-theme.js), the parameter sliders (js/shared/param-sliders.js),
// and the diagram's control bar (js/diagram/controls.js) built from what the kernel syncs.
import assert from "node:assert/strict";
import { test } from "node:test";
import DATA from "../../campaign_widget/theme.json" with { type: "json" };
import { createControls } from "../diagram/controls.js";
import { legendEntries, shortenNames } from "../shared/legend.js";
import { markTheme, resolveTheme, themeColours } from "../shared/page-theme.js";
import { createParamSliders, sliderPosition, sliderValue } from "../shared/param-sliders.js";

/** Just enough DOM for the controls: elements with attributes, dataset, children and listeners. */
function fakeDocument() {
  const document = {
    activeElement: null,
    createElement(tag) {
      const listeners = {};
      return {
        tagName: tag.toUpperCase(), className: "", textContent: "", hidden: false, value: "", dataset: {}, attributes: {},
        children: [], style: {},
        get options() { return this.children; },
        setAttribute(name, value) {
          this.attributes[name] = String(value);
          if (name.startsWith("data-")) this.dataset[name.slice(5).replace(/-(\w)/g, (_, c) => c.toUpperCase())] = String(value);
        },
        append(...kids) { this.children.push(...kids); },
        replaceChildren(...kids) { this.children = kids; },
        addEventListener(type, fn) { (listeners[type] ??= []).push(fn); },
        removeEventListener(type, fn) { listeners[type] = (listeners[type] ?? []).filter((f) => f !== fn); },
        fire(type, event = {}) { for (const fn of listeners[type] ?? []) fn(event); },
        listeners,
      };
    },
  };
  return document;
}

function fakeModel(values) {
  return { get: (key) => values[key], values };
}

function fakeWriter() {
  const writes = [];
  let pending = false;
  return {
    writes, write(key, value) { writes.push([key, value]); pending = true; }, isPending: () => pending, settle() { pending = false; },
    flush() {},
  };
}

/** A 2D context that reads colours as a canvas does: #rrggbb stays, anything else is refused. */
const hexContext = () => ({
  _fill: "#000000",
  set fillStyle(v) { if (/^#[0-9a-f]{6}$/i.test(v)) this._fill = v.toLowerCase(); },
  get fillStyle() { return this._fill; },
});

test("the theme trait picks theme.json's colours, whatever the page", () => {
  const page = { body: { dataset: { jpThemeLight: "true" } } };
  const dark = resolveTheme({ model: fakeModel({ theme: "dark" }), root: {}, document: page, window: {}, ctx: hexContext() });
  assert.equal(dark.name, "dark");
  assert.equal(dark.background, DATA.dark.background);
  assert.equal(dark.text, DATA.dark.text);
  assert.equal(dark.fontSize, DATA.theme.fontSize, "the dark look overlays the light one");
  const light = resolveTheme({ model: fakeModel({ theme: "light" }), root: {}, document: { body: { dataset: { jpThemeLight: "false" } } }, window: {} });
  assert.deepEqual(light, themeColours("light"));
});

test("auto follows JupyterLab's attribute and takes page colours only when they agree", () => {
  const page = { body: { dataset: { jpThemeLight: "false" } } };
  const css = { "--jp-layout-color0": "#1b1b1b", "--jp-ui-font-color1": "#ffffff", "--jp-ui-font-color2": "#202020" };
  const window = { getComputedStyle: () => ({ getPropertyValue: (name) => css[name] ?? "" }) };
  const theme = resolveTheme({ model: fakeModel({ theme: "auto" }), root: {}, document: page, window, ctx: hexContext() });
  assert.equal(theme.name, "dark");
  assert.equal(theme.background, "#1b1b1b", "a dark page background agrees with the dark theme");
  assert.equal(theme.text, "#ffffff");
  assert.equal(theme.mutedText, DATA.dark.mutedText, "a dark text colour on a dark page is the old stylesheet's: not taken");
  const outside = resolveTheme({ model: fakeModel({}), root: {}, document: { body: { dataset: {} } },
    window: { matchMedia: () => ({ matches: true }) } });
  assert.equal(outside.name, "dark", "outside JupyterLab: the browser's colour scheme");
});

test("the root is marked with its theme, and with the theme the trait forces", () => {
  const root = { dataset: {} };
  markTheme(root, themeColours("dark"), fakeModel({ theme: "dark" }));
  assert.deepEqual(root.dataset, { cwTheme: "dark", cwThemeForced: "dark", cwPalette: "dark" });
  markTheme(root, themeColours("light"), fakeModel({ theme: "auto" }));
  assert.deepEqual(root.dataset, { cwTheme: "light" });
});

test("parameter sliders: log positions are log10 of the value, rounded and clamped", () => {
  const log = { range: [4, 1024], log: true };
  assert.equal(sliderPosition(log, 100), 2);
  assert.equal(sliderValue(log, Math.log10(128)), 128);
  assert.equal(sliderValue(log, 9), 1024, "clamped to the range");
  const linear = { range: [1, 64], log: false };
  assert.equal(sliderPosition(linear, 8), 8);
  assert.equal(sliderValue(linear, "7.6"), 8);
});

test("one slider per parameter writes the whole params dict and shows the kernel's value", () => {
  const document = fakeDocument();
  const model = fakeModel({ params: { B: 2, S: 64 }, param_ranges: { B: { range: [1, 32], log: false }, S: { range: [4, 1024], log: true } } });
  const writer = fakeWriter();
  const sliders = createParamSliders(document, model, writer, { inputClass: "cwd-param" });
  sliders.sync();
  const labels = sliders.element.children;
  assert.deepEqual(labels.map((l) => l.dataset.param), ["B", "S"]);
  const [, s, sValue] = labels[1].children;
  assert.equal(s.className, "cw-param cwd-param");
  assert.equal(s.dataset.param, "S");
  assert.equal(Number(s.value), Math.log10(64));
  assert.equal(sValue.textContent, "64");
  s.value = String(Math.log10(256));
  s.fire("input");
  assert.deepEqual(writer.writes, [["params", { B: 2, S: 256 }]], "the whole dict, the others unchanged");
  sliders.sync();
  assert.equal(sValue.textContent, "256", "the slider's value until the kernel answers");
  writer.settle();
  model.values.params = { B: 2, S: 128 }; // the kernel refused or rounded: its value wins
  sliders.sync();
  assert.equal(sValue.textContent, "128");
  model.values.param_ranges = {};
  sliders.sync();
  assert.equal(sliders.count, 0);
  assert.equal(sliders.element.hidden, true);
  sliders.destroy();
});

test("the policy select offers the kernel's policies trait, a new policy included", () => {
  const document = fakeDocument();
  const model = fakeModel({ policies: ["none", "dilate", "share-fairly"], policy: "share-fairly", stepping: "event", param_ranges: {} });
  const writer = fakeWriter();
  const controls = createControls(document, model, writer);
  const find = (node, className) => node.className === className ? node : node.children?.map((c) => find(c, className)).find(Boolean);
  const select = find(controls.element, "cw-policy");
  assert.deepEqual(select.children.map((o) => o.attributes.value), ["none", "dilate", "share-fairly"]);
  assert.equal(select.value, "share-fairly");
  model.values.policies = ["none", "throttle"];
  model.values.policy = "throttle";
  controls.sync();
  assert.deepEqual(select.children.map((o) => o.attributes.value), ["none", "throttle"], "the options follow the trait");
  model.values.policies = [];
  controls.sync();
  assert.deepEqual(select.children, [], "no list of the view's own");
  model.values.policies = ["none", "throttle"];
  controls.sync();
  select.value = "none";
  select.fire("change");
  assert.deepEqual(writer.writes, [["policy", "none"]]);
  controls.destroy();
});

test("every control's label says what it does, and the sliders show their range", () => {
  const document = fakeDocument();
  const model = fakeModel({
    policies: ["none"], policy: "none", stepping: "event", param_ranges: {}, tiles: 4, tiles_max: 64,
    peak_compute: 100, peak_compute_range: [1, 10000], peak_bandwidth: 10, peak_bandwidth_range: [0.1, 1000],
    units: { compute: "FLOP/s", bandwidth: "B/s" }, levels: ["L2", "DRAM"], level: "",
  });
  const controls = createControls(document, model, fakeWriter());
  const all = (node) => [node, ...(node.children ?? []).flatMap(all)];
  const labels = all(controls.element).filter((n) => n.className === "cw-control");
  assert.ok(labels.length >= 9, `${labels.length} controls`);
  for (const label of labels) assert.ok(label.title && label.title.length > 20, `a tooltip for ${JSON.stringify(label.title)}`);
  const tiles = all(controls.element).find((n) => n.className === "cw-tiles");
  assert.match(tiles.title, /^1 … 64/);
  const peak = all(controls.element).find((n) => n.className === "cw-peak-compute");
  assert.match(peak.title, /FLOP\/s … .*FLOP\/s/);
  const rangeOf = (className) => labels.find((l) => l.children.some((c) => c.className === className))
    .children.find((c) => c.className === "cw-range")?.textContent;
  assert.equal(rangeOf("cw-tiles"), "1 … 64", "the tiles' range is shown, not only in a tooltip");
  assert.equal(rangeOf("cw-peak-compute"), "1 … 10000");
  assert.equal(rangeOf("cw-peak-bandwidth"), "0.1 … 1000");
  const stepping = labels.find((l) => l.children.some((c) => c.className === "cw-stepping"));
  assert.equal(stepping.children[0].textContent, "tiles start", "not the jargon 'stepping'");
  assert.match(stepping.title, /when ready.*in lockstep/);
  const select = stepping.children.find((c) => c.className === "cw-stepping");
  assert.deepEqual(select.children.map((o) => [o.attributes.value, o.textContent]), [["event", "when ready"], ["lockstep", "in lockstep"]]);
  controls.destroy();
});

test("a typed tile count goes to the kernel as typed; a slider move fills the box", () => {
  const document = fakeDocument();
  const model = fakeModel({ policies: ["none"], policy: "none", stepping: "event", param_ranges: {}, tiles: 4, tiles_max: 64 });
  const writer = fakeWriter();
  const controls = createControls(document, model, writer);
  const all = (node) => [node, ...(node.children ?? []).flatMap(all)];
  const box = all(controls.element).find((n) => n.className === "cw-tiles-box");
  const slider = all(controls.element).find((n) => n.className === "cw-tiles");
  assert.equal(box.value, "4");
  box.value = "500";
  box.fire("input");
  model.values.tiles = 4;
  controls.sync();
  assert.equal(box.value, "500", "a sync while typing keeps what is typed");
  box.fire("keydown", { key: "Enter" });
  assert.deepEqual(writer.writes, [["tiles", 500]], "past the slider's end: sent on Enter");
  box.fire("change");
  assert.equal(writer.writes.length, 1, "the change event after Enter sends nothing more");
  box.value = "2.5";
  box.fire("input");
  box.fire("change");
  assert.deepEqual(writer.writes.at(-1), ["tiles", 2.5], "leaving the box sends it too; the kernel refuses it, naming it");
  writer.settle();
  box.value = "";
  box.fire("input");
  box.fire("keydown", { key: "Enter" });
  assert.equal(writer.writes.length, 2, "an empty box sends nothing");
  assert.equal(box.value, "4", "and shows the kernel's count again");
  box.value = "77";
  box.fire("input");
  box.fire("keydown", { key: "Escape" });
  assert.equal(box.value, "4", "Escape undoes the typing");
  assert.equal(box.attributes["data-lm-suppress-shortcuts"], "true", "JupyterLab's shortcuts stay out of the box");
  slider.value = "9";
  slider.fire("input");
  assert.equal(box.value, "9");
  assert.deepEqual(writer.writes.at(-1), ["tiles", 9]);
  controls.destroy();
});

test("a select or number box shows its value once: its readout span is hidden", () => {
  const document = fakeDocument();
  const model = fakeModel({ policies: ["none"], policy: "none", stepping: "event", param_ranges: {}, tiles: 4, depth: 2, y_axis: "relative" });
  const controls = createControls(document, model, fakeWriter());
  const all = (node) => [node, ...(node.children ?? []).flatMap(all)];
  const labelOf = (className) => all(controls.element).find((n) => n.className === "cw-control" && n.children.some((c) => c.className === className));
  for (const className of ["cw-policy", "cw-stepping", "cw-depth", "cw-y-axis"]) {
    const span = labelOf(className).children.find((c) => c.className === "cw-value");
    assert.equal(span.hidden, true, `${className}'s value is not shown twice`);
  }
  const tilesSpan = labelOf("cw-tiles").children.find((c) => c.className === "cw-value");
  assert.equal(tilesSpan.hidden, true, "the tiles' number box is their readout");
  const peakSpan = labelOf("cw-peak-compute").children.find((c) => c.className === "cw-value");
  assert.notEqual(peakSpan.hidden, true, "a slider shows its value beside it");
  const yAxis = all(controls.element).find((n) => n.className === "cw-y-axis");
  assert.equal(yAxis.textContent, "relative");
  controls.destroy();
});

// Issue 29: the level each control and key speaks of is named; names that shorten alike are told apart.
const allNodes = (node) => [node, ...(node.children ?? []).flatMap(allNodes)];

function controlsFor(values) {
  const model = { get: (key) => values[key] };
  const controls = createControls(fakeDocument(), model, fakeWriter());
  controls.sync();
  const labels = allNodes(controls.element).filter((n) => n.className === "cw-control");
  const labelOf = (className) => labels.find((l) => l.children.some((c) => c.className === className));
  return { controls, labelOf };
}

const STATE = {
  policies: ["none"], policy: "none", stepping: "event", param_ranges: {}, tiles: 1, tiles_max: 64,
  peak_compute: 100, peak_compute_range: [1, 10000], peak_bandwidth: 10, peak_bandwidth_range: [0.1, 1000],
  units: { compute: "FLOP/s", bandwidth: "B/s" },
};

test("on several memory levels the bandwidth slider names the level it sets, and 'most time' the level it chose", () => {
  const { controls, labelOf } = controlsFor({ ...STATE, levels: ["L2", "HBM"], level: "", resource_names: ["compute", "L2"] });
  assert.match(labelOf("cw-peak-bandwidth").children[0].textContent, /HBM/, "the farthest level is the one the slider sets");
  const select = labelOf("cw-level").children.find((c) => c.className === "cw-level");
  assert.match(select.children[0].textContent, /most time.*L2/, "the default option says which level it picked");
  controls.destroy();
});

test("on one memory level the labels stay as they were", () => {
  const { controls, labelOf } = controlsFor({ ...STATE, levels: ["memory"], level: "", resource_names: ["compute", "memory"] });
  assert.equal(labelOf("cw-peak-bandwidth").children[0].textContent, "peak bandwidth");
  controls.destroy();
});

test("the legend's keys use the kernel's words, which name the pipe's level", () => {
  const keys = { well: "unused bandwidth (pipe height = 100% of HBM peak bandwidth)", spill: "HBM oversubscribed" };
  const entries = legendEntries(["a"], [], { spill: true }, null, keys);
  assert.equal(entries.find((e) => e.kind === "well").label, keys.well);
  assert.equal(entries.find((e) => e.kind === "spill").label, keys.spill);
});

test("names that shorten alike are told apart, in the legend too", () => {
  const a = `${"x".repeat(30)}A${"y".repeat(30)}`;
  const b = `${"x".repeat(30)}B${"y".repeat(30)}`;
  const labels = shortenNames([a, b, a, "short"]);
  assert.notEqual(labels[0], labels[1]);
  assert.equal(labels[0], labels[2], "one name, one label");
  assert.equal(labels[3], "short");
  for (const label of labels) assert.ok(Array.from(label).length <= 40, label);
  const legend = legendEntries([a, b], [], {}).filter((e) => e.kind === "phase").map((e) => e.label);
  assert.equal(new Set(legend).size, 2);
});
