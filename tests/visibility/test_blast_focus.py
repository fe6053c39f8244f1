"""Blast Focus Line of Fire (geom3d.placement.blast_focus.blast_focus_lof): hand-computed cases.

Unless said otherwise: a circular template of diameter 200 mm (radius 100, height 100)
centred at the origin on the table top, so its Blast Focus is the segment x = y = 0,
z 0..100; the target is a silhouette-2 cylinder (base 25 mm, height 40 mm).
"""

from __future__ import annotations

import numpy as np
import pytest
from support import box, make_scene, trooper

from geom3d.bodies.cylinder import Cylinder
from geom3d.core.tolerances import EYE_SPACING_MM, STAND_INSET_MM
from geom3d.mesh import box_mesh
from geom3d.placement.blast_focus import FocusStats, blast_focus_lof, focus_eyes
from geom3d.raycast import RayEngine
from geom3d.templates import CircleShape, TeardropShape, TemplateVolume

CIRCLE = TemplateVolume(CircleShape(200.0), (0.0, 0.0, 0.0))
T70 = Cylinder((70.0, 0.0, 0.0), 12.5, 40.0)  # x 57.5..82.5: wholly inside the template


def engine(*boxes):
    """A RayEngine over boxes given as (size, position) with the box_mesh convention."""
    vs, fs, off = [], [], 0
    for size, pos in boxes:
        v, f = box_mesh(size)
        vs.append(v + np.asarray(pos, dtype=float))
        fs.append(f + off)
        off += len(v)
    if not vs:
        return RayEngine(np.zeros((0, 3)), np.zeros((0, 3), dtype=np.int64))
    return RayEngine(np.vstack(vs), np.vstack(fs))


def wall_with_hole(x0, thickness, hole_y, hole_z, size=200.0, height=100.0):
    """Boxes of a wall across x = x0..x0 + thickness (y, z in [-size/2, size/2] x [0,
    height]) with a rectangular hole y in hole_y, z in hole_z."""
    cx = x0 + 0.5 * thickness
    (y0, y1), (z0, z1) = hole_y, hole_z
    half = 0.5 * size
    return [
        ((thickness, y0 + half, height), (cx, 0.5 * (y0 - half), 0.0)),  # south of the hole
        ((thickness, half - y1, height), (cx, 0.5 * (y1 + half), 0.0)),  # north
        ((thickness, y1 - y0, z0), (cx, 0.5 * (y0 + y1), 0.0)),  # below
        ((thickness, y1 - y0, height - z1), (cx, 0.5 * (y0 + y1), z1)),  # above
    ]


def test_eyes_cover_the_focus_segment_top_first():
    eyes = focus_eyes(CIRCLE)
    assert np.allclose(eyes[:, :2], 0.0)
    assert eyes[0, 2] == pytest.approx(100.0)  # the top first
    zs = np.sort(eyes[:, 2])
    assert zs[0] == pytest.approx(STAND_INSET_MM)
    assert np.diff(zs).max() <= EYE_SPACING_MM + 1e-9
    assert len(np.unique(np.round(zs, 9))) == len(zs)


def test_open_ground_affected_by_a_patch():
    r = blast_focus_lof(CIRCLE, T70, engine())
    assert r.affected and r.kind == "patch" and r.reason is None
    # the deciding ray: from the focus segment to a point of the silhouette in the volume
    assert r.eye[0] == pytest.approx(0.0) and r.eye[1] == pytest.approx(0.0)
    assert T70.contains(np.array([r.target]), eps=1e-6)[0]
    assert CIRCLE.contains(np.array([r.target]))[0]


def test_trooper_completely_behind_a_wall_is_in_total_cover():
    # wall x 40..44, y -100..100, z 0..150: taller than the template, wider than the target
    eng = engine(((4.0, 200.0, 150.0), (42.0, 0.0, 0.0)))
    r = blast_focus_lof(CIRCLE, T70, eng)
    assert not r.affected
    assert r.reason == "total_cover"
    assert not r.small


def test_clear_10mm_view_through_a_window_is_affected():
    # a full-height wall at x 40..42 with a 10 x 10 mm window at y -5..5, z 20..30.
    # From the focus eye at z = 25 the window spans 10 mm at x = 40, so about
    # 10 * 57.5 / 40 = 14 mm of the target's face at x = 57.5: a clear 10 x 10 mm view.
    eng = engine(*wall_with_hole(40.0, 2.0, (-5.0, 5.0), (20.0, 30.0)))
    r = blast_focus_lof(CIRCLE, T70, eng)
    assert r.affected and r.kind == "patch"
    assert 40.0 < r.target[0] and abs(r.target[1]) < 10.0 and 15.0 < r.target[2] < 35.0


def test_window_smaller_than_the_apparent_patch_is_total_cover():
    # a 1.5 x 1.5 mm window 40 mm from the focus: from any eye it shows at most
    # 1.5 * 70 / 40 = 2.6 mm of the target's apparent view (plane through its centre,
    # 70 mm away), less than a 3 x 3 mm patch; the inside part itself is large.
    eng = engine(*wall_with_hole(40.0, 2.0, (-0.75, 0.75), (24.25, 25.75)))
    r = blast_focus_lof(CIRCLE, T70, eng)
    assert not r.affected and r.reason == "total_cover" and not r.small


def test_patch_size_is_a_parameter():
    # a 2 x 2 mm hole in a 0.5 mm wall at x 40..40.5, centred at z 25: the target's
    # apparent plane is 70 mm from the focus, so the hole shows 2 * 70 / 40.5 = 3.46 mm
    # to 2 * 70 / 40 = 3.5 mm wide from the focus eye level with it (z 24.88, nearly
    # straight through), and at most 3.5 mm from any eye: a 2 mm patch (found whenever a
    # 3 x 3 mm square shows) is seen, a 4 mm patch never is.
    eng = engine(*wall_with_hole(40.0, 0.5, (-1.0, 1.0), (24.0, 26.0)))
    r = blast_focus_lof(CIRCLE, T70, eng, patch_mm=2.0)
    assert r.affected and r.kind == "patch"
    assert abs(r.target[1]) < 3.0 and 20.0 < r.target[2] < 30.0  # behind the hole
    r = blast_focus_lof(CIRCLE, T70, eng, patch_mm=4.0)
    assert not r.affected and r.reason == "total_cover" and not r.small


def test_scenery_behind_the_target_does_not_matter():
    eng = engine(((4.0, 200.0, 150.0), (90.0, 0.0, 0.0)))  # x 88..92, behind x = 82.5
    assert blast_focus_lof(CIRCLE, T70, eng).affected


def test_focus_inside_the_silhouette():
    # an impact template centred under the target: nothing to cast
    t = Cylinder((0.0, 0.0, 0.0), 12.5, 40.0)
    eng = engine(((4.0, 4.0, 150.0), (5.0, 0.0, 0.0)))  # scenery right next to the focus
    stats = FocusStats()
    r = blast_focus_lof(CIRCLE, t, eng, stats=stats)
    assert r.affected and r.kind == "focus_inside"
    assert stats.rays == 0


def test_small_part_one_clear_ray_suffices():
    # base edge 0.05 mm inside the rim: the lens inside the template is
    # 2 sqrt(2 * 12.5 * 0.05) ~ 2.2 mm wide, smaller than a 3 x 3 mm patch
    t = Cylinder((112.45, 0.0, 0.0), 12.5, 40.0)
    r = blast_focus_lof(CIRCLE, t, engine())
    assert r.affected and r.kind == "small_part" and r.small
    assert CIRCLE.contains(np.array([r.target]))[0]


def test_small_part_behind_a_wall_is_total_cover():
    t = Cylinder((112.45, 0.0, 0.0), 12.5, 40.0)
    eng = engine(((4.0, 200.0, 150.0), (50.0, 0.0, 0.0)))
    r = blast_focus_lof(CIRCLE, t, eng)
    assert not r.affected and r.small and r.reason == "total_cover"


def test_exact_touch_uses_the_witness():
    # the base touches the rim at a single line (distance exactly 100 + 12.5)
    t = Cylinder((112.5, 0.0, 0.0), 12.5, 40.0)
    r = blast_focus_lof(CIRCLE, t, engine())
    assert r.affected and r.kind == "small_part"
    assert r.target[0] == pytest.approx(100.0, abs=1e-6)


def test_part_above_a_low_wall_is_seen_and_a_prone_trooper_is_not():
    # a circle 220 across but only 40 high (an ammunition with its own height); a wall
    # x 50..54, 30 high, right in front of the target. The standing trooper's part above
    # the wall shows to the upper eyes of the Blast Focus.
    tpl = TemplateVolume(CircleShape(220.0, height_override=40.0), (0.0, 0.0, 0.0))
    eng = engine(((4.0, 200.0, 30.0), (52.0, 0.0, 0.0)))
    standing = Cylinder((70.0, 0.0, 0.0), 12.5, 40.0)
    assert blast_focus_lof(tpl, standing, eng).affected
    # prone at x 57.5..82.5, top z = 3: the highest ray (eye z 40 to its far top edge
    # x 82.5, z 3) crosses x = 54 at z = 40 - 37 * 54 / 82.5 = 15.8 < 30: blocked
    prone = Cylinder((70.0, 0.0, 0.0), 12.5, 3.0)
    r = blast_focus_lof(tpl, prone, eng)
    assert not r.affected and r.reason == "total_cover"


def test_teardrop_focus_at_the_narrow_end():
    tpl = TemplateVolume(TeardropShape(200.0, 60.0), (0.0, 0.0, 0.0), 90.0)  # axis +y
    seg = tpl.focus_segment()
    assert np.allclose(seg, [[0, 0, 0], [0, 0, 30]])
    t = Cylinder((0.0, 150.0, 0.0), 12.5, 40.0)
    eng = engine(((200.0, 4.0, 100.0), (0.0, 100.0, 0.0)))  # wall across the axis
    assert blast_focus_lof(tpl, t, engine()).affected
    assert not blast_focus_lof(tpl, t, eng).affected


def test_rays_stay_inside_the_volume():
    """Both ends of the deciding ray lie in the (convex) volume, so the ray does too."""
    tpl = TemplateVolume(TeardropShape(200.0, 60.0), (0.0, 0.0, 10.0), 30.0, -5.0)
    for pos in ((80.0, 50.0, 0.0), (150.0, 80.0, 0.0), (100.0, 30.0, 5.0)):
        t = Cylinder(pos, 12.5, 40.0)
        r = blast_focus_lof(tpl, t, engine())
        assert r.affected
        seg = np.linspace(r.eye, r.target, 50)
        assert tpl.contains(seg, eps=1e-6).all()


def test_in_a_scene_troopers_do_not_block():
    # circle of diameter 200 (radius 100) centred on m at (300, 300): x1 (330, 300) stands
    # between the focus and x2 (360, 300) and blocks nothing; x3 (300, 360) is hidden by a
    # box x 280..320, y 335..337, z 0..80 (x3's base spans y 347.5..372.5)
    troopers = [
        trooper("a", [0, 300], facing_deg=0),
        trooper("m", [300, 300], side="red"),
        trooper("x1", [330, 300], side="red"),
        trooper("x2", [360, 300], side="red"),
        trooper("x3", [300, 360], side="red"),
    ]
    attacks = [
        {"id": "g", "attacker": "a", "template": {"shape": "circle", "diameter": 200},
         "mode": "impact", "main_target": "m", "speculative": True},
    ]  # fmt: skip
    scene = make_scene(troopers, attacks=attacks)
    assert scene.resolve_attack("g").affected == ["m", "x1", "x2", "x3"]
    scene = make_scene(troopers, [box("w", [40, 2, 80], [300, 336])], attacks=attacks)
    res = scene.resolve_attack("g")
    assert res.affected == ["m", "x1", "x2"]
    assert res.excluded == [("x3", "total_cover")]
