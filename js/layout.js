// Where everything goes on the figure, in CSS px: title, plot rectangle, axis labels, legend rows,
// readout lines. Pure: text widths come from the context's measureText.
import { timeUnitFor } from "./format.js";
import { linearScale } from "./scale.js";
import { font, THEME, THEME_DATA } from "./theme.js";
import { timeTicks, utilizationTicks } from "./ticks.js";

export const LAYOUT = { ...THEME_DATA.layout };

/** The y value at the top of the plot: a little headroom above the scene's y_max. */
export function yTopFor(scene) {
  return scene.y_max * (1 + LAYOUT.headroom);
}

function measure(ctx, text, size, weight) {
  ctx.font = font(size, weight);
  return ctx.measureText(text).width;
}

/**
 * layoutFigure(ctx, figure, view) → { width, height, plot, yTop, domain, x, y, xTicks, yTicks,
 * title, xLabel, yLabel, legend, readout }. `x` and `y` are the data → CSS px scales.
 */
export function layoutFigure(ctx, figure, view) {
  const L = LAYOUT;
  const width = Math.max(view.width, L.minPlotWidth + 100);
  const plotHeight = Math.max(40, view.plotHeight);
  const yTop = yTopFor(figure.scene);
  const absolute = figure.yAxis === "absolute";
  const yTicks = utilizationTicks({
    mode: absolute ? "absolute" : "relative",
    peak: figure.peakCompute,
    unit: figure.units?.compute ?? "",
    pixelsPerUnit: plotHeight / yTop,
    top: figure.computeTop ?? 1,
  });
  const axisTop = yTicks.reduce((m, t) => Math.max(m, t.y), 1);
  const tickLabelWidth = yTicks.reduce((m, t) => Math.max(m, measure(ctx, t.label, THEME.fontSize)), 0);
  const resource = figure.resourceNames?.[0] || "compute";
  const yLabelText = absolute ? `${resource} (${figure.units?.compute || "ops/s"})` : `${resource} utilization`;

  const title = figure.title ? String(figure.title) : "";
  const top = L.pad + (title ? THEME.titleFontSize + L.titleGap : 0) + THEME.fontSize / 2;
  const left = Math.ceil(L.pad + THEME.fontSize + L.axisLabelGap + tickLabelWidth + L.tickLabelGap + THEME.tickLength);
  const right = Math.max(left + L.minPlotWidth, width - L.rightPad);
  const bottom = top + plotHeight;
  const plot = { left, right, top, bottom };

  const domain = view.domain;
  const x = linearScale(domain[0], domain[1], left, right);
  const y = linearScale(0, yTop, bottom, top);
  const timeDisplay = timeUnitFor(figure.units?.time ?? "", Math.max(figure.scene.x_max, figure.timeMax ?? 0));
  const xTicks = timeTicks(domain[0], domain[1], right - left, timeDisplay.factor);

  const xLabelY = bottom + THEME.tickLength + L.xTickLabelHeight + L.xLabelHeight / 2 + 2;
  const timeUnit = timeDisplay.unit;
  const xLabel = { text: timeUnit ? `time (${timeUnit})` : "time", x: (left + right) / 2, y: xLabelY };
  const yLabel = { text: yLabelText, x: L.pad + THEME.fontSize / 2, y: (y(0) + y(1)) / 2 };

  // Legend: entries flow left to right from the plot's left edge and wrap.
  let cursorX = left;
  let rowY = xLabelY + L.xLabelHeight / 2 + L.legendGap + L.legendRowHeight / 2;
  const legend = [];
  for (const entry of figure.legend ?? []) {
    const itemWidth = L.legendSwatchWidth + 6 + measure(ctx, entry.label, THEME.fontSize);
    if (cursorX > left && cursorX + itemWidth > right) {
      cursorX = left;
      rowY += L.legendRowHeight;
    }
    legend.push({ entry, x: cursorX, y: rowY, width: itemWidth });
    cursorX += itemWidth + L.legendItemGap;
  }
  let cursorY = legend.length ? rowY + L.legendRowHeight / 2 : xLabelY + L.xLabelHeight / 2;

  const readout = [];
  if (view.includeReadout !== false && figure.readoutLines?.length) {
    cursorY += L.readoutGap;
    for (const line of figure.readoutLines) {
      readout.push({ line, x: left, y: cursorY + L.readoutLineHeight / 2 });
      cursorY += L.readoutLineHeight;
    }
  }
  const height = Math.ceil(cursorY + L.pad);
  return {
    width, height, plot, yTop, axisTop, domain, x, y, xTicks, yTicks,
    title: title ? { text: title, x: left, y: L.pad + THEME.titleFontSize / 2 } : null,
    xLabel, yLabel, legend, readout,
  };
}
