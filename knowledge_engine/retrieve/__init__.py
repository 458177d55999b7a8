"""Retrieval before each turn.

The query and its skip rules, sources queried in parallel under a budget, ranking, the prompt cache.
"""
