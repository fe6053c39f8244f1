"""Dragging a trooper in the viewer window (viewer.drag), on an off-screen plotter: the
widget's callback is called as VTK calls it when a drag ends."""

from __future__ import annotations

import pytest
import yaml

pytest.importorskip("pyvista")

from geom3d.api import build_scene
from geom3d.core.output import dumps_json
from geom3d.scenario import parse_scenario
from viewer.drag import TrooperDrag
from viewer.window import build_viewer

pytestmark = pytest.mark.viewer


def _fresh_pair(scene, tid, xy, a, b):
    """``a -> b`` from a scene built anew with ``tid`` written at ``xy``."""
    data = yaml.safe_load(scene.scenario.path.read_text())
    for t in data["troopers"]:
        if t["id"] == tid:
            t["position"] = list(xy)
    fresh = build_scene(
        parse_scenario(data, file="fresh.yaml", base_dir=scene.scenario.path.parent)
    )
    return fresh.line_of_fire(a, b).to_dict()


def _pair(state, a, b):
    return next(p for p in state.lof_doc["pairs"] if (p["from"], p["to"]) == (a, b))


def test_drag_moves_a_trooper_and_redraws_its_line_of_fire(scene):
    state = build_viewer(scene, off_screen=True, size=(640, 480))
    try:
        drag = TrooperDrag(state, widgets=False)
        # a (facing +x) and t3 behind the wall (x = 180, y 190 to 310): blocked
        assert _pair(state, "a", "t3")["reason"] == "blocked"
        index = drag.ids.index("t3")
        hx, hy, hz = drag.handle("t3")
        assert (hx, hy) == (260.0, 250.0) and hz > 40.0
        assert drag.on_drag_end((260.0, 100.0, hz), index)  # south, clear of the wall
        t3 = state.scene.troopers["t3"]
        assert t3.position == (260.0, 100.0, 0.0)
        got = _pair(state, "a", "t3")
        assert got["lof"] is True
        assert dumps_json(got) == dumps_json(_fresh_pair(scene, "t3", (260, 100), "a", "t3"))
        # the window shows the moved trooper's Line of Fire and its new silhouette
        assert state.picked == "t3"
        assert any(n.startswith("picked:") for n in state.plotter.renderer.actors)
        mantle = state.plotter.renderer.actors["trooper:t3"]
        assert mantle.GetBounds()[2] == pytest.approx(100.0 - t3.radius, abs=0.5)
        assert state.trooper_at(mantle) == "t3"
        # off the table: refused, the trooper stays, the panel says why
        before = state.scene.troopers["t3"].position
        assert not drag.on_drag_end((900.0, 100.0, hz), index)
        assert state.scene.troopers["t3"].position == before
        assert any("off the table" in line for line in state.panel_lines)
        assert drag.moves == 1
    finally:
        state.plotter.close()


def test_handles_are_sphere_widgets(scene):
    """With widgets, one sphere per trooper above its top; the end of a drag (VTK's
    EndInteractionEvent on the widget) moves the trooper."""
    state = build_viewer(scene, off_screen=True, size=(640, 480))
    try:
        drag = TrooperDrag(state)
        assert len(drag.widgets) == len(drag.ids) == len(scene.troopers)
        w = drag.widgets[drag.ids.index("t2")]
        assert tuple(w.GetCenter()) == pytest.approx(drag.handle("t2"))
        w.SetCenter(300.0, 80.0, w.GetCenter()[2])
        w.InvokeEvent("EndInteractionEvent")
        assert state.scene.troopers["t2"].position[:2] == (300.0, 80.0)
        assert tuple(w.GetCenter())[:2] == pytest.approx((300.0, 80.0))
    finally:
        state.plotter.close()
