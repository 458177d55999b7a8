"""A value that came from an environment variable is never echoed by a validation error.

`${VAR}` is where secrets go; a secret put in the wrong field (a numeric one, a list, a URL) used
to be printed verbatim after "got ...", by load_config, by the CLI's --config handling and by
register()'s logger. The error must still name the key, say what is wrong and name the variable.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from knowledge_engine.config import ConfigError, load_config
from knowledge_engine.host import PluginApi
from knowledge_engine.plugin import register

SECRET = "hunter2-Zq9-sk-live-7f3a"


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("KE_SECRET", SECRET)
    return "KE_SECRET"


def _problems(raw: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as err:
        load_config(raw)
    text = "\n".join(err.value.problems)
    assert all(problem in str(err.value) for problem in err.value.problems)
    assert SECRET not in str(err.value) and SECRET not in repr(err.value)
    return text


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({"retrieval": {"budgetMs": "${KE_SECRET}"}}, "retrieval.budgetMs"),
        ({"retrievalBudgetMs": "${KE_SECRET}"}, "retrieval.budgetMs"),  # openclaw-knowledge flat key
        ({"pgvector": {"topK": "x-${KE_SECRET}-y"}}, "pgvector.topK"),  # part of the value only
        ({"extraction": {"spacy": {"workers": "${KE_SECRET}"}}}, "extraction.spacy.workers"),  # union
        ({"embeddings": {"dimensions": "${KE_SECRET}"}}, "embeddings.dimensions"),  # optional
        ({"pgvector": {"embeddings": {"dimensions": "${KE_SECRET}"}}}, "pgvector.embeddings.dimensions"),
        ({"retrieval": {"format": "${KE_SECRET}"}}, "retrieval.format"),  # literal
        ({"extraction": {"llm": {"endpoint": "${KE_SECRET}"}}}, "extraction.llm.endpoint"),  # validator
        ({"testMode": {"pgvectorMockResults": "${KE_SECRET}"}}, "testMode.pgvectorMockResults"),
        ({"chroma": {"headers": ["${KE_SECRET}"]}}, "chroma.headers"),  # env value inside the bad value
        ({"pgvector": {"collections": [1, "${KE_SECRET}", {"a": "${KE_SECRET}"}]}}, "pgvector.collections.2"),
    ],
)
def test_env_value_is_never_echoed(secret_env: str, raw: dict[str, Any], key: str) -> None:
    text = _problems(raw)
    line = next((p for p in text.splitlines() if p.startswith(key)), "")
    assert line, f"no problem names {key}: {text}"
    assert f"${{{secret_env}}}" in line and "not shown" in line, line
    assert ":" in line and len(line.split(":", 1)[1].strip()) > 10, "the error must say what is wrong"


def test_numeric_field_error_reads_well(secret_env: str) -> None:
    text = _problems({"retrieval": {"budgetMs": "${KE_SECRET}"}})
    assert text.startswith("retrieval.budgetMs: ")
    assert "integer" in text and "(value from ${KE_SECRET} not shown)" in text


def test_values_typed_in_the_file_are_still_shown(secret_env: str) -> None:
    text = _problems({"extraction": {"llm": {"batchSize": "ten"}}, "retrieval": {"budgetMs": "${KE_SECRET}"}})
    assert "extraction.llm.batchSize" in text and "'ten'" in text


def test_secret_named_keys_and_url_passwords_are_not_echoed() -> None:
    text = "\n".join(
        [
            _problems({"lightrag": {"apiKey": ["hunter2-Zq9-sk-live-7f3a"]}}),
            _problems({"extraction": {"llm": {"endpoint": "ftp://ana:hunter2-Zq9-sk-live-7f3a@llm.local/v1"}}}),
            _problems({"chroma": {"headers": {"Authorization": ["hunter2-Zq9-sk-live-7f3a"]}}}),
        ]
    )
    assert "lightrag.apiKey" in text and "chroma.headers.Authorization" in text
    assert "ftp://ana:***@llm.local/v1" in text  # still useful: the wrong scheme is visible


def test_cli_config_error_names_key_without_value(tmp_path: Path, secret_env: str) -> None:
    cfg = tmp_path / "cfg.json"
    cfg.write_bytes(orjson.dumps({"retrieval": {"budgetMs": "${KE_SECRET}"}}))
    run = subprocess.run(
        [sys.executable, "-c", "from knowledge_engine.cli.app import main; main()",
         "stats", "--config", str(cfg), "--agent", "main", "--json"],
        capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "200"},
    )
    out = run.stdout + run.stderr
    assert run.returncode == 2, out
    assert "retrieval.budgetMs" in out and "${KE_SECRET}" in out
    assert SECRET not in out


def test_register_logs_and_raises_without_value(secret_env: str, caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("knowledge_engine.plugin.test-secrets")
    api = PluginApi("knowledge-engine", {"pgvector": {"topK": "${KE_SECRET}"}}, logger=logger)
    with caplog.at_level(logging.DEBUG), pytest.raises(ConfigError) as err:
        register(api)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "pgvector.topK" in logged and "${KE_SECRET}" in logged
    assert SECRET not in logged and SECRET not in str(err.value)
    assert not api.registrations, "a bad config must not register any hook"
