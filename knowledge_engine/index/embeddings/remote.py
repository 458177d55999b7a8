"""HTTP embedding providers: Ollama `/api/embed`, Gemini `embedContent`, OpenAI-compatible `/embeddings`.

All share one retry loop: transport errors, 429 and 5xx are retried with exponential
backoff; other 4xx fail at once. Error messages name the provider, the status and the
host only: never texts, keys or full URLs (Gemini keys travel in a header, not the URL).
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from knowledge_engine.config import EmbeddingsConfig
from knowledge_engine.index.embeddings.base import EmbedderBase, EmbeddingError
from knowledge_engine.observe import counters, emit

_RETRY_STATUS = {408, 429, 500, 502, 503, 504}


class HttpEmbedder(EmbedderBase):
    """Shared HTTP plumbing; subclasses build the request and parse the response."""

    provider = "http"

    def __init__(self, config: EmbeddingsConfig, endpoint: str, model: str) -> None:
        super().__init__(f"{self.provider}:{model}", config.batch_size, config.cache_size, config.dimensions)
        self.endpoint = endpoint.rstrip("/")
        self.model = model
        self.api_key = config.api_key
        self.max_retries = config.max_retries
        self.backoff_s = config.retry_backoff_ms / 1000
        self._client = httpx.Client(timeout=config.timeout_ms / 1000)

    def close(self) -> None:
        self._client.close()

    def _host(self) -> str:
        return urlsplit(self.endpoint).netloc or self.endpoint

    def _post(self, url: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
        last = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                time.sleep(self.backoff_s * (2 ** (attempt - 1)))
                counters.inc(f"embeddings.{self.provider}.retry")
            try:
                resp = self._client.post(url, json=body, headers=headers or {})
            except httpx.HTTPError as exc:
                last = type(exc).__name__
                continue
            if resp.status_code in _RETRY_STATUS:
                last = f"HTTP {resp.status_code}"
                continue
            if resp.status_code >= 400:
                raise EmbeddingError(
                    f"{self.provider} at {self._host()}: HTTP {resp.status_code} ({_reason(resp)})"
                )
            try:
                return resp.json()
            except ValueError as exc:
                raise EmbeddingError(f"{self.provider} at {self._host()}: response is not JSON") from exc
        emit("embeddings_failed", provider=self.provider, attempts=self.max_retries + 1, reason=last)
        raise EmbeddingError(
            f"{self.provider} at {self._host()}: failed after {self.max_retries + 1} attempts ({last})"
        )

    def _bad(self, what: str) -> EmbeddingError:
        return EmbeddingError(f"{self.provider} at {self._host()}: unexpected response ({what})")


def _reason(resp: httpx.Response) -> str:
    """A short error reason from the body, without echoing anything long (it may quote input)."""
    try:
        data = resp.json()
    except ValueError:
        return "no JSON body"
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        err = err.get("message") or err.get("status")
    return str(err)[:120] if err else "no error message"


class OllamaEmbedder(HttpEmbedder):
    """POST {endpoint}/api/embed {model, input: [...]} -> {embeddings: [[...]]}."""

    provider = "ollama"

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        data = self._post(f"{self.endpoint}/api/embed", {"model": self.model, "input": texts})
        vectors = data.get("embeddings") if isinstance(data, dict) else None
        if not isinstance(vectors, list):
            raise self._bad("no 'embeddings' list")
        return vectors


class OpenAIEmbedder(HttpEmbedder):
    """POST {endpoint}/embeddings {model, input} -> {data: [{index, embedding}]}, Bearer key."""

    provider = "openai"

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        body: dict[str, Any] = {"model": self.model, "input": texts, "encoding_format": "float"}
        if self._expected_dims:
            body["dimensions"] = self._expected_dims
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        data = self._post(f"{self.endpoint}/embeddings", body, headers)
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise self._bad("no 'data' list")
        try:
            items = sorted(items, key=lambda d: int(d.get("index", 0)))
            return [d["embedding"] for d in items]
        except (KeyError, TypeError, ValueError, AttributeError):
            raise self._bad("data[].embedding missing") from None


class GeminiEmbedder(HttpEmbedder):
    """embedContent for one text, batchEmbedContents for several; key in the x-goog-api-key header."""

    provider = "gemini"

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        if not self.api_key:
            raise EmbeddingError("gemini: embeddings.apiKey is empty")
        headers = {"x-goog-api-key": self.api_key}
        base = f"{self.endpoint}/v1beta/models/{self.model}"
        if len(texts) == 1:
            data = self._post(f"{base}:embedContent", self._request(texts[0]), headers)
            values = (data.get("embedding") or {}).get("values") if isinstance(data, dict) else None
            if not isinstance(values, list):
                raise self._bad("no embedding.values")
            return [values]
        body = {"requests": [{"model": f"models/{self.model}", **self._request(t)} for t in texts]}
        data = self._post(f"{base}:batchEmbedContents", body, headers)
        items = data.get("embeddings") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise self._bad("no 'embeddings' list")
        try:
            return [e["values"] for e in items]
        except (KeyError, TypeError):
            raise self._bad("embeddings[].values missing") from None

    def _request(self, text: str) -> dict[str, Any]:
        req: dict[str, Any] = {"content": {"parts": [{"text": text}]}}
        if self._expected_dims:
            req["outputDimensionality"] = self._expected_dims
        return req
