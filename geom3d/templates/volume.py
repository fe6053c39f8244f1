"""Template volumes: a template shape placed in 3D and extruded by its height (SPEC 2.2).

Local frame of a placed template (:meth:`TemplateVolume.local_frame`): origin at the
Blast Focus point on the placement plane, ``u`` along the heading (tilted up by the
pitch), ``v`` horizontal and to the left of ``u``, ``normal = u x v`` (pointing up).
Local coordinates ``(s, t, w)`` of a point ``p`` are ``((p - o)·u, (p - o)·v, (p - o)·n)``.
The volume is ``{(s, t) in shape} x {0 <= w <= height}``.

Units: millimetres; angles in degrees, counter-clockwise from +x.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from geom3d.bodies.kernel_constants import CONTACT_EPS_MM
from geom3d.core.errors import InputError
from geom3d.core.validation import as_point, as_points
from geom3d.templates._hull import cos_sin_deg, sd_discs, support_discs
from geom3d.templates.shapes import CircleShape, TeardropShape, TemplateShape

if TYPE_CHECKING:  # trimesh (0.35 s to import) only where a volume is drawn
    import trimesh

__all__ = ["LocalFrame", "TemplateVolume"]


class LocalFrame(NamedTuple):
    """Orthonormal frame of a placed template (all (3,) float).

    ``origin`` (mm) is the Blast Focus on the placement plane; ``u`` the axis (heading,
    tilted by the pitch), ``v`` horizontal to its left, ``normal = u x v`` (up).
    """

    origin: np.ndarray
    u: np.ndarray
    v: np.ndarray
    normal: np.ndarray


@dataclass(frozen=True)
class TemplateVolume:
    """A template shape placed in 3D and extruded by its height (SPEC 2.2).

    Parameters
    ----------
    shape : CircleShape or TeardropShape
    focus : (3,) float, mm
        Blast Focus on the placement plane (circle: centre; teardrop: narrow end).
    heading_deg : float
        Direction of the template axis in plan, degrees counter-clockwise from +x.
    pitch_deg : float
        Tilt of the placement plane about the horizontal axis perpendicular to the
        heading; positive raises the far end. Strictly between -90 and 90. The volume
        is extruded along the tilted plane's normal.
    """

    shape: TemplateShape
    focus: tuple[float, float, float]
    heading_deg: float = 0.0
    pitch_deg: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.shape, (CircleShape, TeardropShape)):
            raise InputError(
                f"shape must be a CircleShape or TeardropShape, got {type(self.shape).__name__}"
            )
        f = as_point(self.focus, "focus")
        object.__setattr__(self, "focus", (float(f[0]), float(f[1]), float(f[2])))
        heading = float(self.heading_deg)
        pitch = float(self.pitch_deg)
        if not math.isfinite(heading):
            raise InputError(f"heading_deg must be finite, got {self.heading_deg!r}")
        if not math.isfinite(pitch) or not -90.0 < pitch < 90.0:
            raise InputError(
                f"pitch_deg must be strictly between -90 and 90, got {self.pitch_deg!r}"
            )
        object.__setattr__(self, "heading_deg", heading)
        object.__setattr__(self, "pitch_deg", pitch)
        ch, sh = cos_sin_deg(heading)
        cp, sp = cos_sin_deg(pitch)
        frame = LocalFrame(
            np.array(self.focus, dtype=np.float64),
            np.array([cp * ch, cp * sh, sp]),
            np.array([-sh, ch, 0.0]),
            np.array([-sp * ch, -sp * sh, cp]),
        )
        for arr in frame:
            arr.setflags(write=False)
        object.__setattr__(self, "_frame", frame)

    # -- frame --------------------------------------------------------------------------
    @property
    def height(self) -> float:
        """float, mm: extrusion height."""
        return self.shape.height

    @property
    def is_level(self) -> bool:
        """bool: the placement plane is horizontal (pitch 0)."""
        return self.pitch_deg == 0.0

    @property
    def frame(self) -> LocalFrame:
        """The template's frame, read-only arrays (no copy; see :meth:`local_frame`)."""
        return self._frame  # type: ignore[attr-defined]

    def local_frame(self) -> LocalFrame:
        """The template's frame: ``(origin, u, v, normal)``, each (3,) float (origin mm)."""
        f = self.frame
        return LocalFrame(f.origin.copy(), f.u.copy(), f.v.copy(), f.normal.copy())

    def to_local(self, points) -> np.ndarray:
        """World points ``(n, 3)`` mm to local ``(s, t, w)`` ``(n, 3)`` mm."""
        p = as_points(points, "points")
        f = self.frame
        d = p - f.origin
        return np.column_stack((d @ f.u, d @ f.v, d @ f.normal))

    def to_world(self, local) -> np.ndarray:
        """Local ``(s, t, w)`` ``(n, 3)`` mm to world ``(n, 3)`` mm."""
        q = as_points(local, "local")
        f = self.frame
        return (
            f.origin
            + q[:, 0:1] * f.u[None, :]
            + q[:, 1:2] * f.v[None, :]
            + q[:, 2:3] * f.normal[None, :]
        )

    def focus_segment(self) -> np.ndarray:
        """The Blast Focus in 3D: the segment from the focus point up the template's height.

        It runs along the placement plane's normal, which is vertical for a level
        template (SPEC 2.2).

        Returns
        -------
        (2, 3) float, mm
            ``[focus, focus + height * normal]``.
        """
        f = self.frame
        return np.stack((f.origin.copy(), f.origin + self.height * f.normal))

    def centroid_point(self) -> np.ndarray:
        """(3,) float, mm: a point inside the volume (mid-axis, mid-height)."""
        lo, hi = self.shape.extent
        f = self.frame
        return f.origin + 0.5 * (lo + hi) * f.u + 0.5 * self.height * f.normal

    # -- membership ---------------------------------------------------------------------
    def contains(self, points, *, eps: float = CONTACT_EPS_MM) -> np.ndarray:
        """Which points lie inside or on the volume (exact, up to ``eps``).

        Parameters
        ----------
        points : (n, 3) float, mm
        eps : float, mm
            Points up to this far outside count as on the surface.

        Returns
        -------
        (n,) bool
        """
        q = self.to_local(points)
        sd = sd_discs(q[:, 0], q[:, 1], self.shape._discs)
        return (sd <= eps) & (q[:, 2] >= -eps) & (q[:, 2] <= self.height + eps)

    def support(self, direction) -> np.ndarray:
        """Support point of the volume: a point maximising ``p · direction``.

        Parameters
        ----------
        direction : (3,) float (need not be unit length)

        Returns
        -------
        (3,) float, mm
        """
        d = as_point(direction, "direction")
        return self.support_unchecked(d)

    def support_unchecked(self, d: np.ndarray) -> np.ndarray:
        """:meth:`support` for a (3,) float64 array, unvalidated (the GJK fast path)."""
        f = self.frame
        _, st = support_discs(self.shape._discs, float(d @ f.u), float(d @ f.v))
        w = self.height if float(d @ f.normal) > 0.0 else 0.0
        return f.origin + st[0] * f.u + st[1] * f.v + w * f.normal

    def bounds(self) -> np.ndarray:
        """Exact axis-aligned bounding box.

        Returns
        -------
        (2, 3) float, mm
            ``[min, max]``.
        """
        out = np.empty((2, 3))
        for k in range(3):
            e = np.zeros(3)
            e[k] = 1.0
            out[1, k] = self.support_unchecked(e)[k]
            out[0, k] = self.support_unchecked(-e)[k]
        return out

    # -- derived ------------------------------------------------------------------------
    def scaled(self, factor: float) -> TemplateVolume:
        """The volume scaled by ``factor`` about its Blast Focus (height included)."""
        return TemplateVolume(
            self.shape.scaled(factor), self.focus, self.heading_deg, self.pitch_deg
        )

    def to_trimesh(self, sections: int = 64) -> trimesh.Trimesh:
        """A closed triangle mesh of the volume, for drawing.

        Each circle of the shape is sampled at ``sections`` angles (the polygon is
        inscribed, see :meth:`CircleShape.boundary`); the prism over it is closed by
        fan-triangulated caps (the polygon is convex).

        Returns
        -------
        trimesh.Trimesh
            Watertight, outward-facing normals, mm.
        """
        ring = self.shape.boundary(sections)
        m = len(ring)
        h = self.height
        local = np.vstack(
            (np.column_stack((ring, np.zeros(m))), np.column_stack((ring, np.full(m, h))))
        )
        verts = self.to_world(local)
        faces = []
        for i in range(1, m - 1):
            faces.append((0, i + 1, i))  # bottom, facing -normal
            faces.append((m, m + i, m + i + 1))  # top, facing +normal
        for i in range(m):
            j = (i + 1) % m
            faces.append((i, j, m + j))
            faces.append((i, m + j, m + i))
        import trimesh

        return trimesh.Trimesh(verts, np.asarray(faces, dtype=np.int64), process=False)
