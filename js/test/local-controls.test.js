import assert from "node:assert/strict";
import { test } from "node:test";
import { capacityLabel, formatBytes, parseLoopOrder } from "../local/controls.js";

test("loop order text: commas, spaces or single letters", () => {
  assert.deepEqual(parseLoopOrder("k, i ,j", ["i", "j", "k"]), ["k", "i", "j"]);
  assert.deepEqual(parseLoopOrder("ikj", ["i", "j", "k"]), ["i", "k", "j"]);
  assert.deepEqual(parseLoopOrder("row col", ["row", "col"]), ["row", "col"]);
  assert.deepEqual(parseLoopOrder("rowcol", ["row", "col"]), ["rowcol"], "not split when names are longer");
});

test("capacity label in lines or bytes", () => {
  assert.equal(capacityLabel(1, 64, "lines"), "1 line");
  assert.equal(capacityLabel(32, 64, "lines"), "32 lines");
  assert.equal(capacityLabel(32, 64, "bytes"), "2 KiB");
  assert.equal(capacityLabel(3, 64, "bytes"), "192 B");
  assert.equal(formatBytes(48 * 1024), "48 KiB");
  assert.equal(formatBytes(1536), "1536 B", "not a whole KiB: bytes");
});
