// A static figure that follows the page's theme as the live views do (campaign_widget.views.themed_figure):
// the kernel sends the figure drawn in both themes, as PNG bytes; the view shows the one of the theme it
// resolves (js/shared/page-theme.js) and swaps it when the front end's theme changes. Nothing is drawn here.
import { mountView } from "../shared/view-shell.js";
import { THEME_CSS } from "../shared/page-theme.js";

const CSS = `${THEME_CSS}
.cw-figure-root { display: inline-block; max-width: 100%; }
.cw-figure-root img { display: block; max-width: 100%; height: auto; }`;

/** The bytes of a Bytes trait as ipywidgets hands them over (DataView, ArrayBuffer or typed array). */
function bytesOf(value) {
  if (!value) return null;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return null;
}

export default {
  render({ model, el }) {
    return mountView({ model, el, className: "cw-figure-root", css: CSS, kernel: false }, (view) => {
      const img = view.document.createElement("img");
      img.className = "cw-figure";
      view.root.append(img);
      let theme = "light";
      let url = null;
      view.followTheme({}, (resolved) => {
        theme = resolved.name;
      });
      function draw() {
        const bytes = bytesOf(model.get(theme === "dark" ? "dark_png" : "light_png"));
        if (url) view.window.URL.revokeObjectURL(url);
        url = bytes ? view.window.URL.createObjectURL(new view.window.Blob([bytes], { type: "image/png" })) : null;
        if (url) img.src = url;
        img.alt = String(model.get("alt") ?? "");
        img.dataset.theme = theme;
        img.dataset.draws = String(Number(img.dataset.draws ?? 0) + 1); // as the canvases' data-draws
      }
      return {
        draw,
        redrawOn: ["light_png", "dark_png", "alt"],
        dispose() {
          if (url) view.window.URL.revokeObjectURL(url);
        },
      };
    });
  },
};
