"""Where the bundled ``meshes/`` folder is: the repository's, or the copy in the wheel."""

from __future__ import annotations

from pathlib import Path

from geom3d.core.errors import UsageError

__all__ = ["bundled_meshes_dir", "demo_scenario_path"]


def bundled_meshes_dir() -> Path:
    """The ``meshes/`` folder: the repository's, or the copy bundled in the wheel."""
    package = Path(__file__).resolve().parent.parent
    for cand in (package.parent / "meshes", package / "_bundled" / "meshes"):
        if (cand / "demo").is_dir():
            return cand
    raise UsageError("the bundled meshes/ folder is missing from this installation")


def demo_scenario_path() -> Path:
    """The bundled demo table scenario."""
    return bundled_meshes_dir() / "demo" / "table.yaml"
