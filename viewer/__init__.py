"""Diagrams and the interactive viewer for geom3d (PyVista / VTK).

This package imports :mod:`geom3d`; geom3d never imports it (and never imports PyVista
or VTK). Modules, bottom to top (each imports only those above it in this list):

- :mod:`viewer.palette`: colour-blind-safe colours (Okabe-Ito) and their roles.
- :mod:`viewer.layout`: image margins (title band, legend column) and the size scale.
- :mod:`viewer.model`: the drawing model (:class:`~viewer.model.Drawing`,
  :class:`~viewer.model.ActorSpec`, labels, legend entries, :data:`~viewer.model.LAYERS`).
- :mod:`viewer.shapes`: PyVista building blocks (segments, rings, fans, mantles).
- :mod:`viewer.layers`: one module per layer, turning scene parts into actor specs.
- :mod:`viewer.compose`: a scene, an attack or a Line of Fire turned into one Drawing,
  with no window.
- :mod:`viewer.plotter`, :mod:`viewer.camera`, :mod:`viewer.overlay`: a Drawing added to
  a PyVista plotter, the fixed cameras, and the 2D overlay (title, legend, notes).
- :mod:`viewer.window`: the interactive window (``geom3d view``).
- :mod:`viewer.render`: off-screen PNG/SVG diagrams (``geom3d render``, ``geom3d demo``);
  the renderer plugin the CLI loads.

Nothing heavy is imported here, so ``import viewer`` stays cheap.
"""

from __future__ import annotations

__all__ = [
    "camera",
    "compose",
    "layers",
    "layout",
    "model",
    "overlay",
    "palette",
    "plotter",
    "render",
    "shapes",
    "window",
]
