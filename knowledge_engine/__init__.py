"""knowledge-engine: durable, queryable knowledge from an agent's conversations, injected before each turn.

Public API: `KnowledgeEngine`, `load_config`, `load_config_file`, `EngineConfig`, `ConfigError`, `register`
(the agent-host plugin entry point). The host contract lives in `knowledge_engine.host`.

The names are imported on first use (PEP 562), so a CLI command that needs only the store does
not pay for the engine, the host runner and httpx at start-up (about 0.1 s).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from knowledge_engine.config import ConfigError, EngineConfig, load_config, load_config_file
    from knowledge_engine.engine import KnowledgeEngine
    from knowledge_engine.plugin import register

__all__ = ["ConfigError", "EngineConfig", "KnowledgeEngine", "load_config", "load_config_file", "register"]
__version__ = "0.1.0"

_HOME = {
    "ConfigError": "knowledge_engine.config",
    "EngineConfig": "knowledge_engine.config",
    "load_config": "knowledge_engine.config",
    "load_config_file": "knowledge_engine.config",
    "KnowledgeEngine": "knowledge_engine.engine",
    "register": "knowledge_engine.plugin",
}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'knowledge_engine' has no attribute {name!r}")
