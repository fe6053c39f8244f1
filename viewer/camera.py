"""Fixed cameras of the diagrams: ``top`` (orthographic plan), ``iso``, ``from:ID``.

Cameras depend only on the drawing and the image size (no interaction, no timestamps),
so the same input gives the same pixels. Each fits the picture into the image area left
free by the title band and the legend column (:mod:`viewer.layout`).
"""

from __future__ import annotations

import numpy as np

from .layout import BOTTOM_MARGIN, LEGEND_COLUMN, TITLE_BAND
from .model import Drawing

__all__ = [
    "CAMERAS",
    "FROM_VIEW_ANGLE",
    "ISO_DIRECTION",
    "ISO_VIEW_ANGLE",
    "NEAR_CLIP",
    "camera_matrix",
    "fit_perspective",
    "from_camera",
    "iso_camera",
    "perspective_camera",
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


def top_camera(plotter, drawing: Drawing, size) -> None:
    w, h = size
    lo, hi = drawing.bounds
    px0, px1 = 0.03 * w, (1.0 - LEGEND_COLUMN) * w
    py0, py1 = TITLE_BAND * h, (1.0 - BOTTOM_MARGIN) * h
    bw, bh = max(float(hi[0] - lo[0]), 1.0), max(float(hi[1] - lo[1]), 1.0)
    s = max(bw / (px1 - px0), bh / (py1 - py0))  # mm per pixel
    bx, by = 0.5 * float(lo[0] + hi[0]), 0.5 * float(lo[1] + hi[1])
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
    dist = radius / np.sin(np.radians(ISO_VIEW_ANGLE) / 2)
    perspective_camera(plotter, c + d * dist, c, (0.0, 0.0, 1.0), ISO_VIEW_ANGLE, (1.0, 1.0))
    corners = np.array(
        [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    )
    region = (0.02, 1.0 - LEGEND_COLUMN, TITLE_BAND, 1.0 - BOTTOM_MARGIN)
    fit_perspective(plotter, size, corners, region)


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
    eye = drawing.eye
    assert eye is not None
    lo, hi = drawing.bounds
    p = np.array(eye["position"], dtype=float)
    f = np.array([*eye["facing"], 0.0])
    above = eye["eye_z"] - p[2]
    back = 3.0 * above + eye["radius"]
    pos = np.array([p[0], p[1], eye["eye_z"]]) - f * back
    focal = pos + f * 1000.0
    far = float(np.linalg.norm(hi - lo)) + 2 * back + 1000.0
    perspective_camera(plotter, pos, focal, (0.0, 0.0, 1.0), FROM_VIEW_ANGLE, (1.0, far))
    # centre the view in the picture area (left of the legend column, below the title)
    cx = 0.5 * (0.015 + 1.0 - LEGEND_COLUMN)
    cy = 0.5 * (1.0 - TITLE_BAND)
    plotter.camera.SetWindowCenter(1.0 - 2.0 * cx, 1.0 - 2.0 * cy)


def camera_matrix(plotter, size) -> np.ndarray:
    cam = plotter.renderer.GetActiveCamera()
    m = cam.GetCompositeProjectionTransformMatrix(size[0] / size[1], -1.0, 1.0)
    return np.array([[m.GetElement(i, j) for j in range(4)] for i in range(4)])


#: Camera setup per view kind: ``f(plotter, drawing, size)``.
CAMERAS = {"top": top_camera, "iso": iso_camera, "from": from_camera}
