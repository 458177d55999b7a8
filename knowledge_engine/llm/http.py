"""The one HTTP request an LLM client makes: an httpx client, and a POST that maps failures to LlmError."""

from __future__ import annotations

from typing import Any

import httpx

from knowledge_engine.config import LlmConfig
from knowledge_engine.llm.errors import LlmHttpError, LlmTimeout, LlmUnavailable


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
