"""Bearer-token check for the sidecar.

The token comes from the environment only (`KNOWLEDGE_ENGINE_SIDECAR_TOKEN`): a command-line flag
would be visible to every user in `ps`. It is compared in constant time and never logged.
"""

from __future__ import annotations

import hmac
import logging
import os

from knowledge_engine.observe import counters

log = logging.getLogger("knowledge_engine.sidecar")

TOKEN_ENV = "KNOWLEDGE_ENGINE_SIDECAR_TOKEN"
MIN_TOKEN_CHARS = 16


def token_from_env() -> str | None:
    """The configured token, or None when the variable is unset or blank."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    if not token:
        return None
    if len(token) < MIN_TOKEN_CHARS:
        log.warning("%s is shorter than %d characters; use a long random token", TOKEN_ENV, MIN_TOKEN_CHARS)
    return token


class BearerAuth:
    """Accepts a request when no token is configured or its `Authorization: Bearer` header matches."""

    def __init__(self, token: str | None) -> None:
        self._expected = f"Bearer {token}".encode() if token else None

    @property
    def required(self) -> bool:
        return self._expected is not None

    def allows(self, header: str | None) -> bool:
        if self._expected is None:
            return True
        given = (header or "").strip().encode("utf-8", "replace")  # a stray byte must give 401, not 500
        ok = header is not None and hmac.compare_digest(given, self._expected)
        if not ok:
            counters.inc("sidecar.unauthorized")
        return ok
