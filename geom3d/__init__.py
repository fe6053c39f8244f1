"""geom3d: exact Line of Fire and template adjudication for tabletop wargames.

Scenery is triangle meshes, troopers are silhouette cylinders, templates are 3D volumes,
and ray casting with the 3 x 3 mm minimum visible patch rule decides who sees whom and who
a template hits. Lengths are millimetres, angles degrees, z is up.

>>> import geom3d
>>> scene = geom3d.load_scene("meshes/demo/table.yaml")  # doctest: +SKIP
>>> scene.line_of_fire("blue-1", "red-1").lof  # doctest: +SKIP
"""

from __future__ import annotations

from .api import build_scene, load_scene
from .bodies import Cylinder
from .errors import (
    Geom3dError,
    InputError,
    MeshError,
    ScenarioError,
    ShapeError,
    UnknownIdError,
)
from .lof import LofResult, line_of_fire, lof_matrix
from .ruleset import LofPolicy, Ruleset
from .scenario import Scenario, load_scenario, parse_scenario
from .scene import Scene
from .trooper import Trooper

__version__ = "0.1.0"

__all__ = [
    "Cylinder",
    "Geom3dError",
    "InputError",
    "LofPolicy",
    "LofResult",
    "MeshError",
    "Ruleset",
    "Scenario",
    "ScenarioError",
    "Scene",
    "ShapeError",
    "Trooper",
    "UnknownIdError",
    "__version__",
    "build_scene",
    "line_of_fire",
    "load_scenario",
    "load_scene",
    "lof_matrix",
    "parse_scenario",
]
