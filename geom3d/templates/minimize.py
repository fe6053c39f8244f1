"""One-dimensional minimisation of a convex function: golden-section search.

The one such search in geom3d. Used by the exact pitched-template contact test
(:mod:`geom3d.templates.contact`) and by the Infinity rules' search for where a moving
trooper's route comes closest to a template.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from geom3d.core.errors import InputError
from geom3d.templates.tolerances import GOLDEN_ITER

__all__ = ["ConvexMin", "minimize_convex"]

#: The golden ratio's conjugate, (sqrt(5) - 1) / 2: each step keeps this much of the bracket.
_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


class ConvexMin(NamedTuple):
    """Result of :func:`minimize_convex`.

    Attributes
    ----------
    x : float
        Where the search stopped: the first point with ``f(x) <= below`` when ``reached``,
        otherwise the evaluated point with the smallest value (ties: the smaller ``x``).
    fx : float
        ``f(x)``.
    reached : bool
        True when the search stopped early at a value ``<= below``.
    """

    x: float
    fx: float
    reached: bool


def minimize_convex(
    f: Callable[[float], float],
    lo: float,
    hi: float,
    *,
    below: float | None = None,
    tol: float = 0.0,
    max_iter: int = GOLDEN_ITER,
) -> ConvexMin:
    """Minimise a convex (or unimodal) function on ``[lo, hi]`` by golden-section search.

    The ends are evaluated first (``lo``, then ``hi``), then the classic search: two
    interior points at the golden ratio, one new evaluation per step, the bracket shrinking
    by 0.618 each step. It stops when the bracket is ``<= tol`` wide, when rounding leaves
    no room between the interior points, or after ``max_iter`` steps; with ``below`` given,
    as soon as an evaluated value is ``<= below`` (a threshold test: "does ``f`` reach
    ``below`` anywhere?" needs no more than that).

    Parameters
    ----------
    f : callable float -> float
        Convex on ``[lo, hi]``; called with plain floats.
    lo, hi : float
        The bracket, finite, ``lo <= hi``.
    below : float or None
        Stop at the first evaluated value ``<= below``.
    tol : float
        Stop once the bracket is at most this wide (units of ``x``); 0 searches to float
        resolution.
    max_iter : int
        Most search steps (default ``GOLDEN_ITER``).

    Returns
    -------
    ConvexMin
        The bracket's final width is about ``(hi - lo) * 0.618**steps``; for a convex ``f``
        the true minimiser lies within it (up to rounding in ``f``).

    Raises
    ------
    InputError
        ``lo`` or ``hi`` not finite, or ``lo > hi``.
    """
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo > hi:
        raise InputError(f"minimize_convex needs a finite bracket lo <= hi, got [{lo!r}, {hi!r}]")
    ends = []
    for x in (lo, hi):
        fx = f(x)
        if below is not None and fx <= below:
            return ConvexMin(x, fx, True)
        ends.append((fx, x))
    x1 = hi - _GOLDEN * (hi - lo)
    x2 = lo + _GOLDEN * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(max_iter):
        if below is not None:
            if f1 <= below:
                return ConvexMin(x1, f1, True)
            if f2 <= below:
                return ConvexMin(x2, f2, True)
        if hi - lo <= tol or not lo < x1 < x2 < hi:
            break
        if f1 <= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - _GOLDEN * (hi - lo)
            f1 = f(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + _GOLDEN * (hi - lo)
            f2 = f(x2)
    fx, x = min(*ends, (f1, x1), (f2, x2))
    return ConvexMin(x, fx, False)
