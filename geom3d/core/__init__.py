"""The ground floor (layer 0): what every other layer may use and that imports nothing
above it.

:mod:`~geom3d.core.errors` (the exception tree), :mod:`~geom3d.core.units` (length units),
:mod:`~geom3d.core.validation` (argument checks), :mod:`~geom3d.core.tolerances` (the
geometric tolerances several layers share; the others live beside their owners),
:mod:`~geom3d.core.output` (deterministic JSON, atomic writes),
:mod:`~geom3d.core.inputfile` (safe bounded reading), :mod:`~geom3d.core.progress`
(the progress display), :mod:`~geom3d.core.runtime` (process settings of a command),
:mod:`~geom3d.core.cache_paths` (the compiled-kernel cache folder),
:mod:`~geom3d.core.scheduler_address` (Dask addresses). Importing this package imports
none of them; every module here is light (numpy at most).
"""

from __future__ import annotations

__all__: list[str] = []
