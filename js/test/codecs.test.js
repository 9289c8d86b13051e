import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeArray, decodePhaseTable, decodeScene } from "../shared/codecs.js";

function encoded(Typed, values, dtype, { offset = 0 } = {}) {
  const source = Typed.from(values);
  const bytes = new Uint8Array(offset + source.byteLength);
  bytes.set(new Uint8Array(source.buffer), offset);
  return { dtype, shape: [values.length], buffer: new DataView(bytes.buffer, offset, source.byteLength) };
}

test("decodes each dtype from a DataView", () => {
  assert.deepEqual([...decodeArray(encoded(Float64Array, [1.5, -2, 3e300], "float64"))], [1.5, -2, 3e300]);
  assert.deepEqual([...decodeArray(encoded(Float32Array, [0.5, 0.25], "float32"))], [0.5, 0.25]);
  assert.deepEqual([...decodeArray(encoded(Int32Array, [-7, 2 ** 30], "int32"))], [-7, 2 ** 30]);
  assert.deepEqual([...decodeArray(encoded(Uint8Array, [0, 3, 255], "uint8"))], [0, 3, 255]);
  assert.ok(decodeArray(encoded(Float64Array, [1], "float64")) instanceof Float64Array);
  assert.ok(decodeArray(encoded(Int32Array, [1], "int32")) instanceof Int32Array);
});

test("aligned buffers are viewed, not copied", () => {
  const enc = encoded(Float64Array, [1, 2, 3], "float64");
  const array = decodeArray(enc);
  assert.equal(array.buffer, enc.buffer.buffer);
  new DataView(enc.buffer.buffer).setFloat64(0, 42, true);
  assert.equal(array[0], 42, "the typed array shares the DataView's memory");
});

test("misaligned buffers are copied and still read correctly", () => {
  const enc = encoded(Float64Array, [1.25, -3.5], "float64", { offset: 3 });
  const array = decodeArray(enc);
  assert.deepEqual([...array], [1.25, -3.5]);
  assert.notEqual(array.buffer, enc.buffer.buffer);
  const ints = decodeArray(encoded(Int32Array, [5, -6, 7], "int32", { offset: 2 }));
  assert.deepEqual([...ints], [5, -6, 7]);
});

test("the shape limits the length; a short buffer is an error", () => {
  const enc = encoded(Float32Array, [1, 2, 3, 4], "float32");
  assert.deepEqual([...decodeArray({ ...enc, shape: [2] })], [1, 2]);
  assert.throws(() => decodeArray({ ...enc, shape: [5] }), RangeError);
  assert.throws(() => decodeArray({ ...enc, dtype: "complex128" }), /unsupported dtype/);
});

test("accepts ArrayBuffer, typed arrays and (leniently) plain lists", () => {
  const source = Float64Array.from([4, 5]);
  assert.deepEqual([...decodeArray({ dtype: "float64", shape: [2], buffer: source.buffer })], [4, 5]);
  assert.equal(decodeArray(source), source);
  assert.deepEqual([...decodeArray([1, 2])], [1, 2]);
  assert.equal(decodeArray(undefined), null);
});

test("decodeScene: arrays, scalars, defaults and a clamped n", () => {
  const scene = decodeScene({
    n: 3, pipe_width: 0.3, x_max: 15, y_max: 1.3,
    x0: encoded(Float64Array, [0, 3, 13], "float64"),
    x1: encoded(Float64Array, [3, 13, 15], "float64"),
    phase: encoded(Int32Array, [0, 1, 2], "int32"),
    base_y: encoded(Float32Array, [0, 0, 0], "float32"),
    line_y: encoded(Float32Array, [0.7, 0.2, 0.6], "float32"),
    well_top: encoded(Float32Array, [1, 0.5, 0.9], "float32"),
    fill_top: encoded(Float32Array, [0.775, 0.47], "float32"), // one short
    over_t0: encoded(Float64Array, [1], "float64"),
    over_t1: encoded(Float64Array, [2], "float64"),
    over_demand: encoded(Float64Array, [1.5], "float64"),
    over_resource: encoded(Uint8Array, [1], "uint8"),
  });
  assert.equal(scene.n, 2, "n is clamped to the shortest per-piece array");
  assert.equal(scene.pipe_width, 0.3);
  assert.equal(scene.x_max, 15);
  assert.equal(scene.dash_from, scene.x1, "missing dash_from means solid lines (dash_from = x1)");
  assert.equal(scene.flags.length, 2);
  assert.equal(scene.intervals, 1);
  assert.equal(scene.over_demand[0], 1.5);
});

test("decodeScene: fusion-group bands are optional", () => {
  const scene = decodeScene({
    group_t0: encoded(Float64Array, [0, 13], "float64"),
    group_t1: encoded(Float64Array, [13, 15], "float64"),
    group_id: encoded(Int32Array, [0, 1], "int32"),
  });
  assert.equal(scene.groups, 2);
  assert.deepEqual([...scene.group_t1], [13, 15]);
  assert.equal(decodeScene({}).groups, 0);
});

test("decodeScene of nothing is an empty scene with a pipe above 1", () => {
  const scene = decodeScene(undefined);
  assert.equal(scene.n, 0);
  assert.equal(scene.intervals, 0);
  assert.ok(scene.y_max >= 1);
});

test("decodePhaseTable keeps the columns it can read", () => {
  const table = decodePhaseTable({
    duration: encoded(Float64Array, [3, 10], "float64"),
    bound: encoded(Uint8Array, [0, 1], "uint8"),
    ops: { dtype: "nonsense", shape: [2], buffer: new ArrayBuffer(16) },
  });
  assert.deepEqual([...table.duration], [3, 10]);
  assert.deepEqual([...table.bound], [0, 1]);
  assert.equal(table.ops, null);
  assert.equal(table.efficiency, null);
});

test("the compact scene: x0/x1 index edges, dash is a 16-bit fraction of the width", () => {
  const edges = new Float64Array([0, 1.5, 4, 10]);
  const payload = (typed, dtype) => ({ dtype, shape: [typed.length], buffer: new DataView(typed.buffer) });
  const raw = {
    n: 3, pipe_width: 0.25, x_max: 10, y_max: 1.3, peak_compute: 2e12, tiles: 4,
    edges: payload(edges, "float64"),
    x0: payload(new Uint16Array([0, 1, 2]), "uint16"),
    x1: payload(new Uint16Array([1, 2, 3]), "uint16"),
    dash: payload(new Uint16Array([65535, 0, 32768]), "uint16"),
    phase: payload(new Uint8Array([0, 1, 2]), "uint8"),
    base_y: payload(new Float32Array(3), "float32"),
    line_y: payload(new Float32Array([0.5, 0.5, 0.5]), "float32"),
    well_top: payload(new Float32Array([0.75, 0.75, 0.75]), "float32"),
    fill_top: payload(new Float32Array([0.6, 0.6, 0.6]), "float32"),
  };
  const scene = decodeScene(raw);
  assert.deepEqual([...scene.x0], [0, 1.5, 4]);
  assert.deepEqual([...scene.x1], [1.5, 4, 10]);
  assert.equal(scene.dash_from[0], 1.5, "65535 = solid to the end");
  assert.equal(scene.dash_from[1], 1.5, "0 = dashed from the start");
  assert.ok(Math.abs(scene.dash_from[2] - (4 + 6 * 32768 / 65535)) < 1e-12);
  assert.deepEqual([...scene.phase], [0, 1, 2]);
  assert.equal(scene.peak_compute, 2e12);
  assert.equal(scene.tiles, 4);
});

function compactScene(times, pieces) {
  // pieces: [[i0, i1, dash]]: indices into `times`, dash a 16-bit fraction (65535 = solid)
  const n = pieces.length;
  const y = encoded(Float32Array, new Array(n).fill(0.5), "float32");
  return {
    n,
    edges: encoded(Float64Array, times, "float64"),
    x0: encoded(Uint8Array, pieces.map((p) => p[0]), "uint8"),
    x1: encoded(Uint8Array, pieces.map((p) => p[1]), "uint8"),
    dash: encoded(Uint16Array, pieces.map((p) => p[2]), "uint16"),
    base_y: y, line_y: y, well_top: y, fill_top: y,
  };
}

test("decodeScene reuses a spare scene's expanded arrays, and never a message's own buffer", () => {
  const first = decodeScene(compactScene([0, 1, 3], [[0, 1, 65535], [1, 2, 32768]]));
  const second = decodeScene(compactScene([0, 2, 5], [[0, 1, 0], [1, 2, 65535]]), { reuse: first });
  assert.equal(second.x0, first.x0, "written into the spare's array");
  assert.deepEqual([...second.x0], [0, 2]);
  assert.deepEqual([...second.x1], [2, 5]);
  assert.deepEqual([...second.dash_from], [0, 5]);
  // Another size: new arrays, the spare untouched.
  const third = decodeScene(compactScene([0, 1, 2, 4], [[0, 1, 65535], [1, 2, 65535], [2, 3, 65535]]), { reuse: second });
  assert.notEqual(third.x0, second.x0);
  assert.deepEqual([...second.x1], [2, 5]);
  // A scene sent with float x0 (no edges) views the message: a later decode must not write into it.
  const wire = { n: 2, x0: encoded(Float64Array, [0, 1], "float64"), x1: encoded(Float64Array, [1, 2], "float64"),
    base_y: first.base_y, line_y: first.base_y, well_top: first.base_y, fill_top: first.base_y };
  const viewed = decodeScene(wire);
  decodeScene(compactScene([0, 7, 9], [[0, 1, 65535], [1, 2, 65535]]), { reuse: viewed });
  assert.deepEqual([...viewed.x0], [0, 1], "the message's array is as it came");
});
