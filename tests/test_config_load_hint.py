"""`load_config` given a path (the public API's likely first call) says which function reads files."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowledge_engine import ConfigError, load_config, load_config_file


@pytest.mark.parametrize("given", ["config.json", Path("config.json"), '{"apiKey": "sk-live-123"}'])
def test_a_path_or_text_points_to_load_config_file(given: object) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(given)  # type: ignore[arg-type]
    text = str(err.value)
    assert "load_config_file(path)" in text
    assert "sk-live-123" not in text


def test_load_config_file_reads_what_load_config_refuses(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"retrieval": {"maxInjectChars": 1500}}')
    assert load_config_file(path).retrieval.max_inject_chars == 1500
    assert load_config({"retrieval": {"maxInjectChars": 1500}}).retrieval.max_inject_chars == 1500


def test_a_config_path_that_is_a_folder_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        load_config_file(tmp_path)  # was IsADirectoryError: a traceback from every CLI command
    assert f"{tmp_path}: cannot be read (Is a directory)" in str(err.value)
