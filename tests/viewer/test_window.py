"""The interactive viewer's state on an off-screen plotter (viewer.window)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyvista")

from viewer.window import PANEL_MARGIN_PX, build_viewer

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


def _text_boxes(state):
    """Pixel boxes (x0, x1, y0, y1; y up) of the side panel's text actors."""
    pl = state.plotter
    pl.render()
    out = {}
    for name in state._panel_names:
        actor = pl.renderer.actors[name]
        bb = [0.0] * 4
        actor.GetBoundingBox(pl.renderer, bb)  # relative to the actor's anchor
        x, y = actor.GetPosition()
        out[name] = (x + bb[0], x + bb[1], y + bb[2], y + bb[3])
    return out


def test_viewer_shows_attacks_and_the_templates_box_works(scene):
    state = build_viewer(scene, off_screen=True, size=(640, 480))
    try:
        names = [a.name for a in state.drawing.actors]
        # the scenario's attack: its template volume and the affected trooper's ring
        assert any(n.startswith("attack:shot1:template") for n in names)
        templates = state.layers["templates"]
        assert templates and all(a.GetVisibility() for a in templates)
        state.set_layer("templates", False)
        assert not any(a.GetVisibility() for a in templates)
        state.set_layer("templates", True)
        assert all(a.GetVisibility() for a in templates)
        assert any(line.startswith("attack shot1") for line in state.panel_lines)
    finally:
        state.plotter.close()


def test_viewer_scale_bar_is_a_screen_overlay(scene):
    state = build_viewer(scene, off_screen=True, size=(640, 480))
    try:
        pl = state.plotter
        bar = state.scale_bar
        # no 3D scale bar on the table: only the screen bar and its text
        bar_actors = {n for n in pl.renderer.actors if n.startswith("scale-bar:")}
        assert bar_actors == {"scale-bar:screen", "scale-bar:text"}
        assert not any(a.name.startswith("scale-bar:") for a in state.drawing.actors)
        pl.render()
        # true to scale at the focal point: length on screen x mm per pixel
        assert bar.pixels * bar.mm_per_pixel() == pytest.approx(bar.length_mm)
        assert bar.text == f"{bar.length_mm:g} mm"
        points = np.asarray(bar._mesh.points).copy()

        def dark_in_bar(img):
            x0, x1 = points[:, 0].min(), points[:, 0].max()
            y0, y1 = points[:, 1].min(), points[:, 1].max()
            # display y grows upwards, image rows downwards
            rows = slice(480 - int(y1), 480 - int(y0))
            band = img[rows, int(x0) + 1 : int(0.5 * (x0 + x1))].astype(int)
            return (band.max(axis=2) < 40).mean()

        before = dark_in_bar(np.asarray(pl.screenshot(None, return_img=True))[:, :, :3])
        # turning the camera keeps the bar where it is on the screen
        pl.camera.azimuth += 180.0
        pl.camera.elevation += 20.0
        after = dark_in_bar(np.asarray(pl.screenshot(None, return_img=True))[:, :, :3])
        assert before > 0.5 and after > 0.5
        # moving 4 x closer: the bar is redrawn for the new scale (a shorter round length)
        old_mpp, old_len = bar.mm_per_pixel(), bar.length_mm
        pl.camera.Dolly(4.0)
        pl.render()
        assert bar.mm_per_pixel() == pytest.approx(old_mpp / 4.0, rel=1e-6)
        assert bar.pixels * bar.mm_per_pixel() == pytest.approx(bar.length_mm)
        assert bar.length_mm < old_len
    finally:
        pl.close()


def test_viewer_side_panel_fits_and_lists_one_thing_at_a_time(scene):
    w, h = 640, 480
    state = build_viewer(scene, off_screen=True, size=(w, h))
    try:
        boxes = _text_boxes(state)
        assert boxes
        for x0, x1, y0, y1 in boxes.values():
            assert x0 >= PANEL_MARGIN_PX - 1 and x1 <= w - PANEL_MARGIN_PX + 1
            assert y0 >= PANEL_MARGIN_PX - 1 and y1 <= h - PANEL_MARGIN_PX + 1
        assert sum(line.strip() == "has LoF to:" for line in state.panel_lines) == 1
        state.pick("a")
        # the picked trooper's list replaces the matrix list: nothing said twice
        assert not any(line.strip() == "has LoF to:" for line in state.panel_lines)
        assert "from a:" in state.panel_lines
        texts = [
            state.plotter.renderer.actors[n].GetInput()
            for n in state.plotter.renderer.actors
            if n.startswith(("panel:", "notes:"))
        ]
        assert len(texts) == len(set(texts))
        for _x0, x1, y0, _y1 in _text_boxes(state).values():
            assert x1 <= w - PANEL_MARGIN_PX + 1 and y0 >= PANEL_MARGIN_PX - 1
        state.pick(None)
        assert sum(line.strip() == "has LoF to:" for line in state.panel_lines) == 1
    finally:
        state.plotter.close()
