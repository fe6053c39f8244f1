"""Silhouette bodies (layer 1): exact vertical cylinders and the ray queries against them
(:mod:`~geom3d.bodies.cylinder`, the numpy reference), and the compiled kernels of the
visibility hot path that work on them (:mod:`~geom3d.bodies.kernels`, numba).

Importing this package imports neither, so nothing pays for numba before it casts a ray.
"""

from __future__ import annotations

__all__: list[str] = []
