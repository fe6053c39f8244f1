"""Array validation helpers that name the offending argument.

Modelled on shapely's and trimesh's habit of failing early with the argument's name::

    >>> as_points([1.0, 2.0, 3.0], "points")
    Traceback (most recent call last):
    ...
    geom3d.core.errors.ShapeError: points has shape (3,), expected (n, 3)
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike

from geom3d.core.errors import InputError, ShapeError

__all__ = ["as_faces", "as_point", "as_points", "require_finite", "require_positive", "xyz"]


def _shape_str(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def as_points(value: ArrayLike, name: str, *, dim: int = 3) -> np.ndarray:
    """Return ``value`` as a finite ``(n, dim)`` float64 array.

    Parameters
    ----------
    value : array_like, (n, dim)
        Points, mm.
    name : str
        Argument name used in the error message.
    dim : int
        Number of coordinates per point.

    Raises
    ------
    ShapeError
        Wrong shape, e.g. ``points has shape (3,), expected (n, 3)``.
    InputError
        NaN or infinite coordinates.
    """
    arr = np.asarray(value, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != dim:
        raise ShapeError(f"{name} has shape {_shape_str(arr.shape)}, expected (n, {dim})")
    return require_finite(arr, name)


def as_point(value: ArrayLike, name: str, *, dim: int = 3) -> np.ndarray:
    """Return ``value`` as a finite ``(dim,)`` float64 array (one point, mm)."""
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != (dim,):
        raise ShapeError(f"{name} has shape {_shape_str(arr.shape)}, expected ({dim},)")
    return require_finite(arr, name)


def as_faces(value: ArrayLike, name: str, n_vertices: int) -> np.ndarray:
    """Return ``value`` as an ``(m, 3)`` int64 array of indices below ``n_vertices``."""
    arr = np.asarray(value)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ShapeError(f"{name} has shape {_shape_str(arr.shape)}, expected (m, 3)")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ShapeError(f"{name} has dtype {arr.dtype}, expected integers")
    arr = arr.astype(np.int64, copy=False)
    if arr.size and (arr.min() < 0 or arr.max() >= n_vertices):
        raise InputError(f"{name} indexes vertices outside 0..{n_vertices - 1}")
    return arr


def require_finite(arr: np.ndarray, name: str) -> np.ndarray:
    """Raise :class:`InputError` if ``arr`` holds NaN or infinity."""
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} contains NaN or infinite values")
    return arr


def require_positive(value: float, name: str) -> float:
    """Return ``value`` as float, raising :class:`InputError` unless finite and > 0."""
    v = float(value)
    if not np.isfinite(v) or v <= 0:
        raise InputError(f"{name} must be a positive finite number, got {value!r}")
    return v


def xyz(values: Iterable[float]) -> tuple[float, float, float]:
    """A point known to have three coordinates (validated input, a ``(3,)`` array) as a
    typed ``(x, y, z)`` tuple; the items are kept as they are (no conversion)."""
    x, y, z = values
    return (x, y, z)
