"""The client protocol every LLM backend implements (the factory is llm/factory.py, HTTP in llm/http.py).

A client does exactly one HTTP request per `complete()` call and never retries: retries,
backoff and cool-down belong to the batcher, which is the only place that can count them.
"""

from __future__ import annotations

from typing import Any, Protocol


class LlmClient(Protocol):
    """One structured-output completion: system + user text in, the model's JSON text out."""

    @property
    def api(self) -> str: ...

    def complete(self, system: str, user: str, schema: dict[str, Any]) -> str:
        """Return the model's content; raise LlmError (never anything else) on failure."""
        ...

    def close(self) -> None: ...
