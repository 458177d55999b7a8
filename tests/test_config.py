"""Configuration loading: defaults, ${ENV}, legacy keys, every error reported with a hint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowledge_engine.config import ConfigError, load_config, load_config_file
from scripts.gen_config_example import TARGET, render


def test_defaults_match_the_documented_ones() -> None:
    cfg = load_config({})
    assert cfg.storage.write_debounce_ms == 15000
    assert cfg.extraction.llm.batch_size == 10 and cfg.extraction.llm.cooldown_ms == 30000
    assert cfg.extraction.llm.model == "mistral:7b"
    assert cfg.retrieval.injection_target == "appendSystemContext"
    assert cfg.pgvector.dimensions is None and cfg.lightrag.timeout_ms == 3500  # None: the provider's size


def test_env_substitution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KE_TEST_KEY", "s3cret")
    cfg = load_config(
        {"lightrag": {"apiKey": "${KE_TEST_KEY}"}, "pgvector": {"collections": ["c-${KE_TEST_KEY}"]}}
    )
    assert cfg.lightrag.api_key == "s3cret"
    assert cfg.pgvector.collections == ["c-s3cret"]


def test_missing_env_variable_is_an_error_naming_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KE_NOT_SET", raising=False)
    with pytest.raises(ConfigError) as err:
        load_config({"pgvector": {"url": "postgresql://u:${KE_NOT_SET}@h/db"}})
    assert "pgvector.url" in str(err.value) and "KE_NOT_SET" in str(err.value)


def test_vainplex_config_is_accepted() -> None:
    vainplex = {
        "enabled": True,
        "extraction": {
            "regex": {"enabled": True},
            "llm": {
                "enabled": True,
                "model": "mistral:7b",
                "endpoint": "http://localhost:11434/api/generate",
                "batchSize": 10,
                "cooldownMs": 30000,
            },
        },
        "decay": {"enabled": True, "intervalHours": 24, "rate": 0.02},
        "embeddings": {"enabled": False, "collectionName": "openclaw-facts", "syncIntervalMinutes": 15},
        "storage": {"maxEntities": 5000, "maxFacts": 10000, "writeDebounceMs": 15000},
    }
    cfg = load_config(vainplex)
    assert cfg.extraction.llm.endpoint.endswith("/api/generate")
    assert cfg.storage.max_facts == 10000 and cfg.embeddings.collection_name == "openclaw-facts"


def test_openclaw_knowledge_flat_keys_map_to_sections() -> None:
    cfg = load_config(
        {
            "postgresUrl": "postgresql://x/db",
            "collections": ["a", "b"],
            "topK": 7,
            "lightragUrl": "http://lr",
            "lightragQueryMode": "mix",
            "maxInjectChars": 3000,
            "geminiApiKey": "k",
            "testMode": True,
        }
    )
    assert cfg.pgvector.url == "postgresql://x/db" and cfg.pgvector.collections == ["a", "b"]
    assert cfg.pgvector.top_k == 7 and cfg.lightrag.mode == "mix"
    assert cfg.retrieval.max_inject_chars == 3000
    assert cfg.pgvector.embeddings is not None and cfg.pgvector.embeddings.provider == "gemini"
    assert cfg.test_mode.enabled


@pytest.mark.parametrize("pgvector", [None, 5, "on"])
def test_a_flat_gemini_key_beside_a_pgvector_that_is_no_section_is_a_config_error(pgvector: object) -> None:
    """Found by the fuzzer: the alias move crashed (AttributeError) instead of naming the bad key."""
    with pytest.raises(ConfigError) as err:
        load_config({"geminiApiKey": "k", "pgvector": pgvector})
    assert any(str(p).startswith("pgvector:") for p in err.value.problems)


def test_every_problem_is_listed_with_path_value_and_hint() -> None:
    with pytest.raises(ConfigError) as err:
        load_config(
            {
                "storage": {"maxFact": 3, "writeDebounceMs": -1},
                "extraction": {"llm": {"batchSize": "ten"}},
                "retrival": {},
            }
        )
    problems = err.value.problems
    assert len(problems) == 4
    text = "\n".join(problems)
    assert "storage.maxFact: unknown key (did you mean 'maxFacts'?)" in text
    assert "storage.writeDebounceMs" in text and "-1" in text
    assert "extraction.llm.batchSize" in text and "'ten'" in text
    assert "retrival: unknown key (did you mean 'retrieval'?)" in text


def test_non_object_config_is_refused() -> None:
    with pytest.raises(ConfigError, match="expected a JSON object"):
        load_config([1, 2])  # type: ignore[arg-type]


def test_broken_config_file_is_a_clear_error(tmp_path: Path) -> None:
    p = tmp_path / "c.json"
    p.write_text('{"storage": {')
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_config_file(p)
    with pytest.raises(ConfigError, match="file not found"):
        load_config_file(tmp_path / "missing.json")


def test_workspace_template_must_separate_agents() -> None:
    with pytest.raises(ConfigError, match="workspaceTemplate"):
        load_config({"workspaceTemplate": "/srv/shared"})


def test_config_example_is_current_documented_and_loads() -> None:
    assert TARGET.read_bytes() == render(), "run scripts/gen_config_example.py"
    data = json.loads(TARGET.read_text())
    cfg = load_config(data)
    assert cfg == load_config({})

    def check(node: dict) -> None:  # type: ignore[type-arg]
        for key, value in node.items():
            if key.startswith("//"):
                continue
            assert f"//{key}" in node, f"{key} has no description"
            if isinstance(value, dict) and key not in ("headers", "predicateFamilies"):  # free-form maps
                check(value)

    check(data)
