"""OpenAI-compatible `/v1/chat/completions` (llama.cpp server, vLLM, LM Studio, OpenAI itself).

Structured output through `response_format: {type: json_schema, json_schema: {name, schema,
strict}}`, which all of these accept; the schema is already in strict form (closed objects,
every property required, nullable instead of optional).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from knowledge_engine.config import LlmConfig
from knowledge_engine.llm.errors import LlmBadOutput
from knowledge_engine.llm.http import http_client, post_json
from knowledge_engine.llm.parse import load_body, openai_content


def completions_url(endpoint: str) -> str:
    """`http://h:8080`, `http://h:8080/v1` or the full URL -> `.../v1/chat/completions`."""
    parts = urlsplit(endpoint)
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path = path + "/chat/completions" if path.endswith("/v1") else path + "/v1/chat/completions"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


class OpenAICompatClient:
    def __init__(self, config: LlmConfig) -> None:
        self._config = config
        self._url = completions_url(config.endpoint)
        self._http = http_client(config)
        self._headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}

    @property
    def api(self) -> str:
        return "openai"

    def request_body(self, system: str, user: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "model": self._config.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": 0,
            "stream": False,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "knowledge_extraction", "schema": schema, "strict": True},
            },
        }

    def complete(self, system: str, user: str, schema: dict[str, Any]) -> str:
        response = post_json(self._http, self._url, self.request_body(system, user, schema), self._headers)
        objs = load_body(response.content)
        if len(objs) != 1:
            raise LlmBadOutput("expected one JSON object")
        return openai_content(objs[0], response.status_code)

    def close(self) -> None:
        self._http.close()
