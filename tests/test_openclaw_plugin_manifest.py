"""openclaw-plugin/openclaw.plugin.json: generated from the pydantic models, strict, and agreeing with the
engine's own validation, so the gateway rejects exactly the configs the engine would."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import jsonschema
import pytest

from knowledge_engine.config import ConfigError, RetrievalConfig, load_config
from scripts.gen_openclaw_manifest import MAX_PROMPT_TIMEOUT_MS, render
from tests.openclaw_plugin_support import PLUGIN, ROOT

MANIFEST = PLUGIN / "openclaw.plugin.json"


def manifest() -> dict[str, Any]:
    return json.loads(MANIFEST.read_text())


def validator() -> jsonschema.Draft202012Validator:
    schema = manifest()["configSchema"]
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def errors(config: Any) -> list[str]:
    return [e.message for e in validator().iter_errors(config)]


def engine_accepts(config: dict[str, Any]) -> bool:
    cfg = {k: v for k, v in config.items() if k != "sidecar"}
    try:
        load_config(cfg)
    except ConfigError:
        return False
    return True


def strip_comments(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip_comments(v) for k, v in value.items() if not k.startswith("//")}
    if isinstance(value, list):
        return [strip_comments(v) for v in value]
    return value


def test_the_committed_manifest_is_the_generated_one() -> None:
    assert MANIFEST.read_bytes() == render(), "run: .venv/bin/python scripts/gen_openclaw_manifest.py"


def test_identity_kind_activation_and_package_entry() -> None:
    m = manifest()
    assert m["id"] == "knowledge-engine" and m["kind"] == "memory" and m["activation"] == {"onStartup": True}
    assert m["name"] and m["description"]
    pkg = json.loads((PLUGIN / "package.json").read_text())
    assert pkg["type"] == "module" and pkg["openclaw"]["extensions"] == ["./index.js"]
    assert not pkg.get("dependencies"), "the plugin has no runtime dependencies"
    assert (PLUGIN / "index.js").exists()


def test_every_object_with_keys_is_closed_and_there_are_no_refs() -> None:
    seen = 0

    def walk(node: Any, where: str) -> None:
        nonlocal seen
        if isinstance(node, dict):
            assert "$ref" not in node and "$defs" not in node, where
            if "properties" in node:
                seen += 1
                assert node.get("additionalProperties") is False, where
            for key, value in node.items():
                walk(value, f"{where}.{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{where}[{i}]")

    walk(manifest()["configSchema"], "configSchema")
    assert seen >= 15


def test_config_example_is_accepted_with_and_without_its_comment_lines() -> None:
    example = json.loads((ROOT / "config.example.json").read_text())
    assert errors(example) == []
    assert errors(strip_comments(example)) == []
    with_sidecar = {**strip_comments(example), "sidecar": {
        "spawn": False, "command": "/opt/ke/bin/knowledge-engine", "args": ["--log-level", "info"],
        "socketPath": "/run/ke/sidecar.sock", "url": "http://127.0.0.1:8765", "startTimeoutMs": 30000,
        "hookTimeoutMs": 1000, "promptTimeoutMs": 6000, "drainTimeoutMs": 3000, "maxBuffered": 500}}
    assert errors(with_sidecar) == []


@pytest.mark.parametrize("config", [
    {"nope": 1},
    {"retrieval": {"budgetMss": 100}},
    {"extraction": {"llm": {"endpointt": "http://x"}}},
    {"retrieval": {"skip": {"triggerz": []}}},
    {"sidecar": {"spawnn": True}},
    {"sidecar": {"promptTimeoutMs": 20000}},
    {"sidecar": {"drainTimeoutMs": 6000}},
    {"retrieval": {"budgetMs": "fast"}},
    {"retrieval": {"injectionTarget": "systemPrompt"}},
    {"storage": {"maxFacts": 0}},
    {"sidecar": {"args": [1]}},
    {"sidecar": {"url": "ftp://x"}},
])
def test_unknown_keys_and_bad_values_are_rejected(config: dict[str, Any]) -> None:
    assert errors(config), config


@pytest.mark.parametrize("config", [
    {},
    {"postgresUrl": "postgresql://u@localhost/db", "topK": 3, "lightragQueryMode": "mix", "minQueryChars": 2},
    {"testMode": True},
    {"testMode": {"enabled": True}},
    {"geminiApiKey": "AIza-test", "pgvector": {"enabled": True}},
    {"extraction": {"spacy": {"workers": "auto"}}, "embeddings": {"dimensions": None}},
    {"pgvector": {"embeddings": {"provider": "ollama"}}},
    {"//": "comment", "retrieval": {"//budgetMs": "comment", "budgetMs": 900}},
    {"nope": 1},
    {"retrieval": {"budgetMss": 100}},
    {"testMode": "yes"},
    {"extraction": {"spacy": {"workers": "many"}}},
])
def test_the_schema_and_the_engine_agree(config: dict[str, Any]) -> None:
    assert (errors(config) == []) == engine_accepts(copy.deepcopy(config)), config


def test_the_js_defaults_follow_the_engine() -> None:
    settings = (PLUGIN / "lib" / "settings.js").read_text()
    budget = re.search(r"ENGINE_DEFAULT_BUDGET_MS = (\d+);", settings)
    cap = re.search(r"MAX_PROMPT_TIMEOUT_MS = (\d+);", settings)
    assert budget and int(budget.group(1)) == RetrievalConfig.model_fields["budget_ms"].default
    assert cap and int(cap.group(1)) == MAX_PROMPT_TIMEOUT_MS < 15000


def test_engine_keys_carry_no_defaults_for_the_gateway_to_fill_in() -> None:
    engine = dict(manifest()["configSchema"]["properties"])
    engine.pop("sidecar")
    assert '"default"' not in json.dumps(engine)
