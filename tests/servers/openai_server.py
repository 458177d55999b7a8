"""A real loopback HTTP server speaking the OpenAI chat-completions API, as a model provider for OpenClaw.

The gateway is configured with a provider whose `baseUrl` is this server's `/v1`; it calls `/v1/models`
and `/v1/chat/completions` (streaming or not). Every request body is recorded, so a test can read exactly
the system prompt the model received (and so see whether the knowledge block was injected). Replies are
deterministic: `reply_when(marker, text)` makes any request whose current-turn user text contains `marker`
get `text` (so a test can make the assistant state a fact of its own); otherwise `default_reply`.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_ID = "fake-model"


@dataclass
class ChatRequest:
    """One recorded /v1/chat/completions call."""

    t: float
    path: str
    body: dict[str, Any]

    @property
    def system_prompt(self) -> str:
        """The text of every system/developer message, joined (what the host put in the system prompt)."""
        return "\n".join(
            _text_of(m.get("content"))
            for m in self.body.get("messages") or []
            if isinstance(m, dict) and m.get("role") in ("system", "developer")
        )

    @property
    def turn_user_text(self) -> str:
        """The user messages after the last assistant message: this turn's input (OpenClaw sends the
        user's text, then a user-role block of its own context, so the last user message is not theirs)."""
        turn: list[str] = []
        for m in self.body.get("messages") or []:
            if not isinstance(m, dict):
                continue
            if m.get("role") == "assistant":
                turn = []
            elif m.get("role") == "user":
                turn.append(_text_of(m.get("content")))
        return "\n".join(turn)


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


@dataclass
class OpenAIServer:
    """Loopback OpenAI-compatible model server; `start()` binds a free port, `url` is the `/v1` base URL."""

    default_reply: str = "Noted."
    _requests: list[ChatRequest] = field(default_factory=list)
    _rules: list[tuple[str, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _httpd: ThreadingHTTPServer | None = None

    def start(self) -> OpenAIServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server._get(self)

            def do_POST(self) -> None:
                server._post(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            daemon=True,
            name="openai-server",
        ).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def reply_when(self, marker: str, text: str) -> None:
        """Requests whose current-turn user text contains `marker` get `text` as the assistant's reply."""
        with self._lock:
            self._rules.append((marker, text))

    def requests(self) -> list[ChatRequest]:
        """Every chat-completions request so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def requests_with(self, marker: str) -> list[ChatRequest]:
        """The requests whose current-turn user text contains `marker`."""
        return [r for r in self.requests() if marker in r.turn_user_text]

    def _reply_for(self, req: ChatRequest) -> str:
        last = req.turn_user_text
        with self._lock:
            for marker, text in self._rules:
                if marker in last:
                    return text
        return self.default_reply

    def _get(self, h: BaseHTTPRequestHandler) -> None:
        if h.path.rstrip("/").endswith("/models"):
            _send_json(
                h, 200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model", "owned_by": "test"}]}
            )
        else:
            _send_json(h, 404, {"error": {"message": "not found"}})

    def _post(self, h: BaseHTTPRequestHandler) -> None:
        raw = h.rfile.read(int(h.headers.get("content-length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            _send_json(h, 400, {"error": {"message": "body is not JSON"}})
            return
        if not h.path.rstrip("/").endswith("/chat/completions") or not isinstance(body, dict):
            _send_json(h, 404, {"error": {"message": "not found"}})
            return
        req = ChatRequest(time.time(), h.path, body)
        with self._lock:
            self._requests.append(req)
        text = self._reply_for(req)
        if body.get("stream"):
            _stream(h, body, text)
        else:
            _send_json(h, 200, _completion(body, text))


_USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def _completion(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-" + uuid.uuid4().hex[:12],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", MODEL_ID),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": _USAGE,
    }


def _stream(h: BaseHTTPRequestHandler, body: dict[str, Any], text: str) -> None:
    h.send_response(200)
    h.send_header("content-type", "text/event-stream")
    h.send_header("cache-control", "no-cache")
    h.send_header("connection", "close")
    h.end_headers()
    base = {
        "id": "chatcmpl-" + uuid.uuid4().hex[:12],
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", MODEL_ID),
    }
    chunks: list[dict[str, Any]] = [
        {
            **base,
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
        },
        {**base, "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {**base, "choices": [], "usage": _USAGE},
    ]
    for chunk in chunks:
        h.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
    h.wfile.write(b"data: [DONE]\n\n")
    h.wfile.flush()
    h.close_connection = True


def _send_json(h: BaseHTTPRequestHandler, code: int, obj: Any) -> None:
    data = json.dumps(obj).encode()
    h.send_response(code)
    h.send_header("content-type", "application/json")
    h.send_header("content-length", str(len(data)))
    h.end_headers()
    h.wfile.write(data)
