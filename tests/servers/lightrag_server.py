"""A real loopback HTTP server speaking LightRAG's `POST /query` protocol.

Context comes from a small in-memory corpus by keyword overlap, in the exact shape LightRAG
1.5.7 gives with `only_need_context` (its `kg_query_context` template: entity, relationship
and chunk JSON lines in fenced blocks under headings, then the `[n] path` reference list;
`naive_query_context` for mode naive). It checks X-API-Key (401),
validates the body like LightRAG's pydantic QueryRequest (422 {"detail": [...]}), and can be
scripted to answer 500 or to answer slowly. Every request is recorded.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODES = ("local", "global", "hybrid", "naive", "mix", "bypass")
NO_CONTEXT = "No relevant context found for the query."
_WORD = re.compile(r"[a-z0-9][a-z0-9-]+")

KG_CONTEXT = """
Knowledge Graph Data (Entity):

```json
{entities_str}
```

Knowledge Graph Data (Relationship):

```json
{relations_str}
```

Document Chunks (Each entry has a reference_id refer to the `Reference Document List`):

```json
{text_chunks_str}
```

{reference_heading}

```
{reference_list_str}
```

"""
NAIVE_CONTEXT = """
Document Chunks (Each entry has a reference_id refer to the `Reference Document List`):

```json
{text_chunks_str}
```

{reference_heading}

```
{reference_list_str}
```

"""
CREATED_AT = "2026-05-01 10:00:00"
REFERENCE_HEADING = (  # verbatim, one line in LightRAG's prompt.py
    "Reference Document List (Each entry starts with a [reference_id] that corresponds to entries"
    " in the Document Chunks):"
)

DEFAULT_CORPUS: list[dict[str, Any]] = [
    {
        "file_path": "projects/halcyon.md",
        "content": "Halcyon is a satellite project led by Mira Okafor. It ships in Q3.",
        "entities": [("Halcyon", "project", "Halcyon is a satellite project that ships in Q3.")],
        "relations": [("Mira Okafor", "Halcyon", "Mira Okafor leads the Halcyon project.")],
    },
    {
        "file_path": "people/mira.md",
        "content": "Mira Okafor works at Orbital Labs in Lisbon. She leads Halcyon.",
        "entities": [
            ("Mira Okafor", "person", "Mira Okafor works at Orbital Labs in Lisbon."),
            ("Orbital Labs", "organization", "Orbital Labs is a company in Lisbon."),
        ],
        "relations": [("Mira Okafor", "Orbital Labs", "Mira Okafor works at Orbital Labs.")],
    },
    {
        "file_path": "ops/runbook.md",
        "content": "The deploy runbook requires two approvals. Rollbacks use blue-green.",
    },
]


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Script:
    """Queued behaviours, consumed one per request: ("status", code) or ("delay", seconds)."""

    steps: list[tuple[str, float]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def pop(self) -> tuple[str, float] | None:
        with self.lock:
            return self.steps.pop(0) if self.steps else None


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _validate(body: Any) -> list[dict[str, Any]]:
    errors: list[dict[str, Any]] = []
    if not isinstance(body, dict):
        return [{"type": "model_attributes_type", "loc": ["body"], "msg": "Input should be an object"}]
    query = body.get("query")
    if not isinstance(query, str):
        errors.append({"type": "missing", "loc": ["body", "query"], "msg": "Field required"})
    elif len(query.strip()) < 3:
        msg = "String should have at least 3 characters"
        errors.append({"type": "string_too_short", "loc": ["body", "query"], "msg": msg})
    mode = body.get("mode", "mix")
    if mode not in MODES:
        msg = f"Input should be one of {MODES}"
        errors.append({"type": "literal_error", "loc": ["body", "mode"], "msg": msg})
    return errors


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "\n".join(json.dumps(row, ensure_ascii=False) for row in rows)


def context_string(hits: list[dict[str, Any]], naive: bool = False) -> str:
    """LightRAG 1.5.7's context for these documents (best first), as its templates build it."""
    chunks = [{"reference_id": str(i), "content": d["content"]} for i, d in enumerate(hits, 1)]
    references = "\n".join(f"[{i}] {d['file_path']}" for i, d in enumerate(hits, 1))
    if naive:
        return NAIVE_CONTEXT.format(
            text_chunks_str=_jsonl(chunks), reference_list_str=references, reference_heading=REFERENCE_HEADING
        )
    entities = [
        {
            "entity": name,
            "type": kind,
            "description": desc,
            "created_at": CREATED_AT,
            "file_path": d["file_path"],
        }
        for d in hits
        for name, kind, desc in d.get("entities", [])
    ]
    relations = [
        {
            "entity1": a,
            "entity2": b,
            "description": desc,
            "created_at": CREATED_AT,
            "file_path": d["file_path"],
        }
        for d in hits
        for a, b, desc in d.get("relations", [])
    ]
    return KG_CONTEXT.format(
        entities_str=_jsonl(entities),
        relations_str=_jsonl(relations),
        text_chunks_str=_jsonl(chunks),
        reference_list_str=references,
        reference_heading=REFERENCE_HEADING,
    )


class LightragServer:
    """Start with `.start()`; `.url` is the base URL; `.requests` lists what was received."""

    def __init__(self, api_key: str | None = None, corpus: list[dict[str, Any]] | None = None) -> None:
        self.api_key = api_key
        self.corpus = list(corpus if corpus is not None else DEFAULT_CORPUS)
        self.requests: list[Recorded] = []
        self.script = Script()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # scripting -----------------------------------------------------------------------
    def fail_next(self, status: int = 500, times: int = 1) -> None:
        self.script.steps.extend([("status", float(status))] * times)

    def delay_next(self, seconds: float, times: int = 1) -> None:
        self.script.steps.extend([("delay", seconds)] * times)

    # answering -----------------------------------------------------------------------
    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        qwords = _words(body["query"])
        hits = [d for d in self.corpus if qwords & _words(d["content"])]
        hits.sort(key=lambda d: -len(qwords & _words(d["content"])))
        if not hits:
            return {"response": NO_CONTEXT, "references": [], "llm_generated": False}
        refs = []
        for i, doc in enumerate(hits, 1):
            ref: dict[str, Any] = {"reference_id": str(i), "file_path": doc["file_path"]}
            if body.get("include_chunk_content"):
                ref["content"] = [doc["content"]]
            refs.append(ref)
        return {
            "response": context_string(hits, naive=body.get("mode") == "naive"),
            "references": refs if body.get("include_references", True) else None,
            "llm_generated": False,
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = None
                headers = {k.lower(): v for k, v in self.headers.items()}
                server.requests.append(Recorded(self.path, headers, body))
                if self.path != "/query":
                    return self._send(404, {"detail": "Not Found"})
                if server.api_key and self.headers.get("X-API-Key") != server.api_key:
                    return self._send(401, {"detail": "Invalid API Key"})
                step = server.script.pop()
                if step and step[0] == "delay":
                    time.sleep(step[1])
                elif step and step[0] == "status":
                    return self._send(int(step[1]), {"detail": "scripted failure"})
                errors = _validate(body)
                if errors:
                    return self._send(422, {"detail": errors})
                self._send(200, server.answer(body))

        return Handler

    def start(self) -> LightragServer:
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        httpd.daemon_threads = True
        httpd.block_on_close = False
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="lightrag-test-server",
            daemon=True,
        )
        self._thread.start()
        return self

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None


if __name__ == "__main__":  # manual use: python -m tests.servers.lightrag_server
    srv = LightragServer().start()
    print(srv.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()
