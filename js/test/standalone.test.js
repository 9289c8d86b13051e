// The static page's host (js/standalone/host.js) and the views' kernel check (js/shared/kernel.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import dataflow from "../dataflow/widget.js";
import diagram from "../diagram/widget.js";
import { kernelState, NO_KERNEL_NOTE, needsKernel, watchKernel } from "../shared/kernel.js";
import { fromBase64, linkTraits, putBuffers, renderPage, same, StaticModel } from "../standalone/host.js";
import { fakeBrowser } from "../testing/fake-dom.js";

test("StaticModel fires change:<key> then one change, and only for new values", () => {
  const model = new StaticModel({ a: 1, list: [1, 2] });
  const events = [];
  model.on("change:a", (_m, value) => events.push(["a", value]));
  model.on("change:list", () => events.push(["list"]));
  model.on("change", () => events.push(["change"]));
  model.set("a", 2);
  model.set("list", [1, 2]); // equal: no event, as Backbone compares deeply
  model.set({ a: 3, list: [3] });
  assert.deepEqual(events, [["a", 2], ["change"], ["a", 3], ["list"], ["change"]]);
  assert.equal(model.get("a"), 3);
});

test("StaticModel.off removes one listener, all of an event, or all", () => {
  const model = new StaticModel({ a: 0 });
  let calls = 0;
  const one = () => calls++;
  const two = () => calls++;
  model.on("change:a", one);
  model.on("change:a", two);
  model.off("change:a", one);
  model.set("a", 1);
  assert.equal(calls, 1);
  model.off("change:a");
  model.set("a", 2);
  assert.equal(calls, 1);
  model.on("change", one);
  model.off();
  model.set("a", 3);
  assert.equal(calls, 1);
});

test("a model of the page has no kernel, and sending to it is harmless", () => {
  const model = new StaticModel({});
  assert.equal(kernelState(model), "none");
  model.send({ type: "view-ready" });
  model.save_changes();
});

test("buffers come back as DataViews at their paths", () => {
  const bytes = new Float64Array([1.5, -2]);
  const data = Buffer.from(bytes.buffer).toString("base64");
  const state = putBuffers({ scene: { edges: { dtype: "float64", shape: [2] } } }, [{ path: ["scene", "edges", "buffer"], data }]);
  const view = state.scene.edges.buffer;
  assert.ok(view instanceof DataView);
  assert.equal(view.getFloat64(0, true), 1.5);
  assert.equal(view.getFloat64(8, true), -2);
  assert.deepEqual([...fromBase64("AAEC")], [0, 1, 2]);
});

test("same compares JSON deeply and buffers by identity", () => {
  assert.ok(same({ a: [1, { b: null }] }, { a: [1, { b: null }] }));
  assert.ok(!same({ a: [1] }, { a: [1, 2] }));
  assert.ok(!same([1], { 0: 1 }));
  assert.ok(same(NaN, NaN));
  const view = new DataView(new ArrayBuffer(4));
  assert.ok(same(view, view));
  assert.ok(!same(view, new DataView(new ArrayBuffer(4))));
});

test("linked traits follow each other both ways, the target taking the source's value first", () => {
  const a = new StaticModel({ time_window: [0, 1] });
  const b = new StaticModel({ time_window: [] });
  const seen = [];
  b.on("change:time_window", () => seen.push(b.get("time_window")));
  const unlink = linkTraits([a, "time_window"], [b, "time_window"]);
  assert.deepEqual(b.get("time_window"), [0, 1]);
  b.set("time_window", [0.2, 0.5]);
  assert.deepEqual(a.get("time_window"), [0.2, 0.5]);
  a.set("time_window", [0.3, 0.4]);
  assert.deepEqual(b.get("time_window"), [0.3, 0.4]);
  assert.equal(seen.length, 3);
  unlink();
  a.set("time_window", []);
  assert.deepEqual(b.get("time_window"), [0.3, 0.4]);
});

test("kernelState reads the front end's widget manager", () => {
  assert.equal(kernelState({ widget_manager: { kernel: { id: "k" } } }), "live"); // JupyterLab with a kernel
  assert.equal(kernelState({ widget_manager: { kernel: null } }), "none"); // JupyterLab with none
  const htmlManager = { _create_comm() {}, _get_comm_info() {}, get_model() {} }; // ipywidgets' html-manager
  assert.equal(kernelState({ widget_manager: htmlManager }), "none");
  assert.equal(kernelState({ widget_manager: { get_model() {} } }), "unknown"); // marimo and others
  assert.equal(kernelState({}), "unknown");
});

function fakeRoot() {
  const node = (tag) => ({
    tagName: tag, hidden: false, dataset: {}, attributes: {}, textContent: "", className: "",
    setAttribute(name, value) { this.attributes[name] = value; },
    remove() { this.removed = true; },
  });
  const root = { ...node("div"), children: [], prepend(...kids) { this.children.unshift(...kids); } };
  return { root, document: { createElement: node } };
}

function fakeModel(manager) {
  const listeners = {};
  return {
    widget_manager: manager, sent: [],
    on(event, fn) { (listeners[event] ??= []).push(fn); },
    off(event, fn) { listeners[event] = (listeners[event] ?? []).filter((f) => f !== fn); },
    send(content) { this.sent.push(content); },
    fire(event, content) { for (const fn of listeners[event] ?? []) fn(content); },
    listeners,
  };
}

test("watchKernel shows the note without a kernel, and hides it when the kernel answers", () => {
  const { root, document } = fakeRoot();
  const model = fakeModel({ kernel: null });
  const watch = watchKernel({ model, root, document });
  const note = root.children.find((kid) => kid.className === "cw-kernel-note");
  assert.equal(root.dataset.kernel, "none");
  assert.equal(note.hidden, false);
  assert.match(note.textContent, /No kernel/);
  assert.deepEqual(model.sent, [{ type: "kernel-ping" }]);
  model.fire("msg:custom", { type: "kernel-pong" });
  assert.equal(root.dataset.kernel, "live");
  assert.equal(note.hidden, true);
  watch.dispose();
  assert.equal(model.listeners["msg:custom"].length, 0);
  assert.ok(note.removed);
});

test("watchKernel with a kernel shows no note", () => {
  const { root, document } = fakeRoot();
  watchKernel({ model: fakeModel({ kernel: {} }), root, document });
  assert.equal(root.dataset.kernel, "live");
  assert.equal(root.children.find((kid) => kid.className === "cw-kernel-note").hidden, true);
});

test("needsKernel marks a control's label, or the element itself", () => {
  const label = { attributes: {}, setAttribute(name, value) { this.attributes[name] = value; } };
  const input = { closest: (selector) => (selector === "label" ? label : null), setAttribute() { throw new Error("the label, not the input"); } };
  const button = { attributes: {}, closest: () => null, setAttribute(name, value) { this.attributes[name] = value; } };
  needsKernel(input, [button], null);
  assert.ok("data-needs-kernel" in label.attributes);
  assert.ok("data-needs-kernel" in button.attributes);
});

// A page of `views` (bundle names), as campaign_widget.views.page writes it, rendered with the views'
// own modules (the bundles' source stands for them by name).
async function pageOf(views, extra = {}) {
  const { document } = fakeBrowser();
  const root = document.createElement("div");
  document.body.append(root);
  const models = Object.fromEntries(views.map((bundle, i) => [`m${i}`, { bundle, state: { height: 200 } }]));
  const data = { version: 1, bundles: { diagram: "diagram", dataflow: "dataflow" }, models, items: views.map((_, i) => ({ model: `m${i}` })), links: [], ...extra };
  const widgets = { diagram, dataflow };
  const pageModels = await renderPage(data, root, { load: async (source) => widgets[source] });
  return { root, models: pageModels };
}

const shownNotes = (root) => root.querySelectorAll(".cw-kernel-note").filter((note) => !note.hidden);

test("a page of two views shows one missing-kernel note, first on the page, and the views hide their controls", async () => {
  const { root, models } = await pageOf(["diagram", "dataflow"], { kernel_note: true });
  const notes = shownNotes(root);
  assert.equal(notes.length, 1, "one note for the page");
  assert.equal(notes[0].parentElement, root);
  assert.equal(root.children.find((kid) => kid.tagName !== "STYLE"), notes[0], "the note comes first");
  assert.equal(notes[0].textContent, NO_KERNEL_NOTE);
  const views = root.querySelectorAll(".cw-root");
  assert.equal(views.length, 2);
  assert.equal(root.querySelectorAll(".cw-page-error").length, 0, "both views drawn");
  for (const view of views) assert.equal(view.dataset.kernel, "none", "the view still hides its kernel controls");
  for (const model of models.values()) assert.equal(model.widget_manager.page_note, true);
});

test("a page that asks for no page note leaves each view its own", async () => {
  const { root } = await pageOf(["diagram", "dataflow"]);
  const notes = shownNotes(root);
  assert.equal(notes.length, 2);
  assert.ok(notes.every((note) => note.parentElement.classList.contains("cw-root")));
});

test("watchKernel shows no note of its own where the page's note stands, and still hides the controls", () => {
  const { root, document } = fakeRoot();
  const watch = watchKernel({ model: fakeModel({ kernel: null, page_note: true }), root, document });
  assert.equal(root.dataset.kernel, "none");
  assert.equal(root.children.filter((kid) => kid.className === "cw-kernel-note").length, 0);
  const [style] = root.children;
  assert.match(style.textContent, /data-needs-kernel/);
  watch.dispose();
  assert.ok(style.removed);
});
