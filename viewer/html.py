"""Interactive HTML: a :class:`~viewer.model.Drawing` as a standalone page (``--out x.html``).

The 3D scene is exported with PyVista's trame exporter (``plotter.trame.export_html``,
packages ``trame``, ``trame-vtk`` and ``trame-pyvista`` of the ``viewer`` extra): one HTML
file holding vtk.js and the serialised meshes, which works offline (no server, no
network) in any browser with WebGL; drag to rotate, scroll to zoom. Every actor of the
drawing is exported, layer by layer as in the PNG, and the page opens with the same
camera as the picture; the same input gives the same bytes (:func:`deterministic`). The
title, subtitle, legend, labels, notes and caption (which VTK's 2D overlay cannot carry
into vtk.js) are written into the page as a plain HTML column beside the scene's own
``.content`` box, which the vtk.js loader draws into (and empties) instead of the body;
the world-anchored labels are listed there too, and drawn in the scene as flat 3D text
(vtk.js has no label mapper) facing the opening camera, placed apart by
:func:`viewer.labels.place_labels` in the opening picture, in front of the drawing so
scenery never hides them; their boxes are recorded in the page (``#g3-label-boxes``,
pixels of the scene's box) for the tests.
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import sys
import zipfile

import numpy as np

from geom3d.core.output import safe_text

from . import palette as pal
from .camera import CAMERAS, camera_matrix, fit_perspective
from .model import Drawing
from .plotter import draw, make_plotter

__all__ = ["PANEL_WIDTH_PCT", "deterministic", "html_bytes", "page_body", "panel_html"]

_TITLE = re.compile(r"<title>.*?</title>", re.DOTALL)
#: The embedded scene: a base64 zip (``index.json``) in the exporter's loader script.
_DATA = re.compile(r'(const base64Str = ")([A-Za-z0-9+/=]+)(")')
#: vtk.js object ids: the VTK objects' memory addresses, 16 hex digits, as whole JSON
#: strings ("id": "…"), in "instance:${…}" references and as "…-dataset" ids.
_OBJECT_ID = re.compile(r'(?<=["{])[0-9a-f]{16}(?=["}-])')


#: Width of the text column on the page's right (the scene gets the rest).
PANEL_WIDTH_PCT = 28


def panel_html(drawing: Drawing) -> str:
    """The page's text column: title, subtitle, legend rows, trooper and other labels,
    notes and caption, beside (not over) the scene's container.

    The vtk.js loader empties the container it draws into (``.content``, else the whole
    ``body``); the page gives it its own ``.content`` box (:func:`page_body`), so this
    column survives the scripts.
    """

    def esc(text: str) -> str:
        return html.escape(safe_text(text))

    rows = "".join(
        f'<div class="g3-row"><span class="g3-sw" style="background:{esc(e.color)}"></span>'
        f"{esc(e.label)}</div>"
        for e in (drawing.legend if drawing.show_legend else [])
    )
    labels = "".join(f'<li class="g3-label">{esc(lab.text)}</li>' for lab in drawing.labels)
    notes = "".join(f"<div>{esc(n)}</div>" for n in drawing.notes)
    sub = f'<div class="g3-sub">{esc(drawing.subtitle)}</div>' if drawing.subtitle else ""
    cap = f'<div class="g3-caption">{esc(drawing.caption)}</div>' if drawing.caption else ""
    layers = ", ".join(dict.fromkeys(a.layer for a in drawing.actors))
    w = PANEL_WIDTH_PCT
    return (
        "<style>"
        f"#g3-panel{{position:fixed;top:0;right:0;width:{w}%;height:100%;overflow:auto;"
        f"box-sizing:border-box;z-index:10;background:#fff;color:{pal.TEXT};"
        "font:13px sans-serif;padding:10px 12px;border-left:1px solid #000}"
        "#g3-panel .g3-title{font-weight:bold;font-size:15px;margin-bottom:4px}"
        "#g3-panel .g3-sub{margin-bottom:6px}"
        "#g3-panel .g3-sw{display:inline-block;width:12px;height:12px;margin-right:6px;"
        "border:1px solid #000;vertical-align:middle}"
        "#g3-panel h2{font-size:13px;margin:8px 0 2px}"
        "#g3-panel ul{margin:0;padding-left:16px}"
        "#g3-panel .g3-caption{margin-top:8px;font-style:italic;white-space:pre-wrap}"
        f"#g3-scene{{position:fixed;top:0;left:0;width:{100 - w}%;height:100%}}"
        "</style>"
        f'<div id="g3-panel"><div class="g3-title">{esc(drawing.title)}</div>{sub}'
        f'<div class="g3-legend">{rows}</div>'
        + (f'<h2>labels</h2><ul class="g3-labels">{labels}</ul>' if labels else "")
        + f'<div class="g3-notes">{notes}</div>{cap}'
        f'<div class="g3-sub">layers: {esc(layers)}; drag to rotate, scroll to zoom</div>'
        "</div>"
    )


def page_body(drawing: Drawing) -> str:
    """What the page's ``<body>`` starts with: the text column and the scene's box."""
    return panel_html(drawing) + '<div id="g3-scene" class="content"></div>'


def _export(plotter) -> str:
    """``plotter.trame.export_html`` without trame-vtklocal.

    The exporter starts trame's in-process server once and, when trame-vtklocal is
    importable, initialises it, which fetches VTK's WebAssembly build from the network.
    The vtk.js export does not use it, so the import is blocked (trame-pyvista treats it
    as absent) while exporting.
    """
    name = "trame.widgets.vtklocal"
    saved = sys.modules.get(name)
    sys.modules[name] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        if hasattr(plotter, "trame"):  # PyVista >= 0.49 (trame-pyvista)
            return plotter.trame.export_html(None).getvalue()
        return plotter.export_html(None).getvalue()  # older PyVista
    finally:
        if saved is None:
            del sys.modules[name]
        else:
            sys.modules[name] = saved


def _stable_ids(text: str) -> str:
    """Memory-address ids -> 0000000000000001, ... in order of first appearance."""
    ids: dict[str, str] = {}

    def sub(m: re.Match) -> str:
        return ids.setdefault(m.group(0), f"{len(ids) + 1:016x}")

    return _OBJECT_ID.sub(sub, text)


def _stable_scene(text: str) -> str:
    """``index.json`` with run-dependent numbers fixed: the render window's id (a counter
    of the process) set to 1, modification times replaced by their rank (order kept)."""
    doc = json.loads(_stable_ids(text))
    times: list = []

    def walk(o, visit):
        if isinstance(o, dict):
            for k, v in o.items():
                if k == "mtime" and isinstance(v, int):
                    visit(o)
                else:
                    walk(v, visit)
        elif isinstance(o, list):
            for v in o:
                walk(v, visit)

    walk(doc, lambda o: times.append(o["mtime"]))
    rank = {t: i + 1 for i, t in enumerate(sorted(set(times)))}

    def renumber(o):
        o["mtime"] = rank[o["mtime"]]

    walk(doc, renumber)
    scene = doc.get("scene")
    if isinstance(scene, dict) and isinstance(scene.get("id"), int):
        scene["id"] = 1
    return json.dumps(doc)


def deterministic(page: str) -> str:
    """The exported page with the run-dependent bits fixed, so the same input gives the
    same bytes: object ids (memory addresses) renumbered, the render window's id and the
    modification times normalised, zip entries dated 1980-01-01."""
    m = _DATA.search(page)
    if m is None:
        return page
    src = zipfile.ZipFile(io.BytesIO(base64.b64decode(m.group(2))))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename.endswith(".json"):
                data = _stable_scene(data.decode("utf-8")).encode("utf-8")
            dst.writestr(
                zipfile.ZipInfo(info.filename, (1980, 1, 1, 0, 0, 0)),
                data,
                compress_type=zipfile.ZIP_DEFLATED,
            )
    encoded = base64.b64encode(out.getvalue()).decode("ascii")
    return page[: m.start(2)] + encoded + page[m.end(2) :]


#: The subject fills this fraction of the page's scene box (the rest is a margin).
_FILL = (0.05, 0.95, 0.05, 0.95)


def _fill_box(plotter, drawing: Drawing, box) -> None:
    """Re-aim the picture's camera at the whole scene box: the page has no title band or
    legend column over the scene (they are in the text column), so the subject (the
    drawing's bounds) is centred and fills the box; ``from`` and ``eye`` views keep their
    eye point and only drop the picture's off-centre window."""
    cam = plotter.camera
    if drawing.view in ("from", "eye"):
        cam.SetWindowCenter(0.0, 0.0)
        return
    lo, hi = np.asarray(drawing.bounds, dtype=float)
    corners = np.array(
        [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    )
    if not cam.parallel_projection:
        fit_perspective(plotter, box, corners, _FILL)
    else:
        _fit_parallel(plotter, box, corners)
    zoom = drawing.camera.get("zoom")
    if zoom:
        # moved closer, not narrowed: the exported scene keeps no view angle of its own
        # (vtk.js opened a --zoom 2 page at 1x, its labels at half their size)
        cam.Dolly(float(zoom))
        if cam.parallel_projection:
            cam.parallel_scale = cam.parallel_scale / float(zoom)
        plotter.renderer.ResetCameraClippingRange()


def _fit_parallel(plotter, box, corners) -> None:
    cam = plotter.camera
    w, h = box
    m = camera_matrix(plotter, box)
    hc = np.column_stack([corners, np.ones(len(corners))]) @ m.T
    ndc = hc[:, :2] / hc[:, 3:4]
    px = (ndc[:, 0] + 1) * 0.5 * w
    py = (1 - ndc[:, 1]) * 0.5 * h
    f = max((px.max() - px.min()) / ((_FILL[1] - _FILL[0]) * w),
            (py.max() - py.min()) / ((_FILL[3] - _FILL[2]) * h))  # fmt: skip
    pos, focal = np.array(cam.position), np.array(cam.focal_point)
    fwd = (focal - pos) / np.linalg.norm(focal - pos)
    up = np.asarray(cam.up, dtype=float)
    right = np.cross(fwd, up)
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    per_px = 2.0 * cam.parallel_scale / h
    shift = right * (0.5 * (px.max() + px.min()) - 0.5 * w) * per_px
    shift -= up * (0.5 * (py.max() + py.min()) - 0.5 * h) * per_px
    focal = focal + shift
    scale = cam.parallel_scale * f
    cam.parallel_scale = scale
    # the page's vtk.js draws in perspective whatever the flag: stand back so its view
    # angle shows what the parallel scale shows at the focal plane
    dist = scale / np.tan(np.radians(cam.view_angle) / 2)
    cam.focal_point = tuple(focal)
    cam.position = tuple(focal - fwd * dist)
    span = float(np.ptp(corners, axis=0).max())
    cam.clipping_range = (max(1.0, dist - 2 * span), dist + 2 * span)


#: Height of a model's label in the HTML scene as it opens, pixels of the scene's box at
#: :data:`viewer.layout.REFERENCE_HEIGHT` (scaled with the box, never under
#: :data:`LABEL_MIN_PX`); the text is a mesh, so it grows and shrinks as one zooms.
LABEL_PX = 20.0
LABEL_MIN_PX = 13.0
#: Gap (px) a label's box keeps around its text when placed.
LABEL_PAD_PX = 3.0


def _perspective_matrix(plotter, box) -> np.ndarray:
    """World -> clip coordinates of the scene as the page's vtk.js draws it (always in
    perspective: a parallel camera was stood back to match, :func:`_fit_parallel`)."""
    cam = plotter.camera
    parallel = bool(cam.parallel_projection)
    cam.parallel_projection = False
    try:
        return camera_matrix(plotter, box)
    finally:
        cam.parallel_projection = parallel


def _unproject(inv: np.ndarray, px, ndc_z: float, box) -> np.ndarray:
    """(3,) world point at page pixel ``px`` (rows down) and clip depth ``ndc_z``."""
    w, h = box
    v = inv @ np.array([2 * px[0] / w - 1, 1 - 2 * px[1] / h, ndc_z, 1.0])
    return v[:3] / v[3]


def model_label_boxes(plotter, drawing: Drawing, box) -> list:
    """Where each world-anchored label goes in the scene as the page opens.

    The labels are placed by :func:`viewer.labels.place_labels` in the opening camera's
    picture (pixels of the scene's box, rows down): apart from each other, off every
    trooper, the deciding ray and patch, with a leader line when moved off the anchor.

    Returns
    -------
    list of (int, Placement, float)
        Label index, its placement, the text height in px; placed labels only.
    """
    from .figure_layout import world_records
    from .labels import place_labels
    from .layout import size_scale
    from .overlay import trooper_boxes

    w, h = box
    m = _perspective_matrix(plotter, box)
    px_h = max(LABEL_MIN_PX, LABEL_PX * size_scale(box))
    idx, anchors, sizes = [], [], []
    for i, lab in enumerate(drawing.labels):
        if not lab.text.strip():
            continue
        c = m @ np.array([*map(float, lab.point), 1.0])
        ok = c[3] > 0
        anchors.append(
            ((c[0] / c[3] + 1) * 0.5 * w, (1 - c[1] / c[3]) * 0.5 * h) if ok else (np.nan, np.nan)
        )
        sizes.append((_text_aspect(lab.text) * px_h + 2 * LABEL_PAD_PX, px_h + 2 * LABEL_PAD_PX))
        idx.append(i)
    if not idx:
        return []
    _, rays, patches = world_records(drawing, m, box)
    obstacles = [*trooper_boxes(drawing.actors, m, box), *patches]
    places = place_labels(anchors, sizes, (2.0, w - 2.0, 2.0, h - 2.0), obstacles=obstacles,
                          rays=rays)  # fmt: skip
    return [(i, p, px_h) for i, p in zip(idx, places, strict=True) if p.placed]


def _line_height() -> float:
    """Height of a line of vtkVectorText (the page's 3D text), ascender to descender,
    in its own units: every label is scaled by it, so all share one letter size."""
    import pyvista as pv

    b = pv.Text3D("Hg(", depth=0.0).bounds
    return float(b[3] - b[2])


def _text_aspect(text: str) -> float:
    """Width of ``text`` as vtkVectorText draws it, in line heights."""
    import pyvista as pv

    b = pv.Text3D(text, depth=0.0).bounds
    return float((b[1] - b[0]) / _line_height())


def _add_model_labels(plotter, drawing: Drawing, box=None) -> list:
    """Each world-anchored label as flat 3D text where :func:`model_label_boxes` put it,
    facing the opening camera, with its leader line (vtk.js has no label mapper: the
    text is a mesh, so it turns with the scene).

    Returns
    -------
    list of dict
        ``{"text", "box"}`` per drawn label: its box in pixels of the scene's box as
        the page opens (rows down), for the page's record and its tests.
    """
    import pyvista as pv

    box = tuple(box or plotter.window_size)
    cam = plotter.camera
    pos, focal = np.asarray(cam.position, float), np.asarray(cam.focal_point, float)
    fwd = focal - pos
    fwd /= np.linalg.norm(fwd)
    up = np.asarray(cam.up, float)
    right = np.cross(fwd, up)
    if np.linalg.norm(right) < 1e-9:
        return []
    right /= np.linalg.norm(right)
    up = np.cross(right, fwd)
    m = _perspective_matrix(plotter, box)
    inv = np.linalg.inv(m)
    # every label stands in front of the whole scene (it draws where it was placed,
    # scenery and the table never hide it as the page opens): at the depth of the nearest
    # corner of everything drawn so far, less a margin, and past the near clipping plane
    b = np.asarray(plotter.bounds, dtype=float)
    corners = np.array([[x, y, zc] for x in b[0:2] for y in b[2:4] for zc in b[4:6]])
    depth = float(((corners - pos) @ fwd).min()) - 0.02 * float(np.ptp(corners, axis=0).max())
    depth = max(depth, 1.05 * float(cam.clipping_range[0]))
    c = m @ np.array([*(pos + depth * fwd), 1.0])
    z = float(c[2] / c[3])
    out = []
    for i, pl, px_h in model_label_boxes(plotter, drawing, box):
        lab = drawing.labels[i]
        x0, y0, x1, y1 = pl.box
        centre = _unproject(inv, (0.5 * (x0 + x1), 0.5 * (y0 + y1)), z, box)
        step = _unproject(inv, (0.5 * (x0 + x1), 0.5 * (y0 + y1) + px_h), z, box)
        hw = float(np.linalg.norm(step - centre))  # world size of px_h pixels there
        text = pv.Text3D(lab.text, depth=0.0)
        p = np.asarray(text.points, float)
        lo, hi = p.min(axis=0), p.max(axis=0)
        p = (p - 0.5 * (lo + hi)) * (hw / _line_height())
        text.points = centre + p[:, :1] * right + p[:, 1:2] * up
        plotter.add_mesh(text, color=lab.color, name=f"label3d:{i}", lighting=False)
        if pl.leader:
            end = _unproject(inv, pl.leader_end(), z, box)
            line = pv.Line(end, np.asarray(lab.point, float))
            plotter.add_mesh(line, color=pal.TEXT, name=f"label3d-leader:{i}", lighting=False)
        out.append({"text": lab.text, "box": [round(float(v), 1) for v in pl.box]})
    return out


def html_bytes(drawing: Drawing, size) -> bytes:
    """The standalone page of ``drawing`` (UTF-8 bytes), camera as in the picture.

    Parameters
    ----------
    drawing : Drawing
        ``drawing.view`` picks the starting camera (:data:`viewer.camera.CAMERAS`).
    size : (int, int)
        Pixels, for line widths and the camera fit.
    """
    box = (max(1, round(size[0] * (100 - PANEL_WIDTH_PCT) / 100)), size[1])  # the scene's box
    pl = make_plotter(box)
    try:
        draw(pl, drawing, box, labels=False)
        CAMERAS[drawing.view](pl, drawing, box)
        _fill_box(pl, drawing, box)
        placed = _add_model_labels(pl, drawing, box)
        text = _export(pl)
    finally:
        pl.close()
    text = deterministic(text)
    title = f"<title>{html.escape(safe_text(drawing.title))}</title>"
    text = _TITLE.sub(lambda m: title, text, count=1)  # a function: no \\1 or \\g<> in it
    # JSON in a script element: "<" written as its escape, so "</script>" cannot occur
    record = json.dumps({"box": list(box), "labels": placed}).replace("<", "\\u003c")
    text = text.replace(
        "<body>",
        "<body>" + page_body(drawing)
        + f'<script type="application/json" id="g3-label-boxes">{record}</script>',
        1,
    )  # fmt: skip
    return text.encode("utf-8")
