"""Smoke test of the retrieval latency bench on a tiny workspace (shape of the JSON line, not targets)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.bench import retrieval
from scripts.bench.common import LOCOMO_DEV, fill_budget, percentile


def test_percentile_and_budget_helpers() -> None:
    assert percentile([], 95) == 0.0
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50) == 3.0
    assert percentile([float(i) for i in range(1, 101)], 95) == 95.0
    lines = [("a", "x" * 9), ("b", "y" * 30), ("c", "z" * 4)]
    assert fill_budget(lines, 16) == ["a", "c"]  # a line that does not fit is skipped, later ones may fit


@pytest.mark.slow
@pytest.mark.skipif(not LOCOMO_DEV.exists(), reason="LoCoMo dev split not present")
def test_tiny_scale_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--messages", "300", "--facts", "40", "--queries", "6", "--json",
            "--cache-dir", str(tmp_path / "ws")]
    assert retrieval.main(args) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["messages"] == 300 and out["facts"] == 40 and out["queries"] == 6
    for key in ("hook_total_ms", "query_embedding_ms", "hook_excl_embedding_ms", "local_source_ms"):
        assert 0 <= out[key]["p50"] <= out[key]["p95"]
    assert out["hook_excl_embedding_ms"]["p95"] <= out["hook_total_ms"]["p95"]
    assert isinstance(out["meets_target"], bool) and out["target_p95_ms"] == 50
    # a second run reuses the built workspace
    assert retrieval.main(args) == 0
    again = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert again["build"] == {"reused": True} and again["messages"] == 300
