// What the tooltip says about a node or an edge: { title, rows: [[label, value]] }. Shown with
// textContent only (names are user text, never HTML).
import { formatPercent, formatQuantity, formatSI } from "../shared/format.js";

const KIND = ["read", "write", "order"];

/** Where value `s` sits on the colour bar, in words (s is the scale's internal 0 … 1). */
function onBar(s) {
  return ["colour bar", Number.isFinite(s) ? `${Math.round(100 * s)}% along` : "— (out of scale)"];
}

function name(names, i) {
  return String(names[i] ?? `#${i}`);
}

export function nodeTooltip(graph, style, names, units, i) {
  if (i < graph.nPhases) {
    const p = style.phase;
    const rows = [
      ["ops", formatSI(p.ops[i], units.ops ?? "")],
      ["bytes", formatSI(p.bytes[i], units.bytes ?? "B")],
      ["intensity", formatQuantity(p.intensity[i], `${units.ops ?? ""}/${units.bytes ?? "B"}`)],
      ["duration", formatQuantity(p.duration[i], units.time ?? "")],
      ["efficiency", formatPercent(p.efficiency[i])],
    ];
    if (style.target === "phases") rows.push(onBar(style.s[i]));
    return { title: `phase ${name(names, i)}`, rows };
  }
  const rows = [["size", formatSI(style.tensorBytes[i], units.bytes ?? "B")]];
  if (graph.fusedTensor[i]) rows.push(["fused", "kept inside its fusion group: 0 B moved"]);
  return { title: `tensor ${name(names, i)}`, rows };
}

export function edgeTooltip(graph, style, names, units, e) {
  const kind = KIND[graph.edgeKind[e]] ?? "edge";
  const title = `${name(names, graph.src[e])} → ${name(names, graph.dst[e])}`;
  if (graph.edgeKind[e] === 2) return { title, rows: [["order", "runs after (no tensor named)"]] };
  const rows = [[kind === "read" ? "reads" : "writes", formatSI(style.edgeBytes[e], units.bytes ?? "B")]];
  const predicted = style.edgePredictedBytes?.[e];
  if (Number.isFinite(predicted)) {
    rows.push(["logical", formatSI(style.edgeLogicalBytes[e], units.bytes ?? "B")]);
    rows.push(["predicted", `${formatSI(predicted, units.bytes ?? "B")} (cache model)`]);
  } else if (graph.fused[e]) {
    rows.push(["unfused", `${formatSI(style.edgeLogicalBytes[e], units.bytes ?? "B")} (fused: 0 B)`]);
  }
  if (style.target === "edges") rows.push(onBar(style.s[e]));
  return { title, rows };
}

/** Fill `element` with the content as text nodes (no HTML parsing anywhere). */
export function showTooltip(element, content, x, y, bounds) {
  const document = element.ownerDocument;
  const title = document.createElement("div");
  title.className = "cwd-tooltip-title";
  title.textContent = content.title;
  const rows = content.rows.map(([label, value]) => {
    const row = document.createElement("div");
    const l = document.createElement("span");
    l.className = "cwd-tooltip-label";
    l.textContent = `${label} `;
    const v = document.createElement("span");
    v.textContent = String(value);
    row.append(l, v);
    return row;
  });
  element.replaceChildren(title, ...rows);
  element.hidden = false;
  const w = element.offsetWidth || 200;
  const h = element.offsetHeight || 80;
  element.style.left = `${Math.max(0, Math.min(x + 14, bounds.width - w - 4))}px`;
  element.style.top = `${Math.max(0, Math.min(y + 14, bounds.height - h - 4))}px`;
}
