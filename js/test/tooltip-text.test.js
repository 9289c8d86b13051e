import assert from "node:assert/strict";
import { test } from "node:test";
import { createTooltip } from "../shared/tooltip.js";

/** A document whose elements refuse innerHTML: user text must go in as text. */
function strictDocument() {
  const make = (tag) => {
    const node = {
      tag, className: "", hidden: false, textContent: "", children: [], style: {}, attributes: {},
      setAttribute(name, value) { this.attributes[name] = value; },
      append(...kids) { this.children.push(...kids); },
      replaceChildren(...kids) { this.children = kids; },
      getBoundingClientRect() { return { width: 100, height: 50 }; },
    };
    Object.defineProperty(node, "innerHTML", {
      set() { throw new Error("innerHTML used: user text would be parsed as HTML"); },
      get() { return ""; },
    });
    return node;
  };
  return { createElement: make };
}

test("phase names and values in the tooltip are text, never HTML", () => {
  const tooltip = createTooltip(strictDocument());
  const name = '<img src=x onerror="alert(1)"> & <b>B</b>';
  tooltip.show({ title: name, rows: [["duration", "<i>10 s</i>"]] }, 5, 5, { width: 800, height: 600 });
  const [title, row] = tooltip.element.children;
  assert.equal(title.textContent, name);
  assert.equal(row.children[1].textContent, "<i>10 s</i>");
  assert.equal(tooltip.element.hidden, false);
});
