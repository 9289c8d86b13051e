// The miss readout: a table per tensor (accesses, misses, cold, capacity, conflict, bytes), from the
// kernel's `readout` trait or, for a fully associative capacity step the view draws at once, from a
// row of the kernel's `capacity_table` (every capacity precomputed in Python).

export const READOUT_HEADER = ["tensor", "accesses", "misses", "cold", "capacity", "conflict", "bytes"];

/** "12,288" for counts. */
export function formatCount(value) {
  return Number(value).toLocaleString("en-US");
}

/** Bytes for the readout: "640 B", "9.31 KiB", "3 MiB" (3 significant digits; the misses column is exact). */
export function formatBytes(value) {
  for (const [unit, size] of [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]]) {
    if (value >= size) return `${+(value / size).toPrecision(3)} ${unit}`;
  }
  return `${formatCount(value)} B`;
}

/** The note that names the cache, as Python words it (LocalView._readout_notes); `kind` is the
 * kernel's `cache_kind` text (Cache.kind: "fully associative", "direct-mapped", "4-way set-associative"). */
export function cacheNote(kind, capacity, line) {
  return `${kind} LRU cache of ${capacity} lines × ${line} B; misses = cold + capacity + conflict; bytes = line × misses`;
}

/**
 * Readout rows for fully associative `capacity` from the decoded table {capacities, tensorMisses
 * (capacities × tensors), cold, accesses, line} and tensor `names`: [[name, accesses, misses, cold,
 * capacity, conflict (0), bytes], …, ["total", …]] as numbers.
 */
export function tableRows(table, names, capacity) {
  const T = names.length;
  const row = Math.min(Math.max(1, capacity), table.capacities) - 1;
  const rows = [];
  const total = ["total", 0, 0, 0, 0, 0, 0];
  for (let t = 0; t < T; t++) {
    const misses = table.tensorMisses[row * T + t];
    const cold = table.cold[t];
    const r = [names[t], table.accesses[t], misses, cold, misses - cold, 0, misses * table.line];
    for (let k = 1; k < 7; k++) total[k] += r[k];
    rows.push(r);
  }
  rows.push(total);
  return rows;
}

/** Cell text of one readout row: names as text, counts with separators, bytes in B/KiB/MiB. */
export function rowText(row) {
  return row.map((value, k) => (k === 0 ? String(value) : k === 6 ? formatBytes(value) : formatCount(value)));
}
