// Just enough of a browser for a view's render({ model, el }) under node: elements that keep their
// children, attributes and listeners, a window whose animation frames, timers and observers run when
// the test says, and a model (anywidget's interface) that counts its listeners.
import { RecordingContext } from "./fake-context.js";

const camel = (name) => name.replace(/-(\w)/g, (_, c) => c.toUpperCase());

class FakeElement {
  constructor(document, tag) {
    this.ownerDocument = document;
    this.tagName = tag.toUpperCase();
    this.children = [];
    this.parentElement = null;
    this.attributes = {};
    this.dataset = {};
    this.listeners = new Map(); // type → Set of handlers
    this.className = "";
    this.textContent = "";
    this.hidden = false;
    this.value = "";
    this.checked = false;
    this.width = 300;
    this.height = 150;
    this.clientWidth = 640;
    this.clientHeight = 400;
    const props = new Map();
    this.style = {
      setProperty: (name, value) => props.set(name, value),
      removeProperty: (name) => props.delete(name),
      getPropertyValue: (name) => props.get(name) ?? "",
    };
    this.classList = {
      contains: (name) => this.className.split(/\s+/).includes(name),
      toggle: (name, on) => {
        const names = new Set(this.className.split(/\s+/).filter(Boolean));
        if (on ?? !names.has(name)) names.add(name);
        else names.delete(name);
        this.className = [...names].join(" ");
      },
      add: (name) => this.classList.toggle(name, true),
      remove: (name) => this.classList.toggle(name, false),
    };
    this.context = null;
  }

  get options() {
    return this.children.filter((child) => child.tagName === "OPTION");
  }

  setAttribute(name, value) {
    this.attributes[name] = String(value);
    if (name.startsWith("data-")) this.dataset[camel(name.slice(5))] = String(value);
  }
  getAttribute(name) {
    return this.attributes[name] ?? null;
  }
  removeAttribute(name) {
    delete this.attributes[name];
  }

  adopt(nodes) {
    return nodes.map((node) => {
      if (typeof node === "string") {
        const text = new FakeElement(this.ownerDocument, "#text");
        text.textContent = node;
        node = text;
      }
      node.parentElement?.children.splice(node.parentElement.children.indexOf(node), 1);
      node.parentElement = this;
      return node;
    });
  }
  append(...nodes) {
    this.children.push(...this.adopt(nodes));
  }
  prepend(...nodes) {
    this.children.unshift(...this.adopt(nodes));
  }
  replaceChildren(...nodes) {
    for (const child of this.children) child.parentElement = null;
    this.children = [];
    this.append(...nodes);
  }
  remove() {
    this.parentElement?.children.splice(this.parentElement.children.indexOf(this), 1);
    this.parentElement = null;
  }

  /** Every element below this one, depth first. */
  *descendants() {
    for (const child of this.children) {
      yield child;
      yield* child.descendants();
    }
  }
  /** Only ".a, .b" class selectors. */
  querySelectorAll(selector) {
    const classes = selector.split(",").map((part) => part.trim().replace(/^\./, ""));
    return [...this.descendants()].filter((node) => classes.some((name) => node.classList.contains(name)));
  }
  closest(selector) {
    for (let node = this; node; node = node.parentElement) {
      if (node.tagName === selector.toUpperCase()) return node;
    }
    return null;
  }

  addEventListener(type, handler) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(handler);
  }
  removeEventListener(type, handler) {
    this.listeners.get(type)?.delete(handler);
  }
  dispatch(type, event = {}) {
    for (const handler of [...(this.listeners.get(type) ?? [])]) handler({ preventDefault() {}, ...event });
  }
  /** How many listeners this element and everything below it hold. */
  listenerCount() {
    let n = 0;
    for (const handlers of this.listeners.values()) n += handlers.size;
    for (const child of this.children) n += child.listenerCount();
    return n;
  }

  getContext() {
    this.context ??= Object.assign(new RecordingContext(), { canvas: this });
    return this.context;
  }
  getBoundingClientRect() {
    return { left: 0, top: 0, width: this.clientWidth, height: this.clientHeight };
  }
  setPointerCapture() {}
  releasePointerCapture() {}
  focus() {}
}

/** A window and its document. `window.frames()` runs the animation frames asked for so far. */
export function fakeBrowser() {
  let next = 1;
  const frames = new Map();
  const timers = new Map();
  const observers = new Set();
  const document = {
    activeElement: null,
    createElement: (tag) => new FakeElement(document, tag),
  };
  document.body = new FakeElement(document, "body");
  document.documentElement = new FakeElement(document, "html");
  class Observer {
    constructor(callback) {
      this.callback = callback;
      observers.add(this);
    }
    observe() {}
    disconnect() {
      observers.delete(this);
    }
  }
  const window = {
    document,
    devicePixelRatio: 1,
    performance: { now: () => 0, timeOrigin: 0 },
    requestAnimationFrame(callback) {
      frames.set(next, callback);
      return next++;
    },
    cancelAnimationFrame: (id) => frames.delete(id),
    setTimeout(callback) {
      timers.set(next, callback);
      return next++;
    },
    clearTimeout: (id) => timers.delete(id),
    ResizeObserver: Observer,
    MutationObserver: Observer,
    getComputedStyle: () => ({ getPropertyValue: () => "" }),
    /** Run the frames asked for so far (not those they ask for); how many ran. */
    frames() {
      const due = [...frames.values()];
      frames.clear();
      for (const callback of due) callback(0);
      return due.length;
    },
    pending: () => ({ frames: frames.size, timers: timers.size, observers: observers.size }),
  };
  document.defaultView = window;
  return { window, document };
}

/** anywidget's model over `state`: get, set, on, off, save_changes, send; counts its listeners. */
export function fakeModel(state = {}) {
  const listeners = new Map(); // event → handlers, in order
  const values = { ...state };
  const sent = [];
  const saved = [];
  const fire = (event, ...args) => {
    for (const handler of [...(listeners.get(event) ?? [])]) handler(...args);
  };
  return {
    values, sent, saved,
    widget_manager: { kernel: {} },
    get: (key) => values[key],
    set(key, value) {
      values[key] = value;
      fire(`change:${key}`);
      fire("change");
    },
    save_changes() {
      saved.push({ ...values });
    },
    send(content) {
      sent.push(content);
    },
    on(event, handler) {
      if (!listeners.has(event)) listeners.set(event, []);
      listeners.get(event).push(handler);
    },
    off(event, handler) {
      const handlers = listeners.get(event) ?? [];
      const at = handlers.indexOf(handler);
      if (at >= 0) handlers.splice(at, 1);
    },
    fire,
    listenerCount() {
      let n = 0;
      for (const handlers of listeners.values()) n += handlers.length;
      return n;
    },
  };
}
