#!/usr/bin/env python3
"""Regenerates config.example.json from the pydantic models (a test checks it is current)."""

from __future__ import annotations

from pathlib import Path

import orjson

from knowledge_engine.config import example_config

TARGET = Path(__file__).resolve().parent.parent / "config.example.json"


def render() -> bytes:
    return orjson.dumps(example_config(), option=orjson.OPT_INDENT_2) + b"\n"


if __name__ == "__main__":
    TARGET.write_bytes(render())
    print(f"wrote {TARGET}")
