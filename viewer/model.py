"""The drawing model: what a diagram shows, as plain data (no render window).

A :class:`Drawing` holds :class:`ActorSpec` entries (a mesh, a colour, an opacity, a
layer), text :class:`Label` s anchored in the world, :class:`LegendEntry` rows, a title,
notes and the region of the world the camera must show. :mod:`viewer.layers` builds the
parts, :mod:`viewer.compose` assembles them, :mod:`viewer.render` turns a Drawing into
pixels and :mod:`viewer.window` into an interactive window. Tests check drawings without
any OpenGL context.

Layers (the interactive viewer toggles them): ``scenery`` (table and scenery pieces),
``silhouettes`` (trooper cylinders, facing marks, routes, highlights), ``templates``
(template volumes and Blast Focus), ``rays`` (LoF rays, blocked rays, LoF summary lines),
``annotations`` (scale bar, arc boundary of a ``from:`` view).

Lengths are millimetres, like the engine. Colours come from :mod:`viewer.palette`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyvista as pv

from . import palette as pal

__all__ = ["LAYERS", "ActorSpec", "Drawing", "Label", "LegendEntry"]

LAYERS: tuple[str, ...] = ("scenery", "silhouettes", "templates", "rays", "annotations")


@dataclass
class ActorSpec:
    """One mesh to draw and how.

    Attributes
    ----------
    name : str
        Unique within a drawing (``trooper:blue-1``, ``template:0`` ...).
    layer : str
        One of :data:`LAYERS`.
    mesh : pyvista.PolyData
    color : str or None
        ``#RRGGBB``; None when ``rgb`` colours are given per cell.
    opacity : float
    lighting : bool
        False draws the exact colour (highlights that tests find by pixel value).
    line_width : float or None
        Pixels at 1200 px image height; the renderer scales it with the image.
    rgb : str or None
        Name of a point-data array of uint8 RGB colours to draw instead of ``color``.
    smooth : bool
        Smooth (Gouraud) shading, for curved surfaces.
    meta : dict
        Free-form (e.g. ``{"trooper": id}`` for picking).
    """

    name: str
    layer: str
    mesh: pv.PolyData
    color: str | None = None
    opacity: float = 1.0
    lighting: bool = True
    line_width: float | None = None
    rgb: str | None = None
    smooth: bool = False
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.layer not in LAYERS:
            raise ValueError(f"unknown layer {self.layer!r}")


@dataclass
class Label:
    """A text label anchored at a world point (mm); ``trooper``: the trooper it names."""

    layer: str
    point: tuple[float, float, float]
    text: str
    color: str = pal.TEXT
    trooper: str | None = None


@dataclass
class LegendEntry:
    """One legend row: text, colour and a face.

    Faces: ``rectangle`` (area), ``ring``, ``disc``, ``line``, ``arrow``, ``cross``.
    """

    label: str
    color: str
    face: str = "rectangle"


@dataclass
class Drawing:
    """Everything one diagram shows, before any rendering.

    Attributes
    ----------
    title, subtitle : str
    actors : list of ActorSpec
    labels : list of Label
    legend : list of LegendEntry
    notes : list of str
        Text lines for the side panel (LoF summary, exclusions...).
    bounds : (2, 3) float, mm
        The part of the world the camera must show.
    eye : dict or None
        For a ``from:ID`` view: ``{"trooper", "position", "facing", "eye_z"}`` (and
        ``"aim"``, the point to look at, when the diagram has a target).
    view : str
        The camera kind: ``top``, ``iso``, ``from``, ``side`` or ``eye``
        (:data:`viewer.camera.CAMERAS`).
    camera : dict
        Camera hints of the view (``side``: ``"direction"``, ``"slab"``; ``eye``:
        ``"eye"``, ``"target"``) and the user's options ``"azimuth"``, ``"elevation"``
        (degrees) and ``"zoom"`` (factor).
    caption : str
        Text printed under the picture (``--caption``, plus template dimensions).
    show_legend : bool
        False leaves the legend out (``--no-legend``); the notes stay.
    about : list of str
        The troopers the figure is about (the Line of Fire's two ends, the attack's
        troopers; a plain plan: all): the layout lint wants each wholly in the frame.
    """

    title: str
    subtitle: str = ""
    actors: list[ActorSpec] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    legend: list[LegendEntry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    bounds: np.ndarray = field(default_factory=lambda: np.zeros((2, 3)))
    eye: dict | None = None
    view: str = "top"
    camera: dict = field(default_factory=dict)
    caption: str = ""
    show_legend: bool = True
    about: list[str] = field(default_factory=list)

    def actor(self, name: str) -> ActorSpec:
        """The actor called ``name`` (KeyError otherwise)."""
        for a in self.actors:
            if a.name == name:
                return a
        raise KeyError(name)

    def layer(self, layer: str) -> list[ActorSpec]:
        """The actors of one layer, in drawing order."""
        return [a for a in self.actors if a.layer == layer]

    def names(self) -> list[str]:
        """The actor names, in drawing order."""
        return [a.name for a in self.actors]

    def add_legend(self, label: str, color: str, face: str = "rectangle") -> None:
        """Append a legend row unless one with the same text exists already."""
        if all(e.label != label for e in self.legend):
            self.legend.append(LegendEntry(label, color, face))
