"""Document ingestion into the pgvector table (`knowledge-engine docs ingest`)."""

from knowledge_engine.documents.ingest import IngestReport, ingest_files, ingest_with_config

__all__ = ["IngestReport", "ingest_files", "ingest_with_config"]
