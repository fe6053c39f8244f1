"""Survey and exposure maps of the gallery (``docs/gallery/cases.yaml``): computed, drawn,
written and linted.

A gallery figure with a ``map`` option (``survey`` or ``exposure``) is a map: its document
is computed once per scenario and options (in this process, one worker: the gallery's
tables are small) and drawn at each size by :func:`viewer.exposure.exposure_figure` or
:func:`viewer.survey.survey_figure`, which return the page's layout records; the lint
(:func:`viewer.layout_lint.lint`, and for an SVG :func:`viewer.layout_lint.check_svg`)
checks them as it checks every other figure. Options, as the commands spell them:
``observers``, ``seen_from``, ``spacing`` (the file's units), ``probe``, ``ignore_arcs``,
``odds`` (a danger map) and ``title``.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageColor

from geom3d.core.units import LENGTH_UNITS

from . import palette as pal
from .layout_lint import Layout, check_svg, lint

__all__ = ["MAP_FORMATS", "MAP_OPTIONS", "MapResult", "lint_map", "map_document", "render_map"]

#: Options a gallery map figure may give.
MAP_OPTIONS = (
    "map", "observers", "seen_from", "spacing", "probe", "ignore_arcs", "odds", "title",
)  # fmt: skip
#: Formats a map is written in (no HTML page: a map is a flat figure).
MAP_FORMATS = ("png", "svg", "pdf")
#: Grid spacing when a figure gives none, mm: the commands' defaults.
_DEFAULT_SPACING_MM = {"exposure": 10.0, "survey": 50.0}
_DOCS: dict = {}


@dataclass
class MapResult:
    """A drawn map: its layout records, its pixels and the bytes written by format."""

    layout: Layout
    image: np.ndarray
    files: dict


def map_document(scene, options: dict) -> dict:
    """The survey or exposure document of ``options`` (computed once per scenario)."""
    kind = options["map"]
    if kind not in _DEFAULT_SPACING_MM:
        raise ValueError(f"map: expected survey or exposure, got {kind!r}")
    k = LENGTH_UNITS.get(scene.scenario.units, 1.0)
    spacing = options.get("spacing")
    spacing_mm = _DEFAULT_SPACING_MM[kind] if spacing is None else float(spacing) * k
    probe = int(options.get("probe", 2))
    key = (
        str(scene.scenario.path),
        kind,
        options.get("observers"),
        options.get("seen_from"),
        spacing_mm,
        probe,
        bool(options.get("ignore_arcs")),
        bool(options.get("odds")),
    )
    if key not in _DOCS:
        if kind == "exposure":
            from geom3d.exposure import run_exposure

            _DOCS[key] = run_exposure(
                scene,
                observers=options.get("observers"),
                seen_from=options.get("seen_from"),
                probe=probe,
                spacing_mm=spacing_mm,
                ignore_arcs=bool(options.get("ignore_arcs")),
                workers=1,
            ).document
            if options.get("odds"):  # a danger map (SPEC 13.2), as exposure --odds
                from geom3d.exposure.odds import add_danger_odds

                add_danger_odds(scene, _DOCS[key])
        else:
            from geom3d.survey import survey

            _DOCS[key] = survey(scene, probe=probe, spacing_mm=spacing_mm, workers=1)
    return _DOCS[key]


def render_map(scene, options: dict, out: Path | None, size) -> MapResult:
    """Draw the map of ``options`` at ``size`` and write it to ``out`` (by its suffix)."""
    from .exposure import exposure_figure
    from .map_page import save_map
    from .survey import survey_figure

    doc = map_document(scene, options)
    draw = exposure_figure if options["map"] == "exposure" else survey_figure
    fig, layout = draw(scene, doc, size=tuple(size), title=options.get("title"))
    fmt = Path(out).suffix.lower().lstrip(".") if out is not None else "png"
    if fmt not in MAP_FORMATS:
        raise ValueError(f"a map is written as {', '.join(MAP_FORMATS)}, not {fmt!r}")
    files = save_map(fig, f"geom3d-{options['map']}", sorted({"png", fmt}))
    image = np.asarray(Image.open(io.BytesIO(files["png"])).convert("RGB"))
    if out is not None:
        Path(out).write_bytes(files[fmt])
    return MapResult(layout, image, files)


def lint_map(scene, options: dict, out: Path | None, size) -> tuple[MapResult, list, float]:
    """:func:`render_map` and the lint's findings on it (as ``render_figure``'s).

    Returns
    -------
    result : MapResult
    problems : list of str
        Empty: the map passes (for an SVG, its texts also agree with the records).
    seconds : float
        Wall time of the drawing and writing (the document is computed once, untimed).
    """
    map_document(scene, options)
    t0 = time.perf_counter()
    res = render_map(scene, options, out, size)
    dt = time.perf_counter() - t0
    problems = lint(res.layout, res.image, ImageColor.getrgb(pal.BACKGROUND))
    if "svg" in res.files:
        problems += check_svg(res.layout, res.files["svg"])
    return res, problems, dt
