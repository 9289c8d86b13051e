// The view shell (js/shared/view-shell.js) every view's render uses: frames, listeners, cleanup.
import assert from "node:assert/strict";
import { test } from "node:test";
import DATA from "../../campaign_widget/theme.json" with { type: "json" };
import dataflow from "../dataflow/widget.js";
import diagram from "../diagram/widget.js";
import local from "../local/widget.js";
import roofline from "../roofline/widget.js";
import { CSS } from "../shared/styles.js";
import { mountView } from "../shared/view-shell.js";
import sweep from "../sweep/widget.js";
import { fakeBrowser, fakeModel } from "../testing/fake-dom.js";

function mounted(state = {}) {
  const { window, document } = fakeBrowser();
  const el = document.createElement("div");
  document.body.append(el);
  return { window, document, el, model: fakeModel(state) };
}

for (const [name, widget] of Object.entries({ diagram, dataflow, local, roofline, sweep })) {
  test(`the ${name} view draws through the shell and its cleanup undoes all it set up`, () => {
    const { window, el, model } = mounted();
    const cleanup = widget.render({ model, el });
    const [root] = el.children;
    assert.ok(root.classList.contains("cw-root"));
    assert.equal(window.frames(), 1, "one frame asked for at render");
    assert.ok(model.listenerCount() > 0 && root.listenerCount() > 0);
    assert.ok(window.pending().observers > 0, "resize and theme observers");
    model.set("height", 200);
    cleanup();
    assert.equal(model.listenerCount(), 0, "every model listener removed");
    assert.equal(root.listenerCount(), 0, "every DOM listener removed");
    assert.deepEqual(window.pending(), { frames: 0, timers: 0, observers: 0 });
    assert.equal(el.children.length, 0, "the root is gone");
  });
}

test("mountView draws once per frame, and a whole message from the kernel at once", () => {
  const { window, el, model } = mounted({ a: 1, b: 2 });
  let draws = 0;
  const cleanup = mountView({ model, el, className: "cw-root x", css: "" }, (view) => {
    view.onChange(["b"], view.arrived);
    return { draw: () => draws++, redrawOn: ["a"] };
  });
  assert.equal(window.frames(), 1);
  assert.equal(draws, 1);
  model.set("a", 3);
  model.set("a", 4);
  assert.equal(draws, 1, "a redraw waits for the frame");
  assert.equal(window.frames(), 1, "two changes ask for one frame");
  assert.equal(draws, 2);
  model.set("b", 5); // change:b, then the message's one change: drawn then, and its frame cancelled
  assert.equal(draws, 3);
  assert.equal(window.frames(), 0);
  cleanup();
  model.set("a", 6);
  assert.equal(window.frames(), 0, "no frame after cleanup");
  assert.equal(draws, 3);
});

test("mountView's cleanup runs the view's dispose while its writer can still send", () => {
  const { window, el, model } = mounted();
  const cleanup = mountView({ model, el, className: "cw-root", css: "", kernel: false }, (view) => {
    view.writer.write("first", 1); // sent at once; the next write in this frame waits for its end
    return { draw() {}, dispose: () => view.writer.write("hovered_phase", null) };
  });
  assert.equal(el.children[0].querySelectorAll(".cw-kernel-note").length, 0, "kernel: false, no kernel note");
  cleanup();
  assert.deepEqual(model.saved.map((state) => Object.keys(state)), [["first"], ["first", "hovered_phase"]]);
  assert.equal(window.pending().frames, 0, "the writer's last flush left no frame behind");
});

test("mountView follows the theme on the root and each canvas, and asks for a frame when it changes", () => {
  const { window, el, model } = mounted({ theme: "dark" });
  const seen = [];
  let canvas = null;
  const cleanup = mountView({ model, el, className: "cw-root", css: "" }, (view) => {
    canvas = view.document.createElement("canvas");
    view.root.append(canvas);
    view.followTheme({ ctx: canvas.getContext("2d"), canvases: [canvas] }, (theme) => seen.push(theme.name));
    return { draw() {} };
  });
  window.frames();
  assert.equal(el.children[0].dataset.cwTheme, "dark");
  assert.equal(canvas.dataset.theme, "dark");
  model.set("theme", "light");
  assert.deepEqual(seen, ["dark", "light"]);
  assert.equal(canvas.dataset.theme, "light");
  assert.equal(window.frames(), 1);
  cleanup();
});

test("the readout's oversubscription red is theme.json's warning, in each theme", () => {
  assert.ok(CSS.includes(`.cw-root { --cw-warning: ${DATA.theme.warning}; }`));
  assert.ok(CSS.includes(`.cw-root[data-cw-theme="dark"] { --cw-warning: ${DATA.dark.warning}; }`));
  const rule = CSS.split("\n").find((line) => line.startsWith(".cw-oversubscribed li"));
  assert.equal(rule, ".cw-oversubscribed li, .cw-warnings li { color: var(--cw-warning); }");
});
