"""The interactive viewer's state on an off-screen plotter (viewer.window)."""

from __future__ import annotations

import pytest

pytest.importorskip("pyvista")

from viewer.window import build_viewer

pytestmark = pytest.mark.viewer


def test_interactive_viewer_state(scene):
    state = build_viewer(scene, off_screen=True, size=(320, 240))
    try:
        assert all(a.GetVisibility() for a in state.layers["scenery"])
        state.set_layer("scenery", False)
        assert not any(a.GetVisibility() for a in state.layers["scenery"])
        part = state.pick("a")
        assert part is not None and state.picked == "a"
        names = [a.name for a in part.actors]
        assert names and all(n.startswith("picked:") for n in names)
        assert all(n in state.plotter.renderer.actors for n in names)
        state.set_layer("rays", False)
        assert not any(state.plotter.renderer.actors[n].GetVisibility() for n in names)
        actor = state.plotter.renderer.actors["trooper:t1"]
        assert state.trooper_at(actor) == "t1"
        state.pick(None)
        assert not any(n in state.plotter.renderer.actors for n in names)
        with pytest.raises(ValueError):
            state.set_layer("nope", True)
    finally:
        state.plotter.close()
