"""What a hand-drawn figure shows (issue 34): the seen part of a target in a side view,
a hidden target's ghost outline in the eye view, Blast Focus rays to the troopers an
attack includes as well as those it leaves out, and the Wall of Death in the table."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyvista")

from support import box, make_scene, trooper

from geom3d import load_scene
from geom3d.cli import main
from geom3d.visibility import PatchLattice
from viewer import palette as pal
from viewer.compose import build_drawing

pytestmark = pytest.mark.viewer

REPO = Path(__file__).resolve().parents[2]


def test_side_view_shades_the_heights_the_eye_sees():
    """docs/images/sliver.yaml: from a's top (z 40, x 112.5) over the wall's far edge
    (x 205, z 37) the sight line reaches t's near side (x 287.5) at
    z = 40 - 3 * (287.5 - 112.5) / (205 - 112.5) = 34.32 mm: t is seen from there up to
    its top (40 mm), and nowhere lower (the wall hides the rest)."""
    scene = load_scene(REPO / "docs/images/sliver.yaml")
    d = build_drawing(scene, view="side:a:t")
    seen = d.actor("side-seen:a:t")
    bands = seen.meta["bands_mm"]
    assert len(bands) == 1
    lo, hi = bands[0]
    step = PatchLattice(scene.ruleset.lof_policy.patch_mm).sample_mm  # sample spacing
    expected = 40 - 3 * (287.5 - 112.5) / (205 - 112.5)
    assert lo == pytest.approx(expected, abs=2 * step)
    assert hi == pytest.approx(40.0, abs=1e-6)
    assert any(e.label == "t seen from a's eye" for e in d.legend)


def test_eye_view_draws_a_hidden_targets_outline():
    """A wall 60 mm high between a and b (40 mm tall): a sees nothing of b; the eye view
    still shows where b stands (a dashed outline drawn over the wall) and keeps b's
    label, marked out of sight."""
    scene = make_scene(
        [trooper("a", [50, 100]), trooper("b", [250, 100], side="red", facing_deg=180)],
        [box("wall", [10, 120, 60], [150, 100, 0])],
        table={"size": [300, 200]},
    )
    from viewer import render as vr

    res = vr.render(scene, None, view="eye:a:b", size=(640, 480))
    ghost = res.drawing.actor("eye-ghost:a:b")
    assert ghost.meta["dashed"] and ghost.meta["on_top"]
    pts = np.asarray(ghost.mesh.points)
    # the base and top circles of b (r 12.5 about (250, 100)), from z 0 to 40
    r = np.hypot(pts[:, 0] - 250, pts[:, 1] - 100)
    assert r.max() == pytest.approx(12.5, abs=1e-6)
    assert pts[:, 2].min() == pytest.approx(0.0) and pts[:, 2].max() == pytest.approx(40.0)
    assert "eye-visible:a:b" not in res.drawing.names()  # nothing of b is seen
    texts = [lab.text for lab in res.drawing.labels]
    assert any(t.startswith("b") and t.endswith("(out of sight)") for t in texts)


def test_blast_focus_rays_reach_the_included_troopers():
    """docs/images/impact.yaml: nothing stands between the focus (x 300) and target or
    beside (both affected): every sample ray reaches them, drawn solid in the clear-ray
    colour; behind's rays all stop at the wall (x 314)."""
    scene = load_scene(REPO / "docs/images/impact.yaml")
    d = build_drawing(scene, attack="grenade")
    for tid in ("target", "beside"):
        rays = d.actor(f"focus-rays:{tid}:clear")
        assert rays.color == pal.CLEAR_RAY and not rays.meta.get("dashed")
        with pytest.raises(KeyError):
            d.actor(f"focus-rays:{tid}")  # none stopped
        t = scene.trooper(tid)
        ends = np.asarray(rays.mesh.points)[1::2]  # segment ends: points of the trooper
        assert (np.hypot(ends[:, 0] - t.position[0], ends[:, 1] - t.position[1])
                <= t.radius + 1e-6).all()  # fmt: skip
        assert any(
            n.startswith(f"Blast Focus -> {tid}: 10 of 10 sample rays reach") for n in d.notes
        )
    assert d.actor("focus-rays:behind").meta["dashed"]
    legend = {e.label for e in d.legend}
    assert {
        "Blast Focus ray reaching a trooper (hit)",
        "Blast Focus ray stopped by cover",
    } <= legend


def test_attack_table_and_json_say_d3(capsys, monkeypatch):
    path = str(REPO / "docs/images/wall-of-death.yaml")
    monkeypatch.setattr(sys, "argv", ["geom3d", "attack", path, "--format", "table"])
    assert main() == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "wall-of-death" in line and "resolved" in line)
    assert "D3" in row and "[]" not in row
    doc = load_scene(path).resolve_attack("wall-of-death").to_dict()
    assert (doc["hits"], doc["hits_total"]) == (["D3"], "D3")


@pytest.mark.parametrize("view", ["side:a:t", "eye:a:t"])
def test_zoom_magnifies_about_the_subject(view):
    """--zoom 2 keeps the subject (the centre of the fitted part: in the eye view the
    target's centre) where it was and doubles every length on the page."""
    from viewer import render as vr
    from viewer.projection import view_basis

    scene = load_scene(REPO / "docs/images/sliver.yaml")
    one = vr.render(scene, None, view=view, size=(800, 600))
    two = vr.render(scene, None, view=view, size=(800, 600), zoom=2.0)
    basis = view_basis(one.drawing)
    if basis.perspective:
        centre = np.asarray(one.drawing.camera["target"], dtype=float)
    else:  # the fitted box's centre, in the plane of the section
        cu, cv = basis.fit.mean(axis=0)
        right, up = basis.rows[0, :3], basis.rows[1, :3]
        centre = cu * right + cv * up + 100.0 * basis.forward
    p1, p2 = one.world_to_pixel(centre)[0], two.world_to_pixel(centre)[0]
    assert p2 == pytest.approx(p1, abs=0.5)
    t = np.asarray(scene.trooper("t").position, dtype=float) + [0, 0, 20]
    d1 = np.linalg.norm(one.world_to_pixel(t)[0] - p1)
    d2 = np.linalg.norm(two.world_to_pixel(t)[0] - p2)
    if d1 > 1:
        assert d2 == pytest.approx(2 * d1, rel=1e-3)
