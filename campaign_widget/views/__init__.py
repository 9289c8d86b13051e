"""The live views: anywidgets (and the ipywidgets composites built from them) over the figures' numbers.
Loaded on first use, so the model, the readers and the static export import without anywidget."""
