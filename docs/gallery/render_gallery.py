"""Render the gallery: every figure of every case, in every format and size, linted.

Run from the repository root (needs the viewer extra)::

    python docs/gallery/render_gallery.py                      # everything, to docs/gallery/out
    python docs/gallery/render_gallery.py --sizes 800x500 --formats png,svg --only duel
    python docs/gallery/render_gallery.py --sheet               # also docs/gallery.md

Figures go to ``--out`` (default ``docs/gallery/out``, not committed) as
``<case>-<kind>-<W>x<H>.<ext>``. Each is linted (viewer.layout_lint); the run prints one
line per figure (seconds, problems) and a table of the median render time per figure at
each size, measured warm (one render first, untimed, loads the kernels and fonts).
``--sheet`` writes the contact sheet ``docs/gallery.md``: a 400 x 250 thumbnail of each
figure's 800 x 500 PNG (``docs/gallery/thumbs/``) with the lint's verdict.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from PIL import Image

from geom3d import load_scene
from viewer.gallery import GALLERY, SIZES, load_cases, render_figure
from viewer.map_render import MAP_FORMATS

FORMATS = ("png", "svg", "pdf", "html")
THUMB = (400, 250)


def _size(text: str) -> tuple[int, int]:
    w, h = text.lower().split("x")
    return int(w), int(h)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(f"{w}x{h}" for w, h in SIZES))
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--only", default=None, help="comma-separated case names")
    ap.add_argument("--out", default=str(GALLERY / "out"))
    ap.add_argument("--sheet", action="store_true", help="write docs/gallery.md and thumbs")
    args = ap.parse_args(argv)
    sizes = [_size(s) for s in args.sizes.split(",")]
    formats = args.formats.split(",")
    only = set(args.only.split(",")) if args.only else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cases = [c for c in load_cases() if only is None or c.name in only]
    times: dict[tuple, list[float]] = {}
    verdicts: dict[tuple, list[str]] = {}
    warm = False
    failed = 0
    for case in cases:
        scene = load_scene(case.scenario)
        for fig in case.figures:
            for size in sizes:
                for ext in formats:
                    if "map" in fig.options and ext not in MAP_FORMATS:
                        continue  # a map is a flat figure: no HTML page
                    path = out / f"{case.name}-{fig.kind}-{size[0]}x{size[1]}.{ext}"
                    if not warm:  # one untimed render: kernels, fonts, VTK
                        render_figure(scene, fig, path, size)
                        warm = True
                    _res, problems, dt = render_figure(scene, fig, path, size)
                    times.setdefault((size, ext), []).append(dt)
                    verdicts[(case.name, fig.kind, size, ext)] = problems
                    failed += bool(problems)
                    mark = "ok" if not problems else f"{len(problems)} problems"
                    print(f"{path.name:60s} {dt:6.2f} s  {mark}", flush=True)
                    for p in problems:
                        print(f"    {p}")
    print("\nmedian render time per figure (warm), seconds:")
    for (size, ext), ts in sorted(times.items()):
        print(f"  {size[0]}x{size[1]} {ext:4s}: {statistics.median(ts):6.2f}  (n={len(ts)})")
    if args.sheet:  # every case's row: those not drawn now (--only) keep their old one
        _sheet(load_cases(), out, verdicts)
    print(f"\n{failed} of {len(verdicts)} figures with layout problems")
    return 1 if failed else 0


def _sheet(cases, out: Path, verdicts) -> None:
    thumbs = GALLERY / "thumbs"
    thumbs.mkdir(exist_ok=True)
    lines = [
        "# Figure gallery",
        "",
        "Every figure kind of every [gallery case](gallery/cases.yaml), drawn at 800 x 500",
        "(thumbnails at half size). Made by `python docs/gallery/render_gallery.py --sheet`,",
        "which also draws them at 1600 x 1200 and 3200 x 2400 in PNG, SVG, PDF and HTML and",
        "runs the layout lint (SPEC 13.5) over each; the tests run it too",
        "(`tests/viewer/test_gallery.py`). The scenarios are made by",
        "[make_scenarios.py](gallery/make_scenarios.py).",
        "",
        "| case | figure | 800 x 500 | lint |",
        "| --- | --- | --- | --- |",
    ]
    sheet = GALLERY.parent / "gallery.md"
    old = {
        line.split(" | ")[0] + " | " + line.split(" | ")[1].split(" (")[0]: line
        for line in (sheet.read_text().splitlines() if sheet.exists() else [])
        if line.startswith("| ") and line.count(" | ") >= 3
    }
    for case in cases:
        for fig in case.figures:
            png = out / f"{case.name}-{fig.kind}-800x500.png"
            if not any(k[:2] == (case.name, fig.kind) for k in verdicts):
                if f"| {case.name} | {fig.kind}" in old:
                    lines.append(old[f"| {case.name} | {fig.kind}"])
                continue
            if not png.exists():
                continue
            name = f"{case.name}-{fig.kind}.png"
            Image.open(png).convert("RGB").resize(THUMB, Image.LANCZOS).save(
                thumbs / name, optimize=True
            )
            probs = [p for k, v in verdicts.items() if k[:2] == (case.name, fig.kind) for p in v]
            lint = "passes" if not probs else f"{len(probs)} problems"
            opts = ", ".join(f"{k} {v}" for k, v in fig.options.items()) or "plan"
            lines.append(
                f"| {case.name} | {fig.kind} ({opts}) | ![{name}](gallery/thumbs/{name}) | {lint} |"
            )
    sheet.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
