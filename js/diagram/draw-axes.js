// Grid, axes, ticks and axis labels. The compute ticks and grid reach 1.0, or the top tick when a
// compute line goes above 1.0 (oversubscribed): the axis tells the truth. The spine frames the plot.
import { snapLine } from "../shared/pixels.js";
import { font, THEME } from "../shared/theme.js";

export function drawGrid(ctx, layout, ratio) {
  const { plot, x, y, xTicks, yTicks } = layout;
  const yOne = snapLine(y(1), 1, ratio);
  const yAxisTop = snapLine(y(layout.axisTop ?? 1), 1, ratio);
  const yZero = y(0);
  ctx.lineWidth = THEME.gridWidth;
  ctx.setLineDash([]);
  ctx.strokeStyle = THEME.grid;
  ctx.beginPath();
  for (const tick of yTicks) {
    if (tick.y <= 0 || Math.abs(tick.y - 1) < 1e-9) continue;
    const py = snapLine(y(tick.y), 1, ratio);
    ctx.moveTo(plot.left, py);
    ctx.lineTo(plot.right, py);
  }
  for (const tick of xTicks) {
    const px = snapLine(x(tick.value), 1, ratio);
    if (px <= plot.left + 0.5 || px > plot.right + 0.5) continue;
    ctx.moveTo(px, yZero);
    ctx.lineTo(px, yAxisTop);
  }
  ctx.stroke();
  // Full utilization: the capacity line, a shade darker than the grid.
  ctx.strokeStyle = THEME.capacity;
  ctx.beginPath();
  ctx.moveTo(plot.left, yOne);
  ctx.lineTo(plot.right, yOne);
  ctx.stroke();
}

export function drawAxes(ctx, layout, ratio) {
  const { plot, x, y, xTicks, yTicks, xLabel, yLabel } = layout;
  const tick = THEME.tickLength;
  const yZero = snapLine(y(0), 1, ratio);
  const xLeft = snapLine(plot.left, 1, ratio);
  ctx.strokeStyle = THEME.axis;
  ctx.lineWidth = 1;
  ctx.setLineDash([]);
  ctx.beginPath();
  // The compute spine frames the plot's height (the pipes above the top tick stay inside it); the
  // time axis spans the plot.
  ctx.moveTo(xLeft, y(layout.spineTop ?? layout.axisTop ?? 1));
  ctx.lineTo(xLeft, yZero);
  ctx.lineTo(plot.right, yZero);
  for (const t of yTicks) {
    const py = snapLine(y(t.y), 1, ratio);
    ctx.moveTo(xLeft - tick, py);
    ctx.lineTo(xLeft, py);
  }
  for (const t of xTicks) {
    const px = snapLine(x(t.value), 1, ratio);
    if (px < plot.left - 0.5 || px > plot.right + 0.5) continue;
    ctx.moveTo(px, yZero);
    ctx.lineTo(px, yZero + tick);
  }
  ctx.stroke();

  ctx.fillStyle = THEME.text;
  ctx.font = font();
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const t of yTicks) ctx.fillText(t.label, xLeft - tick - 3, y(t.y));
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const t of xTicks) {
    const px = x(t.value);
    if (px < plot.left - 0.5 || px > plot.right + 0.5) continue;
    ctx.fillText(t.label, px, yZero + tick + 2);
  }

  ctx.textBaseline = "middle";
  ctx.fillText(xLabel.text, xLabel.x, xLabel.y);
  ctx.save();
  ctx.translate(yLabel.x, yLabel.y);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText(yLabel.text, 0, 0);
  ctx.restore();
}
