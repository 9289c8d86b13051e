// The minimap (seed 001): the whole graph small, with a box where the main view is. Its picture is
// cached and redrawn only when the graph, the style or its size changes.
import { fitCamera, visibleWorld } from "./camera.js";
import { rasterNodes } from "./draw.js";

export const MINIMAP_SIZE = { width: 200, height: 110 };

/** The whole graph, each node a few pixels of the hottest colour it touches (grey: none). */
export function drawMinimapPicture(ctx, graph, style, width, height, ratio, background = "#ffffff") {
  const camera = fitCamera(graph.bounds, width, height);
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  rasterNodes(ctx, graph, style, { left: 0, top: 0, width, height }, camera, ratio, { background });
  return camera;
}

/** The main view's visible world rectangle in minimap px: [x, y, w, h]. */
export function viewportBox(miniCamera, mainCamera, mainWidth, mainHeight) {
  const [x0, y0, x1, y1] = visibleWorld(mainCamera, mainWidth, mainHeight);
  const k = miniCamera.k;
  return [x0 * k + miniCamera.tx, y0 * k + miniCamera.ty, (x1 - x0) * k, (y1 - y0) * k];
}
