// The views' CSS, scoped by the cw- class prefix and appended inside the widget's element: every
// colour is a JupyterLab --jp-* variable (light fallbacks), so the controls follow the Lab's theme;
// what is oversubscribed or warned of is in theme.json's `warning`, the red the canvas draws it in.
import { THEME_CSS, themeColours } from "./page-theme.js";

const WARNING_CSS = `.cw-root { --cw-warning: ${themeColours("light").warning}; }
.cw-root[data-cw-theme="dark"] { --cw-warning: ${themeColours("dark").warning}; }`;

export const CSS = `${THEME_CSS}
${WARNING_CSS}
.cw-root { position: relative; font-family: var(--jp-ui-font-family, system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif); font-size: var(--jp-ui-font-size1, 12px); color: var(--jp-ui-font-color1, #222); max-width: 100%; }
.cw-root [hidden] { display: none !important; }
.cw-header { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; margin: 0 0 4px; }
.cw-controls { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 14px; flex: 1 1 auto; }
.cw-params { display: contents; }
.cw-control { display: inline-flex; align-items: center; gap: 4px; white-space: nowrap; }
.cw-label { color: var(--jp-ui-font-color2, #555); }
.cw-value { display: inline-block; min-width: 4.2em; font-variant-numeric: tabular-nums; color: var(--jp-ui-font-color1, #222); }
.cw-controls input[type=range] { width: 110px; margin: 0; accent-color: var(--jp-brand-color1, #1976d2); }
.cw-controls input[type=checkbox] { accent-color: var(--jp-brand-color1, #1976d2); margin: 0; }
.cw-controls input[type=number], .cw-controls select { width: auto; font: inherit; color: var(--jp-ui-font-color1, #222);
  background: var(--jp-input-background, var(--jp-layout-color1, #fff)); border: var(--jp-border-width, 1px) solid var(--jp-border-color1, #bbb);
  border-radius: 2px; padding: 1px 4px; }
.cw-controls input[type=number] { width: 3.5em; }
.cw-toolbar { display: flex; gap: 6px; margin-left: auto; }
.cw-root button { font: inherit; padding: 2px 8px; border: 1px solid var(--jp-border-color1, #bbb); border-radius: 3px; background: var(--jp-layout-color1, #fff); color: inherit; cursor: pointer; }
.cw-root button:hover { background: var(--jp-layout-color2, #f0f0f0); }
.cw-plot-wrap { position: relative; width: 100%; }
.cw-plot { display: block; width: 100%; cursor: crosshair; touch-action: none; user-select: none; background: var(--jp-layout-color0, #fff); }
.cw-tooltip { position: absolute; z-index: 10; pointer-events: none; background: var(--jp-layout-color0, rgba(255, 255, 255, 0.97)); color: var(--jp-ui-font-color1, #222); border: 1px solid var(--jp-border-color1, #bbb); border-radius: 4px; box-shadow: 0 2px 8px rgba(0, 0, 0, 0.15); padding: 6px 8px; font-size: 12px; line-height: 1.45; white-space: nowrap; }
.cw-tooltip-title { font-weight: bold; margin-bottom: 2px; }
.cw-tooltip-row { display: flex; justify-content: space-between; gap: 14px; }
.cw-tooltip-label { color: var(--jp-ui-font-color2, #666); }
.cw-details summary { cursor: pointer; color: var(--jp-ui-font-color2, #555); }
.cw-tooltip-value { font-variant-numeric: tabular-nums; }
.cw-readout { margin: 4px 0 0; line-height: 1.5; }
.cw-readout-label { color: var(--jp-ui-font-color2, #555); }
.cw-makespan { font-weight: bold; font-variant-numeric: tabular-nums; }
.cw-visually-hidden { position: absolute; width: 1px; height: 1px; margin: 0; padding: 0; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.cw-readout ul { margin: 2px 0 0; padding-left: 1.4em; }
.cw-oversubscribed li, .cw-warnings li { color: var(--cw-warning); }
.cw-readout li.cw-more { color: var(--jp-ui-font-color2, #777); }
`;
