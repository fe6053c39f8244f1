"""A table built like a real scan: raised blocks fused into one rough height field.

A scanned table is one mesh: the buildings are vertical steps of the same surface as the
ground, nothing tells a block from the floor, and every vertex carries the scanner's
noise. :func:`fused_scan_table` makes such a table on a regular grid (two triangles per
cell), a gentle waving plus per-vertex noise, with rectangular blocks (any yaw) lifted
into it; :func:`fused_trooper_spots` draws trooper positions uniformly over the whole
table (block tops, wall feet and open ground alike), re-drawing the spots where a base
would straddle a wall (the trooper would stand cut by it). Issue 49: the third Line of
Fire benchmark table (``benchmarks/_scanfused.py``); small versions in the tests.
Everything is vectorised numpy and seeded: the same arguments give the same mesh.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import trimesh

from geom3d.core.errors import InputError

__all__ = ["FusedBlocks", "fused_blocks", "fused_scan_table", "fused_trooper_spots", "grid_mesh"]

#: The benchmark table's side (mm).
FUSED_TABLE_MM = 1200.0
#: Blocks: how many, their plan sides and heights (mm) on the benchmark table.
FUSED_BLOCKS = 30
FUSED_BLOCK_SIDE_MM = (35.0, 125.0)
FUSED_BLOCK_HEIGHT_MM = (30.0, 120.0)
#: Per-vertex scan noise (standard deviation, mm) and the waving's amplitude (mm).
FUSED_NOISE_MM = 0.3
FUSED_WAVE_MM = 1.5
#: Trooper spots keep this far (mm) from the table's edge.
FUSED_EDGE_MM = 40.0
#: A base keeps this many grid cells (plus half a millimetre) clear of every wall, on
#: either side: a wall is a slope across one cell, so a base that close would sit on it.
FUSED_WALL_CELLS = 2.0
#: The spots' random stream (beside the seed). Uniform draws put about one base in 40 on
#: a block top; this stream, the first of 4901-4939 with at least 3 on tops and 3 at a
#: wall's foot for the benchmark's radii, puts 4 of seed 0's 40 on block tops and 3
#: within 10 mm of a wall's foot.
FUSED_SPOT_STREAM = 4933


@dataclass(frozen=True)
class FusedBlocks:
    """The raised blocks of a fused table, in plan.

    Attributes
    ----------
    center : (k, 2) float64, mm
    half : (k, 2) float64, mm
        Half sides along the block's own axes.
    yaw_deg : (k,) float64, degrees
        Counter-clockwise turn of the block's first axis from +x.
    height : (k,) float64, mm
        The lift of the block's top over the ground around it.
    """

    center: np.ndarray
    half: np.ndarray
    yaw_deg: np.ndarray
    height: np.ndarray

    def __len__(self) -> int:
        return len(self.height)

    def signed_distance(self, xy: np.ndarray) -> np.ndarray:
        """(n, k) float64, mm: plan distance from each point to each block's outline,
        negative inside."""
        p = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
        a = np.radians(self.yaw_deg)
        c, s = np.cos(a), np.sin(a)
        dx = p[:, None, 0] - self.center[None, :, 0]
        dy = p[:, None, 1] - self.center[None, :, 1]
        u = np.abs(dx * c + dy * s) - self.half[:, 0]
        v = np.abs(-dx * s + dy * c) - self.half[:, 1]
        out = np.hypot(np.maximum(u, 0.0), np.maximum(v, 0.0))
        return np.where((u <= 0) & (v <= 0), np.maximum(u, v), out)


def fused_blocks(
    seed: int = 0,
    *,
    size_mm: float = FUSED_TABLE_MM,
    n_blocks: int = FUSED_BLOCKS,
    side_mm: tuple[float, float] = FUSED_BLOCK_SIDE_MM,
    height_mm: tuple[float, float] = FUSED_BLOCK_HEIGHT_MM,
) -> FusedBlocks:
    """``n_blocks`` blocks, centres uniform on the table (a block's outline inside it),
    sides and heights uniform in the given ranges, any yaw. Blocks may touch or overlap
    (an L-shaped building): where they do, the higher top wins."""
    rng = np.random.default_rng([seed, 49])
    lo, hi = side_mm
    half = 0.5 * rng.uniform(lo, hi, (n_blocks, 2))
    reach = np.hypot(half[:, 0], half[:, 1])[:, None]
    center = rng.uniform(reach, size_mm - reach, (n_blocks, 2))
    yaw = rng.uniform(0.0, 180.0, n_blocks)
    height = rng.uniform(*height_mm, n_blocks)
    return FusedBlocks(center, half, yaw, height)


def fused_scan_table(
    n_triangles: int = 1_000_000,
    seed: int = 0,
    *,
    size_mm: float = FUSED_TABLE_MM,
    blocks: FusedBlocks | None = None,
    noise_mm: float = FUSED_NOISE_MM,
    wave_mm: float = FUSED_WAVE_MM,
) -> trimesh.Trimesh:
    """The fused table: one height field over ``[0, size] x [0, size]`` of about
    ``n_triangles`` triangles (a 1.7 mm grid for 1M on 1200 mm), the blocks lifted into it.

    A vertex inside a block's outline is raised by the block's height (the highest, where
    blocks overlap), so each wall is a step across one grid cell of the same mesh. Every
    vertex then gets the waving (three low sinusoids, at most ``wave_mm``) and Gaussian
    noise of ``noise_mm``. The mesh is the top of a solid (``solid: auto`` closes it).

    Parameters
    ----------
    n_triangles : int
        About this many (>= 2).
    seed : int
        Same seed, identical mesh (noise and waving; the blocks' own seed too when
        ``blocks`` is None).
    size_mm : float, mm
    blocks : FusedBlocks, optional
        Default: :func:`fused_blocks` ``(seed, size_mm=size_mm)``.
    noise_mm, wave_mm : float, mm

    Returns
    -------
    trimesh.Trimesh
        ``process=False``; ``n x n`` vertices row by row (x fastest), z up, mm.
    """
    if int(n_triangles) < 2:
        raise InputError(f"n_triangles must be >= 2, got {n_triangles!r}")
    if blocks is None:
        blocks = fused_blocks(seed, size_mm=size_mm)
    rng = np.random.default_rng([seed, 4949])
    n = max(2, int(math.sqrt(int(n_triangles) / 2.0)) + 1)
    xs = np.linspace(0.0, size_mm, n)
    gx, gy = np.meshgrid(xs, xs, indexing="xy")
    p = rng.uniform(0.0, 2.0 * math.pi, 3)
    w = size_mm / 1200.0
    wave = (
        0.5 * np.sin(2 * math.pi * gx / (900.0 * w) + p[0]) * np.cos(2 * math.pi * gy / (700.0 * w))
        + 0.3 * np.sin(2 * math.pi * (gx + gy) / (500.0 * w) + p[1])
        + 0.2 * np.sin(2 * math.pi * (gx - gy) / (300.0 * w) + p[2])
    )
    z = wave_mm * wave + rng.normal(0.0, noise_mm, gx.shape)
    lift = np.zeros(gx.shape)
    step = size_mm / (n - 1)
    for k in range(len(blocks)):  # each block only over its bounding square of the grid
        cx, cy = blocks.center[k]
        r = float(np.hypot(*blocks.half[k]))
        i0, j0 = max(0, int((cx - r) / step)), max(0, int((cy - r) / step))
        i1, j1 = min(n, int((cx + r) / step) + 2), min(n, int((cy + r) / step) + 2)
        sub = np.column_stack([gx[j0:j1, i0:i1].ravel(), gy[j0:j1, i0:i1].ravel()])
        one = FusedBlocks(
            blocks.center[k : k + 1], blocks.half[k : k + 1], blocks.yaw_deg[k : k + 1],
            blocks.height[k : k + 1],
        )  # fmt: skip
        inside = (one.signed_distance(sub)[:, 0] <= 0.0).reshape(j1 - j0, i1 - i0)
        patch = lift[j0:j1, i0:i1]
        patch[inside] = np.maximum(patch[inside], blocks.height[k])
    return grid_mesh(gx, gy, z + lift)


def grid_mesh(gx: np.ndarray, gy: np.ndarray, z: np.ndarray) -> trimesh.Trimesh:
    """A height field on a square grid as a mesh, two triangles a cell, faces up.

    Parameters
    ----------
    gx, gy, z : numpy.ndarray
        Shape ``(n, n)``, float64, mm: the grid's x (varying along axis 1), y (along
        axis 0) and heights, as ``numpy.meshgrid(xs, ys, indexing="xy")`` gives them.

    Returns
    -------
    trimesh.Trimesh
        ``n * n`` vertices in row order, ``2 * (n - 1) ** 2`` faces; loaded raw
        (``process=False``).
    """
    n = gx.shape[0]
    v = np.column_stack([gx.ravel(), gy.ravel(), z.ravel()])
    i = np.arange(n - 1)
    a = (i[None, :] + n * i[:, None]).ravel()
    faces = np.vstack(
        [np.column_stack([a, a + 1, a + n + 1]), np.column_stack([a, a + n + 1, a + n])]
    )
    return trimesh.Trimesh(v, faces, process=False)


def fused_trooper_spots(
    blocks: FusedBlocks,
    radii: np.ndarray,
    seed: int = 0,
    *,
    size_mm: float = FUSED_TABLE_MM,
    cell_mm: float = 1.7,
    edge_mm: float = FUSED_EDGE_MM,
    max_draws: int = 100_000,
) -> np.ndarray:
    """Base centres for troopers of base radii ``radii``, one at a time, uniform on the
    table (``edge_mm`` from its edge): a spot is refused and re-drawn (same generator)
    when the base would straddle a wall (within ``FUSED_WALL_CELLS`` cells plus 0.5 mm of
    a block's outline, inside or out) or overlap a base already placed (1 mm apart).
    So some stand on block tops, some at the foot of a wall, most on the rough ground.

    Parameters
    ----------
    blocks : FusedBlocks
    radii : (t,) float64, mm
    seed : int
    size_mm, cell_mm, edge_mm : float, mm
        The table's side, its grid cell, the edge margin.
    max_draws : int
        Give up (``InputError``) after this many draws in all.

    Returns
    -------
    (t, 2) float64, mm
    """
    rng = np.random.default_rng([seed, FUSED_SPOT_STREAM])
    clear = FUSED_WALL_CELLS * cell_mm + 0.5
    out: list[np.ndarray] = []
    draws = 0
    for r in np.asarray(radii, dtype=np.float64):
        while True:
            draws += 1
            if draws > max_draws:
                raise InputError(f"only {len(out)} of {len(radii)} trooper spots fit")
            c = rng.uniform(edge_mm, size_mm - edge_mm, 2)
            if len(blocks) and (np.abs(blocks.signed_distance(c)) < r + clear).any():
                continue
            if any(np.hypot(*(c - s)) < r + q + 1.0 for s, q in zip(out, radii, strict=False)):
                continue
            out.append(c)
            break
    return np.array(out, dtype=np.float64).reshape(-1, 2)
