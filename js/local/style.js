// The local view's CSS (cwl- prefix), on top of the campaign view's cw- basics.
import { CSS } from "../shared/styles.js";

export const LOCAL_CSS = `${CSS}
.cwl-controls { display: flex; flex-direction: column; gap: 4px; margin-bottom: 6px; }
.cwl-row { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 14px; }
.cwl-loops { display: inline-flex; flex-wrap: wrap; gap: 4px 14px; }
.cwl-root input[type=range] { width: 110px; margin: 0; }
.cwl-root input[type=number] { width: 4.5em; }
.cwl-capacity-value { min-width: 5.5em; }
.cwl-layout { display: inline-flex; gap: 6px; align-items: center; padding: 1px 6px; border: 1px solid var(--jp-border-color2, #ddd); border-radius: 3px; }
.cwl-tensor-name { font-weight: bold; }
.cwl-message { color: var(--jp-error-color1, #b00020); margin: 2px 0 4px; }
.cwl-message.cwl-note { color: var(--jp-ui-font-color1, #333); }
.cwl-message.cwl-pending { font-style: italic; }
.cwl-apply.cwl-pending { font-weight: bold; outline: 2px solid var(--jp-brand-color1, #1976d2); outline-offset: 1px; }
.cwl-main { display: flex; flex-wrap: wrap; gap: 10px; align-items: flex-start; }
.cwl-plot-wrap { position: relative; flex: 1 1 560px; min-width: 240px; overflow-x: auto; }
.cwl-canvas { display: block; cursor: pointer; background: var(--jp-layout-color0, #fff); }
.cwl-side { flex: 0 1 440px; min-width: min-content; } /* never narrower than its table, whose cells never wrap */
.cwl-hist { display: block; max-width: 100%; background: var(--jp-layout-color0, #fff); }
.cwl-readout-table { border-collapse: collapse; margin-top: 6px; font-variant-numeric: tabular-nums; }
.cwl-readout-table th, .cwl-readout-table td { padding: 1px 6px; text-align: right; white-space: nowrap; border-bottom: 1px solid var(--jp-border-color2, #e0e0e0); }
.cwl-readout-table th:first-child, .cwl-readout-table td:first-child { text-align: left; }
.cwl-notes { margin: 4px 0 0; padding-left: 1.2em; }
`;
