import assert from "node:assert/strict";
import { test } from "node:test";
import { cacheNote, formatBytes, rowText, tableRows } from "../local/readout.js";

// A made-up table (every number Python would send): 3 capacities, 2 tensors.
const table = {
  capacities: 3, tensorMisses: Int32Array.from([9, 7, 6, 5, 4, 4]), cold: [4, 4], accesses: [20, 10], line: 64,
};

test("table rows: misses of the capacity's row, capacity misses = misses - cold, no conflicts", () => {
  const rows = tableRows(table, ["A", "B"], 2);
  assert.deepEqual(rows, [
    ["A", 20, 6, 4, 2, 0, 384],
    ["B", 10, 5, 4, 1, 0, 320],
    ["total", 30, 11, 8, 3, 0, 704],
  ]);
});

test("capacities beyond the table read its last row (only cold misses left); below 1 the first", () => {
  assert.deepEqual(tableRows(table, ["A", "B"], 99), tableRows(table, ["A", "B"], 3));
  assert.deepEqual(tableRows(table, ["A", "B"], 0), tableRows(table, ["A", "B"], 1));
});

test("row text and bytes are formatted as the kernel formats them", () => {
  assert.deepEqual(rowText(["<b>A</b>", 12288, 48, 48, 0, 0, 3072]), ["<b>A</b>", "12,288", "48", "48", "0", "0", "3 KiB"]);
  assert.equal(formatBytes(10752), "10.5 KiB");
  assert.equal(formatBytes(9536), "9.31 KiB");
  assert.equal(formatBytes(1000), "1,000 B");
  assert.equal(formatBytes(1234), "1.21 KiB");
  assert.equal(formatBytes(3 << 20), "3 MiB");
  assert.equal(cacheNote("fully associative", 8, 64), "fully associative LRU cache of 8 lines × 64 B; misses = cold + capacity + conflict; bytes = line × misses");
  assert.match(cacheNote("4-way set-associative", 8, 64), /^4-way set-associative LRU cache of 8 lines/);
});
