"""Eye points wholly hidden behind one occluding trooper (:func:`hidden_eyes`): skipped
by the search, which must return exactly what it returns without the skip."""

from __future__ import annotations

import numpy as np
import pytest

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernels import STATUS_SCENERY
from geom3d.raycast import RayEngine
from geom3d.visibility import (
    ApparentView,
    VisibilityStats,
    cast_target,
    cylinder_array,
    hidden_eyes,
    lattice,
    pair_patch,
)
from geom3d.visibility import pair as pair_module
from geom3d.visibility.tolerances import HIDDEN_MARGIN_MM

NO_SCENERY = RayEngine(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64))
EYE = np.array([[0.0, 0.0, 20.0]])
TARGET = Cylinder((200.0, 0.0, 0.0), 12.5, 40.0)

# By hand, for the eye at (0, 0, 20) and an occluder's axis at (100, 0): the target's box
# spans 87.5 .. 112.5 mm beyond the axis and +-12.5 mm across. The segment to a near
# corner crosses the axial plane at 100 / 187.5 of its length, 12.5 * 0.5333 = 6.667 mm
# from the axis; every other corner crosses nearer it. Heights cross between
# 20 - 20 * 0.5333 = 9.33 and 30.67 mm.
NEAR_SIDE_MM = 12.5 * 100.0 / 187.5


def _occ(r, z0=0.0, h=100.0, x=100.0):
    return cylinder_array([Cylinder((x, 0.0, z0), r, h)])


def test_an_eye_behind_a_wide_enough_trooper_is_hidden_by_hand():
    assert hidden_eyes(EYE, TARGET, _occ(40.0)).tolist() == [True]
    # the threshold: the section must reach HIDDEN_MARGIN_MM beyond 6.667 mm
    edge = NEAR_SIDE_MM + HIDDEN_MARGIN_MM
    assert hidden_eyes(EYE, TARGET, _occ(edge + 1e-3)).tolist() == [True]
    assert hidden_eyes(EYE, TARGET, _occ(edge - 1e-3)).tolist() == [False]
    # heights: the crossings span 9.33 .. 30.67 mm
    assert hidden_eyes(EYE, TARGET, _occ(40.0, z0=9.0, h=22.0)).tolist() == [True]
    assert hidden_eyes(EYE, TARGET, _occ(40.0, z0=9.5, h=22.0)).tolist() == [False]
    assert hidden_eyes(EYE, TARGET, _occ(40.0, z0=9.0, h=21.5)).tolist() == [False]


def test_no_eye_is_hidden_by_a_trooper_it_touches_or_one_overlapping_the_target():
    assert hidden_eyes(EYE, TARGET, _occ(40.0, x=30.0)).tolist() == [False]  # around the eye
    assert hidden_eyes(EYE, TARGET, _occ(40.0, x=160.0)).tolist() == [False]  # reaches it
    assert hidden_eyes(EYE, TARGET, np.zeros((0, 5))).tolist() == [False]


def _view_reaches(eye, target, occ) -> bool:
    """Does any ray of the fine lattice over the eye's whole apparent view reach the
    target past the occluders? (Every sample of the view, at 0.25 mm.)"""
    view = ApparentView(eye[None, :], target)
    s0, s1, t0, t1 = view.extent()
    a, b = np.meshgrid(lattice(s0, s1, 0.25), lattice(t0, t1, 0.25), indexing="ij")
    s, t = a.ravel() * 0.25, b.ravel() * 0.25
    _, status, *_ = cast_target(view, np.zeros(len(s), np.int64), s, t, occ)
    return bool((status == STATUS_SCENERY).any())  # clear of every occluder


def test_a_hidden_eye_has_no_ray_past_the_occluders():
    """Random eyes, targets and occluders: wherever an eye is called hidden, no sample of
    its view reaches the target (and the test is not vacuous: many are hidden)."""
    rng = np.random.default_rng(5)
    hidden = 0
    for _ in range(400):
        target = Cylinder(
            (float(rng.uniform(150, 260)), float(rng.uniform(-30, 30)), float(rng.uniform(0, 10))),
            float(rng.uniform(5, 25)),
            float(rng.uniform(15, 60)),
        )  # fmt: skip
        occ = cylinder_array(
            [
                Cylinder(
                    (float(rng.uniform(60, 130)), float(rng.uniform(-25, 25)), 0.0),
                    float(rng.uniform(8, 40)),
                    float(rng.uniform(20, 80)),
                )
                for _ in range(2)
            ]
        )
        eye = np.array([rng.uniform(-10, 10), rng.uniform(-10, 10), rng.uniform(1, 50)])
        if hidden_eyes(eye[None, :], target, occ)[0]:
            hidden += 1
            assert not _view_reaches(eye, target, occ)
    assert hidden > 40


@pytest.mark.parametrize("seed", range(6))
def test_pair_answers_are_the_same_with_and_without_skipping_hidden_eyes(seed, monkeypatch):
    """Troopers among other troopers: the pair's witness (eye, patch centre, area) and
    viewer are the same when hidden eyes are searched anyway."""
    rng = np.random.default_rng(seed)
    cyls: list[Cylinder] = []
    for x, y in rng.uniform(0, 400, (12, 2)):
        r = float(rng.choice([12.5, 20.0, 30.0]))
        if all(np.hypot(x - c.base[0], y - c.base[1]) > r + c.radius for c in cyls):
            cyls.append(Cylinder((float(x), float(y), 0.0), r, float(rng.uniform(20, 70))))
    skipped = 0
    for i in range(len(cyls)):
        for j in range(i + 1, len(cyls)):
            occ = [c for k, c in enumerate(cyls) if k not in (i, j)]
            st = VisibilityStats()
            got = pair_patch(cyls[i], cyls[j], NO_SCENERY, occ, stats=st)
            with monkeypatch.context() as m:
                m.setattr(pair_module, "hidden_eyes", lambda e, t, o: np.zeros(len(e), bool))
                want = pair_patch(cyls[i], cyls[j], NO_SCENERY, occ)
            skipped += st.eyes_proved
            assert got[1] == want[1]
            if want[0] is None:
                assert got[0] is None
            else:
                assert got[0] == want[0]
    assert skipped > 0
