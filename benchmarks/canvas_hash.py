"""The one way the browser benchmarks tell that a canvas shows a new picture (page-side JavaScript).

``CANVAS_HASH_JS`` declares ``hash()`` for a ``canvas`` in scope: the canvas drawn down to 200 × 100
and its pixels folded with FNV-1a. Pasted into a page script after ``canvas`` is defined.
"""

CANVAS_HASH_JS = """
  const small = document.createElement('canvas');
  small.width = 200; small.height = 100;
  const sctx = small.getContext('2d', { willReadFrequently: true });
  const hash = () => {
    sctx.clearRect(0, 0, 200, 100);
    sctx.drawImage(canvas, 0, 0, 200, 100);
    const d = sctx.getImageData(0, 0, 200, 100).data;
    let h = 2166136261;
    for (let i = 0; i < d.length; i++) { h ^= d[i]; h = Math.imul(h, 16777619); }
    return h >>> 0;
  };
"""
