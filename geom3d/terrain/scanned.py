"""Scanned-looking floors and tables: noisy heightfields, subdivision, the synthetic
scanned table (the benchmark table for 50 k to 5 M triangles) and open spots on it.

The floors span the table ``[0, sx] x [0, sy]`` like a scanned table mesh does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import trimesh

from geom3d.core.errors import InputError
from geom3d.core.validation import require_positive
from geom3d.terrain.demo import demo_table_pieces, piece_footprints
from geom3d.terrain.solids import place

__all__ = [
    "TABLE_SIZE_MM",
    "scanned_floor",
    "subdivide",
    "synthetic_scanned_table",
    "synthetic_trooper_spots",
]

#: Infinity table: 1200 x 1200 mm (x, y).
TABLE_SIZE_MM: tuple[float, float] = (1200.0, 1200.0)


def subdivide(mesh: trimesh.Trimesh, levels: int = 1) -> trimesh.Trimesh:
    """Midpoint subdivision: each level splits every triangle into four.

    Edges shared by two faces get one shared midpoint, so a closed surface stays closed.

    Parameters
    ----------
    mesh : trimesh.Trimesh
    levels : int, >= 0

    Returns
    -------
    trimesh.Trimesh
        ``4**levels`` times the faces, ``process=False``; the original vertices come first.
    """
    v = np.asarray(mesh.vertices, dtype=np.float64)
    f = np.asarray(mesh.faces, dtype=np.int64)
    for _ in range(int(levels)):
        nv = len(v)
        e = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
        e.sort(axis=1)
        key = e[:, 0] * nv + e[:, 1]
        uniq, inv = np.unique(key, return_inverse=True)
        a, b = uniq // nv, uniq % nv
        v = np.concatenate([v, 0.5 * (v[a] + v[b])])
        m = (inv.reshape(3, -1) + nv).T  # midpoints of edges 01, 12, 20 per face
        f = np.concatenate(
            [
                np.stack([f[:, 0], m[:, 0], m[:, 2]], axis=1),
                np.stack([m[:, 0], f[:, 1], m[:, 1]], axis=1),
                np.stack([m[:, 2], m[:, 1], f[:, 2]], axis=1),
                m,
            ]
        )
    return trimesh.Trimesh(vertices=v, faces=f, process=False)


def _smooth_field(rng: np.random.Generator, xs: np.ndarray, ys: np.ndarray, terms: int = 6):
    """Separable sum of sinusoids on the grid ``xs x ys``, values in [-1, 1]."""
    out = np.zeros((len(xs), len(ys)))
    amps = rng.uniform(0.5, 1.0, terms)
    for amp in amps:
        kx, ky = rng.uniform(2 * np.pi / 400, 2 * np.pi / 40, 2)
        px, py = rng.uniform(0, 2 * np.pi, 2)
        out += amp * np.outer(np.sin(kx * xs + px), np.sin(ky * ys + py))
    return out / amps.sum()


def scanned_floor(
    size_xy: Sequence[float] = TABLE_SIZE_MM,
    n_triangles: int = 200_000,
    noise_mm: float = 0.3,
    seed: int = 0,
) -> trimesh.Trimesh:
    """Noisy heightfield sheet, like the floor of a photogrammetry scan.

    A regular grid of ``nx x ny`` cells (two triangles each, diagonals flipped at random)
    over ``[0, sx] x [0, sy]``; inner vertices are jittered sideways by up to 15 % of a
    cell, the border stays straight. Heights are a smooth random field plus fine noise,
    ``|z| <= noise_mm`` everywhere.

    Parameters
    ----------
    size_xy : (2,) float, mm
        Extent along x and y; the sheet starts at the origin.
    n_triangles : int
        Requested triangle count; the result is the nearest ``2 nx ny`` (within a few
        per cent, exact for square grids of a square count).
    noise_mm : float, mm
        Largest height deviation from z = 0 (>= 0).
    seed : int
        Seed of :func:`numpy.random.default_rng`; same seed, same mesh.

    Returns
    -------
    trimesh.Trimesh
        Open surface, normals up, ``process=False``; vertices (v, 3) float64 mm.
    """
    sx, sy = (require_positive(v, "size_xy") for v in size_xy)
    n = int(n_triangles)
    if n < 2:
        raise InputError(f"n_triangles must be >= 2, got {n_triangles!r}")
    noise = float(noise_mm)
    if not math.isfinite(noise) or noise < 0:
        raise InputError(f"noise_mm must be >= 0, got {noise_mm!r}")
    rng = np.random.default_rng(seed)
    cells = n / 2
    nx = max(1, round(math.sqrt(cells * sx / sy)))
    ny = max(1, round(cells / nx))
    xs = np.linspace(0.0, sx, nx + 1)
    ys = np.linspace(0.0, sy, ny + 1)

    smooth = _smooth_field(rng, xs, ys)
    fine = rng.uniform(-1.0, 1.0, (nx + 1, ny + 1))
    z = noise * (0.7 * smooth + 0.3 * fine)
    jx = rng.uniform(-0.15, 0.15, (nx + 1, ny + 1)) * (sx / nx)
    jy = rng.uniform(-0.15, 0.15, (nx + 1, ny + 1)) * (sy / ny)
    jx[[0, -1], :] = 0.0
    jy[:, [0, -1]] = 0.0
    gx = xs[:, None] + jx
    gy = ys[None, :] + jy
    verts = np.stack([gx.ravel(), gy.ravel(), z.ravel()], axis=1)

    i, j = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
    v00 = (i * (ny + 1) + j).ravel()
    v10 = v00 + (ny + 1)
    v01 = v00 + 1
    v11 = v10 + 1
    flip = rng.random(v00.shape) < 0.5
    # Counter-clockwise seen from +z: (x, y) grid with x the first index.
    t1 = np.where(flip[:, None], np.stack([v00, v10, v11], 1), np.stack([v00, v10, v01], 1))
    t2 = np.where(flip[:, None], np.stack([v00, v11, v01], 1), np.stack([v10, v11, v01], 1))
    faces = np.concatenate([t1, t2])
    return trimesh.Trimesh(vertices=verts, faces=faces, process=False)


def _warp(v: np.ndarray, rng: np.random.Generator, amplitude: float) -> np.ndarray:
    """Displace points by a smooth random 3D field (wavelengths 30-150 mm), |d| <= amplitude."""
    d = np.zeros_like(v)
    terms = 4
    for axis in range(3):
        amps = rng.uniform(0.5, 1.0, terms)
        for amp in amps:
            k = rng.normal(size=3)
            k *= rng.uniform(2 * np.pi / 150, 2 * np.pi / 30) / np.linalg.norm(k)
            d[:, axis] += amp * np.sin(v @ k + rng.uniform(0, 2 * np.pi))
        d[:, axis] *= amplitude / (amps.sum() * math.sqrt(3))
    return v + d


def synthetic_scanned_table(
    n_triangles: int = 1_000_000, seed: int = 0, *, noise_mm: float = 0.3
) -> trimesh.Trimesh:
    """A whole 1200 x 1200 mm table as one scanned-looking mesh of about ``n_triangles``.

    The demo table's pieces (three containers, two buildings, walls, walkway, barricades,
    boxes; see :func:`demo_table_pieces`) are placed, subdivided ``k`` times (the largest
    ``k`` that keeps them to half the budget) and warped by a smooth field of at most
    0.1 mm; a :func:`scanned_floor` takes the rest of the budget. Pieces stand on the
    floor at z = 0 (the floor's noise pokes through their bottoms, as in a real scan).

    Parameters
    ----------
    n_triangles : int
        Requested total (>= 10 000); the result is within 1 % of it.
    seed : int
        Same seed, identical mesh.
    noise_mm : float, mm
        Floor noise amplitude (see :func:`scanned_floor`).

    Returns
    -------
    trimesh.Trimesh
        ``process=False``; floor first (its faces are the first ``2 nx ny``), then pieces.
        Open spots for troopers: :func:`synthetic_trooper_spots`.
    """
    n = int(n_triangles)
    if n < 10_000:
        raise InputError(f"n_triangles must be >= 10000, got {n_triangles!r}")
    rng = np.random.default_rng(seed)
    parts_v, parts_f, off = [], [], 0
    for _, mesh, pos, rot in demo_table_pieces():
        m = place(mesh, pos, rot)
        parts_v.append(m.vertices)
        parts_f.append(m.faces + off)
        off += len(m.vertices)
    pieces = trimesh.Trimesh(np.concatenate(parts_v), np.concatenate(parts_f), process=False)
    levels = 0
    while len(pieces.faces) * 4 ** (levels + 1) <= n // 2:
        levels += 1
    pieces = subdivide(pieces, levels)
    pv = _warp(np.asarray(pieces.vertices), rng, 0.1)
    floor_seed = int(rng.integers(0, 2**31))
    floor = scanned_floor(TABLE_SIZE_MM, n - len(pieces.faces), noise_mm, floor_seed)
    fv = np.asarray(floor.vertices)
    return trimesh.Trimesh(
        vertices=np.concatenate([fv, pv]),
        faces=np.concatenate([floor.faces, pieces.faces + len(fv)]),
        process=False,
    )


def synthetic_trooper_spots(
    n: int,
    seed: int = 0,
    *,
    clearance: float = 40.0,
    min_separation: float = 70.0,
    margin: float = 40.0,
) -> np.ndarray:
    """Open-ground positions on the synthetic (and demo) table where troopers can stand.

    Points are drawn at random on the table, kept when they are at least ``clearance``
    from every piece's footprint rectangle and ``margin`` from the table edge, and
    accepted greedily when at least ``min_separation`` from every accepted point (so
    bases up to that diameter never overlap).

    Parameters
    ----------
    n : int
        Number of positions.
    seed : int
    clearance, min_separation, margin : float, mm

    Returns
    -------
    (n, 2) float64, mm
        Base-centre (x, y); the floor there is within ``noise_mm`` of z = 0.

    Raises
    ------
    InputError
        Fewer than ``n`` positions fit.
    """
    n = int(n)
    if n < 0:
        raise InputError(f"n must be >= 0, got {n!r}")
    rng = np.random.default_rng(seed)
    sx, sy = TABLE_SIZE_MM
    cand = rng.uniform([margin, margin], [sx - margin, sy - margin], size=(20_000, 2))
    free = np.ones(len(cand), dtype=bool)
    for _, c, rot, half in piece_footprints():
        a = math.radians(rot)
        d = cand - c
        lx = d[:, 0] * math.cos(a) + d[:, 1] * math.sin(a)
        ly = -d[:, 0] * math.sin(a) + d[:, 1] * math.cos(a)
        ex = np.maximum(np.abs(lx) - half[0], 0.0)
        ey = np.maximum(np.abs(ly) - half[1], 0.0)
        free &= np.hypot(ex, ey) >= clearance
    cand = cand[free]
    chosen = np.empty((0, 2))
    for p in cand:
        if len(chosen) == n:
            break
        if len(chosen) == 0 or np.min(np.hypot(*(chosen - p).T)) >= min_separation:
            chosen = np.vstack([chosen, p])
    if len(chosen) < n:
        raise InputError(f"only {len(chosen)} open spots fit on the table, {n} asked for")
    return chosen
