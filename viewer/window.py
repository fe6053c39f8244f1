"""The interactive viewer (``geom3d view``): a thin window over a :class:`~viewer.model.Drawing`.

The window shows the scene in 3D with its LoF matrix summary and the scenario's attacks
(template volumes, affected rings, exclusion crosses). Check boxes in the lower left
toggle the layers (scenery, silhouettes, templates, rays, annotations); a right click on
a trooper (``p`` with the mouse over it also works) shows its Line of Fire to every other
trooper, as in a ``from:ID`` diagram, and the side panel then lists that trooper's
Line of Fire instead of the matrix summary (one list at a time). A ball above each
trooper drags it elsewhere (:mod:`viewer.drag`): its Line of Fire is shown when it
lands. The scale bar is a screen overlay (VTK's legend scale), so it stays on screen
when the camera turns; the side panel keeps :data:`PANEL_MARGIN_PX` from the window's
edges.

All drawing decisions live in :mod:`viewer.compose` and :mod:`viewer.layers`; this module
only adds actors to a plotter (:mod:`viewer.plotter`), wires the widgets and keeps the
state. :class:`ViewerState` works on an
off-screen plotter too, which is how the tests drive it.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace

import numpy as np
import pyvista as pv
from vtkmodules.vtkRenderingCore import vtkActor2D, vtkPolyDataMapper2D

from geom3d.core.errors import InputError

from . import palette as pal
from .camera import iso_camera
from .compose import build_drawing, resolve_attack_for_drawing
from .layers.annotations import nice_scale_length
from .layers.lof import lof_from_trooper
from .layers.templates import attack_actors
from .layout import size_scale
from .model import LAYERS, Drawing
from .overlay import add_overlay
from .plotter import draw, make_plotter
from .text_measure import text_px, wrap

__all__ = [
    "PANEL_MARGIN_PX",
    "ScreenScaleBar",
    "ViewerState",
    "attacks_part",
    "build_viewer",
    "open_viewer",
]

WINDOW_SIZE = (1400, 1000)
#: Smallest gap between the side panel's text and the window's edges, pixels.
PANEL_MARGIN_PX = 16


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
        self.scale_bar: ScreenScaleBar | None = None
        #: The side panel's lines now shown (after wrapping), and its text actors.
        self.panel_lines: list[str] = []
        self._panel_names: list[str] = []
        #: The trooper handles (viewer.drag.TrooperDrag) of a window; None off-screen.
        self.drag = None

    def show_panel(self, notes: list[str]) -> None:
        """Replace the side panel's text with ``notes`` (wrapped to the panel's width).

        The panel sits under the legend, inside the right column, at least
        :data:`PANEL_MARGIN_PX` from the window's edges; lines that do not fit end in a
        ``... N more lines`` line.
        """
        pl = self.plotter
        for name in self._panel_names:
            pl.remove_actor(name, render=False)
        self._panel_names = []
        w, h = self.size
        font = max(7, round(12 * size_scale(self.size)))
        probe = pl.add_text(" ", position=(0, 0), font_size=font, name="panel:probe")
        legend = pl.renderer.actors.get("legend")
        top = h - 0.12 * h
        if legend is not None:
            y_l = legend.GetPositionCoordinate().GetValue()[1]
            top = y_l * h - 0.02 * h
        x0 = round(0.76 * w)
        width = w - PANEL_MARGIN_PX - x0
        lines = wrap(probe.prop, notes, width)
        step = 1.2 * text_px(probe.prop, "Ag")[1]
        pl.remove_actor("panel:probe", render=False)
        room = max(1, int((top - PANEL_MARGIN_PX) // step))
        if len(lines) > room:
            lines = lines[: room - 1] + [f"... {len(lines) - room + 1} more lines"]
        self.panel_lines = lines
        for i, line in enumerate(lines):
            name = f"panel:{i}"
            txt = pl.add_text(
                line,
                position=(x0, round(top - i * step)),
                font_size=font,
                color=pal.TEXT,
                name=name,
            )
            txt.prop.justification_vertical = "top"
            txt.prop.background_color = pal.BACKGROUND
            txt.prop.background_opacity = 0.8
            self._panel_names.append(name)

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
            self.show_panel(self.drawing.notes)
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
        self.show_panel([part.subtitle, *part.notes])
        return part

    def on_pick(self, actor) -> None:
        """Mesh-picking callback: show the LoF of the trooper under the cursor."""
        tid = self.trooper_at(actor)
        if tid is not None:
            self.pick(tid)
            self.plotter.render()


class ScreenScaleBar:
    """A two-tone scale bar drawn on the screen (2D), bottom centre, in the file's units.

    It is redrawn before every frame (renderer ``StartEvent``): a round length
    (:func:`viewer.layers.annotations.nice_scale_length`) about :data:`TARGET_PX` pixels
    long at the camera's focal point, so it stays on screen and stays true when the camera
    turns or zooms (in a perspective view it holds at the depth of the focal point).

    Attributes
    ----------
    length_mm : float
        The length the bar stands for.
    pixels : float
        Its length on screen.
    text : str
        Its label, e.g. ``"50 mm"``.
    """

    TARGET_PX = 160.0

    def __init__(self, plotter, units: str, size) -> None:
        self.plotter = plotter
        self.units = units
        self.size = size
        self.length_mm = 0.0
        self.pixels = 0.0
        self.text = ""
        self._mesh = pv.PolyData()
        mapper = vtkPolyDataMapper2D()
        mapper.SetInputData(self._mesh)
        mapper.SetColorModeToDirectScalars()
        self.actor = vtkActor2D()
        self.actor.SetMapper(mapper)
        plotter.add_actor(self.actor, reset_camera=False, name="scale-bar:screen", pickable=False)
        self.label = plotter.add_text(
            " ",
            position=(0, 0),
            font_size=max(7, round(12 * size_scale(size))),
            color=pal.TEXT,
            name="scale-bar:text",
        )
        plotter.renderer.AddObserver("StartEvent", self.update)
        self.update()

    def mm_per_pixel(self) -> float:
        """World millimetres per screen pixel at the focal point."""
        cam = self.plotter.camera
        h = self.size[1]
        if cam.parallel_projection:
            return 2.0 * cam.parallel_scale / h
        dist = float(np.linalg.norm(np.subtract(cam.focal_point, cam.position)))
        return 2.0 * dist * np.tan(np.radians(cam.view_angle) / 2.0) / h

    def update(self, *_args) -> None:
        mpp = self.mm_per_pixel()
        self.length_mm, self.text = nice_scale_length(self.TARGET_PX * mpp, self.units)
        self.pixels = self.length_mm / mpp
        w, _h = self.size
        x0 = round(0.5 * w - 0.5 * self.pixels)
        y0, th = PANEL_MARGIN_PX, 8
        xm, x1 = x0 + 0.5 * self.pixels, x0 + self.pixels
        pts = [
            [x0, y0, 0], [xm, y0, 0], [xm, y0 + th, 0], [x0, y0 + th, 0],
            [xm, y0, 0], [x1, y0, 0], [x1, y0 + th, 0], [xm, y0 + th, 0],
        ]  # fmt: skip
        mesh = pv.PolyData(np.array(pts, dtype=float), faces=[4, 0, 1, 2, 3, 4, 4, 5, 6, 7])
        mesh.lines = np.array([5, 0, 5, 6, 3, 0])  # outline around both halves
        dark, light = pal.rgb255(pal.TEXT), pal.rgb255(pal.BACKGROUND)
        # cells: the line first (VTK orders lines before polygons), then the two halves
        mesh.cell_data["rgb"] = np.array([dark, dark, light], dtype=np.uint8)
        self._mesh.copy_from(mesh)
        self.label.SetInput(self.text)
        self.label.SetPosition(x1 + 6, y0 - 2)


def attacks_part(scene) -> Drawing:
    """Every attack of the scenario: template volumes, highlights, one note block each.

    Actor names get the prefix ``attack:<id>:`` (several attacks in one window).
    """
    d = Drawing(title="attacks")
    for spec in scene.scenario.attacks:
        doc, volumes = resolve_attack_for_drawing(scene, spec.id)
        part = attack_actors(scene, doc, volumes, spec)
        for a in part.actors:
            a.name = f"attack:{spec.id}:{a.name}"
        d.actors.extend(part.actors)
        d.labels.extend(part.labels)
        for e in part.legend:
            d.add_legend(e.label, e.color, e.face)
        d.notes.append(part.title)
        d.notes.extend(f"  {n}" for n in part.notes)
    return d


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
    # the scale bar is a screen overlay here (below), not a 3D object on the table
    drawing.actors = [a for a in drawing.actors if not a.name.startswith("scale-bar:")]
    unit = f" {scene.scenario.units}"
    drawing.labels = [  # the bar's length label ("50 mm")
        lab
        for lab in drawing.labels
        if not (lab.layer == "annotations" and lab.text[:1].isdigit() and lab.text.endswith(unit))
    ]
    attacks = attacks_part(scene)
    drawing.actors.extend(attacks.actors)
    drawing.labels.extend(attacks.labels)
    for e in attacks.legend:
        drawing.add_legend(e.label, e.color, e.face)
    drawing.notes.extend(attacks.notes)
    pl = make_plotter(size, off_screen=off_screen)
    layers = draw(pl, drawing, size)
    # title and legend from the overlay; the notes go to the side panel
    add_overlay(pl, replace(drawing, notes=[]), size, legend_column=False)
    iso_camera(pl, drawing, size)
    state = ViewerState(scene, pl, drawing, layers, size, lof_doc)
    state.scale_bar = ScreenScaleBar(pl, scene.scenario.units, size)
    state.show_panel(drawing.notes)
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
        from .drag import TrooperDrag

        state.drag = TrooperDrag(state)
        pl.add_text(
            "right-click a trooper: its Line of Fire to all others; "
            "drag a trooper's ball to move it",
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
    geom3d.core.errors.InputError
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
