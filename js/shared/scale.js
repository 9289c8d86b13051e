// Linear maps from data coordinates to CSS px and back.

/** scale(v) maps [d0, d1] onto [r0, r1]; scale.invert(px) maps back. */
export function linearScale(d0, d1, r0, r1) {
  const slope = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  const scale = (value) => r0 + (value - d0) * slope;
  scale.invert = (pixel) => (slope === 0 ? d0 : d0 + (pixel - r0) / slope);
  scale.domain = [d0, d1];
  scale.range = [r0, r1];
  scale.slope = slope;
  return scale;
}
