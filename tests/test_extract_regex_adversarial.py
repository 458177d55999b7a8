"""Every regex pattern finishes on 1 MB pathological input (catastrophic backtracking would hang).

The cases run in a child process so that a pattern that does hang (the C regex engine holds the
GIL and ignores signals) is killed by the timeout instead of hanging the suite. The timeout is a
hang guard only: a quadratic pattern on 1 MB takes hours, a linear one about a second.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from knowledge_engine.extract.regex import PATTERNS

MB = 1_000_000

# Inputs aimed at each pattern's quantifiers: long runs of the class it consumes, near-misses
# repeated, and prefixes that start a match that can never complete.
ADVERSARIAL: dict[str, str] = {
    "letters": "a" * MB,
    "capitals": "A" * MB,
    "title_words": "A a " * (MB // 4),
    "cap_words": "Foo " * (MB // 4),
    "digits": "1" * MB,
    "ats": "@" * MB,
    "local_at": "a@" * (MB // 2),
    "dotted_local": "a.a@" * (MB // 4),
    "url_letters": "http://" + "a" * MB,
    "url_punct": "http://" + "!" * MB,
    "url_repeat": "http://" * (MB // 7),
    "digit_dots": "1." * (MB // 2),
    "digit_commas": "1," * (MB // 2),
    "digit_spaces": "1 " * (MB // 2),
    "digit_slashes": "1/" * (MB // 2),
    "digit_dashes": "1-" * (MB // 2),
    "dollars": "$" * MB,
    "spaces": " " * MB,
    "month_words": "March " * (MB // 6),
    "month_spaces": "March" + " " * MB,
    "hyphens": "A-" * (MB // 2),
    "apostrophes": "A'" * (MB // 2),
    "ampersands": "A & " * (MB // 4),
    "caps_digits": "A1 " * (MB // 3),
    "org_no_suffix": "Acme " * (MB // 5) + "Inc",
    "version_like": "x-1" * (MB // 3),
    "umlauts": "Ä" * MB,
}

_CHILD = r"""
import json, sys, time
from knowledge_engine.extract.regex import PATTERNS, find_mentions
sys.path.insert(0, ".")
from tests.test_extract_regex_adversarial import ADVERSARIAL
for name, text in ADVERSARIAL.items():
    for pname, pattern in PATTERNS.items():
        n = sum(1 for _ in pattern.finditer(text))
        print(json.dumps({"case": name, "pattern": pname, "matches": n}), flush=True)
    n = len(find_mentions(text))
    print(json.dumps({"case": name, "pattern": "find_mentions", "matches": n}), flush=True)
"""


@pytest.mark.slow
def test_every_pattern_finishes_on_1mb_pathological_input() -> None:
    expected = {(c, p) for c in ADVERSARIAL for p in [*PATTERNS, "find_mentions"]}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=600, check=False
        )
        stdout, err = proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout
        stdout = out.decode() if isinstance(out, bytes) else (out or "")
        err = "timed out"
    done = {(r["case"], r["pattern"]) for r in map(json.loads, stdout.splitlines())}
    missing = sorted(expected - done)
    assert not missing, f"did not finish (first pending: {missing[:1]}): {err[-500:]}"


def test_patterns_still_match_after_a_long_run() -> None:
    """Linear-time guards must not cost recall: a real match after a long run is still found."""
    from knowledge_engine.extract.regex import find_mentions

    text = "a" * 100_000 + " write to bob@example.com on 2024-03-05 about $1,200 at Acme GmbH."
    kinds = {(m.value, m.type) for m in find_mentions(text)}
    assert {
        ("bob@example.com", "email"),
        ("2024-03-05", "date"),
        ("$1,200", "money"),
        ("Acme", "organization"),
    } <= kinds
