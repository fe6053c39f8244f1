"""Compare settings of the Line of Fire search pair by pair, interleaved, in one process.

A module constant the search reads at run time (a proof budget, a share, a flag) is set
to each variant's values in turn for every unordered pair of a ``bench_lof.py`` table,
each pair is timed under every variant twice, and the best time of each is summed. The
variants take turns on the same pair within milliseconds, so a machine whose speed drifts
(a shared 2-core VM: 5 to 10 % between two whole matrices) slows them alike, where timing
whole matrices one after the other could not tell a 2 % change from the noise.

The first variant is the code as it is (``base``) and the last is the same again
(``base again``): what a variant gains only from running later in each turn (warm
caches; 1 to 2 % here) shows as ``base again``'s ratio, so read each variant against
both. Every variant must give the same answers (each pair's witness eye and viewer) as
``base``; a line says so.

Usage::

    python benchmarks/ab_pairs.py --table scan \\
        "small:geom3d.visibility.proof.PROOF_WALL_BUNDLES=4" \\
        "big:geom3d.visibility.proof.PROOF_WALL_BUNDLES=64,geom3d.visibility.proof.PROOF_MAX_BUNDLES=16"

A setting is ``module.attribute=value`` with a Python literal value; set it on the module
that reads it (a name imported with ``from ... import`` is read from the importing
module).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_lof

Setting = tuple[object, str, object]


def parse_variant(spec: str) -> tuple[str, list[Setting]]:
    """``NAME:module.attr=value,...`` -> (name, [(module, attr, value), ...])."""
    name, _, body = spec.partition(":")
    if not name or not body:
        raise SystemExit(f"ab_pairs: {spec!r}: expected NAME:module.attribute=value,...")
    out = []
    for item in body.split(","):
        key, _, text = item.partition("=")
        mod_name, _, attr = key.strip().rpartition(".")
        module = importlib.import_module(mod_name)
        if not hasattr(module, attr):
            raise SystemExit(f"ab_pairs: {mod_name} has no attribute {attr}")
        out.append((module, attr, ast.literal_eval(text.strip())))
    return name, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", choices=bench_lof.TABLES, default="scan")
    ap.add_argument("--triangles", type=int, default=1_000_000)
    ap.add_argument("--troopers", type=int, default=40)
    ap.add_argument("variants", nargs="+", metavar="NAME:module.attr=value,...")
    args = ap.parse_args(argv)
    from geom3d.adjudication.lof import pair_visibility
    from geom3d.commands._common import load_for_command
    from geom3d.scene.ahead import settle_background

    variants = [("base", []), *map(parse_variant, args.variants), ("base again", [])]
    plain = {(m, a): getattr(m, a) for _, sets in variants for m, a, _ in sets}

    def use(sets: list[Setting]) -> None:
        for (module, attr), value in plain.items():
            setattr(module, attr, value)
        for module, attr, value in sets:
            setattr(module, attr, value)

    bench_lof.TABLE["kind"] = args.table
    with tempfile.TemporaryDirectory() as tmp:
        table = bench_lof.write_table(args.triangles, Path(tmp))
        path = Path(tmp) / "scenario.json"
        path.write_text(json.dumps(bench_lof.scenario_fn()(table, args.troopers)))
        scene = load_for_command(path, lambda s: True, quiet=True)
        _ = scene.prover
        settle_background()
        scene.lof_matrix(threads=1)  # every kernel loaded
        troopers = list(scene.troopers.values())
        total = {name: 0.0 for name, _ in variants}
        answers: dict[str, list] = {name: [] for name, _ in variants}
        for i, a in enumerate(troopers):
            for b in troopers[i + 1 :]:
                best: dict[str, float] = {}
                for turn in range(2):
                    for name, sets in variants:
                        use(sets)
                        t0 = time.perf_counter()
                        w, viewer = pair_visibility(scene, a, b)
                        took = time.perf_counter() - t0
                        best[name] = min(best.get(name, took), took)
                        if turn == 0:
                            answers[name].append((None if w is None else tuple(w.eye), viewer))
                for name, took in best.items():
                    total[name] += took
        use([])
    n_pairs = len(answers["base"])
    print(f"table {args.table}: {n_pairs} unordered pairs, best of 2 per pair and variant")
    for name, _ in variants:
        same = answers[name] == answers["base"]
        print(
            f"  {name:14s} {total[name] * 1e3:8.1f} ms  {total[name] / total['base']:6.3f}"
            f"  {'same answers' if same else 'ANSWERS DIFFER'}"
        )
    return 0 if all(answers[n] == answers["base"] for n, _ in variants) else 1


if __name__ == "__main__":
    raise SystemExit(main())
