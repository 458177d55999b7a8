"""Picks the LLM client for a config; apart from client.py so the clients never import their factory."""

from __future__ import annotations

from urllib.parse import urlsplit

from knowledge_engine.config import LlmConfig
from knowledge_engine.llm.client import LlmClient
from knowledge_engine.llm.errors import LlmError
from knowledge_engine.llm.ollama import OllamaClient
from knowledge_engine.llm.openai_compat import OpenAICompatClient


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


def make_client(config: LlmConfig) -> LlmClient:
    """The client for `config.api` (resolved from the endpoint when `auto`)."""
    api = resolve_api(config)
    if api == "openai":
        return OpenAICompatClient(config)
    if api in ("ollama-chat", "ollama-generate"):
        return OllamaClient(config, generate=api == "ollama-generate")
    raise LlmError(f"unknown api {api!r}")
