"""Small glTF files that expand into huge meshes are refused before parsing (issue 33).

The red team's files: 10,000 nodes drawing one 20,000-triangle mesh (200 M triangles
from 0.9 MB) and a sparse accessor of a billion elements were ``MemoryError`` tracebacks;
shared subtrees (a node listed many times as a child: 10^9 paths) and GPU instancing
are counted the same way. Each is now one line, found from the JSON alone. The loads run
in a bounded child (``bounded``): a regression fails the test instead of the machine.
"""

from __future__ import annotations

import json
import struct

import numpy as np
import pytest
from bounded import run_code

from geom3d.core.errors import MeshError
from geom3d.mesh import load_mesh
from geom3d.mesh.gltf_bounds import check_gltf_bounds
from geom3d.mesh.limits import MAX_MESH_ELEMENTS, MAX_MESH_TRIANGLES

V = np.array([[0, 0, 0], [10, 0, 0], [0, 10, 0], [0, 0, 10]], dtype="<f4")
F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], dtype="<u4")  # 4 triangles


def _doc(nodes, roots=(0,), accessors_extra=()) -> dict:
    return {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": list(roots)}],
        "nodes": nodes,
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"byteLength": V.nbytes + F.nbytes}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": V.nbytes},
                        {"buffer": 0, "byteOffset": V.nbytes, "byteLength": F.nbytes}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [0, 0, 0], "max": [10, 10, 10]},
            {"bufferView": 1, "componentType": 5125, "count": 12, "type": "SCALAR"},
            *accessors_extra],
    }  # fmt: skip


def _soup(n_tri: int, nodes: int) -> tuple[dict, bytes]:
    """``nodes`` distinct nodes, each drawing one mesh of ``n_tri`` random triangles
    (non-indexed, seeded): a file of ``36 n_tri`` bytes of data and a short JSON."""
    pts = np.random.default_rng(33).uniform(0, 100, (3 * n_tri, 3)).astype("<f4")
    doc = {
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": list(range(nodes))}],
        "nodes": [{"mesh": 0, "translation": [float(k), 0.0, 0.0]} for k in range(nodes)],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "buffers": [{"byteLength": pts.nbytes}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": pts.nbytes}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3 * n_tri,
                       "type": "VEC3", "min": [0, 0, 0], "max": [100, 100, 100]}],
    }  # fmt: skip
    return doc, pts.tobytes()


def _glb(path, doc, binary: bytes | None = None) -> str:
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    binary = V.tobytes() + F.tobytes() if binary is None else binary
    body = struct.pack("<II", len(text), 0x4E4F534A) + text
    body += struct.pack("<II", len(binary), 0x004E4942) + binary
    path.write_bytes(struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body)
    return str(path)


def _deep_tree():  # node k lists node k+1 ten times; node 9 draws the mesh: 10^9 copies
    return [{"children": [k + 1] * 10} for k in range(9)] + [{"mesh": 0}]


CASES = {
    # the red team's file: 20,000 triangles drawn by 10,000 nodes = 200 M triangles from
    # 0.9 MB (trimesh bakes every node: 4.8 GB of float64 vertices before our checks)
    "nodes x mesh": (_soup(20_000, 10_000), "expands to more than 25,000,000 triangles"),
    # a node listed many times as a child (the glTF spec forbids it) is counted once per
    # path: refused although trimesh would draw it once
    "shared deep tree": (_doc(_deep_tree()), "expands to more than 25,000,000 triangles"),
    # 6,251 roots x 1,000 children x 4 triangles = 25,004,000 (counted per path, as above)
    "shared many times": (
        _doc([{"mesh": 0}, {"children": [0] * 1000}], roots=[1] * 6251),
        "expands to more than 25,000,000 triangles",
    ),
    # 10 M GPU instances of 4 triangles (trimesh ignores the extension and would draw one:
    # counted as drawn, and refused)
    "gpu instancing": (
        _doc(
            [
                {
                    "mesh": 0,
                    "extensions": {"EXT_mesh_gpu_instancing": {"attributes": {"TRANSLATION": 2}}},
                }
            ],
            accessors_extra=[{"componentType": 5126, "count": 10_000_000, "type": "VEC3"}],
        ),
        "expands to more than 25,000,000 triangles",
    ),
    "sparse": (
        _doc(
            [{"mesh": 0}],
            accessors_extra=[
                {
                    "componentType": 5126,
                    "count": 1_000_000_000,
                    "type": "VEC3",
                    "sparse": {
                        "count": 1,
                        "indices": {"bufferView": 1, "componentType": 5125},
                        "values": {"bufferView": 0},
                    },
                }
            ],
        ),
        "accessors[2] (sparse): count 1,000,000,000 is more than the 75,000,000 elements",
    ),
    "cycle": (_doc([{"children": [1]}, {"children": [0], "mesh": 0}]), "has a cycle"),
}


def test_limits_are_what_the_messages_say():
    assert MAX_MESH_TRIANGLES == 25_000_000 and MAX_MESH_ELEMENTS == 75_000_000


@pytest.mark.parametrize("name", sorted(CASES))
def test_exploding_documents_are_refused_from_their_json(tmp_path, name):
    doc, words = CASES[name]
    path = _glb(tmp_path / "bomb.glb", *(doc if isinstance(doc, tuple) else (doc,)))
    code = (
        "from geom3d.mesh import load_mesh\n"
        "from geom3d.core.errors import MeshError\n"
        "try:\n"
        f"    load_mesh({path!r}, use_cache=False)\n"
        "except MeshError as exc:\n"
        "    print(exc)\n"
    )
    proc = run_code(code, tmp_path, memory=3 << 30, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert words in proc.stdout and proc.stdout.count("\n") == 1, proc.stdout


def test_counts_by_hand_and_a_shared_subtree_loads(tmp_path):
    # root 0 -> children [1, 1, 2]; 1 draws the mesh (4 triangles) and has child 2;
    # 2 draws the mesh: 0 -> 2 x (4 + 4) + 4 = 20 triangles
    nodes = [{"children": [1, 1, 2]}, {"mesh": 0, "children": [2]}, {"mesh": 0}]
    assert check_gltf_bounds(_doc(nodes), "x.glb") == 20
    # at the limit exactly is allowed, one past it is not
    doc = _doc([{"mesh": 0}], roots=[0] * (MAX_MESH_TRIANGLES // 4))
    assert check_gltf_bounds(doc, "x.glb") == MAX_MESH_TRIANGLES
    with pytest.raises(MeshError, match="more than 25,000,000"):
        check_gltf_bounds(_doc([{"mesh": 0}], roots=[0] * (MAX_MESH_TRIANGLES // 4 + 1)), "x")
    # a chain of 200,000 nodes is walked without recursion
    chain = [{"children": [k + 1]} for k in range(199_999)] + [{"mesh": 0}]
    assert check_gltf_bounds(_doc(chain), "x.glb") == 4
    # what trimesh then loads agrees with the count: two instances of 4 triangles
    path = _glb(tmp_path / "ok.glb", _doc([{"mesh": 0}, {"mesh": 0}], roots=[0, 1]))
    assert load_mesh(path, use_cache=False).report.n_triangles_raw == 8
