"""Where compiled kernels are cached: a folder per version of the kernels' sources.

numba checks a cached kernel only against its own source file. A kernel that calls (and
so embeds) a kernel of another file, or freezes a constant of :mod:`geom3d.tolerances`,
would load stale code after that other file changed; a folder per digest of all of them
never does.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["kernel_sources_digest"]


def kernel_sources_digest() -> str:
    """16 hex digits of SHA-256 over every geom3d module that defines compiled kernels
    (its text mentions ``njit``) and :mod:`geom3d.tolerances`, in path order: what the
    compiled cache depends on (see the module docstring)."""
    root = Path(__file__).parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        text = p.read_bytes()
        if b"njit" in text or p.name == "tolerances.py":
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + text)
    return h.hexdigest()[:16]
