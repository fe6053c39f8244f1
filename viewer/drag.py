"""Dragging troopers in the viewer window (``geom3d view``, issue 50).

Each trooper gets a sphere handle (a VTK sphere widget) just above its top. Dragging a
handle and letting it go moves the trooper there in plan (``[x, y]``: it stands on what is
under it, SPEC 13.1) through :func:`geom3d.serve.moves.moved_scene`: the scene is rebuilt
from the scene cache, only the pairs the move can change are searched again, and the
window redraws the silhouettes and shows the moved trooper's Line of Fire to every other
trooper (as a right click does). A spot off the table or inside scenery is refused: the
handle goes back and the side panel says why. The attacks drawn at start stay as they
were resolved then.

:class:`TrooperDrag` works on an off-screen plotter too (without widgets): the tests call
:meth:`TrooperDrag.on_drag_end` as the widget would.
"""

from __future__ import annotations

import numpy as np

from geom3d.core.errors import Geom3dError
from geom3d.serve.moves import moved_scene

from . import palette as pal
from .layers.troopers import trooper_actors
from .model import Drawing
from .plotter import add_labels, draw

__all__ = ["HANDLE_GAP_MM", "TrooperDrag"]

#: Height of a handle's centre above its trooper's top, mm.
HANDLE_GAP_MM = 8.0


class TrooperDrag:
    """Sphere handles that move the troopers of a :class:`viewer.window.ViewerState`.

    Parameters
    ----------
    state : viewer.window.ViewerState
    widgets : bool
        Add the VTK sphere widgets (a window); False for an off-screen plotter.

    Attributes
    ----------
    ids : list of str
        The troopers with a handle, in widget order (40k vehicles have none).
    moves : int
        Moves made.
    """

    def __init__(self, state, *, widgets: bool = True) -> None:
        self.state = state
        self.ids = [t.id for t in state.scene.troopers.values() if t.vehicle is None]
        self.moves = 0
        self.widgets: list = []
        self._label_names: list[str] = []
        if widgets and self.ids:
            made = state.plotter.add_sphere_widget(
                self.on_drag_end,
                center=np.array([self.handle(tid) for tid in self.ids]).reshape(-1, 3),
                radius=5.0,
                color=pal.TEXT,
                style="surface",
                interaction_event="end",
            )
            self.widgets = list(made) if isinstance(made, list) else [made]

    def handle(self, tid: str) -> tuple[float, float, float]:
        """Where trooper ``tid``'s handle sits: above the centre of its top (mm)."""
        t = self.state.scene.troopers[tid]
        x, y, z = t.position
        return (x, y, z + t.height + HANDLE_GAP_MM)

    def on_drag_end(self, point, index: int = 0) -> bool:
        """Move trooper ``ids[index]`` to the plan point of ``point`` (the handle's
        centre); True when moved, False when refused (the handle goes back)."""
        state = self.state
        tid = self.ids[index]
        try:
            scene = moved_scene(state.scene, tid, [float(point[0]), float(point[1])])
        except Geom3dError as exc:
            self._place_handle(index)
            state.show_panel([f"{tid} not moved: {exc}"])
            state.plotter.render()
            return False
        state.scene = scene
        state.lof_doc = {"pairs": [r.to_dict() for r in scene.lof_matrix()]}
        self._redraw_troopers()
        self._place_handle(index)
        self.moves += 1
        state.pick(tid)
        state.plotter.render()
        return True

    def _place_handle(self, index: int) -> None:
        if self.widgets:
            self.widgets[index].SetCenter(self.handle(self.ids[index]))

    def _redraw_troopers(self) -> None:
        """Replace the silhouettes layer (the actors keep their names, so picking by
        trooper still works) and its labels."""
        state = self.state
        pl = state.plotter
        old = state.layers.get("silhouettes", [])
        for actor in old:
            pl.remove_actor(actor, render=False)
        actors, labels = trooper_actors(state.scene)
        part = Drawing(title="troopers", actors=actors)
        layers = draw(pl, part, state.size, labels=False)
        labs = add_labels(pl, labels, state.size, prefix="drag-labels")
        new = layers.get("silhouettes", []) + labs.get("silhouettes", [])
        on = state.visible["silhouettes"]
        for actor in new:
            actor.SetVisibility(on)
        state.layers["silhouettes"] = new
        # the drawing's actor specs, for picking by name (ViewerState.trooper_at)
        keep = [a for a in state.drawing.actors if a.layer != "silhouettes"]
        state.drawing.actors = keep + actors
