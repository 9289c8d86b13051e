// A recording stand-in for CanvasRenderingContext2D: every fill/stroke/fillText is recorded with
// the path it used and the style in effect, so tests can ask what was drawn, where and how.

export class RecordingContext {
  constructor() {
    this.calls = [];
    this.path = [];
    this.state = { fillStyle: "#000", strokeStyle: "#000", lineWidth: 1, lineDash: [], font: "10px sans-serif", clipDepth: 0 };
    this.stack = [];
    this.transform = [1, 0, 0, 1, 0, 0];
    this.textAlign = "start";
    this.textBaseline = "alphabetic";
    this.lineCap = "butt";
  }
  get fillStyle() { return this.state.fillStyle; }
  set fillStyle(v) { this.state.fillStyle = v; }
  get strokeStyle() { return this.state.strokeStyle; }
  set strokeStyle(v) { this.state.strokeStyle = v; }
  get lineWidth() { return this.state.lineWidth; }
  set lineWidth(v) { this.state.lineWidth = v; }
  get font() { return this.state.font; }
  set font(v) { this.state.font = v; }
  setLineDash(d) { this.state.lineDash = [...d]; }
  getLineDash() { return [...this.state.lineDash]; }
  save() { this.stack.push({ ...this.state, lineDash: [...this.state.lineDash] }); }
  restore() { if (this.stack.length) this.state = this.stack.pop(); }
  setTransform(...m) { this.transform = m; this.calls.push({ op: "setTransform", args: m }); }
  translate() {}
  rotate() {}
  beginPath() { this.path = []; }
  moveTo(x, y) { this.path.push(["M", x, y]); }
  lineTo(x, y) { this.path.push(["L", x, y]); }
  rect(x, y, w, h) { this.path.push(["R", x, y, w, h]); }
  closePath() {}
  record(op, extra = {}) {
    this.calls.push({
      op, path: this.path.slice(), fillStyle: this.state.fillStyle, strokeStyle: this.state.strokeStyle,
      lineWidth: this.state.lineWidth, lineDash: [...this.state.lineDash], clipDepth: this.state.clipDepth, ...extra,
    });
  }
  fill() { this.record("fill"); }
  stroke() { this.record("stroke"); }
  clip() { this.state.clipDepth += 1; this.record("clip"); }
  fillRect(x, y, w, h) { this.calls.push({ op: "fillRect", args: [x, y, w, h], fillStyle: this.state.fillStyle }); }
  strokeRect(x, y, w, h) { this.calls.push({ op: "strokeRect", args: [x, y, w, h], strokeStyle: this.state.strokeStyle }); }
  fillText(text, x, y) { this.calls.push({ op: "fillText", text, x, y, fillStyle: this.state.fillStyle, font: this.state.font }); }
  measureText(text) { return { width: String(text).length * 6 }; }

  // Queries
  fills(style) { return this.calls.filter((c) => c.op === "fill" && (style === undefined || c.fillStyle === style)); }
  strokes(style) { return this.calls.filter((c) => c.op === "stroke" && (style === undefined || c.strokeStyle === style)); }
  texts() { return this.calls.filter((c) => c.op === "fillText").map((c) => c.text); }
  /** Rectangles [x, y, w, h] filled in `style`. */
  rectsFilled(style) { return this.fills(style).flatMap((c) => c.path.filter((p) => p[0] === "R").map((p) => p.slice(1))); }
  /** Horizontal segments [x0, x1, y] stroked in `style` (optionally with a dash pattern or none). */
  segments(style, { dashed } = {}) {
    const out = [];
    for (const c of this.strokes(style)) {
      if (dashed === true && c.lineDash.length === 0) continue;
      if (dashed === false && c.lineDash.length > 0) continue;
      for (let k = 0; k + 1 < c.path.length; k++) {
        const [a, b] = [c.path[k], c.path[k + 1]];
        if (a[0] === "M" && b[0] === "L") out.push({ x0: a[1], x1: b[1], y: a[2], y1: b[2], lineWidth: c.lineWidth, lineDash: c.lineDash });
      }
    }
    return out;
  }
}
