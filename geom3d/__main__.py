"""``python -m geom3d``: the ``geom3d`` command line."""

from __future__ import annotations

import sys

from geom3d.cli import main

__all__: list[str] = []

sys.exit(main())
