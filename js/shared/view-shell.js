// What every view's render({ model, el }) does around its own drawing: the root element and its CSS,
// the trait writer, the kernel watch, one draw per animation frame (or at once, when the kernel's
// message has been set whole), model and DOM listeners, resize observers and the theme, each undone
// by the cleanup anywidget gets back. A view hands its setup to mountView and keeps to what it draws.
import { element } from "./dom.js";
import { watchKernel } from "./kernel.js";
import { followTheme } from "./page-theme.js";
import { createTraitWriter } from "./trait-writer.js";

/**
 * Mount a view in `el` and return anywidget's cleanup. `className` and `css` make the root
 * (div.className holding a <style> of `css`); `kernel: false` leaves out the kernel watch (a view with
 * no control that needs the kernel). `setup(view)` builds the view in `view.root` and returns
 * `{ draw, redrawOn = [], dispose }`: `draw()` paints what the model holds (called once per frame at
 * most), `redrawOn` names the traits whose change only asks for a new frame, and `dispose()` undoes
 * what the view made itself; it runs before the writer's last flush, so it may still write.
 *
 * `view`: { model, document, window, root, writer, kernel (null without), requestDraw(), drawNow(),
 * arrived(), closed(), on(event, handler), onChange(traits, handler), listen(node, type, handler,
 * options), observeResize(nodes, onResize), followTheme({ ctx, canvases }, onTheme) }.
 */
export function mountView({ model, el, className, css, kernel: withKernel = true }, setup) {
  const document = el.ownerDocument ?? globalThis.document;
  const window = document.defaultView ?? globalThis;
  const root = element(document, "div", className);
  root.append(element(document, "style", null, css));
  el.append(root);
  const writer = createTraitWriter(model, {
    requestFrame: (f) => window.requestAnimationFrame(f),
    cancelFrame: (id) => window.cancelAnimationFrame(id),
  });
  const kernel = withKernel ? watchKernel({ model, root, document }) : null;

  const undo = []; // the shell's own cleanups, run in order
  let paint = null;
  let frame = null;
  let closed = false;
  let dataArrived = false; // the kernel's data changed since the last draw

  function drawNow() {
    if (frame !== null) window.cancelAnimationFrame(frame);
    frame = null;
    dataArrived = false; // whatever asked for this draw, it shows the data there is
    if (!closed) paint?.();
  }
  function onFrame() {
    frame = null;
    drawNow();
  }
  function requestDraw() {
    if (frame === null && !closed) frame = window.requestAnimationFrame(onFrame);
  }
  function on(event, handler) {
    model.on(event, handler);
    undo.push(() => model.off(event, handler));
  }
  // New data from the kernel is drawn at once, when the message's last trait has been set
  // (Backbone's one "change" after its "change:<trait>" events), not at the next animation frame:
  // the picture then makes the coming frame instead of waiting for it and being drawn into it.
  on("change", () => {
    if (dataArrived) drawNow();
  });

  const view = {
    model, document, window, root, writer, kernel,
    requestDraw,
    drawNow,
    /** The kernel's data changed: drawn when its message has been set whole (else at the next frame). */
    arrived() {
      dataArrived = true;
      requestDraw();
    },
    closed: () => closed,
    on,
    /** `handler` on the change of each of `traits`. */
    onChange(traits, handler) {
      for (const trait of traits) on(`change:${trait}`, handler);
    },
    /** addEventListener, removed on cleanup. */
    listen(node, type, handler, options) {
      node.addEventListener(type, handler, options);
      undo.push(() => node.removeEventListener(type, handler, options));
    },
    /** `onResize()` (else a new frame) when any of `nodes` changes size, where the browser tells. */
    observeResize(nodes, onResize = requestDraw) {
      if (typeof window.ResizeObserver !== "function") return;
      const observer = new window.ResizeObserver(() => onResize());
      for (const node of nodes) observer.observe(node);
      undo.push(() => observer.disconnect());
    },
    /** page-theme.followTheme for this view's root and `canvases`: `onTheme(theme)` now and on each change, then a new frame. */
    followTheme({ ctx, canvases = [] }, onTheme) {
      undo.push(followTheme({ model, root, document, window, ctx, canvases }, onTheme, requestDraw));
    },
  };

  const { draw, redrawOn = [], dispose } = setup(view);
  paint = draw;
  view.onChange(redrawOn, requestDraw);
  requestDraw();

  return () => {
    closed = true;
    if (frame !== null) window.cancelAnimationFrame(frame);
    frame = null;
    for (const step of undo) step();
    dispose?.();
    writer.dispose();
    kernel?.dispose();
    root.remove();
  };
}
