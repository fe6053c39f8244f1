"""``geom3d demo``: the bundled demo table end to end (Line of Fire, attacks, diagrams)."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from geom3d.commands._common import (
    EXIT_OK,
    add_quiet,
    demo_scenario_path,
    load_for_command,
    progress_for,
    renderer,
    subparser,
    warn_scene,
)
from geom3d.core.errors import UsageError
from geom3d.core.tolerances import PROOF_MIN_PAIRS

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """Register ``demo`` on the CLI's subparsers."""
    d = subparser(
        sub,
        "demo",
        "run the bundled demo table end to end",
        "Loads the bundled demo table (meshes/demo/table.yaml), prints its troopers, the\n"
        "Line of Fire table and matrix and the attacks, and writes lof.json, attacks.json\n"
        "and (with the viewer extra) diagrams into --out.",
        ["geom3d demo", "geom3d demo --out demo-out --quiet"],
    )
    d.add_argument(
        "--out",
        default="geom3d-demo",
        metavar="DIR",
        help="folder for the JSON files and diagrams, created if missing (default: geom3d-demo)",
    )
    add_quiet(d)
    d.set_defaults(func=run)
    return d


def run(args: argparse.Namespace) -> int:
    """Run the demo; print what it found and wrote."""
    from geom3d.commands.answers import (
        attack_report,
        attack_table,
        lof_matrix_text,
        lof_report,
        lof_table,
    )
    from geom3d.commands.lof import all_pairs
    from geom3d.core.output import atomic_write, dumps_json

    path = demo_scenario_path()
    out_dir = Path(args.out)
    try:  # made first (atomic_write never creates folders): a bad --out fails before the work
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--out: cannot create the folder {args.out}: {exc.strerror}") from None
    from geom3d.commands._guard import referenced_files, refuse_overwrite

    names = ("lof.json", "attacks.json", "plan.png")  # never over the bundled table's files
    refuse_overwrite([("--out", out_dir / n) for n in names], referenced_files(path))
    t0 = time.perf_counter()
    scene = load_for_command(path, lambda scn: all_pairs(scn) >= PROOF_MIN_PAIRS, quiet=args.quiet)
    load_s = time.perf_counter() - t0
    warn_scene(scene, args)
    s = scene.summary()
    print(f"geom3d demo - {path}")
    print(
        f"  ruleset {s['ruleset']}, {s['scenery_elements']} scenery elements, "
        f"{s['triangles']} triangles ({s['blocking_triangles']} blocking), "
        f"{len(s['troopers'])} troopers, loaded in {load_s:.2f} s"
    )
    t0 = time.perf_counter()
    with progress_for(args, "Line of Fire") as bar:
        doc = lof_report(scene, progress=bar)
    lof_s = time.perf_counter() - t0
    print(lof_table(doc))
    print(lof_matrix_text(doc))
    print(f"  Line of Fire matrix: {len(doc['pairs'])} ordered pairs in {lof_s:.2f} s")
    if scene.scenario.attacks:
        t0 = time.perf_counter()
        adoc = attack_report(scene)
        print(attack_table(adoc))
        print(f"  {len(adoc['attacks'])} attacks resolved in {time.perf_counter() - t0:.2f} s")
    atomic_write(out_dir / "lof.json", dumps_json(doc))
    print(f"  wrote {out_dir / 'lof.json'}")
    if scene.scenario.attacks:
        atomic_write(out_dir / "attacks.json", dumps_json(adoc))
        print(f"  wrote {out_dir / 'attacks.json'}")
    try:
        render_mod = renderer()
    except UsageError as exc:
        print(f"  diagrams skipped: {exc}")
        return EXIT_OK
    for p in render_mod.demo_diagrams(scene, out_dir, doc):
        print(f"  wrote {p}")
    return EXIT_OK
