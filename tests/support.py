"""Test helpers shared by every test package: scenes built in code from plain dicts."""

from __future__ import annotations

import os
from pathlib import Path

from geom3d.api import build_scene
from geom3d.scenario import parse_scenario

REPO = Path(__file__).resolve().parents[1]


def real_meshes_dir() -> Path | None:
    """``../shared/real-meshes`` (or $GEOM3D_REAL_MESHES), None when absent."""
    env = os.environ.get("GEOM3D_REAL_MESHES")
    cand = Path(env) if env else REPO.parent / "shared" / "real-meshes"
    return cand if cand.is_dir() else None


def make_scene(
    troopers,
    scenery=(),
    *,
    units="mm",
    ruleset="infinity",
    base_dir=None,
    prefetch_proofs=False,
    **extra,
):
    """Build a Scene from trooper and scenery dicts (SPEC section 5 keys)."""
    data = {
        "format": "geom3d/1",
        "units": units,
        "ruleset": ruleset,
        "scenery": list(scenery),
        "troopers": list(troopers),
        **extra,
    }
    scenario = parse_scenario(data, file="test.yaml", base_dir=base_dir)
    return build_scene(scenario, prefetch_proofs=prefetch_proofs)


def box(id_, size, position, rotation_deg=0.0, **kw):
    """A box scenery entry: local origin at the centre of its bottom face."""
    return {
        "id": id_,
        "box": {"size": list(size)},
        "position": list(position),
        "rotation_deg": rotation_deg,
        **kw,
    }


def trooper(id_, position, *, side="blue", facing_deg=0.0, silhouette=2, **kw):
    return {
        "id": id_,
        "side": side,
        "position": list(position),
        "facing_deg": facing_deg,
        "silhouette": silhouette,
        **kw,
    }


def spy_prefetch(monkeypatch, module, name):
    """Replace ``module.name`` (a scene builder) by a pass-through that records the
    ``prefetch_proofs`` each call asks for; returns that list."""
    asked = []
    real = getattr(module, name)

    def spy(*args, **kw):
        asked.append(kw.get("prefetch_proofs", False))
        return real(*args, **kw)

    monkeypatch.setattr(module, name, spy)
    return asked


def key_paths(obj, prefix=()):
    """Every key path of a nested dict / list document (the root ``()`` first), for
    fuzzing one field at a time."""
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from key_paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from key_paths(v, (*prefix, i))


def set_path(obj, path, value, delete=False):
    """Set (or with ``delete`` remove) the field at key ``path`` of a nested document."""
    for key in path[:-1]:
        obj = obj[key]
    if delete:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value


def lof_answers(results):
    """What a Line of Fire matrix decides, pair by pair (witness eye and patch centre
    included): for comparing matrices computed two ways."""
    return [
        (
            r.from_id, r.to_id, r.lof, r.in_arc, r.visible, r.reason, r.witness_viewer,
            None if r.witness is None else (r.witness.eye, r.witness.patch_center),
        )
        for r in results
    ]  # fmt: skip


def open_ground_layout(seed):
    """Seven seeded spots around an attacker at the origin (mm, relative), none on it and
    none overlapping: ``(enemies, allies, main)``, five enemies, two allies and the index of
    the enemy nearest the attacker (the Infinity ``auto`` tests' open-ground layout)."""
    import math

    import numpy as np

    rng = np.random.default_rng(100 + seed)
    pts = []
    while len(pts) < 7:
        p = rng.uniform([-110, -110], [130, 130])
        if math.hypot(*p) > 26 and all(math.hypot(*(p - q)) > 25.5 for q in pts):
            pts.append(p)
    enemies, allies = pts[:5], pts[5:]
    return enemies, allies, int(np.argmin([math.hypot(*p) for p in enemies]))


def crowded_scene():
    """Four troopers close together behind a low wall, one prone (labels must dodge each
    other): the figure-layout tests' crowded case."""
    return make_scene(
        [
            trooper("a", [50, 100]),
            trooper("t-main", [250, 100], side="red", facing_deg=180),
            trooper("t-near", [262, 122], side="red", facing_deg=180),
            trooper("t-out", [240, 82], side="red", facing_deg=180),
            trooper("t-prone", [268, 92], side="red", facing_deg=180, state=["prone"]),
        ],
        [box("wall", [10, 120, 30], [150, 100, 0])],
        table={"size": [320, 200]},
    )
