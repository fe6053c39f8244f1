"""Every mesh test gets an empty memory cache and a private default disk cache."""

from __future__ import annotations

import pytest

from geom3d.mesh import clear_memory_cache


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Every test gets an empty memory cache and a private default disk cache."""
    monkeypatch.setenv("GEOM3D_CACHE_DIR", str(tmp_path / "default-cache"))
    clear_memory_cache()
    yield
    clear_memory_cache()
