"""Input limits of mesh files and the unit-slip warnings on what they hold (issue 14,
SPEC 12.2): beyond a limit a mesh is refused with one line, before it is parsed. Sizes in
bytes or counts, lengths in mm. See docs/paths-and-cache.md.
"""

#: Largest mesh file read, and largest total of a glTF's external buffers (bytes).
MAX_MESH_BYTES: int = 1 << 30

#: Mesh input limits on what a file expands to (a glTF instancing one mesh many times, a
#: sparse accessor with no data): triangles after instancing (a 1 GiB binary STL holds
#: 21 M) and elements of one accessor (e.g. vertices), checked before parsing.
MAX_MESH_TRIANGLES: int = 25_000_000
MAX_MESH_ELEMENTS: int = 75_000_000

#: A loaded mesh (in mm, before the scenario's ``scale``) whose largest extent is below
#: ``MESH_TINY_MM`` or above ``MESH_HUGE_MM`` gets a "wrong units?" warning: metres read
#: as millimetres (a 0.05 m wall becomes 0.05 mm) or millimetres read as metres (a 1.2 m
#: table becomes 1.2 km). A mesh beyond ``MAX_COORD_MM`` is an error.
MESH_TINY_MM: float = 1.0
MESH_HUGE_MM: float = 1e5

#: Every constant above is public: an upper-case name is a tolerance, a limit or a rule number.
__all__ = sorted(name for name in dict(globals()) if name.isupper() and not name.startswith("_"))
