"""``exposure --seen-from ID`` (SPEC 13.1): where a trooper can be seen from, checked
against ``lof`` for a trooper with a 360-degree arc standing on sampled spots."""

from __future__ import annotations

import json

import numpy as np
import pytest
from support import box, make_scene, trooper

from geom3d.adjudication.lof import line_of_fire
from geom3d.cli import main
from geom3d.core.errors import UsageError
from geom3d.exposure import run_exposure

WALL = box("wall", [20, 160, 80], [200, 200, 0])


def _scene(extra=()):
    # the target faces away from most of the table (its own arc must not matter), a
    # blocking blue trooper and a wall cast shadows
    ts = [
        trooper("t", [80, 200], side="red", facing_deg=180),
        trooper("b", [140, 320], side="blue"),
        *extra,
    ]
    return make_scene(
        ts, [WALL, box("block", [60, 60, 30], [320, 80, 0])], table={"size": [400, 400]}
    )


def test_seen_from_is_lof_from_a_probe_free_to_face_anywhere():
    res = run_exposure(_scene(), seen_from="t", spacing_mm=25, workers=1)
    doc = res.document
    cells = doc["cells"]
    assert doc["seen_from"] == "t" and doc["observers"] == ["t"] and doc["ignore_arcs"]
    sees = [i for i, c in enumerate(cells) if c["sees"]]
    hidden = [i for i, c in enumerate(cells) if not c["sees"]]
    assert sees and hidden
    assert all(c["sees"] == (c["seen_by"] == ["t"]) for c in cells)
    assert doc["safe_share"] == round(len(hidden) / len(cells), 4)
    # the wall's shadow (east of it, level with the target) is hidden; the target's back
    # (west of it, outside its own front arc) is not
    at = {tuple(c["position"][:2]): c["sees"] for c in cells if c["level"] == 0}
    assert at[(312.5, 212.5)] is False and at[(37.5, 212.5)] is True
    rng = np.random.default_rng(5)
    pick = sorted(
        {
            *rng.choice(sees, 7, replace=False).tolist(),
            *rng.choice(hidden, 7, replace=False).tolist(),
        }
    )
    for i in pick:
        pos = cells[i]["position"]
        for facing in (0.0, 135.0):  # a 360-degree probe: its facing never matters
            scene = _scene([trooper("p", pos, side="green", facing_deg=facing, state=["arc360"])])
            assert line_of_fire(scene, "p", "t").lof == cells[i]["sees"], pos


def test_seen_from_needs_a_trooper_and_excludes_observers(tmp_path, capsys):
    with pytest.raises(UsageError, match="--seen-from: no trooper 'zz'"):
        run_exposure(_scene(), seen_from="zz", spacing_mm=100, workers=1)
    src = tmp_path / "s.json"
    src.write_text(
        json.dumps(
            {
                "format": "geom3d/1",
                "units": "mm",
                "table": {"size": [400, 400]},
                "scenery": [WALL],
                "troopers": [{"id": "t", "side": "red", "position": [80, 200], "facing_deg": 0}],
            }
        )
    )
    out = tmp_path / "o"
    base = ["exposure", str(src), "--spacing", "100", "--out", str(out), "--workers", "1"]
    with pytest.raises(SystemExit) as exc:
        main([*base, "--seen-from", "t", "--observers", "red"])
    assert exc.value.code == 2
    capsys.readouterr()
    assert main([*base, "--seen-from", "t", "--quiet"]) == 0
    text = capsys.readouterr().out
    doc = json.loads((out / "exposure.json").read_text())
    assert doc["seen_from"] == "t"
    assert "where t can be seen from" in text and "t seen from:" in text
    if (out / "exposure.svg").exists():
        assert "where t can be seen from" in (out / "exposure.svg").read_text()
