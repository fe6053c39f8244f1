"""Headless Chromium for the tests that read a page after its scripts ran: finding the
browser, starting it with the DevTools protocol, and one page's session (commands by id).

Chromium is the Debian package ``chromium`` (``.ci/run`` installs it). Without it a test
skips, except in CI (``$CI`` set), where it must run.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

#: Seconds a page gets to get somewhere (vtk.js builds its canvas, an overlay is computed)
#: and the browser to start: a loaded machine.
WAIT_S = 90.0


def chromium() -> str:
    """The path of the system's Chromium; skips the test when there is none (fails in CI)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("headless Chromium is required in CI (apt-get install chromium)")
    pytest.skip("chromium not installed")


@contextmanager
def devtools_browser(browser: str, profile: Path, args: Sequence[str] = ()) -> Iterator[str]:
    """Start ``browser`` headless on ``about:blank`` with a DevTools port; yield the
    browser's DevTools websocket address; stop it (and wait for it) on the way out.

    Its stderr goes to a file beside ``profile``, not a pipe: a chatty browser never blocks.
    """
    cmd = [browser, "--headless", "--no-sandbox", "--no-first-run", "--remote-debugging-port=0",
           f"--user-data-dir={profile}", *args, "about:blank"]  # fmt: skip
    log = profile.with_name(profile.name + "-chromium.log")
    with log.open("w") as err:
        proc = subprocess.Popen(cmd, stderr=err, stdout=subprocess.DEVNULL)
    try:
        ws_url = None
        deadline = time.monotonic() + WAIT_S
        while ws_url is None and time.monotonic() < deadline and proc.poll() is None:
            m = re.search(r"DevTools listening on (ws://\S+)", log.read_text(errors="replace"))
            if m:
                ws_url = m.group(1)
            else:
                time.sleep(0.1)
        assert ws_url, "Chromium printed no DevTools address: " + log.read_text()[-2000:]
        yield ws_url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def page_socket_url(http, browser_ws: str) -> str:
    """The DevTools websocket address of the browser's first page (an aiohttp session)."""
    base = browser_ws.replace("ws://", "http://").split("/devtools")[0]
    async with http.get(base + "/json/list") as r:
        targets = [t for t in await r.json() if t["type"] == "page"]
    return targets[0]["webSocketDebuggerUrl"]


class DevToolsPage:
    """A DevTools protocol session on one page (commands by id; events ignored)."""

    def __init__(self, ws) -> None:
        self.ws = ws
        self.n = 0

    async def call(self, method: str, **params):
        self.n += 1
        await self.ws.send_str(json.dumps({"id": self.n, "method": method, "params": params}))
        while True:
            msg = json.loads((await self.ws.receive()).data)
            if msg.get("id") == self.n:
                assert "error" not in msg, msg
                return msg["result"]

    async def js(self, expr: str):
        """The value of ``expr`` in the page (a promise is awaited)."""
        got = await self.call(
            "Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True
        )
        assert "exceptionDetails" not in got, got
        return got["result"].get("value")

    async def until(self, expr: str, poll_s: float = 0.1) -> None:
        """Wait (at most :data:`WAIT_S`) until ``expr`` is true in the page."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            if await self.js(expr):
                return
            await asyncio.sleep(poll_s)
        raise AssertionError(f"the page never got to: {expr}")

    async def mouse(self, kind: str, x: float, y: float) -> None:
        """One left-button mouse event (``mousePressed``, ``mouseMoved``, ...) at x, y."""
        await self.call(
            "Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
            buttons=0 if kind == "mouseReleased" else 1, clickCount=1,
        )  # fmt: skip
