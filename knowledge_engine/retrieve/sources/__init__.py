"""Retrieval sources behind one protocol.

Local knowledge (facts and conversation memory), pgvector documents, LightRAG, and canned test-mode data.
"""
