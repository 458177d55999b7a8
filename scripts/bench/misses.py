#!/usr/bin/env python3
"""Why the labelled stories' rows fail, per relation, as counts only (held-out stories included).

Each truth row the engine does not satisfy (knowledge.py's `row_satisfied`) falls in one bucket:

- `status`: a fact states the row's relation and object, with the wrong validity (a superseded row whose
  old fact is still current, or a current one ended);
- `elsewhere`: the row's object is in another fact (as object or subject): the name was read, the
  relation was not ("Isla attends Wee Sparrows" but no `has-child Isla`);
- `said`: the user's messages name the object, no fact holds it;
- `unsaid`: the object is not in the user's messages as written (an inference, or another spelling).

For `elsewhere` the other facts' predicates are counted (engine vocabulary, no text). This is how to look
at held-out stories without reading them: the counts say which kind of rule is missing, not which
sentence. No message, fact object or row object is ever printed. Last line: one JSON object.

Usage: .venv/bin/python scripts/bench/misses.py [--part heldout|tune|all] [--stories DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from scripts.bench import knowledge as kb  # noqa: E402

BUCKETS = ("ok", "status", "elsewhere", "said", "unsaid")


def bucket(row: dict[str, Any], facts: list[kb.FactView], user: str, said: list[str]) -> str:
    """The row's bucket (see the module docstring)."""
    if kb.row_satisfied(row, facts, user):
        return "ok"
    if any(kb.match_kind(f, row, user) for f in facts):
        return "status"
    objects = kb.objects_of(row)
    if any(kb.contains(f.object, o) or kb.contains(f.subject, o) for f in facts for o in objects):
        return "elsewhere"
    return "said" if any(kb.contains(t, o) for t in said for o in objects) else "unsaid"


def other_predicates(row: dict[str, Any], facts: list[kb.FactView]) -> list[str]:
    """The predicates of the facts holding the row's object, marked by where it sits ("subject:is-aged")."""
    out = []
    for f in facts:
        for o in kb.objects_of(row):
            if kb.contains(f.object, o):
                out.append(f"object:{f.predicate}")
                break
            if kb.contains(f.subject, o):
                out.append(f"subject:{f.predicate}")
                break
    return out


def tally(story: dict[str, Any], facts: list[kb.FactView]) -> tuple[Counter[str], dict[str, Counter[str]]]:
    """Buckets per relation ("employer:said") and, per relation, the predicates of `elsewhere` rows."""
    user = str(story["user"])
    said = [str(m["text"]) for m in story["messages"] if m["role"] == "user"]
    buckets: Counter[str] = Counter()
    others: dict[str, Counter[str]] = defaultdict(Counter)
    for row in story["truth"]:
        relation = str(row["relation"])
        kind = bucket(row, facts, user, said)
        buckets[f"{relation}:{kind}"] += 1
        if kind == "elsewhere":
            others[relation].update(other_predicates(row, facts))
    return buckets, others


def run(stories: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    out = kb.run(stories, keep_facts=True)
    buckets: Counter[str] = Counter()
    others: dict[str, Counter[str]] = defaultdict(Counter)
    for _, story in stories:
        listed = out["facts"][str(story["id"])]
        facts = [kb.FactView(s, p, o, bool(v), frozenset()) for s, p, o, v in listed]
        b, o = tally(story, facts)
        buckets.update(b)
        for relation, preds in o.items():
            others[relation].update(preds)
    relations = sorted({k.split(":")[0] for k in buckets})
    table = {r: {b: buckets.get(f"{r}:{b}", 0) for b in BUCKETS} for r in relations}
    total = {b: sum(row[b] for row in table.values()) for b in BUCKETS}
    return {
        "stories": len(stories),
        "by_relation": table,
        "total": total,
        "elsewhere_predicates": {r: dict(c.most_common(8)) for r, c in sorted(others.items())},
    }


def print_table(result: dict[str, Any]) -> None:
    print(f"{'relation':14} " + " ".join(f"{b:>9}" for b in BUCKETS))
    for relation, row in [*result["by_relation"].items(), ("total", result["total"])]:
        print(f"{relation:14} " + " ".join(f"{row[b]:>9}" for b in BUCKETS))
    for relation, preds in result["elsewhere_predicates"].items():
        print(f"  {relation} elsewhere as: {', '.join(f'{p} {n}' for p, n in preds.items())}")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--stories", type=Path, default=kb.STORIES, help="Folder with tune/ and heldout/.")
    p.add_argument("--part", choices=("heldout", "tune", "all"), default="heldout")
    p.add_argument("--json", action="store_true", help="Only the JSON line.")
    args = p.parse_args(argv)
    logging.getLogger("knowledge_engine").setLevel(logging.ERROR)
    stories = [(part, s) for part, s in kb.load_stories(args.stories) if args.part in ("all", part)]
    result = {"bench": "misses", "part": args.part, **run(stories)}
    if not args.json:
        print_table(result)
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
