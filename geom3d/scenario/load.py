"""Reading a scenario: the file, then its schema, then (only if that holds) its sections.

:func:`load_scenario` reads YAML or JSON (:mod:`.reader`); :func:`parse_scenario` checks
the raw schema (:func:`.schema.check_schema`: unknown keys, wrong types, unknown units)
and then hands the model to :func:`.parse.parse_model`, which checks each section and
needs the template geometry. This module and what it imports before that step are light
(pydantic, PyYAML and geom3d's core), so bad input is answered before numba, trimesh,
scipy or Embree load, as ``geom3d --help`` is (SPEC 12.3; ``tests/scenario/test_load.py``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from geom3d.scenario.reader import read_scenario_data
from geom3d.scenario.schema import check_schema

if TYPE_CHECKING:
    from geom3d.scenario.model import Scenario

__all__ = ["load_scenario", "parse_scenario"]


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and validate a scenario file (YAML or JSON).

    Parameters
    ----------
    path : str or os.PathLike

    Raises
    ------
    ScenarioError
        With file and field path, for every problem SPEC section 10 lists.
    """
    p = Path(path)
    data = read_scenario_data(p)
    return parse_scenario(data, file=str(path), base_dir=p.resolve().parent, path=p)


def parse_scenario(
    data: object,
    *,
    file: str = "<scenario>",
    base_dir: str | os.PathLike[str] | None = None,
    path: str | os.PathLike[str] | None = None,
) -> Scenario:
    """Validate an already-parsed scenario mapping. See :func:`load_scenario`."""
    raw = check_schema(data, file)  # before the sections' geometry is imported
    from geom3d.scenario.parse import parse_model

    return parse_model(raw, file=file, base_dir=base_dir, path=path)
