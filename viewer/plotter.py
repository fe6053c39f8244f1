"""A :class:`~viewer.model.Drawing` added to a PyVista plotter: meshes, styles, labels.

Shared by the off-screen diagrams (:mod:`viewer.render`) and the interactive window
(:mod:`viewer.window`). Every plotter is made by :func:`make_plotter`.

VTK 9.4+ wheels choose their OpenGL window at run time, when a window is made; on Linux
without ``$DISPLAY`` (or ``$WAYLAND_DISPLAY``) this module asks for the EGL window
(``VTK_DEFAULT_OPENGL_WINDOW=vtkEGLRenderWindow``, unless the variable is already set),
which renders through Mesa's llvmpipe software rasteriser. System packages needed on
Debian/Ubuntu: ``libegl1 libegl-mesa0 libgl1-mesa-dri`` (see ``.ci/viewer-offscreen.md``).
"""

from __future__ import annotations

import os
import sys


def _prefer_egl() -> None:
    """Ask VTK for its EGL window when there is no display (read when a window is made)."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")


_prefer_egl()

import numpy as np  # noqa: E402
import pyvista as pv  # noqa: E402

from . import palette as pal  # noqa: E402
from .layout import size_scale  # noqa: E402
from .model import Drawing  # noqa: E402

__all__ = ["AMBIENT", "DIFFUSE", "MULTI_SAMPLES", "add_labels", "draw", "make_plotter"]

#: MSAA samples per pixel.
MULTI_SAMPLES = 8
#: Material of lit surfaces: enough ambient light that the colours stay close to the
#: palette when seen straight from above, enough diffuse light to shade 3D views.
AMBIENT, DIFFUSE = 0.35, 0.7


def make_plotter(size, *, off_screen: bool = True):
    """A plotter of ``size`` = (width, height) px: light kit, background, MSAA.

    Every plotter of the package is made here, after :func:`_prefer_egl` ran.
    """
    pl = pv.Plotter(off_screen=off_screen, window_size=list(size), lighting="light_kit")
    pl.set_background(pal.BACKGROUND)
    # No depth peeling: with Mesa's llvmpipe it drops translucent layers (entirely when
    # combined with MSAA). VTK's default order-independent translucency blends them
    # approximately but reliably; MSAA smooths the edges.
    pl.disable_anti_aliasing()
    pl.enable_anti_aliasing("msaa", multi_samples=MULTI_SAMPLES)
    return pl


def draw(plotter, drawing: Drawing, size, *, layers=None, labels: bool = True) -> dict:
    """Add a drawing's meshes (and its labels) to a plotter.

    Parameters
    ----------
    plotter : pyvista.Plotter
    drawing : Drawing
    size : (int, int)
        Image size, for line widths and font sizes.
    layers : iterable of str or None
        Only these layers (None: all).
    labels : bool
        Add the text labels too (:func:`add_labels`).

    Returns
    -------
    dict[str, list]
        VTK actors per layer (labels included), for layer toggles.
    """
    k = size_scale(size)
    keep = None if layers is None else set(layers)
    by_layer: dict[str, list] = {}
    for a in drawing.actors:
        if keep is not None and a.layer not in keep:
            continue
        kw: dict = {
            "opacity": a.opacity,
            "lighting": a.lighting,
            "name": a.name,
            "reset_camera": False,
            "pickable": "trooper" in a.meta,
            "smooth_shading": a.smooth,
        }
        if a.lighting:
            kw.update(ambient=AMBIENT, diffuse=DIFFUSE, specular=0.0)
        if a.line_width is not None:
            kw["line_width"] = max(1.0, a.line_width * k)
        if a.rgb is not None:
            kw.update(scalars=a.rgb, rgb=True, preference="point")
        else:
            kw["color"] = a.color
        actor = plotter.add_mesh(a.mesh, **kw)
        by_layer.setdefault(a.layer, []).append(actor)
    if labels:
        labs = [lab for lab in drawing.labels if keep is None or lab.layer in keep]
        for layer, actors in add_labels(plotter, labs, size).items():
            by_layer.setdefault(layer, []).extend(actors)
    return by_layer


def add_labels(plotter, labels, size, *, prefix: str = "labels") -> dict:
    """Add text labels anchored in the world (always drawn on top of the picture).

    Returns the label actors per layer.
    """
    k = size_scale(size)
    font = max(8, round(18 * k))
    groups: dict[tuple[str, str], list] = {}
    for lab in labels:
        groups.setdefault((lab.layer, lab.color), []).append(lab)
    by_layer: dict[str, list] = {}
    for i, ((layer, color), labs) in enumerate(groups.items()):
        actor = plotter.add_point_labels(
            np.array([lab.point for lab in labs], dtype=np.float64),
            [lab.text for lab in labs],
            font_size=font,
            text_color=color,
            bold=False,
            shape_color="white",
            shape_opacity=0.75,
            shape="rect",
            margin=max(1, round(2 * k)),
            show_points=False,
            always_visible=True,
            name=f"{prefix}:{i}",
            reset_camera=False,
            render=False,
        )
        by_layer.setdefault(layer, []).append(actor)
    return by_layer
