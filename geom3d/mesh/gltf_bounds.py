"""Bounds on what a glTF/GLB document expands to, checked before the parser allocates it.

A small glTF file can describe a huge mesh: one mesh instanced by a million nodes, a node
tree whose every node lists the same child many times (each level multiplies), an
``EXT_mesh_gpu_instancing`` node with millions of instances, or a *sparse* accessor whose
``count`` is a billion with no data behind it (the parser allocates ``count`` elements of
zeros first). :func:`check_gltf_bounds` reads only the JSON document and refuses, with
one line, any accessor of more than ``MAX_MESH_ELEMENTS`` elements and any scene that
expands to more than ``MAX_MESH_TRIANGLES`` triangles (instances counted the way a
scene-graph walk reaches them: nodes x children x instances).
"""

from __future__ import annotations

from geom3d.core.errors import MeshError
from geom3d.mesh.limits import MAX_MESH_ELEMENTS, MAX_MESH_TRIANGLES

__all__ = ["check_gltf_bounds"]

_TRIANGLES, _STRIP, _FAN = 4, 5, 6


def _int(v, default: int = 0) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else default


def _list(v) -> list:
    return v if isinstance(v, list) else []


def _accessor_counts(doc: dict, file: str) -> list[int]:
    counts = []
    for i, acc in enumerate(_list(doc.get("accessors"))):
        n = _int(acc.get("count")) if isinstance(acc, dict) else 0
        if n > MAX_MESH_ELEMENTS:
            sparse = " (sparse)" if isinstance(acc, dict) and "sparse" in acc else ""
            raise MeshError(
                f"accessors[{i}]{sparse}: count {n:,} is more than the "
                f"{MAX_MESH_ELEMENTS:,} elements an accessor may have",
                file=file,
            )
        counts.append(n)
    return counts


def _mesh_triangles(doc: dict, counts: list[int]) -> list[int]:
    """Triangles each mesh draws (all its primitives), from accessor counts alone."""

    def count(k) -> int:
        return counts[k] if isinstance(k, int) and 0 <= k < len(counts) else 0

    out = []
    for mesh in _list(doc.get("meshes")):
        total = 0
        for prim in _list(mesh.get("primitives") if isinstance(mesh, dict) else None):
            if not isinstance(prim, dict):
                continue
            attrs = prim.get("attributes")
            pos = attrs.get("POSITION") if isinstance(attrs, dict) else None
            n = count(prim["indices"]) if "indices" in prim else count(pos)
            mode = _int(prim.get("mode"), _TRIANGLES)
            if mode == _TRIANGLES:
                total += n // 3
            elif mode in (_STRIP, _FAN):
                total += max(0, n - 2)
        out.append(total)
    return out


def _instances(node: dict, counts: list[int]) -> int:
    """Copies ``EXT_mesh_gpu_instancing`` draws of a node (1 without it)."""
    ext = node.get("extensions")
    inst = ext.get("EXT_mesh_gpu_instancing") if isinstance(ext, dict) else None
    attrs = inst.get("attributes") if isinstance(inst, dict) else None
    if not isinstance(attrs, dict):
        return 1
    n = [counts[k] for k in attrs.values() if isinstance(k, int) and 0 <= k < len(counts)]
    return max(n, default=1)


def check_gltf_bounds(doc, file: str) -> int:
    """Refuse a glTF document that expands past the limits (see the module docstring).

    Parameters
    ----------
    doc : object
        The parsed glTF JSON (anything else: nothing to check, the parser reports it).
    file : str
        For messages.

    Returns
    -------
    int
        Triangles the largest scene expands to (every node reached, with multiplicity).

    Raises
    ------
    MeshError
        An accessor over ``MAX_MESH_ELEMENTS``, a node cycle, or a scene over
        ``MAX_MESH_TRIANGLES`` triangles.
    """
    if not isinstance(doc, dict):
        return 0
    counts = _accessor_counts(doc, file)
    tris = _mesh_triangles(doc, counts)
    nodes = _list(doc.get("nodes"))
    cap = MAX_MESH_TRIANGLES + 1  # counts saturate just past the limit
    memo: dict[int, int] = {}

    def node_at(k: int) -> dict:
        return nodes[k] if isinstance(nodes[k], dict) else {}

    def children(k: int) -> list[int]:
        kids = _list(node_at(k).get("children"))
        return [c for c in kids if isinstance(c, int) and 0 <= c < len(nodes)]

    def expand(root: int) -> int:
        """Triangles under node ``root`` (its subtree, instancing included): an
        iterative walk (a chain of 100,000 nodes is no recursion), cycles refused."""
        stack, active = [(root, False)], set()
        while stack:
            k, done = stack.pop()
            if k in memo:
                continue
            if done:
                node = node_at(k)
                m = node.get("mesh")
                total = tris[m] if isinstance(m, int) and 0 <= m < len(tris) else 0
                for c in children(k):
                    total = min(total + memo[c], cap)
                memo[k] = min(total * _instances(node, counts), cap)
                active.discard(k)
                continue
            if k in active:
                raise MeshError(f"nodes[{k}]: the node hierarchy has a cycle", file=file)
            active.add(k)
            stack.append((k, True))
            for c in children(k):
                if c in active:
                    raise MeshError(f"nodes[{c}]: the node hierarchy has a cycle", file=file)
                if c not in memo:
                    stack.append((c, False))
        return memo[root]

    scenes = [s for s in _list(doc.get("scenes")) if isinstance(s, dict)]
    roots = [_list(s.get("nodes")) for s in scenes] or [list(range(len(nodes)))]
    worst = 0
    for r in roots:
        total = 0
        for k in r:
            if isinstance(k, int) and 0 <= k < len(nodes):
                total = min(total + expand(k), cap)
        worst = max(worst, total)
    if worst > MAX_MESH_TRIANGLES:
        raise MeshError(
            f"the glTF scene expands to more than {MAX_MESH_TRIANGLES:,} triangles "
            "(meshes x node instances), more than a mesh may have",
            file=file,
        )
    return worst
