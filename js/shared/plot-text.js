// Text around a canvas plot in a view's theme (page-theme's colours with theme.json's fonts): the
// font, a title read bottom to top beside the y axis, and the plot's title above it.

/** The CSS font of `theme` at `size` px. */
export function themeFont(theme, size = theme.fontSize, weight = "normal") {
  return `${weight} ${size}px ${theme.fontFamily}`;
}

/** `text` read bottom to top, centred on (x, y), in the context's font and fill. */
export function fillVertical(ctx, text, x, y) {
  ctx.save();
  ctx.translate(x, y);
  ctx.rotate(-Math.PI / 2);
  ctx.textBaseline = "middle";
  ctx.fillText(text, 0, 0);
  ctx.restore();
}

/** `title` (none when empty) in bold, centred over `plot`; the context's font is the theme's after it. */
export function fillTitle(ctx, title, plot, theme) {
  if (!title) return;
  ctx.font = themeFont(theme, theme.titleFontSize, "bold");
  ctx.textBaseline = "alphabetic";
  ctx.fillText(title, (plot.left + plot.right) / 2, plot.top - 12);
  ctx.font = themeFont(theme);
}
