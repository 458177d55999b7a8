"""Per-source circuit breaker: a source that keeps failing is left alone for a while.

Errors and pure timeouts are counted separately (a slow-but-healthy server should not be
treated like a broken one, yet a server that always times out must cool down too), each
with its own threshold. Any success closes the breaker and resets both counters.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from knowledge_engine.observe import emit


class Breaker:
    """Consecutive-failure breaker with a fixed cooldown (seed: 3 failures -> 5 minutes)."""

    def __init__(
        self,
        threshold: int = 3,
        cooldown_s: float = 300,
        clock: Callable[[], float] = time.monotonic,
        *,
        name: str = "",
        timeout_threshold: int | None = None,
    ) -> None:
        if threshold < 1:
            raise ValueError("threshold must be >= 1")
        self.name = name
        self.threshold = threshold
        self.timeout_threshold = timeout_threshold if timeout_threshold is not None else threshold
        self.cooldown_s = cooldown_s
        self._clock = clock
        self.consecutive_errors = 0
        self.consecutive_timeouts = 0
        self._open_until: float | None = None

    @property
    def is_open(self) -> bool:
        """True while cooling down (does not change state)."""
        return self._open_until is not None and self._clock() < self._open_until

    def allow(self) -> bool:
        """May the source be called now? After the cooldown the counters start afresh."""
        if self._open_until is None:
            return True
        if self._clock() < self._open_until:
            return False
        self._open_until = None
        self.consecutive_errors = 0
        self.consecutive_timeouts = 0
        return True

    def record_success(self) -> None:
        self.consecutive_errors = 0
        self.consecutive_timeouts = 0
        self._open_until = None

    def record_error(self) -> None:
        self.consecutive_errors += 1
        if self.consecutive_errors >= self.threshold:
            self._open("errors", self.consecutive_errors)

    def record_timeout(self) -> None:
        self.consecutive_timeouts += 1
        if self.consecutive_timeouts >= self.timeout_threshold:
            self._open("timeouts", self.consecutive_timeouts)

    def _open(self, reason: str, count: int) -> None:
        if self.is_open:
            return
        self._open_until = self._clock() + self.cooldown_s
        emit(
            "cooldown",
            logging.WARNING,
            scope=self.name,
            reason=reason,
            consecutive=count,
            cooldown_s=self.cooldown_s,
        )
