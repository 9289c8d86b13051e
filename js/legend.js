// Legend entries: one per phase (colour + name), then keys for the styles present in the scene.
import { phaseColor } from "./color.js";
import { dashStart } from "./pixels.js";

/** Which warning and dilation styles the scene uses, so the legend shows only those keys. */
export function sceneFeatures(scene) {
  let spill = false;
  let computeOver = false;
  let dashed = false;
  for (let i = 0; i < scene.n; i++) {
    if (scene.fill_top[i] > scene.well_top[i]) spill = true;
    if (scene.flags[i] & 1) computeOver = true;
    const dashedLength = scene.x1[i] - dashStart(scene.dash_from[i], scene.x0[i], scene.x1[i]);
    if (dashedLength > 1e-9 * (Math.abs(scene.x0[i]) + Math.abs(scene.x1[i]))) dashed = true;
  }
  return { spill, computeOver, dashed };
}

/** [{ kind: "phase"|"well"|"spill"|"compute-over"|"dashed", label, color? }] */
export function legendEntries(phaseNames, phaseColors, features) {
  const entries = (phaseNames ?? []).map((name, phase) => ({ kind: "phase", label: String(name), color: phaseColor(phaseColors, phase) }));
  entries.push({ kind: "well", label: "unused bandwidth (pipe height = 100% of peak bandwidth)" });
  if (features.spill) entries.push({ kind: "spill", label: "memory oversubscribed" });
  if (features.computeOver) entries.push({ kind: "compute-over", label: "compute > 100%" });
  if (features.dashed) entries.push({ kind: "dashed", label: "added by dilation/throttling" });
  return entries;
}
