"""Line of Fire's sample predicate in one compiled pass (:class:`.cast.ClearToTarget`).

Where the ray engine lends its scene to compiled code
(:meth:`geom3d.raycast.RayBackend.compiled_scene`), each ray is taken from the apparent
view to the target, past the occluding troopers and the blocking proofs, and into Embree
in one ``nogil`` loop, with the same steps and the same float arithmetic as the
numpy-level path (:func:`geom3d.bodies.kernels.cast_view_rays`,
:meth:`.proof_trees.PairProof.settled`,
:meth:`geom3d.raycast.RayBackend.occluded_segments`): so the same answers. Also the
occluding troopers' culling per pair (:func:`cull_kernel`) and the eye points wholly
hidden behind one of them (:func:`hidden_kernel`).
"""

from __future__ import annotations

import math

import numpy as np

from geom3d.bodies.kernel_constants import PROOF_CLEARANCE_MM
from geom3d.bodies.kernels import STATUS_MISS, STATUS_SCENERY, njit, njit_leaf, view_ray
from geom3d.raycast.compiled import packet_buffer, packet_cast, packet_ray
from geom3d.visibility._convex_kernels import eye_outside, segment_meets
from geom3d.visibility._ground_kernels import horizon, under_ground
from geom3d.visibility._leaf_kernels import eye_leaves, proven_leaves, settled_from
from geom3d.visibility._outline_kernels import (
    OUTLINE_INSET,
    column_cross,
    convex_scratch,
    eye_outlines,
)

__all__ = ["clear_to_target", "cull_kernel", "hidden_kernel"]


@njit(cache=True, nogil=True)
def clear_to_target(
    eyes, u, v, c, eye_idx, s, t, target, occ, scene, trees, solids, ground, flip, counts
):  # fmt: skip
    """Which rays from ``eyes[eye_idx]`` through ``(s, t)`` reach the target clear.

    Parameters
    ----------
    eyes, u, v, c, eye_idx, s, t, target, occ
        As :func:`geom3d.bodies.kernels.cast_view_rays`.
    scene : tuple
        A :class:`geom3d.raycast.CompiledScene` (from
        :meth:`geom3d.raycast.RayBackend.compiled_scene`) as a plain tuple (see
        :class:`._leaf_kernels.ProofTrees`). The segments left for Embree are cast in
        packets of its ``width`` (consecutive rays: from one eye, to neighbouring
        samples), with the single rays' answers.
    trees : tuple
        The pair's proof trees (:attr:`.proof_trees.PairProof.packed`), a
        :class:`._leaf_kernels.ProofTrees` as a plain tuple; no node: nothing is
        settled.
    solids : tuple
        ``(planes, off, inner, inner_off)``: the closed convex pieces that may block
        these segments (:attr:`.convex.ConvexSolids.packed`); a segment through one is
        settled before the proofs and Embree.
    ground : tuple
        ``(frame, hull)``: the ground profile of these eyes' corridor to the target
        (:attr:`.ground.GroundProfile.packed`); a ray below an eye's horizon is settled
        before its view, unseen (:mod:`._ground_kernels`). An empty hull settles none.
    flip : bool
        The eyes are the proof's second trooper's.
    counts : (3,) int64
        Incremented: rays reaching the target, segments cast, segments settled by proof
        or a convex piece (:func:`clear_on_grid` takes 6: the sixth counts the lattice
        samples settled inside a piece's outline).

    Returns
    -------
    clear : (k,) bool
    points : (k, 3) float64, mm
        First point of the target on each ray (undefined on a miss).
    """
    k_n = eye_idx.shape[0]
    points = np.empty((k_n, 3))
    clear = np.zeros(k_n, np.bool_)
    packet = packet_buffer()
    _, split, _, _, proven, _, _ = trees  # ProofTrees, by position
    leaves = np.empty(split.shape[0], np.int64)
    cand = np.empty(split.shape[0], np.int64)
    n_cand = np.int64(proven_leaves(split, proven, cand))  # one type in both callers
    scratch = convex_scratch(solids)
    # no lattice: a grid of run-time zeros, typed as clear_on_grid's
    none = k_n * 0
    _clear_loop(
        eyes, u, v, c, eye_idx, s, t, (none, none, none, none, 0.0), target, occ, scene,
        trees, cand, n_cand, solids, scratch, ground, flip, counts, clear, points, packet,
        leaves,
    )  # fmt: skip
    return clear, points


@njit(cache=True, nogil=True)
def clear_on_grid(
    eyes, u, v, c, ks0, nks, kt0, nkt, step, target, occ, scene, trees, solids, ground, flip,
    counts,
):  # fmt: skip
    """:func:`clear_to_target` of the rays of a coarse lattice: from every eye, through
    ``((ks0 + i) step, (kt0 + j) step)`` for ``i < nks``, ``j < nkt``, ordered eye, then
    ``i``, then ``j`` (:func:`._search_kernels.coarse_grid`'s rays, the same floats).
    The lattice is not made, nor are the points on the target kept: most of a search's
    rays are these, and their answer is all it reads.

    Returns
    -------
    clear : (eyes * nks * nkt,) bool
    """
    k_n = eyes.shape[0] * nks * nkt
    clear = np.zeros(k_n, np.bool_)
    packet = packet_buffer()
    _, split, _, _, proven, _, _ = trees  # ProofTrees, by position
    leaves = np.empty(split.shape[0], np.int64)
    cand = np.empty(split.shape[0], np.int64)
    n_cand = np.int64(proven_leaves(split, proven, cand))  # one type in both callers
    scratch = convex_scratch(solids)
    no_idx = np.empty(0, np.int64)
    no_st = np.empty(0)
    _clear_loop(
        eyes, u, v, c, no_idx, no_st, no_st, (ks0, nks, kt0, nkt, step), target, occ, scene,
        trees, cand, n_cand, solids, scratch, ground, flip, counts, clear, np.empty((0, 3)),
        packet, leaves,
    )  # fmt: skip
    return clear


@njit_leaf
def _clear_loop(
    eyes, u, v, c, eye_idx, s, t, grid, target, occ, scene, trees, cand, n_cand, solids, scratch,
    ground, flip, counts, clear, points, packet, leaves,
):  # fmt: skip
    """The ray loop of :func:`clear_to_target` and :func:`clear_on_grid`, into their
    ``clear`` and ``points``, with the packet and leaf buffers given: it allocates nothing,
    so it is compiled without reference counting, and the per-ray helpers it calls (leaves
    too) cost no atomic updates. ``cand[:n_cand]``: the proven leaves
    (:func:`._leaf_kernels.proven_leaves`), which each eye's lookup goes through instead
    of every node. ``grid``: ``(ks0, nks, kt0, nkt, step)`` of a lattice whose rays
    these are (``eye_idx``, ``s``, ``t`` and ``points`` unused), or ``nks`` 0: the rays
    of ``eye_idx``, ``s``, ``t``. ``scratch``: :func:`._outline_kernels.convex_scratch`
    of ``solids``.

    The convex pieces an eye is clear of settle first the segments that meet one of
    them; on a lattice, before that, the samples inside a piece's apparent outline from
    the eye (:func:`._outline_kernels.silhouette`), column by column, without their ray:
    the outline's points are nearer the eye than any point of the target. Before all
    that, a ray whose slope along the ground profile's frame is below its eye's horizon
    is settled (:func:`._ground_kernels.horizon`): it passes under the ground before it
    can reach the target, so neither its view nor its segment is needed."""
    ks0, nks, kt0, nkt, step = grid
    f, fu, valid, lane = packet
    address, offset, width, ray_eps = scene  # CompiledScene, by position
    nodes, _, _, _, _, frames, tree_of = trees  # ProofTrees, by position
    planes, off, inner, inner_off = solids  # ConvexSolids.packed
    usable, hulls, pts, hull_n, span, hull_s, sides = scratch
    g_frame, g_hull = ground  # GroundProfile.packed
    g_on = g_hull.shape[0] > 0
    g_eye = -1
    g_slope = -np.inf  # the horizon of eye g_eye
    clearance = PROOF_CLEARANCE_MM
    n_use = 0
    n_out = 0  # outlines of the grid's current eye
    out_eye = -1
    on_grid = nks > 0
    box = (ks0 * step, (ks0 + nks - 1) * step, kt0 * step, (kt0 + nkt - 1) * step)
    k_n = eyes.shape[0] * nks * nkt if on_grid else eye_idx.shape[0]
    m = 0
    n_leaves = 0
    at_eye = -1
    e = ga = gb = 0  # the grid's next ray: eye e, lattice point (ga, gb)
    k = -1
    while k + 1 < k_n:
        k += 1
        if on_grid:  # coarse_grid's order and floats
            i = e
            sk = (ks0 + ga) * step
            tk = (kt0 + gb) * step
            if i != out_eye:  # the pieces' outlines from this eye
                out_eye = i
                n_out = eye_outlines(
                    eyes[i], u[i], v[i], c, target, box, planes, off, inner, inner_off,
                    clearance, pts, hulls, hull_n, hull_s, sides,
                )  # fmt: skip
            if n_out and gb == 0:  # a new column: where it crosses each outline
                for q in range(n_out):
                    if hull_s[q, 0] + OUTLINE_INSET < sk < hull_s[q, 1] - OUTLINE_INSET:
                        span[q, 0], span[q, 1] = column_cross(
                            hulls[q], hull_n[q], sk, OUTLINE_INSET
                        )
                    else:
                        span[q, 0], span[q, 1] = 1.0, 0.0
            inside = False
            for q in range(n_out):
                if span[q, 0] < tk < span[q, 1]:
                    inside = True
                    # the column's samples above this one that are below the outline's
                    # top are inside it too (t grows along the column): passed over at
                    # once (never past the column's end: no new eye or column is missed)
                    row = kt0 + gb
                    last = kt0 + nkt - 1
                    while row < last and (row + 1) * step < span[q, 1]:
                        row += 1
                    counts[5] += 1 + row - kt0 - gb
                    k += row - kt0 - gb
                    e, ga, gb = _next_sample(e, ga, row - kt0, nks, nkt)
                    break
            if inside:
                continue
            e, ga, gb = _next_sample(e, ga, gb, nks, nkt)
        else:
            i = eye_idx[k]
            sk, tk = s[k], t[k]
        if g_on:
            if i != g_eye:
                g_eye = i
                g_slope = horizon(g_frame, g_hull, eyes[i, 0], eyes[i, 1], eyes[i, 2])
            if under_ground(eyes, u, v, c, i, sk, tk, g_frame, g_slope):
                counts[2] += 1
                continue
        st, qx, qy, qz = view_ray(eyes, u, v, c, i, sk, tk, target, occ)
        if st == STATUS_MISS:
            continue
        if not on_grid:
            points[k, 0], points[k, 1], points[k, 2] = qx, qy, qz
        counts[0] += 1
        if st != STATUS_SCENERY:
            continue
        ex, ey, ez = eyes[i, 0], eyes[i, 1], eyes[i, 2]
        if i != at_eye:  # the eye's proven leaves and pieces, once per run of rays from one eye
            n_leaves = eye_leaves(nodes, cand, n_cand, frames, tree_of, flip, ex, ey, ez, leaves)
            n_use = 0
            for q in range(off.shape[0] - 1):
                if eye_outside(planes, off[q], off[q + 1], ex, ey, ez, clearance):
                    usable[n_use] = q
                    n_use += 1
            at_eye = i
        through = False
        for q in range(n_use):
            j = usable[q]
            if segment_meets(
                planes, off[j], off[j + 1], ex, ey, ez, qx - ex, qy - ey, qz - ez, clearance
            ):
                through = True
                break
        if through:
            counts[2] += 1
            continue
        if n_leaves and settled_from(nodes, frames, tree_of, flip, leaves, n_leaves, qx, qy, qz):
            counts[2] += 1
            continue
        counts[1] += 1
        if not packet_ray(f, fu, m, width, ex, ey, ez, qx, qy, qz, offset, ray_eps):
            clear[k] = True  # too short to meet anything
            continue
        lane[m] = k
        m += 1
        if m == width:
            m = _cast(address, f, valid, lane, m, width, clear)
    if m:
        _cast(address, f, valid, lane, m, width, clear)


@njit_leaf(forceinline=True)
def _next_sample(e, ga, gb, nks, nkt):
    """The lattice sample after eye ``e``'s ``(ga, gb)``: up the column, then the next
    column, then the next eye."""
    gb += 1
    if gb == nkt:
        gb = 0
        ga += 1
        if ga == nks:
            ga = 0
            e += 1
    return e, ga, gb


@njit_leaf(forceinline=True)
def _cast(scene, f, valid, lane, m, width, clear):
    """Cast the packet's ``m`` rays; a ray that meets nothing reaches its sample. Returns
    0 (the packet is empty again)."""
    packet_cast(scene, f, valid, m, width)
    for j in range(m):
        clear[lane[j]] = not f[8 * width + j] < 0.0
    return 0


@njit(cache=True, nogil=True)
def cull_kernel(rows, ax, ay, az, a_top, ar, bx, by, bz, b_top, br):
    """:func:`.cast.cull_rows` for cylinders ``a`` (base, top z, radius) and ``b``: which
    ``rows`` (``(M, 5)``, :func:`.cast.cylinder_array`) can meet a segment between them.

    Returns
    -------
    (M,) bool
    """
    lo_x, hi_x = min(ax - ar, bx - br), max(ax + ar, bx + br)
    lo_y, hi_y = min(ay - ar, by - br), max(ay + ar, by + br)
    lo_z, hi_z = min(az, bz), max(a_top, b_top)
    abx, aby = bx - ax, by - ay
    den = max(abx * abx + aby * aby, 1e-300)
    reach = max(ar, br)
    out = np.zeros(rows.shape[0], np.bool_)
    for k in range(rows.shape[0]):
        cx, cy, cz, cr, ch = rows[k, 0], rows[k, 1], rows[k, 2], rows[k, 3], rows[k, 4]
        if not (cx - cr <= hi_x and cx + cr >= lo_x and cy - cr <= hi_y and cy + cr >= lo_y):
            continue
        if not (cz <= hi_z and cz + ch >= lo_z):
            continue
        rx, ry = cx - ax, cy - ay
        f = min(max((rx * abx + ry * aby) / den, 0.0), 1.0)
        out[k] = math.hypot(rx - f * abx, ry - f * aby) <= cr + reach
    return out


@njit(cache=True, nogil=True)
def hidden_kernel(eyes, target, occ, margin, pad):
    """:func:`.cast.hidden_eyes`: which eye points see all of ``target`` (a
    :func:`.cast.cylinder_array` row, its box grown by ``pad``) through the inside of one
    of ``occ``, at least ``margin`` from that cylinder's surface where they cross its
    axial plane.

    Returns
    -------
    (n,) bool
    """
    tx, ty, tz, tr, th = target[0], target[1], target[2], target[3] + pad, target[4]
    z_lo, z_hi = tz - pad, tz + th + pad
    out = np.zeros(eyes.shape[0], np.bool_)
    for i in range(eyes.shape[0]):
        ex, ey, ez = eyes[i, 0], eyes[i, 1], eyes[i, 2]
        for j in range(occ.shape[0]):
            ox, oy, oz, ro, ho = occ[j, 0], occ[j, 1], occ[j, 2], occ[j, 3], occ[j, 4]
            wx, wy = ox - ex, oy - ey
            dist = math.hypot(wx, wy)
            if dist <= ro + margin or ro <= margin:
                continue  # the eye is not clear of the trooper in plan
            wx, wy = wx / dist, wy / dist
            # the target's box in the frame (along w from the axis, lateral)
            along = (tx - ox) * wx + (ty - oy) * wy
            side = -(tx - ox) * wy + (ty - oy) * wx
            if along - tr <= ro + margin:
                continue  # the box is not wholly beyond the trooper
            covered = True
            for corner in range(8):
                a = along + (tr if corner & 1 else -tr)
                lat = side + (tr if corner & 2 else -tr)
                z = z_hi if corner & 4 else z_lo
                f = dist / (dist + a)  # where the segment to the corner crosses the plane
                zc = ez + f * (z - ez)
                if abs(f * lat) > ro - margin or zc < oz + margin or zc > oz + ho - margin:
                    covered = False
                    break
            if covered:
                out[i] = True
                break
    return out
