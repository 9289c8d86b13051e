// The figure's look: one place for colours, fonts and sizes (CSS px).

export const THEME = {
  background: "#ffffff",
  text: "#222222",
  mutedText: "#666666",
  axis: "#333333",
  grid: "#e6e6e6",
  capacity: "#a8a8a8",
  well: "#ececec",
  rail: "#8c8c8c",
  warning: "#d62728",
  spillFill: "rgba(214, 39, 40, 0.18)",
  hatch: "rgba(214, 39, 40, 0.9)",
  highlight: "#111111",
  groupBand: "rgba(0, 0, 0, 0.045)",
  groupBandAlternate: "rgba(0, 0, 0, 0.02)",
  groupBoundary: "#c8c8c8",
  fontFamily: '"Helvetica Neue", Helvetica, Arial, sans-serif',
  fontSize: 11,
  titleFontSize: 13,
  computeLineWidth: 2.5,
  railWidth: 1.25,
  gridWidth: 1,
  shadeAlpha: 0.12,
  fillLighten: 0.35,
  fadeLighten: 0.7,
  outlineWidth: 1,
  hatchSpacing: 5,
  dash: [5, 3],
  tickLength: 4,
};

export function font(size = THEME.fontSize, weight = "normal") {
  return `${weight} ${size}px ${THEME.fontFamily}`;
}
