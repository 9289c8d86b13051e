import assert from "node:assert/strict";
import { test } from "node:test";
import { centreOn, fitCamera, startCamera, toScreen, toWorld, visibleWorld, zoomAt, MIN_START_ZOOM } from "../dataflow/camera.js";
import { drawGraph, drawLegend, edgeLabel, LABEL_BOX, LOD, minEdgeRank, MAX_LABELS, PREDICTED_TEXT } from "../dataflow/draw.js";
import { hitEdge, hitNode } from "../dataflow/hit.js";
import { colorGroups, cssColor, decodeGraph, decodeStyle, edgePoints } from "../dataflow/model.js";
import { viewportBox } from "../dataflow/minimap.js";
import { edgeTooltip, nodeTooltip } from "../dataflow/tooltip.js";
import { shortenMiddle } from "../shared/legend.js";
import { RecordingContext } from "../testing/fake-context.js";

class Context extends RecordingContext {
  bezierCurveTo(...a) { this.path.push(["C", ...a]); }
  ellipse(...a) { this.path.push(["E", ...a]); }
  strokeRect(...a) { this.calls.push({ op: "strokeRect", args: a, strokeStyle: this.state.strokeStyle }); }
}

function payload(Typed, values) {
  const array = Typed.from(values);
  const dtype = { Float32Array: "float32", Float64Array: "float64", Int32Array: "int32", Uint8Array: "uint8" }[Typed.name];
  return { dtype, shape: [array.length], buffer: new DataView(array.buffer) };
}

// phase A (0) reads tensor x (2), writes tensor y (3) read by phase B (1); fused y, B → y edge dashed.
function fixture() {
  const graph = decodeGraph({
    n_nodes: 4, n_edges: 3, n_phases: 2, bounds: [-75, -18, 645, 18],
    x: payload(Float32Array, [190, 570, 0, 380]), y: payload(Float32Array, [0, 0, 0, 0]),
    w: payload(Float32Array, [150, 150, 130, 130]), h: payload(Float32Array, [36, 36, 26, 26]),
    kind: payload(Uint8Array, [0, 0, 1, 1]), fused_tensor: payload(Uint8Array, [0, 0, 0, 1]),
    src: payload(Int32Array, [2, 3, 0]), dst: payload(Int32Array, [0, 1, 3]),
    edge_kind: payload(Uint8Array, [0, 0, 1]), fused: payload(Uint8Array, [0, 1, 1]),
  });
  const style = decodeStyle({
    target: "edges", overlay: "bytes",
    node_rgb: payload(Uint8Array, [255, 255, 255, 255, 255, 255, 232, 237, 243, 232, 237, 243]),
    edge_rgb: payload(Uint8Array, [255, 0, 0, 0, 255, 0, 0, 255, 0]),
    edge_rank: payload(Float32Array, [1, 0, 0]), edge_width: payload(Float32Array, [3.75, 1.25, 1.25]),
    edge_bytes: payload(Float64Array, [4e6, 0, 0]), edge_logical_bytes: payload(Float64Array, [4e6, 1e6, 1e6]),
    tensor_bytes: payload(Float64Array, [NaN, NaN, 4e6, 1e6]), s: payload(Float32Array, [1, 0, 0]),
    phase_ops: payload(Float64Array, [1e9, 2e9]), phase_bytes: payload(Float64Array, [4e6, 0]),
    phase_intensity: payload(Float64Array, [250, Infinity]), phase_duration: payload(Float64Array, [1e-3, 2e-3]),
    phase_efficiency: payload(Float64Array, [1, 1]),
  }, graph);
  return { graph, style, names: ["A", "B", "x", "y"] };
}

const AREA = { left: 0, top: 54, width: 800, height: 300 };

test("camera: fit shows the bounds; zoom keeps the point under the cursor; world ↔ screen round trip", () => {
  const camera = fitCamera([0, 0, 1000, 100], 800, 300);
  const [x0, , x1] = visibleWorld(camera, 800, 300);
  assert.ok(x0 <= 0 && x1 >= 1000);
  const zoomed = zoomAt(camera, 123, 45, 2);
  assert.deepEqual(toWorld(zoomed, 123, 45).map((v) => +v.toFixed(9)), toWorld(camera, 123, 45).map((v) => +v.toFixed(9)));
  assert.equal(zoomed.k, camera.k * 2);
  const [sx, sy] = toScreen(zoomed, 10, 20);
  assert.deepEqual(toWorld(zoomed, sx, sy).map((v) => +v.toFixed(9)), [10, 20]);
  const centred = centreOn(zoomed, 500, 50, 800, 300);
  assert.deepEqual(toScreen(centred, 500, 50), [400, 150]);
});

test("camera: a very wide graph starts at its left end, legible, instead of fitting to a thread", () => {
  const wide = [0, 0, 4e6, 100];
  const start = startCamera(wide, 800, 300);
  assert.ok(fitCamera(wide, 800, 300).k < MIN_START_ZOOM);
  assert.equal(start.k, MIN_START_ZOOM);
  assert.ok(toScreen(start, 0, 0)[0] > 0 && toScreen(start, 0, 0)[0] < 40);
  // a tall, diagonal graph: the first phase (anchor) is in the middle of the view
  const tall = startCamera([0, 0, 4e6, 3e5], 800, 300, 1234);
  assert.equal(tall.k, MIN_START_ZOOM);
  assert.equal(toScreen(tall, 0, 1234)[1], 150);
});

test("model: colour groups batch equal colours; cssColor formats #rrggbb", () => {
  const rgb = Uint8Array.from([255, 0, 0, 0, 255, 0, 255, 0, 0]);
  const groups = colorGroups(rgb, 3);
  assert.equal(groups.length, 2);
  assert.deepEqual([...groups.find((g) => g.css === "#ff0000").indices], [0, 2]);
  assert.equal(cssColor(Uint8Array.from([1, 2, 255]), 0), "#0102ff");
});

test("draw: each edge is stroked in its synced colour, fused ones dashed, with arrowheads; nodes filled in theirs", () => {
  const { graph, style, names } = fixture();
  const ctx = new Context();
  const camera = fitCamera(graph.bounds, AREA.width, AREA.height);
  const counts = drawGraph(ctx, graph, style, names, AREA, { camera, highlight: -1, selected: -1, hoverEdge: -1 });
  assert.equal(counts.edges, 3);
  assert.equal(counts.nodes, 4);
  const red = ctx.strokes("#ff0000");
  const green = ctx.strokes("#00ff00");
  assert.equal(red.length, 1);
  assert.deepEqual(red[0].lineDash, []);
  assert.ok(green.some((c) => c.lineDash.length > 0), "fused edges are dashed");
  assert.ok(ctx.fills("#ff0000").length >= 1, "arrowheads in the edge colour");
  assert.equal(ctx.fills("#ffffff").filter((c) => c.path.some((p) => p[0] === "R")).length >= 1, true);
  assert.ok(ctx.fills("#e8edf3").some((c) => c.path.some((p) => p[0] === "E")), "tensors are ellipses");
  // the ellipse of y is stroked dashed (fused tensor)
  assert.ok(ctx.strokes("#7d8a97").some((c) => c.lineDash.length > 0));
  assert.deepEqual(ctx.texts().slice(0, 4).sort(), ["A", "B", "x", "y"]);
});

test("draw: level of detail — zoomed out, labels go first, then small edges, then curves", () => {
  const { graph, style, names } = fixture();
  const at = (k) => {
    const ctx = new Context();
    const counts = drawGraph(ctx, graph, style, names, AREA, { camera: { k, tx: 100, ty: 150 }, highlight: -1, selected: -1, hoverEdge: -1 });
    return { ctx, counts };
  };
  assert.ok(at(1).counts.labels > 0);
  assert.equal(at(LOD.labels - 0.01).counts.labels, 0);
  assert.equal(at(LOD.curves - 0.01).counts.edges, 1, "below the curves level only the big edge (rank 1) stays");
  assert.ok(!at(LOD.curves - 0.01).ctx.strokes().some((c) => c.path.some((p) => p[0] === "C")), "straight lines");
  assert.equal(minEdgeRank(0.01), 0.85);
  // a highlighted phase keeps its own edges even when they are small
  const ctx = new Context();
  const counts = drawGraph(ctx, graph, style, names, AREA, { camera: { k: 0.1, tx: 100, ty: 150 }, highlight: 1, selected: -1, hoverEdge: -1 });
  assert.equal(counts.edges, 2);
});

test("draw: labels are capped and shortened in the middle (the legend rule) to what the box holds", () => {
  const { graph, style } = fixture();
  const ctx = new Context();
  const name = "a-very-long-phase-name-indeed-it-is";
  drawGraph(ctx, graph, style, [name, "B", "x", "y"], AREA,
    { camera: { k: 0.5, tx: 100, ty: 150 }, highlight: -1, selected: -1, hoverEdge: -1 });
  const first = ctx.texts().find((t) => t.startsWith("a-ve"));
  assert.ok(first.includes("…") && !first.endsWith("…") && first.length < 20, first);
  assert.equal(first, shortenMiddle(name, first.length), "cut in the middle, the end kept");
  assert.ok(ctx.measureText(first).width <= 150 * 0.5 - 8, "inside the box, less its padding");
  assert.ok(MAX_LABELS >= 100);
});

test("legend: title, one fill per stop, tick labels and the grey 'no value' swatch", () => {
  const ctx = new Context();
  drawLegend(ctx, { title: "bytes (B): median-centred, c = 2.5 B", stops: ["#00ff00", "#ffff00", "#ff0000"],
    ticks: [[0, "0 B"], [0.5, "2.5 B"], [1, "≥ 5 B"]], nan_color: "#c8c8c8", missing: 2 }, { left: 0, top: 0, width: 800 });
  const texts = ctx.texts();
  assert.ok(texts.includes("bytes (B): median-centred, c = 2.5 B"));
  assert.ok(texts.includes("2.5 B") && texts.includes("≥ 5 B"));
  assert.ok(texts.some((t) => t.startsWith("no value or ≤ 0 (2)")));
  const fills = ctx.calls.filter((c) => c.op === "fillRect").map((c) => c.fillStyle);
  for (const colour of ["#00ff00", "#ffff00", "#ff0000", "#c8c8c8"]) assert.ok(fills.includes(colour), colour);
});

test("hit: nodes by their boxes, edges near their curves", () => {
  const { graph, style } = fixture();
  assert.equal(hitNode(graph, 190, 10), 0);
  assert.equal(hitNode(graph, 300, 0), -1);
  const c = edgePoints(graph, 0); // x → A
  const midX = (c[0] + c[2]) / 2;
  assert.equal(hitEdge(graph, style, midX, (c[1] + c[3]) / 2, 5, 1), 0);
  assert.equal(hitEdge(graph, style, midX, 200, 5, 1), -1);
});

test("tooltip: numbers with units as text; fused edges say 0 B and what they would move", () => {
  const { graph, style, names } = fixture();
  const units = { ops: "FLOP", bytes: "B", time: "s" };
  const phase = nodeTooltip(graph, style, names, units, 0);
  assert.equal(phase.title, "phase A");
  assert.deepEqual(phase.rows[0], ["ops", "1 GFLOP"]);
  const tensor = nodeTooltip(graph, style, names, units, 3);
  assert.ok(tensor.rows.some(([label]) => label === "fused"));
  const edge = edgeTooltip(graph, style, names, units, 1);
  assert.equal(edge.title, "y → B");
  assert.deepEqual(edge.rows[0], ["reads", "0 B"]);
  assert.equal(edge.rows[1][0], "unfused");
});

test("minimap: the viewport box follows the main camera", () => {
  const mini = { k: 0.1, tx: 5, ty: 7 };
  const [x, y, w, h] = viewportBox(mini, { k: 1, tx: -100, ty: 0 }, 800, 300);
  assert.deepEqual([x, y, w, h].map((v) => +v.toFixed(9)), [15, 7, 80, 30]);
});

test("routed edges pass through their bends (igraph's dummy nodes), drawn, boxed and hit there", () => {
  const { graph: plain, style } = fixture();
  // x → A gets one bend at (100, 80), well below the straight line
  const raw = {
    n_nodes: 4, n_edges: 3, n_phases: 2, bounds: plain.bounds,
    x: payload(Float32Array, plain.x), y: payload(Float32Array, plain.y), w: payload(Float32Array, plain.w),
    h: payload(Float32Array, plain.h), kind: payload(Uint8Array, plain.kind), fused_tensor: payload(Uint8Array, plain.fusedTensor),
    src: payload(Int32Array, plain.src), dst: payload(Int32Array, plain.dst), edge_kind: payload(Uint8Array, plain.edgeKind),
    fused: payload(Uint8Array, plain.fused),
    route_offsets: payload(Int32Array, [0, 1, 1, 1]), route_x: payload(Float32Array, [100]), route_y: payload(Float32Array, [80]),
  };
  const graph = decodeGraph(raw);
  assert.deepEqual(edgePoints(graph, 0), [65, 0, 100, 80, 115, 0]);
  assert.deepEqual([...graph.edgeBox.slice(0, 4)], [65, 0, 115, 80]);
  assert.equal(hitEdge(graph, style, 100, 80, 3, 1), 0);
  assert.equal(hitEdge(plain, style, 100, 80, 3, 1), -1);
  const ctx = new Context();
  drawGraph(ctx, graph, style, ["A", "B", "x", "y"], AREA, { camera: { k: 1, tx: 0, ty: 0 }, highlight: -1, selected: -1, hoverEdge: -1 });
  const path = ctx.strokes("#ff0000")[0].path;
  assert.deepEqual(path.filter((p) => p[0] === "C").map((p) => [p[5], p[6]]), [[100, 134], [115, 54]]);
});

test("zoomed far out, nodes are written as pixels of their colour (one pass, no paths)", () => {
  const { graph, style, names } = fixture();
  class Pixels extends Context {
    createImageData(w, h) { return { width: w, height: h, data: new Uint8ClampedArray(4 * w * h) }; }
    putImageData(image, x, y) { this.calls.push({ op: "putImageData", image, x, y }); }
  }
  const ctx = new Pixels();
  const camera = { k: 0.01, tx: 10, ty: 20 };
  const counts = drawGraph(ctx, graph, style, names, { left: 0, top: 0, width: 40, height: 40 }, { camera, ratio: 2, highlight: -1, selected: -1, hoverEdge: -1 });
  assert.equal(counts.nodes, 4);
  const put = ctx.calls.find((c) => c.op === "putImageData");
  assert.equal(put.image.width, 80);
  const at = (x, y) => [...put.image.data.slice(4 * (y * 80 + x), 4 * (y * 80 + x) + 3)];
  // phase A at world (190, 0) → CSS (11.9, 20) → device (23.8, 40): white box (the phases' colour here)
  assert.deepEqual(at(24, 40), [255, 255, 255]);
  // tensor x at world (0, 0) → device (20, 40): its fill #e8edf3
  assert.deepEqual(at(20, 40), [0xe8, 0xed, 0xf3]);
  assert.equal(ctx.fills().filter((c) => c.path.some((p) => p[0] === "R")).length, 0, "no vector boxes");
});

test("far-out batches come from node_far_rgb, least severe first (the hottest pixels are written last)", () => {
  const { graph } = fixture();
  const raw = {
    node_rgb: payload(Uint8Array, new Array(12).fill(255)), edge_rgb: payload(Uint8Array, new Array(9).fill(0)),
    node_far_rgb: payload(Uint8Array, [255, 0, 0, 0, 255, 0, 255, 0, 0, 154, 167, 180]),
    node_far_s: payload(Float32Array, [1, 0, 1, NaN]),
  };
  const style = decodeStyle(raw, graph, {});
  assert.deepEqual(style.farGroups.map((g) => g.css), ["#9aa7b4", "#00ff00", "#ff0000"]);
  assert.deepEqual([...style.farGroups[2].indices], [0, 2]);
});

test("a predicted edge is labelled with its logical and its predicted bytes, on a pale box; others as before", () => {
  const { graph } = fixture();
  const base = {
    target: "edges", overlay: "bytes",
    node_rgb: payload(Uint8Array, [255, 255, 255, 255, 255, 255, 232, 237, 243, 232, 237, 243]),
    edge_rgb: payload(Uint8Array, [255, 0, 0, 0, 255, 0, 0, 255, 0]),
    edge_rank: payload(Float32Array, [1, 0, 0]), edge_width: payload(Float32Array, [3.75, 1.25, 1.25]),
    // x → A is predicted (4.19 MB logical, 1.05 MB predicted); y → B fused; A → y predicted at 0 B
    edge_bytes: payload(Float64Array, [1048576, 0, 0]), edge_logical_bytes: payload(Float64Array, [4194304, 1e6, 1e6]),
    edge_predicted_bytes: payload(Float64Array, [1048576, NaN, 0]),
    tensor_bytes: payload(Float64Array, [NaN, NaN, 4e6, 1e6]), s: payload(Float32Array, [1, 0, 0]),
  };
  const style = decodeStyle(base, graph);
  assert.equal(edgeLabel(style, 0), "4.19 MB → 1.05 MB predicted");
  assert.equal(edgeLabel(style, 1), "0 B", "a fused edge that is not predicted moves 0 B");
  assert.equal(edgeLabel(style, 2), "1 MB → 0 B predicted");
  const ctx = new Context();
  drawGraph(ctx, graph, style, ["A", "B", "x", "y"], AREA, { camera: { k: 1, tx: 40, ty: 150 }, highlight: -1, selected: -1, hoverEdge: -1 });
  const texts = ctx.texts();
  assert.ok(texts.includes("4.19 MB → 1.05 MB predicted"), texts.join(" | "));
  assert.ok(texts.includes("0 B"));
  const label = ctx.calls.find((c) => c.op === "fillText" && c.text === "4.19 MB → 1.05 MB predicted");
  assert.equal(label.fillStyle, PREDICTED_TEXT);
  const boxes = ctx.calls.filter((c) => c.op === "fillRect" && c.fillStyle === LABEL_BOX);
  assert.equal(boxes.length, 2, "one pale box per predicted label");
  const plain = ctx.calls.find((c) => c.op === "fillText" && c.text === "0 B");
  assert.equal(plain.fillStyle, "#555555");
  // without the array (an older kernel), nothing is predicted
  const old = decodeStyle({ ...base, edge_predicted_bytes: undefined }, graph);
  assert.equal(edgeLabel(old, 0), "1.05 MB");
  // the tooltip shows both numbers as text
  const rows = edgeTooltip(graph, style, ["A", "B", "x", "y"], { bytes: "B" }, 0).rows;
  assert.deepEqual(rows.slice(0, 3), [["reads", "1.05 MB"], ["logical", "4.19 MB"], ["predicted", "1.05 MB (cache model)"]]);
});
