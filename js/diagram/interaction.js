// Mouse on the plot: wheel zooms time around the cursor, drag pans, double-click resets, hover
// reports the position. Positions are CSS px relative to the canvas. No kernel round trip.
import { wheelZoomFactor } from "../shared/zoom.js";

function inside(plot, x, y) {
  return x >= plot.left && x <= plot.right && y >= plot.top && y <= plot.bottom;
}

/**
 * attachPlotInteraction(canvas, { plot(), onZoom(x, factor) → changed, onWheelPan(dxPixels) →
 * changed, onPan(dxPixels, startState), onPanStart() → startState, onReset(), onHover(x, y),
 * onLeave() }) → detach(). A wheel event that changes nothing (zooming out at full view) is left
 * to the page, so scrolling past the diagram still scrolls the notebook.
 */
export function attachPlotInteraction(canvas, handlers) {
  let drag = null;

  function position(event) {
    const rect = canvas.getBoundingClientRect();
    return [event.clientX - rect.left, event.clientY - rect.top];
  }

  function onWheel(event) {
    const [x, y] = position(event);
    const plot = handlers.plot();
    if (!plot || !inside(plot, x, y)) return;
    const horizontal = Math.abs(event.deltaX) > Math.abs(event.deltaY);
    const changed = horizontal
      ? handlers.onWheelPan(event.deltaMode === 1 ? event.deltaX * 16 : event.deltaX)
      : handlers.onZoom(x, wheelZoomFactor(event.deltaY, event.deltaMode));
    if (changed) event.preventDefault();
  }

  function onPointerDown(event) {
    if (event.button !== 0) return;
    const [x, y] = position(event);
    const plot = handlers.plot();
    if (!plot || !inside(plot, x, y)) return;
    drag = { x, start: handlers.onPanStart(), pointerId: event.pointerId, moved: false };
    canvas.setPointerCapture?.(event.pointerId);
  }

  function onPointerMove(event) {
    const [x, y] = position(event);
    if (drag) {
      if (Math.abs(x - drag.x) > 2) drag.moved = true;
      if (drag.moved) {
        canvas.style.cursor = "grabbing";
        handlers.onLeave();
        handlers.onPan(x - drag.x, drag.start);
      }
      return;
    }
    handlers.onHover(x, y);
  }

  function endDrag(event) {
    if (!drag) return;
    canvas.releasePointerCapture?.(drag.pointerId);
    drag = null;
    canvas.style.cursor = "";
    if (event?.type === "pointerup") handlers.onHover(...position(event));
  }

  function onDoubleClick(event) {
    const [x, y] = position(event);
    const plot = handlers.plot();
    if (!plot || !inside(plot, x, y)) return;
    event.preventDefault();
    handlers.onReset();
  }

  function onLeave() {
    if (!drag) handlers.onLeave();
  }

  const listeners = [
    ["wheel", onWheel, { passive: false }],
    ["pointerdown", onPointerDown],
    ["pointermove", onPointerMove],
    ["pointerup", endDrag],
    ["pointercancel", endDrag],
    ["dblclick", onDoubleClick],
    ["pointerleave", onLeave],
  ];
  for (const [type, listener, options] of listeners) canvas.addEventListener(type, listener, options);
  return () => {
    for (const [type, listener, options] of listeners) canvas.removeEventListener(type, listener, options);
  };
}
