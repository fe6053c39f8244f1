"""Diagrams and the interactive viewer for geom3d (PyVista / VTK).

This package imports :mod:`geom3d`; geom3d never imports it (and never imports PyVista
or VTK). Modules, bottom to top (each imports only those above it in this list):

- :mod:`viewer.palette`: colour-blind-safe colours (Okabe-Ito) and their roles.
- :mod:`viewer.layout`: image margins (title band, legend column) and the size scale.
- :mod:`viewer.labels`: label placement in image space (leader lines, "labels not shown").
- :mod:`viewer.model`: the drawing model (:class:`~viewer.model.Drawing`,
  :class:`~viewer.model.ActorSpec`, labels, legend entries, :data:`~viewer.model.LAYERS`).
- :mod:`viewer.vector`: actors projected straight down into 2D shapes (shapely).
- :mod:`viewer.shapes`: PyVista building blocks (segments, rings, fans, mantles).
- :mod:`viewer.layers`: one module per layer, turning scene parts into actor specs.
- :mod:`viewer.plan_scenery`: scenery of a vector plan (height bands, terrain contours).
- :mod:`viewer.annotate`: ``--title``, ``--caption``, ``--no-legend``, ``--annotate``.
- :mod:`viewer.side`: the side view (section across A-B, silhouette outlines, scale bar).
- :mod:`viewer.views`: the eye view (visible region, patch) and the labels hidden behind
  scenery.
- :mod:`viewer.compose`: a scene, an attack or a Line of Fire turned into one Drawing,
  with no window.
- :mod:`viewer.plotter`, :mod:`viewer.camera`, :mod:`viewer.overlay`: a Drawing added to
  a PyVista plotter, the fixed cameras, and the 2D overlay (title, legend, notes;
  :mod:`viewer.legend` draws the legend, :mod:`viewer.text_measure` measures text).
- :mod:`viewer.plan`: true vector plan views (SVG/PDF, matplotlib);
  :mod:`viewer.vector_output`: every vector figure's settings and bytes, and 3D views on
  a PDF page.
- :mod:`viewer.html`: the interactive standalone HTML page (trame / vtk.js export).
- :mod:`viewer.window`: the interactive window (``geom3d view``): attacks, screen scale
  bar, side panel.
- :mod:`viewer.render`: off-screen PNG/SVG diagrams (``geom3d render``, ``geom3d demo``);
  the renderer plugin the CLI loads.

Nothing heavy is imported here, so ``import viewer`` stays cheap.
"""

from __future__ import annotations

__all__ = [
    "annotate",
    "camera",
    "compose",
    "html",
    "labels",
    "layers",
    "layout",
    "model",
    "overlay",
    "palette",
    "plan",
    "plan_scenery",
    "plotter",
    "render",
    "shapes",
    "side",
    "vector",
    "views",
    "window",
]
