"""Write the gallery's scenario files (docs/gallery/*.yaml) and the one mesh they make.

Run from the repository root: ``python docs/gallery/make_scenarios.py``. The files are
committed; this script says how they were made (seeded, so it writes the same bytes
again). Every scenario is in the project's own format (docs/scenario-format.md): scenery
as boxes, the bundled meshes of ``meshes/scenery/``, and one terrain heightfield made
here (``scan.ply``: a scanned-looking table of gentle hills, with seeded bumps).

The cases and the figures the gallery draws of each are in ``cases.yaml``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
HEAD = "format: geom3d/1\nunits: {units}\nruleset: {ruleset}\ntable:\n  size: [{w}, {h}]{mesh}\n"


def trooper(tid, side, x, y, facing=None, s=2, extra=""):
    f = f", facing_deg: {facing:g}" if facing is not None else ""
    return f"  - {{id: {tid}, side: {side}, position: [{x:g}, {y:g}]{f}, silhouette: {s}{extra}}}\n"


def box(bid, size, pos, extra=""):
    sx, sy, sz = size
    x, y, z = pos
    return (
        f"  - id: {bid}\n    box: {{size: [{sx:g}, {sy:g}, {sz:g}]}}\n"
        f"    position: [{x:g}, {y:g}, {z:g}]\n{extra}"
    )


def mesh(mid, path, pos, rot=0):
    x, y = pos
    return (
        f"  - id: {mid}\n    mesh: {path}\n    mesh_units: mm\n"
        f"    position: [{x:g}, {y:g}, 0]\n    rotation_deg: {rot:g}\n"
    )


def scenario(comment, troopers, scenery="", attacks="", *, size=(400, 300), units="mm",
             ruleset="infinity", table_mesh=None) -> str:  # fmt: skip
    m = f"\n  mesh: {table_mesh}" if table_mesh else ""
    text = "".join(f"# {line}\n" for line in comment.splitlines())
    text += HEAD.format(units=units, ruleset=ruleset, w=size[0], h=size[1], mesh=m)
    if scenery:
        text += "scenery:\n" + scenery
    text += "troopers:\n" + "".join(troopers)
    if attacks:
        text += "attacks:\n" + attacks
    return text


def squad_table(n: int, seed: int, size=(1200, 1200)):
    """``n`` troopers in two deployment bands, with scattered crates and walls."""
    rng = np.random.default_rng(seed)
    w, h = size
    out = []
    for i in range(n):
        blue = i % 2 == 0
        x = float(np.round(rng.uniform(60, w - 60)))
        y = float(np.round(rng.uniform(60, 0.35 * h) if blue else rng.uniform(0.65 * h, h - 60)))
        side = "blue" if blue else "red"
        out.append(trooper(f"{side}-{i // 2 + 1}", side, x, y, 90 if blue else 270, 2 + i % 3))
    scen = ""
    for k in range(8):
        x, y = rng.uniform(150, w - 150), rng.uniform(0.3 * h, 0.7 * h)
        if k % 2:
            scen += box(f"crate-{k}", (60, 60, 40), (round(x), round(y), 0))
        else:
            scen += box(f"wall-{k}", (200, 15, 45), (round(x), round(y), 0))
    return out, scen


def scan_ply(path: Path, seed: int = 11) -> None:
    """A 600 x 400 mm heightfield of hills (0..45 mm) with seeded bumps, as ASCII PLY."""
    rng = np.random.default_rng(seed)
    nx, ny = 61, 41
    x, y = np.meshgrid(np.linspace(0, 600, nx), np.linspace(0, 400, ny))
    z = 30 * np.exp(-((x - 300) ** 2 + (y - 200) ** 2) / (2 * 80.0**2))
    z += 18 * np.exp(-((x - 480) ** 2 + (y - 90) ** 2) / (2 * 50.0**2))
    z += rng.uniform(0, 1.5, z.shape)  # scan noise
    v = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    faces = []
    for j in range(ny - 1):
        for i in range(nx - 1):
            a = j * nx + i
            faces += [(a, a + 1, a + nx + 1), (a, a + nx + 1, a + nx)]
    lines = [
        "ply", "format ascii 1.0", f"element vertex {len(v)}", "property float x",
        "property float y", "property float z", f"element face {len(faces)}",
        "property list uchar int vertex_indices", "end_header",
    ]  # fmt: skip
    lines += [f"{a:.3f} {b:.3f} {c:.3f}" for a, b, c in v]
    lines += [f"3 {a} {b} {c}" for a, b, c in faces]
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    S = "../../meshes/scenery"
    files: dict[str, str] = {}
    files["duel"] = scenario(
        "Two troopers across open ground: the simplest Line of Fire.",
        [trooper("shooter", "blue", 80, 150, 0), trooper("target", "red", 320, 150, 180)],
    )
    wall = box("low-wall", (8, 160, 30), (200, 150, 0))
    files["peek-visible"] = scenario(
        "A peek over a low wall (30 mm): the standing target's head shows over it.",
        [trooper("a", "blue", 90, 150, 0, 2), trooper("t", "red", 240, 150, 180, 2)],
        wall,
    )
    files["peek-hidden"] = scenario(
        "A peek over a low wall: the target crouches (prone) right behind it: hidden.",
        [
            trooper("a", "blue", 90, 150, 0, 2),
            trooper("t", "red", 225, 150, 180, 2, ", state: [prone]"),
            trooper("far", "red", 340, 60, 180, 2),
        ],
        wall,
    )
    for n, seed in ((16, 3), (40, 4)):
        ts, sc = squad_table(n, seed)
        files[f"table-{n}"] = scenario(
            f"{n} troopers on a 1200 x 1200 mm table with walls and crates (seeded).",
            ts, sc, size=(1200, 1200),
        )  # fmt: skip
    squad = [trooper("gunner", "blue", 60, 150, 0)]
    for i, (x, y) in enumerate([(250, 150), (262, 168), (240, 132), (275, 140), (255, 185),
                                (230, 160), (282, 162), (262, 118)]):  # fmt: skip
        squad.append(trooper(f"squad-{i + 1}", "red", x, y, 180, 2))
    files["squad-template"] = scenario(
        "A crowded squad of eight under one circular impact template.",
        squad,
        box("crate", (30, 30, 25), (150, 200, 0)),
        "  - {id: grenade, attacker: gunner, template: circular, mode: impact, "
        "main_target: squad-1}\n",
    )
    files["impact"] = (HERE.parent / "images" / "impact.yaml").read_text().split("expect:")[0]
    files["teardrop"] = (HERE.parent / "images" / "teardrop.yaml").read_text().split("expect:")[0]
    files["deployable"] = scenario(
        "A deployable mine (76.2 mm circle) placed among three enemies and one ally.",
        [
            trooper("owner", "blue", 60, 60, 0),
            trooper("ally", "blue", 210, 170, 0),
            trooper("e1", "red", 180, 150, 180),
            trooper("e2", "red", 230, 140, 180),
            trooper("e3", "red", 200, 120, 180),
        ],
        "",
        "  - {id: mine, attacker: owner, template: {shape: circle, diameter: 76.2}, "
        "mode: deployable, focus: [205, 145]}\n",
    )
    files["flamer40k"] = (HERE.parent / "images" / "flamer40k.yaml").read_text()
    files["wall-of-death"] = (
        (HERE.parent / "images" / "wall-of-death.yaml").read_text().split("expect:")[0]
    )
    files["hull"] = scenario(
        "Warhammer 40k: a flamer over a vehicle's hull (the side it covers).",
        [
            trooper("flamer", "imperium", 100, 100, extra=", unit: tac"),
            "  - id: rhino\n    side: orks\n    unit: trukk\n    position: [200, 100, 0]\n"
            "    facing_deg: 90\n    vehicle: {hull: {box: {size: [100, 60, 50]}}, "
            "armour: {front: 13, side: 11, rear: 10}}\n",
        ],
        "",
        "  - {id: burn, attacker: flamer, template: flame, main_target: rhino, heading_deg: 0}\n",
        size=(400, 250), ruleset="wh40k-7e",
    )  # fmt: skip
    files["lof-40k-inches"] = scenario(
        "Warhammer 40k in inches: a Line of Fire past a ruin wall.",
        [
            trooper("sarge", "imperium", 4, 9, 0, extra=", unit: tactical"),
            trooper("boy", "orks", 18, 10, 180, 1, ", unit: boyz"),
            trooper("nob", "orks", 19, 6, 180, 3, ", unit: boyz"),
        ],
        box("ruin", (0.5, 5, 2), (11, 9, 0)),
        size=(24, 18), units="in", ruleset="wh40k-7e",
    )  # fmt: skip
    scan_ply(HERE / "scan.ply")
    files["scanned-table"] = scenario(
        "A scanned-looking table: a terrain heightfield (hills to 45 mm) under the troopers.",
        [
            trooper("west", "blue", 80, 200, 0),
            trooper("east", "red", 520, 200, 180),
            trooper("hilltop", "red", 300, 200, 180),
            trooper("south", "blue", 470, 70, 90),
        ],
        size=(600, 400), table_mesh="scan.ply",
    )  # fmt: skip
    files["buildings"] = scenario(
        "The bundled building and container meshes between two fire teams.",
        [
            trooper("b1", "blue", 100, 100, 45), trooper("b2", "blue", 140, 80, 45),
            trooper("r1", "red", 500, 420, 225), trooper("r2", "red", 460, 450, 225),
        ],
        mesh("building", f"{S}/building.stl", (300, 250))
        + mesh("container", f"{S}/container.stl", (150, 380), 90),
        size=(600, 550),
    )  # fmt: skip
    files["window-wall"] = scenario(
        "Line of Fire through a window of the bundled wall mesh.",
        [trooper("inside", "blue", 150, 100, 90), trooper("outside", "red", 160, 320, 270)],
        mesh("wall", f"{S}/wall_windows.stl", (150, 200)),
        size=(300, 400),
    )  # fmt: skip
    files["route-windows"] = scenario(
        "A runner's route past a wall: the stretches where each enemy sees it.",
        [
            "  - {id: runner, side: blue, position: [60, 60], "
            "route: [[60, 60], [60, 250], [340, 250]], silhouette: 2}\n",
            trooper("watch-1", "red", 340, 60, 180),
            trooper("watch-2", "red", 200, 150, 90),
        ],
        box("wall", (10, 120, 60), (130, 120, 0)),
        size=(400, 320),
    )  # fmt: skip
    files["long-lof"] = scenario(
        "A long Line of Fire across a 1200 mm table (zoom about the troopers, not the middle).",
        [trooper("sniper", "blue", 60, 600, 0), trooper("mark", "red", 1140, 620, 180)],
        box("pillar", (40, 40, 80), (600, 400, 0)),
        size=(1200, 1200),
    )  # fmt: skip
    long_ids = [
        "heavy-machine-gunner", "forward-observer", "paramedic-with-medkit", "hacker-killer",
        "sniper-in-camo", "lieutenant-kerr",
    ]  # fmt: skip
    crowd = [trooper("spotter", "blue", 60, 150, 0)]
    for i, tid in enumerate(long_ids):
        crowd.append(
            trooper(tid, "red", 240 + 14 * (i % 3), 120 + 22 * (i // 3) + 6 * i, 180, 1 + i % 4)
        )
    files["long-labels"] = scenario(
        "Six enemies with long names close together: labels must dodge each other.",
        crowd,
        box("hedge", (10, 100, 25), (160, 150, 0)),
    )
    files["silhouettes"] = scenario(
        "Silhouettes 1 to 5 and a prone trooper side by side behind a barricade.",
        [trooper("eye", "blue", 60, 150, 0)]
        + [trooper(f"s{k}", "red", 260, 70 + 30 * k, 180, k) for k in range(1, 6)]
        + [trooper("prone", "red", 230, 110, 180, 2, ", state: [prone]")],
        mesh("barricade", f"{S}/barricade.stl", (170, 150), 90),
    )
    files["edge-of-table"] = scenario(
        "Troopers on the table's very edges and corners (framing must not cut them).",
        [
            trooper("corner", "blue", 12, 12, 45), trooper("edge", "red", 388, 150, 180),
            trooper("top", "red", 200, 290, 270), trooper("mid", "blue", 200, 150, 0),
        ],
        box("block", (40, 40, 50), (300, 60, 0)),
    )  # fmt: skip
    files["maps"] = scenario(
        "Survey and exposure maps: a crowded team by a building, observers on the table's\n"
        "edges and corner, three zones, both sides observing.",
        [
            trooper("blue-1", "blue", 100, 40, 90), trooper("blue-2", "blue", 128, 52, 80),
            trooper("blue-scout", "blue", 12, 200, 0),
            trooper("red-leader", "red", 300, 345, 270),
            trooper("red-gunner", "red", 327, 356, 250),
            trooper("red-medic", "red", 273, 336, 280),
            trooper("red-sniper", "red", 586, 386, 225),
        ],
        box("house", (120, 80, 60), (420, 200, 0)) + box("wall", (160, 10, 30), (200, 250, 0))
        + box("crate", (30, 30, 25), (150, 150, 0)),
        size=(600, 400),
    )  # fmt: skip
    files["maps"] += (
        "zones:\n  - {id: blue-deploy, rect: [0, 0, 600, 80]}\n"
        "  - {id: red-deploy, rect: [0, 320, 600, 400]}\n"
        "  - {id: objective, rect: [250, 160, 350, 240]}\n"
    )
    odds = HERE.parents[1] / "meshes" / "scenarios" / "attacks" / "grenade_odds.yaml"
    files["danger"] = odds.read_text().split("expect:")[0]  # t2 has an ARO profile
    for name, text in files.items():
        (HERE / f"{name}.yaml").write_text(text)


if __name__ == "__main__":
    main()
