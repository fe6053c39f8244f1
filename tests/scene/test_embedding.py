"""Embedded troopers: scenery cutting into a trooper, a trooper inside a solid
(geom3d.scene.embedding)."""

from __future__ import annotations

import numpy as np
from support import box, make_scene, trooper

from geom3d.scene.embedding import crossing_faces
from geom3d.scene.scenery import SceneryMesh


def test_true_embedding_is_warned_terrain_is_not(tmp_path):
    scene = make_scene(
        [
            trooper("inside", [100, 100, 5], silhouette={"diameter": 10, "height": 10}),
            trooper("under", [300, 100, 0]),
            trooper("free", [500, 100]),
        ],
        [
            box("solid", [60, 60, 40], [100, 100]),
            box("roof", [60, 60, 5], [300, 100, 20]),  # overhang 20 mm up, S2 is 40 tall
        ],
    )
    emb = [w for w in scene.warnings if "embedded" in w]
    assert emb == [
        "trooper 'inside' is embedded in scenery: it stands inside the solid 'solid' "
        "(base at z = 5.0 mm)",
        "trooper 'under' is embedded in scenery: scenery 'roof' cuts into its volume "
        "(a wall or an overhang) (base at z = 0.0 mm)",
    ]


def test_inside_parity_ignores_surface_pieces():
    scene = make_scene(
        [trooper("in", [100, 100, 5], silhouette={"diameter": 10, "height": 10})],
        [box("thin", [60, 60, 40], [100, 100], solid="surface")],
    )
    assert not [w for w in scene.warnings if "embedded" in w]


def test_crossing_faces_counts_own_faces_and_caps_not_curtains_or_surfaces():
    # element 0 (solid): an own face, a closing cap (flat) and a closing curtain (vertical);
    # element 1 (surface): an own face. Only the own face and the cap of the solid count.
    v = np.array(
        [[0, 0, 0], [10, 0, 0], [0, 10, 0], [0, 0, 10], [10, 0, 10], [0, 10, 5]], dtype=float
    )
    f = np.array([[0, 1, 2], [3, 4, 5], [0, 1, 4], [0, 2, 1]])
    mesh = SceneryMesh(v, f, np.array([0, 0, 0, 1], np.int32), ("solid", "sheet"))
    closing = np.array([False, True, True, False])
    counted = crossing_faces(mesh, closing, ("auto", "surface"))
    assert counted.tolist() == [True, True, False, False]
