"""A real loopback HTTP server speaking Ollama's API and the OpenAI-compatible API.

Endpoints: /api/chat, /api/generate, /api/embed, /api/embeddings (legacy), /api/tags,
/api/version, /v1/chat/completions, /v1/embeddings, /v1/models. Responses are shaped like
recorded ones. By default an extraction request gets a deterministic answer computed from
the messages in its prompt (simple "X works at Y" patterns), read the way a model would read
the engine's prompt: "I"/"we" is the line's speaker, a date in the text ("yesterday", "next
Monday", "on June 8") is resolved against the line's timestamp into `valid_at`, a short name of
a listed known entity is answered with the known name, and "works for"/"will start at" come back
in the model's own words (`works for`, `starts-at`) for the tier to map. So tests can check that
every message of a batch gets its own facts and that the prompt's fields reach the answer. It is
a schema filler for tests, not an extractor: a handful of patterns, nothing a bench should score.
Scripted behaviours replace the next answers: malformed, fenced, wrapper, truncated,
invalid_escape, trailing_garbage, invalid_items, error_body, mid_stream_error, http500, http404,
slow, hang, empty, ok.
`default = "flap"` alternates http500 and ok. Every request is recorded.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LLM_PATHS = ("/api/chat", "/api/generate", "/v1/chat/completions")
EMBED_PATHS = ("/api/embed", "/api/embeddings", "/v1/embeddings")
BEHAVIOURS = (
    "ok",
    "malformed",
    "fenced",
    "wrapper",
    "truncated",
    "invalid_escape",
    "trailing_garbage",
    "invalid_items",
    "error_body",
    "mid_stream_error",
    "http500",
    "http404",
    "slow",
    "hang",
    "empty",
)

_LINE = re.compile(r"^\[(\d+)\] id=(\S+) (\S+) (?:[A-Z][a-z]{2} )?(\w+) \((.*?)\): (.*)$")
_KNOWN = re.compile(r"^- (.+) \((\w+)\)$")
_NAME = r"(I|We|[A-Z][a-z]+(?: [A-Z][a-z]+)?)"
_THING = r"([A-Z][\w&.-]*(?: [A-Z][\w&.-]*)*)"
_PATTERNS: list[tuple[re.Pattern[str], str, str]] = [
    (
        re.compile(_NAME + r" (?:works?|am working|is working|started) at " + _THING),
        "works-at",
        "organization",
    ),
    (re.compile(_NAME + r" (?:works?|am working|is working) for " + _THING), "works for", "organization"),
    (re.compile(_NAME + r"(?: will|'ll| am going to) start at " + _THING), "starts-at", "organization"),
    (re.compile(_NAME + r" (?:lives?|am living|is living) in " + _THING), "lives-in", "location"),
    (re.compile(_NAME + r" (?:moved|moves|am moving) to " + _THING), "moved-to", "location"),
    (re.compile(_NAME + r" (?:likes?|loves?) " + _THING), "likes", "concept"),
    # past tense only for what is no longer true, as the prompt asks
    (re.compile(_NAME + r" no longer works? at " + _THING), "worked-at", "organization"),
]


@dataclass
class Recorded:
    path: str
    body: Any
    headers: dict[str, str]


@dataclass
class _Message:
    index: int
    id: str
    timestamp: str
    role: str
    speaker: str
    text: str


def _text(raw: str) -> str:
    """The message text: a JSON string in the engine's prompt (older prompts: plain text)."""
    if raw.startswith('"'):
        try:
            value = json.loads(raw)
        except ValueError:
            return raw
        return value if isinstance(value, str) else raw
    return raw


def parse_prompt_messages(prompt: str) -> list[_Message]:
    """Read the `[n] id=... time [weekday] role (speaker): text` lines the engine's prompt contains."""
    out: list[_Message] = []
    for line in prompt.splitlines():
        m = _LINE.match(line)
        if m:
            out.append(_Message(int(m[1]), m[2], m[3], m[4], m[5], _text(m[6])))
        elif out and line.startswith("    "):
            out[-1].text += "\n" + line.strip()
    return out


def parse_prompt_known(prompt: str) -> dict[str, str]:
    """The `- name (type)` lines under the prompt's known-entities header: name -> type."""
    known: dict[str, str] = {}
    inside = False
    for line in prompt.splitlines():
        if line.startswith("Known entities"):
            inside = True
        elif inside and (m := _KNOWN.match(line)):
            known[m[1]] = m[2]
        elif inside:
            break
    return known


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)
_NEXT_DAY = re.compile(r"\b(next|on|this) (" + "|".join(_WEEKDAYS) + r")\b", re.IGNORECASE)
_ON_DATE = re.compile(r"\bon (" + "|".join(_MONTHS) + r") (\d{1,2})\b", re.IGNORECASE)


def _valid_at(msg: _Message) -> str | None:
    """The date words a model resolves against the line's timestamp."""
    try:
        day = datetime.fromisoformat(msg.timestamp).date()
    except ValueError:
        return None
    low = msg.text.lower()
    if "yesterday" in low:
        return (day - timedelta(days=1)).isoformat()
    if "tomorrow" in low:
        return (day + timedelta(days=1)).isoformat()
    if "today" in low:
        return day.isoformat()
    if m := _NEXT_DAY.search(msg.text):
        ahead = (_WEEKDAYS.index(m[2].lower()) - day.weekday()) % 7 or 7  # the coming one
        return (day + timedelta(days=ahead)).isoformat()
    if m := _ON_DATE.search(msg.text):
        month, dom = _MONTHS.index(m[1].lower()) + 1, int(m[2])
        try:
            when = day.replace(month=month, day=dom)
        except ValueError:
            return None
        return (when if when >= day else when.replace(year=day.year + 1)).isoformat()
    return None


def _known_name(name: str, known: dict[str, str]) -> str:
    """A short form of exactly one listed known entity is answered with the listed name."""
    if name in known:
        return name
    longer = [k for k in known if k.casefold().startswith(name.casefold() + " ")]
    return longer[0] if len(longer) == 1 else name


def deterministic_extraction(prompt: str) -> dict[str, Any]:
    """The default answer: facts and entities found by simple patterns, one list per batch."""
    entities: dict[str, str] = {}
    facts: list[dict[str, Any]] = []
    known = parse_prompt_known(prompt)
    for msg in parse_prompt_messages(prompt):
        for pattern, predicate, obj_type in _PATTERNS:
            for m in pattern.finditer(msg.text):
                if m[1] == "We" and msg.role != "user":
                    continue
                subject = msg.speaker if m[1] in ("I", "We") else _known_name(m[1], known)
                obj = _known_name(m[2].rstrip(".-"), known)
                entities.setdefault(subject, known.get(subject, "person"))
                entities.setdefault(obj, known.get(obj, obj_type))
                facts.append(
                    {
                        "message_index": msg.index,
                        "subject": subject,
                        "predicate": predicate,
                        "object": obj,
                        "valid_at": _valid_at(msg),
                        "confidence": 0.9,
                    }
                )
    return {
        "entities": [{"name": n, "type": t, "importance": 0.7} for n, t in entities.items()],
        "facts": facts,
    }


def hash_vector(text: str, dim: int) -> list[float]:
    """Deterministic unit vector from the text (same text -> same vector, across runs)."""
    values: list[float] = []
    counter = 0
    while len(values) < dim:
        digest = hashlib.blake2b(f"{counter}\x1f{text}".encode(), digest_size=64).digest()
        values.extend((b - 127.5) / 127.5 for b in digest)
        counter += 1
    vec = values[:dim]
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


@dataclass
class _Reply:
    status: int
    body: bytes
    content_type: str = "application/json"


@dataclass
class FakeOllamaServer:
    """Start with `start()`; `url` is the base (`http://127.0.0.1:PORT`)."""

    model: str = "mistral:7b"
    embed_dim: int = 16
    slow_seconds: float = 0.5
    hang_seconds: float = 30.0
    default: str = "ok"  # a behaviour name, or "flap"
    poison_marker: str | None = None  # a prompt containing it always gets malformed output
    reject_think: bool = False  # answer 400 "does not support thinking" to any request with `think`
    requests: list[Recorded] = field(default_factory=list)
    _scripts: dict[str, deque[str]] = field(
        default_factory=lambda: {"llm": deque(), "embed": deque()}
    )
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _httpd: ThreadingHTTPServer | None = None
    _flap: int = 0

    # ------------------------------------------------------------ control

    def start(self) -> FakeOllamaServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server._handle(self, None)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                server._handle(self, self.rfile.read(length))

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # releases hanging handlers
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def release_hangs(self) -> None:
        """Let every hanging request (and any later "hang") answer normally now."""
        self._stopping.set()

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def script(self, *behaviours: str, channel: str = "llm") -> None:
        """Queue behaviours for the next requests of a channel ("llm" or "embed")."""
        for b in behaviours:
            if b not in BEHAVIOURS:
                raise ValueError(f"unknown behaviour {b!r}")
        with self._lock:
            self._scripts[channel].extend(behaviours)

    def calls(self, *paths: str) -> list[Recorded]:
        """Recorded requests to the given paths (all LLM paths when none given)."""
        wanted = paths or LLM_PATHS
        with self._lock:
            return [r for r in self.requests if r.path in wanted]

    # ------------------------------------------------------------ dispatch

    def _next_behaviour(self, channel: str) -> str:
        with self._lock:
            if self._scripts[channel]:
                return self._scripts[channel].popleft()
            if self.default == "flap":
                self._flap += 1
                return "http500" if self._flap % 2 else "ok"
            return self.default

    def _handle(self, handler: BaseHTTPRequestHandler, raw: bytes | None) -> None:
        path = handler.path.split("?", 1)[0]
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                self._send(handler, _Reply(400, _json({"error": "invalid JSON body"})))
                return
        with self._lock:
            self.requests.append(
                Recorded(path, body, {k.lower(): v for k, v in handler.headers.items()})
            )
        try:
            reply = self._route(path, body)
        except Exception as exc:  # a bug in the fake must be visible, not a hang
            reply = _Reply(500, _json({"error": f"fake server bug: {exc!r}"}))
        self._send(handler, reply)

    def _send(self, handler: BaseHTTPRequestHandler, reply: _Reply) -> None:
        try:
            handler.send_response(reply.status)
            handler.send_header("Content-Type", reply.content_type)
            handler.send_header("Content-Length", str(len(reply.body)))
            handler.end_headers()
            handler.wfile.write(reply.body)
        except OSError:
            pass  # client gave up (timeout tests)

    def _route(self, path: str, body: Any) -> _Reply:
        if path == "/api/tags":
            return _Reply(
                200,
                _json(
                    {
                        "models": [
                            {
                                "name": self.model,
                                "model": self.model,
                                "size": 4_100_000_000,
                                "details": {"family": "llama", "parameter_size": "7B"},
                            }
                        ]
                    }
                ),
            )
        if path == "/api/version":
            return _Reply(200, _json({"version": "0.12.0"}))
        if path == "/v1/models":
            return _Reply(
                200, _json({"object": "list", "data": [{"id": self.model, "object": "model"}]})
            )
        if path in LLM_PATHS:
            return self._llm(path, body if isinstance(body, dict) else {})
        if path in EMBED_PATHS:
            return self._embed(path, body if isinstance(body, dict) else {})
        return _Reply(404, _json({"error": f"404 page not found: {path}"}))

    def _pre(self, behaviour: str, openai: bool) -> _Reply | None:
        """Behaviours that do not depend on the endpoint's success shape."""
        if behaviour == "slow":
            time.sleep(self.slow_seconds)
        elif behaviour == "hang":
            self._stopping.wait(self.hang_seconds)
        elif behaviour == "http500":
            err: Any = (
                {"message": "internal server error", "type": "server_error"}
                if openai
                else "internal error"
            )
            return _Reply(500, _json({"error": err}))
        elif behaviour == "http404":
            msg = f"model '{self.model}' not found"
            return _Reply(
                404, _json({"error": {"message": msg, "type": "not_found"} if openai else msg})
            )
        elif behaviour == "error_body":
            msg = "model requires more system memory than is available"
            return _Reply(200, _json({"error": {"message": msg} if openai else msg}))
        return None

    def _llm(self, path: str, body: dict[str, Any]) -> _Reply:
        openai = path.startswith("/v1/")
        behaviour = self._next_behaviour("llm")
        early = self._pre(behaviour, openai)
        if early is not None:
            return early
        if not body.get("model"):
            return _Reply(400, _json({"error": "model is required"}))
        if self.reject_think and "think" in body and not openai:
            return _Reply(400, _json({"error": f'"{body["model"]}" does not support thinking'}))
        prompt = _prompt_of(path, body)
        if self.poison_marker and self.poison_marker in prompt:
            behaviour = "malformed"
        content, length = _shape_content(behaviour, json.dumps(deterministic_extraction(prompt)))
        model = body["model"]
        if behaviour == "mid_stream_error" and not openai:
            key = "response" if path == "/api/generate" else "message"
            first = {
                "model": model,
                key: content[:10]
                if key == "response"
                else {"role": "assistant", "content": content[:10]},
                "done": False,
            }
            lines = [
                json.dumps(first),
                json.dumps({"error": "an error was encountered while running the model"}),
            ]
            return _Reply(200, "\n".join(lines).encode() + b"\n", "application/x-ndjson")
        reason = "length" if length else "stop"
        if openai:
            return _Reply(200, _json(_openai_completion(model, content, reason)))
        return _Reply(200, _json(_ollama_reply(path, model, content, reason)))

    def _embed(self, path: str, body: dict[str, Any]) -> _Reply:
        openai = path.startswith("/v1/")
        early = self._pre(self._next_behaviour("embed"), openai)
        if early is not None:
            return early
        raw = body.get("prompt") if path == "/api/embeddings" else body.get("input")
        texts = [raw] if isinstance(raw, str) else raw
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            return _Reply(400, _json({"error": "invalid input type"}))
        dim = int(body.get("dimensions") or self.embed_dim)
        vectors = [hash_vector(t, dim) for t in texts]
        if path == "/api/embeddings":
            return _Reply(200, _json({"embedding": vectors[0] if vectors else []}))
        if openai:
            data = [
                {"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)
            ]
            usage = {"prompt_tokens": sum(len(t.split()) for t in texts), "total_tokens": 0}
            return _Reply(
                200,
                _json({"object": "list", "data": data, "model": body.get("model"), "usage": usage}),
            )
        return _Reply(
            200,
            _json(
                {
                    "model": body.get("model"),
                    "embeddings": vectors,
                    "total_duration": 1_000_000,
                    "load_duration": 0,
                    "prompt_eval_count": len(texts),
                }
            ),
        )


def _json(obj: Any) -> bytes:
    return json.dumps(obj).encode()


def _prompt_of(path: str, body: dict[str, Any]) -> str:
    if path == "/api/generate":
        return str(body.get("prompt") or "")
    msgs = body.get("messages") or []
    return "\n".join(
        str(m.get("content", "")) for m in msgs if isinstance(m, dict) and m.get("role") == "user"
    )


def _shape_content(behaviour: str, content: str) -> tuple[str, bool]:
    """Damage the model's content as real servers do; returns (content, truncated)."""
    if behaviour == "malformed":
        return '{"entities": [{"name": "Alex", "type": "person"}, {"name": ', False
    if behaviour == "fenced":
        return "Here is the JSON:\n```json\n" + content + "\n```\n", False
    if behaviour == "wrapper":
        return json.dumps({"response": content}), False
    if behaviour == "truncated":
        return content[: max(1, len(content) // 2)], True
    if behaviour == "invalid_escape":
        bad = '{"name": "C:\\q drive", "type": "concept", "importance": null}'
        return content.replace('"entities": [', '"entities": [' + bad + ", ", 1), False
    if behaviour == "trailing_garbage":
        return content + "\nI hope this helps! Let me know if you need anything else.", False
    if behaviour == "invalid_items":
        data = json.loads(content)
        data["facts"] += [
            {"message_index": 0, "subject": "", "predicate": "works-at", "object": "X"},
            {"message_index": "first", "subject": "A", "predicate": "b", "object": "C"},
            {"message_index": 99, "subject": "Ghost", "predicate": "haunts", "object": "Nowhere"},
            "not an object",
        ]
        data["entities"] += [{"name": 42}, {"type": "person"}]
        return json.dumps(data), False
    if behaviour == "empty":
        return "", False
    return content, False


def _ollama_reply(path: str, model: str, content: str, reason: str) -> dict[str, Any]:
    reply: dict[str, Any] = {"model": model, "created_at": datetime.now().isoformat() + "Z"}
    if path == "/api/generate":
        reply["response"] = content
    else:
        reply["message"] = {"role": "assistant", "content": content}
    reply.update(
        done=True,
        done_reason=reason,
        total_duration=5_000_000,
        load_duration=1_000_000,
        prompt_eval_count=100,
        prompt_eval_duration=1_000_000,
        eval_count=len(content) // 4,
        eval_duration=3_000_000,
    )
    return reply


def _openai_completion(model: str, content: str, reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": reason,
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": len(content) // 4, "total_tokens": 0},
    }


__all__ = ["BEHAVIOURS", "FakeOllamaServer", "Recorded", "deterministic_extraction", "hash_vector"]
