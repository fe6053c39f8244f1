"""The scene (layer 4): scenery merged into one triangle mesh, troopers as cylinders.

:mod:`~geom3d.scene.scene` (:class:`Scene`), :mod:`~geom3d.scene.trooper` (a placed
trooper), :mod:`~geom3d.scene.scenery` (pieces placed and closed into solids, SPEC 11.1 /
12.1), :mod:`~geom3d.scene.standing` (where ``[x, y]`` troopers rest, SPEC 11.2 / 12.2)
and :mod:`~geom3d.scene.interface` (:class:`Ruleset`, what a scene asks its rules: the
scene never imports the rules themselves). Importing this package imports none of them.
"""

from __future__ import annotations

__all__: list[str] = []
