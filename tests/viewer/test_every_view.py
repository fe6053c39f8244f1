"""Every view with ``--lof``, ``--attack`` and both (issue 34: ``eye:A:B`` with ``--lof``
crashed with ``KeyError: 'eye'``).

The scene is the viewer tests' table (``conftest.py``): attacker ``a`` fires ``shot1`` at
``t1``; ``a`` sees ``t1`` across open ground.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyvista")

from viewer import render as vr

pytestmark = pytest.mark.viewer

VIEWS = ["top", "iso", "from:a", "side", "side:a:t1", "eye:a:t1"]
OPTIONS = {
    "lof": {"lof": "a:t1"},
    "attack": {"attack": "shot1"},
    "both": {"lof": "a:t1", "attack": "shot1"},
}


@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("view", VIEWS)
def test_every_view_renders_with_lof_attack_and_both(scene, view, option, tmp_path):
    res = vr.render(scene, tmp_path / "d.png", view=view, size=(480, 360), **OPTIONS[option])
    assert res.path.stat().st_size > 0
    assert res.image.shape == (360, 480, 3)
    kind = view.split(":")[0]
    assert res.drawing.view == kind
    if kind == "eye":  # the eye camera looks from a's deciding eye at t1
        assert {"eye", "target"} <= set(res.drawing.camera)
        px = res.world_to_pixel(np.asarray(res.drawing.camera["target"]))[0]
        assert 0 <= px[0] < 480 and 0 <= px[1] < 360
    names = res.drawing.names()
    if "lof" in OPTIONS[option]:
        assert any(n.startswith(("witness:a:t1", "blocked:a:t1")) for n in names), names
    if "attack" in OPTIONS[option]:
        assert any(n.startswith("template") for n in names), names
