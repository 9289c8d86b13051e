// Whether a view's model can reach a kernel, and what a view does without one: a note says so and
// the controls that change the model in Python are hidden (their moves would have no effect),
// while hover, zoom, pan and the PNG download, which need no kernel, keep working.
//
// What the page tells (anywidget hands the view `model.widget_manager`):
// - JupyterLab's and Notebook 7's managers have a `kernel` (null when the notebook has none, e.g.
//   opened with saved widget state and no kernel); so have html-manager pages that bring a kernel.
//   The static page of campaign_widget.views.page says `kernel: null` the same way.
// - ipywidgets' html-manager (nbconvert and embed pages) is a manager with comm placeholders
//   (`_create_comm`, `_get_comm_info`) and no kernel at all.
// - Any other front end (marimo, …) counts as having one.
// A view that is told "none" but is answered by the kernel (a ping over the comm, see
// campaign_widget/views/base.py) shows its controls again: a front end we misread loses nothing.
// A page that shows the note once for all its views (js/standalone/host.js) says so with
// `widget_manager.page_note = true`: its views then hide their controls without a note of their own.

const HIDDEN_CONTROLS = `.cw-root[data-kernel="none"] [data-needs-kernel] { display: none !important; }
`;
export const NOTE_STYLE = `.cw-kernel-note { margin: 0 0 4px; padding: 2px 6px; border-left: 3px solid var(--jp-warn-color1, #f0ad4e);
  color: var(--jp-ui-font-color2, #555); background: var(--jp-layout-color2, #f4f4f4); font-size: var(--jp-ui-font-size0, 11px); }
`;
export const NO_KERNEL_NOTE = "No kernel: this view shows its saved state. Hovering and exploring it work; the controls that recompute in Python are hidden.";
export const PING = "kernel-ping";
export const PONG = "kernel-pong";

/** "live", "none" or "unknown" for the model's front end (see above). */
export function kernelState(model) {
  const manager = model?.widget_manager;
  if (!manager || typeof manager !== "object") return "unknown";
  if ("kernel" in manager) return manager.kernel ? "live" : "none";
  if (typeof manager._create_comm === "function" && typeof manager._get_comm_info === "function") return "none";
  return "unknown";
}

/** Whether the model's page shows the missing-kernel note once for all its views. */
export function pageNoteStands(model) {
  return model?.widget_manager?.page_note === true;
}

/** The missing-kernel note: a status line of NO_KERNEL_NOTE, set as text (style it with NOTE_STYLE). */
export function kernelNote(document) {
  const note = document.createElement("div");
  note.className = "cw-kernel-note";
  note.setAttribute("role", "status");
  note.textContent = NO_KERNEL_NOTE;
  return note;
}

/** Mark controls that need the kernel: each one's label (or the element itself) is hidden without one. */
export function needsKernel(...elements) {
  for (const node of elements.flat()) {
    if (!node) continue;
    const target = node.closest?.("label") ?? node;
    target.setAttribute("data-needs-kernel", "");
  }
}

/**
 * watchKernel({ model, root, document }) → { state(), dispose() }. Writes root's data-kernel
 * ("live", "none" or "unknown"), shows the note first in `root` when there is no kernel (unless
 * the page's own note stands), and asks the kernel once whether it is there.
 */
export function watchKernel({ model, root, document }) {
  let state = kernelState(model);
  const style = document.createElement("style");
  const note = pageNoteStands(model) ? null : kernelNote(document);
  style.textContent = note ? HIDDEN_CONTROLS + NOTE_STYLE : HIDDEN_CONTROLS;
  root.prepend(...[style, note].filter(Boolean));

  function show() {
    root.dataset.kernel = state;
    if (note) note.hidden = state !== "none";
  }
  function onMessage(content) {
    if (content?.type !== PONG || state === "live") return;
    state = "live";
    show();
  }
  show();
  model.on("msg:custom", onMessage);
  try {
    model.send({ type: PING });
  } catch {
    // no comm to send on: the state read from the page stands
  }
  return {
    state: () => state,
    dispose() {
      model.off("msg:custom", onMessage);
      style.remove();
      note?.remove();
    },
  };
}
