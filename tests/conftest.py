"""pytest set-up: a per-run mesh cache and a fresh scene cache around every test.

Helpers that build scenes in code live in ``tests/support.py`` (``from support import ...``).
"""

from __future__ import annotations

import gc
import os

import pytest

from geom3d.scene.scene import clear_scene_cache


def pytest_configure(config):
    # parsed-mesh cache in a per-run temporary folder, never in the user's ~/.cache
    if "GEOM3D_CACHE_DIR" not in os.environ:
        import tempfile

        os.environ["GEOM3D_CACHE_DIR"] = tempfile.mkdtemp(prefix="geom3d-test-cache-")
        config._geom3d_cache = os.environ["GEOM3D_CACHE_DIR"]


def pytest_unconfigure(config):
    path = getattr(config, "_geom3d_cache", None)
    if path:
        import shutil

        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True, scope="session")
def _kernels_prepared():
    """Compile every kernel once, quietly, before the first test: a command run in a test
    would otherwise print the first-run notice (geom3d.commands._prepare) on stderr."""
    from geom3d.commands._prepare import prepare_kernels

    prepare_kernels(quiet=True)


@pytest.fixture(autouse=True)
def _fresh_scene_cache():
    clear_scene_cache()
    yield
    clear_scene_cache()


@pytest.fixture(autouse=True)
def _collectable_heap():
    """The command line freezes its process's heap once a scene is loaded
    (:func:`geom3d.core.runtime.settle_heap`); tests run it in this process, so every test ends
    with everything collectable again."""
    yield
    if gc.get_freeze_count():
        gc.unfreeze()
