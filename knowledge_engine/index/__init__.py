"""The searchable index of a workspace.

Embeddings, the Chroma collections kept in sync with the stores, and the in-memory fact term index.
"""
