"""``geom3d lof``'s pair cap (issue 44 item 6, SPEC 13.4): like ``survey``'s, refused in
one line naming the options that lift it, before kernels or meshes are loaded."""

from __future__ import annotations

import argparse
import json

from geom3d.cli import main
from geom3d.commands.lof import LOF_MAX_PAIRS, check_lof_pairs
from geom3d.scenario import parse_scenario


def _doc(n: int) -> dict:
    troopers = [
        {"id": f"t{i}", "side": "blue" if i % 2 else "red", "position": [10 + 30 * (i % 40), 0]}
        for i in range(n)
    ]
    return {"format": "geom3d/1", "units": "mm", "ruleset": "infinity",
            "table": {"size": [1200, 1200]}, "troopers": troopers}  # fmt: skip


def test_lof_refuses_more_pairs_than_its_cap(tmp_path, capsys, monkeypatch):
    import geom3d.commands._prepare as prepare

    def never(**kw):
        raise AssertionError("refused after the kernels were made ready")

    monkeypatch.setattr(prepare, "prepare_kernels", never)
    path = tmp_path / "crowd.json"
    path.write_text(json.dumps(_doc(1001)))  # 1001 x 1000 ordered pairs
    assert main(["lof", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "geom3d: error: 1,001 troopers make 1,001,000 ordered pairs, more than the "
        "1,000,000 one lof may answer (about 0.3 GiB of JSON); choose fewer pairs with "
        "--from A and/or --to B\n"
    )


def test_from_or_to_lift_the_cap():
    assert LOF_MAX_PAIRS == 1_000_000
    scenario = parse_scenario(_doc(1001))

    def args(a=None, b=None):
        return argparse.Namespace(from_id=a, to_id=b)

    for chosen in (args("t0"), args(None, "t1"), args("t0", "t1")):
        check_lof_pairs(scenario, chosen)  # 1,000 pairs or one: no refusal
    check_lof_pairs(parse_scenario(_doc(1000)), args())  # 999,000 pairs: within the cap
