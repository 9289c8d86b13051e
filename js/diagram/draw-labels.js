// Direct labels: with more phases than the palette tells apart, each phase's name is written in
// place, on its widest visible piece (as the paper labels phases), when the name fits there.
import { visiblePieces } from "./scene-index.js";
import { font, THEME, THEME_DATA } from "../shared/theme.js";

/** Phases beyond this many get labels on the diagram (campaign_widget/theme.json). */
export const DIRECT_LABELS_ABOVE = THEME_DATA.layout.directLabelsAbove ?? 12;

/** [{ phase, text, x, y }] in CSS px: one label per phase whose name fits in its widest piece. */
export function phaseLabels(ctx, figure, { x, y, plot, domain }) {
  const names = figure.phaseNames ?? [];
  if (names.length <= DIRECT_LABELS_ABOVE) return [];
  const scene = figure.scene;
  const visible = visiblePieces(scene, figure.index, domain[0], domain[1]);
  const best = new Map(); // phase → [width px, piece]
  for (let k = 0; k < visible.length; k++) {
    const i = visible[k];
    const width = Math.min(x(scene.x1[i]), plot.right) - Math.max(x(scene.x0[i]), plot.left);
    const phase = scene.phase[i];
    const current = best.get(phase);
    if (!current || width > current[0]) best.set(phase, [width, i]);
  }
  ctx.font = font(THEME.fontSize - 1);
  const labels = [];
  for (const [phase, [width, i]] of best) {
    const text = String(names[phase] ?? "");
    if (!text || ctx.measureText(text).width + 6 > width) continue;
    const left = Math.max(x(scene.x0[i]), plot.left);
    const right = Math.min(x(scene.x1[i]), plot.right);
    const lineY = y(scene.line_y[i]);
    const baseY = y(scene.base_y[i]);
    const topY = y(Math.max(scene.well_top[i], scene.fill_top[i], scene.line_y[i]));
    // In the middle of the taller of its compute area and its pipe when that fits the text, else
    // just above its pipe.
    const shade = baseY - lineY;
    const pipe = lineY - topY;
    const room = THEME.fontSize + 4;
    const at = shade >= pipe && shade >= room ? (lineY + baseY) / 2 : pipe >= room ? (topY + lineY) / 2 : topY - THEME.fontSize / 2 - 3;
    labels.push({ phase, text, x: (left + right) / 2, y: at });
  }
  return labels;
}

export function drawPhaseLabels(ctx, figure, geometry) {
  const labels = phaseLabels(ctx, figure, geometry);
  if (!labels.length) return 0;
  ctx.font = font(THEME.fontSize - 1);
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.lineJoin = "round";
  ctx.lineWidth = 3;
  ctx.strokeStyle = THEME.background;
  ctx.fillStyle = THEME.text;
  for (const label of labels) {
    ctx.strokeText(label.text, label.x, label.y);
    ctx.fillText(label.text, label.x, label.y);
  }
  return labels.length;
}
