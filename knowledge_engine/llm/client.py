"""The client protocol every LLM backend implements, and the factory that picks one from config.

A client does exactly one HTTP request per `complete()` call and never retries: retries,
backoff and cool-down belong to the batcher, which is the only place that can count them.
"""

from __future__ import annotations

from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx

from knowledge_engine.config import LlmConfig
from knowledge_engine.llm.errors import LlmError, LlmHttpError, LlmTimeout, LlmUnavailable


class LlmClient(Protocol):
    """One structured-output completion: system + user text in, the model's JSON text out."""

    @property
    def api(self) -> str: ...

    def complete(self, system: str, user: str, schema: dict[str, Any]) -> str:
        """Return the model's content; raise LlmError (never anything else) on failure."""
        ...

    def close(self) -> None: ...


def resolve_api(config: LlmConfig) -> str:
    """`auto`: /api/generate -> generate, /v1... -> openai, anything else -> Ollama chat."""
    if config.api != "auto":
        return config.api
    path = urlsplit(config.endpoint).path.rstrip("/")
    if path.endswith("/api/generate"):
        return "ollama-generate"
    if "/v1/" in path + "/" or path.endswith("/chat/completions"):
        return "openai"
    return "ollama-chat"


def http_client(config: LlmConfig) -> httpx.Client:
    total = config.timeout_ms / 1000
    timeout = httpx.Timeout(total, connect=min(total, 10.0))
    return httpx.Client(timeout=timeout, trust_env=False, follow_redirects=False)


def post_json(
    client: httpx.Client, url: str, body: dict[str, Any], headers: dict[str, str]
) -> httpx.Response:
    """POST and map transport failures to LlmError; 4xx/5xx without a JSON error become LlmHttpError."""
    try:
        response = client.post(url, json=body, headers=headers)
    except httpx.TimeoutException as exc:
        raise LlmTimeout(type(exc).__name__) from None
    except httpx.TransportError as exc:
        raise LlmUnavailable(type(exc).__name__) from None
    if response.status_code >= 400:
        detail = f"HTTP {response.status_code}"
        try:
            obj = response.json()
            err = obj.get("error") if isinstance(obj, dict) else None
            if err:
                msg = err.get("message") if isinstance(err, dict) else err
                detail += f": {str(msg)[:200]}"
        except ValueError:
            pass
        raise LlmHttpError(detail, status=response.status_code)
    return response


def make_client(config: LlmConfig) -> LlmClient:
    """The client for `config.api` (resolved from the endpoint when `auto`)."""
    from knowledge_engine.llm.ollama import OllamaClient
    from knowledge_engine.llm.openai_compat import OpenAICompatClient

    api = resolve_api(config)
    if api == "openai":
        return OpenAICompatClient(config)
    if api in ("ollama-chat", "ollama-generate"):
        return OllamaClient(config, generate=api == "ollama-generate")
    raise LlmError(f"unknown api {api!r}")
