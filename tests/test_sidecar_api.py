"""`knowledge-engine serve` over its real transports: a real subprocess, a real Unix socket and loopback TCP,
the real engine behind it (spaCy, stores on disk). The HTTP API is the one in docs/sidecar.md."""

from __future__ import annotations

import asyncio
import json
import socket
import sqlite3
import stat
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiohttp
import pytest

from tests.sidecar_process import Sidecar, sidecar_config, start_sidecar

pytestmark = pytest.mark.slow  # real processes and spaCy: outside the fast loop

TOKEN = "t0k3n-for-the-sidecar-tests-only-0123456789"
MARKER = "Quokkaville"  # a word from message text that must never reach a log or an error body
SESSION = "agent:main:chat"


@pytest.fixture(scope="module")
def unix_sidecar(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sidecar]:
    """One Unix-socket sidecar at DEBUG for the module; its socket folder does not exist before start."""
    root = tmp_path_factory.mktemp("sidecar-unix")
    sc = start_sidecar(root, sidecar_config(root), socket=root / "run" / "ke.sock")
    yield sc
    assert sc.terminate() == 0


@pytest.fixture(scope="module")
def tcp_sidecar(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sidecar]:
    root = tmp_path_factory.mktemp("sidecar-tcp")
    sc = start_sidecar(root, sidecar_config(root), port=0, token=TOKEN)
    yield sc
    assert sc.terminate() == 0


def workspace_of(sc: Sidecar, agent: str = "main") -> Path:
    return Path(json.loads(next(sc.stderr_path.parent.glob("sidecar-config.json")).read_text())["workspace"]
                .replace("{agentId}", agent))


# --------------------------------------------------------------------------- transport


def test_unix_socket_is_private_and_announced(unix_sidecar: Sidecar) -> None:
    sock = unix_sidecar.socket
    assert sock is not None and unix_sidecar.listening["port"] is None
    assert unix_sidecar.listening["pid"] == unix_sidecar.proc.pid
    assert stat.S_ISSOCK(sock.lstat().st_mode)
    assert stat.S_IMODE(sock.lstat().st_mode) == 0o600
    assert stat.S_IMODE(sock.parent.stat().st_mode) == 0o700  # the folder the sidecar created
    assert [p.name for p in sock.parent.iterdir()] == [sock.name]  # no staging leftovers


def test_health_reports_hooks_and_readiness(unix_sidecar: Sidecar) -> None:
    status, body = unix_sidecar.call("GET", "/health")
    assert status == 200
    assert body["status"] == "ok" and body["version"] == "0.1.0" and body["pid"] == unix_sidecar.proc.pid
    assert {"message_received", "before_prompt_build", "gateway_stop"} <= set(body["hooks"])
    assert isinstance(body["ready"], bool)
    unix_sidecar.wait_ready()


def test_tcp_requires_the_bearer_token(tcp_sidecar: Sidecar) -> None:
    assert tcp_sidecar.socket is None and tcp_sidecar.port and tcp_sidecar.port > 0
    event = {"event": {"content": f"I live in {MARKER}.", "sessionKey": SESSION}}
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN},
                    {"Authorization": f"Basic {TOKEN}"}, {"Authorization": f"Bearer {TOKEN}x"}):
        for method, path, body in (("GET", "/health", None), ("POST", "/hooks/message_received", event),
                                   ("POST", "/drain", {}), ("GET", "/nowhere", None)):
            status, answer = tcp_sidecar.call(method, path, body, headers=headers, auth=False)
            assert status == 401, (headers, path)
            assert answer == {"error": "missing or wrong bearer token"}
    status, body = tcp_sidecar.call("GET", "/health")
    assert status == 200 and body["status"] == "ok"
    assert TOKEN not in tcp_sidecar.stderr() and MARKER not in tcp_sidecar.stderr()


def test_a_header_that_is_not_utf8_gets_401_not_500(tcp_sidecar: Sidecar) -> None:
    assert tcp_sidecar.port is not None
    with socket.create_connection(("127.0.0.1", tcp_sidecar.port), timeout=60) as conn:
        conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xff\xfe\r\n"
                     b"Connection: close\r\n\r\n")
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 401 ")
    assert answer.endswith(b'{"error":"missing or wrong bearer token"}')


def test_tcp_without_a_token_in_the_header_never_reaches_the_engine(tcp_sidecar: Sidecar) -> None:
    tcp_sidecar.wait_ready()
    event = {"content": "Mail me at refused@initech.example", "messageId": "refused-1", "sessionKey": SESSION}
    status, _ = tcp_sidecar.call("POST", "/hooks/message_received", {"event": event}, auth=False)
    assert status == 401
    assert tcp_sidecar.call("POST", "/drain", {"timeoutMs": 60000})[1]["drained"] is True
    folder = workspace_of(tcp_sidecar)
    stored = "".join(p.read_text(errors="replace") for p in folder.glob("*.json*")) if folder.exists() else ""
    assert "refused@initech.example" not in stored


# --------------------------------------------------------------------------- bad requests


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"not json " + MARKER.encode(), "body is not valid JSON"),
        (b"\xff\xfe" + MARKER.encode(), "body is not valid JSON"),
        (json.dumps([MARKER]).encode(), "body must be a JSON object"),
        (b"", "body must be a JSON object with an event"),
        (json.dumps({"ctx": {"note": MARKER}}).encode(), "body must be a JSON object with an event"),
        (json.dumps({"event": MARKER}).encode(), "event must be a JSON object"),
        (json.dumps({"event": {}, "ctx": [MARKER]}).encode(), "ctx must be a JSON object"),
    ],
)
def test_bad_bodies_get_400_without_echoing_them(unix_sidecar: Sidecar, raw: bytes, reason: str) -> None:
    status, body = unix_sidecar.call("POST", "/hooks/message_received", raw=raw)
    assert (status, body) == (400, {"error": reason})
    assert MARKER not in unix_sidecar.stderr()


@pytest.mark.parametrize(
    ("request_bytes", "logged"),
    [
        (b"POST /hooks/message_received HTTP/1.1\r\nHost: x\r\nX-Note: " + MARKER.encode() + b"\x01\r\n"
         b"Content-Length: 2\r\n\r\n{}", True),
        (b"POST /hooks/message_received HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
         b"Transfer-Encoding: chunked\r\n\r\n" + MARKER.encode(), True),
        (b"GARBAGE " + MARKER.encode() + b"\r\n\r\n", False),  # aiohttp logs this one at DEBUG only
    ],
)
def test_requests_that_are_not_http_get_400_and_are_logged_without_content(
    unix_sidecar: Sidecar, request_bytes: bytes, logged: bool
) -> None:
    """aiohttp's parser errors quote the offending bytes; the log keeps only the error type. (aiohttp logs
    before it answers, and stderr is line-buffered: once the answer is here, so is the log line.)"""
    assert unix_sidecar.socket is not None
    before = unix_sidecar.stderr().count("request content not logged")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(60)
        conn.connect(str(unix_sidecar.socket))
        conn.sendall(request_bytes)
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
    assert answer.startswith((b"HTTP/1.0 400 ", b"HTTP/1.1 400 "))
    log = unix_sidecar.stderr()
    assert MARKER not in log
    assert log.count("request content not logged") == before + int(logged)
    assert unix_sidecar.call("GET", "/health")[0] == 200


def test_unknown_or_unregistered_hooks_and_paths_get_404(unix_sidecar: Sidecar) -> None:
    event = {"event": {"content": MARKER}}
    # not a hook at all; a real hook this plugin did not register; a path outside the API
    for path in ("/hooks/no_such_hook", "/hooks/before_model_resolve", "/hooks/", "/hooks", "/nowhere"):
        status, body = unix_sidecar.call("POST", path, event)
        assert status == 404, path
        assert body == {"error": "not found"}
    status, body = unix_sidecar.call("GET", "/hooks/message_received")
    assert status == 405 and body == {"error": "method not allowed"}


def test_drain_rejects_a_bad_body(unix_sidecar: Sidecar) -> None:
    for body in ({"timeoutMs": -1}, {"timeoutMs": "soon"}, {"timeoutMs": True}, {"timeoutMs": 10**9}):
        status, answer = unix_sidecar.call("POST", "/drain", body)
        assert (status, answer) == (400, {"error": "invalid drain request: timeoutMs"}), body
    status, answer = unix_sidecar.call("POST", "/drain", raw=b"[1]")
    assert (status, answer) == (400, {"error": "body must be a JSON object"})


def test_bodies_over_8_mib_get_413_and_the_sidecar_keeps_serving(unix_sidecar: Sidecar) -> None:
    big = json.dumps({"event": {"content": MARKER * 10}, "pad": "x" * (8 * 1024 * 1024)}).encode()
    status, body = unix_sidecar.call("POST", "/hooks/message_received", raw=big)
    assert (status, body) == (413, {"error": "request entity too large"})

    async def chunked() -> tuple[int, str]:  # no Content-Length: the limit holds while streaming too
        async def chunks() -> AsyncIterator[bytes]:
            for _ in range(9):
                yield b"x" * (1024 * 1024)

        connector = aiohttp.UnixConnector(path=str(unix_sidecar.socket))
        async with (
            aiohttp.ClientSession(connector=connector) as session,
            session.post("http://sidecar/hooks/message_received", data=chunks()) as resp,
        ):
            return resp.status, await resp.text()

    status, text = asyncio.run(chunked())
    assert status == 413 and json.loads(text) == {"error": "request entity too large"}
    just_under = json.dumps({"event": {"content": "ok"}, "pad": "x" * (8 * 1024 * 1024 - 100)}).encode()
    assert len(just_under) <= 8 * 1024 * 1024
    assert unix_sidecar.call("POST", "/hooks/message_received", raw=just_under)[0] == 200
    assert unix_sidecar.call("GET", "/health")[0] == 200
    assert MARKER not in unix_sidecar.stderr()


# --------------------------------------------------------------------------- the conversation


def test_messages_become_facts_on_disk_and_come_back_in_the_prompt(unix_sidecar: Sidecar) -> None:
    sc = unix_sidecar
    # the real gateway's message_received context: no agentId, no workspaceDir; the agent is in the key
    lines = [
        f"Hi, I'm Dana. I work at Globex Corporation and I live in {MARKER}.",
        "Send the invoice to dana@globex.example by 2025-03-14, it is $4,500.",
    ]
    for i, text in enumerate(lines):
        event = {"from": "user-1", "content": text, "messageId": f"m-{i}", "sessionKey": SESSION,
                 "timestamp": "2025-02-01T10:00:00Z", "metadata": {"senderName": "Dana"}}
        assert sc.hook("message_received", event, {"channelId": "webchat", "channel": "webchat"}) is None

    status, drained = sc.call("POST", "/drain", {"timeoutMs": 120000, "reason": "test"})
    assert status == 200 and drained == {"drained": True, "pending": 0}
    folder = workspace_of(sc)
    entities = json.loads((folder / "entities.json").read_text())["entities"]
    values = {(e["type"], e["value"]) for e in entities}
    assert ("email", "dana@globex.example") in values
    assert any(t == "organization" and "Globex" in v for t, v in values)
    facts = json.loads((folder / "facts.json").read_text())["facts"]
    assert any(f["predicate"] == "works-at" and "Globex" in f["object"] for f in facts)

    question = f"Which company do I work for, and is {MARKER} nice?"
    result = sc.hook("before_prompt_build",
                     {"prompt": question, "messages": [{"role": "user", "content": question}]},
                     {"agentId": "main", "sessionKey": SESSION, "trigger": "user"})
    assert isinstance(result, dict) and result
    block = "\n".join(v for v in result.values() if isinstance(v, str))
    assert "Globex" in block and "knowledge-engine:BEGIN" in block and "not instructions" in block

    # privacy: the whole run was at DEBUG; neither message nor query text reached the log
    log = sc.stderr()
    assert "hook_run" in log  # DEBUG was really on
    for secret in (MARKER, "dana@globex.example", "invoice", "Which company"):
        assert secret not in log


def test_a_message_cut_inside_an_emoji_by_node_is_stored_not_refused(unix_sidecar: Sidecar) -> None:
    """Node's JSON.stringify writes a lone surrogate as "\\ud83d" (a string sliced inside an emoji): valid
    JSON that orjson refuses. The message is stored with U+FFFD in its place, not answered with 400."""
    sc = unix_sidecar
    event = {"from": "user-1", "content": "I adopted a cat named Biscuit \ud83d", "messageId": "m-cut",
             "sessionKey": SESSION}
    body = json.dumps({"event": event, "ctx": {"channelId": "webchat"}}).encode()  # writes "\\ud83d", as Node
    assert sc.call("POST", "/hooks/message_received", raw=body) == (200, {"result": None})
    assert sc.call("POST", "/drain", {"timeoutMs": 120000})[1]["drained"] is True
    db = sqlite3.connect(workspace_of(sc) / "messages.sqlite3")
    try:
        texts = [r[0] for r in db.execute("SELECT text FROM messages WHERE text LIKE '%Biscuit%'")]
    finally:
        db.close()
    assert texts == ["I adopted a cat named Biscuit \ufffd"]


def test_void_hooks_answer_null_and_a_handler_failure_is_not_the_hosts_problem(unix_sidecar: Sidecar) -> None:
    # session_start with a context the handler cannot use still answers 200 {"result": null}
    assert unix_sidecar.hook("session_start", {"sessionId": "s-x", "sessionKey": SESSION},
                             {"agentId": "main"}) is None
    # a message with no text is a counted skip, not an error for the host
    assert unix_sidecar.hook("message_received", {"content": "", "sessionKey": SESSION}) is None
    # a payload the runner rejects (wrong field types) is logged by the runner and answered with null
    status, body = unix_sidecar.call("POST", "/hooks/message_received",
                                     {"event": {"content": {"nested": [MARKER]}, "timestamp": [1, 2]}})
    assert (status, body) == (200, {"result": None})
    assert MARKER not in unix_sidecar.stderr()


def test_drain_with_nothing_queued(unix_sidecar: Sidecar) -> None:
    status, body = unix_sidecar.call("POST", "/drain")
    assert (status, body) == (200, {"drained": True, "pending": 0})



RECORDED = Path(__file__).resolve().parents[2] / "shared/reference/openclaw-gateway/hook-payloads.jsonl"
NOT_FORWARDED = {"config", "abortSignal", "getCron"}  # what the JS plugin never forwards


@pytest.mark.skipif(not RECORDED.exists(), reason="recorded gateway payloads not available")
def test_every_payload_the_real_gateway_fired_gets_200_or_404(unix_sidecar: Sidecar, tmp_path: Path) -> None:
    """Replays ../shared/reference/openclaw-gateway/hook-payloads.jsonl: served hooks answer 200 (null
    or an object), the others 404; never a 400/500, and none of their text reaches the log."""
    served = set(unix_sidecar.call("GET", "/health")[1]["hooks"])
    texts: list[str] = []
    seen: dict[str, int] = {}
    for line in RECORDED.read_text().replace("$DIR", str(tmp_path)).splitlines():
        rec = json.loads(line)
        if rec["hook"].startswith("<") or "event" not in rec:
            continue
        ctx = {k: v for k, v in (rec.get("ctx") or {}).items() if k not in NOT_FORWARDED and v != "[fn]"}
        status, body = unix_sidecar.call("POST", f"/hooks/{rec['hook']}", {"event": rec["event"], "ctx": ctx})
        seen[rec["hook"]] = status
        if rec["hook"] in served:
            assert status == 200 and (body["result"] is None or isinstance(body["result"], dict)), rec["hook"]
        else:
            assert (status, body) == (404, {"error": "not found"}), rec["hook"]
        for key in ("content", "prompt"):
            value = rec["event"].get(key)
            if isinstance(value, str) and len(value) > 12:
                texts.append(value)
    assert {"message_received", "before_prompt_build", "session_start", "gateway_stop"} <= set(seen)
    assert texts
    log = unix_sidecar.stderr()
    for text in texts:
        assert text not in log
