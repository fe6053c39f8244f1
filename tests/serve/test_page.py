"""The page of ``geom3d serve`` in headless Chromium, driven through the DevTools protocol.

After the page's scripts ran, every trooper is drawn with its name; a move made with the
page's own controls (the x / y inputs and the Place button, then a drag with the mouse)
changes the drawn Line of Fire lines, each coloured as the API answers its pair. Without
Chromium the test skips, except in CI (``$CI`` set), where it must run.
"""

from __future__ import annotations

import asyncio

import pytest

aiohttp = pytest.importorskip("aiohttp")

from devtools import DevToolsPage, chromium, devtools_browser, page_socket_url  # noqa: E402

from geom3d.serve.app import make_server, serve_in_thread  # noqa: E402
from geom3d.serve.session import Session  # noqa: E402

LINES = """[...document.querySelectorAll('line.lof')].map(l => [l.dataset.from, l.dataset.to,
  l.dataset.reason, l.getAttribute('stroke'), l.getAttribute('x1'), l.getAttribute('y1')])"""


#: The page's colour per drawn reason (its legend).
COLOURS = {"yes": "#1b9e3a", "blocked": "#d62728", "out_of_arc": "#9e9e9e", "engaged": "#ff9800"}


def _expected(pairs):
    """The drawn lines' (from, to, reason) as the API's pairs say."""
    return sorted([p["from"], p["to"], p["reason"] or "yes"] for p in pairs)


async def _drive(browser_ws: str, url: str, session: Session, ahead) -> None:
    async with aiohttp.ClientSession() as http:
        page_ws = await page_socket_url(http, browser_ws)
        async with http.ws_connect(page_ws, max_msg_size=0) as ws:
            page = DevToolsPage(ws)
            await page.call("Page.navigate", url=url)
            await page.until("document.body && document.body.dataset.ready === '1'")
            names = await page.js(
                "[...document.querySelectorAll('#troopers .trooper text')].map(t => t.textContent)"
            )
            assert names == ["a", "b", "c", "d"]
            before = await page.js(LINES)
            assert sorted(x[:3] for x in before) == _expected(session.pairs_of("a")["pairs"])
            assert ["a", "b", "blocked"] in [x[:3] for x in before]  # the wall between
            # the page's own controls: type a position, press Place
            await page.js(
                "document.getElementById('x').value = 550;"
                "document.getElementById('y').value = 250;"
                "document.getElementById('place').click(); true"
            )
            await page.until("/move 1:/.test(document.getElementById('status').textContent)")
            await page.until(
                '!document.querySelector(\'line.lof[data-from="a"][data-to="b"][data-reason="blocked"]\')'
            )
            after = await page.js(LINES)
            assert after != before
            assert all(x[3] == COLOURS[x[2]] for x in before + after)
            assert session.scene.troopers["a"].position[:2] == (550.0, 250.0)
            assert sorted(x[:3] for x in after) == _expected(session.pairs_of("a")["pairs"])
            assert ["a", "b", "yes"] in [x[:3] for x in after]  # round the wall's end
            # a drag with the mouse: c from its spot to another
            box = await page.js(
                "(() => { const r = document.querySelector('.trooper[data-id=\"c\"] circle')"
                ".getBoundingClientRect(); const s = document.getElementById('plan')"
                ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2,"
                " s.width / 600]; })()"
            )
            x, y, k = box
            await page.mouse("mousePressed", x, y)
            for step in range(1, 6):
                await page.mouse("mouseMoved", x + step * 20 * k, y - step * 10 * k)
            await page.mouse("mouseReleased", x + 100 * k, y - 50 * k)
            # every move the drag sent has been answered (the page sends one at a time)
            await page.until("S.sel === 'c' && !S.busy && S.pending === null")
            cx, cy = session.scene.troopers["c"].position[:2]
            assert abs(cx - 200) < 2 and abs(cy - 150) < 2, (cx, cy)  # 100 mm east, 50 north
            # the inputs follow the drag: turning keeps the trooper where it was dragged
            await page.js("document.getElementById('right').click(); true")
            await page.until("!S.busy && S.pending === null && trooper('c').facing_deg === 90")
            t = session.scene.troopers["c"]
            assert (t.position[:2], t.facing_deg) == ((cx, cy), 90.0)
            of_c = 'line.lof[data-from="c"], line.lof[data-to="c"]'
            await page.until(f"document.querySelectorAll('{of_c}').length === 6")
            drawn = await page.js(LINES)
            assert sorted(x[:3] for x in drawn) == _expected(session.pairs_of("c")["pairs"])
            # the deciding patches on request: one per visible pair (both ways share it)
            await page.js("document.getElementById('witness').click(); true")
            eyes = {
                tuple(p["witness"]["eye"])
                for p in session.pairs_of("c")["pairs"]
                if "eye" in p["witness"]
            }
            assert eyes
            assert await page.js("document.querySelectorAll('rect.patch').length") == len(eyes)
            # the exposure overlay of a side, with progress, drawn as cells
            await page.js(
                "document.getElementById('side').value = 'red';"
                "document.getElementById('expose').click(); true"
            )
            await page.until("S.exposure && S.exposure.state === 'done'")
            level0 = await page.js("S.exposure.cells.filter(c => c.level === 0).length")
            assert level0 > 100
            assert await page.js("document.querySelectorAll('rect.cell').length") == level0
            assert "unseen by red" in await page.js("document.getElementById('expout').textContent")
            # the map follows a move: redone by itself, the answers the move cannot
            # change kept (b, an observer of red's map, steps 30 mm west)
            job = await page.js("S.exposure.job")
            await page.js(
                "select('b'); document.getElementById('x').value = 270;"
                "document.getElementById('place').click(); true"
            )
            await page.until(
                f"S.exposure && S.exposure.job > {job} && S.exposure.state === 'done' && !S.busy"
            )
            st = await page.js("S.exposure")
            assert st["refresh"] and st["side"] == "red" and 0 < st["reused"] < st["total"]
            assert st["generation"] == session.generation
            level0 = sum(1 for c in st["cells"] if c["level"] == 0)
            assert await page.js("document.querySelectorAll('rect.cell').length") == level0
            assert "kept from before" in await page.js(
                "document.getElementById('expout').textContent"
            )
            # the maps found ahead, the session quiet (held back until now): the page says
            # how far it got, then that both are ready
            ahead_text = "document.getElementById('ahead').textContent"
            assert (await page.js(ahead_text)).startswith("finding the maps ahead while idle")
            ahead.idle_s = 0.0
            await page.until(f"/^maps ready ahead: (blue, red|red, blue)$/.test({ahead_text})")


def test_page_in_chromium(table_file, tmp_path):
    browser = chromium()
    srv = make_server(Session(table_file), "127.0.0.1", 0)
    serve_in_thread(srv)
    srv.ahead.idle_s = 3600.0  # started as geom3d serve starts it; searching at the end
    srv.ahead.start()
    try:
        args = ["--disable-gpu", "--window-size=1300,900"]
        with devtools_browser(browser, tmp_path / "profile", args) as ws_url:
            asyncio.run(_drive(ws_url, srv.url, srv.session, srv.ahead))
    finally:
        srv.ahead.stop(timeout=60)
        srv.shutdown()
        srv.server_close()
