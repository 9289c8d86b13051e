"""What each figure shows, computed without any renderer: the diagram's scene, the roofline's
geometry, the dataflow layout, the local view's arrays, the sweep grid and the colour scales. The
static export (``static_figure``) and the live views draw these numbers; neither recomputes them."""
