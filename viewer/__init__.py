"""Diagrams and the interactive viewer for geom3d (PyVista / VTK).

This package imports :mod:`geom3d`; geom3d never imports it (and never imports PyVista
or VTK). Modules:

- :mod:`viewer.palette`: colour-blind-safe colours (Okabe-Ito) and their roles.
- :mod:`viewer.actors`: a scene, an attack or a Line of Fire turned into a
  :class:`~viewer.actors.Drawing` (meshes, colours, labels, legend), with no window.
- :mod:`viewer.render`: off-screen PNG/SVG diagrams (``geom3d render``, ``geom3d demo``).
- :mod:`viewer.window`: the interactive window (``geom3d view``).

Nothing heavy is imported here, so ``import viewer`` stays cheap.
"""

from __future__ import annotations

__all__ = ["actors", "palette", "render", "window"]
