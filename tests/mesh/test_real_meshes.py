"""Load every real third-party mesh in ../shared/real-meshes and check its defects.

The expected numbers live in tests/mesh/data/real_meshes.json, next to the numbers SOURCES.md
gives (trimesh with vertex merging, degenerate triangles kept); the JSON's "note" field
explains each file where the two differ. The directory is found at
``<repo>/../shared/real-meshes`` or through ``$GEOM3D_REAL_MESHES``; without it every
test here is skipped.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from support import real_meshes_dir

from geom3d.core.units import LENGTH_UNITS
from geom3d.mesh import MESH_FORMATS, clear_memory_cache, load_mesh, mesh_topology

pytestmark = pytest.mark.realmesh

EXPECTED = json.loads(
    (Path(__file__).parent / "data" / "real_meshes.json").read_text(encoding="utf-8")
)["files"]


@pytest.fixture(scope="module")
def real_dir() -> Path:
    folder = real_meshes_dir()
    if folder is None:
        pytest.skip("real meshes not available (../shared/real-meshes or $GEOM3D_REAL_MESHES)")
    return folder


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("real-mesh-cache")


def _file(real_dir: Path, name: str) -> Path:
    path = real_dir / name
    if not path.is_file():
        pytest.skip(f"{name} is not in {real_dir}")
    return path


def test_every_mesh_file_has_expectations(real_dir):
    present = {p.name for p in real_dir.iterdir() if p.suffix.lower() in MESH_FORMATS}
    assert present == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_mesh(real_dir, cache_dir, name):
    exp = EXPECTED[name]
    path = _file(real_dir, name)
    assert hashlib.sha256(path.read_bytes()).hexdigest()[:16] == exp["sha256_16"], (
        f"{name} changed since tests/mesh/data/real_meshes.json was written"
    )
    clear_memory_cache()
    mesh = load_mesh(path, units=exp["units"], cache_dir=cache_dir)
    r = mesh.report
    got = {
        "format": r.format,
        "triangles_raw": r.n_triangles_raw,
        "triangles": r.n_triangles,
        "degenerate_removed": r.n_degenerate_removed,
        "vertices": r.n_vertices,
        "bodies": r.n_bodies,
        "open_edges": r.n_open_edges,
        "nonmanifold_edges": r.n_nonmanifold_edges,
        "watertight": r.watertight,
    }
    assert got == {k: exp[k] for k in got}
    assert mesh.faces.shape == (exp["triangles"], 3)
    assert mesh.vertices.shape == (exp["vertices"], 3)
    extents = mesh.vertices.max(axis=0) - mesh.vertices.min(axis=0)
    np.testing.assert_allclose(extents, exp["extents_mm"], rtol=1e-6, atol=1e-3)

    # the report says what was done and what is wrong
    notes = r.messages()
    if exp["degenerate_removed"]:
        assert any(n.startswith(f"dropped {exp['degenerate_removed']} degenerate") for n in notes)
    if exp["open_edges"]:
        assert f"open surface: {exp['open_edges']} boundary edges" in notes
    if exp["bodies"] > 1:
        assert f"{exp['bodies']} separate bodies" in notes
    assert ("converted glTF Y-up to Z-up" in notes) == (r.format in ("glb", "gltf"))

    # second load in a fresh worker comes from the disk cache, identical
    clear_memory_cache()
    again = load_mesh(path, units=exp["units"], cache_dir=cache_dir)
    assert again.report.cache_hit and not r.cache_hit
    np.testing.assert_array_equal(again.vertices, mesh.vertices)
    np.testing.assert_array_equal(again.faces, mesh.faces)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_cross_check_against_sources_md(name):
    """The expectations agree with SOURCES.md wherever the definitions agree."""
    exp = EXPECTED[name]
    src = exp["sources_md"]
    # SOURCES.md keeps degenerate triangles; geom3d drops them (and says so)
    assert exp["triangles_raw"] == src["triangles"]
    assert exp["triangles"] == src["triangles"] - exp["degenerate_removed"]
    # bounding box in the file's own units, axes as stored (glTF: Y-up)
    own = np.array(exp["extents_mm"]) / LENGTH_UNITS[exp["units"]]
    if exp["format"] in ("glb", "gltf"):
        own = own[[0, 2, 1]]
    np.testing.assert_allclose(own, src["extents_own_units"], atol=0.051)
    if "note" not in exp:
        for key in ("bodies", "open_edges", "nonmanifold_edges", "watertight"):
            assert exp[key] == src[key], key


def test_birdbath_sources_numbers_include_the_degenerate_triangles(real_dir):
    """SOURCES.md's 3333 / 7 for birdBath count the 7 zero-area triangles as well."""
    import trimesh

    name = "birdBath_decimated.off"
    raw = trimesh.load(_file(real_dir, name), process=False, force="mesh")
    src = EXPECTED[name]["sources_md"]
    topo = mesh_topology(np.asarray(raw.vertices), np.asarray(raw.faces))
    assert (topo.n_bodies, topo.n_open_edges, topo.n_nonmanifold_edges) == (
        src["bodies"],
        src["open_edges"],
        src["nonmanifold_edges"],
    )
