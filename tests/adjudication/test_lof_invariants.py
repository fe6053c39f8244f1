"""Invariants of Line of Fire, checked with hypothesis on random box scenes.

* visibility is symmetric;
* a rigid motion (yaw + translation) of the whole scene changes no answer;
* writing the scene in cm or inches changes no answer;
* adding an obstacle never creates Line of Fire.
"""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import make_scene

SETTINGS = settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def scenes(draw):
    """Three troopers on a 300 x 300 area and one to three boxes between them."""
    troopers = []
    spots = [(20, 20), (280, 40), (150, 280)]
    for i, (x, y) in enumerate(spots):
        troopers.append(
            {
                "id": f"t{i}",
                "side": "blue" if i % 2 else "red",
                "position": [x + draw(st.integers(-10, 10)), y + draw(st.integers(-10, 10))],
                "facing_deg": float(draw(st.integers(0, 359))),
                "silhouette": draw(st.sampled_from([1, 2, 3, 5])),
            }
        )
    boxes = []
    for j in range(draw(st.integers(1, 3))):
        boxes.append(
            {
                "id": f"b{j}",
                "box": {
                    "size": [
                        float(draw(st.integers(5, 150))),
                        float(draw(st.integers(5, 150))),
                        float(draw(st.integers(5, 80))),
                    ]
                },
                "position": [float(draw(st.integers(90, 210))), float(draw(st.integers(90, 210)))],
                "rotation_deg": float(draw(st.integers(0, 89))),
            }
        )
    return troopers, boxes


def answers(scene):
    return {(r.from_id, r.to_id): (r.lof, r.visible, r.in_arc) for r in scene.lof_matrix()}


@SETTINGS
@given(scenes())
def test_visibility_is_symmetric(sc):
    """An uncached one-way search A -> B answers as the search A' -> B' in the scene
    mirrored across the perpendicular bisector of A and B (A' stands where B stood, so
    the second search runs the other way across the table)."""
    import numpy as np

    from geom3d.bodies.cylinder import Cylinder
    from geom3d.raycast import RayEngine
    from geom3d.visibility import find_patch

    troopers, boxes = sc
    scene = make_scene(troopers, boxes)
    engine = scene.engine
    verts = np.asarray(scene.blocking.vertices, dtype=float)
    cyl = {t.id: t.cylinder for t in scene.troopers.values()}
    for a, b in (("t0", "t1"), ("t1", "t2"), ("t2", "t0")):
        pa, pb = cyl[a].base_array[:2], cyl[b].base_array[:2]
        n = (pb - pa) / np.linalg.norm(pb - pa)
        mid = 0.5 * (pa + pb)

        def mirror(p, n=n, mid=mid):
            p = np.array(p, dtype=float)
            p[..., :2] -= 2.0 * ((p[..., :2] - mid) @ n)[..., None] * n
            return p

        def mirror_cyl(c):
            return Cylinder(tuple(mirror(c.base_array)), c.radius, c.height)

        m_engine = RayEngine(mirror(verts), scene.blocking.faces)
        occ = [c for k, c in cyl.items() if k not in (a, b)]
        m_occ = [mirror_cyl(c) for c in occ]
        for v, t in ((a, b), (b, a)):
            w = find_patch(cyl[v], cyl[t], engine, occ)
            m_w = find_patch(mirror_cyl(cyl[v]), mirror_cyl(cyl[t]), m_engine, m_occ)
            assert (w is None) == (m_w is None)


def _move(p, yaw_deg, dx, dy):
    c, s = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    x, y = p[0], p[1]
    return [c * x - s * y + dx, s * x + c * y + dy, *p[2:]]


@SETTINGS
@given(scenes(), st.integers(0, 359), st.integers(-500, 500), st.integers(-500, 500))
def test_rigid_motion_of_the_whole_scene(sc, yaw, dx, dy):
    troopers, boxes = sc
    moved_t = [
        dict(t, position=_move(t["position"], yaw, dx, dy), facing_deg=t["facing_deg"] + yaw)
        for t in troopers
    ]
    moved_b = [
        dict(b, position=_move(b["position"], yaw, dx, dy), rotation_deg=b["rotation_deg"] + yaw)
        for b in boxes
    ]
    assert answers(make_scene(troopers, boxes)) == answers(make_scene(moved_t, moved_b))


@SETTINGS
@given(scenes(), st.sampled_from([("cm", 10.0), ("in", 25.4)]))
def test_unit_change(sc, unit):
    name, k = unit
    troopers, boxes = sc

    def conv(v):
        return [x / k for x in v]

    t2 = [
        dict(t, position=conv(t["position"]), silhouette={"diameter": d / k, "height": h / k})
        for t, (d, h) in zip(troopers, (_sil(t) for t in troopers), strict=True)
    ]
    b2 = [
        dict(b, position=conv(b["position"]), box={"size": conv(b["box"]["size"])}) for b in boxes
    ]
    mm = [
        dict(t, silhouette={"diameter": d, "height": h})
        for t, (d, h) in zip(troopers, (_sil(t) for t in troopers), strict=True)
    ]
    assert answers(make_scene(mm, boxes)) == answers(make_scene(t2, b2, units=name))


def _sil(t):
    table = {1: (25, 25), 2: (25, 40), 3: (40, 32), 5: (40, 45)}
    return table[t["silhouette"]]


def _between(troopers, k: int, f: float) -> list[float]:
    """The point at fraction ``f`` of the way from trooper k to trooper k + 1 (plan)."""
    p, q = troopers[k]["position"], troopers[(k + 1) % len(troopers)]["position"]
    return [p[0] + f * (q[0] - p[0]), p[1] + f * (q[1] - p[1])]


def _assert_no_lof_created(troopers, boxes, extra):
    before = answers(make_scene(troopers, boxes))
    after = answers(make_scene(troopers, [*boxes, extra]))
    assert after.keys() == before.keys()
    for pair, (lof_after, vis_after, arc_after) in after.items():
        lof_before, vis_before, arc_before = before[pair]
        assert vis_after <= vis_before, f"{pair} became visible after adding a box"
        assert lof_after <= lof_before, f"{pair} gained Line of Fire after adding a box"
        assert arc_after == arc_before
    return before, after


@SETTINGS
@given(
    scenes(),
    st.integers(0, 2),
    st.floats(0.35, 0.65),
    st.integers(5, 60),
    st.integers(5, 60),
    st.integers(5, 70),
)
def test_adding_an_obstacle_never_creates_lof(sc, k, f, sx, sy, sz):
    # the box stands on the line between two troopers, so it often blocks them
    troopers, boxes = sc
    extra = {"id": "extra", "box": {"size": [sx, sy, sz]}, "position": _between(troopers, k, f)}
    _assert_no_lof_created(troopers, boxes, extra)


def test_an_obstacle_on_the_line_removes_lof():
    """The check above has teeth: a wall between two troopers that saw each other."""
    troopers = [
        {"id": "a", "side": "red", "position": [20, 100], "facing_deg": 0.0, "silhouette": 2},
        {"id": "b", "side": "blue", "position": [280, 100], "facing_deg": 180.0, "silhouette": 2},
    ]
    wall = {"id": "extra", "box": {"size": [10, 120, 60]}, "position": _between(troopers, 0, 0.5)}
    before, after = _assert_no_lof_created(troopers, [], wall)
    assert before[("a", "b")][:2] == (True, True)
    assert after[("a", "b")][:2] == (False, False)
