"""Fixed cameras of the diagrams: ``top`` (orthographic plan), ``iso``, ``from:ID``,
``side`` (orthographic elevation) and ``eye`` (from a deciding eye point).

Cameras depend only on the drawing and the image size (no interaction, no timestamps),
so the same input gives the same pixels. Each fits the picture into the image area left
free by the title band and the legend column (:mod:`viewer.layout`).

User options live in ``drawing.camera`` (checked by :func:`camera_options`):
``azimuth`` (degrees, counter-clockwise from +x, like ``facing_deg``: the compass direction
from the scene to the camera of ``iso`` and ``side`` views, the heading a ``from:`` view
looks along), ``elevation`` (degrees above the horizontal: of the camera seen from the
scene for ``iso``/``side``, of the line of sight for ``from:``) and ``zoom`` (a factor
applied after the fit; 2 shows half as much).
"""

from __future__ import annotations

import numpy as np

from geom3d.core.errors import InputError

from .layout import BOTTOM_MARGIN, LEGEND_COLUMN, TITLE_BAND
from .model import Drawing

#: Viewer camera options (``geom3d render --azimuth --elevation --zoom``): the largest
#: elevation in degrees either way (straight up or down leaves no "up" for the camera) and
#: the range of the zoom factor.
VIEW_MAX_ELEVATION_DEG: float = 89.0
VIEW_ZOOM_RANGE: tuple[float, float] = (0.05, 50.0)

__all__ = [
    "CAMERAS",
    "FROM_VIEW_ANGLE",
    "ISO_DIRECTION",
    "ISO_VIEW_ANGLE",
    "NEAR_CLIP",
    "camera_matrix",
    "camera_options",
    "eye_camera",
    "fit_perspective",
    "from_camera",
    "iso_camera",
    "perspective_camera",
    "side_camera",
    "top_camera",
]

#: Fixed camera of the ``iso`` view: direction from the scene centre to the camera.
ISO_DIRECTION = (-0.55, -1.0, 0.85)
ISO_VIEW_ANGLE = 30.0
#: Vertical field of view of a ``from:ID`` view, degrees.
FROM_VIEW_ANGLE = 60.0
#: Near clipping plane while fitting a perspective camera: this fraction of the focal
#: distance, and at least this many mm.
NEAR_CLIP = 1e-3


#: Which views take which options.
_OPTIONS = {
    "top": ("zoom",),
    "iso": ("azimuth", "elevation", "zoom"),
    "from": ("azimuth", "elevation", "zoom"),
    "side": ("azimuth", "elevation", "zoom"),
    "eye": ("zoom",),
}


def camera_options(view: str, azimuth=None, elevation=None, zoom=None) -> dict:
    """Checked camera options of a ``view`` kind, as ``drawing.camera`` holds them.

    Raises
    ------
    geom3d.core.errors.InputError
        A value that is not a finite number, an elevation beyond
        ``VIEW_MAX_ELEVATION_DEG``, a zoom outside ``VIEW_ZOOM_RANGE``, or an option the
        view does not take.
    """
    out: dict = {}
    given = {"azimuth": azimuth, "elevation": elevation, "zoom": zoom}
    for name, value in given.items():
        if value is None:
            continue
        if isinstance(value, bool):
            raise InputError(f"--{name}: expected a number, got {value!r}")
        try:
            x = float(value)
        except (TypeError, ValueError):
            raise InputError(f"--{name}: expected a number, got {value!r}") from None
        if not np.isfinite(x):
            raise InputError(f"--{name}: expected a finite number, got {value!r}")
        if name not in _OPTIONS.get(view, ()):
            takes = [k for k, v in _OPTIONS.items() if name in v]
            raise InputError(f"--{name} applies to the {', '.join(takes)} views, not {view}")
        if name == "elevation" and abs(x) > VIEW_MAX_ELEVATION_DEG:
            raise InputError(
                f"--elevation: at most {VIEW_MAX_ELEVATION_DEG:g} degrees either way, got {x:g}"
            )
        if name == "zoom" and not VIEW_ZOOM_RANGE[0] <= x <= VIEW_ZOOM_RANGE[1]:
            lo, hi = VIEW_ZOOM_RANGE
            raise InputError(f"--zoom: expected a factor from {lo:g} to {hi:g}, got {x:g}")
        out[name] = x
    return out


def _direction(azimuth_deg: float, elevation_deg: float) -> np.ndarray:
    """Unit vector at ``azimuth_deg`` (from +x, counter-clockwise) and ``elevation_deg``."""
    a, e = np.radians(azimuth_deg), np.radians(elevation_deg)
    return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])


def _without_zoom(drawing: Drawing) -> Drawing:
    from dataclasses import replace

    return replace(drawing, camera={k: v for k, v in drawing.camera.items() if k != "zoom"})


def _zoom(plotter, drawing: Drawing) -> None:
    z = drawing.camera.get("zoom")
    if z is not None and z != 1.0:
        plotter.camera.zoom(float(z))


def top_camera(plotter, drawing: Drawing, size) -> None:
    w, h = size
    lo, hi = drawing.bounds
    px0, px1 = 0.03 * w, (1.0 - LEGEND_COLUMN) * w
    py0, py1 = TITLE_BAND * h, (1.0 - BOTTOM_MARGIN) * h
    bw, bh = max(float(hi[0] - lo[0]), 1.0), max(float(hi[1] - lo[1]), 1.0)
    s = max(bw / (px1 - px0), bh / (py1 - py0))  # mm per pixel
    bx, by = 0.5 * float(lo[0] + hi[0]), 0.5 * float(lo[1] + hi[1])
    z = drawing.camera.get("zoom")
    subject = drawing.camera.get("subject")
    if z and z != 1.0 and subject is not None:  # --zoom: 1/z of the fit, about the subject
        s /= float(z)
        bx, by = float(subject[0]), float(subject[1])
        drawing = _without_zoom(drawing)
    cam_x = bx - (0.5 * (px0 + px1) - 0.5 * w) * s
    cam_y = by + (0.5 * (py0 + py1) - 0.5 * h) * s
    top = float(hi[2]) + 1000.0
    cam = plotter.camera
    cam.parallel_projection = True
    cam.focal_point = (cam_x, cam_y, float(lo[2]))
    cam.position = (cam_x, cam_y, top)
    cam.up = (0.0, 1.0, 0.0)
    cam.parallel_scale = 0.5 * h * s
    cam.clipping_range = (1.0, top - float(lo[2]) + 1000.0)
    _zoom(plotter, drawing)


def perspective_camera(plotter, position, focal, up, view_angle, near_far) -> None:
    cam = plotter.camera
    cam.parallel_projection = False
    cam.position = tuple(float(v) for v in position)
    cam.focal_point = tuple(float(v) for v in focal)
    cam.up = tuple(float(v) for v in up)
    cam.view_angle = float(view_angle)
    cam.clipping_range = near_far


def iso_camera(plotter, drawing: Drawing, size) -> None:
    lo, hi = drawing.bounds
    c = 0.5 * (lo + hi)
    radius = max(0.5 * float(np.linalg.norm(hi - lo)), 1.0)
    d = np.asarray(ISO_DIRECTION, dtype=float)
    d /= np.linalg.norm(d)
    opts = drawing.camera
    if "azimuth" in opts or "elevation" in opts:
        az0 = np.degrees(np.arctan2(d[1], d[0]))
        el0 = np.degrees(np.arcsin(d[2]))
        d = _direction(opts.get("azimuth", az0), opts.get("elevation", el0))
    dist = radius / np.sin(np.radians(ISO_VIEW_ANGLE) / 2)
    perspective_camera(plotter, c + d * dist, c, (0.0, 0.0, 1.0), ISO_VIEW_ANGLE, (1.0, 1.0))
    z = float(opts.get("zoom") or 1.0)
    subject = opts.get("subject")
    if z != 1.0 and subject is not None:
        # --zoom: 1/z of the fitted box, about the subject, and every trooper the
        # figure is about kept whole (fitted, not magnified about the picture's centre)
        sub = np.asarray(subject, dtype=float)
        lo, hi = sub + (lo - c) / z, sub + (hi - c) / z
        keep = [
            np.asarray(a.mesh.points, dtype=float)
            for a in drawing.actors
            if a.meta.get("trooper") in drawing.about and a.name == f"trooper:{a.meta['trooper']}"
        ]
        if keep:
            pts = np.vstack(keep)
            lo, hi = np.minimum(lo, pts.min(axis=0)), np.maximum(hi, pts.max(axis=0))
        drawing = _without_zoom(drawing)
    corners = np.array(
        [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    )
    region = (0.02, 1.0 - LEGEND_COLUMN, TITLE_BAND, 1.0 - BOTTOM_MARGIN)
    fit_perspective(plotter, size, corners, region)
    _zoom(plotter, drawing)


def fit_perspective(plotter, size, points, region, iterations: int = 6) -> None:
    """Dolly and pan a perspective camera until ``points`` fill ``region``.

    ``region`` = (left, right, top, bottom) as fractions of the image width/height
    (top/bottom from the top edge). Deterministic: a fixed number of iterations.
    """
    w, h = size
    cam = plotter.camera
    for _ in range(iterations):
        pos = np.array(cam.position)
        focal = np.array(cam.focal_point)
        dist = float(np.linalg.norm(focal - pos))
        fwd = (focal - pos) / dist
        right = np.cross(fwd, cam.up)
        right /= np.linalg.norm(right)
        up = np.cross(right, fwd)
        near = max(NEAR_CLIP, dist * NEAR_CLIP)
        cam.clipping_range = (near, dist * 10.0)
        m = camera_matrix(plotter, size)
        h4 = np.column_stack([points, np.ones(len(points))]) @ m.T
        ndc = h4[:, :2] / h4[:, 3:4]
        px = (ndc[:, 0] + 1) * 0.5 * w
        py = (1 - ndc[:, 1]) * 0.5 * h
        rx0, rx1 = region[0] * w, region[1] * w
        ry0, ry1 = region[2] * h, region[3] * h
        f = max((px.max() - px.min()) / (rx1 - rx0), (py.max() - py.min()) / (ry1 - ry0))
        # pan: move the picture's centre onto the region's centre (at the focal distance)
        per_px = 2.0 * dist * np.tan(np.radians(cam.view_angle) / 2) / h
        dx = 0.5 * (px.max() + px.min()) - 0.5 * (rx0 + rx1)
        dy = 0.5 * (py.max() + py.min()) - 0.5 * (ry0 + ry1)
        shift = right * dx * per_px - up * dy * per_px
        new_dist = dist * f
        focal = focal + shift
        cam.focal_point = tuple(focal)
        cam.position = tuple(focal - fwd * new_dist)
    dist = float(np.linalg.norm(np.array(cam.focal_point) - np.array(cam.position)))
    span = float(np.linalg.norm(points.max(axis=0) - points.min(axis=0)))
    cam.clipping_range = (max(1.0, dist - span), dist + span)


def from_camera(plotter, drawing: Drawing, size) -> None:
    """Behind and above the trooper, looking along its facing, or at ``eye["aim"]``.

    ``azimuth`` replaces the heading of the line of sight, ``elevation`` its pitch.
    """
    eye = drawing.eye
    assert eye is not None
    lo, hi = drawing.bounds
    p = np.array(eye["position"], dtype=float)
    head = np.array([p[0], p[1], eye["eye_z"]])
    aim = eye.get("aim")
    if aim is not None and np.hypot(aim[0] - p[0], aim[1] - p[1]) > 1e-6:
        look = np.asarray(aim, dtype=float) - head
    else:
        look = np.array([*eye["facing"], 0.0])
    look /= np.linalg.norm(look)
    opts = drawing.camera
    if "azimuth" in opts or "elevation" in opts:
        az0 = np.degrees(np.arctan2(look[1], look[0]))
        el0 = np.degrees(np.arcsin(np.clip(look[2], -1.0, 1.0)))
        look = _direction(opts.get("azimuth", az0), opts.get("elevation", el0))
    flat = np.array([look[0], look[1], 0.0])
    flat = flat / np.linalg.norm(flat) if np.linalg.norm(flat) > 1e-9 else np.array([1.0, 0, 0])
    above = eye["eye_z"] - p[2]
    back = 3.0 * above + eye["radius"]
    pos = head - flat * back
    if aim is not None and "azimuth" not in opts and "elevation" not in opts:
        look = np.asarray(aim, dtype=float) - pos  # the aim point at the picture's centre
        look /= np.linalg.norm(look)
    focal = pos + look * 1000.0
    far = float(np.linalg.norm(hi - lo)) + 2 * back + 1000.0
    perspective_camera(plotter, pos, focal, (0.0, 0.0, 1.0), FROM_VIEW_ANGLE, (1.0, far))
    # centre the view in the picture area (left of the legend column, below the title)
    cx = 0.5 * (0.015 + 1.0 - LEGEND_COLUMN)
    cy = 0.5 * (1.0 - TITLE_BAND)
    plotter.camera.SetWindowCenter(1.0 - 2.0 * cx, 1.0 - 2.0 * cy)
    _zoom(plotter, drawing)


def side_camera(plotter, drawing: Drawing, size) -> None:
    """Orthographic elevation: horizontal line of sight ``camera["direction"]``.

    Heights and lengths share one scale. With a ``slab`` (a side view across A-B, whose
    drawing keeps only that section: :func:`viewer.views.section_filter`) the focal point
    lies in the plane through ``origin``; ``fit`` points (else the drawing's bounds) fill
    the picture area. ``azimuth`` / ``elevation`` turn the camera.
    """
    w, h = size
    opts = drawing.camera
    fwd = np.asarray(opts.get("direction", (0.0, 1.0, 0.0)), dtype=float)
    slab = opts.get("slab")
    if "azimuth" in opts or "elevation" in opts:
        back = -fwd
        az0 = np.degrees(np.arctan2(back[1], back[0]))
        fwd = -_direction(opts.get("azimuth", az0), opts.get("elevation", 0.0))
        slab = None
    fwd /= np.linalg.norm(fwd)
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    lo, hi = drawing.bounds
    pts = opts.get("fit")
    pts = (
        np.asarray(pts, dtype=float).reshape(-1, 3)
        if pts is not None
        else np.array(
            [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
        )
    )
    px, py = pts @ right, pts @ up
    px0, px1 = 0.03 * w, (1.0 - LEGEND_COLUMN) * w
    py0, py1 = TITLE_BAND * h, (1.0 - BOTTOM_MARGIN) * h
    bw = max(float(px.max() - px.min()), 1.0)
    bh = max(float(py.max() - py.min()), 1.0)
    s = 1.08 * max(bw / (px1 - px0), bh / (py1 - py0))  # mm per pixel, a little margin
    cx = 0.5 * float(px.max() + px.min()) - (0.5 * (px0 + px1) - 0.5 * w) * s
    cy = 0.5 * float(py.max() + py.min()) + (0.5 * (py0 + py1) - 0.5 * h) * s
    corners = np.array(
        [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    )
    span = float(np.linalg.norm(hi - lo)) + 1000.0
    if slab is not None:
        depth0 = float(np.asarray(opts["origin"], dtype=float) @ fwd)
    else:
        depth0 = 0.5 * float((corners @ fwd).min() + (corners @ fwd).max())
    focal = cx * right + cy * up + depth0 * fwd
    pos = focal - fwd * span
    cam = plotter.camera
    cam.parallel_projection = True
    cam.position = tuple(pos)
    cam.focal_point = tuple(focal)
    cam.up = tuple(up)
    cam.parallel_scale = 0.5 * h * s
    cam.clipping_range = (1.0, 2.0 * span)
    _zoom(plotter, drawing)


def eye_camera(plotter, drawing: Drawing, size) -> None:
    """Perspective from ``camera["eye"]`` towards ``camera["target"]``.

    The view angle shows the target's apparent size (``half_angle_deg``) about 2.2 times
    over, centred in the picture area.
    """
    opts = drawing.camera
    eye = np.asarray(opts["eye"], dtype=float)
    target = np.asarray(opts["target"], dtype=float)
    dist = float(np.linalg.norm(target - eye))
    angle = float(np.clip(2.0 * 2.2 * opts.get("half_angle_deg", 10.0), 5.0, 120.0))
    near = max(0.05, 0.01 * dist)
    lo, hi = drawing.bounds
    far = float(np.linalg.norm(hi - lo)) + dist + 1000.0
    perspective_camera(plotter, eye, target, (0.0, 0.0, 1.0), angle, (near, far))
    cx = 0.5 * (0.015 + 1.0 - LEGEND_COLUMN)
    cy = 0.5 * (1.0 - TITLE_BAND)
    plotter.camera.SetWindowCenter(1.0 - 2.0 * cx, 1.0 - 2.0 * cy)
    _zoom(plotter, drawing)


def camera_matrix(plotter, size) -> np.ndarray:
    cam = plotter.renderer.GetActiveCamera()
    m = cam.GetCompositeProjectionTransformMatrix(size[0] / size[1], -1.0, 1.0)
    return np.array([[m.GetElement(i, j) for j in range(4)] for i in range(4)])


#: Camera setup per view kind: ``f(plotter, drawing, size)``.
CAMERAS = {
    "top": top_camera,
    "iso": iso_camera,
    "from": from_camera,
    "side": side_camera,
    "eye": eye_camera,
}
