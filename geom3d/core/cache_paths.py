"""Where geom3d caches: the cache folder (parsed meshes, closed solids, proof maps) and,
under it, the compiled kernels, a folder per version of the kernels' sources.

numba checks a cached kernel only against its own source file. A kernel that calls (and
so embeds) a kernel of another file, or freezes a constant of :mod:`geom3d.core.tolerances`,
would load stale code after that other file changed; a folder per digest of all of them
never does.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["default_cache_dir", "kernel_cache_dir", "kernel_sources_digest"]


def default_cache_dir() -> Path:
    """The disk cache directory used when ``cache_dir`` is not given.

    ``$GEOM3D_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/geom3d``, else
    ``~/.cache/geom3d``.
    """
    env = os.environ.get("GEOM3D_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "geom3d"


def kernel_sources_digest() -> str:
    """16 hex digits of SHA-256 over every geom3d module that defines compiled kernels
    (its text mentions ``njit``) and :mod:`geom3d.core.tolerances`, in path order: what the
    compiled cache depends on (see the module docstring)."""
    root = Path(__file__).parent.parent  # the geom3d package
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        text = p.read_bytes()
        if b"njit" in text or p.name == "tolerances.py":
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + text)
    return h.hexdigest()[:16]


def kernel_cache_dir() -> Path:
    """The folder numba caches geom3d's compiled kernels in: ``$NUMBA_CACHE_DIR`` if set,
    else ``numba/<digest>`` under the mesh cache folder (:func:`kernel_sources_digest`)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    if env:
        return Path(env)
    return default_cache_dir() / "numba" / kernel_sources_digest()
