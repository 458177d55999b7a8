"""Errors of the LLM clients: every failure the batcher retries is an LlmError.

The batcher only needs to know *that* a call failed and whether retrying can help; the
subclasses exist so logs and counters can name the reason without carrying any text.
"""

from __future__ import annotations


class LlmError(RuntimeError):
    """A call that produced no usable output. `reason` is a short, content-free tag."""

    reason = "error"

    def __init__(self, detail: str = "", *, status: int | None = None) -> None:
        self.status = status
        super().__init__(detail or self.reason)


class LlmTimeout(LlmError):
    """The server did not answer within timeoutMs (or the connection failed)."""

    reason = "timeout"


class LlmUnavailable(LlmError):
    """Connection refused, reset or DNS failure: the server is not there."""

    reason = "unavailable"


class LlmHttpError(LlmError):
    """A non-2xx status, or an `{"error": ...}` body (Ollama also sends those with 200)."""

    reason = "http"


class LlmTruncated(LlmError):
    """done_reason / finish_reason == "length": the JSON was cut off, so it is not trusted."""

    reason = "truncated"


class LlmBadOutput(LlmError):
    """The body or the model's content could not be parsed into the expected shape."""

    reason = "bad_output"
