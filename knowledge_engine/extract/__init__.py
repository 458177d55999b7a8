"""Extraction, the second stage.

Entities and facts from a message by three tiers (regex, spaCy in worker processes, a batched LLM), run by
`pipeline`.
"""
