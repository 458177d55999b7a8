"""A loopback HTTP server that speaks three documented embedding APIs with deterministic vectors.

- Ollama  POST /api/embed {model, input: str | [str]} -> {model, embeddings: [[...]]}
- OpenAI  POST /v1/embeddings {model, input, dimensions?} -> {object, data: [{index, embedding}], model}
- Gemini  POST /v1beta/models/M:embedContent {content: {parts: [{text}]}} -> {embedding: {values}}
          POST /v1beta/models/M:batchEmbedContents {requests: [{model, content}]} -> {embeddings: [{values}]}

Vectors are a bag-of-words hash, so equal texts give equal vectors and shared words raise
similarity. Every request is recorded (path, headers, body) so tests can assert the wire
format; `fail_next` makes the next N requests answer 503 to exercise retries.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def fake_vector(text: str, dims: int) -> list[float]:
    vec = [0.0] * dims
    for word in text.lower().split():
        h = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big")
        vec[h % dims] += 1.0
    vec[0] += 0.01  # never all-zero (empty text)
    norm = math.sqrt(sum(x * x for x in vec))
    return [x / norm for x in vec]


@dataclass
class EmbedServerState:
    dims: int = 16
    gemini_dims: int = 3072
    api_key: str = "test-key"
    fail_next: int = 0
    fail_status: int = 503
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(BaseHTTPRequestHandler):
    state: EmbedServerState

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, payload: Any) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, {"error": "invalid JSON"})
            return
        st = self.state
        with st.lock:
            st.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            if st.fail_next > 0:
                st.fail_next -= 1
                self._send(st.fail_status, {"error": "temporarily unavailable"})
                return
        path = self.path.split("?", 1)[0]
        if path == "/api/embed":
            self._ollama(body)
        elif path == "/v1/embeddings":
            self._openai(body)
        elif path.startswith("/v1beta/models/"):
            self._gemini(path, body)
        else:
            self._send(404, {"error": f"unknown path {path}"})

    def _ollama(self, body: dict[str, Any]) -> None:
        if "model" not in body:
            self._send(400, {"error": "model is required"})
            return
        inp = body.get("input", [])
        texts = [inp] if isinstance(inp, str) else list(inp)
        vectors = [fake_vector(t, self.state.dims) for t in texts]
        self._send(200, {"model": body["model"], "embeddings": vectors})

    def _openai(self, body: dict[str, Any]) -> None:
        if self.headers.get("Authorization") != f"Bearer {self.state.api_key}":
            self._send(401, {"error": {"message": "Incorrect API key", "type": "invalid_request_error"}})
            return
        inp = body.get("input", [])
        texts = [inp] if isinstance(inp, str) else list(inp)
        dims = int(body.get("dimensions") or self.state.dims)
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(t, dims)}
            for i, t in enumerate(texts)
        ]
        data.reverse()  # clients must order by index, not by position
        self._send(200, {"object": "list", "data": data, "model": body.get("model")})

    def _gemini(self, path: str, body: dict[str, Any]) -> None:
        key = self.headers.get("x-goog-api-key") or _query_key(self.path)
        if key != self.state.api_key:
            self._send(400, _gerr(400, "API key not valid.", "INVALID_ARGUMENT"))
            return
        model, _, method = path.removeprefix("/v1beta/models/").partition(":")
        if method == "embedContent":
            dims = int(body.get("outputDimensionality") or self.state.gemini_dims)
            text = "".join(p.get("text", "") for p in body["content"]["parts"])
            self._send(200, {"embedding": {"values": fake_vector(text, dims)}})
        elif method == "batchEmbedContents":
            out = []
            for req in body.get("requests", []):
                if req.get("model") != f"models/{model}":
                    self._send(400, _gerr(400, "model mismatch", "INVALID_ARGUMENT"))
                    return
                dims = int(req.get("outputDimensionality") or self.state.gemini_dims)
                text = "".join(p.get("text", "") for p in req["content"]["parts"])
                out.append({"values": fake_vector(text, dims)})
            self._send(200, {"embeddings": out})
        else:
            self._send(404, _gerr(404, "method not found", "NOT_FOUND"))


def _gerr(code: int, message: str, status: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status}}


def _query_key(path: str) -> str | None:
    if "?" not in path:
        return None
    for part in path.split("?", 1)[1].split("&"):
        k, _, v = part.partition("=")
        if k == "key":
            return v
    return None


class EmbedServer:
    """Run the server in a background thread on 127.0.0.1:0."""

    def __init__(self, state: EmbedServerState | None = None) -> None:
        self.state = state or EmbedServerState()
        handler = type("Handler", (_Handler,), {"state": self.state})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        # a short poll interval: shutdown() waits for the next poll (0.5 s by default, on every test)
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> EmbedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
