"""A small table for the ``geom3d serve`` tests, written in code: a wall, a building whose
roof is 80 mm up, a sealed crate, four troopers and one template attack."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

#: The wall runs along x at y = 300 (10 mm thick, 60 mm tall: taller than an S2).
WALL = {"id": "wall", "box": {"size": [200, 10, 60]}, "position": [300, 300, 0]}
#: A closed building, 100 x 100 mm, roof at z = 80 mm.
BUILDING = {"id": "building", "box": {"size": [100, 100, 80]}, "position": [450, 450, 0]}
#: A sealed crate: a closed box with nothing open into it.
CRATE = {"id": "crate", "box": {"size": [60, 60, 50]}, "position": [150, 450, 0]}


def table_data() -> dict:
    """The scenario data (a fresh deep copy: tests may change it)."""
    return copy.deepcopy(_table_data())


def _table_data() -> dict:
    return {
        "format": "geom3d/1",
        "units": "mm",
        "ruleset": "infinity",
        "table": {"size": [600, 600]},
        "scenery": [WALL, BUILDING, CRATE],
        "troopers": [
            {"id": "a", "side": "blue", "position": [300, 200], "facing_deg": 90, "silhouette": 2},
            {"id": "b", "side": "red", "position": [300, 420], "facing_deg": 270, "silhouette": 2},
            {"id": "c", "side": "red", "position": [100, 100], "facing_deg": 45, "silhouette": 2},
            {"id": "d", "side": "blue", "position": [520, 150], "facing_deg": 180, "silhouette": 3},
        ],
        "attacks": [
            {
                "id": "grenade",
                "attacker": "d",
                "template": "circular",
                "mode": "impact",
                "main_target": "c",
                "burst": 1,
            }
        ],
    }


@pytest.fixture
def table_file(tmp_path: Path) -> Path:
    """The table as a YAML file in a fresh folder."""
    path = tmp_path / "table.yaml"
    path.write_text(yaml.safe_dump(table_data(), sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def table_dict() -> dict:
    """The table's scenario data (a fresh copy)."""
    return table_data()
