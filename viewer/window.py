"""The interactive viewer (``geom3d view``): a thin window over a :class:`~viewer.model.Drawing`.

The window shows the scene in 3D with its LoF matrix summary. Check boxes in the lower
left toggle the layers (scenery, silhouettes, templates, rays, annotations); a right
click on a trooper (``p`` with the mouse over it also works) shows its Line of Fire to
every other trooper, as in a ``from:ID`` diagram, and lists it in the side panel.

All drawing decisions live in :mod:`viewer.compose` and :mod:`viewer.layers`; this module
only adds actors to a plotter (:mod:`viewer.plotter`), wires the widgets and keeps the
state. :class:`ViewerState` works on an
off-screen plotter too, which is how the tests drive it.
"""

from __future__ import annotations

import os
import sys

from geom3d.errors import InputError

from . import palette as pal
from .camera import iso_camera
from .compose import build_drawing
from .layers.lof import lof_from_trooper
from .model import LAYERS, Drawing
from .overlay import add_overlay
from .plotter import draw, make_plotter

__all__ = ["ViewerState", "build_viewer", "open_viewer"]

WINDOW_SIZE = (1400, 1000)


class ViewerState:
    """A plotter showing a scene, with layer visibility and the picked trooper.

    Parameters
    ----------
    scene : geom3d.Scene
    plotter : pyvista.Plotter
    drawing : Drawing
        What the plotter shows.
    layers : dict[str, list]
        VTK actors per layer (from :func:`viewer.plotter.draw`).
    size : (int, int)
    lof_doc : dict or None
        Precomputed LoF document reused when picking.
    """

    def __init__(self, scene, plotter, drawing: Drawing, layers: dict, size, lof_doc=None):
        self.scene = scene
        self.plotter = plotter
        self.drawing = drawing
        self.layers = layers
        self.size = size
        self.lof_doc = lof_doc
        self.visible = dict.fromkeys(LAYERS, True)
        self.picked: str | None = None
        self._pick_names: list[str] = []

    def set_layer(self, layer: str, on: bool) -> None:
        """Show or hide every actor of ``layer`` (picked rays belong to ``rays``)."""
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r} (known: {', '.join(LAYERS)})")
        self.visible[layer] = bool(on)
        for actor in self.layers.get(layer, []):
            actor.SetVisibility(bool(on))
        if layer == "rays":
            for name in self._pick_names:
                a = self.plotter.renderer.actors.get(name)
                if a is not None:
                    a.SetVisibility(bool(on))

    def trooper_at(self, actor) -> str | None:
        """The trooper id an actor (from a pick) belongs to, or None."""
        for name, a in self.plotter.renderer.actors.items():
            if a is actor:
                try:
                    return self.drawing.actor(name).meta.get("trooper")
                except KeyError:
                    return None
        return None

    def pick(self, tid: str | None) -> Drawing | None:
        """Show ``tid``'s LoF to all others (None clears); returns what was drawn."""
        for name in self._pick_names:
            self.plotter.remove_actor(name, render=False)
        self._pick_names = []
        self.picked = tid
        if tid is None:
            self.plotter.add_text("", position="lower_right", name="picked", font_size=10)
            return None
        part = lof_from_trooper(self.scene, tid, self.lof_doc)
        for a in part.actors:
            a.name = f"picked:{a.name}"
            a.line_width = (a.line_width or 1.0) * 1.5
        layers = draw(self.plotter, part, self.size)
        self._pick_names = [a.name for a in part.actors]
        for actors in layers.values():
            for actor in actors:
                actor.SetVisibility(self.visible["rays"])
        self.plotter.add_text(
            "\n".join([part.subtitle, *part.notes]),
            position="lower_right",
            font_size=10,
            color=pal.TEXT,
            name="picked",
        )
        return part

    def on_pick(self, actor) -> None:
        """Mesh-picking callback: show the LoF of the trooper under the cursor."""
        tid = self.trooper_at(actor)
        if tid is not None:
            self.pick(tid)
            self.plotter.render()


def build_viewer(scene, *, off_screen: bool = False, size=WINDOW_SIZE, lof_doc=None):
    """Build the viewer's plotter and state without showing it.

    Parameters
    ----------
    scene : geom3d.Scene
    off_screen : bool
        True for tests (no window).
    size : (int, int)
    lof_doc : dict or None
        Precomputed ``geom3d lof`` document (else the matrix is computed once here).

    Returns
    -------
    ViewerState
    """
    if lof_doc is None:
        lof_doc = {"pairs": [r.to_dict() for r in scene.lof_matrix()]}
    drawing = build_drawing(scene, view="iso", lof_doc=lof_doc)
    pl = make_plotter(size, off_screen=off_screen)
    layers = draw(pl, drawing, size)
    add_overlay(pl, drawing, size, legend_column=False)
    iso_camera(pl, drawing, size)
    state = ViewerState(scene, pl, drawing, layers, size, lof_doc)
    box = 28
    for i, layer in enumerate(LAYERS):
        y = 10 + i * (box + 10)
        pl.add_checkbox_button_widget(
            lambda on, layer=layer: state.set_layer(layer, on),
            value=True,
            position=(10, y),
            size=box,
            border_size=2,
            color_on=pal.OKABE_ITO["blue"],
            color_off="#DDDDDD",
        )
        pl.add_text(
            layer, position=(20 + box, y + 4), font_size=9, color=pal.TEXT, name=f"toggle:{layer}"
        )
    if not off_screen:
        pl.enable_mesh_picking(
            callback=state.on_pick, use_actor=True, show=False, show_message=False
        )
        pl.add_text(
            "right-click a trooper: its Line of Fire to all others",
            position=(round(0.015 * size[0]), round(0.87 * size[1])),
            font_size=9,
            color=pal.TEXT,
            name="help",
        )
    return state


def open_viewer(scene, *, size=WINDOW_SIZE) -> None:
    """Open the interactive window (``geom3d view``); returns when it is closed.

    Raises
    ------
    geom3d.errors.InputError
        On Linux without ``$DISPLAY`` / ``$WAYLAND_DISPLAY``: there is no screen to
        open a window on (``geom3d render`` makes diagrams headless).
    """
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        raise InputError(
            "geom3d view needs a display (no $DISPLAY or $WAYLAND_DISPLAY); "
            "use geom3d render for headless diagrams"
        )
    state = build_viewer(scene, size=size)
    state.plotter.show(title=f"geom3d - {scene.scenario.name}")
