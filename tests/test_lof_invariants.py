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

coord = st.floats(min_value=0, max_value=300, allow_nan=False).map(lambda v: round(v, 1))


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
    troopers, boxes = sc
    ans = answers(make_scene(troopers, boxes))
    fresh = answers(make_scene(list(reversed(troopers)), boxes))
    for (a, b), (_, vis, _) in ans.items():
        assert vis == ans[(b, a)][1]
        assert vis == fresh[(a, b)][1]


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


@SETTINGS
@given(scenes(), st.integers(5, 60), st.integers(5, 60), st.integers(5, 70), coord, coord)
def test_adding_an_obstacle_never_creates_lof(sc, sx, sy, sz, x, y):
    troopers, boxes = sc
    before = answers(make_scene(troopers, boxes))
    extra = {"id": "extra", "box": {"size": [sx, sy, sz]}, "position": [x, y]}
    after = answers(make_scene(troopers, [*boxes, extra]))
    for pair, (lof_after, vis_after, _) in after.items():
        if vis_after:
            assert before[pair][1], f"{pair} became visible after adding a box"
        if lof_after:
            assert before[pair][0]
