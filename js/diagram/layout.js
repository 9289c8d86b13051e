// Where everything goes on the figure, in CSS px: title, plot rectangle, axis labels, legend rows,
// readout lines. Pure: text widths come from the context's measureText.
import { timeUnitFor } from "../shared/format.js";
import { linearScale } from "../shared/scale.js";
import { font, THEME, THEME_DATA } from "../shared/theme.js";
import { timeTicks, utilizationTicks } from "../shared/ticks.js";

/** Padding (CSS px) around a fusion group's label at the top of its band. */
export const GROUP_LABEL_PADDING = 4;
/** Compute lines within this of 1.0 are at full utilization (they are float32 on the wire). */
const COMPUTE_TOLERANCE = 1e-6;

export const LAYOUT = { ...THEME_DATA.layout };

/** Room (CSS px) kept above the content for the fusion groups' labels (js/diagram/draw-groups.js). */
export const GROUP_LABEL_ROOM = 2 * GROUP_LABEL_PADDING + THEME.fontSize - 1;

/**
 * The y value at the top of the plot: a little headroom above the scene's y_max (the top of its
 * pipes), and with `reserve` CSS px of a `plotHeight` px plot kept free above the content (the
 * fusion groups' labels), so nothing drawn strikes through them.
 */
export function yTopFor(scene, plotHeight = 0, reserve = 0) {
  const top = scene.y_max * (1 + LAYOUT.headroom);
  if (!(reserve > 0) || !(plotHeight > 2 * reserve)) return top;
  return Math.max(top, (scene.y_max * plotHeight) / (plotHeight - reserve));
}

const computeTops = new WeakMap();

/**
 * How high the compute axis reaches: 1.0, or the highest compute line when one goes above it
 * (oversubscribed). The pipes above the lines are not compute: their height means nothing in
 * ops/s, so the ticks never follow them (in absolute mode the axis ends at the machine's peak).
 */
export function computeTopFor(scene) {
  let top = computeTops.get(scene);
  if (top === undefined) {
    top = 1;
    const line = scene.line_y;
    for (let i = 0; i < scene.n; i++) if (line[i] > top) top = line[i];
    if (top <= 1 + COMPUTE_TOLERANCE) top = 1; // float32 lines at full utilization
    computeTops.set(scene, top);
  }
  return top;
}

/** A scene whose fusion groups have labels to draw at the top of the plot. */
function labelsGroups(figure) {
  return figure.scene.groups > 0 && (figure.fusionGroups ?? []).some((label) => label !== "");
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
  const yTop = yTopFor(figure.scene, plotHeight, labelsGroups(figure) ? GROUP_LABEL_ROOM : 0);
  const absolute = figure.yAxis === "absolute";
  const yTicks = utilizationTicks({
    mode: absolute ? "absolute" : "relative",
    peak: figure.peakCompute,
    unit: figure.units?.compute ?? "",
    pixelsPerUnit: plotHeight / yTop,
    top: computeTopFor(figure.scene),
  });
  // The ticks and the vertical grid reach the top tick; the spine frames the whole plot, so the
  // pipes above the top compute line stay inside the frame.
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
    width, height, plot, yTop, axisTop, spineTop: yTop, domain, x, y, xTicks, yTicks,
    title: title ? { text: title, x: left, y: L.pad + THEME.titleFontSize / 2 } : null,
    xLabel, yLabel, legend, readout,
  };
}
