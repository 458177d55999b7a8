"""Exports of a workspace (jsonl, csv, graphml, dot, mermaid, html) and the jsonl importer."""

from __future__ import annotations

FORMATS = ("jsonl", "csv", "graphml", "dot", "mermaid", "html")
