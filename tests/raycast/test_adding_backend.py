"""The steps of docs/architecture.md's "Adding a ray backend", walked in a test: a
``RayBackend`` subclass written here (one triangle at a time, float64, in the scene's own
frame: nothing shared with the two shipped backends), registered with one line in
``BACKENDS``, selected by ``--ray-backend`` and by ``GEOM3D_RAY_BACKEND``, then a whole
``geom3d lof`` on it, compared with Embree's answer."""

from __future__ import annotations

import os

import numpy as np
import pytest

from geom3d.cli import main
from geom3d.core.tolerances import RAY_EPS_MM
from geom3d.raycast import BACKEND_ENV, BACKENDS
from geom3d.raycast.base import RayBackend
from geom3d.scene.scene import clear_scene_cache

SCENARIO = """\
format: geom3d/1
units: mm
ruleset: infinity
table: {size: [600, 600]}
scenery:
  - {id: wall, box: {size: [300, 10, 100]}, position: [300, 300, 0]}
  - {id: low, box: {size: [60, 10, 18]}, position: [120, 300, 0]}
troopers:
  - {id: a, side: blue, position: [300, 200], facing_deg: 90, silhouette: 2}
  - {id: b, side: red, position: [300, 400], facing_deg: 270, silhouette: 5}
  - {id: c, side: red, position: [480, 300], facing_deg: 180, silhouette: 2}
  - {id: d, side: red, position: [120, 340], facing_deg: 270, silhouette: 1}
"""


class TinyEngine(RayBackend):
    """Step 1: a backend constructed as ``TinyEngine(vertices, faces)``."""

    def __init__(self, vertices, faces) -> None:
        self.v = np.asarray(vertices, dtype=np.float64).reshape(-1, 3)
        self.f = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
        self.n_triangles = len(self.f)
        self.rays_cast = 0
        TinyEngine.built += 1

    built = 0

    @property
    def bounds(self) -> np.ndarray:
        if not len(self.v):
            return np.zeros((2, 3))
        return np.array([self.v.min(axis=0), self.v.max(axis=0)])

    def _params(self, origins, ends):
        """Ray parameter (mm from the trimmed start) of the first triangle met, per
        segment, and that triangle: one triangle at a time over all segments."""
        o = np.asarray(origins, dtype=np.float64).reshape(-1, 3)
        d = np.asarray(ends, dtype=np.float64).reshape(-1, 3) - o
        length = np.linalg.norm(d, axis=1)
        ok = length > 2 * RAY_EPS_MM
        unit = d / np.where(ok, length, 1.0)[:, None]
        start = o + unit * RAY_EPS_MM
        tmax = np.where(ok, length - 2 * RAY_EPS_MM, -1.0)
        best = np.full(len(o), np.inf)
        which = np.full(len(o), -1, dtype=np.int64)
        self.rays_cast += int(ok.sum())
        for k, (i, j, m) in enumerate(self.f):
            a, e1, e2 = self.v[i], self.v[j] - self.v[i], self.v[m] - self.v[i]
            n = np.cross(e1, e2)
            den = unit @ n
            with np.errstate(divide="ignore", invalid="ignore"):
                t = ((a - start) @ n) / den
                p = start + unit * t[:, None] - a
                # barycentric coordinates of the plane point
                d00, d01, d11 = e1 @ e1, e1 @ e2, e2 @ e2
                d20, d21 = p @ e1, p @ e2
                det = d00 * d11 - d01 * d01
                bv = (d11 * d20 - d01 * d21) / det
                bw = (d00 * d21 - d01 * d20) / det
            inside = (bv >= 0) & (bw >= 0) & (bv + bw <= 1) & (t >= 0) & (t <= tmax)
            closer = inside & (t < best)
            best[closer], which[closer] = t[closer], k
        return best, which

    def occluded(self, origins, ends) -> np.ndarray:
        return np.isfinite(self._params(origins, ends)[0])

    def first_hit(self, origins, ends):
        t, tri = self._params(origins, ends)
        return t + RAY_EPS_MM, tri


def _lof(capsys, tmp_path, *argv) -> str:
    clear_scene_cache()
    path = tmp_path / "tiny.yaml"
    path.write_text(SCENARIO)
    assert main([*argv, "lof", str(path)]) == 0
    return capsys.readouterr().out


def test_a_backend_added_in_two_steps_answers_a_lof(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv(BACKEND_ENV, raising=False)
    embree = _lof(capsys, tmp_path)
    assert '"lof": true' in embree and '"lof": false' in embree  # both answers occur
    # step 2: one registration line
    monkeypatch.setitem(BACKENDS, "tiny", f"{__name__}:TinyEngine")
    TinyEngine.built = 0
    assert _lof(capsys, tmp_path, "--ray-backend", "tiny") == embree
    assert TinyEngine.built > 0  # the scene's engines were this backend's
    assert BACKEND_ENV not in os.environ  # main's choice ends with the command
    monkeypatch.setenv(BACKEND_ENV, "tiny")
    TinyEngine.built = 0
    assert _lof(capsys, tmp_path) == embree
    assert TinyEngine.built > 0


def test_an_unknown_backend_is_a_usage_error(capsys, tmp_path, monkeypatch):
    path = tmp_path / "tiny.yaml"
    path.write_text(SCENARIO)
    with pytest.raises(SystemExit) as exc:
        main(["--ray-backend", "nope", "lof", str(path)])
    assert exc.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err
    monkeypatch.setenv(BACKEND_ENV, "nope")
    clear_scene_cache()
    assert main(["lof", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "geom3d: error: unknown ray backend 'nope' (known: embree, reference)"
