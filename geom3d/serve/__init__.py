"""``geom3d serve``: the live what-if web app (SPEC 13.6).

A scenario is loaded once and kept in memory with its BVH, blocking proofs and every
pair's visibility; a user moves, turns or lays down troopers through a small JSON API
and sees Line of Fire, template hits and exposure maps change.

Modules: :mod:`.session` (the scenario being edited: moves, their pairs, attacks,
saving; no HTTP), :mod:`.reach` (which cached pairs a move can change),
:mod:`.plan` (the table drawn in plan and in 3D: footprints and prisms),
:mod:`.overlay` (the exposure map, computed in a background thread with progress),
:mod:`.app` (the HTTP server: routes, limits, the page) and ``page.html`` (the page,
self-contained: no file is fetched from anywhere else).

Nothing here imports rendering code; the package is light to import (the engine loads
in :class:`~geom3d.serve.session.Session`).
"""

from __future__ import annotations

__all__: list[str] = []
