"""The interior column map of blocking proofs (geom3d.visibility.interior), hand-computed.

Column ``(i, j)`` of a map (flat index ``i * ny + j``) covers ``[x0 + i g, x0 + (i + 1) g] x
[y0 + j g, y0 + (j + 1) g]``; its interior runs are ``run_lo[k] .. run_hi[k]`` for ``k`` in
``run_off[c] .. run_off[c + 1]``. A run must lie strictly inside a closed solid, so a column
a solid's side face cuts has none, and a column of an open surface never has any.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from support import box, make_scene, trooper

from geom3d.bodies.cylinder import Cylinder
from geom3d.bodies.kernel_constants import PROOF_CLEARANCE_MM
from geom3d.core.tolerances import SURFACE_INSET_MM
from geom3d.mesh.primitives import box_mesh
from geom3d.scene.scenery import closed_solids
from geom3d.visibility import InteriorMap

# columns within this of a solid's face count as cut (the map grows columns by eps)
MARGIN = 1e-3


def placed_box(lo, size, yaw_deg=0.0):
    """A closed box mesh: lower corner ``lo`` (before the yaw about that corner's vertical)."""
    v, f = box_mesh(size)
    v = v + [0.5 * size[0], 0.5 * size[1], 0.0]  # lower corner at the origin
    a = math.radians(yaw_deg)
    rot = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    return v @ rot.T + np.asarray(lo, float), f


def single(v, f, closed=True):
    return InteriorMap(v, f, np.zeros(len(f), np.int64), np.array([closed]))


def columns(im):
    """Per column: its square (x0, x1, y0, y1) and the (lo, hi) of its runs."""
    x0, y0, g, nx, ny, _eps = im.grid
    nx, ny = int(nx), int(ny)
    out = []
    for i in range(nx):
        for j in range(ny):
            c = i * ny + j
            k = slice(im.run_off[c], im.run_off[c + 1])
            runs = list(zip(im.run_lo[k], im.run_hi[k], strict=True))
            sq = (x0 + i * g, x0 + (i + 1) * g, y0 + j * g, y0 + (j + 1) * g)
            out.append((sq, runs))
    assert len(im.run_off) == nx * ny + 1
    return out


def corners(sq):
    x0, x1, y0, y1 = sq
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


def in_rect(pts, lo, size, yaw_deg, margin):
    """Are the points inside the yawed rectangle, at least ``margin`` from its edges?"""
    a = math.radians(yaw_deg)
    rel = pts - np.asarray(lo[:2], float)
    u = rel[:, 0] * math.cos(a) + rel[:, 1] * math.sin(a)
    w = -rel[:, 0] * math.sin(a) + rel[:, 1] * math.cos(a)
    return (u > margin) & (u < size[0] - margin) & (w > margin) & (w < size[1] - margin)


def out_rect(pts, lo, size, yaw_deg, margin):
    """Is the whole square (its corners) on the far side of one edge, by ``margin``?"""
    a = math.radians(yaw_deg)
    rel = pts - np.asarray(lo[:2], float)
    u = rel[:, 0] * math.cos(a) + rel[:, 1] * math.sin(a)
    w = -rel[:, 0] * math.sin(a) + rel[:, 1] * math.cos(a)
    return (
        (u < -margin).all()
        or (u > size[0] + margin).all()
        or (w < -margin).all()
        or (w > size[1] + margin).all()
    )


@pytest.mark.parametrize("yaw", [0.0, 30.0])
def test_closed_box_has_one_run_per_inner_column_between_its_bottom_and_top(yaw):
    lo, size = (3.3, -7.6, 2.0), (20.45, 10.7, 15.0)
    im = single(*placed_box(lo, size, yaw))
    inner = cut = outer = 0
    for sq, runs in columns(im):
        pts = corners(sq)
        if in_rect(pts, lo, size, yaw, MARGIN).all():
            inner += 1
            assert len(runs) == 1, sq
            (rlo, rhi) = runs[0]
            assert rlo == pytest.approx(2.0, abs=1e-5) and rlo > 2.0
            assert rhi == pytest.approx(17.0, abs=1e-5) and rhi < 17.0
        elif out_rect(pts, lo, size, yaw, MARGIN):
            outer += 1
            assert runs == [], sq
        else:  # a side face cuts the column (or touches it)
            cut += 1
            assert runs == [], sq
    assert inner > 100 and cut > 40 and outer > 40
    assert im.n_runs == inner and im.certifies()


def test_box_faces_on_column_lines_do_not_certify_their_columns():
    # the map's grid starts one column before the mesh: the box's low faces lie exactly on
    # column lines, its high faces 0.45 / 0.3 mm inside a column
    lo, size = (3.3, -7.6, 2.0), (20.45, 10.7, 15.0)
    im = single(*placed_box(lo, size))
    x0, y0, g, nx, ny, _ = im.grid
    assert (x0, y0, g) == pytest.approx((2.3, -8.6, 1.0))
    ny = int(ny)
    n_runs = np.diff(im.run_off).reshape(int(nx), ny)
    # columns i = 1 (x in [3.3, 4.3]) touch the low x face; i = 2 .. 20 are inside;
    # i = 21 ([23.3, 24.3]) holds the high x face at 23.75
    assert not n_runs[1].any() and not n_runs[21].any()
    assert (n_runs[2:21, 2:11] == 1).all()
    assert not n_runs[:, 1].any() and not n_runs[:, 11].any()
    assert n_runs.sum() == 19 * 9


def test_open_surface_and_unclosed_label_have_no_runs():
    quad = np.array([[0, 0, 5.0], [30, 0, 5.0], [30, 30, 5.0], [0, 30, 5.0]])
    im = single(quad, np.array([[0, 1, 2], [0, 2, 3]]), closed=False)
    assert im.n_runs == 0 and not im.run_off.any() and not im.certifies()
    v, f = placed_box((0, 0, 0), (20, 20, 20))
    im = single(v, f, closed=False)
    assert im.n_runs == 0 and not im.certifies()
    assert not im.outside(Cylinder((50.0, 10.0, 0.0), 5.0, 10.0))  # nothing certifies
    # the same box marked closed does certify (the flag, not the mesh, made the difference)
    assert single(v, f).n_runs > 0


def test_overlapping_closed_solids_merge_their_runs():
    v1, f1 = placed_box((0, 0, 0), (20.5, 20.5, 10.0))  # z 0 .. 10
    v2, f2 = placed_box((10.25, 0, 5.0), (20.5, 20.5, 15.0))  # x 10.25 .. 30.75, z 5 .. 20
    v = np.concatenate([v1, v2])
    f = np.concatenate([f1, f2 + len(v1)])
    label = np.repeat([0, 1], [len(f1), len(f2)])
    im = InteriorMap(v, f, label, np.array([True, True]))
    seen = {"first": 0, "both": 0, "second": 0}
    for sq, runs in columns(im):
        x0, x1, y0, y1 = sq
        if not (y0 > MARGIN and y1 < 20.5 - MARGIN):
            continue
        if x0 > MARGIN and x1 < 10.25 - MARGIN:
            key, want = "first", (0.0, 10.0)
        elif x0 > 10.25 + MARGIN and x1 < 20.5 - MARGIN:
            key, want = "both", (0.0, 20.0)  # one run across the overlap, not three
        elif x0 > 20.5 + MARGIN and x1 < 30.75 - MARGIN:
            key, want = "second", (5.0, 20.0)
        else:
            continue
        seen[key] += 1
        assert len(runs) == 1, (key, sq, runs)
        assert runs[0] == pytest.approx(want, abs=1e-5), (key, sq)
    assert min(seen.values()) >= 9 * 19


def test_outside_needs_a_clear_eye_region_outside_every_solid():
    v, f = placed_box((0, 0, 0), (40, 40, 30))
    im = single(v, f)
    assert im.outside(Cylinder((60.0, 20.0, 0.0), 12.5, 40.0))  # 7.5 mm clear of the box
    assert im.outside(Cylinder((20.0, 20.0, 30.0), 12.5, 40.0))  # standing on its top
    assert not im.outside(Cylinder((50.0, 20.0, 0.0), 12.5, 40.0))  # overlaps a side
    # the eye region (inset from the mantle) grown by the clearance must not reach the side
    reach = 12.5 - SURFACE_INSET_MM + PROOF_CLEARANCE_MM
    assert not im.outside(Cylinder((40.0 + reach - 0.005, 20.0, 0.0), 12.5, 40.0))
    assert im.outside(Cylinder((40.0 + reach + 0.05, 20.0, 0.0), 12.5, 40.0))
    assert not im.outside(Cylinder((20.0, 20.0, 5.0), 5.0, 10.0))  # wholly inside
    assert not im.outside(Cylinder((20.0, 20.0, 25.0), 5.0, 10.0))  # through the top


def test_scene_box_is_certified_and_its_prover_is_built_once():
    scene = make_scene(
        [trooper("a", [0, 0]), trooper("b", [120, 0], side="red")],
        [box("w", [20, 100, 60], [60, 0])],
    )
    label, closed = closed_solids(scene._built)
    assert len(label) == len(scene.blocking.faces)
    assert closed[label].all()  # the box is the only blocking element: closed
    prover = scene.prover
    assert prover is scene.prover
    im = prover.interior
    assert im.n_runs > 0
    # a column in the middle of the wall: one run from its bottom to its top
    x0, y0, g, _nx, ny, _ = im.grid
    i, j = math.floor((60.3 - x0) / g), math.floor((0.3 - y0) / g)
    c = i * int(ny) + j
    assert im.run_off[c + 1] - im.run_off[c] == 1
    assert (im.run_lo[im.run_off[c]], im.run_hi[im.run_off[c]]) == pytest.approx((0, 60), abs=1e-5)
    assert im.outside(scene.trooper("a").cylinder)


def write_height_field(path, n=12, cell=5.0):
    """A smooth height field z = 10 + 3 sin(x / 10) cos(y / 13) over [0, n cell]^2, as OBJ."""
    v = [
        [cell * i, cell * j, 10 + 3 * math.sin(cell * i / 10) * math.cos(cell * j / 13)]
        for j in range(n + 1)
        for i in range(n + 1)
    ]
    f = []
    for j in range(n):
        for i in range(n):
            a = (n + 1) * j + i
            f += [[a, a + 1, a + n + 2], [a, a + n + 2, a + n + 1]]
    lines = [f"v {x:.17g} {y:.17g} {z:.17g}" for x, y, z in v]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in f]
    path.write_text("\n".join(lines) + "\n")
    return str(path), np.array(v).reshape(n + 1, n + 1, 3)


def test_auto_table_is_certified_below_its_surface_and_surface_table_is_not(tmp_path):
    path, hf = write_height_field(tmp_path / "hf.obj")
    auto = make_scene([], table={"mesh": path})
    (rec,) = auto.scan_report()
    floor = rec["floor_z_mm"]
    assert rec["method"] == "table" and floor == -1.0
    label, closed = closed_solids(auto._built)
    assert closed[label].all()  # surface, curtains and cap: one closed solid
    im = auto.prover.interior
    z = hf[:, :, 2]  # z[j, i] at (5 i, 5 j)
    inner = 0
    for (x0, x1, y0, y1), runs in columns(im):
        if not (x0 > MARGIN and y0 > MARGIN and x1 < 60 - MARGIN and y1 < 60 - MARGIN):
            if x1 < -MARGIN or y1 < -MARGIN or x0 > 60 + MARGIN or y0 > 60 + MARGIN:
                assert runs == []  # beyond the table
            continue
        inner += 1
        assert len(runs) == 1, (x0, y0)
        rlo, rhi = runs[0]
        assert rlo == pytest.approx(floor, abs=1e-5) and rlo > floor
        # below the surface over the column (sampled: an upper bound of its minimum) ...
        xs, ys = np.meshgrid(np.linspace(x0, x1, 5), np.linspace(y0, y1, 5))
        assert rhi <= surface(hf, xs, ys).min() + 1e-9, (x0, y0)
        # ... and no lower than the lowest vertex of the grid cells the column meets
        i0, i1 = math.floor((x0 - MARGIN) / 5), math.floor((x1 + MARGIN) / 5)
        j0, j1 = math.floor((y0 - MARGIN) / 5), math.floor((y1 + MARGIN) / 5)
        near = z[max(j0, 0) : min(j1, 11) + 2, max(i0, 0) : min(i1, 11) + 2]
        assert rhi >= near.min() - 1e-5, (x0, y0)
    assert inner >= 57 * 57
    thin = make_scene([], table={"mesh": path, "solid": "surface"})
    _label, closed = closed_solids(thin._built)
    assert not closed.any()
    assert thin.prover.interior.n_runs == 0


def surface(hf, xs, ys):
    """The height field's triangles (split along the rising diagonal) at (xs, ys)."""
    cell = 5.0
    i = np.clip(np.floor(xs / cell).astype(int), 0, 11)
    j = np.clip(np.floor(ys / cell).astype(int), 0, 11)
    fx, fy = xs / cell - i, ys / cell - j
    z = hf[:, :, 2]
    z00, z10, z11, z01 = z[j, i], z[j, i + 1], z[j + 1, i + 1], z[j + 1, i]
    lower = fx >= fy  # triangle (a, a + 1, a + n + 2)
    return np.where(
        lower,
        z00 + fx * (z10 - z00) + fy * (z11 - z10),
        z00 + fy * (z01 - z00) + fx * (z11 - z01),
    )
