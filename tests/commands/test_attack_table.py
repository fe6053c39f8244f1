"""``geom3d attack --format table`` (issue 48): what the JSON knows is in the table, in
100 columns by default (``--wide``: every column); 40k ``maximal: false`` in the table
and on stderr; plain BS attacks' range and cover."""

from __future__ import annotations

import yaml

from geom3d.cli import main


def _write(tmp_path, doc):
    p = tmp_path / "s.yaml"
    p.write_text(yaml.safe_dump(doc))
    return p


def _run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_40k_not_maximal_is_in_the_table_and_on_stderr(tmp_path, capsys):
    # tests/rules/test_wh40k_round3.py, ruling A2: heading 0 covers 1 of the 5 possible
    def model(id_, xy, side="chaos", unit="cultists", diameter=25.0):
        return {"id": id_, "side": side, "unit": unit, "position": [xy[0], xy[1], 0.0],
                "silhouette": {"diameter": diameter, "height": 30}}  # fmt: skip

    ms = [model("firer", (100, 100), "imperium", "tac", 32.0), model("e", (200, 100))]
    ms += [model(f"n{k}", (100, 100 + d)) for k, d in enumerate((50, 80, 110, 140, 170))]
    doc = {"format": "geom3d/1", "units": "mm", "ruleset": "wh40k-7e", "troopers": ms,
           "attacks": [{"id": "east", "attacker": "firer", "template": "flame",
                        "target_unit": "cultists", "heading_deg": 0}]}  # fmt: skip
    rc, out, err = _run(capsys, "attack", str(_write(tmp_path, doc)), "--format", "table")
    assert rc == 0
    assert "not maximal: 5 possible" in out
    assert "geom3d: warning: attack 'east' placement 0: the template covers 1 models" in err


def _plain_doc():
    w = {"burst": 3, "ps": 5, "ranges": [{"to": 8, "mod": 3}, {"to": 16, "mod": 0},
                                         {"to": 32, "mod": -3}]}  # fmt: skip
    back = {"attack": {"ps": 4, "ranges": [{"to": 16, "mod": 0}, {"to": 32, "mod": 3}]}}
    return {
        "format": "geom3d/1",
        "units": "in",
        "troopers": [
            {"id": "a", "side": "blue", "position": [2, 2], "stats": {"bs": 13, "arm": 1,
                                                                      "wounds": 1}},
            {"id": "hmg", "side": "red", "position": [20, 2], "facing_deg": 180,
             "stats": {"bs": 12, "arm": 2, "wounds": 1}, "reaction": back},
        ],
        "attacks": [{"id": "rifle", "attacker": "a", "target": "hmg", "weapon": w}],
    }  # fmt: skip


def test_plain_attack_table_compact_and_wide(tmp_path, capsys):
    p = _write(tmp_path, _plain_doc())
    rc, out, _ = _run(capsys, "attack", str(p), "--odds", "--format", "table")
    assert rc == 0
    # 18 in between centres, bases 25 mm: 18 - 25 / 25.4 = 17.016 in: band 16-32, -3
    assert "rifle: hmg at 17.0157 in (band 16-32, MOD -3), no Partial Cover" in out
    assert max(len(line) for line in out.splitlines()) <= 100
    row = next(line for line in out.splitlines() if line.startswith("│ rifle") and "@" in line)
    assert "│ B3 │ 3@10 vs 1@15" in row  # 13 - 3 against 12 + 3 (its 16-32 band)
    assert "P(crit)" not in out and "E(saves)" not in out
    rc, wide, _ = _run(capsys, "attack", str(p), "--odds", "--format", "table", "--wide")
    assert "P(crit)" in wide and "E(saves)" in wide and "W dist %" in wide


def test_a_trooper_shooting_back_at_a_direct_template_shows_its_dice(tmp_path, capsys):
    doc = _plain_doc()
    doc["units"] = "mm"
    doc["troopers"][0]["position"] = [100, 100]
    doc["troopers"][1]["position"] = [200, 100]
    doc["troopers"][1]["reaction"] = {"attack": {"ps": 4, "burst": 3}}
    doc["attacks"] = [{"id": "flame", "attacker": "a", "template": "small_teardrop",
                       "main_target": "hmg", "weapon": {"ps": 5}}]  # fmt: skip
    rc, out, _ = _run(capsys, "attack", str(_write(tmp_path, doc)), "--odds", "--format", "table")
    assert rc == 0
    row = next(line for line in out.splitlines() if line.startswith("│ flame") and "B1" in line)
    assert "no roll" in row and "1@12 " in row  # its ARO: 1 die at BS 12 (B3 declared)
