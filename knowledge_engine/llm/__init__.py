"""LLM clients for the extraction tier: Ollama (chat / generate) and OpenAI-compatible servers."""

from knowledge_engine.llm.client import LlmClient
from knowledge_engine.llm.errors import (
    LlmBadOutput,
    LlmError,
    LlmHttpError,
    LlmTimeout,
    LlmTruncated,
    LlmUnavailable,
)
from knowledge_engine.llm.factory import make_client, resolve_api

__all__ = [
    "LlmBadOutput",
    "LlmClient",
    "LlmError",
    "LlmHttpError",
    "LlmTimeout",
    "LlmTruncated",
    "LlmUnavailable",
    "make_client",
    "resolve_api",
]
