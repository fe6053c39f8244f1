"""The exposure map's figure: counts per spot, safe ground, observers and arcs."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from tests.support import make_scene, trooper
from viewer.exposure import exposure_figure, render_exposure


def _doc():
    cells = [
        {"position": [25.0, 25.0, 0.0], "level": 0, "seen_by": []},
        {"position": [75.0, 25.0, 0.0], "level": 0, "seen_by": ["o"]},
        {"position": [25.0, 75.0, 0.0], "level": 0, "seen_by": ["o", "q"]},
        {"position": [75.0, 75.0, 40.0], "level": 1, "seen_by": ["q"]},
    ]
    return {
        "scenario": "t.yaml",
        "observers": ["o", "q"],
        "observer_positions": [
            {"id": "o", "position": [10.0, 50.0, 0.0], "facing_deg": 0.0},
            {"id": "q", "position": [90.0, 90.0, 0.0], "facing_deg": 225.0},
        ],
        "probe": {"silhouette": 2, "diameter_mm": 25.0, "height_mm": 40.0},
        "spacing_mm": 50.0,
        "ignore_arcs": False,
        "cells": cells,
        "safe_share": 0.25,
    }


def test_the_map_holds_the_counts_and_draws_each_observers_arc():
    scene = make_scene(
        [trooper("o", [10, 50], side="red"), trooper("q", [90, 90], side="red", facing_deg=225)],
        table={"size": [100, 100]},
    )
    fig = exposure_figure(scene, _doc())
    ax = fig.axes[0]
    (img,) = ax.images[-1:]
    grid = np.asarray(img.get_array())
    # level 0: rows of constant y from the bottom; the level-1 spot is a marker instead
    assert grid[0, 0] == 0 and grid[0, 1] == 1 and grid[1, 0] == 2
    assert np.ma.is_masked(grid[1, 1]) or np.isnan(grid[1, 1])
    wedges = [p for p in ax.patches if type(p).__name__ == "Wedge"]
    assert sorted((w.theta1, w.theta2) for w in wedges) == [(-90.0, 90.0), (135.0, 315.0)]
    files = render_exposure(scene, _doc())
    assert set(files) == {"exposure.png", "exposure.svg"}
    assert render_exposure(scene, _doc())["exposure.svg"] == files["exposure.svg"]
