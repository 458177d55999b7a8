"""knowledge-engine: durable, queryable knowledge from an agent's conversations, injected before each turn.

Public API: `KnowledgeEngine`, `load_config`, `load_config_file`, `EngineConfig`, `ConfigError`, `register`
(the agent-host plugin entry point). The host contract lives in `knowledge_engine.host`.
"""

from __future__ import annotations

from knowledge_engine.config import ConfigError, EngineConfig, load_config, load_config_file
from knowledge_engine.engine import KnowledgeEngine
from knowledge_engine.plugin import register

__all__ = ["ConfigError", "EngineConfig", "KnowledgeEngine", "load_config", "load_config_file", "register"]
__version__ = "0.1.0"
