"""The constants geom3d's compiled kernels read: numba freezes each into the machine code
of every ``@njit`` kernel that uses it, so a change here must recompile them.

This module and the modules that define kernels are the only sources the compiled-kernel
cache is keyed on (:func:`geom3d.core.cache_paths.kernel_sources_digest`); no kernel reads a
constant from anywhere else (``tests/core/test_cache_paths.py``). Python code that must agree
with the kernels (contact decisions, degenerate lengths) imports the same names from here.
Lengths in mm. Light: no imports, so any layer may read it without loading numba.
"""

#: A point of a target at most this far in front of an eye point, along its line of
#: sight, counts as beside or behind the eye: its apparent position is unbounded, and
#: projections clamp its depth to this value.
APPARENT_DEPTH_EPS_MM: float = 1e-6

#: Two bodies closer than this count as touching (silhouette contact, template contact).
CONTACT_EPS_MM: float = 1e-6

#: General geometric zero for lengths (degenerate triangles, zero-length directions).
GEOM_EPS_MM: float = 1e-9

#: Clearance (mm) between a trooper's eye region and any blocking triangle for its
#: segments to be proved: ten times ``RAY_EPS_MM``, so the ray engine, which trims that
#: much off each end of a segment, still sees the crossing a proof relies on.
PROOF_CLEARANCE_MM: float = 1e-2

#: Growth (mm) of a cylinder's box in blocking proofs and in the hidden-eye test: points
#: computed on its surface, with rounding, still lie inside the box.
SURFACE_BOX_PAD_MM: float = 1e-4

#: Every constant above is public: an upper-case name is a tolerance, a limit or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
