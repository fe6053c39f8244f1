"""Line of Fire's witness: why ``A`` sees ``T``, and how much of ``T`` it sees."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from geom3d.bodies.kernels import STATUS_MISS, view_ray
from geom3d.core.validation import xyz
from geom3d.visibility.apparent import ApparentView, lattice
from geom3d.visibility.cast import SampleCast
from geom3d.visibility.search import PatchHit

__all__ = ["PatchWitness", "patch_witness", "visible_area"]

_NO_OCC = np.zeros((0, 5))


class PatchWitness:
    """Why ``A`` sees ``T``.

    Attributes
    ----------
    eye : (3,) tuple of float, mm
        The eye point on the viewer's surface.
    patch_center : (3,) tuple of float, mm
        The point of the target's volume at the centre of the visible patch (on the ray
        through the centre of the patch window). Found on first access, like the area.
    visible_area_mm2 : float
        Apparent area of the target seen from ``eye`` (sampled at the fine spacing), mm².
        Measured on first access (one fine pass over the eye's view): matrices and
        surveys, which never read it, never pay for it.
    """

    __slots__ = ("_area", "_center", "_locate", "_measure", "eye")

    def __init__(
        self,
        eye: tuple[float, float, float],
        patch_center: tuple[float, float, float] | None = None,
        visible_area_mm2: float | None = None,
        *,
        measure: Callable[[], float] | None = None,
        locate: Callable[[], tuple[float, float, float]] | None = None,
    ) -> None:
        if visible_area_mm2 is None and measure is None:
            raise TypeError("PatchWitness needs visible_area_mm2 or measure")
        if patch_center is None and locate is None:
            raise TypeError("PatchWitness needs patch_center or locate")
        self.eye = eye
        self._center = patch_center
        self._locate = locate
        self._area = visible_area_mm2
        self._measure = measure

    @property
    def patch_center(self) -> tuple[float, float, float]:
        if self._center is None:
            assert self._locate is not None  # given when patch_center was not
            self._center = self._locate()
            self._locate = None
        return self._center

    @property
    def visible_area_mm2(self) -> float:
        if self._area is None:
            assert self._measure is not None  # given when visible_area_mm2 was not
            self._area = float(self._measure())
            self._measure = None
        return self._area

    @property
    def measured_area_mm2(self) -> float | None:
        """The visible area when it has been measured, else None (nothing is measured)."""
        return self._area

    def __getstate__(self):  # the measuring closure holds the ray engine: measure first
        return (self.eye, self.patch_center, self.visible_area_mm2)

    def __setstate__(self, state) -> None:
        self.eye, self._center, self._area = state
        self._measure = self._locate = None

    def __eq__(self, other) -> bool:
        if not isinstance(other, PatchWitness):
            return NotImplemented
        return (self.eye, self.patch_center, self.visible_area_mm2) == (
            other.eye,
            other.patch_center,
            other.visible_area_mm2,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        area = "unmeasured" if self._area is None else f"{self._area:g}"
        return f"PatchWitness(eye={self.eye}, patch_center={self.patch_center}, area={area})"


def visible_area(view: ApparentView, i: int, cast: SampleCast, sample_mm: float) -> float:
    """Apparent area (mm²) of the target's counting samples from ``view.eyes[i]``.

    The eye's whole apparent view (:meth:`ApparentView.extent`) is sampled once on the
    fine lattice; each counting sample stands for ``sample_mm`` x ``sample_mm``.
    """
    if len(view.eyes) == 1:  # already that eye's own view (frames are per eye)
        single = view
    else:
        single = ApparentView(view.eyes[i : i + 1], view.target)
    s0, s1, t0, t1 = single.extent()
    fa = lattice(s0, s1, sample_mm)
    fb = lattice(t0, t1, sample_mm)
    A, B = np.meshgrid(fa, fb, indexing="ij")
    ok, _ = cast(
        single, np.zeros(A.size, dtype=np.int64), A.ravel() * sample_mm, B.ravel() * sample_mm
    )
    return float(ok.sum()) * sample_mm * sample_mm


def patch_witness(hit: PatchHit, cast: SampleCast) -> PatchWitness:
    """The :class:`PatchWitness` of a patch found with the sample predicate ``cast``
    (its patch centre and visible area are found when first read: a survey, which only
    asks whether there is a witness, never pays for them)."""
    view, i = hit.view, hit.eye

    def locate() -> tuple[float, float, float]:
        # the first point of the target on the ray through the window's centre: the
        # arithmetic of ApparentView.targets, in one compiled call
        sc, tc = hit.center_st
        st, x, y, z = view_ray(
            view.eyes, view.u, view.v, view.c, i, sc, tc, view.target_row, _NO_OCC
        )
        if st == STATUS_MISS:  # (never for a window of counting samples) the eye itself
            return xyz(float(k) for k in view.eyes[i])
        return (x, y, z)

    return PatchWitness(
        eye=hit.eye_point,
        locate=locate,
        measure=lambda: visible_area(view, i, cast, hit.lattice.sample_mm),
    )
