"""The ``geom3d`` command line (SPEC section 6).

Exit codes: 0 success (or every expectation holds), 1 some expectation failed, 2 bad input
or usage - one line on stderr naming the file, the field path and the problem.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .errors import Geom3dError, UsageError
from .output import atomic_write, dumps_json

__all__ = ["bundled_meshes_dir", "demo_scenario_path", "main"]

EXIT_OK, EXIT_BAD_INPUT = 0, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, like every other bad input
        self.exit(EXIT_BAD_INPUT, f"geom3d: error: {message}\n")


def bundled_meshes_dir() -> Path:
    """The ``meshes/`` folder: the repository's, or the copy bundled in the wheel."""
    here = Path(__file__).resolve().parent
    for cand in (here.parent / "meshes", here / "_bundled" / "meshes"):
        if (cand / "demo").is_dir():
            return cand
    raise UsageError("the bundled meshes/ folder is missing from this installation")


def demo_scenario_path() -> Path:
    """The bundled demo table scenario."""
    return bundled_meshes_dir() / "demo" / "table.yaml"


def _progress(args, description: str):
    from .progress import Progress, progress_mode

    return Progress(description, progress_mode(getattr(args, "quiet", False)))


def _warn(scene, args) -> None:
    if getattr(args, "quiet", False):
        return
    for w in scene.warnings:
        print(f"warning: {scene.scenario.name}: {w}", file=sys.stderr)


def _load(path):
    from .api import load_scene

    return load_scene(path)


# --------------------------------------------------------------------------- lof
def _lof_pairs(scene, args):
    ids = list(scene.troopers)
    for who in (args.from_id, args.to_id):
        if who is not None:
            scene.trooper(who)
    froms = [args.from_id] if args.from_id else ids
    tos = [args.to_id] if args.to_id else ids
    return [(a, b) for a in froms for b in tos if a != b]


def lof_report(scene, pairs=None, progress=None) -> dict:
    """The ``geom3d lof --format json`` document."""
    from .lof import lof_matrix

    results = lof_matrix(scene, pairs, progress=progress)
    return {"units": "mm", "scenario": scene.scenario.name, "pairs": [r.to_dict() for r in results]}


def _table(title: str, columns: list[str], rows: list[list]) -> str:
    from io import StringIO

    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for c in columns:
        table.add_column(c)
    for r in rows:
        table.add_row(*[("" if v is None else str(v)) for v in r])
    buf = StringIO()
    Console(file=buf, width=120, color_system=None, force_terminal=False).print(table)
    return buf.getvalue()


def lof_table(doc: dict) -> str:
    rows = []
    for p in doc["pairs"]:
        w = p["witness"]
        extra = ""
        if "eye" in w:
            extra = f"{w['visible_area_mm2']:.0f} mm² seen"
        if "route" in p:
            r = p["route"]
            extra += (
                f"; route: first at segment {r['first_index']}" if r["any"] else "; route: never"
            )
        rows.append(
            [
                p["from"],
                p["to"],
                "yes" if p["lof"] else "no",
                p["in_arc"],
                p["visible"],
                p["reason"],
                extra,
            ]
        )
    return _table(
        f"Line of Fire - {doc['scenario']}",
        ["from", "to", "LoF", "in arc", "visible", "reason", "note"],
        rows,
    )


def cmd_lof(args) -> int:
    scene = _load(args.scenario)
    _warn(scene, args)
    pairs = _lof_pairs(scene, args)
    with _progress(args, "Line of Fire") as bar:
        doc = lof_report(scene, pairs, progress=bar)
    out = dumps_json(doc) if args.format == "json" else lof_table(doc)
    sys.stdout.write(out)
    return EXIT_OK


# --------------------------------------------------------------------------- attack
def attack_report(scene, ids=None) -> dict:
    """The ``geom3d attack --format json`` document."""
    from .attacks import resolve_attack

    attacks = [a.id for a in scene.scenario.attacks] if ids is None else ids
    return {
        "units": "mm",
        "scenario": scene.scenario.name,
        "attacks": [resolve_attack(scene, a).to_dict() for a in attacks],
    }


def attack_table(doc: dict) -> str:
    rows = []
    for a in doc["attacks"]:
        excl = ", ".join(f"{e['id']} ({e['reason']})" for e in a.get("excluded", []))
        rows.append(
            [
                a["id"],
                a["outcome"],
                a["reason"],
                ", ".join(a.get("affected", [])),
                excl,
                a.get("hits") if "hits" in a else None,
            ]
        )
    return _table(
        f"Attacks - {doc['scenario']}",
        ["attack", "outcome", "reason", "affected", "excluded", "hits"],
        rows,
    )


def cmd_attack(args) -> int:
    scene = _load(args.scenario)
    _warn(scene, args)
    ids = None
    if args.id:
        known = {a.id for a in scene.scenario.attacks}
        if args.id not in known:
            raise UsageError(
                f"{scene.scenario.name}: --id: unknown attack {args.id!r} "
                f"(known: {', '.join(sorted(known)) or 'none'})"
            )
        ids = [args.id]
    doc = attack_report(scene, ids)
    sys.stdout.write(dumps_json(doc) if args.format == "json" else attack_table(doc))
    return EXIT_OK


# --------------------------------------------------------------------------- render/view
#: Entry-point group through which a diagram renderer plugs into the CLI. The engine
#: never imports rendering code: ``viewer`` (PyVista) registers itself here from
#: pyproject.toml, and any other renderer may do the same.
RENDERER_GROUP = "geom3d.renderers"


def _viewer():
    """The installed renderer plugin module (``render_to_file``, ``demo_diagrams``,
    ``open_viewer``)."""
    from importlib.metadata import entry_points

    eps = sorted(entry_points(group=RENDERER_GROUP), key=lambda ep: ep.name)
    if not eps:
        raise UsageError(
            "diagrams need a renderer: install the viewer extra (pip install 'geom3d[viewer]')"
        )
    try:
        return eps[0].load()
    except ImportError as exc:
        raise UsageError(
            f"the {eps[0].name!r} renderer cannot be loaded ({exc}); "
            "install the viewer extra (pip install 'geom3d[viewer]')"
        ) from None


def _parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = text.lower().split("x")
        size = int(w), int(h)
    except ValueError:
        raise UsageError(f"--size: expected WIDTHxHEIGHT, e.g. 1600x1200 (got {text!r})") from None
    if not (16 <= size[0] <= 8000 and 16 <= size[1] <= 8000):
        raise UsageError(f"--size: each side must be 16..8000 pixels (got {text!r})")
    return size


def cmd_render(args) -> int:
    render_mod = _viewer()
    scene = _load(args.scenario)
    _warn(scene, args)
    path = render_mod.render_to_file(
        scene,
        args.out,
        view=args.view,
        attack=args.attack,
        lof=args.lof,
        size=_parse_size(args.size),
        dpi=args.dpi,
    )
    if not args.quiet:
        print(path)
    return EXIT_OK


def cmd_view(args) -> int:
    render_mod = _viewer()
    scene = _load(args.scenario)
    _warn(scene, args)
    render_mod.open_viewer(scene)
    return EXIT_OK


# --------------------------------------------------------------------------- check
def cmd_check(args) -> int:
    from .check.command import run_check_cli

    return run_check_cli(args)


# --------------------------------------------------------------------------- demo
def cmd_demo(args) -> int:
    path = demo_scenario_path()
    t0 = time.perf_counter()
    scene = _load(path)
    load_s = time.perf_counter() - t0
    _warn(scene, args)
    s = scene.summary()
    print(f"geom3d demo - {path}")
    print(
        f"  ruleset {s['ruleset']}, {s['scenery_elements']} scenery elements, "
        f"{s['triangles']} triangles ({s['blocking_triangles']} blocking), "
        f"{len(s['troopers'])} troopers, loaded in {load_s:.2f} s"
    )
    rows = [
        [
            tid,
            t["side"],
            t["silhouette"],
            f"{t['diameter']:g}x{t['height']:g}",
            t["position"],
            ",".join(t["states"]),
        ]
        for tid, t in s["troopers"].items()
    ]
    print(_table("Troopers", ["id", "side", "S", "Ø x h mm", "position mm", "states"], rows))
    t0 = time.perf_counter()
    with _progress(args, "Line of Fire") as bar:
        doc = lof_report(scene, progress=bar)
    lof_s = time.perf_counter() - t0
    print(lof_table(doc))
    print(f"  Line of Fire matrix: {len(doc['pairs'])} ordered pairs in {lof_s:.2f} s")
    if scene.scenario.attacks:
        t0 = time.perf_counter()
        adoc = attack_report(scene)
        print(attack_table(adoc))
        print(f"  {len(adoc['attacks'])} attacks resolved in {time.perf_counter() - t0:.2f} s")
    out_dir = Path(args.out)
    atomic_write(out_dir / "lof.json", dumps_json(doc))
    print(f"  wrote {out_dir / 'lof.json'}")
    if scene.scenario.attacks:
        atomic_write(out_dir / "attacks.json", dumps_json(adoc))
        print(f"  wrote {out_dir / 'attacks.json'}")
    try:
        render_mod = _viewer()
    except UsageError as exc:
        print(f"  diagrams skipped: {exc}")
        return EXIT_OK
    for p in render_mod.demo_diagrams(scene, out_dir, doc):
        print(f"  wrote {p}")
    return EXIT_OK


# --------------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="geom3d", description="3D Line of Fire and template adjudication for wargames")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    d = sub.add_parser("demo", help="run the bundled demo table end to end")
    d.add_argument("--out", default="geom3d-demo", help="folder for JSON and diagrams")
    d.add_argument("--quiet", action="store_true")
    d.set_defaults(func=cmd_demo)

    lof = sub.add_parser("lof", help="Line of Fire for all ordered pairs or those asked for")
    lof.add_argument("scenario")
    lof.add_argument("--from", dest="from_id")
    lof.add_argument("--to", dest="to_id")
    lof.add_argument("--format", choices=("json", "table"), default="json")
    lof.add_argument("--quiet", action="store_true")
    lof.set_defaults(func=cmd_lof)

    at = sub.add_parser("attack", help="resolve the scenario's attacks")
    at.add_argument("scenario")
    at.add_argument("--id")
    at.add_argument("--format", choices=("json", "table"), default="json")
    at.add_argument("--quiet", action="store_true")
    at.set_defaults(func=cmd_attack)

    r = sub.add_parser("render", help="write a diagram (PNG or SVG), headless")
    r.add_argument("scenario")
    r.add_argument("--out", required=True)
    r.add_argument("--view", default="top", help="top | iso | from:ID")
    r.add_argument("--attack")
    r.add_argument("--lof", help="A:B")
    r.add_argument("--size", default="1600x1200")
    r.add_argument("--dpi", type=int, default=None)
    r.add_argument("--quiet", action="store_true")
    r.set_defaults(func=cmd_render)

    v = sub.add_parser("view", help="open the interactive viewer")
    v.add_argument("scenario")
    v.add_argument("--quiet", action="store_true")
    v.set_defaults(func=cmd_view)

    c = sub.add_parser("check", help="check every scenario's expect block")
    c.add_argument("paths", nargs="+")
    c.add_argument("--json", dest="json_out")
    c.add_argument("--junit")
    c.add_argument("--workers", type=int, default=None)
    c.add_argument("--scheduler")
    c.add_argument("--quiet", action="store_true")
    c.set_defaults(func=cmd_check)
    return p


def main(argv=None) -> int:
    """Entry point of the ``geom3d`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except Geom3dError as exc:
        print(f"geom3d: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("geom3d: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
