// Binary arrays from the kernel: {dtype, shape, buffer} → typed array (zero-copy when aligned).

const TYPED_ARRAYS = {
  float64: Float64Array,
  float32: Float32Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int8: Int8Array,
  uint8: Uint8Array,
  bool: Uint8Array,
};

const READERS = {
  float64: "getFloat64", float32: "getFloat32", int32: "getInt32", uint32: "getUint32",
  int16: "getInt16", uint16: "getUint16", int8: "getInt8", uint8: "getUint8", bool: "getUint8",
};

const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function bytesOf(buffer) {
  if (buffer instanceof ArrayBuffer) return { arrayBuffer: buffer, byteOffset: 0, byteLength: buffer.byteLength };
  if (ArrayBuffer.isView(buffer)) {
    return { arrayBuffer: buffer.buffer, byteOffset: buffer.byteOffset, byteLength: buffer.byteLength };
  }
  throw new TypeError(`array buffer must be a DataView, typed array or ArrayBuffer, got ${typeof buffer}`);
}

/**
 * Decode one array. `encoded` is {dtype, shape, buffer} (buffer: DataView, ArrayBuffer or typed
 * array, little-endian, C order). A typed array passes through; a plain list becomes Float64Array.
 */
export function decodeArray(encoded) {
  if (encoded === null || encoded === undefined) return null;
  if (ArrayBuffer.isView(encoded) && !(encoded instanceof DataView)) return encoded;
  if (Array.isArray(encoded)) return Float64Array.from(encoded);
  const { dtype, shape, buffer } = encoded;
  const Typed = TYPED_ARRAYS[dtype];
  if (!Typed) throw new TypeError(`unsupported dtype ${JSON.stringify(dtype)}`);
  const { arrayBuffer, byteOffset, byteLength } = bytesOf(buffer);
  const width = Typed.BYTES_PER_ELEMENT;
  const length = Array.isArray(shape) ? shape.reduce((a, b) => a * b, 1) : Math.floor(byteLength / width);
  if (length * width > byteLength) {
    throw new RangeError(`${dtype}[${length}] needs ${length * width} bytes, buffer has ${byteLength}`);
  }
  if (HOST_IS_LITTLE_ENDIAN && byteOffset % width === 0) {
    return new Typed(arrayBuffer, byteOffset, length);
  }
  if (HOST_IS_LITTLE_ENDIAN) {
    const copy = new Typed(length);
    new Uint8Array(copy.buffer).set(new Uint8Array(arrayBuffer, byteOffset, length * width));
    return copy;
  }
  const view = new DataView(arrayBuffer, byteOffset, length * width);
  const read = READERS[dtype];
  const copy = new Typed(length);
  for (let i = 0; i < length; i++) copy[i] = view[read](i * width, true);
  return copy;
}

const REQUIRED_PIECE_ARRAYS = ["x0", "x1", "base_y", "line_y", "well_top", "fill_top"];
const OPTIONAL_PIECE_ARRAYS = { phase: Int32Array, tile: Int32Array, flags: Uint8Array };
const INTERVAL_ARRAYS = { over_t0: Float64Array, over_t1: Float64Array, over_demand: Float64Array, over_resource: Uint8Array };
const GROUP_ARRAYS = { group_t0: Float64Array, group_t1: Float64Array, group_id: Int32Array };

/** The 16-bit dash fraction meaning "solid to the end" (see CONTRACT.md, `scene`). */
export const DASH_SOLID = 65535;

/**
 * The compact wire form: x0/x1 are indices into `edges` (float64) and `dash` a 16-bit fraction of
 * the piece's width; expanded in place into float64 x0, x1 and dash_from.
 */
// The float64 arrays expandCompactTimes made: only these may be written over by a later decode
// (`reuse`), never a typed array that views a message's buffer.
const EXPANDED = new WeakSet();

/** A Float64Array of length n: `spare` when this module made it at that length, else a new one. */
export function expandedArray(spare, n) {
  if (spare instanceof Float64Array && spare.length === n && EXPANDED.has(spare)) return spare;
  const array = new Float64Array(n);
  EXPANDED.add(array);
  return array;
}

function expandCompactTimes(decoded, source, reuse) {
  const edges = decodeArray(source.edges);
  const i0 = decoded.x0;
  const i1 = decoded.x1;
  if (!edges || !i0 || !i1) return;
  const n = Math.min(i0.length, i1.length);
  // A drag decodes a 10^5-piece scene many times a second: writing into the arrays of a scene no
  // longer drawn (`reuse`) leaves the garbage collector megabytes less per step.
  const x0 = expandedArray(reuse?.x0, n);
  const x1 = expandedArray(reuse?.x1, n);
  for (let k = 0; k < n; k++) {
    x0[k] = edges[i0[k]];
    x1[k] = edges[i1[k]];
  }
  decoded.x0 = x0;
  decoded.x1 = x1;
  const dash = decodeArray(source.dash);
  if (dash) {
    const from = expandedArray(reuse?.dash_from, Math.min(n, dash.length));
    for (let k = 0; k < from.length; k++) {
      const q = dash[k];
      from[k] = q >= DASH_SOLID ? x1[k] : x0[k] + (x1[k] - x0[k]) * (q / DASH_SOLID);
    }
    decoded.dash_from = from;
  }
}

function finiteOr(value, fallback) {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

function shortestLength(arrays) {
  return arrays.reduce((n, a) => Math.min(n, a ? a.length : 0), Infinity);
}

/**
 * Decode the `scene` trait into { n, pipe_width, x_max, y_max, <per-piece arrays>, intervals,
 * <interval arrays>, groups, <fusion-group band arrays> }. Missing optional arrays get defaults (dash_from = x1, i.e. all solid;
 * phase, tile, flags = 0). n is clamped to the shortest per-piece array so nothing is over-read.
 * `reuse`: a scene decoded before and no longer used, whose expanded arrays may be written over.
 */
export function decodeScene(raw, { reuse } = {}) {
  const source = raw ?? {};
  const decoded = {};
  for (const key of REQUIRED_PIECE_ARRAYS) decoded[key] = decodeArray(source[key]);
  decoded.dash_from = decodeArray(source.dash_from);
  if (source.edges !== undefined) expandCompactTimes(decoded, source, reuse);
  for (const key of Object.keys(OPTIONAL_PIECE_ARRAYS)) decoded[key] = decodeArray(source[key]);

  const present = Object.values(decoded).filter(Boolean);
  let n = REQUIRED_PIECE_ARRAYS.every((key) => decoded[key]) ? shortestLength(present) : 0;
  if (Number.isInteger(source.n) && source.n >= 0) n = Math.min(n, source.n);

  for (const key of REQUIRED_PIECE_ARRAYS) decoded[key] ??= new Float64Array(0);
  decoded.dash_from ??= decoded.x1;
  for (const [key, Typed] of Object.entries(OPTIONAL_PIECE_ARRAYS)) decoded[key] ??= new Typed(n);

  for (const key of Object.keys(INTERVAL_ARRAYS)) decoded[key] = decodeArray(source[key]);
  const intervals = shortestLength(Object.keys(INTERVAL_ARRAYS).map((key) => decoded[key]));
  for (const [key, Typed] of Object.entries(INTERVAL_ARRAYS)) decoded[key] ??= new Typed(0);

  for (const key of Object.keys(GROUP_ARRAYS)) decoded[key] = decodeArray(source[key]);
  const groups = shortestLength(Object.keys(GROUP_ARRAYS).map((key) => decoded[key]));
  for (const [key, Typed] of Object.entries(GROUP_ARRAYS)) decoded[key] ??= new Typed(0);

  const pipeWidth = finiteOr(source.pipe_width, 0.25);
  return {
    ...decoded,
    n,
    intervals,
    groups,
    pipe_width: pipeWidth,
    x_max: finiteOr(source.x_max, 0),
    peak_compute: finiteOr(source.peak_compute, NaN),
    tiles: finiteOr(source.tiles, NaN),
    y_max: Math.max(finiteOr(source.y_max, 1 + pipeWidth), 1),
  };
}

const TABLE_COLUMNS = ["duration", "compute_util", "memory_util", "ops", "bytes", "intensity", "t_sol", "efficiency", "bound"];

/** Decode the `phase_table` trait: { column: typed array } for every column present. */
export function decodePhaseTable(raw) {
  const table = {};
  for (const column of TABLE_COLUMNS) {
    try {
      table[column] = decodeArray(raw?.[column]) ?? null;
    } catch {
      table[column] = null;
    }
  }
  return table;
}
