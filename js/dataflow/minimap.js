// The minimap (seed 001): the whole graph small, with a box where the main view is. Its picture is
// cached and redrawn only when the graph, the style or its size changes.
import { fitCamera, visibleWorld } from "./camera.js";

export const MINIMAP_SIZE = { width: 200, height: 110 };

/** Draw every node as a small rect of its colour into `ctx` (a width×height area at `ratio`). */
export function drawMinimapPicture(ctx, graph, style, width, height, ratio) {
  const camera = fitCamera(graph.bounds, width, height);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.fillStyle = "#fbfbfb";
  ctx.fillRect(0, 0, width, height);
  for (const group of style.nodeGroups) {
    ctx.beginPath();
    for (const i of group.indices) {
      const w = Math.max(1, graph.w[i] * camera.k);
      const h = Math.max(1, graph.h[i] * camera.k);
      ctx.rect(graph.x[i] * camera.k + camera.tx - w / 2, graph.y[i] * camera.k + camera.ty - h / 2, w, h);
    }
    ctx.fillStyle = group.extra === 1 ? "#9aa7b4" : group.css === "#ffffff" ? "#5f6368" : group.css;
    ctx.fill();
  }
  return camera;
}

/** The main view's visible world rectangle in minimap px: [x, y, w, h]. */
export function viewportBox(miniCamera, mainCamera, mainWidth, mainHeight) {
  const [x0, y0, x1, y1] = visibleWorld(mainCamera, mainWidth, mainHeight);
  const k = miniCamera.k;
  return [x0 * k + miniCamera.tx, y0 * k + miniCamera.ty, (x1 - x0) * k, (y1 - y0) * k];
}
