// Phase colours arrive as "#rrggbb"; the figure needs lighter and translucent variants.

const FALLBACK = [128, 128, 128];

export function parseHex(color) {
  const match = /^#?([0-9a-f]{6})$/i.exec(String(color ?? "").trim());
  if (!match) {
    const short = /^#?([0-9a-f]{3})$/i.exec(String(color ?? "").trim());
    if (!short) return FALLBACK.slice();
    return [...short[1]].map((c) => parseInt(c + c, 16));
  }
  const n = parseInt(match[1], 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** Mix with white: amount 0 keeps the colour, 1 gives white. */
export function lighten(color, amount) {
  const [r, g, b] = parseHex(color);
  const mix = (c) => Math.round(c + (255 - c) * amount);
  return `rgb(${mix(r)}, ${mix(g)}, ${mix(b)})`;
}

/**
 * Mix toward `background` ("#rrggbb"): amount 0 keeps the colour, 1 gives the background. A hover
 * fades the other phases this way, so on a dark page they sink into it rather than turning to bright
 * pastels (mixing with white would), never brighter than the hovered one.
 */
export function fade(color, amount, background = "#ffffff") {
  const [r, g, b] = parseHex(color);
  const [R, G, B] = parseHex(background);
  const mix = (c, to) => Math.round(c + (to - c) * amount);
  return `rgb(${mix(r, R)}, ${mix(g, G)}, ${mix(b, B)})`;
}

export function withAlpha(color, alpha) {
  const [r, g, b] = parseHex(color);
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

/** A valid "#rrggbb" for the phase (grey when the list is short or the entry malformed). */
export function phaseColor(colors, phase) {
  const color = colors?.[phase];
  return /^#[0-9a-f]{6}$/i.test(color ?? "") ? color : "#808080";
}
