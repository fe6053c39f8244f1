"""Tests of geom3d.templates.minimize: golden-section search of a convex function."""

from __future__ import annotations

import math

import pytest

from geom3d.core.errors import InputError
from geom3d.templates.minimize import ConvexMin, minimize_convex


class Counted:
    """A function that counts its calls."""

    def __init__(self, f):
        self.f = f
        self.calls = 0

    def __call__(self, x: float) -> float:
        self.calls += 1
        return self.f(x)


def test_parabola_minimum_to_float_resolution():
    # (x - 0.3)^2 + 2 on [-1, 4]: minimum 2 at x = 0.3
    m = minimize_convex(lambda x: (x - 0.3) ** 2 + 2.0, -1.0, 4.0)
    assert isinstance(m, ConvexMin) and not m.reached
    assert m.x == pytest.approx(0.3, abs=1e-7)  # the value is flat to 1e-16 within 1e-8
    assert m.fx == pytest.approx(2.0, abs=1e-15)


def test_kink_minimum_located_within_the_tolerance():
    # |x - 1/3| + 1 has a kink: the bracket closes on it; tol bounds the distance to it
    for tol in (1e-3, 1e-6, 1e-12):
        f = Counted(lambda x: abs(x - 1.0 / 3.0) + 1.0)
        m = minimize_convex(f, 0.0, 1.0, tol=tol)
        assert abs(m.x - 1.0 / 3.0) <= tol
        # 2 ends + 2 interior points + one call per step; width 0.618^k <= tol
        steps = math.ceil(math.log(tol) / math.log((math.sqrt(5.0) - 1.0) / 2.0))
        assert f.calls <= 4 + steps + 1


def test_minimum_at_an_end_of_the_bracket():
    assert minimize_convex(lambda x: 3.0 * x, 2.0, 5.0) == ConvexMin(2.0, 6.0, False)
    assert minimize_convex(lambda x: -x, 2.0, 5.0) == ConvexMin(5.0, -5.0, False)


def test_degenerate_bracket():
    f = Counted(lambda x: (x - 1.0) ** 2)
    assert minimize_convex(f, 4.0, 4.0) == ConvexMin(4.0, 9.0, False)
    assert f.calls == 4  # both ends and both (coinciding) interior points, then it stops


def test_below_stops_at_the_first_value_under_the_threshold():
    f = Counted(lambda x: (x - 7.0) ** 2)
    m = minimize_convex(f, 0.0, 10.0, below=1.0)
    assert m.reached and m.fx <= 1.0 and abs(m.x - 7.0) <= 1.0
    assert f.calls < 10
    # an end under the threshold is returned first, without a search
    g = Counted(lambda x: (x - 7.0) ** 2)
    assert minimize_convex(g, 6.5, 10.0, below=1.0) == ConvexMin(6.5, 0.25, True)
    assert g.calls == 1


def test_below_not_reached_reports_the_minimum():
    m = minimize_convex(lambda x: (x - 7.0) ** 2 + 5.0, 0.0, 10.0, below=4.999)
    assert not m.reached
    assert m.x == pytest.approx(7.0, abs=1e-7) and m.fx == pytest.approx(5.0, abs=1e-14)


def test_max_iter_caps_the_steps():
    f = Counted(lambda x: (x - 0.5) ** 2)
    minimize_convex(f, 0.0, 1.0, max_iter=5)
    assert f.calls == 4 + 5


@pytest.mark.parametrize(("lo", "hi"), [(1.0, 0.0), (0.0, math.inf), (math.nan, 1.0)])
def test_bad_bracket(lo, hi):
    with pytest.raises(InputError, match=r"minimize_convex needs a finite bracket lo <= hi"):
        minimize_convex(lambda x: x, lo, hi)
