"""Output documents: deterministic JSON, rounding for reports, and atomic file writes.

Every JSON answer geom3d prints or writes goes through :func:`dumps_json`, and every
number in it through :func:`round_value` / :func:`round_point`, so the same input gives
byte-identical output. Files are written with :func:`atomic_write`: a reader never sees a
half-written report.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write", "dumps_json", "round_point", "round_value"]

#: Decimal places kept for lengths (mm) and angles (degrees) in reports: 1 µm / 0.001°.
REPORT_DECIMALS = 3


def round_value(x: float | None, nd: int = REPORT_DECIMALS) -> float | None:
    """``x`` rounded to ``nd`` places, with ``-0.0`` folded to ``0.0``; None stays None.

    Non-finite values become None (JSON has no NaN).
    """
    if x is None:
        return None
    v = round(float(x), nd) + 0.0
    return v if math.isfinite(v) else None


def round_point(p, nd: int = REPORT_DECIMALS) -> list[float] | None:
    """A point (any length) as a list of rounded floats; None stays None."""
    return None if p is None else [round_value(v, nd) for v in p]


def dumps_json(obj) -> str:
    """Deterministic JSON: same input, byte-identical output."""
    return json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def atomic_write(path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file and a rename (never half-written)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give it a normal file's mode
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
