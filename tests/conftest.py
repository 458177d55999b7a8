"""Shared fixtures. Service fixtures live in tests/fixtures/, one module per service."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

pytest_plugins = [
    "tests.fixtures.common",
    "tests.fixtures.ollama",
    "tests.fixtures.lightrag",
    "tests.fixtures.postgres",
    "tests.fixtures.chroma",
    "tests.fixtures.openclaw",
]


@pytest.fixture(autouse=True)
def _engine_debug_logging(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="knowledge_engine")


@pytest.fixture(scope="module", autouse=True)
def _no_engine_left_on_the_process_scheduler() -> Iterator[None]:
    """Engines a module left running are stopped with it, and the process's maintenance scheduler
    goes too: the next module starts with none (scheduler tests count its jobs and watch it stop)."""
    yield
    from knowledge_engine.maintenance.scheduler import reset_process_scheduler

    for engine in reset_process_scheduler():
        engine.stop(60)
