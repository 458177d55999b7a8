"""Shared fixtures. Service fixtures live in tests/fixtures/, one module per service."""

from __future__ import annotations

import logging

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
