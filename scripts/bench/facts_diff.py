#!/usr/bin/env python3
"""Every fact the local tiers give, listed and compared between two versions of the engine.

The benches count rows; a change can add a wrong fact no row asks about ("I live in Leeds, not York"
giving lives-in York) or lose a right one no row holds. This lists *every* fact the engine gives on
the sentence sets (each message alone, as sentences.py runs them), the stories (through the hooks, as
knowledge.py runs them, so facts joined across messages show too) and the LoCoMo dev turns (each
turn alone, by its speaker), saves the list, and prints what changed against a saved list.

What must stay unread stays unread: the even halves of the sentence sets, all of blind-c and the
held-out stories are saved as short hashes of their facts with the predicate, so a diff reports only
how many facts of each predicate came and went there, never their text.

Usage (base first, then the change; `git worktree add /tmp/base <commit>` and PYTHONPATH=/tmp/base
for the base):
    .venv/bin/python scripts/bench/facts_diff.py --save /tmp/before.json
    .venv/bin/python scripts/bench/facts_diff.py --against /tmp/before.json [--save /tmp/after.json]
Run the second under another PYTHONHASHSEED to check the output does not hang on hash order.
`--only sentences,stories,locomo` narrows the sets. Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from scripts.bench import knowledge, sentences  # noqa: E402
from scripts.bench.common import LOCOMO_DEV, load_locomo  # noqa: E402

SENTENCE_DIR = ROOT / "scripts" / "bench" / "sentences"
# sentence files no one reads at all (sentences.py's docstring); every other file's odd half is readable
UNREAD_FILES = frozenset({"blind-c-300.jsonl"})
KINDS = ("sentences", "stories", "locomo")

Fact = tuple[str, str, str, bool]  # subject, predicate, object, valid now (a candidate: not one that ends)


def candidate(f: Any) -> Fact:
    return (f.subject, f.predicate, f.object, not f.ends)


def fact_line(fact: Fact) -> str:
    s, p, o, valid = fact
    return f"{s} | {p} | {o}" + ("" if valid else " (old)")


def hidden(item: str, fact: Fact) -> list[str]:
    """A fact of an unread set: a short hash (to tell facts apart) and its predicate, no text."""
    digest = hashlib.sha256(f"{item}\x00{fact_line(fact)}".encode()).hexdigest()[:16]
    return [digest, fact[1]]


def a_set(readable: bool, items: dict[str, list[Fact]], texts: dict[str, str]) -> dict[str, Any]:
    if readable:
        facts = {k: sorted(map(list, v)) for k, v in items.items()}
        return {"readable": True, "facts": facts, "texts": texts}
    return {"readable": False, "hidden": sorted(hidden(k, f) for k, v in items.items() for f in v)}


def new_tier() -> Any:
    """The engine's spaCy tier with relations by example, as sentences.py runs it."""
    from knowledge_engine.config import SpacyConfig
    from knowledge_engine.extract.spacy_ner import SpacyTier
    from knowledge_engine.index.embeddings.local import LocalEmbedder

    return SpacyTier(SpacyConfig(workers=0), embedder=LocalEmbedder)


def facts_alone(tier: Any, messages: list[tuple[str, str, str]]) -> dict[str, list[Fact]]:
    """Each (id, speaker, text) extracted alone, in a session of its own."""
    from knowledge_engine.model.records import Message

    msgs = [Message(id=i, text=text, role="user", speaker=who, session=i) for i, who, text in messages]
    return {m.id: [candidate(f) for f in ex.facts] for m, ex in zip(msgs, tier.extract(msgs), strict=True)}


def sentence_sets() -> Iterator[tuple[str, dict[str, Any]]]:
    tier = new_tier()  # one for all the sentence sets and one for LoCoMo, as before
    for path in sorted(SENTENCE_DIR.glob("*.jsonl")):
        for part in ("odd", "even"):
            rows = sentences.load(path, part)
            items = facts_alone(tier, [(r["id"], sentences.SPEAKER, r["text"]) for r in rows])
            readable = part == "odd" and path.name not in UNREAD_FILES
            yield f"sentences:{path.stem}:{part}", a_set(readable, items, {r["id"]: r["text"] for r in rows})


def story_sets() -> Iterator[tuple[str, dict[str, Any]]]:
    stories = knowledge.load_stories(knowledge.STORIES)
    out = knowledge.run(stories, keep_facts=True)
    for part in ("tune", "heldout"):
        ids = [sid for sid, s in out["stories"].items() if s["part"] == part]
        items = {sid: [(s, p, o, bool(v)) for s, p, o, v in out["facts"][sid]] for sid in ids}
        yield f"stories:{part}", a_set(part == "tune", items, {})


def locomo_set() -> Iterator[tuple[str, dict[str, Any]]]:
    turns = [(f"{c.sample_id}:{t.dia_id}", t) for c in load_locomo(LOCOMO_DEV) for t in c.turns]
    items = facts_alone(new_tier(), [(k, t.speaker, t.text) for k, t in turns])
    yield "locomo:dev", a_set(True, items, {k: t.text for k, t in turns})


def listing(kinds: Iterable[str]) -> dict[str, Any]:
    makers = {"sentences": sentence_sets, "stories": story_sets, "locomo": locomo_set}
    sets: dict[str, Any] = {}
    for kind in kinds:
        for name, data in makers[kind]():
            sets[name] = data
            print(f"listed {name}: {count(data)} facts", file=sys.stderr)
    return {"sets": sets}


def count(data: dict[str, Any]) -> int:
    if data["readable"]:
        return sum(len(v) for v in data["facts"].values())
    return len(data["hidden"])


def diff_readable(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[str], int, int]:
    lines: list[str] = []
    added = removed = 0
    before, after = old["facts"], new["facts"]
    for item in sorted(set(before) | set(after)):
        was = {tuple(f) for f in before.get(item, [])}
        now = {tuple(f) for f in after.get(item, [])}
        if was == now:
            continue
        text = new["texts"].get(item) or old.get("texts", {}).get(item, "")
        lines.append(f"{item}" + (f"  {text[:300]}" if text else ""))
        lines += [f"    - {fact_line(f)}" for f in sorted(was - now)]
        lines += [f"    + {fact_line(f)}" for f in sorted(now - was)]
        added, removed = added + len(now - was), removed + len(was - now)
    return lines, added, removed


def diff_hidden(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[str], int, int]:
    was = Counter(tuple(h) for h in old["hidden"])
    now = Counter(tuple(h) for h in new["hidden"])
    gone, came = was - now, now - was
    by_predicate: dict[str, list[int]] = {}
    for (_, pred), n in came.items():
        by_predicate.setdefault(pred, [0, 0])[0] += n
    for (_, pred), n in gone.items():
        by_predicate.setdefault(pred, [0, 0])[1] += n
    lines = [f"    {p}: +{a} -{r}" for p, (a, r) in sorted(by_predicate.items())]
    return lines, sum(came.values()), sum(gone.values())


def compare(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Print the differences per set; readable sets fact by fact, unread ones as counts per predicate."""
    summary: dict[str, Any] = {}
    for name in sorted(set(old["sets"]) & set(new["sets"])):
        a, b = old["sets"][name], new["sets"][name]
        if a["readable"] != b["readable"]:
            print(f"== {name}: listed readable in one file and not the other; not compared")
            continue
        lines, added, removed = (diff_readable if b["readable"] else diff_hidden)(a, b)
        summary[name] = {"facts": count(b), "added": added, "removed": removed}
        print(f"== {name}: {count(a)} -> {count(b)} facts, +{added} -{removed}")
        if lines:
            print("\n".join(lines))
    return summary


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--save", type=Path, help="Write the listing here.")
    ap.add_argument("--against", type=Path, help="Compare with a listing saved before.")
    ap.add_argument("--only", default=",".join(KINDS), help=f"Comma-separated sets: {', '.join(KINDS)}.")
    args = ap.parse_args(argv)
    kinds = [k.strip() for k in args.only.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown or not (args.save or args.against):
        ap.error(f"unknown set(s) {unknown}" if unknown else "give --save, --against or both")
    logging.getLogger("knowledge_engine").setLevel(logging.ERROR)
    old = json.loads(args.against.read_text(encoding="utf-8")) if args.against else None
    new = listing(kinds)
    if args.save:
        args.save.write_text(json.dumps(new), encoding="utf-8")
    out: dict[str, Any] = {"bench": "facts_diff", "sets": {k: count(v) for k, v in new["sets"].items()}}
    if old is not None:
        out["changes"] = compare(old, new)
        out["added"] = sum(v["added"] for v in out["changes"].values())
        out["removed"] = sum(v["removed"] for v in out["changes"].values())
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
