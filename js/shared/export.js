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

/**
 * The file name of a download: the diagram's title made safe for a file name ("fused +
 * pipelined: makespan 1.2 ms" → "fused-pipelined-makespan-1.2-ms.png"), "campaign.png" without one.
 */
export function pngFileName(title) {
  const stem = String(title ?? "")
    .normalize("NFKD")
    .replace(/[^\w.-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 100);
  return `${stem || "campaign"}.png`;
}

/**
 * PNG export of a view: the download button (at devicePixelRatio, named after the title) and the
 * kernel's {type: "png-request", id, scale} messages (answered with png-reply + the PNG bytes, or
 * png-error). `render(scale)` → renderPng's result. Returns { onMessage, dispose }.
 */
export function attachPngExport({ document, window, button, render, title, send, closed }) {
  async function download() {
    try {
      const { blob } = await render(window.devicePixelRatio || 1);
      downloadBlob(document, blob, pngFileName(title()));
    } catch (error) {
      console.error("campaign_widget: PNG download failed", error);
    }
  }
  async function onMessage(message) {
    if (message?.type !== "png-request") return;
    const id = message.id;
    try {
      const scale = message.scale === undefined || message.scale === null ? 1 : Number(message.scale);
      const { blob, width, height } = await render(scale, message.theme ?? null);
      const bytes = await blob.arrayBuffer();
      if (!closed()) send({ type: "png-reply", id, width, height }, [bytes]);
    } catch (error) {
      if (!closed()) send({ type: "png-error", id, message: String(error?.message ?? error) });
    }
  }
  button.addEventListener("click", download);
  return { onMessage, dispose: () => button.removeEventListener("click", download) };
}
