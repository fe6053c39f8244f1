"""Interactive HTML: a :class:`~viewer.model.Drawing` as a standalone page (``--out x.html``).

The 3D scene is exported with PyVista's trame exporter (``plotter.trame.export_html``,
packages ``trame``, ``trame-vtk`` and ``trame-pyvista`` of the ``viewer`` extra): one HTML
file holding vtk.js and the serialised meshes, which works offline (no server, no
network) in any browser with WebGL; drag to rotate, scroll to zoom. Every actor of the
drawing is exported, layer by layer as in the PNG, and the page opens with the same
camera as the picture; the same input gives the same bytes (:func:`deterministic`). The
title, subtitle, legend and notes (which VTK's 2D overlay cannot carry into vtk.js) are
written into the page as a plain HTML panel; world-anchored text labels are not exported
(vtk.js has no label mapper).
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
import sys
import zipfile

from . import palette as pal
from .camera import CAMERAS
from .model import Drawing
from .plotter import draw, make_plotter

__all__ = ["deterministic", "html_bytes", "panel_html"]

_TITLE = re.compile(r"<title>.*?</title>", re.DOTALL)
#: The embedded scene: a base64 zip (``index.json``) in the exporter's loader script.
_DATA = re.compile(r'(const base64Str = ")([A-Za-z0-9+/=]+)(")')
#: vtk.js object ids: the VTK objects' memory addresses, 16 hex digits, as whole JSON
#: strings ("id": "…"), in "instance:${…}" references and as "…-dataset" ids.
_OBJECT_ID = re.compile(r'(?<=["{])[0-9a-f]{16}(?=["}-])')


def panel_html(drawing: Drawing) -> str:
    """The page's overlay: title, subtitle, legend rows (colour swatch + text) and notes."""
    esc = html.escape
    rows = "".join(
        f'<div class="g3-row"><span class="g3-sw" style="background:{esc(e.color)}"></span>'
        f"{esc(e.label)}</div>"
        for e in drawing.legend
    )
    notes = "".join(f"<div>{esc(n)}</div>" for n in drawing.notes)
    sub = f'<div class="g3-sub">{esc(drawing.subtitle)}</div>' if drawing.subtitle else ""
    layers = ", ".join(dict.fromkeys(a.layer for a in drawing.actors))
    return (
        "<style>"
        "#g3-panel{position:absolute;top:12px;left:12px;z-index:10;max-width:40%;"
        f"background:rgba(255,255,255,0.85);color:{pal.TEXT};font:13px sans-serif;"
        "padding:8px 10px;border:1px solid #000;pointer-events:none}"
        "#g3-panel .g3-title{font-weight:bold;font-size:15px}"
        "#g3-panel .g3-sub{margin-bottom:6px}"
        "#g3-panel .g3-sw{display:inline-block;width:12px;height:12px;margin-right:6px;"
        "border:1px solid #000;vertical-align:middle}"
        "</style>"
        f'<div id="g3-panel"><div class="g3-title">{esc(drawing.title)}</div>{sub}'
        f'{rows}<div class="g3-notes">{notes}</div>'
        f'<div class="g3-sub">layers: {esc(layers)}; drag to rotate, scroll to zoom</div>'
        "</div>"
    )


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


def html_bytes(drawing: Drawing, size) -> bytes:
    """The standalone page of ``drawing`` (UTF-8 bytes), camera as in the picture.

    Parameters
    ----------
    drawing : Drawing
        ``drawing.view`` picks the starting camera (:data:`viewer.camera.CAMERAS`).
    size : (int, int)
        Pixels, for line widths and the camera fit.
    """
    pl = make_plotter(size)
    try:
        draw(pl, drawing, size, labels=False)
        CAMERAS[drawing.view](pl, drawing, size)
        text = _export(pl)
    finally:
        pl.close()
    text = deterministic(text)
    text = _TITLE.sub(f"<title>{html.escape(drawing.title)}</title>", text, count=1)
    text = text.replace("<body>", "<body>" + panel_html(drawing), 1)
    return text.encode("utf-8")
