// Light and dark for every view: the `theme` trait ("auto", "light", "dark"); "auto" follows
// JupyterLab's theme (body[data-jp-theme-light]), else the browser's colour scheme. Colours come
// from campaign_widget/theme.json (light, or light overlaid with dark), and the page's --jp-*
// colours replace the background and text colours where they agree with the theme: the Lab flips
// the attribute before its new stylesheet applies, so a page colour of the other theme is not
// taken, and the page is read again a little later.
import { parseHex } from "./color.js";
import { THEME_DATA } from "./theme.js";

const REREAD_MS = 300;

/** Whether the page around `document` is dark (JupyterLab's attribute, else the colour scheme). */
export function pageIsDark(document, window) {
  const light = document?.body?.dataset?.jpThemeLight;
  if (light !== undefined) return light === "false";
  return window?.matchMedia?.("(prefers-color-scheme: dark)")?.matches === true;
}

/** The theme.json colours of "light" or "dark", as a fresh object with `name`. */
export function themeColours(name) {
  const dark = name === "dark";
  return { ...THEME_DATA.theme, ...(dark ? THEME_DATA.dark : {}), name: dark ? "dark" : "light" };
}

/** Relative luminance 0…255 of a CSS colour (NaN if `ctx` cannot read it). */
export function luminance(ctx, color) {
  if (!ctx || !color) return NaN;
  ctx.fillStyle = "#010203";
  ctx.fillStyle = color;
  const normalized = String(ctx.fillStyle);
  if (normalized === "#010203" && color.trim().toLowerCase() !== "#010203") return NaN;
  const [r, g, b] = normalized.startsWith("#") ? parseHex(normalized) : normalized.match(/[\d.]+/g).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The look of a view: its `theme` trait, or the page's; theme.json's colours with the page's
 * background and text colours (read on `root`) where they agree.
 */
export function resolveTheme({ model, root, document, window, ctx }) {
  const wanted = model?.get?.("theme");
  const dark = wanted === "dark" || (wanted !== "light" && pageIsDark(document, window));
  const theme = themeColours(dark ? "dark" : "light");
  if (wanted === "light" || wanted === "dark") return theme; // asked for: theme.json's own colours
  const style = window?.getComputedStyle?.(root);
  const css = (name) => style?.getPropertyValue?.(name)?.trim();
  const agrees = (color, light) => (light === !dark) === (luminance(ctx, color) >= 128);
  const fromPage = {
    background: [css("--jp-layout-color0"), true],
    text: [css("--jp-ui-font-color1"), false],
    mutedText: [css("--jp-ui-font-color2"), false],
  };
  for (const [key, [value, light]] of Object.entries(fromPage)) if (value && agrees(value, light)) theme[key] = value;
  return theme;
}

/**
 * Call `onChange()` when the page's theme changes (at once, and again REREAD_MS later, when the
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
  observer?.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name"] });
  model?.on?.("change:theme", changed);
  return () => {
    closed = true;
    observer?.disconnect();
    model?.off?.("change:theme", changed);
    if (timer !== null) window.clearTimeout(timer);
  };
}

/**
 * Mark the view's root with its theme (data-cw-theme); when the `theme` trait asks for one
 * (data-cw-theme-forced), THEME_CSS gives the controls and tables that theme's --jp-* colours too.
 */
export function markTheme(root, theme, model) {
  root.dataset.cwTheme = theme.name;
  const wanted = model?.get?.("theme");
  if (wanted === "light" || wanted === "dark") root.dataset.cwThemeForced = wanted;
  else delete root.dataset.cwThemeForced;
}

function forcedCss(name) {
  const t = themeColours(name);
  const dark = name === "dark";
  return `[data-cw-theme-forced="${name}"] { background: ${t.background}; color: ${t.text};
  --jp-layout-color0: ${t.background}; --jp-layout-color1: ${dark ? "#1e1e1e" : "#ffffff"};
  --jp-layout-color2: ${dark ? "#2a2a2a" : "#eeeeee"}; --jp-ui-font-color1: ${t.text};
  --jp-ui-font-color2: ${t.mutedText}; --jp-border-color1: ${dark ? "#5a5a5a" : "#bdbdbd"};
  --jp-border-color2: ${dark ? "#444444" : "#e0e0e0"}; --jp-input-background: ${dark ? "#1e1e1e" : "#ffffff"}; }`;
}

/** CSS for a view whose `theme` trait is "light" or "dark", whatever the page's. */
export const THEME_CSS = `${forcedCss("light")}\n${forcedCss("dark")}\n`;
