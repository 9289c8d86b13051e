// The plot of a canvas view: div.cw-plot-wrap holding the canvas (an image to assistive technology)
// and its tooltip, a new frame when the plot's width changes (the height is the view's), the canvas
// sized for each draw, and the pointer in the canvas' CSS px.
import { element, sizeCanvas } from "./dom.js";
import { createTooltip } from "./tooltip.js";

const MIN_HEIGHT = 160; // CSS px
const DEFAULT_HEIGHT = 360;

/**
 * `view` is mountView's. Returns { wrap, canvas, ctx, tooltip, width(), size(width, height), fit(),
 * pointer(event), showTooltip(content, point), markPlot(plot, extra) }; the caller puts `wrap` where
 * the plot goes.
 */
export function canvasPlot(view, { className, label }) {
  const { document, window } = view;
  const wrap = element(document, "div", "cw-plot-wrap");
  const canvas = element(document, "canvas", { className, role: "img", "aria-label": label });
  const ctx = canvas.getContext("2d");
  const tooltip = createTooltip(document);
  wrap.append(canvas, tooltip.element);
  let drawnWidth = null;
  let draws = 0;
  // Only a new width needs a new picture: the height follows the figure, and redrawing for it
  // would draw each such change twice.
  const width = () => Math.floor(wrap.clientWidth);
  view.observeResize([wrap], () => {
    if (width() !== drawnWidth) view.requestDraw();
  });
  /** Size the canvas to `w` × `h` CSS px at the screen's pixel ratio (returned); `w` is the width drawn. */
  function size(w, h) {
    const ratio = window.devicePixelRatio || 1;
    sizeCanvas(canvas, ctx, w, h, ratio);
    drawnWidth = w;
    return ratio;
  }
  return {
    wrap, canvas, ctx, tooltip, width,
    size,
    /** Size the canvas to the plot's width and the `height` trait: { width, height }, or null when there is nothing to draw into. */
    fit() {
      const w = width();
      if (!ctx || w <= 0) return null;
      const h = Math.max(MIN_HEIGHT, Number(view.model.get("height")) || DEFAULT_HEIGHT);
      size(w, h);
      return { width: w, height: h };
    },
    /** The event's position in the canvas, CSS px. */
    pointer(event) {
      const box = canvas.getBoundingClientRect();
      return { x: event.clientX - box.left, y: event.clientY - box.top };
    },
    showTooltip(content, point) {
      tooltip.show(content, point.x, point.y, { width: wrap.clientWidth, height: wrap.clientHeight });
    },
    /** The canvas' data-* for tests: one more draw, the plot's box, and `extra` (strings). */
    markPlot(plot, extra = {}) {
      Object.assign(canvas.dataset, {
        draws: String(++draws),
        plotLeft: String(plot.left), plotRight: String(plot.right), plotTop: String(plot.top), plotBottom: String(plot.bottom),
        ...extra,
      });
    },
  };
}
