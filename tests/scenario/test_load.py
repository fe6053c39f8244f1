"""Bad input at once (SPEC 12.3, issue 49): a scenario whose schema fails (an unknown key,
a value of the wrong type, unknown units) is answered, one line and exit 2, before any
engine module loads; seen with ``python -X importtime`` in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from geom3d.core.errors import ScenarioError
from geom3d.scenario import parse_scenario

REPO = Path(__file__).resolve().parents[2]

#: What a schema error may not load: compiled code, geometry, numpy, the engine.
ENGINE = ("numba", "trimesh", "scipy", "embreex", "numpy", "llvmlite", "pyvista", "vtk")
ENGINE_GEOM3D = (
    "geom3d.raycast.",
    "geom3d.visibility",
    "geom3d.mesh",
    "geom3d.templates",
    "geom3d.bodies",
    "geom3d.scene",
    "geom3d.rules",
    "geom3d.api",
    "geom3d.scenario.parse",
)

GOOD = """format: geom3d/1
units: mm
ruleset: infinity
troopers:
  - {id: a, side: blue, position: [0, 0], facing_deg: 0, silhouette: 2}
"""

BAD = {
    "unknown key": (GOOD + "bogus: 1\n", "bogus: unknown key 'bogus'"),
    "wrong type": (GOOD.replace("facing_deg: 0", "facing_deg: east"), "troopers[0].facing_deg"),
    "bad units": (GOOD.replace("units: mm", "units: furlongs"), "units:"),
}


def _run(tmp_path: Path, text: str, *argv: str) -> tuple[int, str, set[str]]:
    """Exit code, stderr without the import lines, and every module imported."""
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "geom3d", *argv, str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    err, loaded = [], set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            loaded.add(line.rsplit("|", 1)[1].strip())
        else:
            err.append(line)
    return done.returncode, "\n".join(err), loaded


def _engine(loaded: set[str]) -> list[str]:
    return sorted(
        m
        for m in loaded
        if m.split(".")[0] in ENGINE or any(m.startswith(p) for p in ENGINE_GEOM3D)
    )


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_schema_error_loads_no_engine_module(tmp_path, case):
    text, message = BAD[case]
    code, err, loaded = _run(tmp_path, text, "lof")
    assert code == 2 and err.startswith("geom3d: error: ") and message in err
    assert len(err.splitlines()) == 1, err
    assert "geom3d.scenario.schema" in loaded  # the probe saw the parse
    assert _engine(loaded) == []


COMMANDS = [
    ("attack",),
    ("survey",),
    ("exposure", "--observers", "a"),
    ("render", "--out", "x.png"),
    ("view",),
    ("--ray-backend", "reference", "lof"),
]


@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_every_scenario_command_answers_a_schema_error_at_once(tmp_path, argv):
    code, err, loaded = _run(tmp_path, BAD["unknown key"][0], *argv)
    assert (code, err) == (2, f"geom3d: error: {tmp_path / 'bad.yaml'}: bogus: unknown key 'bogus'")
    assert _engine(loaded) == []


def test_the_probe_sees_the_engine_when_the_scenario_is_good(tmp_path):
    """The same run on a good scenario loads the engine: the test above can fail."""
    code, _err, loaded = _run(tmp_path, GOOD, "lof", "--quiet")
    assert code == 0
    assert {"numba", "geom3d.visibility", "geom3d.scenario.parse"} <= loaded


def test_the_schema_comes_before_the_sections():
    """A file with a schema error and a section error reports the schema's."""
    data = {"format": "geom3d/1", "bogus": 1, "troopers": [
        {"id": "a", "side": "blue", "position": [0, 0], "silhouette": 99}]}  # fmt: skip
    with pytest.raises(ScenarioError, match=r"^s\.yaml: bogus: unknown key"):
        parse_scenario(data, file="s.yaml")
    data.pop("bogus")
    with pytest.raises(ScenarioError, match=r"troopers\[0\]\.silhouette: unknown silhouette"):
        parse_scenario(data, file="s.yaml")
