"""geom3d's ``njit`` and ``njit_leaf`` (issue 49, the first run's compile): no kernel has
a C-callable wrapper; a leaf has no Python wrapper, kernels call it directly, and a call
from Python runs its twin, compiled with the wrapper and cached apart."""

from __future__ import annotations

import numpy as np
import pytest

from geom3d.bodies.kernels import cylinder_interval, njit, njit_leaf, python_twin


@njit_leaf(cache=False)
def _hyp(a, b):
    return (a * a + b * b) ** 0.5


@njit(cache=False)
def _hyp_sum(xs, ys):
    total = 0.0
    for i in range(xs.size):
        total += _hyp(xs[i], ys[i])
    return total


def test_a_kernel_calls_a_leaf_and_python_calls_its_twin():
    xs = np.array([3.0, 5.0, 8.0])
    ys = np.array([4.0, 12.0, 15.0])
    assert _hyp_sum(xs, ys) == 5.0 + 13.0 + 17.0  # through the leaf, no wrapper
    # from Python: through the twin
    assert [_hyp(x, y) for x, y in zip(xs, ys, strict=True)] == [5.0, 13.0, 17.0]
    twin = python_twin(_hyp)
    assert python_twin(_hyp) is twin and twin.py_func.__qualname__ == "_hyp__from_python"
    assert _hyp.targetoptions["no_cpython_wrapper"] is True
    assert "no_cpython_wrapper" not in twin.targetoptions
    assert twin.signatures and all(s in _hyp.signatures for s in twin.signatures)


def test_no_kernel_has_a_c_wrapper():
    assert _hyp.targetoptions["no_cfunc_wrapper"] is True
    assert _hyp_sum.targetoptions["no_cfunc_wrapper"] is True
    assert "no_cpython_wrapper" not in _hyp_sum.targetoptions


@pytest.mark.parametrize(
    ("ray", "want"),
    [
        ((0.0, 0.0, 2.0, 1.0, 0.0, 0.0), (9.0, 11.0)),  # through the side, both ways
        ((0.0, 5.0, 2.0, 1.0, 0.0, 0.0), None),  # misses in plan
    ],
)
def test_a_real_leaf_answers_from_python(ray, want):
    # a vertical cylinder of radius 1 and height 5 standing at (10, 0, 0)
    t0, t1 = cylinder_interval(*ray, 10.0, 0.0, 0.0, 1.0, 5.0)
    if want is None:
        assert t0 > t1
    else:
        assert (t0, t1) == pytest.approx(want, abs=1e-12)


def test_a_leaf_and_its_twin_are_cached_apart():
    # numba names a cache entry by the function's qualified name and first line: the
    # twin, the same code, would otherwise load the leaf's entry (no Python wrapper)
    twin = python_twin(cylinder_interval)
    leaf_index = cylinder_interval._cache._cache_file._index_name
    twin_index = twin._cache._cache_file._index_name
    assert leaf_index.startswith("kernels.cylinder_interval-")
    assert twin_index.startswith("kernels.cylinder_interval__from_python-")
