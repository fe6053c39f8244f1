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
    fig, _ = exposure_figure(scene, _doc())
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


def test_a_40k_map_draws_each_vehicles_hull():
    # the rhino's box hull (100 x 60, front along +y at (50, 50)) is drawn as its plan
    # rectangle, with a legend entry; both observers keep their front arcs (the 40k
    # ruleset's arc is 180°, as for lof)
    rhino = {
        "id": "q",
        "side": "red",
        "position": [50, 50, 0],
        "facing_deg": 90,
        "vehicle": {
            "hull": {"box": {"size": [100, 60, 50]}},
            "armour": {"front": 11, "side": 11, "rear": 10},
        },
    }
    scene = make_scene(
        [trooper("o", [10, 50], side="red"), rhino], table={"size": [100, 100]}, ruleset="wh40k-7e"
    )
    fig, _ = exposure_figure(scene, _doc())
    ax = fig.axes[0]
    assert len([p for p in ax.patches if type(p).__name__ == "Wedge"]) == 2
    (hull,) = [p for p in ax.patches if type(p).__name__ == "Polygon"]
    xy = np.asarray(hull.get_xy())
    assert np.allclose([xy[:, 0].min(), xy[:, 0].max()], [20.0, 80.0])
    assert np.allclose([xy[:, 1].min(), xy[:, 1].max()], [0.0, 100.0])
    labels = [" ".join(t.get_text().split()) for t in fig.legends[0].get_texts()]
    assert "vehicle hull" in labels and "observer's front arc" in labels


def test_a_danger_map_is_coloured_by_p_hit_and_names_its_profiles():
    # exposure --odds (SPEC 13.2): the cells carry p_hit, the legend names the AROs
    doc = _doc()
    for cell, p in zip(doc["cells"], (0.0, 0.45, 0.6975, 0.25), strict=True):
        cell["p_hit"] = p
    doc["odds"] = {
        "profiles": {
            "o": {"attribute": "bs", "value": 12, "mod": 0, "reaction_mod": 0, "burst": 1,
                  "ranges": [{"to": 8.0, "mod": 3}]},
            "q": {"attribute": "bs", "value": 10, "mod": 1, "reaction_mod": 0, "burst": 1,
                  "ranges": None},
        }
    }  # fmt: skip
    scene = make_scene(
        [trooper("o", [10, 50], side="red"), trooper("q", [90, 90], side="red", facing_deg=225)],
        table={"size": [100, 100]},
    )
    fig, _ = exposure_figure(scene, doc)
    ax = fig.axes[0]
    grid = np.asarray(ax.images[-1].get_array())
    assert grid[0, 0] == 0.0 and grid[0, 1] == pytest.approx(0.45)
    assert grid[1, 0] == pytest.approx(0.6975)
    labels = [" ".join(t.get_text().split()) for t in fig.legends[0].get_texts()]
    assert any("o BS 12+0, 1 range bands" in t and "q BS 10+1, no ranges" in t for t in labels)
    assert "safe: P(hit) 0" in labels
    names = " ".join(t.get_text() for t in fig.texts if t.get_gid().startswith("colorbar-name"))
    assert names == "P(hit) by at least one ARO"
