// Fusion groups: bands behind the pieces where each group's phases run (a group may have several),
// a very light grey alternating by group, spanning the plot's height, thin boundaries at the ends,
// and the group's label on top of its widest band when it fits.
// The plot keeps room above the content for the labels (layout.js GROUP_LABEL_ROOM), so no line
// crosses them.
import { GROUP_LABEL_PADDING as LABEL_PADDING } from "./layout.js";
import { snapEdge, snapLine } from "../shared/pixels.js";
import { font, THEME } from "../shared/theme.js";

function visibleBands(scene, x, plot) {
  const bands = [];
  for (let k = 0; k < scene.groups; k++) {
    const t0 = scene.group_t0[k];
    const t1 = scene.group_t1[k];
    if (!(t1 > t0)) continue;
    const left = Math.max(x(t0), plot.left);
    const right = Math.min(x(t1), plot.right);
    if (right <= left) continue;
    bands.push({ k, t0, t1, left, right, id: scene.group_id[k] });
  }
  return bands.sort((a, b) => a.t0 - b.t0);
}

/** The band backgrounds and boundaries (call before the grid and the pieces). */
export function drawGroupBands(ctx, scene, { x, plot, ratio }) {
  if (!scene.groups) return;
  const bands = visibleBands(scene, x, plot);
  const styles = [THEME.groupBand, THEME.groupBandAlternate];
  for (let parity = 0; parity < 2; parity++) {
    ctx.fillStyle = styles[parity];
    ctx.beginPath();
    let any = false;
    bands.forEach((band) => {
      if (Math.abs(band.id) % 2 !== parity) return;
      const left = snapEdge(band.left, ratio);
      ctx.rect(left, plot.top, snapEdge(band.right, ratio) - left, plot.bottom - plot.top);
      any = true;
    });
    if (any) ctx.fill();
  }
  ctx.strokeStyle = THEME.groupBoundary;
  ctx.lineWidth = 1;
  ctx.setLineDash([]);
  ctx.beginPath();
  for (const band of bands) {
    for (const t of [band.t0, band.t1]) {
      const px = x(t);
      if (px < plot.left || px > plot.right) continue;
      const sx = snapLine(px, 1, ratio);
      ctx.moveTo(sx, plot.top);
      ctx.lineTo(sx, plot.bottom);
    }
  }
  ctx.stroke();
}

/**
 * Where the labels go (campaign_widget.figures.group_bands.place_group_labels is its twin): `bands`
 * maps a group id to its widest band { left, right } (px), `widths` the id to its label's width. Inside
 * the band, centred, else at its left or right end, never on a label already placed (`padding`
 * apart): pipelined groups' bands overlap. Widest bands first. Returns [[id, centre]].
 */
export function placeGroupLabels(bands, widths, padding) {
  const placed = [];
  const out = [];
  const ids = [...bands.keys()].sort((a, b) => (bands.get(b).right - bands.get(b).left) - (bands.get(a).right - bands.get(a).left) || a - b);
  for (const id of ids) {
    const { left, right } = bands.get(id);
    const half = widths.get(id) / 2;
    if (2 * half + 2 * padding > right - left) continue;
    for (const centre of [(left + right) / 2, left + padding + half, right - padding - half]) {
      const x0 = centre - half - padding;
      const x1 = centre + half + padding;
      if (placed.every(([a, b]) => x1 <= a || x0 >= b)) {
        placed.push([x0, x1]);
        out.push([id, centre]);
        break;
      }
    }
  }
  return out;
}

/** The labels at the top of the bands, each only where it fits and meets no other (call after the pieces). */
export function drawGroupLabels(ctx, scene, labels, { x, plot }) {
  if (!scene.groups) return;
  ctx.font = font(THEME.fontSize - 1);
  ctx.fillStyle = THEME.mutedText;
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  const widest = new Map();
  for (const band of visibleBands(scene, x, plot)) {
    const label = labels?.[band.id];
    if (label === undefined || label === "") continue;
    const best = widest.get(band.id);
    if (!best || band.right - band.left > best.right - best.left) widest.set(band.id, band);
  }
  const widths = new Map([...widest.keys()].map((id) => [id, ctx.measureText(String(labels[id])).width]));
  for (const [id, centre] of placeGroupLabels(widest, widths, LABEL_PADDING)) {
    ctx.fillText(String(labels[id]), centre, plot.top + LABEL_PADDING);
  }
}
