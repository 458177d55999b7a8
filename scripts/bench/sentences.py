#!/usr/bin/env python3
"""Sentence probe: the spaCy tier's facts on one-line messages written blind, per relation and style.

The stories (knowledge.py) measure a whole life told over months; this measures the rules on single
messages, many more ways of saying each thing than the stories hold. `scripts/bench/sentences/` holds
JSONL files, one message per line:

    {"id": "p001", "style": "texting", "text": "...", "expect": [[relation, subject, object, status]]}

`subject` is "me" (the speaker) or a person's name; `relation` one of knowledge.py's RELATIONS (plus
"partner" = spouse, "moved_to" = lives_in); `expect` empty for a message that states none of them.
`blind-300.jsonl` was written by a helper who had seen neither the engine nor any story;
`blind-b-300.jsonl` (other styles) and `blind-c-300.jsonl` by two more, each blind to the others
(`--file`). blind-c had not been read by anyone at the end of session 21: a fresh held-out set.
`blind-d-300.jsonl` (session 23, seven more styles: slack, long, correction, help, Indian English,
elderly, gen-z) by a fourth, who read nothing of the repo; its odd half was read from then on.
`blind-e-300.jsonl` (session 38, seven more: voice-dictated, formal email, WhatsApp lower case,
non-native, rant, update, question; weighted to the relations the held-out stories miss most) by a
fifth, likewise; its odd half read from session 39. `blind-f-300.jsonl` (session 39, seven more:
bullet notes, third person, hedged, code-switching, typo-heavy, long context, past life; a quarter of
its facts past) by a sixth; its odd half was read in session 39 (the bullet notes first), its even
half by no one. `blind-g-300.jsonl` (session 40, seven more: task requests, voice dictation, lists of
people, non-native formal, slang, updates of a change, family named in passing) by a seventh, run
once unread on the session's first code.

Each message is extracted alone (its own session, speaker "Alex Morgan", role user), in process,
with relations by example read with the local MiniLM as the engine does (`--rules-only`: without).
A row counts when a fact expresses it in any form (current, past or inverse: knowledge.py's
`RELATIONS` and `contains`; the fact's object may also be a part of the row's, "£950" for "£950 a
month"); a negative message counts when it gives a fact of one of the relations below.

Split: `--part odd` are the messages to look at when writing rules (`--misses` prints their
failures); `--part even` are the ones to report and never to read. Last line: one JSON object.

Usage: .venv/bin/python scripts/bench/sentences.py [--part odd|even|all] [--misses] [--file PATH]
       [--rules-only]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from knowledge_engine.config import SpacyConfig  # noqa: E402
from knowledge_engine.extract.spacy_ner import SpacyTier  # noqa: E402
from knowledge_engine.index.embeddings.local import LocalEmbedder  # noqa: E402
from knowledge_engine.model.records import Message  # noqa: E402
from scripts.bench.knowledge import RELATIONS, contains  # noqa: E402

DEFAULT = ROOT / "scripts" / "bench" / "sentences" / "blind-300.jsonl"
SPEAKER = "Alex Morgan"
RENAMED = {"partner": "spouse", "moved_to": "lives_in"}
# The relations a negative message must not give (job titles are left out: "is-a" is too broad a
# wording to count as a false fact on its own).
NEGATIVE_RELATIONS = ("employer", "lives_in", "spouse", "child", "car", "manager", "pet")

Triple = tuple[str, str, str]


def load(path: Path, part: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if part == "all":
        return rows
    odd = part == "odd"
    return [r for r in rows if (int("".join(c for c in r["id"] if c.isdigit())) % 2 == 1) == odd]


def expressed(row: list[str], facts: list[Triple]) -> bool:
    """Whether a fact states the row (relation, subject, object) in any of its forms."""
    relation, subject, obj = RENAMED.get(row[0], row[0]), row[1], row[2]
    names = [SPEAKER, "user"] if subject == "me" else [subject]
    for s, p, o in facts:
        for kind in RELATIONS[relation].kinds(p):
            fs, fo = (o, s) if kind == "inverse" else (s, o)
            same = any(contains(fs, n) or contains(n, fs) for n in names)
            if same and (contains(fo, obj) or (len(fo) >= 3 and contains(obj, fo))):
                return True
    return False


def false_facts(facts: list[Triple]) -> list[Triple]:
    return [f for f in facts if any(RELATIONS[r].kinds(f[1]) for r in NEGATIVE_RELATIONS)]


def run(path: Path, part: str, by_example: bool = True) -> tuple[dict[str, Any], list[str]]:
    rows = load(path, part)
    # the engine's own tier: relations by example read with the local MiniLM when embeddings are on
    tier = SpacyTier(SpacyConfig(workers=0), embedder=LocalEmbedder if by_example else None)
    msgs = [Message(id=r["id"], text=r["text"], role="user", speaker=SPEAKER, session=r["id"]) for r in rows]
    hits: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    misses: list[str] = []
    negatives = wrong = 0
    for r, ex in zip(rows, tier.extract(msgs), strict=True):
        facts = [(f.subject, f.predicate, f.object) for f in ex.facts]
        for row in r["expect"]:
            ok = expressed(row, facts)
            for key in (f"relation:{row[0]}", f"style:{r['style']}"):
                totals[key] += 1
                hits[key] += ok
            if not ok:
                misses.append(f"{r['id']} {row[0]} {row[1]}->{row[2]}\n    {r['text']}\n    => {facts}")
        if not r["expect"]:
            negatives += 1
            bad = false_facts(facts)
            wrong += bool(bad)
            if bad:
                misses.append(f"{r['id']} NEGATIVE\n    {r['text']}\n    => {bad}")
    found = sum(v for k, v in hits.items() if k.startswith("relation:"))
    total = sum(v for k, v in totals.items() if k.startswith("relation:"))
    out = {
        "file": path.name,
        "part": part,
        "by_example": by_example,
        "messages": len(rows),
        "facts_expected": total,
        "facts_found": found,
        "recall": round(found / total, 3) if total else None,
        "negatives": negatives,
        "negatives_with_a_fact": wrong,
        "by_relation": {k[9:]: [hits[k], totals[k]] for k in sorted(totals) if k.startswith("relation:")},
        "by_style": {k[6:]: [hits[k], totals[k]] for k in sorted(totals) if k.startswith("style:")},
    }
    return out, misses


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=DEFAULT)
    ap.add_argument("--part", choices=("odd", "even", "all"), default="odd")
    ap.add_argument("--misses", action="store_true", help="Print the failures (odd part only).")
    ap.add_argument(
        "--rules-only",
        action="store_true",
        help="Leave out relations by example (the engine runs them whenever local embeddings are on).",
    )
    args = ap.parse_args(argv)
    if args.misses and args.part != "odd":
        ap.error("--misses reads the odd part only: the even part is for reporting")
    out, misses = run(args.file, args.part, by_example=not args.rules_only)
    print(
        f"{out['file']} ({out['part']}): {out['facts_found']}/{out['facts_expected']} facts, "
        f"negatives with a fact {out['negatives_with_a_fact']}/{out['negatives']}"
    )
    print("  by relation: " + ", ".join(f"{k} {a}/{b}" for k, (a, b) in out["by_relation"].items()))
    print("  by style: " + ", ".join(f"{k} {a}/{b}" for k, (a, b) in out["by_style"].items()))
    if args.misses:
        print("\n".join(misses))
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
