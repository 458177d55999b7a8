"""scripts/bench/regex_peer.py: the quality counts on hand-made turns, the peer's source prepared for
Node's type stripping, and a whole run without the peer (skipped, said so, one JSON line)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.bench import regex_peer

ROOT = Path(__file__).resolve().parents[1]

TURNS = [
    ("Ann", "Bo, that sounds great!", ("Ann", "Bo")),
    ("Bo", "Work's been busy. We watched Schindler's List.", ("Ann", "Bo")),
    ("Ann", "Bo, same here.", ("Ann", "Bo")),
]


def test_quality_counts() -> None:
    values = [[("unknown", "Bo")], [("unknown", "Work"), ("unknown", "Schindler's List")], []]
    q = regex_peer.quality(TURNS, values)
    assert (q["speaker_openers"], q["speaker_openers_found"]) == (2, 1)
    assert (q["possessive_starters"], q["possessive_starters_named"]) == (1, 1)
    assert (q["possessive_titles"], q["possessive_titles_whole"]) == (1, 1)


def test_summary_counts_only_the_distinct_turns() -> None:
    values = [[("unknown", "Bo")], [("unknown", "Bo"), ("date", "May 2024")], [("unknown", "Zed")]]
    s = regex_peer.summary(values, 2)
    assert (s["mentions"], s["distinct_values"]) == (3, 2)
    assert s["top"][0] == "unknown:Bo (2)"


@pytest.mark.skipif(not regex_peer.LOCOMO.exists(), reason="LoCoMo data not present")
def test_a_run_without_the_peer_says_it_skipped_it(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "scripts/bench/regex_peer.py",
            "--copies",
            "1",
            "--rounds",
            "1",
            "--repeat",
            "1",
            "--peer-dir",
            str(tmp_path / "absent"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["peer"].startswith("skipped")
    assert out["messages"] == out["distinct_turns"] > 1000
    assert out["ours_msgs_per_s"] > 0 and out["ours"]["mentions"] > 0
    assert "ratio_ours_to_peer" not in out


_FAKE_EXTRACTOR = """// the peer's shape: a type-only import without `type`, .js specifiers
import { Entity, Logger } from './types.js';
import { REGEX_PATTERNS } from './patterns.js';
export class EntityExtractor {
  private readonly logger: Logger;
  constructor(logger: Logger) { this.logger = logger; }
  public extract(text: string): Entity[] {
    const out: Entity[] = [];
    for (const m of text.matchAll(REGEX_PATTERNS.word)) out.push({ type: 'unknown', value: m[0] });
    return out;
  }
}
"""
_FAKE_PATTERNS = "export const REGEX_PATTERNS: Record<string, RegExp> = { word: /[A-Z][a-z]+/g };\n"


@pytest.mark.skipif(regex_peer.find_node(None) is None, reason="no Node >= 22.6 (scripts/setup_openclaw)")
def test_the_peer_runs_from_its_typescript_source(tmp_path: Path) -> None:
    (tmp_path / "entity-extractor.ts").write_text(_FAKE_EXTRACTOR)
    (tmp_path / "patterns.ts").write_text(_FAKE_PATTERNS)
    node = regex_peer.find_node(None)
    assert node is not None
    cpu_s, values = regex_peer.run_peer(["Ann met Bo", "no names"], 1, tmp_path, node, 2)
    assert cpu_s >= 0
    assert values == [[("unknown", "Ann"), ("unknown", "Bo")], []]
