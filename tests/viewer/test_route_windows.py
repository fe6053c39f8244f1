"""The route-window layer: exposed stretches drawn on the mover's route, per enemy."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyvista")

from support import make_scene, trooper

from viewer.layers.route_windows import WINDOW_COLORS, route_window_actors


def _pair(frm, to, mover, windows):
    return {"from": frm, "to": to, "route": {"mover": mover, "windows": windows}}


def _win(s0, s1, y0, y1):
    return {"from_mm": s0, "to_mm": s1, "from_position": [200, y0, 0], "to_position": [200, y1, 0]}


def test_windows_are_drawn_on_the_route_in_one_colour_per_enemy():
    scene = make_scene(
        [
            trooper("a", [0, 150]),
            trooper("c", [350, 300]),
            trooper("m", [200, 0], side="red", route=[[200, 0], [200, 300]]),
        ],
        table={"size": [400, 400]},
    )
    pairs = [
        _pair("a", "m", "m", [_win(0, 45, 0, 45), _win(215, 300, 215, 300)]),
        _pair("m", "c", "m", [_win(0, 300, 0, 300)]),
        {"from": "a", "to": "c", "lof": True},  # no route: nothing drawn
    ]
    d = route_window_actors(scene, pairs)
    by_name = {a.name: a for a in d.actors}
    assert set(by_name) == {"route-window:m:a", "route-window:m:c"}
    assert by_name["route-window:m:a"].color == WINDOW_COLORS[0]
    assert by_name["route-window:m:c"].color == WINDOW_COLORS[1]
    pts = np.asarray(by_name["route-window:m:a"].mesh.points)
    # a's stretches lie on the route (x = 200), inside the two windows, none in the shadow
    assert np.allclose(pts[:, 0], 200.0, atol=2.1)
    assert not np.any((pts[:, 1] > 47.1) & (pts[:, 1] < 212.9))
    # c's colour is shifted sideways, so it does not hide a's
    pc = np.asarray(by_name["route-window:m:c"].mesh.points)
    assert np.mean(pc[:, 0]) == pytest.approx(197.5, abs=0.2)
    assert [e.label for e in d.legend] == ["route with LoF to/from a", "route with LoF to/from c"]
