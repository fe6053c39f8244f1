"""The HTTP API of ``geom3d serve`` (SPEC 13.6): routes, status codes, limits."""

from __future__ import annotations

import http.client
import json

import pytest

from geom3d.core.output import dumps_json
from geom3d.serve.app import MAX_BODY_BYTES, make_server, serve_in_thread
from geom3d.serve.session import Session


@pytest.fixture
def server(table_file):
    srv = make_server(Session(table_file), "127.0.0.1", 0)
    serve_in_thread(srv)
    yield srv
    srv.shutdown()
    srv.server_close()


def _call(srv, method, path, body=None, *, headers=None, raw=None):
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=60)
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    h = {"Content-Type": "application/json"} if data is not None else {}
    h.update(headers or {})
    conn.request(method, path, body=data, headers=h)
    resp = conn.getresponse()
    out = resp.status, resp.getheader("Content-Type"), resp.read().decode()
    conn.close()
    return out


def _error_line(text: str) -> str:
    assert text.endswith("\n") and text.count("\n") == 1, text  # one line
    return text


def test_scene_and_move(server):
    status, ctype, text = _call(server, "GET", "/api/scene")
    assert status == 200 and ctype == "application/json"
    doc = json.loads(text)
    assert doc["units"] == "mm"
    assert [t["id"] for t in doc["troopers"]] == ["a", "b", "c", "d"]
    a = doc["troopers"][0]
    assert (a["side"], a["position"], a["facing_deg"], a["silhouette"]) == (
        "blue",
        [300.0, 200.0, 0.0],
        90.0,
        2,
    )
    assert {s["id"] for s in doc["scenery"]} == {"wall", "building", "crate"}
    assert doc["table"]["bounds"] == [0.0, 0.0, 600.0, 600.0]
    status, _, text = _call(server, "POST", "/api/move", {"id": "c", "position": [450, 450]})
    assert status == 200
    moved = json.loads(text)
    assert moved["trooper"] == {"id": "c", "position": [450.0, 450.0, 80.0]}
    # the same document as the session's, byte for byte
    assert text == dumps_json(server.session.pairs_of("c"))
    status, _, text = _call(server, "POST", "/api/lof", {"id": "c"})
    assert status == 200 and json.loads(text) == moved


def test_attack_and_save(server, table_file):
    status, _, text = _call(server, "POST", "/api/attack", {"id": "grenade"})
    assert status == 200
    doc = json.loads(text)
    assert doc["attacks"][0]["id"] == "grenade" and doc["drawing"]
    status, _, text = _call(server, "POST", "/api/save", {})
    assert status == 200
    name = json.loads(text)["file"]
    assert (table_file.parent / name).is_file() and name != table_file.name
    # a path in the request is never used: the field is refused
    status, _, text = _call(server, "POST", "/api/save", {"path": "/tmp/x.yaml"})
    assert status == 400 and "unknown field 'path'" in _error_line(text)


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"id": "c", "position": [700, 100]}, 400, "off the table"),
        ({"id": "c", "position": [150, 450, 10]}, 400, "embedded in scenery"),
        ({"id": "c"}, 400, "position: required"),
        ({"id": "c", "position": [1, 2], "colour": 1}, 400, "unknown field"),
        ({"id": 7, "position": [1, 2]}, 400, "id"),
        ({"id": "zz", "position": [100, 100]}, 404, "unknown trooper"),
    ],
)
def test_bad_moves(server, body, status, words):
    got, ctype, text = _call(server, "POST", "/api/move", body)
    assert got == status and ctype.startswith("text/plain")
    assert words in _error_line(text)


def test_protocol_errors(server):
    assert _call(server, "POST", "/api/move", raw=b"{not json")[0] == 400
    assert _call(server, "POST", "/api/move", raw=b"[1, 2]")[0] == 400
    assert _call(server, "POST", "/api/attack", {"id": "nothing"})[0] == 404
    assert _call(server, "GET", "/api/nothing")[0] == 404
    assert _call(server, "POST", "/api/nothing", {})[0] == 404
    big = b'{"id": "' + b"x" * (MAX_BODY_BYTES + 1) + b'"}'
    status, _, text = _call(server, "POST", "/api/move", raw=big)
    assert status == 413 and str(MAX_BODY_BYTES) in _error_line(text)
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    assert _call(server, "POST", "/api/save", raw=b"a=b", headers=form)[0] == 415
    # DNS rebinding: a page of another site that resolves to 127.0.0.1
    assert _call(server, "GET", "/api/scene", headers={"Host": "evil.example:80"})[0] == 421
    status, ctype, _ = _call(server, "GET", "/")
    assert status == 200 and ctype.startswith("text/html")


def test_exposure_overlay(server):
    status, _, text = _call(server, "POST", "/api/exposure", {"side": "red"})
    assert status == 200 and json.loads(text)["state"] == "running"
    assert _call(server, "POST", "/api/exposure", {"side": "green"})[0] == 400
    import time

    deadline = time.monotonic() + 300
    while True:
        doc = json.loads(_call(server, "GET", "/api/exposure")[2])
        if doc["state"] != "running" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert doc["state"] == "done", doc
    assert doc["spacing_mm"] == 20.0 and doc["observers"] == ["b", "c"]
    assert doc["done"] == doc["total"] and doc["cells"]


def test_an_open_host_answers_any_name(table_file):
    """With --host 0.0.0.0 the user opened the server to other machines: it answers the
    names they reach it by (the Host check guards the loopback-only default)."""
    srv = make_server(Session(table_file), "0.0.0.0", 0)
    serve_in_thread(srv)
    try:
        status, _, _ = _call(srv, "GET", "/api/scene", headers={"Host": "table-pc.lan:8765"})
        assert status == 200
    finally:
        srv.shutdown()
        srv.server_close()
