"""``python -m geom3d``: the ``geom3d`` command line."""

from __future__ import annotations

from geom3d.cli import run

__all__: list[str] = []

run()
