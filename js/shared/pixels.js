// Snapping to device pixels so rectangles and 1-px lines stay crisp at any scale.

/** Round a CSS-px coordinate to the nearest device-pixel edge. */
export function snapEdge(value, ratio) {
  return Math.round(value * ratio) / ratio;
}

/** Centre of a line of `lineWidth` CSS px so it covers whole device pixels. */
export function snapLine(value, lineWidth, ratio) {
  const deviceWidth = Math.max(1, Math.round(lineWidth * ratio));
  const offset = deviceWidth % 2 === 1 ? 0.5 : 0;
  return (Math.round(value * ratio - offset) + offset) / ratio;
}

/** Where a piece's dashed part starts, inside [x0, x1]; NaN means "not dashed" (x1). */
export function dashStart(dashFrom, x0, x1) {
  if (Number.isNaN(dashFrom)) return x1;
  return Math.min(Math.max(dashFrom, x0), x1);
}
