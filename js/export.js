// The figure as a PNG: drawn offscreen at any scale (the download button uses devicePixelRatio,
// the kernel asks for its own), including the readout that the screen shows as HTML.

/** Browsers refuse canvases much larger than this (area, device px). */
export const MAX_CANVAS_AREA = 16384 * 16384 / 4;

export function canvasToBlob(canvas, type = "image/png") {
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the browser could not encode the canvas as PNG"))), type);
  });
}

/**
 * renderPng(document, draw, scale) → { blob, width, height }. `draw(ctx, ratio)` lays out and
 * draws the figure, returning its CSS size { width, height } after sizing the canvas through
 * `resize(width, height)`, which it receives as third argument.
 */
export async function renderPng(document, draw, scale) {
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`PNG scale must be a positive number, got ${scale}`);
  const canvas = document.createElement("canvas");
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("no 2D canvas context available");
  draw(ctx, scale, (width, height) => {
    const w = Math.max(1, Math.round(width * scale));
    const h = Math.max(1, Math.round(height * scale));
    if (w * h > MAX_CANVAS_AREA) throw new RangeError(`PNG of ${w}×${h} px is too large; ask for a smaller scale`);
    canvas.width = w;
    canvas.height = h;
  });
  const blob = await canvasToBlob(canvas);
  return { blob, width: canvas.width, height: canvas.height };
}

/** Save a blob through a temporary <a download>. */
export function downloadBlob(document, blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.style.display = "none";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
