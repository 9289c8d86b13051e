// Legend entries: one per phase (colour + name), then keys for the styles present in the scene.
import { phaseColor } from "./color.js";
import { dashStart } from "./pixels.js";

/** Scene flag bit 3: the piece is on the critical path (campaign_widget/figures/scene.py CRITICAL). */
export const CRITICAL = 8;

/** Which warning and dilation styles the scene uses, so the legend shows only those keys. */
export function sceneFeatures(scene) {
  let spill = false;
  let computeOver = false;
  let dashed = false;
  let critical = false;
  for (let i = 0; i < scene.n; i++) {
    if (scene.fill_top[i] > scene.well_top[i]) spill = true;
    if (scene.flags[i] & 1) computeOver = true;
    if (scene.flags[i] & CRITICAL) critical = true;
    const dashedLength = scene.x1[i] - dashStart(scene.dash_from[i], scene.x0[i], scene.x1[i]);
    if (dashedLength > 1e-9 * (Math.abs(scene.x0[i]) + Math.abs(scene.x1[i]))) dashed = true;
  }
  return { spill, computeOver, dashed, critical };
}

// The legend rule of campaign_widget/formatting.py (golden cases in tests/data/golden/legend.json).
export const LEGEND_MAX_ENTRIES = 24;
export const LABEL_MAX_CHARS = 40;
const ELLIPSIS = "\u2026";

/** ``text`` at most ``maxChars`` characters, cut in the middle (the end keeps the larger half). */
export function shortenMiddle(text, maxChars = LABEL_MAX_CHARS) {
  const chars = Array.from(String(text));
  if (chars.length <= maxChars) return chars.join("");
  if (maxChars <= 1) return ELLIPSIS.slice(0, Math.max(0, maxChars));
  const keep = maxChars - 1;
  const head = Math.floor(keep / 2);
  return chars.slice(0, head).join("") + ELLIPSIS + chars.slice(chars.length - (keep - head)).join("");
}

/** [shown indices, hidden count]: all when at most ``maxEntries``, else the ``maxEntries - 1``
 *  heaviest (ties by order), in their own order; the rest summarized as "+N more". */
export function legendSelection(weights, maxEntries = LEGEND_MAX_ENTRIES) {
  const n = weights.length;
  if (n <= maxEntries) return [[...Array(n).keys()], 0];
  const shown = Math.max(0, maxEntries - 1);
  const order = [...Array(n).keys()].sort((a, b) => (Number(weights[b]) || 0) - (Number(weights[a]) || 0) || a - b);
  return [order.slice(0, shown).sort((a, b) => a - b), n - shown];
}

export function moreLabel(hidden) {
  return `+${hidden.toLocaleString("en-US")} more`;
}

/** Time drawn per phase in the scene: what a capped legend keeps the heaviest of. */
export function phaseWeights(scene, phases) {
  const weights = new Array(phases).fill(0);
  for (let i = 0; i < (scene?.n ?? 0); i++) {
    const p = scene.phase[i];
    if (p >= 0 && p < phases) weights[p] += scene.x1[i] - scene.x0[i];
  }
  return weights;
}

/** Each name shortened (shortenMiddle), names that would shorten alike told apart by an index
 *  ("… #1", "… #2") kept inside maxChars: campaign_widget/formatting.py shorten_names. */
export function shortenNames(names, maxChars = LABEL_MAX_CHARS) {
  const full = names.map(String);
  const short = full.map((n) => shortenMiddle(n, maxChars));
  const groups = new Map();
  full.forEach((name, i) => {
    const alike = groups.get(short[i]) ?? [];
    if (!alike.includes(name)) alike.push(name);
    groups.set(short[i], alike);
  });
  return full.map((name, i) => {
    const alike = groups.get(short[i]);
    if (alike.length === 1) return short[i];
    const tag = ` #${alike.indexOf(name) + 1}`;
    return shortenMiddle(name, Math.max(1, maxChars - tag.length)) + tag;
  });
}

// The keys' words when the kernel sends none (the kernel's `key_labels` name the pipe's level).
const KEY_LABELS = {
  well: "unused bandwidth (pipe height = 100% of peak bandwidth)",
  spill: "memory oversubscribed",
  compute_over: "compute > 100%",
  dashed: "added by dilation/throttling",
  critical: "critical path",
};

/** [{ kind: "phase"|"more"|"well"|"spill"|"compute-over"|"dashed"|"critical", label, color? }] */
export function legendEntries(phaseNames, phaseColors, features, weights = null, keyLabels = null) {
  const names = phaseNames ?? [];
  const [shown, hidden] = legendSelection(weights ?? names.map(() => 0));
  const labels = shortenNames(names);
  const words = { ...KEY_LABELS, ...(keyLabels ?? {}) };
  const entries = shown.map((phase) => ({
    kind: "phase",
    label: labels[phase],
    fullLabel: String(names[phase]),
    color: phaseColor(phaseColors, phase),
  }));
  if (hidden > 0) entries.push({ kind: "more", label: moreLabel(hidden) });
  entries.push({ kind: "well", label: words.well });
  if (features.spill) entries.push({ kind: "spill", label: words.spill });
  if (features.computeOver) entries.push({ kind: "compute-over", label: words.compute_over });
  if (features.dashed) entries.push({ kind: "dashed", label: words.dashed });
  if (features.critical) entries.push({ kind: "critical", label: words.critical });
  return entries;
}
