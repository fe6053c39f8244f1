"""The connected-ground resting rule (geom3d.scene.footing; SPEC 12.2, issue 32)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support import make_scene, real_meshes_dir, trooper

from geom3d.scene.footing import Footing, connected_rest
from geom3d.survey.grid import Probe, _blocked, _ground, _rest_heights

# a row of five probes 1 mm apart, the centre in the middle
ROW = np.array([[-2.0, 0], [-1, 0], [0, 0], [1, 0], [2, 0]])


def test_a_slope_is_connected_a_step_is_not():
    foot = Footing(ROW)
    assert foot.centre == 2
    t60 = math.tan(math.radians(60.0))
    # a 45-degree slope rising 1 mm per mm: all connected, rests on the top (2 mm)
    z, con = connected_rest(foot, np.array([[-2.0, -1, 0, 1, 2]]))
    assert z[0] == 2.0 and con.all()
    # a wall 50 mm high at the last probe: not connected; rests at 1 mm (the slope's top)
    z, con = connected_rest(foot, np.array([[-2.0, -1, 0, 1, 50]]))
    assert z[0] == 1.0 and list(con[0]) == [True, True, True, True, False]
    # the largest rise still linked between neighbours 1 mm apart: 1 mm + tan 60 degrees
    step = 1.0 + t60
    z, _ = connected_rest(foot, np.array([[0.0, 0, 0, step - 1e-9, 2 * step - 2e-9]]))
    assert z[0] == pytest.approx(2 * step)
    z, _ = connected_rest(foot, np.array([[0.0, 0, 0, step + 1e-6, 0]]))
    assert z[0] == 0.0
    # the centre over nothing: the highest probe of the disc
    z, con = connected_rest(foot, np.array([[3.0, np.nan, np.nan, 0.0, 9.0]]))
    assert z[0] == 9.0 and list(con[0]) == [True, False, False, True, True]


def test_a_base_on_a_hill_sits_on_its_highest_point():
    # two discs over a plane z = 0.5 x (a 26.6-degree slope): rests on the high rim
    ring = np.linspace(0, 2 * math.pi, 12, endpoint=False)
    off = np.array([[0.0, 0.0]] + [[6 * math.cos(a), 6 * math.sin(a)] for a in ring])
    foot = Footing(off)
    h = 0.5 * (off[:, 0][None, :] + np.array([[0.0], [100.0]]))
    z, con = connected_rest(foot, h)
    assert z == pytest.approx([3.0, 53.0]) and con.all()


@pytest.mark.parametrize("seed", range(4))
def test_connected_samples_are_the_centres_component_of_the_linked_graph(seed):
    # a reference apart from the breadth-first search: scipy's connected components of
    # the graph whose edges are the links whose two heights are known and close enough
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(seed)
    off = rng.uniform(-10, 10, (40, 2))
    off[0] = 0.0
    foot = Footing(off)
    h = rng.normal(0.0, 1.5, (25, len(off))).cumsum(axis=1) * rng.uniform(0.2, 1.0, (25, 1))
    h[rng.random(h.shape) < 0.1] = np.nan
    z, con = connected_rest(foot, h)
    for row in range(len(h)):
        have = ~np.isnan(h[row])
        ok = have[foot.i] & have[foot.j] & (np.abs(h[row, foot.i] - h[row, foot.j]) <= foot.allow)
        g = coo_matrix((np.ones(ok.sum()), (foot.i[ok], foot.j[ok])), shape=(len(off),) * 2)
        _, comp = connected_components(g, directed=False)
        if have[foot.centre]:
            want = comp == comp[foot.centre]
        else:
            want = have
        assert (con[row] == want).all()
        assert z[row] == pytest.approx(np.nanmax(np.where(want, h[row], np.nan)))


BIRD = "birdBath_decimated.off"


def bird_scene(x):
    root = real_meshes_dir()
    if root is None or not (root / BIRD).is_file():
        pytest.skip("../shared/real-meshes is absent")
    return make_scene(
        [trooper("t", [x, 400])],
        [{"id": "birdbath", "mesh": str(root / BIRD), "scale": 0.6, "position": [400, 400]}],
    )


@pytest.mark.realmesh
def test_bird_bath_overlap_stands_on_the_ground_and_lof_agrees_with_the_survey():
    scene = bird_scene(495.0)
    t = scene.trooper("t")
    assert t.position == (495.0, 400.0, 0.0)  # not 76.6 mm up on the bird sculpture
    (over,) = [w for w in scene.warnings if "overlaps" in w]
    assert over.startswith("trooper 't' overlaps scenery 'birdbath' by ")
    depth = float(over.split(" by ")[1].split(" mm")[0])
    assert 4.5 <= depth <= 7.0  # the sculpture reaches x ~ 489 mm; the base from 482.5
    # the survey stands a probe of the same size at the same spot on the same ground
    probe = Probe(2, t.diameter, t.height)
    gr = _ground(scene)
    xy = np.array([[495.0, 400.0]])
    rest = _rest_heights(scene, xy, np.zeros(1), probe)
    assert rest[0] == 0.0
    # standable in the survey exactly when lof does not warn that scenery cuts into it
    blocked = bool(_blocked(gr, xy, rest, probe)[0])
    embedded = any("embedded" in w for w in scene.warnings)
    assert blocked == embedded
    # on top of the basin (centre over it) it stands on the basin, as before
    on = bird_scene(440.0).trooper("t")
    assert on.position[2] > 30.0
