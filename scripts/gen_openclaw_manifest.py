#!/usr/bin/env python3
"""Regenerates openclaw-plugin/openclaw.plugin.json from the pydantic config models.

The gateway validates `plugins.entries.knowledge-engine.config` against this manifest's
`configSchema` before the plugin loads, so the schema must accept exactly the keys the
engine accepts (camelCase aliases, the legacy flat keys, "//" comment keys) plus the
bridge's own `sidecar` section. A test checks the committed file equals this output.

Engine keys carry no `default`: the gateway fills schema defaults into the config it hands
the plugin, and filled-in nested defaults would override the engine's legacy flat keys.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from knowledge_engine import __version__  # noqa: E402
from knowledge_engine.config import _FLAT_ALIASES, EngineConfig, RetrievalConfig  # noqa: E402

TARGET = ROOT / "openclaw-plugin" / "openclaw.plugin.json"
PLUGIN_ID = "knowledge-engine"
COMMENT_KEYS = {"^//": {"type": "string", "description": "Comment, ignored (as in config.example.json)."}}
# The gateway's own before_prompt_build budget is 15 s; the bridge's timeout stays below it.
MAX_PROMPT_TIMEOUT_MS = 14000
_DROPPED = ("title", "default")


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """Resolve every $ref into its definition: one self-contained schema, no $defs."""
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        merged = {**copy.deepcopy(target), **{k: v for k, v in node.items() if k != "$ref"}}
        return _inline(merged, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED or key == "$defs":
            continue
        if key in ("properties", "patternProperties"):
            out[key] = {name: _inline(sub, defs) for name, sub in value.items()}
        else:
            out[key] = _inline(value, defs)
    if "properties" in out:
        out["additionalProperties"] = False
        out["patternProperties"] = copy.deepcopy(COMMENT_KEYS)
    return out


def engine_schema() -> dict[str, Any]:
    """EngineConfig as a strict, self-contained JSON Schema over its camelCase keys."""
    raw = EngineConfig.model_json_schema(by_alias=True)
    schema: dict[str, Any] = _inline(raw, raw.get("$defs", {}))
    props = schema["properties"]
    for flat, target in _FLAT_ALIASES.items():
        node = schema
        for part in target:
            node = node["properties"][part]
        sub = {k: copy.deepcopy(v) for k, v in node.items() if k != "description"}
        props[flat] = {**sub, "description": f"Legacy flat key for {'.'.join(target)}."}
    props["geminiApiKey"] = {
        "type": "string",
        "description": "Legacy flat key: Gemini embeddings for the pgvector source (use ${ENV}).",
    }
    props["testMode"] = {
        "description": props["testMode"].get("description", ""),
        "anyOf": [{"type": "boolean"}, {k: v for k, v in props["testMode"].items() if k != "description"}],
    }
    props["$schema"] = {"type": "string", "description": "Ignored."}
    props["configPath"] = {"type": "string", "description": "Ignored."}
    return schema


def _key(kind: str, description: str, **extra: Any) -> dict[str, Any]:
    return {"type": kind, **extra, "description": description}


def sidecar_schema() -> dict[str, Any]:
    """The bridge's own settings (not passed to the engine)."""
    budget = RetrievalConfig.model_fields["budget_ms"].default
    ms: dict[str, Any] = {"minimum": 1}
    props: dict[str, Any] = {
        "spawn": _key("boolean", "Start and supervise `command ... serve`; false connects to a sidecar "
                      "you run.", default=True),
        "command": _key("string", "The knowledge-engine executable (an absolute path if it is not on "
                        "the gateway's PATH).", minLength=1, default="knowledge-engine"),
        "args": _key("array", "Arguments placed before `serve --config FILE --socket PATH`.",
                     items={"type": "string"}, default=[]),
        "socketPath": _key("string", "Unix socket of the sidecar; default "
                           "<stateDir>/knowledge-engine/sidecar.sock.", minLength=1),
        "url": _key("string", "With spawn false: base URL of a TCP sidecar, e.g. http://127.0.0.1:8765 "
                    "(bearer token from KNOWLEDGE_ENGINE_SIDECAR_TOKEN).", pattern="^https?://"),
        "startTimeoutMs": _key("integer", "How long a spawned sidecar may take to listen before it is "
                               "restarted.", **ms, default=60000),
        "hookTimeoutMs": _key("integer", "Timeout of one forwarded message-hook call.", **ms, default=1500),
        "promptTimeoutMs": _key("integer", f"Timeout of before_prompt_build; default retrieval.budgetMs "
                                f"+ 1000 ({budget + 1000} with the default budget), at most "
                                f"{MAX_PROMPT_TIMEOUT_MS}.", **ms, maximum=MAX_PROMPT_TIMEOUT_MS),
        "drainTimeoutMs": _key("integer", "Budget of the sidecar's drain and flush on stop and plugin "
                               "replacement.", **ms, maximum=4500, default=4000),
        "maxBuffered": _key("integer", "Hook calls kept in memory while the sidecar is unavailable; "
                            "beyond it calls are dropped and counted.", minimum=0, default=10000),
    }
    return {"type": "object", "additionalProperties": False, "properties": props,
            "description": "How the plugin reaches the knowledge-engine sidecar (not passed to the engine)."}


def manifest() -> dict[str, Any]:
    schema = engine_schema()
    schema["properties"]["sidecar"] = sidecar_schema()
    schema["description"] = "knowledge-engine config (as config.example.json) plus the bridge's `sidecar`."
    return {
        "id": PLUGIN_ID,
        "name": "Knowledge Engine",
        "description": "Turns conversations into durable per-agent knowledge (entities, facts, searchable "
        "memory) and injects the relevant slice into each prompt; the engine runs as a Python sidecar.",
        "version": __version__,
        "kind": "memory",
        "activation": {"onStartup": True},
        "configSchema": schema,
    }


def render() -> bytes:
    return orjson.dumps(manifest(), option=orjson.OPT_INDENT_2) + b"\n"


if __name__ == "__main__":
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_bytes(render())
    print(f"wrote {TARGET}")
