// Title, legend and readout drawn into the canvas (so the PNG carries them). All text goes
// through fillText: phase names are data, never markup.
import { lighten, phaseColor } from "../shared/color.js";
import { LAYOUT } from "./layout.js";
import { font, THEME } from "../shared/theme.js";

function drawSwatch(ctx, entry, x, y) {
  const w = LAYOUT.legendSwatchWidth;
  const h = 10;
  const top = Math.round(y - h / 2);
  const bottom = top + h;
  ctx.setLineDash([]);
  if (entry.kind === "more") return; // "+N more": text only
  if (entry.kind === "phase") {
    const color = phaseColor([entry.color], 0);
    ctx.fillStyle = lighten(color, THEME.fillLighten);
    ctx.fillRect(x, top, w, h);
    ctx.strokeStyle = color;
    ctx.lineWidth = THEME.computeLineWidth;
    ctx.beginPath();
    ctx.moveTo(x, bottom);
    ctx.lineTo(x + w, bottom);
    ctx.stroke();
  } else if (entry.kind === "well") {
    ctx.fillStyle = THEME.well;
    ctx.fillRect(x, top, w, h);
    ctx.strokeStyle = THEME.rail;
    ctx.lineWidth = THEME.railWidth;
    ctx.beginPath();
    ctx.moveTo(x, top + 0.5);
    ctx.lineTo(x + w, top + 0.5);
    ctx.stroke();
  } else if (entry.kind === "critical") {
    // the bold edge, around a line in the muted text colour (campaign_widget/static_figure/legend.py)
    for (const [color, extra] of [[THEME.critical, 2 * THEME.criticalWidth], [THEME.mutedText, 0]]) {
      ctx.strokeStyle = color;
      ctx.lineWidth = THEME.computeLineWidth + extra;
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.lineTo(x + w, y);
      ctx.stroke();
    }
  } else if (entry.kind === "spill") {
    ctx.fillStyle = THEME.spillFill;
    ctx.fillRect(x, top, w, h);
    ctx.save();
    ctx.beginPath();
    ctx.rect(x, top, w, h);
    ctx.clip();
    ctx.strokeStyle = THEME.hatch;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (let sx = x - h; sx < x + w; sx += THEME.hatchSpacing) {
      ctx.moveTo(sx, bottom);
      ctx.lineTo(sx + h, top);
    }
    ctx.stroke();
    ctx.restore();
  } else {
    ctx.strokeStyle = entry.kind === "compute-over" ? THEME.warning : THEME.axis;
    ctx.lineWidth = THEME.computeLineWidth;
    ctx.setLineDash(entry.kind === "dashed" ? THEME.dash : []);
    ctx.beginPath();
    ctx.moveTo(x, y);
    ctx.lineTo(x + w, y);
    ctx.stroke();
    ctx.setLineDash([]);
  }
}

export function drawLegend(ctx, layout) {
  for (const { entry, x, y } of layout.legend) {
    drawSwatch(ctx, entry, x, y);
    ctx.fillStyle = THEME.text;
    ctx.font = font();
    ctx.textAlign = "left";
    ctx.textBaseline = "middle";
    ctx.fillText(entry.label, x + LAYOUT.legendSwatchWidth + 6, y);
  }
}

export function drawReadout(ctx, layout) {
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  for (const { line, x, y } of layout.readout) {
    const warning = line.kind === "oversubscribed" || line.kind === "warning";
    ctx.fillStyle = warning ? THEME.warning : line.kind === "more" ? THEME.mutedText : THEME.text;
    ctx.font = font(THEME.fontSize, line.kind === "makespan" ? "bold" : "normal");
    ctx.fillText(line.text, x, y);
  }
}

export function drawTitle(ctx, layout) {
  if (!layout.title) return;
  ctx.fillStyle = THEME.text;
  ctx.font = font(THEME.titleFontSize, "bold");
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  ctx.fillText(layout.title.text, layout.title.x, layout.title.y);
}
