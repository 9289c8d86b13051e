// Light and dark for every view: the `theme` trait ("auto", "light", "dark"); "auto" follows the
// notebook front end's theme, else the browser's colour scheme. Colours come from
// campaign_widget/theme.json (light, or light overlaid with dark), and the page's own background and
// text colours replace them where they agree with the theme.
//
// What each front end puts on the page (read in this order; a marker missing means "not this one"):
// - JupyterLab and Notebook 7: body[data-jp-theme-light="true"|"false"]; colours --jp-layout-color0,
//   --jp-ui-font-color1, --jp-ui-font-color2. The Lab flips the attribute before its new stylesheet
//   applies, so a page colour of the other theme is not taken, and the page is read again a little later.
// - VS Code notebooks (an output webview): body[data-vscode-theme-kind] and one body class of
//   vscode-light, vscode-dark, vscode-high-contrast, vscode-high-contrast-light (a high-contrast light
//   theme carries vscode-high-contrast as well, so the light classes are asked first); colours
//   --vscode-editor-background, --vscode-editor-foreground, --vscode-descriptionForeground, written on
//   <html>. With only the variables, the background's luminance decides.
// - Colab: html[theme="dark"|"light"], the selector Colab's team gives for HTML in output frames
//   (its other variables it calls unstable); its widget manager (colab-cdn-widget-manager) maps
//   --jp-ui-font-color1 and --jp-layout-color2 to its own colours, so the text colour comes through
//   the --jp-* variables.
// - marimo: body[data-theme="dark"|"light"] and the body classes dark-theme / light-theme (its
//   ThemeProvider, read in marimo 0.25's bundle); data-theme on <body> is also the PyData convention.
// - anywhere else (a static HTML file): prefers-color-scheme.
// Outside JupyterLab the page has no --jp-* colours for the controls, so the root is marked with a
// palette (data-cw-palette) that THEME_CSS fills in.
import { parseHex } from "./color.js";
import { THEME_DATA } from "./theme.js";

const REREAD_MS = 300;

/** The classes and attributes the detection reads, on <body> and on <html>: watched for live changes. */
export const WATCHED_BODY_ATTRIBUTES = [
  "data-jp-theme-light",
  "data-jp-theme-name",
  "class",
  "data-vscode-theme-kind",
  "data-theme",
];
export const WATCHED_HTML_ATTRIBUTES = ["theme", "class", "style"];

/** Each front end's page colours: theme key → CSS variable. */
const PAGE_VARIABLES = {
  jupyterlab: { background: "--jp-layout-color0", text: "--jp-ui-font-color1", mutedText: "--jp-ui-font-color2" },
  vscode: {
    background: "--vscode-editor-background",
    text: "--vscode-editor-foreground",
    mutedText: "--vscode-descriptionForeground",
  },
  colab: { text: "--jp-ui-font-color1" },
  marimo: {},
  browser: {},
};

const VSCODE_LIGHT = ["vscode-high-contrast-light", "vscode-light"];
const VSCODE_DARK = ["vscode-dark", "vscode-high-contrast"];

function cssVariable(window, node, name) {
  if (!node) return "";
  return String(window?.getComputedStyle?.(node)?.getPropertyValue?.(name) ?? "").trim();
}

/**
 * Which front end the page is and whether it is dark: { frontEnd: "jupyterlab" | "vscode" | "colab" |
 * "marimo" | "browser", dark }. `ctx` (a 2D context) reads a colour for the VS Code variables-only case.
 */
export function pageTheme(document, window, ctx) {
  const body = document?.body;
  const light = body?.dataset?.jpThemeLight;
  if (light !== undefined) return { frontEnd: "jupyterlab", dark: light === "false" };
  const kind = body?.dataset?.vscodeThemeKind;
  const classes = body?.classList;
  const has = (name) => kind === name || classes?.contains?.(name) === true;
  if (VSCODE_LIGHT.some(has)) return { frontEnd: "vscode", dark: false };
  if (VSCODE_DARK.some(has)) return { frontEnd: "vscode", dark: true };
  const colab = document?.documentElement?.getAttribute?.("theme");
  if (colab === "dark" || colab === "light") return { frontEnd: "colab", dark: colab === "dark" };
  const marked = body?.dataset?.theme;
  if (marked === "dark" || classes?.contains?.("dark-theme")) return { frontEnd: "marimo", dark: true };
  if (marked === "light" || classes?.contains?.("light-theme")) return { frontEnd: "marimo", dark: false };
  const editor = cssVariable(window, document?.documentElement, "--vscode-editor-background");
  const shade = editor ? luminance(ctx, editor) : NaN;
  if (Number.isFinite(shade)) return { frontEnd: "vscode", dark: shade < 128 };
  return { frontEnd: "browser", dark: window?.matchMedia?.("(prefers-color-scheme: dark)")?.matches === true };
}

/** Whether the page around `document` is dark (see pageTheme). */
export function pageIsDark(document, window, ctx) {
  return pageTheme(document, window, ctx).dark;
}

/** The theme.json colours of "light" or "dark", as a fresh object with `name`. */
export function themeColours(name) {
  const dark = name === "dark";
  return { ...THEME_DATA.theme, ...(dark ? THEME_DATA.dark : {}), name: dark ? "dark" : "light" };
}

/** Relative luminance 0…255 of a CSS colour: read by `ctx` (a 2D context) when given, else only
 * "#rgb", "#rrggbb" and "rgb(…)"/"rgba(…)" are read; NaN when the colour cannot be read. */
export function luminance(ctx, color) {
  if (!color) return NaN;
  let normalized = String(color).trim();
  if (ctx) {
    ctx.fillStyle = "#010203";
    ctx.fillStyle = normalized;
    const read = String(ctx.fillStyle);
    if (read === "#010203" && normalized.toLowerCase() !== "#010203") return NaN;
    normalized = read;
  }
  let rgb;
  if (/^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(normalized)) rgb = parseHex(normalized);
  else if (/^rgba?\(/i.test(normalized)) rgb = normalized.match(/[\d.]+/g)?.slice(0, 3).map(Number);
  if (!rgb || rgb.length < 3 || rgb.some((c) => !Number.isFinite(c))) return NaN;
  const [r, g, b] = rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The look of a view: its `theme` trait, or the page's (pageTheme); theme.json's colours with the
 * front end's background and text colours (read around `root`) where they agree. In "auto" the
 * result also says `frontEnd` and which keys came `fromPage`.
 */
export function resolveTheme({ model, root, document, window, ctx }) {
  const wanted = model?.get?.("theme");
  if (wanted === "light" || wanted === "dark") return themeColours(wanted); // asked for: theme.json's own colours
  const page = pageTheme(document, window, ctx);
  const theme = { ...themeColours(page.dark ? "dark" : "light"), frontEnd: page.frontEnd, fromPage: [] };
  // Around the root, not on it: the root's own palette (markTheme) must not be read back as the page's.
  const around = root?.parentElement ?? document?.body ?? root;
  const agrees = (color, light) => (light === !page.dark) === (luminance(ctx, color) >= 128);
  for (const [key, variable] of Object.entries(PAGE_VARIABLES[page.frontEnd] ?? {})) {
    const value = cssVariable(window, around, variable) || cssVariable(window, root, variable);
    if (value && agrees(value, key === "background")) {
      theme[key] = value;
      theme.fromPage.push(key);
    }
  }
  return theme;
}

/**
 * Call `onChange()` when the page's theme changes — the classes and attributes pageTheme reads, on
 * <body> and <html>, and the browser's colour scheme — (at once, and again REREAD_MS later, when the
 * Lab's new stylesheet has applied) and when the model's `theme` trait changes. Returns dispose().
 */
export function watchTheme({ model, document, window }, onChange) {
  let timer = null;
  let closed = false;
  const changed = () => {
    if (closed) return;
    onChange();
    if (timer !== null) window.clearTimeout(timer);
    timer = window.setTimeout(() => {
      timer = null;
      if (!closed) onChange();
    }, REREAD_MS);
  };
  const observer = typeof window?.MutationObserver === "function" && document?.body
    ? new window.MutationObserver(changed)
    : null;
  observer?.observe(document.body, { attributes: true, attributeFilter: WATCHED_BODY_ATTRIBUTES });
  if (document?.documentElement) {
    observer?.observe(document.documentElement, { attributes: true, attributeFilter: WATCHED_HTML_ATTRIBUTES });
  }
  const scheme = window?.matchMedia?.("(prefers-color-scheme: dark)");
  scheme?.addEventListener?.("change", changed);
  model?.on?.("change:theme", changed);
  return () => {
    closed = true;
    observer?.disconnect();
    scheme?.removeEventListener?.("change", changed);
    model?.off?.("change:theme", changed);
    if (timer !== null) window.clearTimeout(timer);
  };
}

/**
 * A view's theme, kept: resolve it now (resolveTheme), mark the root (markTheme) and each of
 * `canvases` (data-theme), hand it to `onTheme(theme)`, and again, followed by `redraw()`, whenever
 * the page's or the trait's theme changes (watchTheme). Returns dispose().
 */
export function followTheme({ model, root, document, window, ctx, canvases = [] }, onTheme, redraw) {
  const apply = () => {
    const theme = resolveTheme({ model, root, document, window, ctx });
    markTheme(root, theme, model);
    for (const canvas of canvases) canvas.dataset.theme = theme.name;
    onTheme(theme);
  };
  apply();
  return watchTheme({ model, document, window }, () => {
    apply();
    redraw();
  });
}

/** The --jp-* variable THEME_CSS's palette gives each page colour (markTheme writes the page's on the root). */
const PALETTE_VARIABLES = { background: "--jp-layout-color0", text: "--jp-ui-font-color1", mutedText: "--jp-ui-font-color2" };

/**
 * Mark the view's root with its theme (data-cw-theme). When the `theme` trait asks for one
 * (data-cw-theme-forced), or the page is not JupyterLab's and so has no --jp-* colours for the
 * controls, the root gets a palette (data-cw-palette): THEME_CSS gives the controls and tables that
 * theme's --jp-* colours, with the page's own background and text colours where resolveTheme took them.
 */
export function markTheme(root, theme, model) {
  root.dataset.cwTheme = theme.name;
  const wanted = model?.get?.("theme");
  const forced = wanted === "light" || wanted === "dark" ? wanted : null;
  if (forced) root.dataset.cwThemeForced = forced;
  else delete root.dataset.cwThemeForced;
  const palette = forced ?? (theme.frontEnd && theme.frontEnd !== "jupyterlab" ? theme.name : null);
  if (palette) root.dataset.cwPalette = palette;
  else delete root.dataset.cwPalette;
  for (const [key, variable] of Object.entries(PALETTE_VARIABLES)) {
    if (palette && !forced && theme.fromPage?.includes(key)) root.style?.setProperty?.(variable, theme[key]);
    else root.style?.removeProperty?.(variable);
  }
}

function paletteCss(name) {
  const t = themeColours(name);
  const dark = name === "dark";
  return `[data-cw-palette="${name}"] { --jp-layout-color0: ${t.background}; --jp-layout-color1: ${dark ? "#1e1e1e" : "#ffffff"};
  --jp-layout-color2: ${dark ? "#2a2a2a" : "#eeeeee"}; --jp-ui-font-color1: ${t.text};
  --jp-ui-font-color2: ${t.mutedText}; --jp-border-color1: ${dark ? "#5a5a5a" : "#bdbdbd"};
  --jp-border-color2: ${dark ? "#444444" : "#e0e0e0"}; --jp-input-background: ${dark ? "#1e1e1e" : "#ffffff"};
  background: var(--jp-layout-color0); color: var(--jp-ui-font-color1); color-scheme: ${name}; }`;
}

/** CSS for a view with a palette of its own: its `theme` trait forces one, or the page has no --jp-* colours. */
export const THEME_CSS = `${paletteCss("light")}\n${paletteCss("dark")}\n`;
