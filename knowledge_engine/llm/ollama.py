"""Ollama `/api/chat` (default) and `/api/generate` (the vainplex endpoint) with structured output.

Always `stream: false`, `think: false` (reasoning models otherwise spend the token budget on
thoughts and return nothing), `temperature: 0`, an explicit `num_ctx` (old servers default
to 2048 and silently cut the prompt) and `format` = the JSON schema of the expected output.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from knowledge_engine.config import LlmConfig
from knowledge_engine.llm.errors import LlmHttpError
from knowledge_engine.llm.http import http_client, post_json
from knowledge_engine.llm.parse import load_body, ollama_content


def base_url(endpoint: str) -> str:
    """`http://h:11434/api/generate` or `.../api/chat` or `http://h:11434/` -> `http://h:11434`."""
    parts = urlsplit(endpoint)
    path = parts.path.rstrip("/")
    for suffix in ("/api/generate", "/api/chat", "/api"):
        if path.endswith(suffix):
            path = path[: -len(suffix)]
            break
    return urlunsplit((parts.scheme, parts.netloc, path, "", "")).rstrip("/")


class OllamaClient:
    """Ollama's native API; `generate=True` uses /api/generate with `system` + `prompt`."""

    def __init__(self, config: LlmConfig, *, generate: bool = False) -> None:
        self._config = config
        self._generate = generate
        self._url = base_url(config.endpoint) + ("/api/generate" if generate else "/api/chat")
        self._http = http_client(config)
        self._headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        self._send_think = True

    @property
    def api(self) -> str:
        return "ollama-generate" if self._generate else "ollama-chat"

    def request_body(self, system: str, user: str, schema: dict[str, Any]) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self._config.model,
            "stream": False,
            "format": schema,
            "options": {"temperature": 0, "num_ctx": self._config.num_ctx},
            "keep_alive": self._config.keep_alive,
        }
        if self._send_think:
            body["think"] = False
        if self._generate:
            body.update(system=system, prompt=user)
        else:
            body["messages"] = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        return body

    def complete(self, system: str, user: str, schema: dict[str, Any]) -> str:
        try:
            response = self._post(system, user, schema)
        except LlmHttpError as exc:
            if not (self._send_think and exc.status == 400 and "think" in str(exc)):
                raise
            # A server or model that rejects the `think` field: drop it for good (the one extra request
            # is protocol negotiation, not a retry).
            self._send_think = False
            response = self._post(system, user, schema)
        return ollama_content(load_body(response.content), response.status_code, generate=self._generate)

    def _post(self, system: str, user: str, schema: dict[str, Any]) -> httpx.Response:
        return post_json(self._http, self._url, self.request_body(system, user, schema), self._headers)

    def close(self) -> None:
        self._http.close()
