"""knowledge_engine."""
