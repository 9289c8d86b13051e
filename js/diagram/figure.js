// Everything the figure needs, read from the model's traits. Decoding the scene and indexing it
// happens only when the `scene` trait object changes (it is the big one).
import { decodePhaseTable, decodeScene } from "../shared/codecs.js";
import { legendEntries, phaseWeights, sceneFeatures } from "../shared/legend.js";
import { readoutLines, readoutText } from "./readout.js";
import { buildSceneIndex } from "./scene-index.js";

const DEFAULT_UNITS = { time: "", compute: "ops/s", bandwidth: "B/s", ops: "ops", bytes: "B" };

function decodedScene(raw, previous) {
  if (previous && previous.raw === raw) return previous;
  // The scene before `previous` is drawn no more: its arrays are written over (`spare`).
  const spare = previous?.spare;
  const scene = decodeScene(raw, { reuse: spare?.scene });
  const index = buildSceneIndex(scene, { reuse: spare?.index });
  const entry = { raw, scene, index, features: sceneFeatures(scene), spare: null };
  if (previous) entry.spare = { scene: previous.scene, index: previous.index };
  if (previous) previous.spare = null; // nothing holds the scene two back but the entry after it
  return entry;
}

function decodedTable(raw, previous) {
  if (previous && previous.raw === raw) return previous;
  return { raw, table: decodePhaseTable(raw) };
}

/** The kernel's readout lines ([[text, kind]]), or null when it sent none (then the view composes them). */
function syncedReadoutLines(raw) {
  // an empty list is the kernel's word too: a title that says the makespan leaves the readout nothing to add
  if (!Array.isArray(raw)) return null;
  return raw.filter((line) => Array.isArray(line) && line.length === 2).map(([text, kind]) => ({ text: String(text), kind: String(kind) }));
}

/** The kernel's legend flags ({spill, compute_over, dashed, critical}), or null. */
function syncedFeatures(raw) {
  if (!raw || typeof raw !== "object" || !("spill" in raw)) return null;
  return { spill: Boolean(raw.spill), computeOver: Boolean(raw.compute_over), dashed: Boolean(raw.dashed), critical: Boolean(raw.critical) };
}

/** Build the figure from `model`, reusing `previous`'s decoded arrays when unchanged. */
export function readFigure(model, previous) {
  const sceneEntry = decodedScene(model.get("scene"), previous?.sceneEntry);
  const tableEntry = decodedTable(model.get("phase_table"), previous?.tableEntry);
  const phaseNames = (model.get("phase_names") ?? []).map(String);
  const phaseColors = model.get("phase_colors") ?? [];
  const units = { ...DEFAULT_UNITS, ...(model.get("units") ?? {}) };
  const resourceNames = model.get("resource_names") ?? ["compute", "memory"];
  const readoutInput = {
    scene: sceneEntry.scene,
    makespan: model.get("makespan"),
    warnings: model.get("warnings"),
    units,
    resourceNames,
  };
  return {
    sceneEntry,
    tableEntry,
    scene: sceneEntry.scene,
    index: sceneEntry.index,
    phaseTable: tableEntry.table,
    phaseNames,
    phaseColors,
    units,
    resourceNames,
    yAxis: model.get("y_axis") === "absolute" ? "absolute" : "relative",
    // The peak and tile count the scene was computed for travel with it (one draw per change).
    peakCompute: Number.isFinite(sceneEntry.scene.peak_compute) ? sceneEntry.scene.peak_compute : Number(model.get("peak_compute")),
    title: model.get("title") ?? "",
    tiled: (Number.isFinite(sceneEntry.scene.tiles) ? sceneEntry.scene.tiles : Number(model.get("tiles"))) > 1,
    timeMax: Number(model.get("time_max")) || 0,
    fusionGroups: (model.get("fusion_groups") ?? []).map(String),
    readout: readoutText(readoutInput),
    readoutLines: syncedReadoutLines(model.get("readout_lines")) ?? readoutLines(readoutInput),
    legend: legendEntries(
      phaseNames,
      phaseColors,
      syncedFeatures(model.get("legend_features")) ?? sceneEntry.features,
      phaseWeights(sceneEntry.scene, (phaseNames ?? []).length),
      model.get("key_labels"),
    ),
  };
}
