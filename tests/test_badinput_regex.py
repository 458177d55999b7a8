"""ReDoS-style strings against every regex in the package: bounded time, worst case printed.

Every module-level compiled pattern of `knowledge_engine` (found by walking the package, so a
new regex is covered without editing this file) is run with `search` and `finditer` over
adversarial strings: long runs of one character, repeated near-matches of each pattern's
own alphabet, and the classic "long match then a failing character". The scan runs in a
child process so a catastrophic pattern fails the test at the guard instead of hanging CI.
Only a generous hang guard is asserted; the measured worst case is printed.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
N = 20_000  # characters per adversarial string: quadratic behaviour shows up as seconds at this size
HANG_GUARD_S = 240.0  # whole scan; a linear scan takes a few seconds


def _patterns_of(value: Any, depth: int = 0) -> list[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        return [value] if isinstance(value.pattern, str) else []
    if depth < 2 and isinstance(value, list | tuple | dict):
        items = value.values() if isinstance(value, dict) else value
        return [p for v in items for p in _patterns_of(v, depth + 1)]
    return []


def all_patterns() -> dict[str, re.Pattern[str]]:
    """module.NAME -> pattern, for every module-level regex of the package."""
    import knowledge_engine

    found: dict[str, re.Pattern[str]] = {}
    for info in pkgutil.walk_packages(knowledge_engine.__path__, "knowledge_engine."):
        try:
            mod = importlib.import_module(info.name)
        except Exception:  # optional modules (a missing extra) are not this test's business
            continue
        for name, value in vars(mod).items():
            for i, pat in enumerate(_patterns_of(value)):
                found.setdefault(f"{info.name}.{name}[{i}]", pat)
    return found


def adversarial(pattern: re.Pattern[str]) -> list[str]:
    """Generic evil strings plus strings built from the pattern's own literal characters."""
    generic = [
        "a" * N,
        "A" * N,
        "Aa " * (N // 3),
        "A " * (N // 2),
        "1" * N,
        "1." * (N // 2),
        "1/" * (N // 2),
        "@" * N,
        "a@" * (N // 2),
        "a." * (N // 2),
        "a-" * (N // 2),
        "http://" + "a" * N,
        "www." * (N // 4),
        "$" + "1," * (N // 2),
        "-" * N,
        "<" * N,
        "`" * N,
        "#" * N,
        " " * N,
        "\n" * N,
        "[" * N,
        "\\" * N,
        "Acme Corp " * (N // 10),
        "A. " * (N // 3),
        "Jan 1, " * (N // 7),
        "x" * N + "!",
        "_" * N,
        "a" * N + "@",
        "Dr. Who " * (N // 8),
        "'" * N,
        ("\u200b" + "a") * (N // 2),
        "é" * N,
    ]
    literals = sorted({c for c in pattern.pattern if c.isprintable() and c not in "()[]{}?*+|^$\\"})
    rng = random.Random(len(pattern.pattern) * 7919 + pattern.flags)
    own = []
    if literals:
        own.append("".join(rng.choice(literals) for _ in range(N)))
        unit = "".join(rng.choice(literals) for _ in range(5))
        own.append(unit * (N // 5) + "\x00")
    return generic + own


def scan() -> dict[str, Any]:
    """Time every pattern on every string; report the worst cases."""
    timings: list[tuple[float, str, int]] = []
    total_start = time.perf_counter()
    patterns = all_patterns()
    for name, pat in patterns.items():
        for i, text in enumerate(adversarial(pat)):
            t0 = time.perf_counter()
            pat.search(text)
            for _ in zip(range(2000), pat.finditer(text), strict=False):
                pass
            timings.append((time.perf_counter() - t0, name, i))
    timings.sort(reverse=True)
    return {
        "patterns": len(patterns),
        "cases": len(timings),
        "total_s": round(time.perf_counter() - total_start, 2),
        "worst": [{"s": round(s, 4), "pattern": n, "case": i} for s, n, i in timings[:5]],
    }


@pytest.mark.slow
def test_every_regex_is_bounded_on_adversarial_strings() -> None:
    code = "import json, tests.test_badinput_regex as t; print(json.dumps(t.scan()))"
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=HANG_GUARD_S
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    print(
        f"regex scan: {report['patterns']} patterns, {report['cases']} cases, {report['total_s']} s; "
        f"worst: {report['worst']}"
    )
    assert report["patterns"] >= 30  # the walk really found the package's regexes
    # generous: a pattern taking this long on 20k characters is super-linear and worth a look
    assert report["worst"][0]["s"] < 20.0, report["worst"]
