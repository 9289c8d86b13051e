// The host of a static page written by campaign_widget.views.page: no kernel, no widget manager,
// no network. It reads the page's JSON (<script type="application/json" id="cw-page-data">), makes
// one model per widget from its saved state (binary buffers back as DataView, as ipywidgets gives
// them), links traits between models as ipywidgets.jslink does, imports each view's bundle (embedded
// as text) and renders it with anywidget's render({ model, el }). A page that asks for it
// (`kernel_note`) shows the missing-kernel note once, at its top, and tells its views so
// (`widget_manager.page_note`), which then show none of their own (js/shared/kernel.js).
import { kernelNote, NOTE_STYLE } from "../shared/kernel.js";

export const PAGE_DATA_ID = "cw-page-data";
export const PAGE_ROOT_ID = "cw-page";

/** The bytes of a base64 string. */
export function fromBase64(text) {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Put each buffer ({path, data: base64}) into `state` at its path, as a DataView. */
export function putBuffers(state, buffers) {
  for (const { path, data } of buffers ?? []) {
    let node = state;
    for (const key of path.slice(0, -1)) node = node[key];
    const bytes = fromBase64(data);
    node[path[path.length - 1]] = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  return state;
}

/** Deep equality of JSON values (binary buffers by identity): Backbone's test before a change event. */
export function same(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && same(a[key], b[key]));
}

/**
 * A model with the interface anywidget gives a view (get, set, on, off, save_changes, send,
 * widget_manager), holding its state in the page. `set` fires change:<key> and then one change,
 * as Backbone does; `send` has no kernel to reach; `widget_manager.kernel` is null (js/shared/kernel.js).
 */
export class StaticModel {
  constructor(state, manager) {
    this.state = { ...state };
    this.listeners = new Map();
    this.widget_manager = manager ?? { kernel: null };
  }

  get(key) {
    return this.state[key];
  }

  set(key, value) {
    const changes = typeof key === "object" && key !== null ? key : { [key]: value };
    const changed = [];
    for (const [name, next] of Object.entries(changes)) {
      if (same(this.state[name], next)) continue;
      this.state[name] = next;
      changed.push(name);
    }
    for (const name of changed) this.trigger(`change:${name}`, this, this.state[name]);
    if (changed.length) this.trigger("change", this);
  }

  save_changes() {}

  send() {}

  on(event, callback) {
    for (const name of String(event).split(/\s+/).filter(Boolean)) {
      if (!this.listeners.has(name)) this.listeners.set(name, []);
      this.listeners.get(name).push(callback);
    }
  }

  off(event, callback) {
    if (event === undefined || event === null) {
      if (!callback) this.listeners.clear();
      else for (const list of this.listeners.values()) removeFrom(list, callback);
      return;
    }
    for (const name of String(event).split(/\s+/).filter(Boolean)) {
      const list = this.listeners.get(name);
      if (!list) continue;
      if (callback) removeFrom(list, callback);
      else list.length = 0;
    }
  }

  trigger(event, ...args) {
    for (const callback of [...(this.listeners.get(event) ?? [])]) {
      try {
        callback(...args);
      } catch (error) {
        console.error(`campaign_widget page: a ${event} listener failed`, error);
      }
    }
  }
}

function removeFrom(list, callback) {
  for (let i = list.length - 1; i >= 0; i--) if (list[i] === callback) list.splice(i, 1);
}

/** Link [modelA, traitA] and [modelB, traitB] both ways, as ipywidgets.jslink does: B takes A's value first. */
export function linkTraits([a, keyA], [b, keyB]) {
  let busy = false;
  const copy = (from, fromKey, to, toKey) => () => {
    if (busy) return;
    busy = true;
    try {
      to.set(toKey, from.get(fromKey));
    } finally {
      busy = false;
    }
  };
  const forward = copy(a, keyA, b, keyB);
  const backward = copy(b, keyB, a, keyA);
  a.on(`change:${keyA}`, forward);
  b.on(`change:${keyB}`, backward);
  forward();
  return () => {
    a.off(`change:${keyA}`, forward);
    b.off(`change:${keyB}`, backward);
  };
}

/** An anywidget front-end module from its source text: its default export ({render} or a function giving it), or its named render. */
async function importBundle(source) {
  const blob = new Blob([source], { type: "text/javascript" });
  const url = URL.createObjectURL(blob);
  let module;
  try {
    module = await import(/* @vite-ignore */ url);
  } catch (error) {
    // a browser that will not import a blob: URL from a file:// page may still take a data: URL
    console.warn("campaign_widget page: importing the bundle from a blob: URL failed, trying a data: URL", error);
    module = await import(/* @vite-ignore */ `data:text/javascript;charset=utf-8,${encodeURIComponent(source)}`);
  } finally {
    URL.revokeObjectURL(url);
  }
  let widget = module.default ?? module;
  if (typeof widget === "function") widget = await widget();
  if (typeof widget?.render !== "function") throw new Error("the bundle exports no render({ model, el })");
  return widget;
}

function showError(root, text) {
  const box = root.ownerDocument.createElement("pre");
  box.className = "cw-page-error";
  box.textContent = text;
  root.append(box);
}

/** The page's one missing-kernel note, first in `root`. */
function showPageNote(root) {
  const style = root.ownerDocument.createElement("style");
  style.textContent = NOTE_STYLE;
  const note = kernelNote(root.ownerDocument);
  note.classList.add("cw-page-note");
  root.prepend(style, note);
}

/**
 * Build the page: its note, models, links, then each view (or text line, or row of views) in order.
 * `load(source)` gives the view module of a bundle's source (by default, imports it).
 */
export async function renderPage(data, root, { load = importBundle } = {}) {
  const pageNote = data.kernel_note === true;
  if (pageNote) showPageNote(root);
  const manager = { kernel: null, page_note: pageNote };
  const models = new Map();
  for (const [id, entry] of Object.entries(data.models ?? {})) {
    models.set(id, new StaticModel(putBuffers(entry.state ?? {}, entry.buffers), manager));
  }
  for (const [[idA, keyA], [idB, keyB]] of data.links ?? []) {
    if (models.has(idA) && models.has(idB)) linkTraits([models.get(idA), keyA], [models.get(idB), keyB]);
  }
  const bundles = new Map();
  const widgetOf = (name) => {
    if (!bundles.has(name)) bundles.set(name, load(data.bundles[name]));
    return bundles.get(name);
  };
  const renderItem = async (item, parent) => {
    const el = root.ownerDocument.createElement("div");
    parent.append(el);
    if (item.text !== undefined) {
      el.className = "cw-page-text";
      el.textContent = String(item.text);
      return;
    }
    if (Array.isArray(item.row)) {
      el.className = "cw-page-row";
      for (const part of item.row) await renderItem(part, el);
      return;
    }
    el.className = "cw-page-view";
    el.dataset.model = item.model;
    const model = models.get(item.model);
    try {
      const widget = await widgetOf(data.models[item.model].bundle);
      await widget.initialize?.({ model });
      await widget.render({ model, el });
    } catch (error) {
      console.error("campaign_widget page: a view could not render", error);
      showError(el, `This view could not be drawn: ${error?.message ?? error}`);
    }
  };
  for (const item of data.items ?? []) await renderItem(item, root);
  root.dataset.rendered = "true";
  return models;
}

const script = globalThis.document?.getElementById(PAGE_DATA_ID);
if (script) {
  const root = document.getElementById(PAGE_ROOT_ID) ?? document.body;
  let data = null;
  try {
    data = JSON.parse(script.textContent);
  } catch (error) {
    showError(root, `The page's data could not be read: ${error.message}`);
  }
  if (data) {
    renderPage(data, root).then((models) => {
      globalThis.campaignWidgetPage = { models };
    });
  }
}
