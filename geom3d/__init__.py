"""geom3d: exact Line of Fire and template adjudication for tabletop wargames.

Scenery is triangle meshes, troopers are silhouette cylinders, templates are 3D volumes,
and ray casting with the 3 x 3 mm minimum visible patch rule decides who sees whom and who
a template hits. Lengths are millimetres, angles degrees, z is up.

>>> import geom3d
>>> scene = geom3d.load_scene("meshes/demo/table.yaml")  # doctest: +SKIP
>>> scene.line_of_fire("blue-1", "red-1").lof  # doctest: +SKIP
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names below, for type checkers; at run time they load on first use
    from geom3d.adjudication.lof import LofResult, line_of_fire, lof_matrix
    from geom3d.api import build_scene, load_scene
    from geom3d.bodies.cylinder import Cylinder
    from geom3d.core.errors import (
        Geom3dError,
        InputError,
        MeshError,
        ScenarioError,
        ShapeError,
        UnknownIdError,
    )
    from geom3d.scenario import Scenario, load_scenario, parse_scenario
    from geom3d.scene.interface import LofPolicy, Ruleset
    from geom3d.scene.scene import Scene
    from geom3d.scene.trooper import Trooper

__version__ = "0.1.0"

#: Public name -> the module that defines it. ``import geom3d`` imports none of them
#: (SPEC 12.3: start-up loads no numba, trimesh, scipy or Embree); each is imported the
#: first time it is used, e.g. ``geom3d.load_scene``.
_EXPORTS: dict[str, str] = {
    "Cylinder": "geom3d.bodies.cylinder",
    "Geom3dError": "geom3d.core.errors",
    "InputError": "geom3d.core.errors",
    "LofPolicy": "geom3d.scene.interface",
    "LofResult": "geom3d.adjudication.lof",
    "MeshError": "geom3d.core.errors",
    "Ruleset": "geom3d.scene.interface",
    "Scenario": "geom3d.scenario",
    "ScenarioError": "geom3d.core.errors",
    "Scene": "geom3d.scene.scene",
    "ShapeError": "geom3d.core.errors",
    "Trooper": "geom3d.scene.trooper",
    "UnknownIdError": "geom3d.core.errors",
    "build_scene": "geom3d.api",
    "line_of_fire": "geom3d.adjudication.lof",
    "load_scenario": "geom3d.scenario",
    "load_scene": "geom3d.api",
    "lof_matrix": "geom3d.adjudication.lof",
    "parse_scenario": "geom3d.scenario",
}

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


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'geom3d' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
