import assert from "node:assert/strict";
import { test } from "node:test";
import { fitCamera } from "../dataflow/camera.js";
import { drawGraph, LEGEND_HEIGHT } from "../dataflow/draw.js";
import { bandStarts, chooseFold, foldGraph } from "../dataflow/fold.js";
import { hitNode } from "../dataflow/hit.js";
import { fitName, labelRoom, NODE_PAD, nodeLabel, Occupancy, placeLabel } from "../dataflow/labels.js";
import { decodeGraph, decodeStyle, edgePoints } from "../dataflow/model.js";
import { shortenMiddle } from "../shared/legend.js";
import { RecordingContext } from "../testing/fake-context.js";

class Context extends RecordingContext {
  bezierCurveTo(...a) { this.path.push(["C", ...a]); }
  ellipse(...a) { this.path.push(["E", ...a]); }
  strokeRect() {}
}

function payload(Typed, values) {
  const array = Typed.from(values);
  const dtype = { Float32Array: "float32", Float64Array: "float64", Int32Array: "int32", Uint8Array: "uint8" }[Typed.name];
  return { dtype, shape: [array.length], buffer: new DataView(array.buffer) };
}

// A chain as campaign_widget.figures.dataflow.layered_layout lays it out: tensor t0 → phase p0 → tensor t1 →
// p1 → … → t_n, one row, layers 190 px apart (phases 150×36 boxes, tensors 130×26 ellipses).
// Edge bytes grow along the chain, so the last edges are the heaviest.
function chain(phases, { names } = {}) {
  const nNodes = 2 * phases + 1;
  const x = [];
  const kind = [];
  const w = [];
  const h = [];
  for (let p = 0; p < phases; p++) { x.push(190 * (2 * p + 1)); kind.push(0); w.push(150); h.push(36); }
  for (let t = 0; t <= phases; t++) { x.push(190 * 2 * t); kind.push(1); w.push(130); h.push(26); }
  const src = [];
  const dst = [];
  const edgeKind = [];
  for (let p = 0; p < phases; p++) {
    src.push(phases + p, p);
    dst.push(p, phases + p + 1);
    edgeKind.push(0, 1);
  }
  const nEdges = src.length;
  const graph = decodeGraph({
    n_nodes: nNodes, n_edges: nEdges, n_phases: phases, bounds: [-65, -18, 190 * 2 * phases + 65, 18],
    x: payload(Float32Array, x), y: payload(Float32Array, new Array(nNodes).fill(0)),
    w: payload(Float32Array, w), h: payload(Float32Array, h), kind: payload(Uint8Array, kind),
    fused_tensor: payload(Uint8Array, new Array(nNodes).fill(0)),
    src: payload(Int32Array, src), dst: payload(Int32Array, dst), edge_kind: payload(Uint8Array, edgeKind),
    fused: payload(Uint8Array, new Array(nEdges).fill(0)),
  });
  const bytes = Array.from({ length: nEdges }, (_, e) => 1e6 * (e + 1));
  const style = decodeStyle({
    target: "edges", overlay: "bytes",
    node_rgb: payload(Uint8Array, new Array(3 * nNodes).fill(255)),
    edge_rgb: payload(Uint8Array, new Array(3 * nEdges).fill(128)),
    edge_rank: payload(Float32Array, bytes.map((b) => b / bytes.at(-1))),
    edge_width: payload(Float32Array, new Array(nEdges).fill(2)),
    edge_bytes: payload(Float64Array, bytes), edge_logical_bytes: payload(Float64Array, bytes),
    tensor_bytes: payload(Float64Array, new Array(nNodes).fill(1e6)), s: payload(Float32Array, new Array(nEdges).fill(0.5)),
  }, graph);
  const labels = names ?? [...Array.from({ length: phases }, (_, p) => `phase_${p}`), ...Array.from({ length: phases + 1 }, (_, t) => `T${t}`)];
  return { graph, style, names: labels };
}

// the plot of a 480 px DataflowView in a notebook about 1150 px wide
const AREA = { left: 0, top: LEGEND_HEIGHT, width: 1150, height: 480 };
const VIEW = { highlight: -1, selected: -1, hoverEdge: -1 };

function atFit(graph, style, names, area = AREA) {
  const folded = foldGraph(graph, area.width, area.height);
  const camera = fitCamera(folded.bounds, area.width, area.height);
  const ctx = new Context();
  const counts = drawGraph(ctx, folded, style, names, area, { ...VIEW, camera });
  return { folded, camera, counts, ctx };
}

const overlap = (a, b) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
/** Whether box `a` overlaps node i's shape on screen (a tensor is the ellipse in its box), sampled. */
function onNode(a, g, camera, area, i) {
  const b = screenBox(g, camera, area, i);
  if (!overlap(a, b)) return false;
  if (g.kind[i] === 0) return true;
  const [cx, cy, rx, ry] = [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2, (b[2] - b[0]) / 2, (b[3] - b[1]) / 2];
  for (let u = 0; u <= 20; u++) {
    for (let v = 0; v <= 6; v++) {
      const x = a[0] + ((a[2] - a[0]) * u) / 20;
      const y = a[1] + ((a[3] - a[1]) * v) / 6;
      if (((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 < 0.999) return true;
    }
  }
  return false;
}
const screenBox = (g, camera, area, i) => [
  area.left + (g.x[i] - g.w[i] / 2) * camera.k + camera.tx, area.top + (g.y[i] - g.h[i] / 2) * camera.k + camera.ty,
  area.left + (g.x[i] + g.w[i] / 2) * camera.k + camera.tx, area.top + (g.y[i] + g.h[i] / 2) * camera.k + camera.ty,
];

test("fold: a long chain is cut into bands stacked top to bottom, and fits larger, using the plot's height", () => {
  const { graph } = chain(15); // 31 nodes in one row, 5,830 px wide
  const flat = fitCamera(graph.bounds, AREA.width, AREA.height);
  const folded = foldGraph(graph, AREA.width, AREA.height);
  const camera = fitCamera(folded.bounds, AREA.width, AREA.height);
  assert.ok(folded.fold.bands >= 3, `bands: ${folded.fold.bands}`);
  assert.ok(camera.k >= 2 * flat.k, `zoom at fit ${camera.k} vs ${flat.k} unfolded`);
  const [, y0, , y1] = folded.bounds;
  assert.ok((y1 - y0) * camera.k >= 0.8 * (AREA.height - 32), "the folded graph uses most of the height");
  // nodes keep their sizes and their order along each band; bands go down the plot
  for (let i = 1; i < graph.nPhases; i++) {
    const same = folded.y[i] === folded.y[i - 1];
    assert.ok(same ? folded.x[i] > folded.x[i - 1] : folded.y[i] > folded.y[i - 1], `phase ${i}`);
  }
  // no two nodes overlap, and each is hit where it is drawn
  for (let i = 0; i < graph.nNodes; i++) {
    assert.equal(hitNode(folded, folded.x[i], folded.y[i]), i);
    for (let j = 0; j < i; j++) assert.ok(!overlap(screenBox(folded, camera, AREA, i), screenBox(folded, camera, AREA, j)));
  }
});

test("fold: an edge that crosses bands runs back along the gap below its band, inside the bounds", () => {
  const { graph } = chain(15);
  const folded = foldGraph(graph, AREA.width, AREA.height);
  const [bx0, by0, bx1, by1] = folded.bounds;
  let crossing = 0;
  for (let e = 0; e < graph.nEdges; e++) {
    const p = edgePoints(folded, e);
    for (let j = 0; j < p.length; j += 2) assert.ok(p[j] >= bx0 && p[j] <= bx1 && p[j + 1] >= by0 && p[j + 1] <= by1);
    const a = graph.src[e];
    const b = graph.dst[e];
    if (folded.y[a] === folded.y[b]) {
      assert.equal(p.length, 4, "an edge inside a band keeps its shape");
      continue;
    }
    crossing++;
    // out past the band's right side, back left below the band, in at the left of the next
    assert.equal(p.length, 8);
    assert.ok(p[2] > folded.x[a] + folded.w[a] / 2 && p[4] < folded.x[b] - folded.w[b] / 2);
    assert.equal(p[3], p[5], "the run back is level");
    assert.ok(p[3] > folded.y[a] + folded.h[a] / 2 && p[3] < folded.y[b] - folded.h[b] / 2, "in the gap between the bands");
  }
  assert.equal(crossing, folded.fold.bands - 1);
});

test("fold: short graphs and graphs that fit stay as they are; band starts are increasing", () => {
  const { graph } = chain(2);
  assert.equal(foldGraph(graph, AREA.width, AREA.height).fold.bands, 1);
  assert.equal(chooseFold(graph, 0, 0).bands, null);
  const columns = Float64Array.from([0, 190, 380, 570, 760, 950]);
  assert.deepEqual(bandStarts(columns, 1), [0]);
  assert.deepEqual(bandStarts(columns, 2), [0, 3]);
  assert.deepEqual(bandStarts(columns, 3), [0, 2, 4]);
  assert.deepEqual(bandStarts(columns, 6), [0, 1, 2, 3, 4, 5]);
});

test("labels at fit: every phase's name, inside its box; the heaviest edges' bytes, overlapping nothing", () => {
  const { graph, style, names } = chain(15);
  const { folded, camera, counts } = atFit(graph, style, names);
  const nodes = counts.drawn.filter((d) => d.kind === "node");
  const edges = counts.drawn.filter((d) => d.kind === "edge");
  for (let p = 0; p < graph.nPhases; p++) {
    const label = nodes.find((d) => d.index === p);
    assert.ok(label, `phase ${p}'s name is drawn`);
    assert.equal(label.text, names[p]);
    const box = screenBox(folded, camera, AREA, p);
    assert.ok(label.box[0] >= box[0] + NODE_PAD - 1e-9 && label.box[2] <= box[2] - NODE_PAD + 1e-9, "inside its box");
    assert.ok(label.box[1] >= box[1] && label.box[3] <= box[3]);
  }
  // the heaviest edge first, then as many as fit
  assert.ok(edges.length >= 3, `${edges.length} edge labels`);
  assert.equal(edges[0].index, graph.nEdges - 1);
  assert.equal(edges[0].text, "30 MB");
  const all = counts.drawn.map((d) => d.box);
  for (const [i, d] of edges.entries()) {
    const b = d.box;
    assert.ok(b[0] >= AREA.left && b[1] >= AREA.top && b[2] <= AREA.left + AREA.width && b[3] <= AREA.top + AREA.height);
    for (let n = 0; n < graph.nNodes; n++) assert.ok(!onNode(b, folded, camera, AREA, n), `edge label ${d.text} on node ${n}`);
    for (const [j, other] of all.entries()) if (j !== nodes.length + i) assert.ok(!overlap(b, other), `${d.text} overlaps a label`);
  }
  // labels drawn are listed with their text, once each
  assert.equal(counts.labels, counts.drawn.length);
});

test("labels: a long name is shortened in the middle to the box; too little room writes nothing", () => {
  const ctx = new Context(); // 6 px per character
  assert.equal(fitName(ctx, "gemm", 100), "gemm");
  const sdfg = "map_0_fused_tasklet_compute_residual_add";
  const fitted = fitName(ctx, sdfg, 66);
  assert.equal(fitted, shortenMiddle(sdfg, 11));
  assert.ok(ctx.measureText(fitted).width <= 66);
  assert.equal(fitName(ctx, sdfg, 12), null, "two characters and an ellipsis tell nothing");
  // an ellipse holds less than its bounding box; too short a box holds no text
  assert.ok(labelRoom(true, 100, 20, 10) < labelRoom(false, 100, 20, 10));
  assert.equal(labelRoom(false, 100, 9, 10), 0);
  // a long phase name in a drawn graph stays inside its box
  const { graph, style, names } = chain(3);
  names[1] = sdfg;
  const { folded, camera, counts } = atFit(graph, style, names, { ...AREA, width: 500 });
  const label = counts.drawn.find((d) => d.kind === "node" && d.index === 1);
  const box = screenBox(folded, camera, { ...AREA, width: 500 }, 1);
  assert.ok(label.text.includes("…") && label.box[0] >= box[0] && label.box[2] <= box[2], JSON.stringify(label));
});

test("labels: an occupied ellipse is its ellipse, not its bounding box; a spot outside the plot is refused", () => {
  const taken = new Occupancy();
  taken.add([0, 0, 100, 40], true);
  assert.ok(taken.hits([45, 15, 55, 25]), "the middle");
  assert.ok(!taken.hits([0, 0, 10, 6]), "the bounding box's corner is free");
  assert.ok(taken.hits([0, 15, 10, 25]), "the left tip");
  const area = { left: 0, top: 0, width: 200, height: 100 };
  assert.equal(placeLabel([[5, 50]], 40, area, new Occupancy()), null, "sticks out on the left");
  assert.deepEqual(placeLabel([[5, 50], [150, 50]], 40, area, new Occupancy()), [130, 44, 170, 56]);
});

test("labels: a name is written whole up to two px smaller before it is shortened, at the largest size that holds it", () => {
  class Sized extends Context {
    measureText(text) { return { width: String(text).length * 0.5 * parseFloat(this.font) }; }
  }
  const ctx = new Sized();
  const font = (px) => `${px}px sans-serif`;
  // 9 characters: 54 px at 12 px, 49.5 at 11, 45 at 10; the box holds 56 - 2·4 = 48
  assert.deepEqual(nodeLabel(ctx, "add_norm1", false, 56, 30, 12, font), { text: "add_norm1", fontPx: 10 });
  // 15 characters fit whole at none of 12, 11, 10 px: shortened in the middle at 12 px
  const long = nodeLabel(ctx, "add_norm1_final", false, 56, 30, 12, font);
  assert.equal(long.fontPx, 12);
  assert.equal(long.text, shortenMiddle("add_norm1_final", 8));
  assert.ok(ctx.measureText(long.text).width <= 48);
  // a box too low for text at any size
  assert.equal(nodeLabel(ctx, "x", false, 56, 6, 12, font), null);
});
