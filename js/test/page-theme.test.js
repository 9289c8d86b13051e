// Light or dark from the page, for each notebook front end (js/shared/page-theme.js): JupyterLab's
// attribute, VS Code's body classes and variables, Colab's html[theme], else the browser's scheme.
import assert from "node:assert/strict";
import { test } from "node:test";
import DATA from "../../campaign_widget/theme.json" with { type: "json" };
import {
  WATCHED_BODY_ATTRIBUTES,
  WATCHED_HTML_ATTRIBUTES,
  luminance,
  markTheme,
  pageIsDark,
  pageTheme,
  resolveTheme,
  watchTheme,
} from "../shared/page-theme.js";

/** A page as a front end leaves it: body classes and data-*, <html> attributes, CSS variables. */
function page({ bodyClass = "", bodyData = {}, html = {}, css = {}, dark = false } = {}) {
  const classes = new Set(bodyClass.split(/\s+/).filter(Boolean));
  const body = { dataset: { ...bodyData }, classList: { contains: (name) => classes.has(name) } };
  const documentElement = { getAttribute: (name) => html[name] ?? null };
  const document = { body, documentElement };
  const window = {
    getComputedStyle: () => ({ getPropertyValue: (name) => css[name] ?? "" }),
    matchMedia: (query) => ({ matches: query === "(prefers-color-scheme: dark)" && dark }),
  };
  return { document, window };
}

const detect = (options) => {
  const { document, window } = page(options);
  return pageTheme(document, window);
};

test("JupyterLab and Notebook 7: body[data-jp-theme-light]", () => {
  assert.deepEqual(detect({ bodyData: { jpThemeLight: "false" } }), { frontEnd: "jupyterlab", dark: true });
  assert.deepEqual(detect({ bodyData: { jpThemeLight: "true" }, dark: true }), { frontEnd: "jupyterlab", dark: false },
    "the Lab's theme wins over the browser's scheme");
});

test("VS Code: each of its four body classes", () => {
  assert.deepEqual(detect({ bodyClass: "vscode-light" }), { frontEnd: "vscode", dark: false });
  assert.deepEqual(detect({ bodyClass: "vscode-dark" }), { frontEnd: "vscode", dark: true });
  assert.deepEqual(detect({ bodyClass: "vscode-high-contrast" }), { frontEnd: "vscode", dark: true });
  assert.deepEqual(detect({ bodyClass: "vscode-high-contrast vscode-high-contrast-light" }), { frontEnd: "vscode", dark: false },
    "a high-contrast light theme carries both classes: it is light");
  assert.deepEqual(detect({ bodyClass: "vscode-high-contrast-light", dark: true }), { frontEnd: "vscode", dark: false });
});

test("VS Code: data-vscode-theme-kind, and the editor background alone", () => {
  assert.deepEqual(detect({ bodyData: { vscodeThemeKind: "vscode-dark" } }), { frontEnd: "vscode", dark: true });
  assert.deepEqual(detect({ css: { "--vscode-editor-background": "#1e1e1e" } }), { frontEnd: "vscode", dark: true });
  assert.deepEqual(detect({ css: { "--vscode-editor-background": "#ffffff" }, dark: true }), { frontEnd: "vscode", dark: false });
  assert.deepEqual(detect({ css: { "--vscode-editor-background": "not a colour" }, dark: true }), { frontEnd: "browser", dark: true },
    "an unreadable variable says nothing");
});

test("Colab: html[theme]", () => {
  assert.deepEqual(detect({ html: { theme: "dark" } }), { frontEnd: "colab", dark: true });
  assert.deepEqual(detect({ html: { theme: "light" }, dark: true }), { frontEnd: "colab", dark: false });
  assert.deepEqual(detect({ html: { theme: "sepia" } }), { frontEnd: "browser", dark: false }, "an unknown value is not Colab's");
});

test("marimo: body[data-theme] and its -theme classes", () => {
  assert.deepEqual(detect({ bodyClass: "dark dark-theme", bodyData: { theme: "dark" } }), { frontEnd: "marimo", dark: true });
  assert.deepEqual(detect({ bodyClass: "light light-theme", bodyData: { theme: "light" }, dark: true }), { frontEnd: "marimo", dark: false });
  assert.deepEqual(detect({ bodyClass: "dark-theme" }), { frontEnd: "marimo", dark: true });
  assert.deepEqual(detect({ bodyClass: "dark" }), { frontEnd: "browser", dark: false }, "a bare 'dark' class is anybody's");
});

test("anywhere else: the browser's colour scheme", () => {
  assert.deepEqual(detect({ dark: true }), { frontEnd: "browser", dark: true });
  assert.deepEqual(detect({}), { frontEnd: "browser", dark: false });
  assert.equal(pageIsDark(undefined, undefined), false, "no page at all: light");
});

test("luminance reads hex and rgb() without a canvas, and refuses what it cannot read", () => {
  assert.ok(Math.abs(luminance(null, "#ffffff") - 255) < 1e-9);
  assert.equal(luminance(null, "#000"), 0);
  assert.ok(Math.abs(luminance(null, "rgb(30, 30, 30)") - 30) < 1e-9);
  assert.ok(Number.isNaN(luminance(null, "var(--x)")));
  assert.ok(Number.isNaN(luminance(null, "")));
});

test("VS Code's editor colours become the view's background and text where they agree", () => {
  const { document, window } = page({
    bodyClass: "vscode-dark",
    css: { "--vscode-editor-background": "#1f1f1f", "--vscode-editor-foreground": "#cccccc", "--vscode-descriptionForeground": "#101010" },
  });
  const theme = resolveTheme({ model: { get: () => "auto" }, root: {}, document, window });
  assert.equal(theme.name, "dark");
  assert.equal(theme.frontEnd, "vscode");
  assert.equal(theme.background, "#1f1f1f");
  assert.equal(theme.text, "#cccccc");
  assert.equal(theme.mutedText, DATA.dark.mutedText, "a dark text colour on a dark page is not taken");
  assert.deepEqual(theme.fromPage, ["background", "text"]);
});

test("outside JupyterLab the root gets a palette, with the page's colours on it", () => {
  const set = {};
  const root = { dataset: {}, style: { setProperty: (k, v) => { set[k] = v; }, removeProperty: (k) => { delete set[k]; } } };
  const vscode = { ...structuredClone(DATA.theme), ...DATA.dark, name: "dark", frontEnd: "vscode", fromPage: ["background"], background: "#1f1f1f" };
  markTheme(root, vscode, { get: () => "auto" });
  assert.deepEqual(root.dataset, { cwTheme: "dark", cwPalette: "dark" });
  assert.deepEqual(set, { "--jp-layout-color0": "#1f1f1f" });
  markTheme(root, { ...vscode, frontEnd: "jupyterlab" }, { get: () => "auto" });
  assert.deepEqual(root.dataset, { cwTheme: "dark" }, "JupyterLab's --jp-* colours style the controls");
  assert.deepEqual(set, {});
  markTheme(root, vscode, { get: () => "light" });
  assert.deepEqual(root.dataset, { cwTheme: "dark", cwThemeForced: "light", cwPalette: "light" });
  assert.deepEqual(set, {}, "a forced theme takes no page colour");
});

test("watchTheme follows every class and attribute pageTheme reads, and the colour scheme", () => {
  const observed = [];
  const callbacks = [];
  const schemeListeners = [];
  class FakeObserver {
    constructor(callback) { callbacks.push(callback); }
    observe(node, options) { observed.push([node, options.attributeFilter]); }
    disconnect() { observed.length = 0; }
  }
  const body = { dataset: {} };
  const documentElement = {};
  const timers = [];
  const window = {
    MutationObserver: FakeObserver,
    matchMedia: () => ({
      addEventListener: (type, fn) => schemeListeners.push([type, fn]),
      removeEventListener: (type, fn) => schemeListeners.splice(schemeListeners.findIndex(([, f]) => f === fn), 1),
    }),
    setTimeout: (fn) => timers.push(fn) && timers.length,
    clearTimeout: () => {},
  };
  let changes = 0;
  const stop = watchTheme({ document: { body, documentElement }, window }, () => { changes += 1; });
  const filterOf = (node) => observed.find(([n]) => n === node)?.[1] ?? [];
  for (const name of ["class", "data-jp-theme-light", "data-vscode-theme-kind", "data-theme"]) assert.ok(filterOf(body).includes(name), name);
  for (const name of ["theme", "style"]) assert.ok(filterOf(documentElement).includes(name), name);
  assert.deepEqual(filterOf(body), WATCHED_BODY_ATTRIBUTES);
  assert.deepEqual(filterOf(documentElement), WATCHED_HTML_ATTRIBUTES);
  callbacks[0]([]);
  assert.equal(changes, 1, "a mutation redraws at once");
  timers.shift()();
  assert.equal(changes, 2, "and once more when the new stylesheet has applied");
  assert.equal(schemeListeners.length, 1);
  schemeListeners[0][1]();
  assert.equal(changes, 3, "a change of the browser's scheme redraws");
  stop();
  assert.equal(schemeListeners.length, 0);
  assert.equal(observed.length, 0);
});
