// The DOM pieces every view's controls are made of: elements with their classes and text (text
// always as textContent, never HTML), and a labelled control (label.cw-control > span.cw-label).

/** A new `tag` element; props: className, textContent, title, dataset keys (data-*), other attributes. */
export function element(document, tag, props = {}, text) {
  const node = document.createElement(tag);
  const given = typeof props === "string" ? { className: props } : props ?? {};
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined || value === null) continue;
    if (key === "className" || key === "textContent" || key === "title") node[key] = value;
    else node.setAttribute(key, value);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

/** label.cw-control with its span.cw-label text, then `inputs`, appended to `parent` (if given). */
export function labelled(document, parent, text, ...inputs) {
  const label = element(document, "label", { className: "cw-control" });
  label.append(element(document, "span", { className: "cw-label" }, text), ...inputs);
  parent?.append(label);
  return label;
}

/** Give a select exactly `values` as options (labels[i] shown, else the value) and select `current`. */
export function setOptions(document, select, values, current, labels = values) {
  const have = [...select.options].map((o) => o.value).join("\n");
  if (have !== values.join("\n")) {
    select.replaceChildren(...values.map((v, i) => element(document, "option", { value: String(v) }, String(labels[i] ?? v))));
  }
  if (current !== undefined) select.value = String(current);
}

/** addEventListener that returns its removal, collected in `cleanups`. */
export function listen(cleanups, node, event, handler, options) {
  node.addEventListener(event, handler, options);
  cleanups.push(() => node.removeEventListener(event, handler, options));
}

/** Size `canvas` to `width` × `height` CSS px with a backing store `ratio` times larger (kept when
 * unchanged, since resizing clears it), and scale `ctx` so drawing is in CSS px. */
export function sizeCanvas(canvas, ctx, width, height, ratio) {
  const bw = Math.round(width * ratio);
  const bh = Math.round(height * ratio);
  if (canvas.width !== bw) canvas.width = bw;
  if (canvas.height !== bh) canvas.height = bh;
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
}
