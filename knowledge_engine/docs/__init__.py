"""Document ingestion into the pgvector table (`knowledge-engine docs ingest`)."""

from knowledge_engine.docs.ingest import IngestReport, ingest_files

__all__ = ["IngestReport", "ingest_files"]
