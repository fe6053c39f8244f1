"""The figure gallery (``docs/gallery/``): its cases, one figure rendered and linted.

``docs/gallery/cases.yaml`` lists scenarios that stress layout and the figures drawn of
each (``geom3d render`` options). :func:`render_figure` renders one of them to a file
and returns the lint's verdict on it (:func:`viewer.layout_lint.lint`, and for an SVG
:func:`viewer.layout_lint.check_svg`). ``docs/gallery/render_gallery.py`` renders them
all in every format and size and writes the contact sheet ``docs/gallery.md``; the tests
(``tests/viewer/test_gallery.py``) lint them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from PIL import ImageColor

from . import palette as pal
from .layout_lint import check_svg, lint

__all__ = ["GALLERY", "SIZES", "Case", "Figure", "load_cases", "render_figure"]

#: The gallery folder of the repository.
GALLERY = Path(__file__).resolve().parents[1] / "docs" / "gallery"
#: The output sizes every figure is drawn at (pixels).
SIZES = ((800, 500), (1600, 1200), (3200, 2400))
#: ``geom3d render`` options a figure may give.
_OPTIONS = ("view", "lof", "attack", "zoom", "annotate", "title", "caption")
#: Options of a survey or exposure map (``map: survey|exposure``; viewer/map_render.py).
_MAP_OPTIONS = ("map", "observers", "seen_from", "spacing", "probe", "ignore_arcs", "odds")


@dataclass(frozen=True)
class Figure:
    """One figure of a case: its kind (a short name), render options, its own check."""

    kind: str
    options: dict
    check: str | None = None


@dataclass
class Case:
    """One gallery scenario and its figures."""

    name: str
    scenario: Path
    figures: list[Figure] = field(default_factory=list)


def load_cases(path: Path | None = None) -> list[Case]:
    """The cases of ``cases.yaml`` (default: the repository's gallery)."""
    path = Path(path or GALLERY / "cases.yaml")
    doc = yaml.safe_load(path.read_text())
    out = []
    for c in doc["cases"]:
        figs = [
            Figure(f["kind"], {k: f[k] for k in _OPTIONS + _MAP_OPTIONS if k in f}, f.get("check"))
            for f in c["figures"]
        ]
        out.append(Case(c["name"], path.parent / c["scenario"], figs))
    return out


def render_figure(scene, fig: Figure, out: Path, size) -> tuple[object, list[str], float]:
    """Render ``fig`` of ``scene`` to ``out`` at ``size`` and lint it.

    Returns
    -------
    result : viewer.render.RenderResult
    problems : list of str
        The lint's findings (empty: the figure passes); for an SVG or a PDF also where
        its text disagrees with the layout records (:mod:`viewer.layout_pdf`).
    seconds : float
        Wall time of the render.
    """
    if "map" in fig.options:  # a survey or exposure map: its own page and records
        from .map_render import lint_map

        return lint_map(scene, fig.options, out, size)
    from .render import render

    t0 = time.perf_counter()
    res = render(scene, out, size=size, **fig.options)
    dt = time.perf_counter() - t0
    if res.layout is None:  # an HTML page: no layout records
        return res, [], dt
    problems = lint(res.layout, res.image, ImageColor.getrgb(pal.BACKGROUND))
    if out is not None and Path(out).suffix.lower() == ".svg" and res.layout.texts:
        if res.drawing.view in ("top", "side", "eye"):  # vector pages: every text
            problems += check_svg(res.layout, Path(out).read_bytes())
    if out is not None and Path(out).suffix.lower() == ".pdf":
        from .layout_pdf import check_pdf  # pypdf: a development dependency

        problems += check_pdf(res.layout, Path(out).read_bytes(), res.image)
    return res, problems, dt
