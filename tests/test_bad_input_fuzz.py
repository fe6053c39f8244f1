"""Bad input never escapes as a traceback: mutated scenarios either load or raise one
Geom3dError (which the CLI turns into exit 2 and one line)."""

from __future__ import annotations

import copy
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import key_paths, set_path

from geom3d.api import build_scene
from geom3d.core.errors import Geom3dError
from geom3d.scenario import load_scenario, parse_scenario

BASE = {
    "format": "geom3d/1",
    "units": "mm",
    "ruleset": "infinity",
    "table": {"size": [600, 600]},
    "scenery": [
        {"id": "wall", "box": {"size": [10, 100, 60]}, "position": [150, 0, 0], "rotation_deg": 15},
    ],
    "troopers": [
        {"id": "a", "side": "blue", "position": [0, 0], "facing_deg": 0, "silhouette": 2},
        {
            "id": "b",
            "side": "red",
            "position": [300, 40],
            "silhouette": {"diameter": 25, "height": 40},
        },
        {
            "id": "c",
            "side": "red",
            "position": [200, 200, 0],
            "state": ["prone"],
            "route": [[200, 200], [250, 250]],
        },
    ],
    "attacks": [
        {
            "id": "s1",
            "attacker": "a",
            "template": "small_teardrop",
            "mode": "direct",
            "main_target": "b",
            "heading_deg": 10,
        },
        {
            "id": "s2",
            "attacker": "a",
            "template": {"shape": "circle", "diameter": 50},
            "mode": "impact",
            "main_target": "b",
        },
    ],
    "expect": {
        "lof": [{"from": "a", "to": "b", "lof": True}],
        "attacks": {"s1": {"outcome": "resolved"}},
    },
}

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.lists(st.integers(-5, 5), max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


ALL_PATHS = [p for p in key_paths(BASE) if p]


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.lists(
        st.tuples(st.sampled_from(ALL_PATHS), JUNK, st.booleans()),
        min_size=1,
        max_size=3,
    )
)
def test_mutated_scenarios_load_or_raise_one_clear_error(mutations):
    data = copy.deepcopy(BASE)
    for path, value, delete in mutations:
        try:
            set_path(data, path, value, delete)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed or replaced the parent
    try:
        scene = build_scene(parse_scenario(data, file="fuzz.yaml"))
    except Geom3dError as exc:
        text = str(exc)
        assert text.startswith("fuzz.yaml"), text
        assert "\n" not in text and "Traceback" not in text
        return
    # whatever loads can be queried
    for t in scene.troopers.values():
        assert all(math.isfinite(v) for v in t.position)
    scene.lof_matrix()
    for a in scene.scenario.attacks:
        scene.resolve_attack(a.id).to_dict()


# ------------------------------------------------------------------ whole files, as bytes
def _yaml_text() -> bytes:
    import yaml

    return yaml.safe_dump(BASE, sort_keys=False).encode()


def _json_text() -> bytes:
    import json

    return json.dumps(BASE, indent=1).encode()


#: Byte strings that hit the reader's limits and the parsers' corners.
NASTY = [
    b"&a [*a]",
    b"*a",
    b"<<: *a",
    b"\x00",
    b"\xff\xfe",
    b"\x1b]0;x\x07",
    b"'\\ud800'",
    b'"\\ud800"',
    b"9" * 50,
    b"[" * 80,
    b"{" * 80,
    b"!!python/object:os.system",
    b"2024-13-45",
    b"1e999",
    b"- ",
    b": ",
    b"\n  ",
    b"\t",
]


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.sampled_from([".yaml", ".json"]),
    st.lists(
        st.tuples(
            st.integers(0, 10_000),
            st.integers(0, 8),
            st.one_of(st.sampled_from(NASTY), st.binary(max_size=6)),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_mutated_files_load_or_raise_one_clear_error(tmp_path_factory, suffix, edits):
    """Bytes spliced into a valid file: it loads, or one printable ScenarioError line."""
    data = bytearray(_yaml_text() if suffix == ".yaml" else _json_text())
    for at, cut, insert in edits:
        at %= len(data) + 1
        data[at : at + cut] = insert
    path = tmp_path_factory.mktemp("fuzz") / f"fuzz{suffix}"
    path.write_bytes(bytes(data))
    try:
        load_scenario(path)
    except Geom3dError as exc:
        text = str(exc)
        assert text.startswith(str(path)), text
        assert text.isprintable(), repr(text)
        text.encode("utf-8")
